// jsonTape's walk of plain data as it is must give the tape of the JSON round trip it skips
// (plainJson, then the walk): the same codes and texts for every value, or a throw for both.
// Random documents (seeded) with everything JSON.stringify treats specially: -0, dropped values
// (undefined, functions, symbols) in objects and arrays, holes, lone surrogates, null
// prototypes, and non-plain values (toJSON, Date, boxed primitives, class instances, Map,
// non-finite numbers, BigInt, cycles, deep nesting) that must take the round trip.
//   node tape.mjs path/to/js/imports/json.js
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspect, isDeepStrictEqual } from 'node:util';

const copy = join(mkdtempSync(join(tmpdir(), 'xb-tape-')), 'json.mjs');
copyFileSync(resolve(process.argv[2]), copy);
const { jsonTape, jsonTapeText, plainJson, isWellFormed } = await import(copy);

/** The reference: the round trip, then the walk jsonTape did before it walked plain data. */
function reference(value) {
  const codes = [0];
  const texts = [];
  const string = (s) => {
    if (!isWellFormed(s)) codes[0] = 1;
    codes.push(4, s.length);
    texts.push(s);
  };
  const walk = (v) => {
    if (v === null) codes.push(0);
    else if (typeof v === 'boolean') codes.push(v ? 2 : 1);
    else if (typeof v === 'number') codes.push(3, v);
    else if (typeof v === 'string') string(v);
    else if (Array.isArray(v)) {
      codes.push(5, v.length);
      for (const x of v) walk(x);
    } else {
      const keys = Object.keys(v);
      codes.push(6, keys.length);
      for (const k of keys) {
        string(k);
        walk(v[k]);
      }
    }
  };
  walk(plainJson(value));
  return [codes, texts.join('')];
}

const outcome = (f) => {
  try {
    return { value: f() };
  } catch (e) {
    return { threw: e.constructor.name };
  }
};

let seed = 0x5eed;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
class Thing { constructor() { this.a = 1; } }
const STRINGS = ['', 'a', 'order:created', '\ud800', 'x\udc00y', '😀', 'é', 'aé', 'x😀y', 'Bogotá D.C.', '10', '__proto__', 'constructor'];
const NUMBERS = [0, -0, 1, -1, 1.5, 1e21, 2 ** 53, -(2 ** 53) - 2, 5e-324, 123.456];
const ODD = [
  () => undefined, () => () => 1, () => Symbol('s'), () => NaN, () => Infinity, () => -Infinity,
  () => new Date(0), () => new Number(3), () => new String('s'), () => new Boolean(false),
  () => new Thing(), () => new Map([[1, 2]]), () => ({ toJSON: () => ({ swapped: true }) }),
  () => 10n, () => Object.create(null), () => [, 1, , 2], () => Object.assign([1, 2], { extra: 3 }),
];

function gen(depth) {
  const r = rnd();
  if (depth > 4 || r < 0.3) {
    const s = rnd();
    if (s < 0.1) return null;
    if (s < 0.2) return rnd() < 0.5;
    if (s < 0.45) return pick(NUMBERS);
    if (s < 0.85) return pick(STRINGS);
    return pick(ODD)();
  }
  if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 5) }, () => gen(depth + 1));
  const o = rnd() < 0.15 ? Object.create(null) : {};
  for (let i = Math.floor(rnd() * 5); i > 0; i--) o[pick(STRINGS) + (rnd() < 0.5 ? '' : i)] = gen(depth + 1);
  return o;
}

const cycle = { a: [] };
cycle.a.push(cycle);
let deep = 1;
for (let i = 0; i < 400; i++) deep = [deep];
const fixed = [null, true, 0, -0, 'x', '\ud800', [], {}, undefined, () => 1, cycle, deep, { a: undefined, b: 1 },
  [undefined, () => 1, Symbol('s')], { d: new Date(0) }, { n: NaN }, [10n], Object.create(null)];

let plainCount = 0;
let total = 0;
for (const value of [...fixed, ...Array.from({ length: 20000 }, () => gen(0))]) {
  total++;
  const want = outcome(() => reference(value));
  const got = outcome(() => [jsonTape(value), jsonTapeText()]);
  if (!isDeepStrictEqual(got, want)) assert.fail(`value #${total}: ${inspect(value, { depth: 4 })}: got ${inspect(got)}, want ${inspect(want)}`);
  if (!('threw' in want)) plainCount++;
}
console.log(`tape: ok (${total} values, ${plainCount} with a tape, the rest throwing in both paths)`);
