// The forms module (`xborder-wasm/forms`), as a page that only validates a form would use it:
// 1. its exports: exactly the forms API, beneficiaries only (no sign, verify, decodeEnvelope,
//    Receiver, Claims, and since issue 32 no event names or pagination: the full module's), in the
//    browsers' file (forms.js over forms/*.wasm) and in Node (`xborder-wasm/forms` resolves to the
//    full module's forms functions there);
// 2. its answers: every conformance vector of what it holds (beneficiary.validate, and contract
//    v4's account.check, beneficiary.form and beneficiary.normalize from the single files of
//    XBORDER_VECTOR_FILES) through forms.js over
//    the forms .wasm, loaded with
//    init(bytes), by the runners' shared case logic; NOT_INITIALIZED before init();
// 3. its size: the .wasm (gzip -9), and a Vite production build of a page that validates one form
//    (every file the page loads, gzipped), run in headless Chromium. Each is checked against its
//    budget (the test fails over it) and printed against issue 32's goal (20 KiB for the .wasm,
//    24 KiB for the page), which BENCHMARKS.md records.
// Usage: node forms.mjs <scratch project with node_modules/xborder-wasm> <vector dirs, colon-separated> [<vector files, colon-separated>]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { runVectors } from '../../tests/runners/node/conformance.mjs';
import { vectorFiles } from '../../tests/runners/node/files.mjs';
import { launchChromium, startServer } from '../../tests/runners/browser/harness.mjs';

const KiB = 1024;
// Fails over these (gzip -9). They were 52 and 60 KiB until issue 31 added the form model
// (beneficiaryForm, checkAccount, normalizeBeneficiary, reasons and params on issues): measured
// 59,623 B for the .wasm and 68,778 B for the page, then 60 / 69 KiB. Issue 32 took event names
// and pagination out of the forms module (beneficiaries only): measured 42,879 B for the .wasm
// and 50,037 B for the page, each budget the measured size rounded up to the next KiB + 1 KiB.
// Then JS values crossed as their JSON text (core's one parser, no tape reader) and forms came
// back as JSON text: 39,114 B (gzip -9 of the file) and 45,942 B, budgets 40 / 46 KiB the same way.
// The coded WASM_LOAD_FAILED (the loader's diagnostics of what was fetched) added 1,322 B to the
// page: 47,264 B, budget 48 KiB.
const BUDGET = { wasm: 40 * KiB, page: 48 * KiB };
const GOAL = { wasm: 20 * KiB, page: 24 * KiB }; // issue 32's goals, reported

const scratch = process.argv[2] && resolve(process.argv[2]);
const dirs = process.argv[3] ?? '';
const singles = process.argv[4] ?? process.env.XBORDER_VECTOR_FILES ?? '';
const tools = process.env.XBORDER_NODE_TOOLS;
if (!scratch || !dirs || !tools) throw new Error('usage: XBORDER_NODE_TOOLS=... node forms.mjs <scratch> <vector dirs>');
const pkg = join(scratch, 'node_modules', 'xborder-wasm');
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const kib = (n) => `${(n / KiB).toFixed(1)} KiB`;

const FORMS_API = ['BeneficiaryValidator', 'XborderError', 'beneficiaryForm', 'checkAccount', 'init', 'normalizeBeneficiary', 'requiredFields', 'validateBeneficiary'];
const FORMS_OPS = ['beneficiary.validate', 'account.check', 'beneficiary.form', 'beneficiary.normalize'];

// 1. Exports, before and after init().
const forms = await import(pathToFileURL(join(pkg, 'forms.js')).href);
assert.deepEqual(Object.keys(forms).sort(), FORMS_API, 'forms.js exports the forms API, nothing else');
assert.throws(() => forms.validateBeneficiary({ country: 'CO' }), (e) => e instanceof forms.XborderError && e.code === 'NOT_INITIALIZED' && /await init\(\)/.test(e.message));
await forms.init(readFileSync(join(pkg, 'forms', 'xborder_wasm_bg.wasm')));
const validator = new forms.BeneficiaryValidator();
assert.equal(validator.validate({ country: 'CO' }).valid, false);
validator.free();
assert.throws(() => validator.validate({ country: 'CO' }), (e) => e.code === 'FREED');
// `xborder-wasm/forms` as Node resolves it (the export map's `node` condition).
const nodeFormsPath = createRequire(join(scratch, 'package.json')).resolve('xborder-wasm/forms');
assert.ok(nodeFormsPath.endsWith('forms-node.mjs'), nodeFormsPath);
const nodeForms = await import(pathToFileURL(nodeFormsPath).href);
assert.deepEqual(Object.keys(nodeForms).sort(), FORMS_API, "Node's xborder-wasm/forms exports the forms API");

// 2. Answers: the vectors of the forms module's operations.
const files = [];
for (const { name, doc } of vectorFiles(dirs, singles)) {
  const cases = (doc.cases ?? []).filter((c) => FORMS_OPS.includes(c.op));
  if (cases.length > 0) files.push({ name, doc: { ...doc, cases } });
}
const v4 = files.flatMap((f) => f.doc.cases).filter((c) => ['account.check', 'beneficiary.form', 'beneficiary.normalize'].includes(c.op)).length;
assert.ok(v4 > 0 || singles === '', `contract v4's files were given (${singles}) and none of their forms cases was read`);
const { lines, passed, failed, skipped } = await runVectors(forms, files);
for (const line of lines.filter((l) => l.startsWith('FAIL'))) console.log(line);
assert.equal(failed, 0, 'every vector of the forms operations passes through the forms module');
assert.equal(skipped, 0);
assert.ok(passed >= 360, `the forms operations' vectors were read (${passed}; the project's own hold 364)`);
// The same answer as the full module for a form with every kind of issue.
const full = await import(pathToFileURL(join(pkg, 'index.mjs')).href);
const DRAFT = { country: 'CO', ownerType: 'company', paymentType: 'bank_account', paymentInfo: { bankId: 'bank_001', accountNumber: 'DE89370400440532013001' }, name: '' };
assert.deepEqual(forms.validateBeneficiary(DRAFT), full.validateBeneficiary(DRAFT));
assert.deepEqual(forms.checkAccount('iban', 'de89 3704 0044 0532 0130 01'), full.checkAccount('iban', 'de89 3704 0044 0532 0130 01'));
const FORM = { country: 'DE', paymentType: 'bank_account', banks: { country: 'DE', response: { data: [{ id: 'b1', name: 'Bank 1' }] } } };
assert.deepEqual(forms.beneficiaryForm(FORM), full.beneficiaryForm(FORM));
assert.deepEqual(forms.normalizeBeneficiary(DRAFT), full.normalizeBeneficiary(DRAFT));

// 3. Size: the .wasm, and a page built by Vite that validates one form.
const wasmGz = gz(readFileSync(join(pkg, 'forms', 'xborder_wasm_bg.wasm')));
const PAGE = `
import { init, validateBeneficiary } from 'xborder-wasm/forms';

await init();
const form = document.querySelector('form');
form.addEventListener('input', () => {
  const draft = Object.fromEntries(new FormData(form));
  const { valid, issues } = validateBeneficiary({
    country: draft.country, ownerType: 'individual', name: draft.name, paymentType: 'bank_account',
    paymentInfo: { bankId: 'bank_001', accountNumber: draft.account },
  });
  document.querySelector('output').textContent = valid ? 'ok' : issues.map((i) => i.message).join('; ');
  window.__issues = issues.map((i) => i.code);
});
window.__ready = true;
`;
const dir = join(scratch, 'app-forms');
await rm(dir, { recursive: true, force: true });
await mkdir(dir, { recursive: true });
await writeFile(join(dir, 'main.js'), PAGE);
await writeFile(join(dir, 'index.html'), '<!doctype html><form><input name="country" value="CO"><input name="name"><input name="account"></form><output></output><script type="module" src="./main.js"></script>');
const vite = await import(pathToFileURL(createRequire(join(tools, 'package.json')).resolve('vite')).href);
await vite.build({ root: dir, configFile: false, logLevel: 'warn', build: { outDir: join(dir, 'dist'), emptyOutDir: true, target: 'es2022' } });
const built = (await readdir(join(dir, 'dist'), { recursive: true })).filter((f) => /\.(js|wasm|html|css)$/.test(f));
assert.equal(built.filter((f) => f.endsWith('.wasm')).length, 1, `Vite emitted the forms .wasm: ${built.join(', ')}`);
let pageGz = 0;
const parts = [];
for (const f of built) {
  const n = gz(await readFile(join(dir, 'dist', f)));
  pageGz += n;
  parts.push(`${f} ${kib(n)}`);
}
// The page validates in Chromium: the issues a user sees as they type.
const server = await startServer({ '/': join(dir, 'dist') });
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => window.__ready === true, null, { timeout: 30_000 });
  await page.fill('input[name=name]', 'Ana');
  await page.fill('input[name=account]', 'DE89 3704 0044 0532 0130 01'); // one digit off: the checksum
  const issues = await page.evaluate(() => window.__issues);
  assert.deepEqual(errors, []);
  assert.ok(issues.includes('INVALID_IBAN'), `the page shows the IBAN issue: ${issues}`);
  await page.fill('input[name=account]', 'DE89 3704 0044 0532 0130 00');
  assert.deepEqual(await page.evaluate(() => window.__issues), []);
} finally {
  await browser.close();
  await server.close();
}

const verdict = (n, goal) => (n <= goal ? `goal ${kib(goal)} met` : `goal ${kib(goal)} missed by ${kib(n - goal)}`);
console.log(`forms: vectors ${passed} passed, 0 failed (${FORMS_OPS.join(', ')}; ${v4} of contract v4's)`);
console.log(`forms: forms/xborder_wasm_bg.wasm ${kib(wasmGz)} gzipped (budget ${kib(BUDGET.wasm)}; ${verdict(wasmGz, GOAL.wasm)})`);
console.log(`forms: a Vite page that validates one form ${kib(pageGz)} gzipped in all (${parts.join(', ')}; budget ${kib(BUDGET.page)}; ${verdict(pageGz, GOAL.page)})`);
assert.ok(wasmGz <= BUDGET.wasm, `forms .wasm over its budget: ${wasmGz} > ${BUDGET.wasm}`);
assert.ok(pageGz <= BUDGET.page, `forms page over its budget: ${pageGz} > ${BUDGET.page}`);
console.log('forms: ok');
