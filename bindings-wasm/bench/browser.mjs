// Benchmarks of the npm package in a browser (headless Chromium through playwright-core, as the
// browser runner runs it): the web build (`xborder-wasm/web`) in a page, timed with
// performance.now(). Measured, never tested: bash bindings-wasm/bench/bench.sh runs it after the
// Node benchmarks when the toolchain's browser is there.
// Usage: node browser.mjs <scratch project with node_modules/xborder-wasm>
import { join, resolve } from 'node:path';
import { launchChromium, startServer } from '../../tests/runners/browser/harness.mjs';

const scratch = resolve(process.argv[2]);
// The page: each case warmed up (20k calls), then 7 rounds of 200k calls; the median ns/call.
const page = `<!doctype html>
<meta charset="utf-8">
<script type="importmap">{ "imports": { "xborder-wasm": "/node_modules/xborder-wasm/web.js" } }</script>
<script type="module">
  import * as xb from 'xborder-wasm';
  await xb.init();
  const IBAN = 'DE89370400440532013000';
  const cases = [
    ['checkAccount, iban (complete)', () => xb.checkAccount('iban', IBAN)],
    ['checkAccount, iban (typing: "de89 3704")', () => xb.checkAccount('iban', 'de89 3704')],
    ['checkAccount, iban (invalid: too long)', () => xb.checkAccount('iban', IBAN + '1')],
    ['classifyEvent', () => xb.classifyEvent('order:created')],
  ];
  const rows = [];
  for (const [name, f] of cases) {
    for (let i = 0; i < 20000; i++) f();
    const rounds = [];
    for (let r = 0; r < 7; r++) {
      const n = 200000;
      const t = performance.now();
      for (let i = 0; i < n; i++) f();
      rounds.push(((performance.now() - t) * 1e6) / n);
    }
    rounds.sort((a, b) => a - b);
    rows.push([name, rounds[3]]);
  }
  window.__rows = rows;
</script>`;

const server = await startServer({
  '/': { type: 'text/html; charset=utf-8', body: page },
  '/node_modules/': join(scratch, 'node_modules'),
});
const browser = await launchChromium();
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  await tab.goto(`${server.origin}/`);
  await tab.waitForFunction(() => window.__rows !== undefined || false, null, { timeout: 300_000 }).catch((e) => {
    throw new Error(`${e.message}\n${errors.join('\n')}`);
  });
  const rows = await tab.evaluate(() => window.__rows);
  console.log(`chromium ${await browser.version()} (headless), web build, 200k calls a round, median of 7`);
  for (const [name, ns] of rows) {
    console.log(`${`browser: ${name}`.padEnd(53)} ${(ns / 1000).toFixed(2).padStart(8)} µs  ${Math.round(1e9 / ns).toLocaleString('en').padStart(12)}/s`);
  }
} finally {
  await browser.close();
  await server.close();
}
