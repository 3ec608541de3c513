// A TypeScript consumer of the packed package, checked with `tsc --noEmit --strict`.
import {
  XborderError, Receiver, classifyEvent, checkRegistration, createWebhookBody, eventMatches, sign, verify,
  decodeEnvelope, validateBeneficiary, requiredFields, listQuery, pageInfo, init,
  type ErrorCode, type Decision, type Envelope, type Issue, type IssueCode, type PageInfo, type JsonObject,
} from 'xborder-wasm';

await init();
const kind: 'live' | 'planned' | 'wildcard' | 'unknown' | 'invalid' = classifyEvent('order:created').kind;
const check = checkRegistration(['order:*'], 0);
if (check.ok) { const events: string[] = check.events; void events; }
else if (check.code === 'VALIDATION_FAILED') { const reason: 'planned' | 'unknown' | 'invalid' = check.rejected[0].reason; void reason; }
const body: string = createWebhookBody(['order:*'], 'https://x.test/h');
const matches: boolean = eventMatches(['order:*'], 'order:created');
const signature: string = sign('k', new TextEncoder().encode(body));

try {
  verify(['k1', 'k2'], body, signature);
  verify('k', body, null);
} catch (err) {
  if (err instanceof XborderError) {
    const code: ErrorCode = err.code;
    // @ts-expect-error: not an xborder code
    const wrong: typeof err.code = 'NOT_A_CODE';
    console.log(code, err.field, err.name, err.message, wrong);
  }
}

const env: Envelope = decodeEnvelope(body);
const data: JsonObject | undefined = env.data;
const id: string = env.id;

const rx = new Receiver(['k'], 1000);
const decision: Decision = rx.receive(new Uint8Array([1, 2]), undefined);
switch (decision.action) {
  case 'process': rx.commit(decision.envelope.id); break;
  case 'reject': { const c: 'MISSING_SIGNATURE' | 'SIGNATURE_MISMATCH' | 'MALFORMED_SIGNATURE' | 'EMPTY_SECRET' | 'MALFORMED_JSON' | 'MISSING_FIELD' | 'INVALID_FIELD' | 'ENTITY_MISMATCH' | 'STORE_UNAVAILABLE' = decision.error.code; void c; break; }
  default: { const e: Envelope = decision.envelope; void e; }
}
rx.free();

const v = validateBeneficiary({ ownerType: 'individual', country: 'CO', paymentInfo: { bankId: 'b' } }, null, { country: 'CO', response: { data: [] } });
const issues: Issue[] = v.issues;
const codes: IssueCode[] = issues.map((i) => i.code);
const paths: string[] = requiredFields(null, 'bank_account', 'US').map((f) => f.path);
const q: string = listQuery({ page: 1, sortOrder: 'ASC' });
// @ts-expect-error: sortOrder is ASC or DESC
listQuery({ sortOrder: 'up' });
const info: PageInfo = pageInfo({ data: [], total: 0 }, { page: 0, pageSize: 10 });
const next: number | null = info.nextPage;
console.log(kind, matches, data, id, codes, paths, q, next);
