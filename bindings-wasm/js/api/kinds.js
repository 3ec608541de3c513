// Arguments. Every parameter of the public API is checked by kind, before the WebAssembly
// call, and turned into what the Rust side takes: a wrong kind is a TypeError naming the
// parameter and saying how to pass it, never coerced (wasm-bindgen's glue would index a string
// given for a list by `.length`, one name per character, and read a number given for a string
// as its digits). Only kinds are checked: every rule about the values stays in the core. This
// module holds the checks every concern uses; each concern's module (events.js, signatures.js,
// beneficiary.js, pagination.js, claims.js) holds its own.

/** What a value is, for a message: `a string`, `an array`, `a Buffer`, `the number -1`, ... */
function kindOf(v) {
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'number') return `the number ${v}`;
  if (Array.isArray(v)) return 'an array';
  if (typeof v !== 'object') return `a ${typeof v}`;
  let name;
  try {
    name = Object.getPrototypeOf(v)?.constructor?.name;
  } catch {
    // A proxy whose trap throws: an object.
  }
  if (name === 'String' || name === 'Number' || name === 'Boolean') return `a ${name} object`;
  if (typeof name !== 'string' || name === '' || name === 'Object') return 'an object';
  return `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}`;
}

function refuse(name, want, v, how) {
  return new TypeError(`xborder: \`${name}\` must be ${want}, not ${kindOf(v)}${how ? `: ${how}` : ''}`);
}

/** A string parameter: `typeof` string (not a String object, a Buffer or a number). */
const str = (name) => (v) => {
  if (typeof v !== 'string') throw refuse(name, 'a string', v);
  return v;
};

/** A copy of an Array whose items are all strings (each read once); `undefined` for a non-Array. */
function strings(name, v, item, how) {
  if (!Array.isArray(v)) return undefined;
  const out = [];
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'string') throw refuse(`${name}[${i}]`, item, x, how);
    out.push(x);
  }
  return out;
}

/** A list of event names: an Array of strings, never a string read as one name per character. */
const names = (name, example) => (v) => {
  const list = strings(name, v, 'an event name (a string)');
  if (list === undefined) throw refuse(name, 'an array of event names', v, `pass ${example}`);
  return list;
};

/** An optional count: absent (undefined or null) or a non-negative integer number, never `+x`. */
const count = (name, example) => (v) => {
  if (v === undefined || v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0)) return v;
  throw refuse(name, 'a non-negative integer (a number)', v, `pass ${example}, or leave it out`);
};

/** Milliseconds: a non-negative safe integer number (exact in the core's u64). */
const millis = (name, example) => (v) => {
  if (Number.isSafeInteger(v) && v >= 0) return v;
  throw refuse(name, 'a non-negative safe integer number of milliseconds', v, `pass ${example}`);
};

/** Optional milliseconds: absent (undefined or null) or as `millis`. */
const maybeMillis = (name, example) => {
  const check = millis(name, example);
  return (v) => (v === undefined || v === null ? undefined : check(v));
};

/** A function the caller hands over (a store method, fetchPage). */
const fn = (name, example) => (v) => {
  if (typeof v === 'function') return v;
  throw refuse(name, 'a function', v, `pass ${example}`);
};

/** An instance of the class `C` (a Catalog). */
const instance = (name, C, example) => (v) => {
  if (v instanceof C) return v;
  throw refuse(name, `a ${C.name}`, v, `pass ${example}`);
};

function isOptions(v) {
  return typeof v === 'object' && v !== null && Object.prototype.toString.call(v) === '[object Object]';
}

/**
 * An options object: absent (undefined or null: `{}`) or a plain object whose keys are all in
 * `checks` (a misspelt option is a TypeError, never silently ignored); each present option is
 * checked and the converted values returned, by key.
 */
function options(name, v, checks) {
  const out = {};
  if (v === undefined || v === null) return out;
  const keys = Object.keys(checks);
  if (!isOptions(v)) throw refuse(name, `an options object ({ ${keys.join(', ')} })`, v);
  for (const key of Object.keys(v)) {
    if (!keys.includes(key)) throw new TypeError(`xborder: \`${name}.${key}\` is not an option: the options are ${keys.join(', ')}`);
  }
  for (const key of keys) out[key] = checks[key](v[key]);
  return out;
}

function isThenable(v) {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof v.then === 'function';
}

/** Checks and converts `args` in place: `checks[i]` (when set) is the i-th parameter's. */
function convert(checks, args) {
  for (let i = 0; i < checks.length; i++) if (checks[i]) args[i] = checks[i](args[i]);
  return args;
}

export { kindOf, refuse, str, strings, names, count, millis, maybeMillis, fn, instance, isOptions, options, isThenable, convert };
