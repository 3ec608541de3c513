// A TypeScript consumer of the packed package, checked with `tsc --noEmit --strict`.
import {
  XborderError, Receiver, classifyEvent, checkRegistration, createWebhookBody, eventMatches, sign, verify,
  decodeEnvelope, validateBeneficiary, requiredFields, listQuery, pageInfo, init,
  type ErrorCode, type Decision, type Envelope, type Issue, type IssueCode, type PageInfo, type JsonObject,
  type Body, type SecretOrSecrets, type ListParams,
} from 'xborder-wasm';

await init();
const kind: 'live' | 'planned' | 'wildcard' | 'unknown' | 'invalid' = classifyEvent('order:created').kind;
const check = checkRegistration(['order:*'], 0);
if (check.ok) { const events: string[] = check.events; void events; }
else if (check.code === 'VALIDATION_FAILED') { const reason: 'planned' | 'unknown' | 'invalid' = check.rejected[0].reason; void reason; }
const body: string = createWebhookBody(['order:*'], 'https://x.test/h');
const matches: boolean = eventMatches(['order:*'], 'order:created');
const signature: string = sign('k', new TextEncoder().encode(body));
const bodies: Body[] = [body, new TextEncoder().encode(body), new ArrayBuffer(2)];
const rotation: SecretOrSecrets = ['k1', 'k2'] as const;
checkRegistration(['order:created'], null);
// Kinds that used to be coerced at run time (now a TypeError) do not type-check either.
// @ts-expect-error: a list of event names, not one name
checkRegistration('order:created');
// @ts-expect-error: a count is a number, not its text
createWebhookBody(['order:*'], 'https://x.test/h', '3');
// @ts-expect-error: subscriptions are an array
eventMatches('order:*', 'order:created');
// @ts-expect-error: a secret is a string (or an array of them), not a number
verify(42, body, signature);
// @ts-expect-error: one header value, not an array of them
verify('k', body, [signature]);
// @ts-expect-error: the raw body, not a parsed object
sign('k', { id: 'evt_1' });
// @ts-expect-error: a string id
new Receiver('k').commit(1);

try {
  verify(['k1', 'k2'], body, signature);
  verify(rotation, bodies[2], signature);
  verify('k', body, null);
} catch (err) {
  if (err instanceof XborderError) {
    const code: ErrorCode = err.code;
    // @ts-expect-error: not an xborder code
    const wrong: typeof err.code = 'NOT_A_CODE';
    const field: string | undefined = err.field;
    console.log(code, field, err.name, err.message, wrong);
  }
}

const env: Envelope = decodeEnvelope(body);
const data: JsonObject | undefined = env.data;
const id: string = env.id;

const rx = new Receiver(['k'], 1000);
const one = new Receiver(secretFromEnvironment(), null);
one.free();
const decision: Decision = rx.receive(new Uint8Array([1, 2]), undefined);
switch (decision.action) {
  case 'process': rx.commit(decision.envelope.id); break;
  case 'reject': {
    const c: 'MISSING_SIGNATURE' | 'SIGNATURE_MISMATCH' | 'MALFORMED_SIGNATURE' | 'EMPTY_SECRET' | 'MALFORMED_JSON'
      | 'BODY_TOO_LARGE' | 'NESTING_TOO_DEEP' | 'MISSING_FIELD' | 'INVALID_FIELD' | 'ENTITY_MISMATCH' | 'STORE_UNAVAILABLE' = decision.error.code;
    const f: 'id' | 'event' | 'entity' | 'entity.id' | 'entity.type' | 'entity.data' | undefined = decision.error.field;
    void c; void f; break;
  }
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
const filtered: ListParams = { sortOrder: 'asc', filters: { status: 'success', archived: false, amount: 10, email: null } };
const withFilters: string = listQuery(filtered);
// @ts-expect-error: endpoint filters go under `filters`
listQuery({ status: 'success' });
// @ts-expect-error: a filter is a string, a number, a boolean or null
listQuery({ filters: { status: ['a'] } });
try {
  listQuery({ filters: { page: 1 } });
} catch (err) {
  if (err instanceof XborderError && (err.code === 'INVALID_FILTER' || err.code === 'UNKNOWN_PARAMETER')) console.log(err.field);
}
const info: PageInfo = pageInfo({ data: [], total: 0 }, { page: 0, pageSize: 10 });
const next: number | null = info.nextPage;
const conflict: boolean = info.hasNextConflict;
void conflict;
console.log(kind, matches, data, id, codes, paths, q, next, withFilters);

/** The secret as a deployment would read it (no Node types here: `process` is not declared). */
function secretFromEnvironment(): string {
  return 'whsec_from_the_environment';
}
