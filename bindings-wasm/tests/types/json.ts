// JSON files imported with `resolveJsonModule` (strings widened to `string`, arrays to `T[]`,
// numbers to `number`): the documents of the public conformance vectors, as the server sends
// them, passed as they are and assigned to the package's types. Compiled under module nodenext
// (where a JSON import needs `with { type: 'json' }`) and under module esnext with
// moduleResolution bundler (a Vite or webpack app), strict, with and without
// exactOptionalPropertyTypes.
import {
  validateBeneficiary, requiredFields, pageInfo, BeneficiaryValidator, PageWalker,
  type RulesDocument, type BankListResponse, type BeneficiaryDraft, type ListResponse, type PagedListResponse,
  type HasNextListResponse, type MetaListResponse, type Validation, type WalkStep, type PageInfo, type RequiredField,
} from 'xborder-wasm';
import type { Equals } from './equals.js';
import rules from './rules.json' with { type: 'json' };
import providerRules from './rules-provider.json' with { type: 'json' };
import banks from './banks.json' with { type: 'json' };
import draft from './draft.json' with { type: 'json' };
import list from './list.json' with { type: 'json' };
import metaList from './list-meta.json' with { type: 'json' };
import pagedList from './list-paged.json' with { type: 'json' };

// The imports are widened as the compiler reads JSON: no literal type survives.
const widened: [Equals<typeof rules.data.ownerType, string>, Equals<typeof banks.requestId, number>] = [true, true];

// They satisfy the package's types: the provider's `paymentTypes: [{}]` too.
const typedRules: RulesDocument[] = [rules, providerRules];
const typedBanks: BankListResponse = banks;
const typedDraft: BeneficiaryDraft = draft;
const lists: ListResponse<{ id: string }>[] = [list, metaList];
const hasNext: HasNextListResponse<{ id: string }> = list;
const meta: MetaListResponse<{ id: string }> = metaList;
const paged: PagedListResponse = pagedList;
void widened; void typedRules; void typedBanks; void typedDraft; void hasNext; void meta; void paged;

// They are passed as they are, to every function.
const validation: Validation = validateBeneficiary(draft, rules, { country: 'CO', response: banks });
validateBeneficiary(draft, providerRules.data, { country: 'CO', response: banks });
const validator = new BeneficiaryValidator(rules, { country: 'CO', response: banks });
const again: Validation = validator.validate(draft);
validator.free();
const fields: RequiredField[] = requiredFields(rules, 'bank_account', 'CO');
const infos: PageInfo[] = [pageInfo(list), pageInfo(metaList, { page: 1 }), pageInfo(pagedList), ...lists.map((l) => pageInfo(l))];
const walker = new PageWalker();
const step: WalkStep<{ id: string }> = walker.feed(list);
const metaStep = walker.feed(metaList);
const records: { id: string }[] = metaStep.records;
async function walk(): Promise<string[]> {
  const ids: string[] = [];
  for await (const r of new PageWalker().records(async () => list)) ids.push(r.id);
  return ids;
}
walker.free();
void validation; void again; void fields; void infos; void step; void records; void walk;

// Still refused: a document of another shape.
// @ts-expect-error: the bank list is not a rules document (no data.rules)
const notRules: RulesDocument = banks;
// @ts-expect-error: a list's records are the list's own ({ id } here, not { name })
const wrongRecords: ListResponse<{ name: string }> = list;
void notRules; void wrongRecords;
