// Loading that recovers, and objects after free(), on the packed package as a user installs it:
// - the browser entry (`xborder-wasm/web`, run here in Node with the .wasm passed as bytes or a
//   URL): every call before `init()` has resolved throws XborderError NOT_INITIALIZED whose
//   message says to `await init()`; a failed init() (bytes that are not the module, a 404, a
//   refused connection, a page served where the .wasm was meant, the default location) rejects
//   with XborderError WASM_LOAD_FAILED saying what came instead (with the original error as
//   `cause`) and is not kept: the next init() loads, and the same functions then work;
// - both entries (Node's and the browser's): every method of every class used after free()
//   throws XborderError FREED (not wasm-bindgen's "null pointer passed to rust"), a second free()
//   does nothing, and a freed Catalog given to a Receiver is FREED too.
// Usage: node lifecycle.mjs <scratch project with node_modules/xborder-wasm>
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [scratch] = process.argv.slice(2);
assert.ok(scratch, 'usage: node lifecycle.mjs <scratch project>');
const pkg = join(scratch, 'node_modules', 'xborder-wasm');
const web = await import(pathToFileURL(join(pkg, 'web.js')).href);
const node = await import(pathToFileURL(join(pkg, 'index.mjs')).href);
const wasmBytes = readFileSync(join(pkg, 'web', 'xborder_wasm_bg.wasm'));
const formsBytes = readFileSync(join(pkg, 'forms', 'xborder_wasm_bg.wasm'));

const isCode = (XborderError, c) => (e) => {
  assert.ok(e instanceof XborderError, `not an XborderError: ${e && e.name}: ${e && e.message}`);
  assert.equal(e.code, c, e.message);
  assert.ok(e.message.startsWith(`${c}: `), e.message);
  return true;
};

// ---------------------------------------------------------------------------------------------
// What every public function and constructor is called with: good arguments, so that what is
// thrown is about loading or freeing, never about the arguments.
const secret = 'whsec_test';
const body = '{"id":"evt_1","event":"order:created","entity":{"id":"ord_1","type":"order","data":{"amount":"10.00"}}}';
const goodSig = node.sign(secret, body);
const RULES = { data: { country: 'CO', ownerType: 'individual', rules: { requiredFields: [] } } };
const DRAFT = { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', paymentInfo: { bankId: 'b1' } };
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
const calls = (xb) => ({
  classifyEvent: () => xb.classifyEvent('order:created'),
  checkRegistration: () => xb.checkRegistration(['order:created']),
  createWebhookBody: () => xb.createWebhookBody(['order:created'], 'https://x.test/h'),
  eventMatches: () => xb.eventMatches(['order:*'], 'order:created'),
  sign: () => xb.sign(secret, body),
  verify: () => xb.verify(secret, body, goodSig),
  decodeEnvelope: () => xb.decodeEnvelope(body),
  validateBeneficiary: () => xb.validateBeneficiary(DRAFT, RULES),
  requiredFields: () => xb.requiredFields(RULES, 'bank_account', 'CO'),
  beneficiaryForm: () => xb.beneficiaryForm({ country: 'CO', paymentType: 'bank_account', rules: RULES }),
  checkAccount: () => xb.checkAccount('iban', 'DE89 3704'),
  normalizeBeneficiary: () => xb.normalizeBeneficiary(DRAFT),
  listQuery: () => xb.listQuery({ page: 1 }),
  pageInfo: () => xb.pageInfo({ data: [], total: 0 }),
  Receiver: () => new xb.Receiver(secret),
  Catalog: () => new xb.Catalog(),
  PageWalker: () => new xb.PageWalker(),
  Claims: () => new xb.Claims(),
  BeneficiaryValidator: () => new xb.BeneficiaryValidator(RULES),
  // Before init() the Receiver they take throws NOT_INITIALIZED: there is none to give them.
  DeliveryHandling: () => new xb.DeliveryHandling({ receiver: new xb.Receiver(secret), claims: new xb.Claims(), body, signature: goodSig }),
  handleDelivery: () => xb.handleDelivery({ receiver: new xb.Receiver(secret), claims: new xb.Claims(), body, signature: goodSig, persist: () => {} }),
  'Claims.withStore': () => xb.Claims.withStore(mapStore()),
  'Claims.errorReply': () => xb.Claims.errorReply(new Error('x')),
  'verify (headers)': () => xb.verify(secret, body, { 'x-webhook-signature': goodSig }),
  // The catch-up and the API's answers: a TypeError in the browser module (not in it), after
  // NOT_INITIALIZED as every call before init(); catchUp rejects (its receiver throws first).
  readApiError: () => xb.readApiError({ method: 'GET', status: 503 }),
  CatchUp: () => new xb.CatchUp(),
  catchUp: () => xb.catchUp({ receiver: new xb.Receiver(secret), claims: new xb.Claims(), get: async () => null, persist: () => {} }),
});
// Every export but init and XborderError has its call above (a new export must be added).
{
  const exported = Object.keys(web).filter((k) => k !== 'init' && k !== 'XborderError').sort();
  const listed = Object.keys(calls(web)).filter((k) => !k.includes(' ') && !k.includes('.')).sort();
  assert.deepEqual(listed, exported);
}

// ---------------------------------------------------------------------------------------------
// Before init(): NOT_INITIALIZED, with the way out in the message; nothing else is thrown.
const notInitialized = (what) => (e) => {
  isCode(web.XborderError, 'NOT_INITIALIZED')(e);
  assert.ok(e.message.includes('await init()'), `${what}: ${e.message}`);
  return true;
};
const beforeInit = (when) => {
  for (const [name, call] of Object.entries(calls(web))) assert.throws(call, notInitialized(name), `${when}: ${name}`);
};
beforeInit('before init()');

// A load that fails is not kept: bytes that are not the module, a 404, a refused connection, a
// page where the .wasm was meant (a dev server's index.html). Each rejects with XborderError
// WASM_LOAD_FAILED whose message names the .wasm, says what came instead and what to pass to
// init(source); the original error, where there is one, is its `cause`.
const loadFailed = (what, ...parts) => (e) => {
  isCode(web.XborderError, 'WASM_LOAD_FAILED')(e);
  assert.ok(e.message.includes('(web/xborder_wasm_bg.wasm)'), `${what}: ${e.message}`);
  assert.ok(e.message.includes('init(source)'), `${what}: ${e.message}`);
  for (const part of parts) assert.ok(e.message.includes(part), `${what}: no ${JSON.stringify(part)} in: ${e.message}`);
  return true;
};
await assert.rejects(web.init(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1])),
  loadFailed('broken bytes', 'the bytes given are WebAssembly but not this module: CompileError'), 'broken bytes');
await web.init(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1])).catch((e) => assert.ok(e.cause instanceof WebAssembly.CompileError, `cause: ${e.cause}`));
beforeInit('after init(broken bytes) rejected');
await assert.rejects(web.init(new TextEncoder().encode('<!doctype html><title>app</title>')),
  loadFailed('HTML bytes', 'the bytes given are not WebAssembly, beginning "<!doctype html><title>app</title…"'));
await assert.rejects(web.init(new Response('<!doctype html><html>', { headers: { 'content-type': 'text/html' } })),
  loadFailed('a Response of HTML', 'the body of the Response given (HTTP 200, content-type text/html) is not WebAssembly, beginning "<!doctype html><html>" (a web page: the server has no .wasm there)'));
// Served as application/wasm, compiled as it streams: the engine's error is the cause.
const streamed = await web.init(new Response('<!doctype html>', { headers: { 'content-type': 'application/wasm' } })).catch((e) => e);
assert.ok(loadFailed('HTML as application/wasm', 'the Response given answered HTTP 200 (application/wasm), not this module: CompileError',
  '(the bytes begin "<!do")')(streamed));
assert.ok(streamed.cause instanceof WebAssembly.CompileError, `cause: ${streamed.cause}`);
// The default location, from Node (a file: URL, which fetch refuses): the README's way out.
await assert.rejects(web.init(), (e) => {
  isCode(web.XborderError, 'WASM_LOAD_FAILED')(e);
  assert.ok(e.message.includes('loading it from its default location (beside the package\'s JavaScript, where the bundler or server put it) failed: TypeError'), e.message);
  assert.ok(e.message.includes("import url from 'xborder-wasm/web/xborder_wasm_bg.wasm?url'") && e.message.includes('"Bundlers and dev servers"'), e.message);
  assert.ok(e.cause instanceof Error, `cause: ${e.cause}`);
  return true;
});
beforeInit('after init(HTML) rejected');
const server = createServer((req, res) => {
  if (req.url === '/index.html') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html>\n<html lang="en"><head><script type="module" src="/main.js"></script>');
  else if (req.url === '/web.wasm') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(wasmBytes);
  else if (req.url === '/forms.wasm') res.writeHead(200, { 'content-type': 'application/wasm' }).end(formsBytes);
  else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
try {
  const origin = `http://127.0.0.1:${server.address().port}`;
  const missing = `${origin}/xborder_wasm_bg.wasm`;
  await assert.rejects(web.init(missing), loadFailed('a 404', `${missing} answered HTTP 404 Not Found`), 'a 404');
  beforeInit('after init(404) rejected');
  await assert.rejects(web.init(new URL(missing)), loadFailed('a 404 again', '404'), 'a 404 again (not the cached rejection: a new request)');
  // What a dev server answers for a file it does not have: its index.html, 200.
  await assert.rejects(web.init(`${origin}/index.html`), loadFailed('a dev server\'s page',
    `the body of ${origin}/index.html (HTTP 200, content-type text/html; charset=utf-8) is not WebAssembly, beginning "<!DOCTYPE html> <html lang="en">…" (a web page: the server has no .wasm there)`));
  await assert.rejects(web.init(await fetch(`${origin}/index.html`)), loadFailed('a Response of the page', `the body of ${origin}/index.html (HTTP 200`));
  beforeInit('after init(a page) rejected');
  // The forms module names its own .wasm, and refuses the full module's (WebAssembly, not its own).
  const formsWeb = await import(pathToFileURL(join(pkg, 'forms.js')).href);
  await assert.rejects(formsWeb.init(`${origin}/index.html`), (e) => {
    isCode(formsWeb.XborderError, 'WASM_LOAD_FAILED')(e);
    assert.ok(e.message.includes('(forms/xborder_wasm_bg.wasm)') && e.message.includes('text/html'), e.message);
    return true;
  });
  await assert.rejects(formsWeb.init(`${origin}/web.wasm`), (e) => {
    isCode(formsWeb.XborderError, 'WASM_LOAD_FAILED')(e);
    assert.ok(e.message.includes(`the body of ${origin}/web.wasm (HTTP 200, content-type application/octet-stream) is WebAssembly but not this module: LinkError`), e.message);
    assert.ok(e.cause instanceof Error, `cause: ${e.cause}`);
    return true;
  });
  // Then the URL of its own .wasm loads it.
  await formsWeb.init(`${origin}/forms.wasm`);
  assert.equal(formsWeb.validateBeneficiary({ country: 'US' }).valid, false);
} finally {
  server.close();
}
await assert.rejects(web.init('http://127.0.0.1:1/xborder_wasm_bg.wasm'), (e) => {
  loadFailed('a refused connection', 'fetching http://127.0.0.1:1/xborder_wasm_bg.wasm failed: TypeError')(e);
  assert.ok(e.cause instanceof TypeError, `cause: ${e.cause}`);
  return true;
}, 'a refused connection');
beforeInit('after init(refused) rejected');

// A call made while init() is still loading is NOT_INITIALIZED too; once it resolved, the same
// functions answer, and a later init() is the same resolved promise.
const loading = web.init(wasmBytes);
assert.throws(() => web.classifyEvent('order:created'), notInitialized('while loading'));
await loading;
assert.equal(web.init(), web.init(new Uint8Array([1, 2, 3])));
await web.init();
assert.deepEqual(web.classifyEvent('order:created'), { kind: 'live', entity: 'order', action: 'created' });
// Each one works now (handleDelivery: resolves); the browser module's catch-up and API answers
// throw their TypeError (checked at the end).
const SERVER_ONLY = ['readApiError', 'CatchUp', 'catchUp'];
for (const [name, call] of Object.entries(calls(web))) if (!SERVER_ONLY.includes(name)) await call();
assert.equal(web.sign(secret, body), node.sign(secret, body));
// Node's entry is loaded on import: init() resolves at once, nothing is NOT_INITIALIZED.
await node.init();
for (const [name, call] of Object.entries(calls(node))) {
  // catchUp's `get` answers null: a TypeError naming it, after every option was checked.
  if (name === 'catchUp') await assert.rejects(call(), /options\.get\(path\)/);
  else await call();
}

// ---------------------------------------------------------------------------------------------
// After free(): every method of every class throws FREED; free() again does nothing.
for (const [entry, xb] of [['node', node], ['web', web]]) {
  const freed = (what) => (e) => {
    isCode(xb.XborderError, 'FREED')(e);
    assert.ok(!/null pointer/.test(e.message), `${what}: ${e.message}`);
    return true;
  };
  const sig = xb.sign(secret, body);
  /** Each class: how to make one, and each method called with good arguments. */
  const classes = {
    Receiver: [() => new xb.Receiver(secret), {
      receive: (o) => o.receive(body, sig),
      commit: (o) => o.commit('evt_1'),
    }],
    Catalog: [() => new xb.Catalog(), {
      addLive: (o) => o.addLive('order:rejected'),
      addWildcard: (o) => o.addWildcard('fiat_deposit:*'),
      isLive: (o) => o.isLive('order:created'),
      classify: (o) => o.classify('order:created'),
      checkRegistration: (o) => o.checkRegistration(['order:created']),
      createWebhookBody: (o) => o.createWebhookBody(['order:created'], 'https://x.test/h'),
      matches: (o) => o.matches(['order:*'], 'order:created'),
    }],
    PageWalker: [() => new xb.PageWalker({ pageSize: 5 }), {
      nextQuery: (o) => o.nextQuery(),
      isDone: (o) => o.isDone(),
      feed: (o) => o.feed({ data: [], total: 0 }),
      records: (o) => o.records(async () => ({ data: [], total: 0 })),
    }],
    BeneficiaryValidator: [() => new xb.BeneficiaryValidator(RULES), {
      validate: (o) => o.validate(DRAFT),
      form: (o) => o.form('CO', 'bank_account', 'individual'),
    }],
    Claims: [() => new xb.Claims(), {
      step: (o) => o.step('claim', 'evt_1', 'req_a', 0),
      stepAsync: (o) => o.stepAsync('claim', 'evt_1', 'req_a', 0),
      reply: (o) => o.reply('claim', 'claimed'),
    }],
    'Claims.withStore': [() => xb.Claims.withStore(mapStore()), {
      step: (o) => o.step('claim', 'evt_1', 'req_a', 0),
      stepAsync: (o) => o.stepAsync('claim', 'evt_1', 'req_a', 0),
      reply: (o) => o.reply('claim', 'claimed'),
    }],
    // The node entry only (the browser module has no CatchUp: see below).
    ...(entry === 'node' ? {
      CatchUp: [() => new xb.CatchUp({ pageSize: 5 }), {
        nextQuery: (o) => o.nextQuery(),
        isDone: (o) => o.isDone(),
        feed: (o) => o.feed({ data: [], total: 0 }),
        answered: (o) => o.answered(503, { 'retry-after': '1' }, ''),
        events: (o) => o.events(),
        drifts: (o) => o.drifts(),
        checkpoint: (o) => o.checkpoint(),
      }],
    } : {}),
    DeliveryHandling: [() => new xb.DeliveryHandling({ receiver: new xb.Receiver(secret), claims: new xb.Claims(), body, signature: sig, inTransaction: true }), {
      next: (o) => o.next(),
      step: (o) => o.step(0),
      stepAsync: (o) => o.stepAsync(0),
      persisted: (o) => (o.step(0), o.persisted(true)),
      committed: (o) => (o.step(0), o.persisted(true), o.step(1), o.committed(true)),
      lastStep: (o) => o.lastStep(),
      answer: (o) => o.answer(),
      action: (o) => o.action,
      envelope: (o) => o.envelope,
      error: (o) => o.error,
    }],
  };
  let checked = 0;
  for (const [name, [make, methods]] of Object.entries(classes)) {
    const C = xb[name.split('.')[0]];
    // Every method of the class's prototype is listed (a new method must be added here).
    const own = Object.getOwnPropertyNames(C.prototype).filter((k) => k !== 'constructor' && k !== 'free').sort();
    assert.deepEqual(Object.keys(methods).sort(), own, `${entry}: ${name}'s methods`);
    // Each method works before free() (a fresh object for each: commit needs nothing before).
    for (const [method, call] of Object.entries(methods)) {
      const o = make();
      const out = call(o);
      if (out && typeof out.then === 'function') await out;
      else if (out && typeof out[Symbol.asyncIterator] === 'function') for await (const _ of out);
      o.free();
    }
    const o = make();
    o.free();
    o.free(); // a second free() does nothing
    for (const [method, call] of Object.entries(methods)) {
      const what = `${entry}: ${name}#${method} after free()`;
      if (method === 'stepAsync') {
        await assert.rejects(async () => call(o), freed(what), what);
      } else {
        assert.throws(() => call(o), freed(what), what);
        assert.throws(() => call(o), freed(what), `${what}, twice`);
      }
      checked++;
    }
    if (typeof Symbol.dispose === 'symbol') {
      const d = make();
      d[Symbol.dispose]();
      const [method, call] = Object.entries(methods)[0];
      assert.throws(() => call(d), freed(`${entry}: ${name}#${method} after [Symbol.dispose]()`));
    }
  }
  assert.ok(checked >= 20, `${checked} uses after free()`);
  // A freed catalog given to a receiver.
  const catalog = new xb.Catalog();
  catalog.free();
  assert.throws(() => new xb.Receiver(secret, { catalog }), freed(`${entry}: new Receiver({ catalog: freed })`));
  // Objects not freed are untouched by others being freed.
  const rx = new xb.Receiver(secret);
  new xb.Receiver(secret).free();
  assert.equal(rx.receive(body, sig).action, 'process');
  rx.free();
}

// The browser module leaves out the catch-up and the API's answers: each says where they are.
for (const call of [() => web.readApiError({ method: 'GET', status: 503 }), () => new web.CatchUp()]) {
  assert.throws(call, (e) => e instanceof TypeError && /not in the browser module.*'xborder-wasm'/.test(e.message));
}
await assert.rejects(web.catchUp({}), (e) => e instanceof TypeError && /catchUp is not in the browser module/.test(e.message));
assert.equal(node.readApiError({ method: 'GET', status: 503 }).retry, 'after');

console.log('lifecycle: ok (NOT_INITIALIZED before init, WASM_LOAD_FAILED saying what came instead, init retried after a failed load, FREED after free for every class, in both entries)');
