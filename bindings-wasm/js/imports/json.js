// What the Rust side reads JS documents with (a wasm-bindgen snippet; src/json.rs): jsonTape
// (plain data walked as it is, anything else through plainJson), isWellFormed. The public API
// (js/api/) is handed plainJson by the package's entry files.

/**
 * A JS value as plain JSON data: what JSON.parse reads back from JSON.stringify (toJSON honoured,
 * undefined and functions dropped), which the Rust side walks into a JSON document. JSON.stringify
 * writes Infinity and NaN (and 1e400, which JS reads as Infinity) as null, which would change the
 * input silently: they throw instead, and the binding reports MALFORMED_JSON, as the other
 * runtimes do for such text.
 */
function plainJson(value) {
  const text = JSON.stringify(value, (_key, x) => {
    // JSON.stringify unboxes a Number object after the replacer: check both forms.
    const n = typeof x === 'number' ? x : x instanceof Number ? Number(x) : 0;
    if (!Number.isFinite(n)) throw new RangeError('a non-finite number');
    return x;
  });
  return text === undefined ? null : JSON.parse(text);
}

let tapeText = '';

/**
 * A JS value's JSON document as the tape the Rust side reads it from (`Tape` in src/lib.rs), in
 * two calls however large it is: the plain JSON data of `plainJson`, walked once depth first
 * into codes (returned: a tag per value, 0 null, 1 false, 2 true, 3 a number then its value, 4 a
 * string then its length in UTF-16 units, 5 an array then its length, 6 an object then its
 * number of keys, each key a string before its value; first a 1 when a string or key is not
 * well-formed UTF-16, which the Rust side refuses as serde_json does its escape) and the text of
 * every string and key in order (`jsonTapeText`, asked right after). Throws where plainJson does.
 */
function jsonTape(value) {
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
  // Plain data (what JSON.parse gives, or objects built like it) is walked as it is: the same
  // tape plainJson's round trip would give, without the round trip. Anything else (a toJSON, a
  // Date, a class instance, a boxed primitive, a BigInt, a non-finite number, nesting past
  // PLAIN_DEPTH or a cycle) takes the round trip, which decides it.
  if (!walkPlain(value, codes, string, 0)) {
    codes.length = 1;
    codes[0] = 0;
    texts.length = 0;
    walk(plainJson(value));
  }
  tapeText = texts.join('');
  return codes;
}

const PLAIN_DEPTH = 200;

/** Whether a value JSON.stringify would drop from an object (and write as null in an array). */
const dropped = (x) => x === undefined || typeof x === 'function' || typeof x === 'symbol';

/**
 * The tape of `v` (as jsonTape's walk of plainJson(v) would write it) when `v` is plain data:
 * null, booleans, finite numbers, strings, arrays and objects whose prototype is Array's,
 * Object's or null, without toJSON. False, with the tape half written, for anything else.
 */
function walkPlain(v, codes, string, depth) {
  if (v === null) codes.push(0);
  else if (typeof v === 'boolean') codes.push(v ? 2 : 1);
  else if (typeof v === 'number') {
    if (!Number.isFinite(v)) return false;
    codes.push(3, v === 0 ? 0 : v); // -0 is written 0
  } else if (typeof v === 'string') string(v);
  else if (typeof v !== 'object' || depth >= PLAIN_DEPTH || typeof v.toJSON === 'function') return false;
  else if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return false;
    codes.push(5, v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (dropped(x)) codes.push(0);
      else if (!walkPlain(x, codes, string, depth + 1)) return false;
    }
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    const at = codes.length;
    codes.push(6, 0);
    let n = 0;
    for (const k of Object.keys(v)) {
      const x = v[k];
      if (dropped(x)) continue;
      string(k);
      if (!walkPlain(x, codes, string, depth + 1)) return false;
      n++;
    }
    codes[at + 1] = n;
  }
  return true;
}

/** The text of the last jsonTape. */
function jsonTapeText() {
  const text = tapeText;
  tapeText = '';
  return text;
}

/** Whether a string is well-formed UTF-16 (no lone surrogate), for engines without isWellFormed too. */
function isWellFormed(s) {
  if (typeof s.isWellFormed === 'function') return s.isWellFormed();
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) return false;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    }
  }
  return true;
}

export { plainJson, jsonTape, jsonTapeText, isWellFormed };
