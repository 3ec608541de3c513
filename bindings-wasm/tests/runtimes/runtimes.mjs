// The installed package in the other JS runtimes: Bun, Deno and workerd (Cloudflare's edge worker
// runtime), each installed from npm in this scratch project by tests/runtimes.sh, beside the
// packed tarball: node runtimes.mjs README.md.
//
// Per runtime: the package loads (probe(): sign, classifyEvent and an XborderError's code, the same
// as Node's), and the README's Fetch handler (its ```ts block `export async function POST(request:
// Request)`, as written) is served on a free loopback port and sent, from Node, a signed delivery
// (200, saved once), the same again (200, not saved again), a tampered one (400
// SIGNATURE_MISMATCH), one without Content-Type (415 UNSUPPORTED_MEDIA_TYPE) and an empty body
// (400 MALFORMED_JSON): every 4xx a JSON { code, message } without a stack trace; and beneficiary
// drafts (the README's rules document and bank list) validated with the same result as Node's.
// Bun and Deno run the README's command lines (its ```sh block: `bun server.ts`, `deno run
// <flags> server.ts`, with server.ts serving the recipe.ts as the README has it); Deno is also run
// without --allow-read and must fail to read the .wasm as the README says. workerd runs the
// recipe with its first lines replaced by the README's ```js worker block (the web build,
// `await init(wasm)` with the .wasm as a compiled module), transpiled by TypeScript, under a config
// written here (workerd.capnp, the wasm module and the package's web files as modules).
// A runtime whose npm package could not be installed (runtimes.sh writes .unavailable-NAME with
// npm's reason) is named with the reason and not tested; any other failure fails the test.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import * as node from 'xborder-wasm';
import { probe } from './routes.js';

const README = readFileSync(process.argv[2], 'utf8');
const fence = (lang) => [...README.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]);
const only = (what, list) => {
  assert.equal(list.length, 1, `the README has one ${what}`);
  return list[0];
};
const RECIPE = only('Fetch handler (a ```ts block exporting POST(request: Request))',
  fence('ts').filter((b) => /export async function POST\(request: Request\): Promise<Response>/.test(b)));
const WORKER_HEAD = only('```js worker block', fence('js worker'));
const COMMANDS = fence('sh').flatMap((b) => b.split('\n'));
const command = (re, what) => only(`${what} command line (a \`\`\`sh block)`, COMMANDS.filter((l) => re.test(l)));
const BUN_LINE = command(/^bun /, 'bun');
const DENO_LINE = command(/^deno run /, 'deno run');
assert.equal(BUN_LINE, 'bun server.ts', 'the README runs the recipe with `bun server.ts`');
const DENO_FLAGS = DENO_LINE.replace(/^deno run /, '').replace(/ server\.ts$/, '').split(' ');
assert.ok(DENO_FLAGS.some((f) => /^--allow-read(=|$)/.test(f)), `the README's deno line grants --allow-read: ${DENO_LINE}`);
const [RULES, BANKS] = (() => {
  const docs = fence('json').map((b) => JSON.parse(b));
  return [docs.find((d) => d.data?.rules), docs.find((d) => Array.isArray(d.data))];
})();
assert.ok(RULES && BANKS, 'the README shows the rules document and the bank list (```json blocks)');

const SECRET = 'whsec_runtimes';
const BODY = JSON.stringify({ id: 'evt_rt_1', event: 'order:created', entity: { id: 'ord_1', type: 'order', data: { amount: '10.00' } } });
const hmac = (body) => createHmac('sha256', SECRET).update(body).digest('hex');
assert.equal(node.sign(SECRET, BODY), hmac(BODY), 'sign() is the HMAC-SHA256 hex of the body');
const DRAFTS = [
  // The README's draft: four issues.
  { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', firstName: 'Ana', address: {}, paymentInfo: { bankId: 'bank_co_999', accountNumber: '' } },
  // Complete, with a listed bank: valid.
  { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', firstName: 'Ana', lastName: 'Díaz', address: { city: 'Bogotá' }, paymentInfo: { bankId: 'bank_co_001', accountNumber: '0012345678' } },
  // An IBAN with a wrong check digit and a malformed BIC.
  { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', firstName: 'Ana', lastName: 'Díaz', address: { city: 'Bogotá' }, paymentInfo: { bankId: 'bank_co_001', accountNumber: 'DE89370400440532013001', bic: 'DEUT' } },
];
const banks = { country: 'CO', response: BANKS };
const EXPECTED = DRAFTS.map((d) => JSON.parse(JSON.stringify(node.validateBeneficiary(d, RULES, banks))));
assert.deepEqual(EXPECTED.map((r) => r.valid), [false, true, false], 'Node: the drafts are invalid, valid, invalid');
assert.ok(EXPECTED[0].issues.length === 4 && EXPECTED[2].issues.length >= 2, 'Node: the invalid drafts have their issues');
const PROBE = JSON.parse(execFileSync(process.execPath, ['load.mjs'], { encoding: 'utf8' }));
assert.deepEqual(PROBE, probe(node), 'node load.mjs');

// Processes started here, stopped at the end or on a signal (each in its own process group).
const children = new Set();
const stop = (child) => {
  if (child.exitCode === null && child.signalCode === null) {
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ }
  }
  children.delete(child);
};
process.on('exit', () => [...children].forEach(stop));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(1));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Runs a command to its end: { code, out } (stdout and stderr). */
function runTo(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.add(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => stop(child), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, out });
    });
  });
}

/** Starts a server on `port` and waits until GET /probe answers: { child, output() }. */
async function serve(cmd, args, port, env = {}) {
  const child = spawn(cmd, args, { env: { ...process.env, NO_COLOR: '1', WEBHOOK_SECRET: SECRET, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const server = { child, port, output: () => out };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before it listened:\n${out}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/probe`);
      server.probe = await res.json();
      return server;
    } catch (e) {
      if (e.cause?.code !== 'ECONNREFUSED' && e.cause?.code !== 'ECONNRESET') throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`never listened on ${port}:\n${out}`);
}

/** POSTs to the server: { status, type, text, json }. `headers` as fetch takes them. */
async function post(port, path, body, headers) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers, body });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json };
}

/** The deliveries and drafts every runtime is sent; returns the lines it reports. */
async function exercise(name, server) {
  const { port } = server;
  assert.deepEqual(server.probe, PROBE, `${name}: GET /probe answers as Node`);
  const json = { 'content-type': 'application/json' };
  const saved = () => server.output().split('\n').filter((l) => l.startsWith('saved evt_rt_1 order:created')).length;
  const rejected = (r, status, code, what) => {
    assert.equal(r.status, status, `${name}: ${what}: ${r.status} ${r.text}`);
    assert.match(r.type, /^application\/json/, `${name}: ${what}: a JSON answer (${r.type})`);
    assert.equal(r.json?.code, code, `${name}: ${what}: code ${r.text}`);
    assert.equal(typeof r.json.message, 'string', `${name}: ${what}: a message`);
    assert.doesNotMatch(r.text, /\n\s+at |\.(js|ts|mjs):\d+/, `${name}: ${what}: no stack trace`);
    return `${what} ${r.status} ${code}`;
  };
  const lines = [];
  const signed = await post(port, '/webhooks', BODY, { ...json, 'x-webhook-signature': hmac(BODY) });
  assert.equal(signed.status, 200, `${name}: signed delivery: ${signed.status} ${signed.text}`);
  for (let i = 0; i < 40 && saved() === 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(saved(), 1, `${name}: the signed delivery was saved once:\n${server.output()}`);
  const again = await post(port, '/webhooks', BODY, { ...json, 'x-webhook-signature': node.sign(SECRET, BODY) });
  assert.equal(again.status, 200, `${name}: redelivery: ${again.status} ${again.text}`);
  lines.push('signed 200 (saved), redelivered 200 (not saved again)');
  const tamperedBody = BODY.replace('10.00', '99.00');
  lines.push(rejected(await post(port, '/webhooks', tamperedBody, { ...json, 'x-webhook-signature': hmac(BODY) }), 400, 'SIGNATURE_MISMATCH', 'tampered'));
  lines.push(rejected(await post(port, '/webhooks', new TextEncoder().encode(BODY), { 'x-webhook-signature': hmac(BODY) }), 415, 'UNSUPPORTED_MEDIA_TYPE', 'no Content-Type'));
  lines.push(rejected(await post(port, '/webhooks', '', { ...json, 'x-webhook-signature': hmac('') }), 400, 'MALFORMED_JSON', 'empty body'));
  assert.equal(saved(), 1, `${name}: saved once in all`);
  for (const [i, draft] of DRAFTS.entries()) {
    const r = await post(port, '/validate', JSON.stringify({ draft, rules: RULES, banks }), json);
    assert.equal(r.status, 200, `${name}: validate: ${r.status} ${r.text}`);
    assert.deepEqual(r.json, EXPECTED[i], `${name}: draft ${i} validated as in Node`);
  }
  lines.push(`${DRAFTS.length} drafts validated as in Node (valid: ${EXPECTED.map((r) => r.valid).join(', ')}; ${EXPECTED.map((r) => r.issues.length).join(' + ')} issues)`);
  // After all that, still up and answering.
  const last = await post(port, '/webhooks', BODY, { ...json, 'x-webhook-signature': hmac(BODY) });
  assert.equal(last.status, 200, `${name}: still up after the rejections`);
  assert.equal(server.child.exitCode, null, `${name}: the process is still running`);
  return lines;
}

const BIN = (name) => join('node_modules', '.bin', name);
/** The runtime's npm package version, once its binary has answered --version. */
const versionOf = (name) => {
  const says = execFileSync(BIN(name), ['--version'], { encoding: 'utf8' }).split('\n')[0].trim();
  const { version } = JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8'));
  return says.includes(version) ? version : `${version} (${says})`;
};

// recipe.ts: the README's Fetch handler as written (Bun and Deno run it as TypeScript).
writeFileSync('recipe.ts', RECIPE);

const RUNTIMES = {
  async bun() {
    const load = await runTo(BIN('bun'), ['load.mjs']);
    assert.equal(load.code, 0, `bun load.mjs: ${load.out}`);
    assert.deepEqual(JSON.parse(load.out), PROBE, 'bun load.mjs prints what node prints');
    const port = await freePort();
    // The README's `bun server.ts`, the port as an argument.
    const server = await serve(BIN('bun'), ['server.ts', String(port)], port);
    return ['load.mjs as in Node', ...(await exercise('bun', server))];
  },
  async deno() {
    const denied = await runTo(BIN('deno'), ['run', '--no-prompt', ...DENO_FLAGS.filter((f) => !f.startsWith('--allow-read')), 'load.mjs']);
    assert.notEqual(denied.code, 0, `deno without --allow-read loaded the package: ${denied.out}`);
    assert.match(denied.out, /NotCapable: Requires read access to ".*node_modules\/xborder-wasm\/node\/xborder_wasm_bg\.wasm"/, 'deno without --allow-read: the README\'s error');
    const load = await runTo(BIN('deno'), ['run', '--no-prompt', ...DENO_FLAGS, 'load.mjs']);
    assert.equal(load.code, 0, `deno run ${DENO_FLAGS.join(' ')} load.mjs: ${load.out}`);
    assert.deepEqual(JSON.parse(load.out), PROBE, 'deno load.mjs prints what node prints');
    const port = await freePort();
    // The README's `deno run <flags> server.ts`, the port as an argument.
    const server = await serve(BIN('deno'), ['run', '--no-prompt', ...DENO_FLAGS, 'server.ts', String(port)], port);
    return [`without --allow-read: NotCapable on the .wasm; with ${DENO_FLAGS.join(' ')}: load.mjs as in Node`, ...(await exercise('deno', server))];
  },
  async workerd() {
    // The worker: the recipe with its lines up to `await init();` replaced by the README's worker
    // block, as JavaScript, and the .wasm copied beside it as the README says.
    const dir = 'worker';
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const head = /^[\s\S]*?^await init\(\);.*\n/m;
    assert.match(RECIPE, head, 'the Fetch handler has a line `await init();`');
    assert.deepEqual(RECIPE.match(head)[0].split('\n').filter((l) => l.startsWith('import')),
      ["import { init, Receiver } from 'xborder-wasm';", "import { saveEvent } from './db.js';"],
      'the lines the worker block replaces are the recipe\'s imports');
    // Types stripped by tsc (--noCheck: a worker's types are not Node's), imports kept as written.
    writeFileSync(join(dir, 'recipe.ts'), RECIPE.replace(head, WORKER_HEAD.replace(/\n*$/, '\n')));
    execFileSync('tsc', ['--noCheck', '--verbatimModuleSyntax', '--module', 'esnext', '--target', 'es2022',
      '--outDir', dir, '--rootDir', dir, join(dir, 'recipe.ts')], { stdio: 'inherit' });
    copyFileSync('db.js', join(dir, 'db.js'));
    copyFileSync('routes.js', join(dir, 'routes.js'));
    copyFileSync('node_modules/xborder-wasm/web/xborder_wasm_bg.wasm', join(dir, 'xborder_wasm_bg.wasm'));
    writeFileSync(join(dir, 'worker.js'), `// The worker's module: the README's Fetch handler (recipe.js) behind the test routes.
import * as api from 'xborder-wasm/web';
import { POST } from './recipe.js';
import { app } from './routes.js';

export default { fetch: app(POST, api) };
`);
    // xborder-wasm/web (web.js) and the package's other ES modules it may import (all but Node's:
    // node/ and index.*), named as their paths in the package so that relative imports resolve.
    const pkg = 'node_modules/xborder-wasm';
    const webFiles = (function walk(d) {
      return readdirSync(d, { withFileTypes: true }).flatMap((e) => {
        const path = join(d, e.name);
        if (d === pkg && (e.name === 'node' || e.name === 'node_modules' || /^(index\.|web\.js$)/.test(e.name))) return [];
        return e.isDirectory() ? walk(path) : /\.m?js$/.test(e.name) ? [path] : [];
      });
    })(pkg);
    const embed = (file) => JSON.stringify(relative(dir, file));
    /** The modules of a worker whose recipe.js is the file `recipe`. */
    const modulesWith = (recipe) => [
      '(name = "worker.js", esModule = embed "worker.js")',
      `(name = "recipe.js", esModule = embed "${recipe}")`,
      ...['routes.js', 'db.js'].map((f) => `(name = "${f}", esModule = embed "${f}")`),
      '(name = "xborder_wasm_bg.wasm", wasm = embed "xborder_wasm_bg.wasm")',
      `(name = "xborder-wasm/web", esModule = embed ${embed(join(pkg, 'web.js'))})`,
      ...webFiles.map((f) => `(name = ${JSON.stringify(`xborder-wasm/${relative(pkg, f)}`)}, esModule = embed ${embed(f)})`),
    ];
    const config = (file, modules) => writeFileSync(join(dir, file), `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [
${modules.map((m) => `    ${m},`).join('\n')}
  ],
  compatibilityDate = "2025-04-01",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [(name = "WEBHOOK_SECRET", fromEnvironment = "WEBHOOK_SECRET")],
);
`);
    const modules = modulesWith('recipe.js');
    config('workerd.capnp', modules);
    // What the README says of `init()` without the module in a worker: workerd fails at startup.
    const compiled = readFileSync(join(dir, 'recipe.js'), 'utf8');
    assert.match(compiled, /^await init\(wasm\);/m, 'the worker recipe has `await init(wasm);`');
    writeFileSync(join(dir, 'recipe-init-fetch.js'), compiled.replace(/^await init\(wasm\);/m, 'await init();'));
    config('workerd-init-fetch.capnp', modulesWith('recipe-init-fetch.js'));
    const fetching = await runTo(BIN('workerd'), ['serve', join(dir, 'workerd-init-fetch.capnp'), '--socket-addr', `http=127.0.0.1:${await freePort()}`], { WEBHOOK_SECRET: SECRET });
    assert.notEqual(fetching.code, 0, `workerd served a worker calling init() without the module:\n${fetching.out}`);
    assert.match(fetching.out, /Uncaught Error: XborderError: WASM_LOAD_FAILED: [^\n]*TypeError: Invalid URL string/, `workerd, init() without the module: the README's error:\n${fetching.out}`);
    const port = await freePort();
    const server = await serve(BIN('workerd'), ['serve', join(dir, 'workerd.capnp'), '--socket-addr', `http=127.0.0.1:${port}`], port);
    return ['init() without the module: exits at startup (WASM_LOAD_FAILED: Invalid URL string)',
      `init(wasm), wasm a WebAssembly.Module: a worker of ${modules.length} modules (xborder-wasm/web)`, ...(await exercise('workerd', server))];
  },
};

const tested = [];
const unavailable = [];
let failed = 0;
for (const [name, test] of Object.entries(RUNTIMES)) {
  const why = existsSync(`.unavailable-${name}`) ? readFileSync(`.unavailable-${name}`, 'utf8').trim() : null;
  if (why !== null || !existsSync(BIN(name))) {
    const reason = why ?? `node_modules/.bin/${name} is missing`;
    console.log(`runtimes: ${name}: NOT TESTED: could not be installed from npm: ${reason}`);
    unavailable.push(name);
    continue;
  }
  let version;
  try {
    version = versionOf(name);
    const lines = await test();
    for (const l of lines) console.log(`runtimes: ${name} (${version}): ${l}`);
    tested.push(`${name} ${version}`);
  } catch (e) {
    failed++;
    console.log(`runtimes: ${name} (${version ?? 'no version'}): FAILED: ${e.stack ?? e}`);
  } finally {
    [...children].forEach(stop);
  }
}
const names = Object.keys(RUNTIMES);
console.log(`runtimes: ${failed ? 'FAILED' : 'ok'}: ${tested.length} of ${names.length} runtimes tested (${tested.join(', ') || 'none'})` +
  `${unavailable.length ? `; not installable here: ${unavailable.join(', ')}` : ''}${failed ? `; ${failed} failed` : ''}`);
process.exitCode = failed ? 1 : 0;
