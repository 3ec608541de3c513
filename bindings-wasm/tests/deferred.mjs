// The module loaded after first paint (README "Loading after first paint"): the README's
// ```html page and ```js page blocks, as written, built by Vite for production, served by a
// server that holds the .wasm back (at least HOLD_MS, and until the test has typed), run in
// headless Chromium:
// - idle: the page loads the module when idle, with nobody touching it; the .wasm is asked for
//   and held; the test types a wrong IBAN meanwhile: the field takes it, nothing is checked;
//   once the .wasm is let go, the page checks what was typed (the message is checkAccount's, as
//   Node's module gives it) and keeps checking what is typed next;
// - focus: the browser never idle (requestIdleCallback never calls back): no chunk of the module
//   and no .wasm is asked for until a field is focused; then as above.
// Measured in the page, on its own clock (the Performance API): first-contentful-paint, the first
// input event, the end of the .wasm response (resource timing) and the first check shown; the
// test asserts their order (painted and typed into before the .wasm arrived, checked after),
// never their absolute times. Printed with the JavaScript of the first paint (index.html's
// script, gzip -9) against what is loaded after it (the module's chunk and the .wasm).
// Usage: node deferred.mjs <scratch project with node_modules/xborder-wasm> <README.md>
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../../tests/runners/browser/harness.mjs';

const HOLD_MS = 1500; // the .wasm is answered no sooner than this after it is asked for
const scratch = process.argv[2] && resolve(process.argv[2]);
const readmePath = process.argv[3];
const tools = process.env.XBORDER_NODE_TOOLS;
if (!scratch || !readmePath || !tools) throw new Error('usage: XBORDER_NODE_TOOLS=... node deferred.mjs <scratch> <README.md>');
const README = await readFile(readmePath, 'utf8');
const fence = (lang) => [...README.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]);
const only = (lang) => {
  const blocks = fence(lang);
  assert.equal(blocks.length, 1, `the README has one \`\`\`${lang} block`);
  return blocks[0];
};
const HTML = only('html page');
const MAIN = only('js page');
assert.match(HTML, /src="\.\/main\.js"/, 'the ```html page block loads ./main.js');
assert.doesNotMatch(MAIN, /^import\b/m, 'the ```js page block imports nothing statically');

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const fmt = (n) => Math.round(n).toLocaleString('en-US');

// What the page must show for the IBAN typed before the module arrived: Node's module's answer.
const requireApp = createRequire(join(scratch, 'package.json'));
const node = await import(pathToFileURL(requireApp.resolve('xborder-wasm/forms')).href);
await node.init();
const TYPED = 'DE89 3704 0044 0532 0130 01'; // one digit off: the check digits
const GOOD = 'DE89 3704 0044 0532 0130 00';
const EXPECTED = node.checkAccount('iban', TYPED);
assert.equal(EXPECTED.state, 'invalid');
assert.equal(node.checkAccount('iban', GOOD).state, 'complete');

// The page, built by Vite for production.
const dir = join(scratch, 'app-deferred');
await rm(dir, { recursive: true, force: true });
await mkdir(dir, { recursive: true });
await writeFile(join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><title>Beneficiary</title>\n${HTML}`);
await writeFile(join(dir, 'main.js'), MAIN);
const vite = await import(pathToFileURL(createRequire(join(tools, 'package.json')).resolve('vite')).href);
await vite.build({ root: dir, configFile: false, logLevel: 'warn', build: { outDir: join(dir, 'dist'), emptyOutDir: true, target: 'es2022' } });
const dist = join(dir, 'dist');
const built = (await readdir(dist, { recursive: true })).filter((f) => /\.(js|wasm|html)$/.test(f));
const html = await readFile(join(dist, 'index.html'), 'utf8');
const entry = built.filter((f) => f.endsWith('.js') && html.includes(`/${f}`));
const later = built.filter((f) => (f.endsWith('.js') && !entry.includes(f)) || f.endsWith('.wasm'));
assert.equal(entry.length, 1, `index.html loads one script: ${entry} (built: ${built})`);
assert.equal(later.filter((f) => f.endsWith('.wasm')).length, 1, `the .wasm is emitted: ${built}`);
assert.ok(later.some((f) => f.endsWith('.js')), `the module is a chunk of its own: ${built}`);
const size = async (files) => (await Promise.all(files.map(async (f) => gz(await readFile(join(dist, f)))))).reduce((a, b) => a + b, 0);
const htmlGz = await size(['index.html']);
const entryGz = await size(entry);
const laterGz = await size(later);
// The first paint's script is the form's own and Vite's loader of the chunk (the README's "under
// 2 KiB"): nothing of the package.
const entryCode = await readFile(join(dist, entry[0]), 'utf8');
assert.doesNotMatch(entryCode, /NOT_INITIALIZED|checkAccount\(\w*\)\s*\{|WebAssembly/, `${entry[0]} holds nothing of the package`);
assert.ok(entryGz <= 2048, `the first paint's script is ${entryGz} B gzipped: over the README's 2 KiB`);

/**
 * Serves dist; a .wasm is answered once HOLD_MS have passed since it was asked for and the test
 * called release() (30 s at most). `log` lists the paths asked for, in order.
 */
async function serve() {
  const log = [];
  let release;
  const released = new Promise((r) => { release = r; });
  const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };
  const state = { wasmAsked: false, wasmSent: false };
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    log.push(path);
    if (path === '/favicon.ico') { res.writeHead(204).end(); return; } // Chromium asks; nothing to show
    const file = normalize(join(dist, path === '/' ? 'index.html' : path));
    let body;
    try {
      if (!file.startsWith(dist)) throw new Error('outside');
      body = await readFile(file);
    } catch {
      res.writeHead(404).end();
      return;
    }
    if (file.endsWith('.wasm')) {
      state.wasmAsked = true;
      const held = new Promise((r) => setTimeout(r, HOLD_MS));
      await Promise.race([Promise.all([held, released]), new Promise((r) => setTimeout(r, 30_000))]);
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(body, () => { if (file.endsWith('.wasm')) state.wasmSent = true; });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    log,
    state,
    release,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

// Recorded in the page from its start, on its clock: the first input event, the first check
// shown (the <output>'s text); paint and resource timing are the browser's own.
const PROBE = () => {
  window.__t = {};
  document.addEventListener('input', () => { window.__t.input ??= performance.now(); }, true);
  new MutationObserver(() => {
    const out = document.querySelector('output');
    if (out && out.textContent !== '' && window.__t.check === undefined) window.__t.check = performance.now();
  }).observe(document, { subtree: true, childList: true, characterData: true });
};
const NEVER_IDLE = () => { window.requestIdleCallback = () => 0; };

const waitFor = async (what, cond, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const browser = await launchChromium();
const figures = [];
try {
  for (const name of ['idle', 'focus']) {
    const server = await serve();
    const page = await browser.newPage();
    try {
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      await page.addInitScript(PROBE);
      if (name === 'focus') await page.addInitScript(NEVER_IDLE);
      await page.goto(server.url);
      const input = page.locator('input[name=iban]');
      if (name === 'idle') {
        // Nobody touches the page: it asks for the module by itself.
        await waitFor('idle: the .wasm asked for', () => server.state.wasmAsked);
      } else {
        await page.waitForTimeout(300);
        assert.deepEqual(server.log.filter((p) => later.some((f) => p === `/${f}`)), [],
          'focus: no chunk of the module and no .wasm asked for before a field is focused');
        await input.focus();
        await waitFor('focus: the .wasm asked for after the focus', () => server.state.wasmAsked);
      }
      // The .wasm is held: the field takes typing, nothing is checked yet.
      await input.pressSequentially(TYPED);
      assert.equal(await input.inputValue(), TYPED, `${name}: the field took what was typed before the .wasm arrived`);
      assert.equal(await page.locator('output').textContent(), '', `${name}: nothing checked before the module is there`);
      assert.equal(server.state.wasmSent, false, `${name}: typed while the .wasm was held`);
      server.release();
      // Once loaded, what was typed before is checked, and what is typed next.
      await page.waitForFunction(() => document.querySelector('output').textContent !== '', null, { timeout: 20_000 });
      assert.equal(await page.locator('output').textContent(), EXPECTED.message, `${name}: the check of the IBAN typed before, as Node's module gives it`);
      assert.equal(await input.getAttribute('aria-invalid'), 'true');
      await input.fill(GOOD);
      assert.equal(await page.locator('output').textContent(), '', `${name}: a correct IBAN, nothing shown`);
      assert.equal(await input.getAttribute('aria-invalid'), 'false');
      const t = await page.evaluate(() => ({
        ...window.__t,
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
        wasm: performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'))?.responseEnd,
      }));
      for (const k of ['fcp', 'input', 'wasm', 'check']) assert.equal(typeof t[k], 'number', `${name}: ${k} measured (${JSON.stringify(t)})`);
      assert.ok(t.fcp < t.wasm, `${name}: painted (${t.fcp} ms) before the .wasm arrived (${t.wasm} ms)`);
      assert.ok(t.input < t.wasm, `${name}: typed into (${t.input} ms) before the .wasm arrived (${t.wasm} ms)`);
      assert.ok(t.wasm <= t.check, `${name}: checked (${t.check} ms) once the .wasm arrived (${t.wasm} ms)`);
      assert.deepEqual(errors, [], `${name}: no error in the page`);
      figures.push(`${name}: painted at ${fmt(t.fcp)} ms, typed into at ${fmt(t.input)} ms, .wasm arrived at ${fmt(t.wasm)} ms, first check at ${fmt(t.check)} ms`);
    } finally {
      await page.close();
      await server.close();
    }
  }
} finally {
  await browser.close();
}
for (const f of figures) console.log(`deferred: ${f} (the .wasm held ${fmt(HOLD_MS)} ms and until typed)`);
console.log(`deferred: JS before first paint ${fmt(entryGz)} B gzipped (${entry.join(', ')}; index.html ${fmt(htmlGz)} B); loaded after it: ${fmt(laterGz)} B (${later.join(', ')})`);
console.log('deferred: ok');
