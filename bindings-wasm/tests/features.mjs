// The packed package's Catalog, PageWalker and Claims, as a user installs them: what each answers,
// through the public API only. Every rule is core's; these check that the package carries it
// across (the caller's own objects, a store of the caller's, errors as XborderError with code,
// field and cause).
import assert from 'node:assert/strict';
import * as xb from 'xborder-wasm';

const { XborderError, Catalog, PageWalker, Claims, Receiver, sign } = xb;
const code = (c, field) => (e) => e instanceof XborderError && e.code === c && (field === undefined || e.field === field);
const SECRET = 'whsec_features';
const delivery = (id, event) => {
  const body = JSON.stringify({ id, event, entity: { id: 'ord_1', type: event.split(':')[0], data: {} } });
  return [body, sign(SECRET, body)];
};

// ---------------------------------------------------------------------------------------------
// Catalog
{
  const catalog = new Catalog();
  assert.deepEqual(catalog.classify('order:rejected'), { kind: 'unknown', entity: 'order', action: 'rejected' });
  assert.equal(catalog.isLive('order:rejected'), false);
  catalog.addLive('order:rejected');
  catalog.addLive('order:rejected'); // twice is once
  assert.deepEqual(catalog.classify('order:rejected'), { kind: 'live', entity: 'order', action: 'rejected' });
  assert.equal(catalog.isLive('order:rejected'), true);
  assert.equal(catalog.isLive('order:created'), true); // the built-in names are there
  // The registration pre-check and the webhook body accept it; the built-in catalog still does not.
  assert.deepEqual(catalog.checkRegistration(['order:rejected', 'order:created']), { ok: true, events: ['order:rejected', 'order:created'] });
  assert.equal(catalog.createWebhookBody(['order:rejected'], 'https://x.test/h'), '{"events":["order:rejected"],"url":"https://x.test/h"}');
  assert.deepEqual(xb.classifyEvent('order:rejected').kind, 'unknown');
  assert.deepEqual(xb.checkRegistration(['order:rejected']),
    { ok: false, code: 'VALIDATION_FAILED', rejected: [{ event: 'order:rejected', reason: 'unknown' }] });
  assert.throws(() => xb.createWebhookBody(['order:rejected'], 'https://x.test/h'), code('VALIDATION_FAILED'));
  // The URL is core's rule: an absolute http(s) URL with a host, nothing trimmed (INVALID_URL),
  // checked once the names are accepted; the free function and a catalog's method alike.
  for (const make of [(url) => xb.createWebhookBody(['order:created'], url), (url) => catalog.createWebhookBody(['order:rejected'], url)]) {
    for (const url of ['', ' ', 'x.test/h', '/hooks', 'ftp://x.test/h', 'https://', 'https:///h', ' https://x.test/h', 'https://x.test/h\n',
      'https://x.test:99999/h', 'javascript:alert(1)']) {
      assert.throws(() => make(url), (e) => e instanceof XborderError && e.code === 'INVALID_URL' && e.message.startsWith('INVALID_URL: ')
        && !('rejected' in e), JSON.stringify(url));
    }
    for (const url of ['https://x.test/h', 'http://localhost:3000/hooks', 'HTTPS://X.TEST/H?a=1#f', 'https://[::1]:8443/h']) {
      assert.equal(JSON.parse(make(url)).url, url);
    }
  }
  // The names are checked first: refused names with an empty URL are VALIDATION_FAILED.
  assert.throws(() => xb.createWebhookBody(['order:rejected'], ''), code('VALIDATION_FAILED'));
  // A planned name added as live becomes live.
  assert.equal(catalog.classify('order:refunded').kind, 'planned');
  catalog.addLive('order:refunded');
  assert.equal(catalog.classify('order:refunded').kind, 'live');
  // Wildcards.
  assert.equal(catalog.classify('fiat_deposit:*').kind, 'unknown');
  catalog.addWildcard('fiat_deposit:*');
  assert.deepEqual(catalog.classify('fiat_deposit:*'), { kind: 'wildcard', entity: 'fiat_deposit', action: '*' });
  assert.deepEqual(catalog.checkRegistration(['fiat_deposit:*']), { ok: true, events: ['fiat_deposit:*'] });
  assert.equal(catalog.matches(['fiat_deposit:*'], 'fiat_deposit:created'), true);
  assert.equal(catalog.matches(['order:*'], 'fiat_deposit:created'), false);
  assert.deepEqual(catalog.checkRegistration(['order:created'], 5), { ok: false, code: 'WEBHOOK_LIMIT_REACHED' });
  // A name that is not well formed, a wildcard given as live, a live name given as a wildcard.
  for (const [add, name] of [['addLive', 'order:*'], ['addLive', 'Order:rejected'], ['addLive', 'nope'], ['addLive', ''],
    ['addLive', 'order:rejected '], ['addWildcard', 'order:created'], ['addWildcard', '*'], ['addWildcard', '']]) {
    assert.throws(() => catalog[add](name), (e) => {
      assert.ok(e instanceof XborderError && e instanceof Error, `${add}(${JSON.stringify(name)}): ${e}`);
      assert.equal(e.code, 'INVALID_EVENT_NAME');
      assert.match(e.message, /^INVALID_EVENT_NAME/);
      return true;
    });
  }
  assert.equal(catalog.isLive('order:*'), false);

  // A receiver classifies with the catalog it is given: process with it, ignore without it.
  const [body, signature] = delivery('evt_r1', 'order:rejected');
  const withCatalog = new Receiver(SECRET, { catalog });
  const decision = withCatalog.receive(body, signature);
  assert.equal(decision.action, 'process');
  assert.equal(decision.envelope.kind, 'live');
  // Every decision says what to answer (core's Decision::reply): 200 here, 400 for a tampered body,
  // 413 for one over the limit.
  assert.deepEqual(decision.reply, { status: 200, retryAfter: null });
  assert.deepEqual(withCatalog.receive(`${body} `, signature).reply, { status: 400, retryAfter: null });
  const huge = `{"id":"evt_big","event":"order:created","entity":{"id":"o","type":"order","data":"${'x'.repeat(1_100_000)}"}}`;
  const big = withCatalog.receive(huge, sign(SECRET, huge));
  assert.equal(big.error.code, 'BODY_TOO_LARGE');
  assert.deepEqual(big.reply, { status: 413, retryAfter: null });
  const without = new Receiver(SECRET);
  assert.equal(without.receive(body, signature).action, 'ignore');
  assert.equal(without.receive(body, signature).envelope.kind, 'unknown');
  assert.equal(new Receiver(SECRET, { catalog: null }).receive(body, signature).action, 'ignore');
  assert.equal(new Receiver(SECRET, {}).receive(body, signature).action, 'ignore');
  // It takes a copy: names added afterwards do not change a receiver made before.
  const later = new Catalog();
  const before = new Receiver(SECRET, { catalog: later });
  later.addLive('order:rejected');
  assert.equal(before.receive(body, signature).action, 'ignore');
  assert.equal(new Receiver(SECRET, { catalog: later }).receive(body, signature).action, 'process');
  // The options' window is the window: one committed id remembered, the older forgotten.
  const small = new Receiver([SECRET], { window: 1, catalog });
  const [b1, s1] = delivery('evt_w1', 'order:created');
  const [b2, s2] = delivery('evt_w2', 'order:created');
  small.commit('evt_w1');
  assert.equal(small.receive(b1, s1).action, 'duplicate');
  small.commit('evt_w2');
  assert.equal(small.receive(b2, s2).action, 'duplicate');
  assert.equal(small.receive(b1, s1).action, 'process');
  assert.throws(() => new Receiver('', { catalog }), code('EMPTY_SECRET'));
  for (const r of [withCatalog, without, before, small]) r.free();
  catalog.free();
}

// ---------------------------------------------------------------------------------------------
// PageWalker
{
  // By hand: a record pushed onto the next page by an insertion is passed on once, and the drift
  // is reported; the records are the caller's own objects, not copies.
  const walker = new PageWalker({ pageSize: 2, filters: { status: 'active' } });
  assert.equal(walker.nextQuery(), 'page=0&pageSize=2&sortBy=createdAt&sortOrder=DESC&status=active');
  assert.equal(walker.isDone(), false);
  const page0 = { data: [{ id: 'c' }, { id: 'b' }], total: 3, page: 0, pageSize: 2 };
  const step0 = walker.feed(page0);
  assert.deepEqual(step0.records, [{ id: 'c' }, { id: 'b' }]);
  assert.ok(step0.records[0] === page0.data[0] && step0.records[1] === page0.data[1]);
  assert.deepEqual(step0.drifts, []);
  assert.equal(step0.info.nextPage, 1);
  assert.equal(walker.nextQuery(), 'page=1&pageSize=2&sortBy=createdAt&sortOrder=DESC&status=active');
  // "d" arrived at the top: "b" comes again on page 1.
  const page1 = { data: [{ id: 'b', n: 2 }, { id: 'a' }], total: 4, page: 1, pageSize: 2 };
  const step1 = walker.feed(page1);
  assert.equal(step1.records.length, 1);
  assert.ok(step1.records[0] === page1.data[1]);
  // ... and "d" itself was never seen (a walk from page 0 met 3 unique records of 4).
  assert.deepEqual(step1.drifts, [{ code: 'TOTAL_CHANGED', from: 3, to: 4 }, { code: 'REPEATED_RECORDS', count: 1 },
    { code: 'POSSIBLY_SKIPPED', count: 1 }]);
  assert.equal(walker.isDone(), true);
  assert.equal(walker.nextQuery(), null);
  walker.free();

  // A bad response throws (XborderError) and can be fed again; the walk is not over.
  const retry = new PageWalker();
  assert.throws(() => retry.feed({ data: [] }), code('MALFORMED_RESPONSE'));
  assert.throws(() => retry.feed({ total: 1 }), code('MALFORMED_RESPONSE'));
  assert.throws(() => retry.feed({ data: [], total: NaN }), code('MALFORMED_JSON'));
  assert.equal(retry.isDone(), false);
  const records = [{ id: 1 }, { id: '1' }, { name: 'no id' }, { name: 'no id' }];
  const ok = retry.feed({ data: records, total: 4 });
  assert.equal(ok.records.length, 4); // 1 and "1" are two ids; records without an id always pass
  assert.ok(ok.records.every((r, i) => r === records[i]));
  assert.equal(retry.isDone(), true);
  // A response made by toJSON: the records of its plain copy.
  const viaToJson = new PageWalker().feed({ toJSON: () => ({ data: [{ id: 'x' }], total: 1 }) });
  assert.deepEqual(viaToJson.records, [{ id: 'x' }]);
  // Bad list parameters are the list parameters' errors.
  assert.throws(() => new PageWalker({ status: 'active' }), code('UNKNOWN_PARAMETER', 'status'));
  assert.throws(() => new PageWalker({ pageSize: 0 }), code('INVALID_PAGE_SIZE'));

  // The async iterator over a server whose list grows while it is walked: every record once.
  const server = Array.from({ length: 7 }, (_, i) => ({ id: `r${7 - i}` })); // newest first
  const queries = [];
  const drifts = [];
  const fetchPage = async (query) => {
    queries.push(query);
    const params = new URLSearchParams(query);
    const page = Number(params.get('page'));
    const size = Number(params.get('pageSize'));
    const response = { data: server.slice(page * size, (page + 1) * size), total: server.length, page, pageSize: size };
    if (page === 0) server.unshift({ id: 'r8' }); // a record created after the first page was read
    return response;
  };
  const seen = [];
  for await (const r of new PageWalker({ pageSize: 3 }).records(fetchPage, (step) => drifts.push(...step.drifts))) {
    assert.ok(server.includes(r), 'a record is the server\'s own object');
    seen.push(r.id);
  }
  assert.deepEqual(seen, ['r7', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1']);
  assert.deepEqual(queries.map((q) => new URLSearchParams(q).get('page')), ['0', '1', '2']);
  assert.ok(drifts.some((d) => d.code === 'TOTAL_CHANGED' && d.from === 7 && d.to === 8), JSON.stringify(drifts));
  assert.ok(drifts.some((d) => d.code === 'REPEATED_RECORDS' && d.count === 1), JSON.stringify(drifts));
  // A synchronous fetchPage works too; a failing one ends the iteration with its own error.
  const sync = [];
  for await (const r of new PageWalker().records(() => ({ data: [{ id: 'a' }, { id: 'a' }], total: 2 }))) sync.push(r);
  assert.deepEqual(sync, [{ id: 'a' }]);
  const down = new Error('list endpoint down');
  await assert.rejects(async () => {
    for await (const r of new PageWalker().records(async () => { throw down; })) assert.fail(`yielded ${r}`);
  }, (e) => e === down);
  await assert.rejects(async () => {
    for await (const r of new PageWalker().records(async () => ({ data: [{ id: 'a' }] }))) assert.fail(`yielded ${r}`);
  }, code('MALFORMED_RESPONSE'));
}

// ---------------------------------------------------------------------------------------------
// Every list envelope, on both of pageInfo's paths (a plain object: its page fields and `meta`
// cross, not its records; anything else crosses whole) and in the walker; walks that end (STALLED).
{
  const { pageInfo } = xb;
  const records = Array.from({ length: 5 }, (_, i) => ({ id: `k${i}` }));
  const envelopes = [
    { data: records, total: 95, page: 9, pageSize: 10 },
    { data: records, meta: { total: 95, page: 9, pageSize: 10 }, requestId: 'req_1' },
    { data: records, meta: { total: 95, page: 9, pageSize: 10, hasNext: false } },
  ];
  for (const response of envelopes) {
    const info = pageInfo(response);
    assert.deepEqual([info.total, info.page, info.firstItem, info.lastItem, info.hasNext, info.nextPage], [95, 9, 91, 95, false, null], JSON.stringify(response));
    // The same response crossing whole (made by toJSON, or as a class instance) reads alike.
    assert.deepEqual(pageInfo({ toJSON: () => response }), info);
    assert.deepEqual(pageInfo(new (class Page { constructor() { Object.assign(this, response); } })()), info);
    // The walker reads the same envelope.
    const walker = new PageWalker({ page: 9, pageSize: 10 });
    assert.deepEqual(walker.feed(response).info, info);
    assert.equal(walker.isDone(), true);
  }
  // meta is read only when the top level has none of the page fields: here `total` is on top.
  assert.equal(pageInfo({ data: [], total: 3, meta: { total: 99 } }).total, 3);
  assert.equal(pageInfo({ toJSON: () => ({ data: [], total: 3, meta: { total: 99 } }) }).total, 3);
  // Without a request, the defaults (page 0 of 10) fill in what the response leaves out.
  assert.deepEqual([pageInfo({ data: records, total: 12 }).lastItem, pageInfo({ data: records, meta: { total: 12 } }).nextPage], [5, 1]);
  assert.throws(() => pageInfo({ data: [], meta: {} }), code('MALFORMED_RESPONSE'));

  // A server that ignores `page` (the same records every time): the walk ends, STALLED.
  const stuck = new PageWalker({ pageSize: 2 });
  const same = () => ({ data: [{ id: 'a' }, { id: 'b' }], total: 10 });
  const steps = [];
  while (stuck.nextQuery() !== null && steps.length < 10) steps.push(stuck.feed(same()));
  assert.equal(steps.length, 3, 'the walk ends after two pages in a row that bring nothing new');
  assert.deepEqual(steps.map((st) => st.records.length), [2, 0, 0]);
  assert.ok(steps[2].drifts.some((d) => d.code === 'STALLED' && Object.keys(d).length === 1), JSON.stringify(steps[2].drifts));
  assert.ok(!steps[1].drifts.some((d) => d.code === 'STALLED'));
  assert.equal(stuck.isDone(), true);
  // records() ends too, with hasNext: true forever, and passes each record on once.
  const forever = [];
  const drifts = [];
  for await (const r of new PageWalker().records(() => ({ data: [{ id: 'z' }], total: 1, hasNext: true }), (st) => drifts.push(...st.drifts))) forever.push(r.id);
  assert.deepEqual(forever, ['z']);
  assert.ok(drifts.some((d) => d.code === 'STALLED'), JSON.stringify(drifts));
}

// ---------------------------------------------------------------------------------------------
// Issues: every one carries its English message and the rules document's label (null where it
// has none); documents are read from their text as from their parsed JSON; one that cannot be
// read is an issue at "" (RULES_UNREADABLE, BANKS_UNREADABLE), and requiredFields throws for it.
{
  const { validateBeneficiary, BeneficiaryValidator, requiredFields } = xb;
  const rules = { data: { country: 'DE', ownerType: 'individual', rules: {
    requiredFields: [{ field: 'firstName', description: 'First name' }, { field: 'address', description: 'Address', nestedFields: [{ field: 'city', description: 'City' }] }],
    paymentTypes: [{ type: 'bank_account', requiredFields: [{ field: 'accountNumber', description: 'IBAN' }] }] } }, requestId: 'req_9' };
  const banks = { country: 'DE', response: { data: [{ id: 'bank_de_1', name: 'Bank 1' }] } };
  const draft = { ownerType: 'individual', country: 'DE', paymentType: 'bank_account', address: { city: '' },
    paymentInfo: { bankId: 'bank_de_1', accountNumber: 'DE89 3704 0044 0532 0130 01', bic: 'COBADEFF', sortCode: 'x' } };
  const v = validateBeneficiary(draft, rules, banks);
  const at = (path) => v.issues.filter((i) => i.path === path);
  assert.equal(v.valid, false);
  for (const i of v.issues) {
    // reason and params (issue 31) on the account-detail issues only.
    const detail = i.code.startsWith('INVALID_') && i.code !== 'INVALID_VALUE';
    assert.deepEqual(Object.keys(i), ['path', 'code', 'message', 'label', ...(detail ? ['reason', 'params'] : [])], JSON.stringify(i));
    assert.ok(typeof i.message === 'string' && i.message.length > 10, JSON.stringify(i));
  }
  // A REQUIRED field the document describes: its description is the label.
  assert.deepEqual(at('firstName'), [{ path: 'firstName', code: 'REQUIRED', message: 'this field is required: fill it in', label: 'First name' }]);
  assert.deepEqual(at('address.city').map((i) => [i.code, i.label]), [['REQUIRED', 'City']]);
  // An IBAN whose check digits do not match: the message says so; the document labels the field.
  const [iban] = at('paymentInfo.accountNumber');
  assert.equal(iban.code, 'INVALID_IBAN');
  assert.match(iban.message, /check digits/);
  assert.equal(iban.label, 'IBAN');
  // The right IBAN, and a BIC of 8 characters: no issue; a sort code is checked only to GB.
  const fixed = { ...draft, firstName: 'Ana', address: { city: 'Köln' }, paymentInfo: { ...draft.paymentInfo, accountNumber: 'DE89 3704 0044 0532 0130 00' } };
  assert.deepEqual(validateBeneficiary(fixed, rules, banks), { valid: true, issues: [] });
  // A wrong length: the message gives the country's length. No document: no label.
  const [short] = validateBeneficiary({ ...fixed, paymentInfo: { ...fixed.paymentInfo, accountNumber: 'DE89370400440532013' } }).issues;
  assert.deepEqual([short.code, short.label], ['INVALID_IBAN', null]);
  assert.match(short.message, /19 characters.*22/);
  // A fixed-rule field the document does not describe has no label.
  const noBank = validateBeneficiary({ ...fixed, paymentInfo: { accountNumber: 'DE89370400440532013000' } }, rules, banks).issues;
  assert.deepEqual(noBank, [{ path: 'paymentInfo.bankId', code: 'REQUIRED', message: 'this field is required: fill it in', label: null }]);
  // Account details with non-ASCII text in the message's neighbours: lengths are UTF-16 units.
  const accents = validateBeneficiary({ ...fixed, firstName: '', address: { city: 'Köln' } }, { data: { ...rules.data, rules: { requiredFields: [{ field: 'firstName', description: 'Prénom 😀' }] } } }).issues;
  assert.deepEqual(accents.map((i) => [i.path, i.label]), [['firstName', 'Prénom 😀']]);

  // The documents as text give what the parsed ones give, on both paths.
  const asText = [JSON.stringify(rules), { country: 'DE', response: JSON.stringify(banks.response) }];
  assert.deepEqual(validateBeneficiary(draft, ...asText), v);
  const validator = new BeneficiaryValidator(...asText);
  assert.deepEqual(validator.validate(draft), v);
  validator.free();

  // Documents that cannot be read: an issue at "" with what to pass; none of their rules applied.
  const unreadable = [
    ['{"error": {"code": "UNAUTHORIZED"}}', null, 'RULES_UNREADABLE'],
    ['{"data": {', null, 'RULES_UNREADABLE'],
    [{}, null, 'RULES_UNREADABLE'],
    [[], null, 'RULES_UNREADABLE'],
    [null, { country: 'DE', response: banks.response.data }, 'BANKS_UNREADABLE'],
    [null, { country: 'DE', response: 'not json' }, 'BANKS_UNREADABLE'],
    [null, { country: 'DE', response: '' }, 'BANKS_UNREADABLE'],
  ];
  for (const [r, b, want] of unreadable) {
    const got = validateBeneficiary(fixed, r, b);
    assert.equal(got.valid, false);
    assert.deepEqual(got.issues.map((i) => [i.path, i.code, i.label]), [['', want, null]], JSON.stringify([r, b]));
    assert.match(got.issues[0].message, want === 'RULES_UNREADABLE' ? /^the rules document .*cannot be read/ : /^the bank list .*cannot be read/);
    assert.deepEqual(new BeneficiaryValidator(r, b).validate(fixed), got);
  }
  // Not given: absent, null, undefined, or a bank list whose response is null.
  for (const [r, b] of [[undefined, undefined], [null, null], [null, { country: 'DE', response: null }], [null, { country: 'DE' }]]) {
    assert.deepEqual(validateBeneficiary(fixed, r, b), { valid: true, issues: [] });
  }
  // requiredFields: a rules document that cannot be read throws, with core's sentence.
  for (const r of ['{"error": {}}', 'nope', {}, [], 7]) {
    assert.throws(() => requiredFields(r, 'bank_account', 'DE'), (e) => e instanceof XborderError && e.code === 'RULES_UNREADABLE' &&
      /^the rules document \(the response of GET \/v1\/validation-rules\/beneficiaries\) cannot be read/.test(e.message), JSON.stringify(r));
  }
  assert.deepEqual(requiredFields(JSON.stringify(rules), 'bank_account', 'DE').map((f) => f.path),
    requiredFields(rules, 'bank_account', 'DE').map((f) => f.path));
  assert.ok(requiredFields(rules.data, 'bank_account', 'DE').some((f) => f.path === 'paymentInfo.accountNumber' && f.description === 'IBAN'));
  assert.deepEqual(requiredFields(null, 'bank_account', 'DE'), requiredFields(undefined, 'bank_account', 'DE'));
  assert.deepEqual(requiredFields({ toJSON: () => null }, 'bank_account', 'DE'), requiredFields(null, 'bank_account', 'DE'));
  // A text document with a lone surrogate is not text any UTF-8 response has: MALFORMED_JSON, as in any value.
  assert.throws(() => validateBeneficiary(fixed, '{"data": {"rules": {}}, "x": "\ud800"}'), code('MALFORMED_JSON'));
}

// ---------------------------------------------------------------------------------------------
// Claims

/** A store written in JS: entry texts in a Map, compared as text (what a Redis or SQL store does). */
class MapStore {
  constructor({ async = false } = {}) {
    this.texts = new Map();
    this.async = async;
    this.calls = [];
  }
  answer(v) {
    // Asynchronous answers come back on a later turn of the event loop, as a network's would.
    return this.async ? new Promise((resolve) => setTimeout(() => resolve(v), 0)) : v;
  }
  load(id, time) {
    this.calls.push(['load', id, time]);
    return this.answer(this.texts.get(id) ?? null);
  }
  compareAndSet(id, expected, next, ttlMs, time) {
    this.calls.push(['compareAndSet', id, expected, next, ttlMs, time]);
    if ((this.texts.get(id) ?? null) !== expected) return this.answer(false);
    if (next === null) this.texts.delete(id);
    else this.texts.set(id, next);
    return this.answer(true);
  }
}

/** Runs [do, id, at, token] steps; an XborderError becomes its code. */
async function run(claims, steps, { async = false } = {}) {
  const out = [];
  for (const [step, id, at, token] of steps) {
    try {
      out.push(async ? await claims.stepAsync(step, id, token, at) : claims.step(step, id, token, at));
    } catch (e) {
      if (!(e instanceof XborderError)) throw e;
      out.push(e.code);
    }
  }
  return out;
}

/** The same steps with the built-in store and with a JS store (sync and async): the same results. */
async function alike(rules, steps, want) {
  const builtin = await run(new Claims(rules), steps);
  const builtinAsync = await run(new Claims(rules), steps, { async: true });
  const sync = await run(Claims.withStore(new MapStore(), rules), steps);
  const asyncStore = await run(Claims.withStore(new MapStore({ async: true }), rules), steps, { async: true });
  assert.deepEqual(builtin, want, 'built-in store');
  assert.deepEqual(builtinAsync, want, 'built-in store, stepAsync');
  assert.deepEqual(sync, want, 'a JS store');
  assert.deepEqual(asyncStore, want, 'an async JS store');
}

{
  // The flow, and the defaults (a lease of 30 s).
  await alike(undefined, [
    ['claim', 'evt_1', 0, 'r1'], ['claim', 'evt_1', 10, 'r2'], ['complete', 'evt_1', 20, 'r1'], ['claim', 'evt_1', 900, 'r3'],
    ['claim', 'evt_2', 0, 'r1'], ['claim', 'evt_2', 29_999, 'r2'], ['claim', 'evt_2', 30_000, 'r3'], ['complete', 'evt_2', 30_001, 'r1'],
  ], ['claimed', 'in_progress', 'completed', 'duplicate', 'claimed', 'in_progress', 'claimed', 'stale']);
  // Release, then claim again.
  await alike({ leaseMs: 1000 }, [
    ['claim', 'evt_1', 0, 'r1'], ['release', 'evt_1', 5, 'r1'], ['release', 'evt_1', 6, 'r1'], ['claim', 'evt_1', 7, 'r2'],
    ['complete', 'evt_1', 8, 'r2'], ['claim', 'evt_1', 9, 'r3'], ['release', 'evt_1', 10, 'r2'],
  ], ['claimed', 'released', 'stale', 'claimed', 'completed', 'duplicate', 'stale']);
  // windowMs forgets done ids: a duplicate until done-time + windowMs, claimable from then on.
  await alike({ leaseMs: 1000, windowMs: 60_000 }, [
    ['claim', 'evt_1', 0, 'r1'], ['complete', 'evt_1', 0, 'r1'], ['claim', 'evt_1', 59_999, 'r2'], ['claim', 'evt_1', 60_000, 'r3'],
    ['complete', 'evt_1', 60_001, 'r3'], ['claim', 'evt_1', 120_000, 'r4'],
  ], ['claimed', 'completed', 'duplicate', 'claimed', 'completed', 'duplicate']);
  // Without windowMs a done id is a duplicate for 7 days (core's default: no store grows for
  // ever), then claimable; times as Date.now() gives them.
  const now = 1_767_225_600_000;
  const week = 7 * 86_400_000;
  await alike({ leaseMs: 1000 }, [
    ['claim', 'evt_1', now, 'r1'], ['complete', 'evt_1', now + 1, 'r1'], ['claim', 'evt_1', now + 1 + week - 1, 'r2'],
    ['claim', 'evt_1', now + 1 + week, 'r3'],
  ], ['claimed', 'completed', 'duplicate', 'claimed']);
  // INVALID_STEP changes nothing.
  await alike({ leaseMs: 100 }, [
    ['claim', 'e', 0, 'r1'], ['finish', 'e', 1, 'r1'], ['Complete', 'e', 1, 'r1'], ['complete', 'e', 1, ''], ['release', '', 1, 'r1'],
    ['complete', 'e', 2, 'r1'],
  ], ['claimed', 'INVALID_STEP', 'INVALID_STEP', 'INVALID_STEP', 'INVALID_STEP', 'completed']);
  for (const claims of [new Claims(), Claims.withStore(new MapStore())]) {
    for (const [args, field] of [[['finish', 'e', 'r', 0], 'do'], [['claim', '', 'r', 0], 'id'], [['claim', 'e', '', 0], 'token'], [['finish', '', '', 0], 'do']]) {
      assert.throws(() => claims.step(...args), code('INVALID_STEP', field), `${args} -> field ${field}`);
      await assert.rejects(claims.stepAsync(...args), code('INVALID_STEP', field));
    }
  }

  // What a store is asked: core's entry texts, the TTLs core gives (a claim: two leases; a done
  // entry: the window), `null` for no entry, and core's times (`time`: the step's, the TTL and
  // their sum); its `this` is the store.
  const store = new MapStore();
  const claims = Claims.withStore(store, { leaseMs: 1000, windowMs: 5000 });
  const at = (nowMs, ttlMs = null) => ({ nowMs, ttlMs, expiresAtMs: ttlMs === null ? null : nowMs + ttlMs });
  assert.equal(claims.step('claim', 'evt:1', 'req a', 7), 'claimed');
  assert.equal(claims.step('complete', 'evt:1', 'req a', 8), 'completed');
  assert.deepEqual(store.calls, [
    ['load', 'evt:1', at(7)], ['compareAndSet', 'evt:1', null, 'h:7:req a', 2000, at(7, 2000)],
    ['load', 'evt:1', at(8)], ['compareAndSet', 'evt:1', 'h:7:req a', 'd:8', 5000, at(8, 5000)],
  ]);
  store.calls.length = 0;
  assert.equal(claims.step('claim', 'evt:1', 'req b', 9), 'duplicate');
  assert.deepEqual(store.calls, [['load', 'evt:1', at(9)]]); // nothing to write
  assert.equal(claims.step('release', 'evt:2', 'req b', 9), 'stale');
  store.texts.set('evt:3', 'h:1:req c');
  assert.equal(claims.step('release', 'evt:3', 'req c', 10), 'released');
  assert.deepEqual(store.calls.at(-1), ['compareAndSet', 'evt:3', 'h:1:req c', null, null, at(10)]);
  // Past core's range (2^48 - 1 ms), every time is core's clamp: the store is given it as it is.
  const MAX = 2 ** 48 - 1;
  const far = new MapStore({ async: true });
  const farClaims = Claims.withStore(far, { leaseMs: 1000, windowMs: Number.MAX_SAFE_INTEGER });
  assert.equal(await farClaims.stepAsync('claim', 'e', 'r', MAX - 1), 'claimed');
  assert.equal(await farClaims.stepAsync('complete', 'e', 'r', 2 ** 50), 'completed');
  // (The expiry past the range is core's to choose: only checked not to be before the step.)
  const later = (t) => ({ ...t, expiresAtMs: t.expiresAtMs >= t.nowMs ? 'later' : t.expiresAtMs });
  assert.deepEqual(far.calls.map((c) => (c[0] === 'load' ? c : [...c.slice(0, 5), later(c[5])])), [
    ['load', 'e', at(MAX - 1)], ['compareAndSet', 'e', null, `h:${MAX - 1}:r`, 2000, { nowMs: MAX - 1, ttlMs: 2000, expiresAtMs: 'later' }],
    ['load', 'e', at(MAX)], ['compareAndSet', 'e', `h:${MAX - 1}:r`, `d:${MAX}`, MAX, { nowMs: MAX, ttlMs: MAX, expiresAtMs: 'later' }],
  ]);
  assert.equal(store.texts.has('evt:3'), false);
  // `undefined` from load is "no entry", as null is.
  assert.equal(Claims.withStore({ load: () => undefined, compareAndSet: () => true }).step('claim', 'e', 'r', 0), 'claimed');
  // A text xborder did not write is STORE_UNAVAILABLE.
  store.texts.set('evt:4', 'claimed by someone');
  assert.throws(() => claims.step('claim', 'evt:4', 'r', 11), code('STORE_UNAVAILABLE'));
  await assert.rejects(claims.stepAsync('claim', 'evt:4', 'r', 11), code('STORE_UNAVAILABLE'));
}

{
  // Replies: core's table (ClaimRules::reply), the lease read from either kind of Claims.
  const table = {
    claimed: null,
    in_progress: { status: 503, retryAfter: 3 },
    duplicate: { status: 200, retryAfter: null },
    completed: { status: 200, retryAfter: null },
    released: { status: 500, retryAfter: null },
  };
  for (const claims of [new Claims({ leaseMs: 2_500 }), Claims.withStore(new MapStore(), { leaseMs: 2_500 })]) {
    for (const step of ['claim', 'complete', 'release']) {
      for (const [outcome, want] of Object.entries(table)) assert.deepEqual(claims.reply(step, outcome), want, `${step} ${outcome}`);
      assert.deepEqual(claims.reply(step, 'stale'), { status: step === 'complete' ? 200 : 500, retryAfter: null }, `${step} stale`);
    }
    assert.throws(() => claims.reply('finish', 'stale'), code('INVALID_STEP', 'do'));
    assert.throws(() => claims.reply('claim', 'STALE'), /`outcome` must be a claim outcome/);
    for (const wrong of [undefined, null, 1, ['claim'], new String('claim')]) {
      assert.throws(() => claims.reply(wrong, 'stale'), TypeError, `step ${String(wrong)}`);
      assert.throws(() => claims.reply('claim', wrong), TypeError, `outcome ${String(wrong)}`);
    }
  }
  // The default lease (30 s), and the lease rounded up to whole seconds, never 0.
  assert.equal(new Claims().reply('claim', 'in_progress').retryAfter, 30);
  assert.equal(new Claims({ leaseMs: 0 }).reply('claim', 'in_progress').retryAfter, 1);
  assert.equal(new Claims({ leaseMs: 1_001 }).reply('claim', 'in_progress').retryAfter, 2);
  // A step that threw: STORE_UNAVAILABLE waits a second; anything else is a 500.
  let down;
  try {
    await Claims.withStore({ load: async () => { throw new Error('down'); }, compareAndSet: async () => true }).stepAsync('claim', 'e', 'r', 0);
  } catch (e) {
    down = e;
  }
  assert.deepEqual(Claims.errorReply(down), { status: 503, retryAfter: 1 });
  let invalid;
  try {
    new Claims().step('claim', '', 'r', 0);
  } catch (e) {
    invalid = e;
  }
  assert.equal(invalid.code, 'INVALID_STEP');
  for (const other of [invalid, new Error('boom'), 'STORE_UNAVAILABLE', null, undefined, { code: 7 }]) {
    assert.deepEqual(Claims.errorReply(other), { status: 500, retryAfter: null }, String(other));
  }
}

{
  // Concurrent requests on one id through an async store: exactly one claims it.
  for (let round = 0; round < 5; round++) {
    const store = new MapStore({ async: true });
    const claims = Claims.withStore(store, { leaseMs: 30_000 });
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => claims.stepAsync('claim', 'evt_1', `req_${i}`, 1000)));
    assert.equal(outcomes.filter((o) => o === 'claimed').length, 1, outcomes.join());
    assert.equal(outcomes.filter((o) => o === 'in_progress').length, 7, outcomes.join());
    const winner = `req_${outcomes.indexOf('claimed')}`;
    assert.equal(store.texts.get('evt_1'), `h:1000:${winner}`);
    assert.ok(store.calls.filter(([m]) => m === 'compareAndSet').length >= 8, 'every request tried to write');
    // The winner completes; the others' retries are duplicates.
    assert.equal(await claims.stepAsync('complete', 'evt_1', winner, 1001), 'completed');
    const retries = await Promise.all(Array.from({ length: 4 }, (_, i) => claims.stepAsync('claim', 'evt_1', `retry_${i}`, 1002)));
    assert.deepEqual(retries, ['duplicate', 'duplicate', 'duplicate', 'duplicate']);
  }

  // A store whose compare-and-set never applies (somebody else always first): the task's
  // conflict limit (core's) ends the step with STORE_UNAVAILABLE, after as many loads as writes.
  for (const async of [false, true]) {
    let loads = 0;
    let writes = 0;
    const answer = (v) => (async ? Promise.resolve(v) : v);
    const busy = Claims.withStore({
      load: () => { loads++; return answer(null); },
      compareAndSet: () => { writes++; return answer(false); },
    });
    if (async) await assert.rejects(busy.stepAsync('claim', 'e', 'r', 0), code('STORE_UNAVAILABLE'));
    else assert.throws(() => busy.step('claim', 'e', 'r', 0), code('STORE_UNAVAILABLE'));
    assert.ok(writes > 1 && writes < 1000, `${writes} compare-and-sets`);
    assert.equal(loads, writes, 'each conflict reloads the entry');
  }

  // A store that throws or rejects: STORE_UNAVAILABLE with the store's error as `cause`.
  const down = new Error('ECONNREFUSED 127.0.0.1:6379');
  const failing = [
    ['load throws', { load() { throw down; }, compareAndSet: () => true }, 'load'],
    ['load rejects', { load: async () => { throw down; }, compareAndSet: async () => true }, 'load'],
    ['compareAndSet throws', { load: () => null, compareAndSet() { throw down; } }, 'compareAndSet'],
    ['compareAndSet rejects', { load: async () => null, compareAndSet: () => Promise.reject(down) }, 'compareAndSet'],
  ];
  for (const [what, store, method] of failing) {
    const check = (e) => {
      assert.ok(e instanceof XborderError, `${what}: ${e}`);
      assert.equal(e.code, 'STORE_UNAVAILABLE', what);
      assert.equal(e.cause, down, `${what}: cause`);
      assert.ok(e.message.includes(`store.${method}`) && e.message.includes('ECONNREFUSED'), `${what}: ${e.message}`);
      return true;
    };
    await assert.rejects(Claims.withStore(store).stepAsync('claim', 'e', 'r', 0), check);
    if (what.endsWith('throws')) assert.throws(() => Claims.withStore(store).step('claim', 'e', 'r', 0), check);
  }
  // A thrown non-Error is the cause as it is.
  await assert.rejects(Claims.withStore({ load: () => Promise.reject('timeout'), compareAndSet: () => true }).stepAsync('claim', 'e', 'r', 0),
    (e) => code('STORE_UNAVAILABLE')(e) && e.cause === 'timeout' && e.message.includes('timeout'));

  // step() needs a synchronous store: a Promise from the store is a TypeError naming stepAsync.
  const asyncStore = new MapStore({ async: true });
  assert.throws(() => Claims.withStore(asyncStore).step('claim', 'e', 'r', 0),
    (e) => e instanceof TypeError && !(e instanceof XborderError) && /`store.load` returned a Promise.*stepAsync/.test(e.message));
  const halfAsync = { load: () => null, compareAndSet: async () => true };
  assert.throws(() => Claims.withStore(halfAsync).step('claim', 'e', 'r', 0), (e) => e instanceof TypeError && e.message.includes('`store.compareAndSet` returned a Promise'));
  assert.equal(await Claims.withStore(halfAsync).stepAsync('claim', 'e', 'r', 0), 'claimed');

  // The built-in store's capacity: the oldest done ids are forgotten first.
  const small = new Claims({ leaseMs: 10, capacity: 2 });
  for (const id of ['a', 'b', 'c']) {
    assert.equal(small.step('claim', id, 'r', 0), 'claimed');
    assert.equal(small.step('complete', id, 'r', 0), 'completed');
  }
  assert.equal(small.step('claim', 'a', 'r2', 1), 'claimed');
  assert.equal(small.step('claim', 'c', 'r2', 1), 'duplicate');
  small.free();
  assert.throws(() => small.step('claim', 'c', 'r3', 2), Error); // freed, as a freed Receiver
}

// ---------------------------------------------------------------------------------------------
// BeneficiaryValidator: the rules and the bank list read once, the answers validateBeneficiary gives
{
  const { BeneficiaryValidator, validateBeneficiary } = xb;
  const rules = { data: { country: 'CO', ownerType: 'individual', rules: { requiredFields: [{ field: 'lastName' }, { field: 'paymentInfo.accountNumber' }] } } };
  const banks = { country: 'CO', response: { data: [{ id: 'bank_co_001', name: 'Bank 001' }] } };
  const drafts = [
    {}, null, 'text', [1], { country: 'CO' },
    { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', lastName: 'Ruiz', paymentInfo: { bankId: 'bank_co_001', accountNumber: '1' } },
    { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', paymentInfo: { bankId: 'bank_co_999' } },
    { ownerType: 'business', country: 'US', paymentType: 'bank_account', paymentInfo: { routingNumber: '011000015' } },
  ];
  for (const [r, b] of [[rules, banks], [rules, undefined], [undefined, banks], [null, null], [rules, { response: banks.response }]]) {
    const validator = new BeneficiaryValidator(r, b);
    for (const draft of drafts) {
      assert.deepEqual(validator.validate(draft), validateBeneficiary(draft, r, b), JSON.stringify([draft, r, b]));
    }
    validator.free();
  }
  // Read once: changing the caller's objects afterwards changes nothing.
  const mine = structuredClone(rules);
  const validator = new BeneficiaryValidator(mine, banks);
  const before = validator.validate(drafts[6]);
  mine.data.rules.requiredFields.length = 0;
  assert.deepEqual(validator.validate(drafts[6]), before);
  assert.ok(before.issues.some((i) => i.path === 'lastName'), JSON.stringify(before));
  // Wrong kinds, as validateBeneficiary reports them.
  assert.throws(() => new BeneficiaryValidator(rules, { country: 7, response: {} }), /`banks.country` must be a string/);
  assert.throws(() => new BeneficiaryValidator({ n: NaN }), code('MALFORMED_JSON'));
  assert.throws(() => validator.validate({ n: Infinity }), code('MALFORMED_JSON'));
}

// ---------------------------------------------------------------------------------------------
// The form model (issue 31): the fields of a form, an account detail as it is typed, the payload
// to send, and reason and params on every account-detail issue (absent on the others).
{
  const { beneficiaryForm, checkAccount, normalizeBeneficiary, validateBeneficiary, BeneficiaryValidator, XborderError } = xb;
  // Core's refusals, thrown with their code (and field for INVALID_VALUE); the same from a validator.
  const refusals = [
    [{ country: 'de', paymentType: 'bank_account' }, 'INVALID_VALUE', 'country'],
    [{ country: 'DE', paymentType: '' }, 'INVALID_VALUE', 'paymentType'],
    [{ country: 'DE', paymentType: 'bank_account', ownerType: 'person' }, 'INVALID_VALUE', 'ownerType'],
    [{ country: 'DE', paymentType: 'bank_account', rules: '{"error": {}}' }, 'RULES_UNREADABLE', undefined],
    [{ country: 'DE', paymentType: 'bank_account', banks: { country: 'CO', response: { data: [] } } }, 'BANKS_MISMATCH', undefined],
    [{ country: 'DE', paymentType: 'bank_account', banks: { country: 'DE', response: [] } }, 'BANKS_UNREADABLE', undefined],
  ];
  for (const [options, want, field] of refusals) {
    const refused = (e) => e instanceof XborderError && e.code === want && e.field === field && e.message.startsWith(want);
    assert.throws(() => beneficiaryForm(options), refused, JSON.stringify(options));
    const validator = new BeneficiaryValidator(options.rules, options.banks);
    assert.throws(() => validator.form(options.country, options.paymentType, options.ownerType), refused);
    validator.free();
  }
  // A choice for the bank when a bank list is given: its banks in order, the id where there is no name.
  const fields = beneficiaryForm({ country: 'DE', paymentType: 'bank_account', banks: { country: 'DE', response: { data: [{ id: 'b1', name: 'Bank 1' }, { id: 'b2' }] } } });
  assert.deepEqual(fields.find((f) => f.path === 'paymentInfo.bankId').options, [{ value: 'b1', label: 'Bank 1' }, { value: 'b2', label: 'b2' }]);
  const iban = fields.find((f) => f.path === 'paymentInfo.accountNumber');
  assert.deepEqual([iban.account, iban.length, iban.required, iban.source, 'options' in iban], ['iban', { min: 15, max: 34 }, false, 'country', false]);
  assert.ok(!('account' in fields.find((f) => f.path === 'paymentInfo')), 'no account kind: no key');
  // checkAccount: the states, the two forms, and why when invalid (non-ASCII counted in characters).
  assert.deepEqual(checkAccount('sort_code', ''), { state: 'empty', electronic: '', display: '' });
  assert.deepEqual(checkAccount('sort_code', '12 34 5'), { state: 'incomplete', electronic: '12345', display: '12-34-5' });
  assert.deepEqual(checkAccount('iban', 'de89 3704 0044 0532 0130 00'), { state: 'complete', electronic: 'DE89370400440532013000', display: 'DE89 3704 0044 0532 0130 00' });
  const invalid = checkAccount('bic', 'COBAXXFF');
  assert.deepEqual({ ...invalid, message: typeof invalid.message }, { state: 'invalid', electronic: 'COBAXXFF', display: 'COBAXXFF', code: 'INVALID_BIC', reason: 'COUNTRY', params: { country: 'XX' }, message: 'string' });
  const accented = checkAccount('iban', 'DÉ89');
  assert.deepEqual([accented.state, accented.electronic, accented.reason], ['invalid', 'DÉ89', 'LAYOUT']);
  assert.throws(() => checkAccount('IBAN', 'DE89'), (e) => e instanceof XborderError && e.code === 'UNKNOWN_ACCOUNT_KIND');
  // normalizeBeneficiary: a new value, keys in their order, the draft left as it was.
  const draft = { paymentInfo: { sortCode: '12-34-56', bic: 'hbuk gb 4b', bankId: 'b1', accountNumber: '3192 6819' }, country: 'GB', paymentType: 'bank_account', when: { toJSON: () => 'now' } };
  const sent = normalizeBeneficiary(draft);
  assert.deepEqual(sent, { paymentInfo: { sortCode: '123456', bic: 'HBUKGB4B', bankId: 'b1', accountNumber: '3192 6819' }, country: 'GB', paymentType: 'bank_account', when: 'now' });
  assert.deepEqual(Object.keys(sent.paymentInfo), ['sortCode', 'bic', 'bankId', 'accountNumber']);
  assert.equal(draft.paymentInfo.sortCode, '12-34-56');
  assert.notEqual(sent.paymentInfo, draft.paymentInfo);
  assert.deepEqual(normalizeBeneficiary(sent), sent, 'normalizing twice changes nothing more');
  assert.equal(normalizeBeneficiary('x'), 'x');
  // Not data: refused by kind, never given back changed (undefined as null, a Buffer as its toJSON).
  for (const wrong of [undefined, () => 1, Symbol('d'), Promise.resolve({}), Buffer.from('{}'), new Uint8Array(2), new ArrayBuffer(2)]) {
    assert.throws(() => normalizeBeneficiary(wrong), (e) => e instanceof TypeError && /`draft` must be the draft as data/.test(e.message));
  }
  assert.equal(normalizeBeneficiary(null), null, 'JSON null is data: back as it is');
  assert.throws(() => normalizeBeneficiary({ n: NaN }), code('MALFORMED_JSON'));
  // Reasons and params on account-detail issues only.
  const issues = validateBeneficiary({ ownerType: 'business', country: 'DE', paymentType: 'bank_account', paymentInfo: { accountNumber: 'DE89 3704 0044 0532 0130 0' } }).issues;
  const byCode = Object.fromEntries(issues.map((i) => [i.code, i]));
  assert.deepEqual([byCode.INVALID_IBAN.reason, byCode.INVALID_IBAN.params], ['LENGTH', { expected: 22, actual: 21 }]);
  assert.ok(!('reason' in byCode.REQUIRED) && !('params' in byCode.REQUIRED), JSON.stringify(byCode.REQUIRED));
}

console.log('features: ok (form model: beneficiaryForm refusals and choices, checkAccount states, normalizeBeneficiary a new value, reasons on issues; catalog and receivers, page walker by hand and as an async iterator, every list envelope, walks that end, claims: built-in and JS stores alike, beneficiary validator equal to validateBeneficiary, issues with message and label, documents as text, unreadable documents, one winner among concurrent requests, conflicts, failing stores, windows)');

// ---------------------------------------------------------------------------------------------
// Envelope: entity.data's text exactly as sent (spaces, escapes, non-ASCII), made on first read
// from a copy of its bytes, so a body buffer the caller reuses afterwards changes nothing.
{
  const data = '{ "s" : "é€😀\\u00e9", "n": 1.50, "k": {"z": [1, 2]} }';
  const text = `{"id":"evt_env","event":"order:created","entity":{"id":"ord_9","type":"order","data":${data}}}`;
  const bytes = new TextEncoder().encode(text);
  const buffer = Buffer.from(bytes);
  for (const body of [text, bytes, buffer, bytes.buffer]) {
    const env = xb.decodeEnvelope(body);
    assert.equal(env.id, 'evt_env');
    if (body === buffer) buffer.fill(0x20); // the caller reuses its buffer
    assert.equal(env.rawData, data);
    assert.equal(env.rawData, data); // read twice, the same text
    assert.deepEqual(env.data, { s: 'é€😀é', n: 1.5, k: { z: [1, 2] } });
    assert.equal(env.data, env.data); // parsed once
    assert.deepEqual(JSON.parse(JSON.stringify(env)), { id: 'evt_env', event: 'order:created', kind: 'live', entityId: 'ord_9', entityType: 'order', data: env.data });
  }
  // Data not read: toJSON still carries it.
  assert.deepEqual(xb.decodeEnvelope(text).toJSON().data, { s: 'é€😀é', n: 1.5, k: { z: [1, 2] } });
  // No data: both undefined, and toJSON leaves it out.
  const bare = xb.decodeEnvelope('{"id":"evt_bare","event":"order:created","entity":{"id":"o","type":"order"}}');
  assert.equal(bare.rawData, undefined);
  assert.equal(bare.data, undefined);
  assert.equal('data' in bare.toJSON(), false);
  // Through the receiver too.
  const rx = new Receiver(SECRET);
  const d = rx.receive(text, sign(SECRET, text));
  assert.equal(d.envelope.rawData, data);
  console.log('features: envelope ok (rawData exact, lazy, copied, absent)');
}

// ---------------------------------------------------------------------------------------------
// handleDelivery and DeliveryHandling: core's order and answers carried across, the host's
// persist and store errors kept (never swallowed), the built-in Claims and a store of the
// caller's (sync and async) answering alike.
{
  const { handleDelivery, DeliveryHandling } = xb;
  const receiver = new Receiver(SECRET, { window: 0 });
  const [body, signature] = delivery('evt_handle_1', 'order:created');
  const texts = new Map();
  const store = (later) => ({
    load: (id) => (later ? Promise.resolve(texts.get(id) ?? null) : texts.get(id) ?? null),
    compareAndSet(id, expected, next) {
      const ok = (texts.get(id) ?? null) === expected;
      if (ok && next === null) texts.delete(id);
      else if (ok) texts.set(id, next);
      return later ? new Promise((r) => setTimeout(() => r(ok), 1)) : ok;
    },
  });
  const saved = [];
  const persist = async (env) => { saved.push(env.id); };
  for (const [name, where] of [['built-in', { claims: new Claims() }], ['sync store', { store: store(false) }], ['async store', { store: store(true) }]]) {
    texts.clear();
    saved.length = 0;
    const first = await handleDelivery({ receiver, ...where, body, signature, persist });
    assert.deepEqual({ ...first, envelope: first.envelope.id }, { status: 200, retryAfter: null, headers: {}, outcome: 'completed', code: null, persisted: true, action: 'process', envelope: 'evt_handle_1' }, name);
    const again = await handleDelivery({ receiver, ...where, body, signature, persist });
    assert.deepEqual([again.status, again.outcome, again.persisted, 'error' in again], [200, 'duplicate', false, false], name);
    assert.deepEqual(saved, ['evt_handle_1'], name);
  }
  // Each store call is given core's times (the step's, from `now`), a transaction's store too.
  {
    const seen = [];
    const plain = store(true);
    const watched = (s, where) => ({
      load: (id, time) => { seen.push([where, 'load', time]); return s.load(id); },
      compareAndSet: (id, expected, next, ttlMs, time) => { seen.push([where, 'cas', ttlMs, time]); return s.compareAndSet(id, expected, next); },
    });
    texts.clear();
    const transaction = { begin: () => ({}), store: () => watched(plain, 'tx'), commit() {}, rollback() {} };
    const r = await handleDelivery({ receiver, store: watched(plain, 'store'), transaction, leaseMs: 1000, windowMs: 60_000,
      now: () => 5000, body, signature, persist: async () => {} });
    assert.deepEqual([r.status, r.outcome], [200, 'completed']);
    const t = (ttlMs) => ({ nowMs: 5000, ttlMs, expiresAtMs: ttlMs === null ? null : 5000 + ttlMs });
    assert.deepEqual(seen, [['store', 'load', t(null)], ['store', 'cas', 2000, t(2000)], ['tx', 'load', t(null)], ['tx', 'cas', 60_000, t(60_000)]]);
  }
  // A persist that throws: released, 500 PERSIST_FAILED, the error kept; the retry persists it.
  {
    const claims = new Claims();
    const boom = new Error('db down');
    const failed = await handleDelivery({ receiver, claims, body, signature, persist: () => { throw boom; } });
    assert.deepEqual([failed.status, failed.code, failed.outcome, failed.persisted], [500, 'PERSIST_FAILED', 'released', false]);
    assert.equal(failed.error, boom);
    const retry = await handleDelivery({ receiver, claims, body, signature, persist: async () => {} });
    assert.deepEqual([retry.status, retry.outcome, retry.persisted], [200, 'completed', true]);
    // A rejected promise is a failed persist too.
    const rejected = await handleDelivery({ receiver, claims: new Claims(), body, signature, persist: () => Promise.reject(boom) });
    assert.deepEqual([rejected.status, rejected.code, rejected.error], [500, 'PERSIST_FAILED', boom]);
  }
  // A store that throws or rejects: 503 STORE_UNAVAILABLE with Retry-After, the error kept, no persist.
  for (const load of [() => { throw new Error('redis: gone'); }, () => Promise.reject(new Error('redis: gone'))]) {
    let called = false;
    const r = await handleDelivery({ receiver, store: { load, compareAndSet: () => true }, body, signature, persist: () => { called = true; } });
    assert.deepEqual([r.status, r.retryAfter, r.headers, r.code, r.outcome, called], [503, 1, { 'Retry-After': '1' }, 'STORE_UNAVAILABLE', null, false]);
    assert.equal(r.error.message, 'redis: gone');
  }
  // A store answering a wrong kind: a failed store call (503), the TypeError kept.
  {
    const r = await handleDelivery({ receiver, store: { load: () => 42, compareAndSet: () => true }, body, signature, persist });
    assert.deepEqual([r.status, r.code], [503, 'STORE_UNAVAILABLE']);
    assert.ok(r.error instanceof TypeError && /store\.load/.test(r.error.message), String(r.error));
  }
  // Held by another request: 503 with the lease as Retry-After.
  {
    const claims = new Claims({ leaseMs: 2000 });
    assert.equal(claims.step('claim', 'evt_handle_1', 'other', Date.now()), 'claimed');
    const r = await handleDelivery({ receiver, claims, body, signature, persist, token: 'mine' });
    assert.deepEqual([r.status, r.retryAfter, r.headers, r.outcome], [503, 2, { 'Retry-After': '2' }, 'in_progress']);
  }
  // Refused and ignored deliveries: answered at once, no claim, no persist; the refusal kept.
  {
    let called = false;
    const no = () => { called = true; };
    const bad = await handleDelivery({ receiver, claims: new Claims(), body, signature: sign('other', body), persist: no });
    assert.deepEqual([bad.status, bad.code, bad.action, bad.envelope, bad.outcome], [400, 'SIGNATURE_MISMATCH', 'reject', null, null]);
    assert.ok(bad.error instanceof XborderError && bad.error.code === 'SIGNATURE_MISMATCH');
    const [b2, s2] = delivery('evt_handle_2', 'order:teleported');
    const ignored = await handleDelivery({ receiver, claims: new Claims(), body: b2, signature: s2, persist: no });
    assert.deepEqual([ignored.status, ignored.action, ignored.envelope.id, 'error' in ignored], [200, 'ignore', 'evt_handle_2', false]);
    const mismatch = JSON.stringify({ id: 'evt_handle_3', event: 'order:created', entity: { id: 'o', type: 'sender' } });
    const typed = await handleDelivery({ receiver, claims: new Claims(), body: mismatch, signature: sign(SECRET, mismatch), persist: no });
    assert.deepEqual([typed.status, typed.error.code, typed.error.field], [400, 'ENTITY_MISMATCH', 'entity.type']);
    assert.equal(called, false);
  }
  // The clock: now() times each step (the store's clock across hosts); a wrong kind is a TypeError.
  {
    const times = [];
    await handleDelivery({ receiver, claims: new Claims(), body, signature, persist, now: () => { times.push(1000 + times.length); return times.at(-1); } });
    assert.deepEqual(times, [1000, 1001]); // claim, complete
    await assert.rejects(handleDelivery({ receiver, claims: new Claims(), body, signature, persist, now: () => -1 }), TypeError);
  }
  // Options: a wrong kind, both or neither of claims and store, rules beside a Claims.
  await assert.rejects(handleDelivery({ receiver, claims: new Claims(), body, signature }), /options\.persist/);
  await assert.rejects(handleDelivery({ receiver, body, signature, persist }), /options\.claims.*options\.store/);
  await assert.rejects(handleDelivery({ receiver, claims: new Claims(), store: store(false), body, signature, persist }), TypeError);
  await assert.rejects(handleDelivery({ receiver, claims: new Claims(), leaseMs: 5, body, signature, persist }), /leaseMs/);
  await assert.rejects(handleDelivery({ receiver: {}, claims: new Claims(), body, signature, persist }), /options\.receiver/);
  await assert.rejects(handleDelivery({ receiver, claims: {}, body, signature, persist }), /options\.claims/);
  await assert.rejects(handleDelivery({ receiver, claims: new Claims(), body: { id: 1 }, signature, persist }), /body/);
  await assert.rejects(handleDelivery({ receiver, claims: new Claims(), body, signature, persist, token: 5 }), /options\.token/);
  await assert.rejects(handleDelivery({ receiver, claims: new Claims(), body, signature, persist, tokn: 'x' }), /tokn/);
  // DeliveryHandling: one act at a time; a call out of order is INVALID_STEP naming the act expected.
  {
    const h = new DeliveryHandling({ receiver, claims: new Claims(), body, signature, token: 't1' });
    assert.deepEqual(h.next(), { act: 'claim', id: 'evt_handle_1' });
    assert.throws(() => h.persisted(true), code('INVALID_STEP', 'claim'));
    assert.deepEqual(h.next(), { act: 'claim', id: 'evt_handle_1' }); // unchanged
    const p = h.step(10);
    assert.equal(p.act, 'persist');
    assert.equal(p.envelope.id, 'evt_handle_1');
    assert.throws(() => h.step(11), code('INVALID_STEP', 'persist'));
    assert.throws(() => h.persisted('yes'), TypeError);
    assert.deepEqual(h.persisted(true), { act: 'complete', id: 'evt_handle_1' });
    assert.equal(h.answer(), null);
    const end = await h.stepAsync(12);
    assert.deepEqual(end, { act: 'answer', answer: { status: 200, retryAfter: null, outcome: 'completed', code: null, persisted: true } });
    assert.deepEqual(h.answer(), end.answer);
    assert.throws(() => h.step(13), code('INVALID_STEP', 'answer'));
    h.free();
    assert.throws(() => h.next(), code('FREED'));
    // A synchronous step() refuses a store that returns promises.
    const a = new DeliveryHandling({ receiver, store: store(true), body, signature });
    assert.throws(() => a.step(1), /stepAsync/);
  }
  // A transaction (a SQL store): core's order, begin → persist on tx → complete on store(tx, at)
  // → commit; a commit that fails is rolled back, the claim released on the plain store, 500.
  {
    texts.clear();
    const rows = new Set(); // the events committed
    const log = [];
    const transaction = (failCommit) => ({
      begin: async () => { log.push('begin'); return { rows: [], claims: new Map(texts) }; },
      store(tx, atMs) {
        log.push(`store:${typeof atMs}`);
        return {
          load: async (id) => tx.claims.get(id) ?? null,
          async compareAndSet(id, expected, next) {
            const ok = (tx.claims.get(id) ?? null) === expected;
            if (ok && next === null) tx.claims.delete(id);
            else if (ok) tx.claims.set(id, next);
            return ok;
          },
        };
      },
      async commit(tx) {
        log.push('commit');
        if (failCommit) throw new Error('commit: could not serialize');
        for (const r of tx.rows) rows.add(r);
        texts.clear();
        for (const [k, v] of tx.claims) texts.set(k, v);
      },
      rollback: async () => { log.push('rollback'); },
    });
    const persistIn = async (env, tx) => { log.push('persist'); tx.rows.push(env.id); };
    const go = (failCommit, p = persistIn) => handleDelivery({ receiver, store: store(true), body, signature, persist: p, transaction: transaction(failCommit) });
    const failed = await go(true);
    assert.deepEqual([failed.status, failed.code, failed.outcome, failed.persisted], [500, 'PERSIST_FAILED', 'released', false]);
    assert.equal(failed.error.message, 'commit: could not serialize');
    assert.deepEqual(log, ['begin', 'persist', 'store:number', 'commit', 'rollback']);
    assert.deepEqual([rows.size, texts.has('evt_handle_1')], [0, false], 'nothing kept, the claim released');
    log.length = 0;
    const boom = new Error('insert failed');
    const broken = await go(false, async () => { log.push('persist'); throw boom; });
    assert.deepEqual([broken.status, broken.code, broken.error], [500, 'PERSIST_FAILED', boom]);
    assert.deepEqual(log, ['begin', 'persist', 'rollback'], 'no complete, no commit');
    log.length = 0;
    const ok = await go(false);
    assert.deepEqual([ok.status, ok.outcome, ok.persisted, 'error' in ok], [200, 'completed', true, false]);
    assert.deepEqual(log, ['begin', 'persist', 'store:number', 'commit']);
    assert.deepEqual([...rows], ['evt_handle_1']);
    const dup = await go(false);
    assert.deepEqual([dup.status, dup.outcome, dup.persisted], [200, 'duplicate', false]);
    // Options: a transaction needs the claims in the database (a store), and all four functions.
    await assert.rejects(handleDelivery({ receiver, claims: new Claims(), body, signature, persist, transaction: transaction(false) }), /options\.store/);
    await assert.rejects(handleDelivery({ receiver, store: store(true), body, signature, persist, transaction: { begin() {} } }), /options\.transaction\.store/);
    await assert.rejects(handleDelivery({ receiver, store: store(true), body, signature, persist, inTransaction: true }), /options\.transaction/);
    // DeliveryHandling inTransaction: the commit act after the complete; lastStep reads each step.
    const h = new DeliveryHandling({ receiver, claims: new Claims(), body, signature, inTransaction: true });
    assert.equal(h.lastStep(), null);
    assert.equal(h.step(1).act, 'persist');
    assert.deepEqual(h.lastStep(), { step: 'claim', outcome: 'claimed', code: null });
    assert.throws(() => h.committed(true), code('INVALID_STEP', 'persist'));
    assert.deepEqual(h.persisted(true), { act: 'complete', id: 'evt_handle_1' });
    assert.deepEqual(h.step(2), { act: 'commit', id: 'evt_handle_1' });
    assert.deepEqual(h.lastStep(), { step: 'complete', outcome: 'completed', code: null });
    assert.deepEqual(h.committed(false), { act: 'release', id: 'evt_handle_1' });
    assert.equal(h.step(3).answer.code, 'PERSIST_FAILED');
    // The built-in Claims has no transaction to roll back: its complete stayed, so the release is stale.
    assert.deepEqual(h.lastStep(), { step: 'release', outcome: 'stale', code: null });
    assert.throws(() => new DeliveryHandling({ receiver, claims: new Claims(), body, signature, inTransaction: 1 }), /inTransaction/);
    h.free();
  }
  console.log('features: handleDelivery ok (built-in Claims, sync and async stores agree; persist and store errors kept; refusals; options; a transaction: commit failing → 500 and released; DeliveryHandling one act at a time, inTransaction, lastStep)');
}
