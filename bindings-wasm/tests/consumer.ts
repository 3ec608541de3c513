// A TypeScript consumer of the packed package, checked with `tsc --noEmit --strict`.
import {
  XborderError, Receiver, classifyEvent, checkRegistration, createWebhookBody, eventMatches, sign, verify,
  decodeEnvelope, validateBeneficiary, requiredFields, listQuery, pageInfo, init, Catalog, PageWalker, Claims,
  type ErrorCode, type Decision, type Envelope, type Issue, type IssueCode, type PageInfo, type JsonObject,
  type Body, type SecretOrSecrets, type ListParams, type Classification, type RegistrationCheck,
  type ReceiverOptions, type Drift, type DriftCode, type WalkStep, type PageResponse, type ClaimStore, type StoreTime,
  type ClaimOutcome, type ClaimStep, type ClaimsOptions, type ClaimRulesOptions, type JsonValue,
  type SignatureHeader, type HeaderCollection, type RulesDocument, type BankListResponse, type BankListInput,
  type RulesInput, type DocumentErrorCode, BeneficiaryValidator, handleDelivery, DeliveryHandling,
  type DeliveryResult, type HandlingAct, type HandlingAnswer, type HandlingStep,
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
// The signature header as a handler has it: Node's IncomingHttpHeaders (as @types/node declares
// it: values string | string[] | undefined), one of its values, a Fetch Headers, a plain record.
interface Dict<T> { [key: string]: T | undefined }
interface IncomingHttpHeaders extends Dict<string | string[]> { accept?: string | undefined; 'set-cookie'?: string[] | undefined }
const incoming: IncomingHttpHeaders = { 'x-webhook-signature': signature, 'set-cookie': ['a=1'] };
verify('k', body, incoming);
verify('k', body, incoming['x-webhook-signature']);
verify('k', body, [signature, signature]);
verify('k', body, new Headers({ 'X-Webhook-Signature': signature }));
verify('k', body, { 'X-Webhook-Signature': signature });
verify('k', body, undefined);
const collection: HeaderCollection = new Headers();
const header: SignatureHeader = collection;
verify('k', body, header);
// @ts-expect-error: a header value is a string
verify('k', body, { 'x-webhook-signature': 42 });
// @ts-expect-error: header values are strings
verify('k', body, [signature, 1]);
// @ts-expect-error: a Map is not a header collection (its names are case-sensitive)
verify('k', body, new Map<string, string>([['x-webhook-signature', signature]]));
// @ts-expect-error: a Buffer is not the header
verify('k', body, new Uint8Array(64));
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
const fromHeaders: Decision = rx.receive(new ArrayBuffer(2), incoming);
void fromHeaders;
switch (decision.action) {
  case 'process': rx.commit(decision.envelope.id); break;
  case 'reject': {
    const c: 'MISSING_SIGNATURE' | 'SIGNATURE_MISMATCH' | 'MALFORMED_SIGNATURE' | 'EMPTY_SECRET' | 'MALFORMED_SECRET' | 'MALFORMED_JSON'
      | 'BODY_TOO_LARGE' | 'NESTING_TOO_DEEP' | 'MISSING_FIELD' | 'INVALID_FIELD' | 'ENTITY_MISMATCH' | 'STORE_UNAVAILABLE' = decision.error.code;
    const f: 'id' | 'event' | 'entity' | 'entity.id' | 'entity.type' | 'entity.data' | undefined = decision.error.field;
    const status: 200 | 400 | 413 | 500 | 503 = decision.reply.status;
    const retryAfter: number | null = decision.reply.retryAfter;
    void c; void f; void status; void retryAfter; break;
  }
  default: { const e: Envelope = decision.envelope; void e; }
}
rx.free();

const v = validateBeneficiary({ ownerType: 'individual', country: 'CO', paymentInfo: { bankId: 'b' } }, null, { country: 'CO', response: { data: [] } });
const issues: Issue[] = v.issues;
const codes: IssueCode[] = issues.map((i) => i.code);
const messages: string[] = issues.map((i) => i.message);
const labels: (string | null)[] = issues.map((i) => i.label);
// @ts-expect-error: a label is a string or null, never undefined
const noLabel: string | undefined = issues[0].label;
const ibanCode: IssueCode = 'INVALID_IBAN';
const unreadable: IssueCode[] = ['RULES_UNREADABLE', 'BANKS_UNREADABLE', 'INVALID_BRANCH_CODE'];
const paths: string[] = requiredFields(null, 'bank_account', 'US').map((f) => f.path);
// The documents as the server sends them, typed; as text; or as any JSON.
const rulesDoc: RulesDocument = {
  data: { country: 'CO', ownerType: 'individual', rules: {
    requiredFields: [{ field: 'address', description: 'Address', nestedFields: [{ field: 'city', description: 'City' }] }],
    paymentTypes: [{ type: 'bank_account', requiredFields: [{ field: 'accountNumber', description: 'Account number' }] }] } },
  requestId: 'req_1',
};
const bankList: BankListResponse = { data: [{ id: 'bank_co_001', name: 'Bancolombia' }], requestId: 'req_2' };
const banksInput: BankListInput = { country: 'CO', response: bankList };
const asText: RulesInput = JSON.stringify(rulesDoc);
const fromServer: JsonValue = JSON.parse('{"data": {"rules": {}}}');
validateBeneficiary({ country: 'CO' }, rulesDoc, banksInput);
validateBeneficiary({ country: 'CO' }, asText, { country: 'CO', response: JSON.stringify(bankList) });
validateBeneficiary({ country: 'CO' }, fromServer, { country: 'CO', response: fromServer });
validateBeneficiary({ country: 'CO' }, rulesDoc.data);
new BeneficiaryValidator(asText, banksInput).validate({}).issues.forEach((i) => console.log(i.label ?? i.path, i.message));
requiredFields(asText, 'bank_account', 'CO');
// A document is `unknown` (any JSON, an interface of the user's, an imported JSON file: see
// types/*.ts); a function, a symbol or a Promise given as one is a TypeError at run time (kinds.mjs).
// @ts-expect-error: a bank list is { country, response }
validateBeneficiary({}, null, { country: 'CO', data: [] });
try {
  requiredFields('{"error": {}}', 'bank_account', 'CO');
} catch (err) {
  if (err instanceof XborderError) {
    const ec: ErrorCode = err.code;
    const doc: DocumentErrorCode = 'RULES_UNREADABLE';
    if (ec === doc) console.log(err.message);
  }
}
void messages; void labels; void noLabel; void ibanCode; void unreadable;
const q: string = listQuery({ page: 1, sortOrder: 'ASC' });
// sortOrder is any string (core answers INVALID_SORT_ORDER for one that is not ASC or DESC): a
// value read from a query string or a JSON file is a `string`.
const sortFromUrl: string = new URLSearchParams('sortOrder=asc').get('sortOrder') ?? 'DESC';
listQuery({ sortOrder: sortFromUrl });
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

// Catalog: the built-in names plus added ones; a receiver classifies with it.
const catalog = new Catalog();
catalog.addLive('order:rejected');
catalog.addWildcard('fiat_deposit:*');
const live: boolean = catalog.isLive('order:rejected');
const classified: Classification = catalog.classify('order:rejected');
const registration: RegistrationCheck = catalog.checkRegistration(['order:rejected'], null);
const webhookBody: string = catalog.createWebhookBody(['order:rejected'], 'https://x.test/h', 0);
const covered: boolean = catalog.matches(['fiat_deposit:*'], 'fiat_deposit:created');
// @ts-expect-error: a list of names, not one name
catalog.checkRegistration('order:rejected');
// @ts-expect-error: a name is a string
catalog.addLive(1);
const receiverOptions: ReceiverOptions = { window: 100, catalog };
const withCatalog = new Receiver('k', receiverOptions);
const noWindow = new Receiver(['k1', 'k2'], { window: 0 });
// @ts-expect-error: a misspelt option
new Receiver('k', { windw: 10 });
// @ts-expect-error: the catalog is a Catalog, not a list of names
new Receiver('k', { catalog: ['order:rejected'] });
withCatalog.free(); noWindow.free(); catalog.free();
try {
  new Catalog().addLive('order:*');
} catch (err) {
  if (err instanceof XborderError && err.code === 'INVALID_EVENT_NAME') console.log(err.message);
}

// PageWalker: the caller's own record type comes back; drifts are a tagged union.
interface Beneficiary { id: string; name: string }
const walker = new PageWalker({ pageSize: 50, filters: { status: 'active' } });
const query: string | null = walker.nextQuery();
const page: PageResponse<Beneficiary> = { data: [{ id: 'b1', name: 'Ana' }], total: 1, page: 0, pageSize: 50 };
const metaPage: PageResponse<Beneficiary> = { data: [{ id: 'b2', name: 'Luz' }], meta: { total: 2, page: 1, pageSize: 1 }, requestId: 'req_3' };
const metaInfo: PageInfo = pageInfo(metaPage);
// @ts-expect-error: a {data, meta} page has its total under meta
const noTotal: PageResponse<Beneficiary> = { data: [], meta: { page: 1 } };
void metaInfo; void noTotal;
const walked: WalkStep<Beneficiary> = walker.feed(page);
const names: string[] = walked.records.map((b) => b.name);
const done: boolean = walker.isDone();
for (const d of walked.drifts) {
  const dc: DriftCode = d.code;
  switch (d.code) {
    case 'TOTAL_CHANGED': { const moved: number = d.to - d.from; void moved; break; }
    case 'REPEATED_RECORDS': case 'POSSIBLY_SKIPPED': { const n: number = d.count; void n; break; }
    case 'HAS_NEXT_CONFLICT': { const h: boolean = d.hasNext; void h; break; }
    case 'STALLED': { const only: { code: 'STALLED' } = d; void only; break; }
    default: { const never: never = d; void never; }
  }
  void dc;
}
const drift: Drift = { code: 'REPEATED_RECORDS', count: 1 };
// @ts-expect-error: a TOTAL_CHANGED drift has from and to
const badDrift: Drift = { code: 'TOTAL_CHANGED', count: 1 };
async function everyBeneficiary(): Promise<Beneficiary[]> {
  const out: Beneficiary[] = [];
  const all = new PageWalker({ pageSize: 100 });
  for await (const b of all.records(async (q: string): Promise<PageResponse<Beneficiary>> => ({ data: [{ id: q, name: q }], total: 1 }),
    (step) => { const ds: Drift[] = step.drifts; void ds; })) {
    out.push(b);
  }
  all.free();
  // @ts-expect-error: fetchPage is a function
  all.records('https://x.test/list');
  const plain = new PageWalker(null).feed({ data: [1, 'a', null], total: 3 });
  const values: JsonValue[] = plain.records;
  void values;
  return out;
}
void everyBeneficiary;

// Claims: the built-in store, and a store of the host's (sync or async).
const claimsOptions: ClaimsOptions = { leaseMs: 30_000, windowMs: 86_400_000, capacity: 10_000 };
const claims = new Claims(claimsOptions);
const stepName: ClaimStep = 'claim';
const outcome: ClaimOutcome = claims.step(stepName, 'evt_1', 'req_a', Date.now());
// @ts-expect-error: not a step
claims.step('finish', 'evt_1', 'req_a', 0);
// @ts-expect-error: a time is a number of milliseconds, not a Date
claims.step('claim', 'evt_1', 'req_a', new Date());
// @ts-expect-error: the built-in store's options only
new Claims({ lease: 10 });
claims.free();
const texts = new Map<string, string>();
const syncStore: ClaimStore = {
  load: (id) => texts.get(id) ?? null,
  compareAndSet(id, expected, next, ttlMs) {
    void ttlMs;
    if ((texts.get(id) ?? null) !== expected) return false;
    if (next === null) texts.delete(id); else texts.set(id, next);
    return true;
  },
};
const asyncStore: ClaimStore = {
  load: async (id) => texts.get(id),
  compareAndSet: async (id, expected, next, ttlMs: number | null, time: StoreTime) => syncStore.compareAndSet(id, expected, next, ttlMs, time) === true,
};
// A store that keeps expiry (a SQL row): core's times, written and compared as given.
const expiring = new Map<string, [string, number | null]>();
const liveEntry = (id: string, time: StoreTime): string | null => {
  const row = expiring.get(id);
  return row !== undefined && (row[1] === null || row[1] > time.nowMs) ? row[0] : null;
};
const sqlLike: ClaimStore = {
  load: (id, time) => liveEntry(id, time),
  compareAndSet(id, expected, next, _ttlMs, time) {
    if (liveEntry(id, time) !== expected) return false;
    const expiresAt: number | null = time.expiresAtMs;
    if (next === null) expiring.delete(id); else expiring.set(id, [next, expiresAt]);
    return true;
  },
};
// @ts-expect-error: a StoreTime's times are numbers (or null)
const wrongTime: StoreTime = { nowMs: '1', ttlMs: null, expiresAtMs: null };
void wrongTime;
void Claims.withStore(sqlLike).step('claim', 'evt_1', 'req_a', 7);
const rules: ClaimRulesOptions = { leaseMs: 1000 };
const shared = Claims.withStore(syncStore, rules);
const again: ClaimOutcome = shared.step('complete', 'evt_1', 'req_a', 5);
const later: Promise<ClaimOutcome> = Claims.withStore(asyncStore).stepAsync('release', 'evt_1', 'req_a', 6);
// @ts-expect-error: a store has load and compareAndSet
Claims.withStore({ load: () => null });
// @ts-expect-error: capacity is the built-in store's
Claims.withStore(syncStore, { capacity: 5 });
// Delivery handling: one call (the built-in Claims or a store of the host's), or one act at a time.
const handled: DeliveryResult = await handleDelivery({
  receiver: new Receiver('k', { window: 0 }), claims, body, signature,
  persist: async (envelope: Envelope) => { void envelope.id; },
  now: () => Date.now(),
});
const answered: 200 | 400 | 413 | 500 | 503 = handled.status;
const retryHeader: string | undefined = handled.headers['Retry-After'];
const handledCode: ErrorCode | 'PERSIST_FAILED' | null = handled.code;
const handledAction: 'process' | 'ignore' | 'duplicate' | 'reject' = handled.action;
const stepwise = new DeliveryHandling({ receiver: new Receiver('k'), store: asyncStore, leaseMs: 1000, body, signature });
const act: HandlingAct = stepwise.next();
if (act.act === 'persist') stepwise.persisted(true);
else if (act.act === 'answer') { const a: HandlingAnswer = act.answer; void a.outcome; }
else void stepwise.stepAsync(7).then((next: HandlingAct) => next.act);
// @ts-expect-error: persist is required
void handleDelivery({ receiver: new Receiver('k'), claims, body, signature });
// In a transaction of the host's (a SQL store): tx typed by begin(), given to persist and store.
interface Conn { query(sql: string, values: unknown[]): Promise<unknown> }
declare const conn: Conn;
void handleDelivery<Conn>({
  receiver: new Receiver('k', { window: 0 }), store: asyncStore, leaseMs: 1000, body, signature,
  transaction: { begin: async () => conn, store: (_tx: Conn, atMs: number) => { void atMs; return asyncStore; }, commit: (tx) => tx.query('COMMIT', []), rollback: (tx) => tx.query('ROLLBACK', []) },
  persist: (envelope, tx) => tx?.query('INSERT INTO events (id) VALUES ($1)', [envelope.id]),
});
const inTx = new DeliveryHandling({ receiver: new Receiver('k'), claims, body, signature, inTransaction: true });
const txAct: HandlingAct = inTx.next();
if (txAct.act === 'commit') inTx.committed(true);
const last: HandlingStep | null = inTx.lastStep();
void last?.outcome;
// @ts-expect-error: a transaction has begin, store, commit and rollback
void handleDelivery({ receiver: new Receiver('k'), store: asyncStore, body, signature, persist: () => {}, transaction: { begin: () => conn } });
// @ts-expect-error: an act is claim, persist, complete, release or answer
const notAnAct: HandlingAct = { act: 'load', id: 'evt_1' };
console.log(answered, retryHeader, handledCode, handledAction, notAnAct);
later.catch((err: unknown) => {
  if (err instanceof XborderError && (err.code === 'INVALID_STEP' || err.code === 'STORE_UNAVAILABLE')) console.log(err.field, err.cause);
});
console.log(live, classified, registration, webhookBody, covered, query, names, done, drift, badDrift, outcome, again);

/** The secret as a deployment would read it (no Node types here: `process` is not declared). */
function secretFromEnvironment(): string {
  return 'whsec_from_the_environment';
}
