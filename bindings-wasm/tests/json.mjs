// What crosses into the module for a JS value: jsonText, its JSON text, which core's parser reads
// as serde_json would (so a value reads as its text does in every other runtime). Each special
// value JSON.stringify treats in its own way has the text here, or throws (the module answers
// MALFORMED_JSON: features.mjs and tarball.mjs check that end to end).
//   node json.mjs path/to/js/api/json.js
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const copy = join(mkdtempSync(join(tmpdir(), 'xb-json-')), 'json.mjs');
copyFileSync(resolve(process.argv[2]), copy);
const { jsonText, plainJson } = await import(copy);
const isWellFormed = (s) => s.isWellFormed();

class Thing { constructor() { this.a = 1; } }
const cycle = { a: [] };
cycle.a.push(cycle);
const TEXT = [
  [null, 'null'], [true, 'true'], [0, '0'], [-0, '0'], [1e21, '1e+21'], [5e-324, '5e-324'], [2 ** 64, '18446744073709552000'],
  ['x', '"x"'], ['\ud800', '"\\ud800"'], ['x\udc00y', '"x\\udc00y"'], ['😀é', '"😀é"'], ['\u2028"\\', '"\u2028\\"\\\\"'],
  [[], '[]'], [{}, '{}'], [() => 1, 'null'], [Symbol('s'), 'null'],
  [{ a: undefined, b: 1, c: () => 1, d: Symbol('s') }, '{"b":1}'], [[undefined, () => 1, Symbol('s'), , 2], '[null,null,null,null,2]'],
  [{ d: new Date(0) }, '{"d":"1970-01-01T00:00:00.000Z"}'], [new Number(3), '3'], [new String('s'), '"s"'], [new Boolean(false), 'false'],
  [new Thing(), '{"a":1}'], [new Map([[1, 2]]), '{}'], [{ toJSON: () => ({ swapped: true }) }, '{"swapped":true}'],
  [Object.assign(Object.create(null), { k: 1 }), '{"k":1}'], [Object.assign([1, 2], { extra: 3 }), '[1,2]'],
  [{ __proto__: null, constructor: 'c' }, '{"constructor":"c"}'], [{ 10: 'a', b: 'b', 2: 'c' }, '{"2":"c","10":"a","b":"b"}'],
];
for (const [value, want] of TEXT) {
  const got = jsonText(value);
  assert.equal(got, want, `jsonText(${String(want)})`);
  assert.ok(isWellFormed(got), 'the text crossing is well-formed UTF-16 (a lone surrogate escaped, never replaced)');
  assert.deepEqual(plainJson(value), JSON.parse(want), 'plainJson is what JSON.parse reads from the same text');
}
const THROWS = [NaN, Infinity, -Infinity, { n: NaN }, [1e400], new Number(Infinity), { x: { toJSON: () => -Infinity } }, 10n, { b: [10n] }, cycle];
for (const value of THROWS) {
  assert.throws(() => jsonText(value), `jsonText throws for ${typeof value}`);
  assert.throws(() => plainJson(value));
}
let deep = 1;
for (let i = 0; i < 400; i++) deep = [deep];
assert.equal(jsonText(deep), `${'['.repeat(400)}1${']'.repeat(400)}`, 'deep nesting is written (core refuses it past its limit)');
console.log(`json: ok (${TEXT.length} values written as JSON.stringify writes them, ${THROWS.length} refused)`);
