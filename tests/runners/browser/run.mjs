// Browser runner: serves the scratch project (node_modules/xborder-wasm from the tarball), the
// shared case logic and the vectors (the folders' and the single files', as the Node runner reads
// them: ../node/files.mjs), and runs them in a page of headless Chromium.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, startServer } from './harness.mjs';
import { vectorFiles } from '../node/files.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [scratch, dirs, singles, own] = process.argv.slice(2);
const files = vectorFiles(dirs, singles, own);

const page = `<!doctype html>
<meta charset="utf-8">
<title>xborder-wasm conformance</title>
<script type="importmap">{ "imports": { "xborder-wasm": "/node_modules/xborder-wasm/web.js" } }</script>
<script type="module">
  import * as xb from 'xborder-wasm';
  import { runVectors } from '/conformance.mjs';
  try {
    await xb.init();
    const files = await (await fetch('/vectors.json')).json();
    // The claims vectors also run with a synchronous store written in JS (the Node runner's is async).
    window.__result = await runVectors(xb, files, { asyncStore: false });
  } catch (e) {
    window.__result = { error: String(e && e.stack || e) };
  }
</script>`;

const server = await startServer({
  '/': { type: 'text/html; charset=utf-8', body: page },
  '/conformance.mjs': { type: 'text/javascript', body: readFileSync(join(here, '../node/conformance.mjs')) },
  '/vectors.json': { type: 'application/json', body: JSON.stringify(files) },
  '/node_modules/': join(scratch, 'node_modules'),
});
const browser = await launchChromium();
let result;
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  tab.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await tab.goto(`${server.origin}/`);
  await tab.waitForFunction(() => window.__result !== undefined, null, { timeout: 120_000 });
  result = await tab.evaluate(() => window.__result);
  if (result.error) throw new Error(`the page failed: ${result.error}\n${errors.join('\n')}`);
  console.error(`browser: ${await browser.version()}, ${files.length} vector files`);
} finally {
  await browser.close();
  await server.close();
}
for (const line of result.lines) console.log(line);
process.exitCode = result.failed > 0 ? 1 : 0;
