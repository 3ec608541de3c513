// Code as it is written under `exactOptionalPropertyTypes: true`: optional values a user holds as
// `T | undefined` (a form's state, an optional query parameter, an environment setting) put in
// the package's input objects. xborder reads `undefined` as absent, as JSON leaves it out.
import {
  validateBeneficiary, listQuery, pageInfo, PageWalker, Receiver, Claims,
  type BeneficiaryDraft, type PaymentInfo, type ListParams, type ListMeta, type RulesField, type BankListInput,
  type ReceiverOptions, type ClaimsOptions, type HasNextListResponse, type MetaListResponse,
} from 'xborder-wasm';

declare const form: { country?: string; bankId: string | undefined; accountNumber: string | undefined };
declare const query: { page: number | undefined; pageSize?: number; search: string | undefined; sort: string | undefined; status: string | undefined };
declare const env: { window: number | undefined; lease: number | undefined };
declare const banksText: string | undefined;

const paymentInfo: PaymentInfo = { bankId: form.bankId, accountNumber: form.accountNumber };
const draft: BeneficiaryDraft = { ownerType: 'individual', country: form.country, paymentType: undefined, paymentInfo };
const banks: BankListInput = { country: 'CO', response: banksText };
validateBeneficiary(draft, undefined, banks);

const params: ListParams = {
  page: query.page, pageSize: query.pageSize, search: query.search, sortOrder: query.sort, sortBy: undefined,
  filters: { status: query.status, archived: false },
};
const text: string = listQuery(params);
const walker = new PageWalker(params);
const page: HasNextListResponse<{ id: string }> = { data: [{ id: 'b1' }], total: 1, hasNext: undefined, requestId: undefined };
const metaFields: ListMeta = { total: 1, page: query.page, pageSize: undefined, hasNext: undefined };
const metaPage: MetaListResponse<{ id: string }> = { data: [], meta: metaFields };
pageInfo(page, params);
pageInfo(metaPage);
walker.feed(page);
walker.free();

const field: RulesField = { field: 'city', description: undefined, nestedFields: undefined };
const options: ReceiverOptions = { window: env.window, catalog: undefined };
new Receiver('k', options).free();
const claimsOptions: ClaimsOptions = { leaseMs: env.lease, windowMs: undefined, capacity: undefined };
new Claims(claimsOptions).free();
Claims.withStore({ load: () => null, compareAndSet: () => true }, { leaseMs: env.lease }).free();
void text; void field;
