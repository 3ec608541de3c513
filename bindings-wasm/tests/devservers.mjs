// The packed package under the dev servers and production builds a frontend team starts with,
// each as its user runs it, with no config line about xborder-wasm: Vite (`vite` dev with its
// dependency pre-bundling as shipped, and `vite build` + `vite preview`), webpack 5
// (webpack-dev-server, and a production build served as files) and Next.js (an app-router page
// whose client component validates a form: `next dev`, and `next build` + `next start`, Next.js
// 15 and 16, no config). Each server listens on a loopback port, the page is loaded in headless
// Chromium, and the draft it validated (window.__result) must equal the Node module's answer for
// the same draft. A server that answers its index.html where the .wasm was meant (webpack-no-wasm)
// makes init() reject with WASM_LOAD_FAILED, whose message says so. Then the same Next.js app with a route handler using the full package on the
// server (a signed webhook verified, its beneficiary validated; a tampered one refused), with the
// README's one line for server code (NEXT_CONFIG), in dev and build: its answers must be the
// Node module's. Every server is stopped (its whole process group), whatever happened; every
// wait is bounded.
//
// Usage: node devservers.mjs <scratch project> [name...]
//   the scratch project has node_modules/xborder-wasm (the packed tarball) and, as
//   devDependencies, vite, webpack, webpack-dev-server, next, react and react-dom (test.sh's
//   dev_deps); names: vite-dev vite-dev-workspace vite-build webpack-dev webpack-build webpack-no-wasm next-dev
//   next-build next-route-dev next-route-build (vite-dev-workspace: an app in a workspace that
//   hoisted the package above it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium, startServer } from '../../tests/runners/browser/harness.mjs';

const scratch = process.argv[2] && resolve(process.argv[2]);
if (!scratch) throw new Error('usage: node devservers.mjs <scratch project> [name...]');
const only = process.argv.slice(3);
const requireApp = createRequire(join(scratch, 'package.json'));
const bin = (pkg, path) => join(scratch, 'node_modules', pkg, path);

// What the page validates, and the Node module's answer for it (the same package, its node
// export): the browser's module must answer alike under every server.
const DRAFTS = [
  { country: 'US' },
  { country: 'GB', ownerType: 'individual', paymentType: 'bank_account', paymentInfo: { iban: 'GB82 WEST 1234 5698 7654 32' } },
];
const forms = await import(pathToFileURL(requireApp.resolve('xborder-wasm/forms')).href);
await forms.init();
const EXPECTED = DRAFTS.map((d) => forms.validateBeneficiary(d));
assert.equal(EXPECTED[0].valid, false);
assert.ok(EXPECTED[0].issues.some((i) => i.code === 'REQUIRED'), 'the empty draft is refused for missing fields');

// The page's code, the same under every bundler.
const VALIDATE = `
const DRAFTS = ${JSON.stringify(DRAFTS)};
function validateAll() {
  return init().then(
    () => { window.__result = DRAFTS.map((d) => validateBeneficiary(d)); },
    (e) => { window.__result = { error: String(e), code: e && e.code }; },
  );
}`;
const APP = `import { init, validateBeneficiary } from 'xborder-wasm/forms';
${VALIDATE}
validateAll();
`;

const NEXT_LAYOUT = `export default function RootLayout({ children }) {
  return <html lang="en"><body>{children}</body></html>;
}
`;
const NEXT_PAGE = `'use client';
import { useEffect, useState } from 'react';
import { init, validateBeneficiary } from 'xborder-wasm/forms';
${VALIDATE}
export default function Page() {
  const [state, setState] = useState('loading');
  useEffect(() => { validateAll().then(() => setState('validated')); }, []);
  return <main><h1>Beneficiary</h1><p id="state">{state}</p></main>;
}
`;

// A route handler (server side, the full package): verifies a signed webhook body with the
// request's headers and validates the beneficiary it carries; a body whose signature does not
// match is refused with its code. What it answers must be the Node module's answer.
const SECRET = 'whsec_devservers';
const NEXT_ROUTE = `import { verify, decodeEnvelope, validateBeneficiary } from 'xborder-wasm';
export const dynamic = 'force-dynamic';
export async function POST(request) {
  const body = await request.text();
  try {
    verify(${JSON.stringify(SECRET)}, body, request.headers);
  } catch (e) {
    return Response.json({ refused: e.code }, { status: 400 });
  }
  const envelope = decodeEnvelope(body);
  return Response.json({ event: envelope.event, validation: validateBeneficiary(envelope.data) });
}
`;
const DELIVERY = JSON.stringify({ id: 'evt_1', event: 'beneficiary:created', entity: { id: 'ben_1', type: 'beneficiary', data: DRAFTS[1] } });
const nodeFull = requireApp('xborder-wasm');
const ROUTE_EXPECTED = { event: 'beneficiary:created', validation: nodeFull.validateBeneficiary(DRAFTS[1]) };

/** Posts the signed delivery, then a tampered one, to the route handler; checks both answers. */
async function checkRoute(origin, name) {
  const post = (body, signature) => fetch(`${origin}/api/webhook`, {
    method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
    signal: AbortSignal.timeout(120_000),
  });
  const ok = await post(DELIVERY, nodeFull.sign(SECRET, DELIVERY));
  const answer = await ok.text();
  assert.equal(ok.status, 200, `${name}: the route handler's answer: ${answer.slice(0, 2000)}`);
  assert.deepEqual(JSON.parse(answer), ROUTE_EXPECTED, `${name}: the route handler's answer is the Node module's`);
  const tampered = await post(DELIVERY.replace('ben_1', 'ben_2'), nodeFull.sign(SECRET, DELIVERY));
  assert.equal(tampered.status, 400, `${name}: a tampered body is refused`);
  assert.deepEqual(await tampered.json(), { refused: 'SIGNATURE_MISMATCH' }, `${name}: a tampered body's code`);
}

/** A free loopback port. */
function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/**
 * Runs `args` (node + a CLI script) in its own process group; returns { done, stop, output }.
 * `stop()` sends SIGTERM to the group, then SIGKILL after 5 s; it always resolves.
 */
function startProcess(args, cwd, env = {}) {
  const child = spawn(process.execPath, args, {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', BROWSER: 'none', ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const done = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  let exited = false;
  done.then(() => { exited = true; });
  const kill = (sig) => { try { process.kill(-child.pid, sig); } catch { /* gone */ } };
  return {
    done,
    output: () => output,
    async stop() {
      if (!exited) kill('SIGTERM');
      const killed = await Promise.race([done.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
      if (!killed) kill('SIGKILL');
      kill('SIGKILL'); // children left behind by the CLI (esbuild, next's workers)
      await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
    },
  };
}

/** Runs a build command to its end (bounded by `ms`); throws with its output on failure. */
async function runToEnd(args, cwd, ms) {
  const p = startProcess(args, cwd);
  const timer = new Promise((r) => setTimeout(() => r('timeout'), ms));
  const end = await Promise.race([p.done, timer]);
  if (end === 'timeout') {
    await p.stop();
    throw new Error(`${args.join(' ')}: still running after ${ms} ms\n${p.output()}`);
  }
  if (end.code !== 0) throw new Error(`${args.join(' ')}: exit ${end.code ?? end.signal}\n${p.output()}`);
}

/** Waits until `url` answers (any HTTP status) or `ms` passed or the process ended. */
async function waitForUrl(url, proc, ms) {
  const deadline = Date.now() + ms;
  let ended = false;
  proc.done.then(() => { ended = true; });
  while (Date.now() < deadline && !ended) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
      await r.arrayBuffer();
      return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url}: no answer within ${ms} ms${ended ? ' (the server exited)' : ''}\n${proc.output()}`);
}

// Each case: prepare (files, builds) and serve; returns { url, stop }.
const CASES = {
  async 'vite-dev'() {
    await writeVite();
    // A fresh dependency cache: the pre-bundling is what is tested.
    await rm(join(scratch, 'node_modules/.vite'), { recursive: true, force: true });
    const port = await freePort();
    const p = startProcess([bin('vite', 'bin/vite.js'), '--port', String(port), '--strictPort', '--host', '127.0.0.1', '--clearScreen', 'false'], scratch);
    return { url: `http://127.0.0.1:${port}/`, proc: p, ready: 60_000 };
  },
  async 'vite-dev-workspace'() {
    // A workspace that hoisted the package: the app (its own package.json, so its own
    // node_modules/.vite) resolves xborder-wasm from the scratch's node_modules above it. The
    // workspace file is what makes the scratch the workspace root for Vite (server.fs.allow);
    // npm ignores it.
    await writeFile(join(scratch, 'pnpm-workspace.yaml'), 'packages:\n  - workspace-app\n');
    const app = join(scratch, 'workspace-app');
    await mkdir(app, { recursive: true });
    await writeFile(join(app, 'package.json'), '{ "name": "workspace-app", "private": true, "type": "module" }');
    await writeVite(app);
    await rm(join(app, 'node_modules'), { recursive: true, force: true });
    const port = await freePort();
    const p = startProcess([bin('vite', 'bin/vite.js'), '--port', String(port), '--strictPort', '--host', '127.0.0.1', '--clearScreen', 'false'], app);
    return { url: `http://127.0.0.1:${port}/`, proc: p, ready: 60_000 };
  },
  async 'vite-build'() {
    await writeVite();
    await runToEnd([bin('vite', 'bin/vite.js'), 'build', '--outDir', 'dist-vite', '--emptyOutDir'], scratch, 180_000);
    const port = await freePort();
    const p = startProcess([bin('vite', 'bin/vite.js'), 'preview', '--outDir', 'dist-vite', '--port', String(port), '--strictPort', '--host', '127.0.0.1'], scratch);
    return { url: `http://127.0.0.1:${port}/`, proc: p, ready: 30_000 };
  },
  async 'webpack-dev'() {
    await writeWebpack();
    const port = await freePort();
    const p = startProcess([join(scratch, 'webpack-dev.cjs'), String(port)], scratch);
    return { url: `http://127.0.0.1:${port}/`, proc: p, ready: 120_000 };
  },
  async 'webpack-build'() {
    await writeWebpack();
    await runToEnd([join(scratch, 'webpack-build.cjs')], scratch, 180_000);
    const server = await startServer({ '/': join(scratch, 'dist-webpack') });
    return { url: `${server.origin}/index.html`, server };
  },
  // The webpack build served as a dev server serves a path it has no file for (its index.html,
  // 200): the .wasm is not there. init() rejects with WASM_LOAD_FAILED saying what came instead,
  // in Chromium (the page records the error).
  async 'webpack-no-wasm'() {
    await writeWebpack();
    await runToEnd([join(scratch, 'webpack-build.cjs')], scratch, 180_000);
    const dist = join(scratch, 'dist-webpack');
    const files = new Set((await readdir(dist)).filter((f) => !f.endsWith('.wasm')));
    const http = createHttpServer(async (req, res) => {
      const name = new URL(req.url, 'http://x').pathname.slice(1) || 'index.html';
      const file = files.has(name) ? name : 'index.html';
      const type = file.endsWith('.js') ? 'text/javascript' : 'text/html';
      res.writeHead(200, { 'content-type': type }).end(await readFile(join(dist, file)));
    });
    await new Promise((done) => http.listen(0, '127.0.0.1', done));
    const server = { close: () => new Promise((done) => http.close(done)) };
    const expect = (result) => {
      assert.equal(result.code, 'WASM_LOAD_FAILED', result.error);
      const origin = `http://127.0.0.1:${http.address().port}/`;
      assert.match(result.error, new RegExp(`put it: ${origin}[0-9a-f]+\\.wasm, HTTP 200, text/html\\) failed: CompileError`), 'the URL, status and type fetched');
      for (const part of ['(forms/xborder_wasm_bg.wasm)', 'from its default location', 'CompileError', '(the bytes begin "<!do")', 'init(url)', '"Bundlers and dev servers"']) {
        assert.ok(result.error.includes(part), `no ${part} in: ${result.error}`);
      }
    };
    return { url: `http://127.0.0.1:${http.address().port}/`, server, expect };
  },
  // A page whose client component validates a form: no config line.
  'next-dev': () => nextDev({ route: false }),
  'next-build': () => nextBuild({ route: false }),
  // The same app with a route handler using the full package (server side): Next.js 16 with the
  // README's line.
  'next-route-dev': () => nextDev({ route: true }),
  'next-route-build': () => nextBuild({ route: true }),
};

async function nextDev({ route }) {
  await writeNext({ route });
  await rm(join(scratch, '.next'), { recursive: true, force: true });
  const port = await freePort();
  const p = startProcess([bin('next', 'dist/bin/next'), 'dev', '-p', String(port), '-H', '127.0.0.1'], scratch);
  // next dev compiles the page on its first request: a long wait, bounded.
  return { url: `http://127.0.0.1:${port}/`, proc: p, ready: 120_000, load: 180_000, route };
}

async function nextBuild({ route }) {
  await writeNext({ route });
  await rm(join(scratch, '.next'), { recursive: true, force: true });
  await runToEnd([bin('next', 'dist/bin/next'), 'build'], scratch, 300_000);
  const port = await freePort();
  const p = startProcess([bin('next', 'dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'], scratch);
  return { url: `http://127.0.0.1:${port}/`, proc: p, ready: 60_000, route };
}

async function writeVite(dir = scratch) {
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>form</title><script type="module" src="/vite-main.js"></script>');
  await writeFile(join(dir, 'vite-main.js'), APP);
}

async function writeWebpack() {
  await mkdir(join(scratch, 'webpack-src'), { recursive: true });
  await writeFile(join(scratch, 'webpack-src/main.js'), APP);
  const config = (mode, out) => `{
  mode: '${mode}',
  context: __dirname,
  entry: './webpack-src/main.js',
  output: { path: require('node:path').join(__dirname, '${out}'), filename: 'main.js', clean: true },
  performance: { hints: false },
}`;
  // As its user runs them: webpack's API and webpack-dev-server's (what \`webpack serve\` calls).
  await writeFile(join(scratch, 'webpack-build.cjs'), `const webpack = require('webpack');
const fs = require('node:fs');
webpack(${config('production', 'dist-webpack')}, (err, stats) => {
  if (err || stats.hasErrors()) { console.error(err || stats.toString('errors-only')); process.exit(1); }
  fs.writeFileSync(require('node:path').join(__dirname, 'dist-webpack/index.html'), '<!doctype html><title>form</title><script src="main.js"></script>');
});
`);
  await mkdir(join(scratch, 'webpack-public'), { recursive: true });
  await writeFile(join(scratch, 'webpack-public/index.html'), '<!doctype html><title>form</title><script src="/main.js"></script>');
  await writeFile(join(scratch, 'webpack-dev.cjs'), `const webpack = require('webpack');
const Server = require('webpack-dev-server');
const compiler = webpack(${config('development', 'dist-webpack-dev')});
const server = new Server({ host: '127.0.0.1', port: Number(process.argv[2]),
  static: { directory: require('node:path').join(__dirname, 'webpack-public') } }, compiler);
server.start();
`);
}

// The page needs no config line (the server render of its client component takes the browser
// module, which loads nothing before init(): the `webpack` condition in Next.js 15, `module` in
// Turbopack). The package in server code (a route handler) needs the one line the README gives,
// written exactly so: Next.js bundles the Node entry (webpack and Turbopack alike) and does not
// copy the .wasm it reads, ENOENT at `next build` without it.
const NEXT_CONFIG = "export default { serverExternalPackages: ['xborder-wasm'] };\n";

async function writeNext({ route = false } = {}) {
  if (route) await writeFile(join(scratch, 'next.config.mjs'), NEXT_CONFIG);
  else await rm(join(scratch, 'next.config.mjs'), { force: true });
  await rm(join(scratch, 'app/api'), { recursive: true, force: true });
  await mkdir(join(scratch, 'app'), { recursive: true });
  await writeFile(join(scratch, 'app/layout.js'), NEXT_LAYOUT);
  await writeFile(join(scratch, 'app/page.js'), NEXT_PAGE);
  if (!route) return;
  await mkdir(join(scratch, 'app/api/webhook'), { recursive: true });
  await writeFile(join(scratch, 'app/api/webhook/route.js'), NEXT_ROUTE);
}

const browser = await launchChromium();
const timings = [];
let failed = 0;
try {
  for (const name of Object.keys(CASES)) {
    if (only.length && !only.includes(name)) continue;
    const started = Date.now();
    let served;
    try {
      served = await CASES[name]();
      if (served.proc) await waitForUrl(served.url, served.proc, served.ready);
      const page = await browser.newPage();
      try {
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(served.url, { timeout: served.load ?? 60_000 });
        await page.waitForFunction(() => window.__result !== undefined, null, { timeout: served.load ?? 60_000 })
          .catch((e) => { throw new Error(`${e.message}; page errors: ${errors.join(' | ')}`); });
        const result = await page.evaluate(() => window.__result);
        if (served.expect) served.expect(result);
        else assert.deepEqual(result, EXPECTED, `${name}: the page's answers are the Node module's`);
        assert.deepEqual(errors, [], `${name}: no page error`);
      } finally {
        await page.close();
      }
      if (served.route) await checkRoute(new URL(served.url).origin, name);
      const s = ((Date.now() - started) / 1000).toFixed(1);
      timings.push(`${name} ${s}s`);
      console.log(`devservers: ${name}: ok (${s} s)`);
    } catch (e) {
      failed += 1;
      console.log(`devservers: ${name}: FAILED: ${e.stack ?? e}`);
      if (served?.proc) console.log(`--- ${name} server output ---\n${served.proc.output().slice(-4000)}`);
    } finally {
      await served?.proc?.stop();
      await served?.server?.close();
    }
  }
} finally {
  await browser.close();
}
console.log(`devservers: ${timings.join(', ')}`);
process.exit(failed ? 1 : 0);
