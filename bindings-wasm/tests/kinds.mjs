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
  // Nothing is trimmed: a pasted space makes another key.
  assert.throws(() => verify(` ${secret}`, body, good), code('SIGNATURE_MISMATCH'));
  assert.throws(() => verify(`${secret}\n`, body, good), code('SIGNATURE_MISMATCH'));
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
  // Kinds that are wrong for the signature header (an array: Node's headers type allows one).
  const notHeader = [42, true, [sig], [sig, sig], {}, Buffer.from(sig), new String(sig)];
  // Kinds that are wrong for an optional count: never converted with `+x`.
  const notCount = ['3', '', true, false, [], [3], {}, -1, 1.5, NaN, Infinity, -Infinity, new Number(3), 3n, buffer];

  /** [function name, call(args), good arguments, [parameter name, wrong kinds] per parameter]. */
  const rx = new Receiver('k');
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
    ['requiredFields', (a) => xb.requiredFields(...a), [null, 'bank_account', 'CO'],
      [null, ['paymentType', notString], ['country', notString]]],
    ['new Receiver', (a) => new Receiver(...a), ['k', 10], [['secretOrSecrets', notSecrets], ['window', notCount]]],
    ['Receiver#receive', (a) => rx.receive(...a), [body, sig], [['body', notBody], ['signature', notHeader]]],
    ['Receiver#commit', (a) => rx.commit(...a), ['evt_9'], [['id', notString]]],
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
  assert.ok(checked > 150, `${checked} wrong-kind calls`);

  // The messages say how to pass the value.
  assert.throws(() => xb.checkRegistration('order:created'),
    { name: 'TypeError', message: /`events` must be an array of event names, not a string: pass \['order:created'\]/ });
  assert.throws(() => xb.eventMatches('order:*', 'order:created'), { message: /`subscriptions` must be an array of event names, not a string/ });
  assert.throws(() => verify(42, body, sig), { message: /`secretOrSecrets` must be a secret \(a string\) or an array of secrets, not the number 42/ });
  assert.throws(() => verify(Buffer.from('k'), body, sig), { message: /not a Buffer: pass one secret as a string/ });
  assert.throws(() => verify('k', body, [sig]), { message: /`signature` .* not an array: pass the single header value/ });
  assert.throws(() => xb.checkRegistration(['order:created'], '3'), { message: /`existingWebhooks` must be a non-negative integer \(a number\), not a string/ });
  assert.throws(() => xb.checkRegistration(['order:created', 7]), { message: /`events\[1\]` must be an event name \(a string\), not the number 7/ });
  assert.throws(() => xb.decodeEnvelope(JSON.parse(body)), { message: /`body` must be the raw body: a string, a Uint8Array \(a Buffer\) or an ArrayBuffer, not an object/ });

  // A list is copied once it is checked: later changes to it do not matter, and it is left as it was.
  const events = ['order:created', 'order:*'];
  assert.deepEqual(xb.checkRegistration(events), { ok: true, events: ['order:created', 'order:*'] });
  assert.deepEqual(events, ['order:created', 'order:*']);
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
  for (const country of [undefined, null]) {
    assert.deepEqual(xb.validateBeneficiary(draft, null, { country, response }).issues, [{ path: 'country', code: 'BANKS_MISMATCH' }]);
  }
  for (const country of [5, true, ['CO'], { code: 'CO' }]) {
    assert.throws(() => xb.validateBeneficiary(draft, null, { country, response }), (e) => e instanceof TypeError && e.message.includes('`banks.country`'));
  }
}

console.log('kinds: ok (forgery by prefix refused, UTF-8 secrets, body kinds, wrong kinds named, pagination field and filters, bank list country)');
