// The packed package, as a user installs it: every parameter of every public function takes the
// kinds index.d.ts declares and refuses any other with a TypeError that names it, never a silent
// coercion (a secret string read as a list of one-character secrets, a string of events read as
// one event per character, '3' read as 3). Also: secrets key HMAC with their UTF-8 bytes, and
// pagination errors carry `field`.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import * as xb from 'xborder-wasm';

const { XborderError, Receiver, sign, verify } = xb;
const code = (c) => (e) => e instanceof XborderError && e.code === c;

const body = '{"id":"evt_1","event":"order:created","entity":{"id":"ord_1","type":"order","data":{"amount":"10.00"}}}';
// The documents as the server sends them, and a draft.
const RULES_DOC = { data: { country: 'CO', ownerType: 'individual', rules: { requiredFields: [{ field: 'lastName', description: 'Last name' }] } }, requestId: 'req_1' };
const BANKS_DOC = { data: [{ id: 'b1', name: 'Bank 1' }], requestId: 'req_2' };
const DRAFT = { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', paymentInfo: { bankId: 'b1' } };

// ---------------------------------------------------------------------------------------------
// The one-character forgery: a body signed with 'w', or with any proper prefix of the secret, is
// not accepted for the secret 'whsec_test', by verify or by a Receiver; the whole secret is.
{
  const secret = 'whsec_test';
  const keys = new Set([...secret]);
  for (let n = 1; n < secret.length; n++) keys.add(secret.slice(0, n));
  assert.ok(keys.has('w') && keys.has('whsec_tes'));
  for (const key of keys) {
    const forged = sign(key, body);
    assert.throws(() => verify(secret, body, forged), code('SIGNATURE_MISMATCH'), `verify: signed with ${JSON.stringify(key)}`);
    assert.throws(() => verify([secret], body, forged), code('SIGNATURE_MISMATCH'), `verify([secret]): ${JSON.stringify(key)}`);
    const rx = new Receiver(secret);
    const decision = rx.receive(body, forged);
    assert.equal(decision.action, 'reject', `receive: signed with ${JSON.stringify(key)}`);
    assert.equal(decision.error.code, 'SIGNATURE_MISMATCH');
    rx.free();
  }
  const good = sign(secret, body);
  verify(secret, body, good);
  verify(['old_secret', secret], body, good);
  const rx = new Receiver(secret, 10);
  assert.equal(rx.receive(body, good).action, 'process');
  rx.free();
  // Nothing is trimmed: a secret pasted with a space or its line end is refused where it is given
  // (contract v3), by verify, sign and the Receiver's constructor, so a service fails at start-up.
  assert.throws(() => verify(` ${secret}`, body, good), code('MALFORMED_SECRET'));
  assert.throws(() => verify(`${secret}\n`, body, good), code('MALFORMED_SECRET'));
  assert.throws(() => verify(['old_secret', `${secret}\t`], body, good), code('MALFORMED_SECRET'));
  assert.throws(() => sign(`${secret}\r\n`, body), code('MALFORMED_SECRET'));
  assert.throws(() => new Receiver(`${secret}\n`), code('MALFORMED_SECRET'));
  verify(`whsec a b`, body, sign('whsec a b', body)); // inside a secret, a space is part of the key
  // An empty secret or an empty rotation stays the core's EMPTY_SECRET.
  for (const empty of ['', []]) {
    assert.throws(() => verify(empty, body, good), code('EMPTY_SECRET'));
    assert.throws(() => new Receiver(empty), code('EMPTY_SECRET'));
  }
  assert.throws(() => sign('', body), code('EMPTY_SECRET'));
}

// ---------------------------------------------------------------------------------------------
// A non-ASCII secret keys HMAC with its UTF-8 bytes (not Latin-1, not UTF-16).
{
  const secret = 'clé_é';
  const utf8 = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
  const latin1 = createHmac('sha256', Buffer.from(secret, 'latin1')).update(body).digest('hex');
  assert.notEqual(utf8, latin1);
  assert.equal(sign(secret, body), utf8);
  verify(secret, body, utf8);
  assert.throws(() => verify(secret, body, latin1), code('SIGNATURE_MISMATCH'));
  const rx = new Receiver(secret);
  assert.equal(rx.receive(body, utf8).action, 'process');
  assert.equal(rx.receive(body, latin1).action, 'reject');
  rx.free();
  // A body string is its UTF-8 bytes too.
  const text = '{"note":"café ✓"}';
  assert.equal(sign('k', text), createHmac('sha256', 'k').update(Buffer.from(text, 'utf8')).digest('hex'));
}

// ---------------------------------------------------------------------------------------------
// Every accepted body kind gives the same result: a string, a Uint8Array (also a view into a
// larger buffer), a Buffer, an ArrayBuffer.
{
  const bytes = new TextEncoder().encode(body);
  const padded = new Uint8Array(bytes.length + 7);
  padded.set(bytes, 3);
  const kinds = {
    string: body,
    Uint8Array: bytes,
    'Uint8Array view': padded.subarray(3, 3 + bytes.length),
    Buffer: Buffer.from(body),
    ArrayBuffer: bytes.slice().buffer,
  };
  const sig = sign('k', body);
  for (const [kind, b] of Object.entries(kinds)) {
    assert.equal(sign('k', b), sig, kind);
    verify('k', b, sig);
    assert.deepEqual(xb.decodeEnvelope(b).toJSON(), xb.decodeEnvelope(body).toJSON(), kind);
    const rx = new Receiver('k');
    const d = rx.receive(b, sig);
    assert.equal(d.action, 'process', kind);
    assert.equal(d.envelope.id, 'evt_1');
    rx.free();
  }
  // The signature header: a string, or null / undefined when absent.
  for (const absent of [null, undefined]) {
    assert.throws(() => verify('k', body, absent), code('MISSING_SIGNATURE'));
    assert.equal(new Receiver('k').receive(body, absent).error.code, 'MISSING_SIGNATURE');
  }
  assert.equal(new Receiver('k').receive(body).error.code, 'MISSING_SIGNATURE');
  // Counts: a number, or left out (undefined or null).
  for (const absent of [undefined, null]) {
    assert.deepEqual(xb.checkRegistration(['order:created'], absent), { ok: true, events: ['order:created'] });
    assert.equal(new Receiver('k', absent).receive(body, sig).action, 'process');
  }
}

// ---------------------------------------------------------------------------------------------
// Wrong kinds: for every public function, each parameter fed a kind it does not take, the other
// arguments being good ones, throws a TypeError whose message names that parameter.
{
  const sig = sign('k', body);
  const buffer = Buffer.from('order:created');
  // Kinds that are wrong for a string parameter.
  const notString = [42, 0, null, undefined, true, ['order:created'], {}, buffer, new Uint8Array(2), new String('x'), 1n, Symbol('x')];
  // Kinds that are wrong for an array-of-strings parameter (also a string: never one name per character).
  const notNames = ['order:created', '', 42, null, undefined, true, {}, { length: 1, 0: 'order:created' }, buffer,
    new String('order:created'), [1], ['order:created', null], [buffer], [new String('order:created')], [['order:created']]];
  // Kinds that are wrong for a body.
  const notBody = [42, null, undefined, true, ['{}'], {}, { id: 'evt_1' }, new String(body), new Uint16Array(2),
    new Int8Array(2), new DataView(new ArrayBuffer(2)), [...new TextEncoder().encode(body)]];
  // Kinds that are wrong for one secret or a list of them.
  const notSecrets = [42, null, undefined, true, {}, buffer, new Uint8Array([119]), new String('k'), [1], ['k', null],
    ['k', buffer], [new String('k')], [['k']]];
  // Kinds that are wrong for the signature header: it is a string, an array of strings, a header
  // collection (a record of strings or arrays of them, a Fetch Headers), or absent.
  const notHeader = [42, true, Buffer.from(sig), new String(sig), [sig, 42], [sig, null], [Buffer.from(sig)],
    new Map([['x-webhook-signature', sig]]), new URLSearchParams({ 'x-webhook-signature': sig }),
    new URLSearchParams({ 'x-webhook-signature': sig }).entries(),
    { 'x-webhook-signature': 42 }, { 'X-Webhook-Signature': [sig, null] }, { 'x-webhook-signature': Buffer.from(sig) },
    { 'X-WEBHOOK-SIGNATURE': null }, { get: () => 42 }, { get: () => [sig] }, () => sig];
  // Kinds that are wrong for an optional count: never converted with `+x`.
  const notCount = ['3', '', true, false, [], [3], {}, -1, 1.5, NaN, Infinity, -Infinity, new Number(3), 3n, buffer];
  // A receiver's second argument is a window or an options object: `{}` is the empty options.
  const notWindow = notCount.filter((v) => !(typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype));
  // Kinds that are wrong for milliseconds (a time or a duration): only non-negative safe integer numbers.
  const notMillis = ['30000', '', true, false, [], [1], {}, -1, -0.5, 1.5, NaN, Infinity, -Infinity, 2 ** 53, Number.MAX_VALUE,
    new Number(1), 1n, buffer, new Date(0)];
  // Kinds that are wrong for an options object (absent, null or a plain object are fine).
  const notOptions = ['window', 42, true, [], [{ window: 1 }], new Map([['window', 1]]), new Number(1), buffer, () => ({})];
  // Kinds that are wrong for list parameters (absent, null or an object are fine; which keys is
  // core's UNKNOWN_PARAMETER): a number, a query string, an array are TypeErrors, as elsewhere.
  const notParams = [42, 0, NaN, 'page=1', '', true, false, [], [{ page: 1 }], () => ({}), Symbol('p'), 1n,
    Promise.resolve({ page: 1 }), { then() {} }];
  // Kinds that are wrong for a Catalog.
  const notCatalog = ['order:rejected', ['order:rejected'], {}, { addLive() {} }, 42, true, new Map()];
  // Kinds that are wrong for a function.
  const notFunction = ['https://x.test/list', 42, true, {}, [], new URL('https://x.test/list'), new String('f')];
  // Kinds that are wrong for a server document (the rules document, a bank list's response): it
  // is the response text (a string), its parsed JSON (any JSON value), or absent. What JSON has no
  // value for would be dropped (the document silently not given), and a Promise is a response not
  // awaited.
  const notDocument = [() => RULES_DOC, Symbol('rules'), Promise.resolve(RULES_DOC), { then() {} }];
  // Kinds that are wrong for a bank list: it is { country, response } (a plain object), or absent;
  // the response itself (text or parsed) passed as `banks` has no country.
  const notBanks = [JSON.stringify(BANKS_DOC), 42, true, [], [BANKS_DOC], new Map([['country', 'CO']]), () => BANKS_DOC, new String('CO')];
  // Kinds that are wrong for a bank list's country (absent is core's BANKS_MISMATCH).
  const notCountry = [5, true, ['CO'], { code: 'CO' }, new String('CO'), Buffer.from('CO')];
  const mapStore = () => {
    const m = new Map();
    return {
      load: (id) => m.get(id) ?? null,
      compareAndSet(id, expected, next) {
        if ((m.get(id) ?? null) !== expected) return false;
        if (next === null) m.delete(id); else m.set(id, next);
        return true;
      },
    };
  };
  // Kinds that are wrong for a claim store: not an object, or without a `load` / `compareAndSet` function.
  const notStore = [null, undefined, 'redis://localhost', 42, true, [], {}, { load() { return null; } },
    { compareAndSet() { return true; } }, { load: 'GET', compareAndSet() { return true; } },
    { load() { return null; }, compareAndSet: true }, () => null];

  /** [function name, call(args), good arguments, [parameter name, wrong kinds] per parameter]. */
  const rx = new Receiver('k');
  const catalog = new xb.Catalog();
  const walker = new xb.PageWalker();
  const memoryClaims = new xb.Claims();
  const storeClaims = xb.Claims.withStore(mapStore());
  const formValidator = new xb.BeneficiaryValidator(RULES_DOC, { country: 'CO', response: BANKS_DOC });
  const notOwner = notString.filter((v) => v !== null && v !== undefined); // absent: any owner type
  const cases = [
    ['classifyEvent', (a) => xb.classifyEvent(...a), ['order:created'], [['name', notString]]],
    ['checkRegistration', (a) => xb.checkRegistration(...a), [['order:created'], 0],
      [['events', notNames], ['existingWebhooks', notCount]]],
    ['createWebhookBody', (a) => xb.createWebhookBody(...a), [['order:created'], 'https://x.test/h', 0],
      [['events', notNames], ['url', [...notString, new URL('https://x.test/h')]], ['existingWebhooks', notCount]]],
    ['eventMatches', (a) => xb.eventMatches(...a), [['order:*'], 'order:created'],
      [['subscriptions', notNames], ['event', notString]]],
    ['sign', (a) => sign(...a), ['k', body], [['secret', notString], ['body', notBody]]],
    ['verify', (a) => verify(...a), ['k', body, sig],
      [['secretOrSecrets', notSecrets], ['body', notBody], ['signature', notHeader]]],
    ['decodeEnvelope', (a) => xb.decodeEnvelope(...a), [body], [['body', notBody]]],
    ['requiredFields', (a) => xb.requiredFields(...a), [RULES_DOC, 'bank_account', 'CO'],
      [['rules', notDocument], ['paymentType', notString], ['country', notString]]],
    ['validateBeneficiary', (a) => xb.validateBeneficiary(...a), [DRAFT, RULES_DOC, { country: 'CO', response: BANKS_DOC }],
      [null, ['rules', notDocument], ['banks', notBanks]]],
    ['validateBeneficiary (banks)', (a) => xb.validateBeneficiary(DRAFT, null, { country: a[0], response: a[1] }), ['CO', BANKS_DOC],
      [['banks.country', notCountry], ['banks.response', notDocument]]],
    ['checkAccount', (a) => xb.checkAccount(...a), ['iban', 'DE89'], [['kind', notString], ['value', notString]]],
    ['beneficiaryForm', (a) => xb.beneficiaryForm(...a), [{ country: 'CO', paymentType: 'bank_account' }], [['options', [undefined, null, ...notOptions]]]],
    ['beneficiaryForm (options)', (a) => xb.beneficiaryForm({ country: a[0], paymentType: a[1], ownerType: a[2], rules: a[3], banks: a[4] }),
      ['CO', 'bank_account', 'individual', RULES_DOC, { country: 'CO', response: BANKS_DOC }],
      [['options.country', notString], ['options.paymentType', notString], ['options.ownerType', notOwner], ['rules', notDocument], ['banks', notBanks]]],
    ['BeneficiaryValidator#form', (a) => formValidator.form(...a), ['CO', 'bank_account', 'individual'],
      [['country', notString], ['paymentType', notString], ['ownerType', notOwner]]],
    ['new BeneficiaryValidator', (a) => new xb.BeneficiaryValidator(...a), [RULES_DOC, { country: 'CO', response: BANKS_DOC }],
      [['rules', notDocument], ['banks', notBanks]]],
    ['new BeneficiaryValidator (banks)', (a) => new xb.BeneficiaryValidator(null, { country: a[0], response: a[1] }), ['CO', JSON.stringify(BANKS_DOC)],
      [['banks.country', notCountry], ['banks.response', notDocument]]],
    ['new Receiver', (a) => new Receiver(...a), ['k', 10], [['secretOrSecrets', notSecrets], ['window', [...notWindow, new Map([['window', 1]]), () => 10]]]],
    ['new Receiver (options)', (a) => new Receiver(a[0], { window: a[1], catalog: a[2] }), ['k', 10, new xb.Catalog()],
      [['secretOrSecrets', notSecrets], ['options.window', notCount], ['options.catalog', notCatalog]]],
    ['Receiver#receive', (a) => rx.receive(...a), [body, sig], [['body', notBody], ['signature', notHeader]]],
    ['Receiver#commit', (a) => rx.commit(...a), ['evt_9'], [['id', notString]]],
    ['Catalog#addLive', (a) => catalog.addLive(...a), ['order:rejected'], [['name', notString]]],
    ['Catalog#addWildcard', (a) => catalog.addWildcard(...a), ['fiat_deposit:*'], [['name', notString]]],
    ['Catalog#isLive', (a) => catalog.isLive(...a), ['order:rejected'], [['name', notString]]],
    ['Catalog#classify', (a) => catalog.classify(...a), ['order:rejected'], [['name', notString]]],
    ['Catalog#checkRegistration', (a) => catalog.checkRegistration(...a), [['order:rejected'], 0],
      [['events', notNames], ['existingWebhooks', notCount]]],
    ['Catalog#createWebhookBody', (a) => catalog.createWebhookBody(...a), [['order:rejected'], 'https://x.test/h', 0],
      [['events', notNames], ['url', notString], ['existingWebhooks', notCount]]],
    ['Catalog#matches', (a) => catalog.matches(...a), [['fiat_deposit:*'], 'fiat_deposit:created'],
      [['subscriptions', notNames], ['event', notString]]],
    ['listQuery', (a) => xb.listQuery(...a), [{ page: 1 }], [['params', notParams]]],
    ['pageInfo', (a) => xb.pageInfo(...a), [{ data: [], total: 0 }, { page: 0 }], [null, ['request', notParams]]],
    ['new PageWalker', (a) => new xb.PageWalker(...a), [{ pageSize: 5 }], [['params', notParams]]],
    ['PageWalker#records', (a) => walker.records(...a), [async () => ({ data: [], total: 0 }), () => {}],
      [['fetchPage', [undefined, null, ...notFunction]], ['onStep', notFunction]]],
    ['new Claims', (a) => new xb.Claims(...a), [{ leaseMs: 1000, windowMs: 5000, capacity: 10 }], [['options', notOptions]]],
    ['new Claims (options)', (a) => new xb.Claims({ leaseMs: a[0], windowMs: a[1], capacity: a[2] }), [1000, 5000, 10],
      [['options.leaseMs', notMillis], ['options.windowMs', notMillis], ['options.capacity', notCount]]],
    ['Claims.withStore', (a) => xb.Claims.withStore(...a), [mapStore(), { leaseMs: 1000 }], [['store', notStore], ['options', notOptions]]],
    ['Claims.withStore (options)', (a) => xb.Claims.withStore(mapStore(), { leaseMs: a[0], windowMs: a[1] }), [1000, 5000],
      [['options.leaseMs', notMillis], ['options.windowMs', notMillis]]],
    ['Claims#step (built-in store)', (a) => memoryClaims.step(...a), ['claim', 'evt_1', 'req_a', 0],
      [['step', notString], ['id', notString], ['token', notString], ['atMs', [null, undefined, ...notMillis]]]],
    ['Claims#step (a store of the host\'s)', (a) => storeClaims.step(...a), ['claim', 'evt_1', 'req_a', 0],
      [['step', notString], ['id', notString], ['token', notString], ['atMs', [null, undefined, ...notMillis]]]],
  ];
  let checked = 0;
  for (const [fn, call, good, params] of cases) {
    call([...good]); // the good arguments work
    params.forEach((param, i) => {
      if (param === null) return;
      const [name, wrongs] = param;
      for (const wrong of wrongs) {
        const args = [...good];
        args[i] = wrong;
        const what = `${fn}: ${name} = ${typeof wrong === 'symbol' ? 'Symbol' : typeof wrong === 'bigint' ? `${wrong}n` : JSON.stringify(wrong) ?? String(wrong)}`;
        assert.throws(() => call(args), (e) => {
          assert.ok(e instanceof TypeError, `${what}: threw ${e && e.name}: ${e && e.message}`);
          assert.ok(!(e instanceof XborderError), what);
          assert.ok(e.message.includes(`\`${name}`), `${what}: the message does not name it: ${e.message}`);
          return true;
        }, what);
        checked++;
      }
    });
  }
  rx.free();
  catalog.free();
  walker.free();
  memoryClaims.free();
  formValidator.free();
  // A misspelt option of beneficiaryForm is a TypeError naming it, never ignored.
  assert.throws(() => xb.beneficiaryForm({ country: 'CO', paymentType: 'bank_account', owner: 'individual' }),
    (e) => e instanceof TypeError && e.message.includes('`options.owner`'));
  assert.ok(checked > 400, `${checked} wrong-kind calls`);

  // stepAsync: the same checks, as a rejected promise (nothing is thrown synchronously).
  for (const [what, claims] of [['built-in store', new xb.Claims()], ['a store of the host\'s', xb.Claims.withStore(mapStore())]]) {
    const good = ['claim', 'evt_1', 'req_a', 0];
    assert.equal(await claims.stepAsync(...good), 'claimed');
    const params = [['step', notString], ['id', notString], ['token', notString], ['atMs', [null, undefined, ...notMillis]]];
    for (const [i, [name, wrongs]] of params.entries()) {
      for (const wrong of wrongs) {
        const args = [...good];
        args[i] = wrong;
        let pending;
        assert.doesNotThrow(() => { pending = claims.stepAsync(...args); }, `stepAsync (${what}): ${name} threw synchronously`);
        await assert.rejects(pending, (e) => e instanceof TypeError && !(e instanceof XborderError) && e.message.includes(`\`${name}\``),
          `stepAsync (${what}): ${name} = ${String(wrong)}`);
        checked++;
      }
    }
  }

  // Options objects: a key that is not an option (a misspelling) is a TypeError naming it, never ignored.
  const store = mapStore();
  const misspelt = [
    ['new Receiver', (o) => new Receiver('k', o), ['windw', 'Window', 'size', 'catalogue', 'leaseMs']],
    ['new Claims', (o) => new xb.Claims(o), ['lease', 'leaseMS', 'lease_ms', 'window', 'windowMS', 'capacityy', 'catalog']],
    ['Claims.withStore', (o) => xb.Claims.withStore(store, o), ['capacity', 'lease', 'window', 'windowMS']],
  ];
  for (const [fn, make, keys] of misspelt) {
    make({}); // the empty options object is the defaults
    make(null);
    for (const key of keys) {
      assert.throws(() => make({ [key]: 1 }), (e) => e instanceof TypeError && e.message.includes(`\`options.${key}\` is not an option`),
        `${fn}: options.${key}`);
      checked++;
    }
  }
  assert.throws(() => new xb.Claims({ lease: 10 }), { message: /`options.lease` is not an option: the options are leaseMs, windowMs, capacity/ });

  // What a store answers is checked by kind too: a load's entry text (or null / undefined), a
  // compare-and-set's boolean; never coerced ('true' or 1 is not true).
  const answering = (load, cas) => ({ load: () => load, compareAndSet: () => cas });
  for (const bad of [42, true, {}, ['h:0:r'], new String('d:1'), Buffer.from('d:1')]) {
    assert.throws(() => xb.Claims.withStore(answering(bad, true)).step('claim', 'e', 'r', 0),
      (e) => e instanceof TypeError && e.message.includes('`store.load`'), `load answered ${String(bad)}`);
    await assert.rejects(xb.Claims.withStore({ load: async () => bad, compareAndSet: async () => true }).stepAsync('claim', 'e', 'r', 0),
      (e) => e instanceof TypeError && e.message.includes('`store.load`'), `async load answered ${String(bad)}`);
    checked += 2;
  }
  for (const bad of ['true', 1, 0, null, undefined, {}, new Boolean(true)]) {
    assert.throws(() => xb.Claims.withStore(answering(null, bad)).step('claim', 'e', 'r', 0),
      (e) => e instanceof TypeError && e.message.includes('`store.compareAndSet`'), `compareAndSet answered ${String(bad)}`);
    await assert.rejects(xb.Claims.withStore({ load: async () => null, compareAndSet: async () => bad }).stepAsync('claim', 'e', 'r', 0),
      (e) => e instanceof TypeError && e.message.includes('`store.compareAndSet`'), `async compareAndSet answered ${String(bad)}`);
    checked += 2;
  }
  assert.ok(checked > 600, `${checked} wrong-kind checks`);

  // The messages say how to pass the value.
  assert.throws(() => xb.checkRegistration('order:created'),
    { name: 'TypeError', message: /`events` must be an array of event names, not a string: pass \['order:created'\]/ });
  assert.throws(() => xb.eventMatches('order:*', 'order:created'), { message: /`subscriptions` must be an array of event names, not a string/ });
  assert.throws(() => verify(42, body, sig), { message: /`secretOrSecrets` must be a secret \(a string\) or an array of secrets, not the number 42/ });
  assert.throws(() => verify(Buffer.from('k'), body, sig), { message: /not a Buffer: pass one secret as a string/ });
  assert.throws(() => verify('k', body, 42), { message: /`signature` must be the X-Webhook-Signature header: .*req.headers.*not the number 42: pass req.headers \(Node\), request.headers \(Fetch\)/ });
  assert.throws(() => verify('k', body, { 'X-Webhook-Signature': 42 }), { message: /`signature\['X-Webhook-Signature'\]` must be a header value \(a string\) or an array of them, not the number 42/ });
  assert.throws(() => verify('k', body, { get: () => 1 }), { message: /`signature.get\('x-webhook-signature'\)` must be a string, or null when absent/ });
  assert.throws(() => xb.checkRegistration(['order:created'], '3'), { message: /`existingWebhooks` must be a non-negative integer \(a number\), not a string/ });
  assert.throws(() => xb.checkRegistration(['order:created', 7]), { message: /`events\[1\]` must be an event name \(a string\), not the number 7/ });
  assert.throws(() => xb.decodeEnvelope(JSON.parse(body)), { message: /`body` must be the raw body: a string, a Uint8Array \(a Buffer\) or an ArrayBuffer, not an object/ });
  // A parsed body (what express.json() leaves in req.body) says how to keep the raw bytes.
  for (const parsed of [JSON.parse(body), [JSON.parse(body)], Object.assign(Object.create(null), JSON.parse(body))]) {
    for (const call of [() => verify('k', parsed, sig), () => new Receiver('k').receive(parsed, sig), () => sign('k', parsed)]) {
      assert.throws(call, (e) => {
        assert.ok(e instanceof TypeError && !(e instanceof XborderError));
        assert.match(e.message, /parsed JSON body \(what express.json\(\) leaves in req.body\)/);
        assert.ok(e.message.includes("express.raw({ type: 'application/json' })"), e.message);
        assert.ok(e.message.includes('await req.arrayBuffer()') && e.message.includes('await request.text()'), e.message);
        return true;
      });
    }
  }
  assert.throws(() => verify('k', 42, sig), { message: /not the number 42: pass the bytes exactly as received: express.raw\(/ });

  // A list is copied once it is checked: later changes to it do not matter, and it is left as it was.
  const events = ['order:created', 'order:*'];
  assert.deepEqual(xb.checkRegistration(events), { ok: true, events: ['order:created', 'order:*'] });
  assert.deepEqual(events, ['order:created', 'order:*']);
}

// ---------------------------------------------------------------------------------------------
// The signature header as a handler has it: the header's one value (a string, taken exactly as
// it is), its values (an array), or the request's headers (Node's IncomingHttpHeaders or any
// record, looked up in any case; a Fetch Headers). What several values mean is core's
// signature_header: equal repeats are that signature, different ones MALFORMED_SIGNATURE, only
// blanks none (MISSING_SIGNATURE). verify and Receiver#receive agree on every form.
{
  const sig = sign('k', body);
  const other = sign('other', body);
  const nullProto = (o) => Object.assign(Object.create(null), o);
  const outcome = (signature) => {
    let viaVerify;
    try {
      verify('k', body, signature);
      viaVerify = 'ok';
    } catch (e) {
      assert.ok(e instanceof XborderError, `verify threw ${e}`);
      viaVerify = e.code;
    }
    const d = new Receiver('k').receive(body, signature);
    const viaReceive = d.action === 'reject' ? d.error.code : 'ok';
    assert.equal(viaReceive, viaVerify, `receive and verify disagree on ${JSON.stringify(signature)}`);
    return viaVerify;
  };
  const cases = [
    // One value: every form of it is that signature.
    ['ok', sig, `  ${sig.toUpperCase()}\n`, [sig], { 'x-webhook-signature': sig }, { 'X-Webhook-Signature': sig },
      { 'X-WEBHOOK-SIGNATURE': [sig] }, nullProto({ host: 'x', 'x-webhook-signature': sig }), new Headers({ 'X-Webhook-Signature': sig }),
      { 'x-webhook-signature': sig, 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'], 'x-other': undefined }],
    // Equal repeats collapse: an array, a joined value (as Node joins a repeated header), both spellings of the name.
    ['ok', [sig, sig], [`${sig}, ${sig}`], { 'x-webhook-signature': `${sig}, ${sig}` }, { 'x-webhook-signature': [sig, ` ${sig} `] },
      { 'x-webhook-signature': sig, 'X-Webhook-Signature': sig }, new Headers([['x-webhook-signature', sig], ['x-webhook-signature', sig]]),
      [sig, '', ' ']],
    // Different signatures are never "try each", even when one of them is right.
    ['MALFORMED_SIGNATURE', [sig, other], [other, sig], { 'x-webhook-signature': `${sig}, ${other}` }, { 'x-webhook-signature': [sig, other] },
      { 'x-webhook-signature': sig, 'X-Webhook-Signature': other }, new Headers([['x-webhook-signature', other], ['x-webhook-signature', sig]]),
      [sig, sig.toUpperCase()]],
    // None: absent, or only blanks.
    ['MISSING_SIGNATURE', null, undefined, [], [''], [' ', ','], {}, { 'content-type': 'application/json' },
      { 'x-webhook-signature': undefined }, { 'x-webhook-signature': [] }, { 'x-webhook-signature': ' , ' }, new Headers()],
    // A wrong signature is a mismatch in every form.
    ['SIGNATURE_MISMATCH', other, [other], { 'x-webhook-signature': other }, new Headers({ 'x-webhook-signature': other })],
    // The one string passed is the header's value exactly as it is: not split at commas.
    ['MALFORMED_SIGNATURE', `${sig}, ${sig}`, ',', `${sig},`],
  ];
  let n = 0;
  for (const [want, ...inputs] of cases) {
    for (const input of inputs) {
      assert.equal(outcome(input), want, `${JSON.stringify(input instanceof Headers ? [...input] : input)}`);
      n++;
    }
  }
  // The configuration error still comes first.
  assert.throws(() => verify('', body, { 'x-webhook-signature': [sig, other] }), code('EMPTY_SECRET'));
  // A Headers-like object of another library: its get() is asked for the lower-case name.
  const asked = [];
  verify('k', body, { get: (name) => (asked.push(name), sig) });
  assert.deepEqual(asked, ['x-webhook-signature']);
  // The headers object is read, never changed.
  const headers = { 'X-Webhook-Signature': [sig, sig] };
  verify('k', body, headers);
  assert.deepEqual(headers, { 'X-Webhook-Signature': [sig, sig] });

  // SIGNATURE_MISMATCH (core's code) ends with how to pass the body, thrown or in a decision.
  const hint = 'the body must be the raw bytes as received (express.raw(), await req.arrayBuffer()), not re-serialised JSON';
  const reserialised = JSON.stringify(JSON.parse(body), null, 2);
  assert.throws(() => verify('k', reserialised, sig), (e) => {
    assert.equal(e.code, 'SIGNATURE_MISMATCH');
    assert.ok(e.message.startsWith('SIGNATURE_MISMATCH: '), e.message);
    assert.ok(e.message.endsWith(hint), e.message);
    return true;
  });
  const d = new Receiver('k').receive(reserialised, { 'x-webhook-signature': sig });
  assert.equal(d.action, 'reject');
  assert.equal(d.error.code, 'SIGNATURE_MISMATCH');
  assert.ok(d.error instanceof XborderError && d.error.message.endsWith(hint), d.error.message);
  // Other codes keep core's message as it is.
  assert.throws(() => verify('k', body, 'nope'), (e) => e.code === 'MALFORMED_SIGNATURE' && !e.message.includes('express'));
  assert.ok(n > 40, `${n} header forms`);
}

// ---------------------------------------------------------------------------------------------
// Pagination: errors carry `field`; endpoint filters go under `filters`.
{
  assert.throws(() => xb.listQuery({ status: 'x' }), (e) => e instanceof XborderError && e.code === 'UNKNOWN_PARAMETER' && e.field === 'status');
  assert.throws(() => xb.listQuery({ filters: { page: 1 } }), (e) => e.code === 'INVALID_FILTER' && e.field === 'page');
  assert.throws(() => xb.listQuery({ filters: { status: ['a'] } }), (e) => e.code === 'INVALID_FILTER' && e.field === 'status');
  assert.throws(() => xb.listQuery({ filters: 'status=x' }), (e) => e.code === 'INVALID_FILTER' && e.field === 'filters');
  assert.throws(() => xb.pageInfo({ data: [], total: 0 }, { page: 0, pageSize: 10, status: 'x' }), (e) => e.code === 'UNKNOWN_PARAMETER' && e.field === 'status');
  assert.throws(() => xb.listQuery({ page: -1 }), (e) => e.code === 'INVALID_PAGE' && !('field' in e));
  assert.ok(xb.listQuery({ filters: { status: 'success' } }).endsWith('&status=success'));
  assert.equal(xb.listQuery({ sortOrder: 'asc', filters: { status: 'success', archived: false, amount: 10, email: null, event: '' } }),
    'page=0&pageSize=10&sortBy=createdAt&sortOrder=ASC&amount=10&archived=false&status=success');
}

// ---------------------------------------------------------------------------------------------
// A bank list's country: absent is core's decision (a list for no country: BANKS_MISMATCH, not
// applied); present but not a string is a wrong kind.
{
  const draft = { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', paymentInfo: { bankId: 'b1' } };
  const response = { data: [{ id: 'b1' }] };
  const pathsAndCodes = (v) => v.issues.map(({ path, code }) => ({ path, code }));
  for (const country of [undefined, null]) {
    assert.deepEqual(pathsAndCodes(xb.validateBeneficiary(draft, null, { country, response })), [{ path: 'country', code: 'BANKS_MISMATCH' }]);
    assert.deepEqual(pathsAndCodes(xb.validateBeneficiary(draft, null, { response })), [{ path: 'country', code: 'BANKS_MISMATCH' }]);
  }
  for (const country of [5, true, ['CO'], { code: 'CO' }]) {
    assert.throws(() => xb.validateBeneficiary(draft, null, { country, response }), (e) => e instanceof TypeError && e.message.includes('`banks.country`'));
  }
}

// ---------------------------------------------------------------------------------------------
// Documents: a string is the response text (taken, not refused), read as its parsed JSON is; a
// key of the bank list other than country and response (a misspelling, the response's own `data`)
// is a TypeError naming it, never a list silently not given.
{
  const draft = { ...DRAFT, paymentInfo: { bankId: 'b2' } };
  const parsed = xb.validateBeneficiary(draft, RULES_DOC, { country: 'CO', response: BANKS_DOC });
  assert.deepEqual(parsed.issues.map((i) => i.code).sort(), ['REQUIRED', 'UNKNOWN_BANK']);
  for (const [rules, response] of [[JSON.stringify(RULES_DOC), BANKS_DOC], [RULES_DOC, JSON.stringify(BANKS_DOC)],
    [JSON.stringify(RULES_DOC, null, 2), JSON.stringify(BANKS_DOC, null, '\t')]]) {
    assert.deepEqual(xb.validateBeneficiary(draft, rules, { country: 'CO', response }), parsed);
    assert.deepEqual(new xb.BeneficiaryValidator(rules, { country: 'CO', response }).validate(draft), parsed);
  }
  assert.deepEqual(xb.requiredFields(JSON.stringify(RULES_DOC), 'bank_account', 'CO'), xb.requiredFields(RULES_DOC, 'bank_account', 'CO'));
  for (const banks of [{ country: 'CO', respone: BANKS_DOC }, { country: 'CO', response: BANKS_DOC, extra: 1 }, BANKS_DOC]) {
    const key = Object.keys(banks).find((k) => k !== 'country' && k !== 'response');
    for (const call of [() => xb.validateBeneficiary(draft, null, banks), () => new xb.BeneficiaryValidator(null, banks)]) {
      assert.throws(call, (e) => e instanceof TypeError && e.message.includes(`\`banks.${key}\``), key);
    }
  }
}

console.log('kinds: ok (forgery by prefix refused, UTF-8 secrets, body kinds, the signature header in every form a handler has (core picks among repeats), parsed bodies and mismatches say how to fix them, wrong kinds named (options, stores, documents and bank lists too), pagination field and filters, bank list country, documents as text)');
