// The packed package through the two bundlers most web apps use, as a frontend would: an app
// that imports `xborder-wasm` is built for production by webpack 5 and by Vite, each output is
// served over HTTP and run in headless Chromium. The bundler must have followed the package's
// `browser` export and emitted the .wasm it references (`new URL(..., import.meta.url)`); the
// app then verifies, decodes, validates and builds a query, and catches an XborderError.
// Usage: node bundlers.mjs <scratch project with node_modules/xborder-wasm>
// webpack and vite come from the toolchain's node-tools (XBORDER_NODE_TOOLS).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium, startServer } from '../../tests/runners/browser/harness.mjs';

const scratch = process.argv[2] && resolve(process.argv[2]);
const tools = process.env.XBORDER_NODE_TOOLS;
if (!scratch || !tools) throw new Error('usage: XBORDER_NODE_TOOLS=... node bundlers.mjs <scratch>');
const requireTool = createRequire(join(tools, 'package.json'));

const APP = `
import { init, classifyEvent, sign, verify, decodeEnvelope, validateBeneficiary, listQuery, XborderError } from 'xborder-wasm';

init().then(() => {
  const body = '{"id":"evt_1","event":"order:success","entity":{"id":"ord_1","type":"order","data":{"amount":"10.00"}}}';
  const signature = sign('whsec_k', body);
  verify('whsec_k', body, signature);
  let code = null;
  try { verify('whsec_k', body + ' ', signature); } catch (e) { code = e instanceof XborderError ? e.code : String(e); }
  const env = decodeEnvelope(body);
  window.__result = {
    kind: classifyEvent(env.event).kind,
    id: env.id,
    amount: env.data.amount,
    code,
    valid: validateBeneficiary({ country: 'US' }).valid,
    query: listQuery({ page: 2, search: 'a b' }),
  };
}, (e) => { window.__result = { error: String(e) }; });
`;
const EXPECTED = {
  kind: 'live', id: 'evt_1', amount: '10.00', code: 'SIGNATURE_MISMATCH', valid: false,
  query: 'page=2&pageSize=10&sortBy=createdAt&sortOrder=DESC&search=a%20b',
};

async function webpackBuild(dir) {
  const webpack = requireTool('webpack');
  await writeFile(join(dir, 'main.js'), APP);
  const stats = await new Promise((resolve, reject) => webpack({
    mode: 'production',
    context: dir,
    entry: './main.js',
    output: { path: join(dir, 'dist'), filename: 'main.js', clean: true },
    resolve: { modules: [join(scratch, 'node_modules')] },
    performance: { hints: false },
  }, (err, s) => (err ? reject(err) : resolve(s))));
  if (stats.hasErrors()) throw new Error(stats.toString('errors-only'));
  await writeFile(join(dir, 'dist/index.html'), '<!doctype html><script src="main.js"></script>');
  return join(dir, 'dist');
}

async function viteBuild(dir) {
  const vite = await import(pathToFileURL(requireTool.resolve('vite')).href);
  await writeFile(join(dir, 'main.js'), APP);
  await writeFile(join(dir, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>');
  await vite.build({
    root: dir,
    configFile: false,
    logLevel: 'warn',
    resolve: { preserveSymlinks: false },
    build: { outDir: join(dir, 'dist'), emptyOutDir: true },
  });
  return join(dir, 'dist');
}

const browser = await launchChromium();
let failed = 0;
try {
  for (const [name, build] of [['webpack', webpackBuild], ['vite', viteBuild]]) {
    // The app lives inside the scratch project, so `xborder-wasm` resolves as a user's would.
    const dir = join(scratch, `app-${name}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    try {
      const dist = await build(dir);
      const files = await readdir(dist, { recursive: true });
      const wasm = files.filter((f) => f.endsWith('.wasm'));
      assert.equal(wasm.length, 1, `${name} emitted the .wasm: ${files.join(', ')}`);
      const server = await startServer({ '/': dist });
      try {
        const page = await browser.newPage();
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(`${server.origin}/index.html`);
        await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30_000 }).catch((e) => { throw new Error(`${e.message}; page errors: ${errors.join(" | ")}`); });
        const result = await page.evaluate(() => window.__result);
        assert.deepEqual(errors, []);
        assert.deepEqual(result, EXPECTED);
        await page.close();
      } finally {
        await server.close();
      }
      console.log(`bundlers: ${name}: ok (built ${files.length} files, ${wasm[0]}; ran in Chromium)`);
    } catch (e) {
      failed += 1;
      console.log(`bundlers: ${name}: FAILED: ${e.stack ?? e}`);
    }
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
