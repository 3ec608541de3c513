// What validation adds to a Vite production page, in one run (issue 32's table; BENCHMARKS.md's
// page rows): the same beneficiary form (a bank, an IBAN, a BIC; DE) built four times by Vite for
// production, each run in headless Chromium, its validation shown as the user types:
//   none          the form without validation (what the others are measured against)
//   forms         validateBeneficiary from `xborder-wasm/forms`
//   full          validateBeneficiary from `xborder-wasm` (the full module)
//   handwritten   checks written by hand, with `ibantools` (npm) for the IBAN and the BIC
// A page's weight is gzip -9 of every file Chromium loaded for it (as bindings-wasm/tests/forms.mjs
// measures the forms page); what validation adds is a page's weight minus the `none` page's.
// Each validating page must flag a wrong IBAN and pass a right one, or the run fails.
// Measured, never a test: bindings-wasm/bench/pages.sh runs it (and tests/bench/run.sh does);
// the figures go to the JSON file given, which tests/bench/report.py writes into BENCHMARKS.md.
// Usage: node pages.mjs <scratch project with node_modules/xborder-wasm and ibantools> <out.json>
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { launchChromium, startServer } from '../../tests/runners/browser/harness.mjs';

const scratch = process.argv[2] && resolve(process.argv[2]);
const out = process.argv[3] && resolve(process.argv[3]);
const tools = process.env.XBORDER_NODE_TOOLS;
if (!scratch || !out || !tools) throw new Error('usage: XBORDER_NODE_TOOLS=... node pages.mjs <scratch> <out.json>');
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const requireTools = createRequire(join(tools, 'package.json'));

// The page's code around its validation: the same for the four pages.
const page = (head, validate) => `${head}
const form = document.querySelector('form');
function show() {
  const d = Object.fromEntries(new FormData(form));
  const draft = {
    country: 'DE', ownerType: 'individual', paymentType: 'bank_account',
    paymentInfo: { bankId: d.bankId, accountNumber: d.iban, ...(d.bic ? { bic: d.bic } : {}) },
  };
  const issues = ${validate};
  document.querySelector('output').textContent = issues.map((i) => i.message).join('; ');
  window.__issues = issues.map((i) => i.code);
}
form.addEventListener('input', show);
window.__ready = true;
`;
// The checks validateBeneficiary makes on this form, written by hand with ibantools.
const HANDWRITTEN = `import { electronicFormatIBAN, extractIBAN, isValidBIC } from 'ibantools';

const REQUIRED = 'this field is required: fill it in';
function validate(draft) {
  const p = draft.paymentInfo;
  const issues = [];
  if (!p.bankId) issues.push({ path: 'paymentInfo.bankId', code: 'REQUIRED', message: REQUIRED });
  const iban = electronicFormatIBAN(p.accountNumber ?? '') ?? '';
  if (iban === '') issues.push({ path: 'paymentInfo.accountNumber', code: 'REQUIRED', message: REQUIRED });
  else {
    const e = extractIBAN(iban);
    if (!e.valid) issues.push({ path: 'paymentInfo.accountNumber', code: 'INVALID_IBAN', message: 'this IBAN is not valid: look for a mistyped character' });
    else if (e.countryCode !== draft.country) issues.push({ path: 'paymentInfo.accountNumber', code: 'INVALID_IBAN', message: 'this IBAN is from another country' });
  }
  if (p.bic && !isValidBIC(p.bic.replace(/\\s/g, '').toUpperCase())) issues.push({ path: 'paymentInfo.bic', code: 'INVALID_BIC', message: 'this BIC is not valid' });
  return issues;
}`;
const PAGES = {
  none: page('', '[]'),
  forms: page("import { init, validateBeneficiary } from 'xborder-wasm/forms';\n\nawait init();", 'validateBeneficiary(draft).issues'),
  full: page("import { init, validateBeneficiary } from 'xborder-wasm';\n\nawait init();", 'validateBeneficiary(draft).issues'),
  handwritten: page(HANDWRITTEN, 'validate(draft)'),
};
const HTML = '<!doctype html><meta charset="utf-8"><title>Beneficiary</title><form><input name="bankId" value="bank_de_001"><input name="iban"><input name="bic"></form><output></output><script type="module" src="./main.js"></script>';

const vite = await import(pathToFileURL(requireTools.resolve('vite')).href);
const browser = await launchChromium();
const chromium = browser.version();
const results = {};
try {
  for (const [name, code] of Object.entries(PAGES)) {
    const dir = join(scratch, `page-${name}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'index.html'), HTML);
    await writeFile(join(dir, 'main.js'), code);
    await vite.build({ root: dir, configFile: false, logLevel: 'warn', build: { outDir: join(dir, 'dist'), emptyOutDir: true, target: 'es2022' } });
    const dist = join(dir, 'dist');
    const server = await startServer({ '/': dist });
    const tab = await browser.newPage();
    try {
      const loaded = new Set();
      const errors = [];
      tab.on('pageerror', (e) => errors.push(String(e)));
      tab.on('requestfinished', (r) => {
        const u = new URL(r.url());
        if (u.origin === server.origin) loaded.add(u.pathname === '/' ? '/index.html' : u.pathname);
      });
      await tab.goto(`${server.origin}/index.html`);
      await tab.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
      await tab.fill('input[name=iban]', 'DE89 3704 0044 0532 0130 01'); // one digit off
      const wrong = await tab.evaluate(() => window.__issues);
      await tab.fill('input[name=iban]', 'DE89 3704 0044 0532 0130 00');
      const right = await tab.evaluate(() => window.__issues);
      assert.deepEqual(errors, [], `${name}: no page error`);
      if (name !== 'none') {
        assert.deepEqual(wrong, ['INVALID_IBAN'], `${name}: the wrong IBAN is flagged`);
        assert.deepEqual(right, [], `${name}: the right IBAN passes`);
      }
      const files = {};
      let total = 0;
      for (const path of [...loaded].filter((p) => p !== '/favicon.ico').sort()) {
        const n = gz(await readFile(join(dist, path)));
        files[path.slice(1).replace(/-[\w-]{8}\./, '.')] = n; // without Vite's content hash
        total += n;
      }
      const built = (await readdir(dist, { recursive: true })).filter((f) => /\.(js|wasm)$/.test(f));
      for (const f of built) assert.ok(loaded.has(`/${f}`), `${name}: Chromium loaded ${f}`);
      results[name] = { gzipped: total, files };
    } finally {
      await tab.close();
      await server.close();
    }
  }
} finally {
  await browser.close();
}

const pkg = join(scratch, 'node_modules', 'xborder-wasm');
const wasm = async (path) => {
  const bytes = await readFile(join(pkg, path));
  return { raw: bytes.length, gzipped: gz(bytes) };
};
const report = {
  date: new Date().toISOString(),
  // What was measured: the commit (pages.sh gives it) and the tarball's digest (consumer.sh's).
  commit: process.env.XBORDER_PAGES_COMMIT || undefined,
  tarball: (await readFile(join(scratch, '.tarball'), 'utf8').catch(() => '')).trim() || undefined,
  versions: {
    'xborder-wasm': JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')).version,
    vite: vite.version,
    ibantools: JSON.parse(await readFile(join(scratch, 'node_modules', 'ibantools', 'package.json'), 'utf8')).version,
    chromium,
  },
  pages: results,
  added: Object.fromEntries(['forms', 'full', 'handwritten'].map((k) => [k, results[k].gzipped - results.none.gzipped])),
  wasm: { forms: await wasm('forms/xborder_wasm_bg.wasm'), web: await wasm('web/xborder_wasm_bg.wasm') },
};
await mkdir(resolve(out, '..'), { recursive: true });
await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
const B = (n) => `${n.toLocaleString('en-US')} B`;
console.log(`pages: the form without validation ${B(results.none.gzipped)} gzipped (${Object.entries(results.none.files).map(([f, n]) => `${f} ${B(n)}`).join(', ')})`);
for (const k of ['forms', 'full', 'handwritten']) {
  console.log(`pages: ${k}: +${B(report.added[k])} (${Object.entries(results[k].files).map(([f, n]) => `${f} ${B(n)}`).join(', ')})`);
}
console.log(`pages: written to ${out}`);
