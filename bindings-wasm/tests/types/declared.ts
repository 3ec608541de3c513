// A user's own declared interfaces of what the server sends (no index signature, no literal
// union: as a user writes them, or copies them from the provider's SDK), passed to every function
// that takes a document, a draft or a list response, and assigned to the package's types. Then
// what is still refused, and the return types, which stay precise.
import {
  validateBeneficiary, requiredFields, pageInfo, BeneficiaryValidator, PageWalker,
  type RulesDocument, type RulesDocumentData, type BankListResponse, type BankListInput, type BeneficiaryDraft,
  type ListResponse, type PagedListResponse, type HasNextListResponse, type MetaListResponse, type PageResponse,
  type Validation, type Issue, type IssueCode, type RequiredField, type PageInfo, type WalkStep, type ListParams,
} from 'xborder-wasm';
import type { Equals } from './equals.js';

// ---- The user's declarations.
interface ValidationField {
  field: string;
  description: string;
  nestedFields?: ValidationField[];
  fields?: ValidationField[];
}
interface PaymentTypeRules { type: string; description?: string; requiredFields: ValidationField[] }
interface ValidationRules {
  id: string;
  version: number;
  owner: string;
  ownerType: 'individual' | 'business';
  country: string;
  rules: { requiredFields: ValidationField[]; paymentTypes: PaymentTypeRules[]; requiredDocuments: { type: string; description: string }[] };
}
interface ValidationRulesResponse { data: ValidationRules; requestId: number }
interface BankItem { id: string; name: string; supportedAccountTypes?: string[] }
interface BanksResponse { data: BankItem[]; requestId: number }
interface Beneficiary { id: string; firstName: string; country: string }
/** The provider's SDK list: `{ data, total, hasNext, requestId }`. */
interface BeneficiaryList { data: Beneficiary[]; total: number; hasNext: boolean; requestId: number }
/** The specification's list: `{ data, total, page, pageSize }`. */
interface SpecList { data: ReadonlyArray<Beneficiary>; total: number; page: number; pageSize: number }
/** A `{ data, meta }` list. */
interface MetaList { data: Beneficiary[]; meta: { total: number; page: number; pageSize: number; hasNext?: boolean } }
interface Draft {
  ownerType: 'individual' | 'business';
  country: string;
  paymentType: 'bank_account' | 'spei';
  firstName: string;
  address: { city: string };
  paymentInfo: { bankId: string; accountNumber: string };
}

declare const rulesResponse: ValidationRulesResponse;
declare const banksResponse: BanksResponse;
declare const beneficiaryList: BeneficiaryList;
declare const specList: SpecList;
declare const metaList: MetaList;
declare const draft: Draft;

// ---- They satisfy the package's types.
const rules: RulesDocument = rulesResponse;
const rulesData: RulesDocumentData = rulesResponse.data;
const banks: BankListResponse = banksResponse;
const banksInput: BankListInput = { country: 'CO', response: banksResponse };
const typedDraft: BeneficiaryDraft = draft;
const list: ListResponse<Beneficiary> = beneficiaryList;
const hasNextList: HasNextListResponse<Beneficiary> = beneficiaryList;
const pagedList: PagedListResponse<Beneficiary> = specList;
const meta: MetaListResponse<Beneficiary> = metaList;
const lists: ListResponse<Beneficiary>[] = [beneficiaryList, specList, metaList];
const formerName: PageResponse<Beneficiary> = specList;
void rules; void rulesData; void banks; void typedDraft; void list; void hasNextList; void pagedList; void meta; void formerName;

// ---- They are passed as they are, to every function.
const validation: Validation = validateBeneficiary(draft, rulesResponse, { country: 'CO', response: banksResponse });
validateBeneficiary(draft, rulesResponse.data, banksInput);
validateBeneficiary(typedDraft, rules, { country: 'CO', response: banks });
const validator = new BeneficiaryValidator(rulesResponse, { country: 'CO', response: banksResponse });
const again: Validation = validator.validate(draft);
validator.free();
const fields: RequiredField[] = requiredFields(rulesResponse, 'bank_account', 'CO');
const infos: PageInfo[] = [pageInfo(beneficiaryList, { page: 0, pageSize: 10 }), pageInfo(specList), pageInfo(metaList), ...lists.map((l) => pageInfo(l))];
const walker = new PageWalker({ pageSize: 10 });
const step: WalkStep<Beneficiary> = walker.feed(beneficiaryList);
const metaStep: WalkStep<Beneficiary> = walker.feed(metaList);
const specStep: WalkStep<Beneficiary> = walker.feed(specList);
async function everyBeneficiary(fetchPage: (query: string) => Promise<BeneficiaryList>): Promise<Beneficiary[]> {
  const out: Beneficiary[] = [];
  for await (const b of new PageWalker(null).records(fetchPage, (s) => { const d: number = s.drifts.length; void d; })) out.push(b);
  return out;
}
void everyBeneficiary; void again; void fields; void infos; void step; void metaStep; void specStep;

// ---- What is still refused.
// @ts-expect-error: the rules document has its rules under `data`
const unwrapped: RulesDocument = { rules: { requiredFields: [] } };
// @ts-expect-error: the bank list's `data` is an array of banks
const bareBanks: BankListResponse = { data: { id: 'bank_co_001' } };
// @ts-expect-error: a bank list is given with its country, as { country, response }
validateBeneficiary(draft, rulesResponse, banksResponse);
// @ts-expect-error: the country a bank list was asked for is a string
validateBeneficiary(draft, rulesResponse, { country: 57, response: banksResponse });
interface TextTotal { data: Beneficiary[]; total: string }
declare const textTotal: TextTotal;
// @ts-expect-error: a list's total is a number
const notAList: ListResponse<Beneficiary> = textTotal;
// @ts-expect-error: a {data, meta} list has its total under meta
const noMetaTotal: MetaListResponse = { data: [], meta: { page: 1 } };
interface Sender { id: string; email: string }
// @ts-expect-error: the records are the list's own (a walk of senders is not one of beneficiaries)
const wrongRecords: WalkStep<Sender> = walker.feed(beneficiaryList);
// @ts-expect-error: list parameters are an object (a query string is refused)
pageInfo(beneficiaryList, 'page=0&pageSize=10');
// @ts-expect-error: endpoint filters go under `filters`
const params: ListParams = { status: 'active' };
walker.free();
void unwrapped; void bareBanks; void notAList; void noMetaTotal; void wrongRecords; void params;

// ---- Return types stay precise; where any JSON is taken, the parameter is `unknown`.
const firstCode = validation.issues[0]?.code;
const exact: [
  Equals<NonNullable<typeof firstCode>, IssueCode>,
  Equals<Validation['issues'], Issue[]>,
  Equals<Issue['label'], string | null>,
  Equals<ReturnType<typeof requiredFields>, RequiredField[]>,
  Equals<RequiredField['source'], 'fixed' | 'rules'>,
  Equals<ReturnType<typeof pageInfo>, PageInfo>,
  Equals<PageInfo['nextPage'], number | null>,
  Equals<typeof step.records, Beneficiary[]>,
  Equals<ReturnType<typeof walker.feed<BeneficiaryList>>, WalkStep<Beneficiary>>,
  Equals<Parameters<typeof validateBeneficiary>[0], unknown>,
  Equals<Parameters<typeof validateBeneficiary>[1], unknown>,
  Equals<BankListInput['response'], unknown>,
  Equals<Parameters<typeof requiredFields>[0], unknown>,
  Equals<Parameters<typeof pageInfo>[0], unknown>,
  Equals<Parameters<BeneficiaryValidator['validate']>[0], unknown>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];
// @ts-expect-error: an issue code is one of IssueCode, not any string
const notACode: IssueCode = 'NOT_A_CODE';
// A value of unknown shape (not a ListResponse) walks with `unknown` records.
const parsed: unknown = JSON.parse('{"data": [], "total": 0}');
const unknownRecords = walker.feed(parsed).records;
const unknownExact: Equals<typeof unknownRecords, unknown[]> = true;
void exact; void notACode; void unknownExact;
