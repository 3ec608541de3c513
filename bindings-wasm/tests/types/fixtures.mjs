// The JSON fixtures of the type tests are documents of the public conformance vectors, as the
// server sends them: each equals the document of its vector case (checked when the vectors are
// there: ../shared/conformance beside the repository, as every runner reads them), and the
// installed package reads each as the vector expects (none is an unreadable document).
// Run in the consumer folder (xborder-wasm installed), with the fixtures under ./types:
// node types/fixtures.mjs [VECTORS_DIR]
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { validateBeneficiary, requiredFields, pageInfo, PageWalker } from 'xborder-wasm';

const here = new URL('.', import.meta.url);
const fixture = (name) => JSON.parse(readFileSync(new URL(name, here), 'utf8'));
/** fixture file → [vector file, case name, path of the document in the case's input]. */
const SOURCES = {
  'rules.json': ['beneficiary.json', 'complete Colombian draft', ['rules']],
  'draft.json': ['beneficiary.json', 'complete Colombian draft', ['draft']],
  'rules-provider.json': ['v2/beneficiary.json', "v2 the provider's own rules with an empty payment type are read", ['rules']],
  'banks.json': ['v2/beneficiary.json', "v2 the provider's own rules with an empty payment type are read", ['banks', 'response']],
  'list.json': ['v2/pagination.json', 'v2 hasNext list without a request takes the defaults', ['response']],
  'list-meta.json': ['v2/pagination.json', 'v2 list with meta', ['response']],
  'list-paged.json': ['pagination.json', 'middle page', ['response']],
};
const vectors = process.argv[2];
let compared = 0;
if (vectors && existsSync(vectors)) {
  for (const [name, [file, caseName, path]] of Object.entries(SOURCES)) {
    const found = JSON.parse(readFileSync(`${vectors}/${file}`, 'utf8')).cases.find((c) => c.name === caseName);
    assert.ok(found, `${file}: no case ${JSON.stringify(caseName)}`);
    assert.deepEqual(fixture(name), path.reduce((v, k) => v[k], found.input), `${name} is the document of ${file}: ${caseName}`);
    compared += 1;
  }
}

// Read by the package as the vectors expect.
const banks = { country: 'CO', response: fixture('banks.json') };
assert.deepEqual(validateBeneficiary(fixture('draft.json'), fixture('rules.json'), banks), { valid: true, issues: [] });
assert.deepEqual(validateBeneficiary(fixture('draft.json'), fixture('rules-provider.json'), banks).issues
  .map((i) => `${i.path} ${i.code}`), ['field REQUIRED']);
assert.ok(requiredFields(fixture('rules.json'), 'bank_account', 'CO').some((f) => f.path === 'address.city' && f.source === 'rules'));
const pages = ['list.json', 'list-meta.json', 'list-paged.json'].map((name) => pageInfo(fixture(name)));
assert.deepEqual(pages.map((p) => [p.total, p.page, p.pageSize, p.hasNext]), [[30, 0, 10, true], [12, 1, 10, false], [95, 2, 10, true]]);
const walker = new PageWalker();
assert.deepEqual(walker.feed(fixture('list.json')).records, [{ id: 'r00' }]);
walker.free();
console.log(`types fixtures: ok, ${Object.keys(SOURCES).length} documents read by the package, ${compared} equal to their vector` +
  (compared === 0 ? ` (no vectors at ${vectors}: not compared)` : ''));
