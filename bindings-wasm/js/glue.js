// Conversion helpers imported by the Rust side (wasm-bindgen snippet). build.sh turns the
// last line into `module.exports = {...};` for the CommonJS (Node) build. No rule lives here:
// the error class every xborder function throws, the envelope view whose `data` is parsed
// from the raw JSON text (kept by the core) on first access, the checks of every public
// parameter's kind and the gathering of a header from the host's header collection (wrapApi),
// the objects' recovery after a reset, and what the Rust side reads JS documents with (jsonTape:
// plain data walked as it is, anything else through plainJson, isWellFormed).

/** The error every xborder function throws: `code` is a FORMAT.md code. */
class XborderError extends Error {
  constructor(code, message, field, rejected) {
    super(message);
    this.name = 'XborderError';
    this.code = code;
    if (field !== undefined) this.field = field;
    if (rejected !== undefined) this.rejected = rejected;
  }
}

// The codes the glue reports itself (core's codes::NOT_INITIALIZED and codes::FREED): the module
// cannot be asked for them, as it is not loaded or the object's memory is gone.
const NOT_INITIALIZED = 'NOT_INITIALIZED';
const FREED_CODE = 'FREED';

/** The error of a use of `o` after its free(). */
function freedError(o) {
  const name = o?.constructor?.name || 'object';
  return new XborderError(FREED_CODE, `${FREED_CODE}: this ${name} was freed (free() was called, or a \`using\` block ended); make a new ${name} to go on`);
}

function xbError(code, message, field, rejected) {
  return new XborderError(code, message, field, rejected);
}

/**
 * What a signature that does not match the body usually means in JavaScript: the body was
 * parsed and written again (express.json(), JSON.stringify) before it was verified.
 */
const RAW_BODY_HINT = 'the body must be the raw bytes as received (express.raw(), await req.arrayBuffer()), not re-serialised JSON';

/** The error of a signature that does not match the body (core's code and message), with the hint. */
function xbMismatch(code, message) {
  return new XborderError(code, `${message}; ${RAW_BODY_HINT}`);
}

const RAW = Symbol('rawData');
const BYTES = Symbol('rawBytes');
const DATA = Symbol('data');
// entity.data's bytes were checked by core (UTF-8, the JSON grammar): decoding them needs no
// second check, and TextDecoder's non-fatal mode is the fast one (V8/Node: about 40 % less time
// for a 20 KB body than the `fatal` decoder wasm-bindgen uses for strings).
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A decoded webhook envelope. `rawData` is `entity.data`'s JSON text, made from its bytes on first
 * read; `data` is that text parsed, once, when first read. A handler that reads only the
 * envelope's fields pays for neither.
 */
class Envelope {
  constructor(id, event, kind, entityId, entityType, rawBytes) {
    this.id = id;
    this.event = event;
    this.kind = kind;
    this.entityId = entityId;
    this.entityType = entityType;
    this[BYTES] = rawBytes; // a copy, or undefined when the envelope has no data
    this[RAW] = undefined;
  }
  get rawData() {
    const bytes = this[BYTES];
    if (bytes !== undefined) {
      this[RAW] = UTF8.decode(bytes);
      this[BYTES] = undefined;
    }
    return this[RAW];
  }
  get data() {
    const raw = this.rawData;
    if (raw === undefined) return undefined;
    if (!(DATA in this)) this[DATA] = JSON.parse(raw);
    return this[DATA];
  }
  toJSON() {
    const out = { id: this.id, event: this.event, kind: this.kind, entityId: this.entityId, entityType: this.entityType };
    if (this.rawData !== undefined) out.data = this.data;
    return out;
  }
}

/** An envelope from core's fields; `rawBytes`, entity.data's bytes, is a view of wasm memory: copied. */
function makeEnvelope(id, event, kind, entityId, entityType, rawBytes) {
  return new Envelope(id, event, kind, entityId, entityType, rawBytes === undefined ? undefined : rawBytes.slice());
}

/** The facts of a page (core's PageInfo), made here in one call from the Rust side. */
function makePageInfo(total, page, pageSize, totalPages, hasNext, hasNextConflict, hasPrevious, firstItem, lastItem, nextPage) {
  return { total, page, pageSize, totalPages, hasNext, hasNextConflict, hasPrevious, firstItem, lastItem, nextPage: nextPage ?? null };
}

/**
 * `{valid, issues: [{path, code, message, label}]}` (core's Validation), made on the Rust side in
 * one call: each issue's path, code, message and label (when it has one) are in `text` one after
 * the other; `lengths` holds four numbers per issue, the lengths in UTF-16 units of the path, the
 * code and the message, and the label's plus one (0: no label, `null`).
 */
function makeValidation(valid, text, lengths) {
  const issues = [];
  let at = 0;
  for (let i = 0; i + 3 < lengths.length; i += 4) {
    const path = text.slice(at, (at += lengths[i]));
    const code = text.slice(at, (at += lengths[i + 1]));
    const message = text.slice(at, (at += lengths[i + 2]));
    const n = lengths[i + 3];
    issues.push({ path, code, message, label: n === 0 ? null : text.slice(at, (at += n - 1)) });
  }
  return { valid, issues };
}

/**
 * `{kind, entity?, action?}` from core's classification of `name`, packed in one number by the
 * Rust side (`Catalog.__classify`): the kind's index in `kinds` (core's texts), plus 8 × (the
 * entity's length + 1) when the name is well formed, `<entity>:<action>` in ASCII.
 */
function classification(kinds, n, name) {
  const kind = kinds[n % 8];
  const colon = Math.floor(n / 8) - 1;
  return colon < 0 ? { kind } : { kind, entity: name.slice(0, colon), action: name.slice(colon + 1) };
}

// ---------------------------------------------------------------------------------------------
// Arguments. Every parameter of the public API is checked by kind here, before the WebAssembly
// call, and turned into what the Rust side takes: a wrong kind is a TypeError naming the
// parameter and saying how to pass it, never coerced (wasm-bindgen's glue would index a string
// given for a list by `.length`, one name per character, and read a number given for a string
// as its digits). Only kinds are checked: every rule about the values stays in the core.

const ENCODER = new TextEncoder();
// Brand checks, true for a value of another realm too (a vm context, an iframe, Jest).
const TYPED_ARRAY_TAG = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
const ARRAY_BUFFER_LENGTH = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;

function isArrayBuffer(v) {
  try {
    ARRAY_BUFFER_LENGTH.call(v);
    return true;
  } catch {
    return false;
  }
}

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

const SECRETS_HOW = 'pass one secret as a string (process.env.WEBHOOK_SECRET) or, during a key rotation, an array of them ([previousSecret, currentSecret])';

/** One secret (a string: its UTF-8 bytes are the key) or an Array of them (a key rotation). */
const secrets = (name) => (v) => {
  if (typeof v === 'string') return [v];
  const list = strings(name, v, 'a secret (a string)', SECRETS_HOW);
  if (list === undefined) throw refuse(name, 'a secret (a string) or an array of secrets', v, SECRETS_HOW);
  return list;
};

const BODY_WANT = 'the raw body: a string, a Uint8Array (a Buffer) or an ArrayBuffer';
const RAW_HOW = "express.raw({ type: 'application/json' }) in Express (not express.json()), await req.arrayBuffer() or await request.text() in a Fetch handler";

/** The raw body: a string (its UTF-8 bytes), a Uint8Array (a Node Buffer is one) or an ArrayBuffer. */
function body(v) {
  if (typeof v === 'string') return ENCODER.encode(v);
  if (TYPED_ARRAY_TAG.call(v) === 'Uint8Array') return v;
  if (isArrayBuffer(v)) return new Uint8Array(v);
  // A plain object or an array is what a JSON body parser leaves (express.json() in req.body):
  // its bytes are gone, so no signature can be checked against it.
  if (isOptions(v) || Array.isArray(v)) {
    throw refuse('body', BODY_WANT, v, `this is a parsed JSON body (what express.json() leaves in req.body), whose signed bytes are gone; keep the raw bytes: ${RAW_HOW}`);
  }
  throw refuse('body', BODY_WANT, v, `pass the bytes exactly as received: ${RAW_HOW}`);
}

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

const EXISTING = count('existingWebhooks', 'how many webhooks exist (3)');

/** The checks of the catalog's methods (the free functions are those of the built-in catalog). */
const CATALOG = {
  addLive: [str('name')],
  addWildcard: [str('name')],
  classify: [str('name')],
  isLive: [str('name')],
  checkRegistration: [names('events', "['order:created']"), EXISTING],
  createWebhookBody: [names('events', "['order:created']"), str('url'), EXISTING],
  matches: [names('subscriptions', "['order:*']"), str('event')],
};

/** The free functions that are methods of the built-in catalog. */
const BUILTIN = {
  classifyEvent: 'classify',
  checkRegistration: 'checkRegistration',
  createWebhookBody: 'createWebhookBody',
  eventMatches: 'matches',
};

const RULES_HOW = 'pass the response of GET /v1/validation-rules/beneficiaries as received (await res.text()) or parsed (await res.json()), or null when there is none';
const BANKS_HOW = "pass { country: 'CO', response } with the response of GET /v1/beneficiaries/banks?countryCode=CO as received (await res.text()) or parsed (await res.json()), or null when there is none";

/**
 * A server document (the rules document, a bank list's response): absent (undefined or null:
 * not given), the response text (a string, which core parses once) or its parsed JSON (any
 * other JSON value: what core cannot read is an issue, RULES_UNREADABLE / BANKS_UNREADABLE).
 * Never a function or a symbol (JSON has none: it would be dropped, the document silently not
 * given) nor a Promise (a response not awaited).
 */
const documentIn = (name, how) => (v) => {
  if (typeof v === 'function' || typeof v === 'symbol' || isThenable(v)) {
    throw refuse(name, 'the response text (a string) or its parsed JSON', v, how);
  }
  return v;
};

const RULES_DOCUMENT = documentIn('rules', RULES_HOW);

const PARAMS_HOW = "pass an object of list parameters ({ page: 0, pageSize: 50, filters: { status: 'success' } }), or leave it out for the defaults";

/**
 * List parameters: absent (undefined or null: the defaults) or an object (a plain one, or one
 * whose JSON is the parameters: a `toJSON`, a class instance). Any other kind (a number, a
 * string, a boolean, an array, a function) is a TypeError, as for every other parameter; which
 * keys and values an object may hold is core's (`UNKNOWN_PARAMETER`, `INVALID_*`).
 */
const listParams = (name) => (v) => {
  if (v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v) && !isThenable(v))) return v;
  throw refuse(name, 'an object of list parameters', v, PARAMS_HOW);
};
const LIST_PARAMS = listParams('params');
const BANKS_RESPONSE = documentIn('banks.response', BANKS_HOW);

/**
 * The bank list, `{ country, response }` (absent: undefined or null), as the two values the
 * Rust side takes: `[country, response]`. `country` is absent or a string; any other key (a
 * misspelt one, or the response itself passed as `banks`) is a TypeError, never ignored.
 */
function banksIn(v) {
  if (v === undefined || v === null) return [undefined, undefined];
  if (!isOptions(v)) throw refuse('banks', 'the bank list as { country, response }', v, BANKS_HOW);
  for (const key of Object.keys(v)) {
    if (key !== 'country' && key !== 'response') {
      throw new TypeError(`xborder: \`banks.${key}\` is not a key of the bank list { country, response }: ${BANKS_HOW}`);
    }
  }
  const { country, response } = v;
  if (country !== undefined && country !== null && typeof country !== 'string') {
    throw refuse('banks.country', 'a string (the country the list was asked for)', country, BANKS_HOW);
  }
  return [country ?? undefined, BANKS_RESPONSE(response)];
}

/** The checks of each function's parameters, in order; `null` passes a JSON document as it is. */
const PARAMETERS = {
  sign: [str('secret'), body],
  decodeEnvelope: [body],
  requiredFields: [RULES_DOCUMENT, str('paymentType'), str('country')],
  listQuery: [LIST_PARAMS],
  pageInfo: [], // api.pageInfo, below
  // The test build's hook (build.sh --test-hooks); absent from the published module.
  __panicForTests: [],
};

function convert(checks, args) {
  for (let i = 0; i < checks.length; i++) if (checks[i]) args[i] = checks[i](args[i]);
  return args;
}

const HEADER_WANT = "the X-Webhook-Signature header: its value (a string) or values (an array of strings), the request's headers (Node's req.headers, a Fetch Headers, a plain object), or null/undefined when absent";

/**
 * The signature parameter: `[value, undefined]` for the one header value passed as a string (or
 * absent), `[undefined, values]` for the values gathered from what a handler has (an array of
 * values; a Fetch `Headers`; Node's `IncomingHttpHeaders` or another record, the name looked up
 * in any case). Which of several values counts is core's `signature_header`, never decided here.
 */
function signatureIn(name, v) {
  if (typeof v === 'string' || v === null || v === undefined) return [v, undefined];
  const list = strings('signature', v, 'a header value (a string)');
  if (list !== undefined) return [undefined, list];
  const tag = Object.prototype.toString.call(v);
  if (tag === '[object Headers]' || (tag === '[object Object]' && typeof v.get === 'function')) {
    // A Fetch Headers (or a library's one like it): get() joins repeated values with ", ". (A
    // Map, URLSearchParams or FormData has a get() too, but compares names exactly: refused.)
    const x = v.get(name());
    if (x === null || x === undefined) return [undefined, []];
    if (typeof x !== 'string') throw refuse(`signature.get('${name()}')`, 'a string, or null when absent', x);
    return [undefined, [x]];
  }
  if (tag === '[object Object]') {
    const values = [];
    for (const key of Object.keys(v)) {
      if (key.toLowerCase() !== name()) continue;
      const x = v[key];
      if (typeof x === 'string') values.push(x);
      else if (x !== undefined) {
        const many = strings(`signature['${key}']`, x, 'a header value (a string)');
        if (many === undefined) throw refuse(`signature['${key}']`, 'a header value (a string) or an array of them', x);
        values.push(...many);
      }
    }
    return [undefined, values];
  }
  throw refuse('signature', HEADER_WANT, v, 'pass req.headers (Node), request.headers (Fetch) or the header value');
}

const INNER = Symbol('inner'); // a wrapper's wasm-bindgen object
const REMAKE = Symbol('remake'); // makes it again in a fresh instance (or throws)
const FREED = Symbol('freed'); // free() was called: every later use throws FREED
const ADDED = Symbol('added'); // a catalog's added names, in order: [method, name]
const LOST = Symbol('lost'); // marks the error of an object whose state went with a reset

/**
 * The public API over the wasm-bindgen module `raw`: each call's arguments are checked and
 * converted (above), then passed through. After an INTERNAL_ERROR (a Rust panic) the Rust side
 * asked for a fresh instance, which wasm-bindgen creates at the next call; that call is made here
 * at once, with no argument (wasm-bindgen 0.2.130 copies a call's arguments into the old
 * instance before switching). The package then recovers by itself: every object holds its
 * wasm-bindgen object (INNER) and makes it again, in the fresh instance, from what made it
 * (secrets, window, catalog names, options) on its next call. What lived only in the old
 * instance's memory is gone: a Receiver's window of committed ids, the built-in Claims' claims,
 * a PageWalker's walk (which throws INTERNAL_ERROR: start a new one). A Claims store of the
 * host's keeps everything: it lives outside the module.
 */
function wrapApi(raw, host = {}) {
  // Whether the WebAssembly module is loaded: the browser entry passes `ready` (true once init()
  // resolved); in Node the module is loaded on import. Before, every call throws NOT_INITIALIZED
  // (checked where the module is first touched: `run`, the built-in catalog, the header name).
  let loaded = typeof host.ready !== 'function';
  const ensureLoaded = () => {
    if (loaded || (loaded = host.ready() === true)) return;
    throw new XborderError(NOT_INITIALIZED, `${NOT_INITIALIZED}: xborder-wasm is not loaded yet: await init() once before the first call (it fetches the .wasm; if it failed, call init() again)`);
  };
  // The host's HMAC-SHA256 when it has a faster one (Node: node:crypto, passed by index.cjs):
  // the glue computes the tags, core reads the header and compares in constant time
  // (`verify_tags`). Browsers pass none: the module's own HMAC, synchronous.
  const hmac = typeof host.hmac === 'function' ? host.hmac : undefined;
  let generation = 0; // which WebAssembly instance: objects of an earlier one are made again
  let resetBy; // the INTERNAL_ERROR that reset the module
  const reset = (e) => {
    if (e instanceof XborderError && e.code === 'INTERNAL_ERROR' && !e[LOST]) {
      builtinCatalog = undefined; // it lived in the old instance
      generation++;
      resetBy = e;
      raw.__xborderReset();
    }
    return e;
  };
  const run = (f, self, args) => {
    if (!loaded) ensureLoaded();
    try {
      return f.apply(self, args);
    } catch (e) {
      throw reset(e);
    }
  };
  const call = (f, self, checks, args) => run(f, self, convert(checks, args));
  /** The wasm-bindgen object of a wrapper, made again when the module was reset since. */
  const live = (o) => {
    if (o[BORN] !== generation) {
      if (o[FREED]) throw freedError(o); // free() leaves BORN unset: no cost on the usual path
      o[INNER] = run(o[REMAKE], o, []);
      o[BORN] = generation;
    }
    return o[INNER];
  };
  /** Makes a wrapper's wasm-bindgen object (`make(first)`; again with `first` false after a reset). */
  const adopt = (o, make) => {
    o[REMAKE] = () => make(false);
    o[INNER] = run(make, o, [true]);
    o[BORN] = generation;
  };
  /**
   * Releases the memory now (a second call does nothing); a wrapper made before a reset has none
   * in this instance. Any later use throws FREED (`live`, `usable`).
   */
  function free() {
    if (this[FREED]) return;
    this[FREED] = true;
    if (this[BORN] === generation && this[INNER] !== undefined) this[INNER].free();
    this[BORN] = undefined;
    this[INNER] = undefined;
  }
  const freeable = (C) => {
    Object.defineProperty(C.prototype, 'free', { value: free, writable: true, configurable: true });
    if (Symbol.dispose) Object.defineProperty(C.prototype, Symbol.dispose, { value: free, writable: true, configurable: true });
  };
  let headerName;
  const signatureName = () => {
    if (headerName === undefined) {
      ensureLoaded();
      headerName = raw.__signatureHeader().toLowerCase();
    }
    return headerName;
  };
  const signature = (v) => signatureIn(signatureName, v);

  const api = {};
  for (const [name, checks] of Object.entries(PARAMETERS)) {
    const f = raw[name];
    if (typeof f !== 'function') continue; // a test hook, in the test build only
    api[name] = { [name](...args) { return call(f, this, checks, args); } }[name];
  }
  // A plain response object (what `await res.json()` gives): its page fields (the four, and
  // `meta`, where an envelope `{data, meta}` keeps them) and the length of its `data` cross, never
  // the records; core reads them as it reads the whole response (`page_info_of`). Anything else
  // (text, a class instance, a `toJSON`) crosses whole, as every other input.
  const REQUEST = listParams('request');
  api.pageInfo = function pageInfo(response, request) {
    REQUEST(request);
    if (isOptions(response) && Array.isArray(response.data) && typeof response.toJSON !== 'function') {
      const { total, page, pageSize, hasNext, meta } = response;
      return run(raw.__pageInfoOf, undefined, [response.data.length, [{ total, page, pageSize, hasNext, meta }, request ?? null]]);
    }
    return run(raw.pageInfo, undefined, [response, request]);
  };
  const VALIDATE = [null, RULES_DOCUMENT, banksIn];
  api.validateBeneficiary = function validateBeneficiary(draft, rules, banks) {
    const [d, r, [country, response]] = convert(VALIDATE, [draft, rules, banks]);
    return run(raw.validateBeneficiary, undefined, [d, r, country, response]);
  };
  // Secrets core accepted (not EMPTY_SECRET), by text, as the keys the host's HMAC takes.
  const keyCache = new Map();
  const keysOf = (list) => {
    const keys = list.map((s) => keyCache.get(s));
    if (list.length > 0 && !keys.includes(undefined)) return keys;
    run(raw.__checkSecrets, undefined, [list]); // throws EMPTY_SECRET, as verify does
    if (keyCache.size > 64) keyCache.clear();
    return list.map((s) => {
      let key = keyCache.get(s);
      if (key === undefined) keyCache.set(s, (key = ENCODER.encode(s))); // the key's UTF-8 bytes, as in the module
      return key;
    });
  };
  /** The host's HMAC-SHA256 of the body under each key, 32 bytes each, back to back. */
  const tagsOf = (keys, bytes) => {
    if (keys.length === 1) return hmac(keys[0], bytes);
    const out = new Uint8Array(32 * keys.length);
    keys.forEach((key, i) => out.set(hmac(key, bytes), 32 * i));
    return out;
  };
  const VERIFY = [secrets('secretOrSecrets'), body, signature];
  api.verify = function verify(...args) {
    const [list, bytes, [value, values]] = convert(VERIFY, args);
    if (hmac) return run(raw.__verifyTags, undefined, [tagsOf(keysOf(list), bytes), value, values]);
    return run(raw.verify, undefined, [list, bytes, value, values]);
  };

  /** An event catalog: `new Catalog()` is a copy of the built-in one, to add names to. */
  api.Catalog = class Catalog {
    constructor() {
      this[ADDED] = [];
      adopt(this, () => catalogOf(this[ADDED]));
    }
  };
  /** A catalog in this instance with `added` added (each was accepted once already). */
  const catalogOf = (added) => {
    const c = new raw.Catalog();
    for (const [method, name] of added) raw.Catalog.prototype[method].call(c, name);
    return c;
  };
  freeable(api.Catalog);
  // classify: core's answer as one number, made an object here (classification).
  let kinds;
  const { __classify } = raw.Catalog.prototype;
  const classify = function classify(name) {
    return classification(kinds ??= raw.__eventKinds(), __classify.call(this, name), name);
  };
  const catalogMethod = (name) => (name === 'classify' ? classify : raw.Catalog.prototype[name]);
  for (const [name, checks] of Object.entries(CATALOG)) {
    const f = catalogMethod(name);
    const adds = name === 'addLive' || name === 'addWildcard';
    Object.defineProperty(api.Catalog.prototype, name, {
      value: { [name](...args) {
        const out = call(f, live(this), checks, args);
        if (adds) this[ADDED].push([name, args[0]]);
        return out;
      } }[name],
      writable: true,
      configurable: true,
    });
  }
  // The free functions: the methods of one built-in catalog, made again after a reset.
  let builtinCatalog;
  const builtin = () => {
    if (builtinCatalog === undefined) {
      ensureLoaded();
      builtinCatalog = new raw.Catalog();
    }
    return builtinCatalog;
  };
  for (const [name, of] of Object.entries(BUILTIN)) {
    const f = catalogMethod(of);
    const checks = CATALOG[of];
    api[name] = { [name](...args) { return call(f, builtin(), checks, args); } }[name];
  }

  const { receive, __receiveWithTags: receiveWithTags, commit } = raw.Receiver.prototype;
  const KEYS = Symbol('keys');
  const SECRETS = secrets('secretOrSecrets');
  const WINDOW_EXAMPLE = 'how many committed ids to remember (10000)';
  const WINDOW = count('window', `${WINDOW_EXAMPLE} or an options object ({ window, catalog })`);
  const RECEIVER_OPTIONS = {
    window: count('options.window', WINDOW_EXAMPLE),
    catalog: (v) => (v === undefined || v === null ? undefined : instance('options.catalog', api.Catalog, 'a Catalog (new Catalog())')(v)),
  };
  const RECEIVE = [body, signature];
  const COMMIT = [str('id')];
  /** Verifies, decodes, classifies and dedupes webhook deliveries. */
  api.Receiver = class Receiver {
    constructor(secretOrSecrets, windowOrOptions) {
      const keys = SECRETS(secretOrSecrets);
      const { window, catalog } = isOptions(windowOrOptions)
        ? options('options', windowOrOptions, RECEIVER_OPTIONS)
        : { window: WINDOW(windowOrOptions) };
      const added = catalog?.[ADDED].slice(); // the receiver takes a copy of the catalog as it is now
      adopt(this, (first) => {
        if (added === undefined) return new raw.Receiver(keys, window, builtin());
        if (first) return new raw.Receiver(keys, window, live(catalog));
        const copy = catalogOf(added);
        try {
          return new raw.Receiver(keys, window, copy);
        } finally {
          copy.free();
        }
      });
      if (hmac) this[KEYS] = keysOf(keys); // core accepted them above
    }
    receive(...args) {
      const [bytes, [value, values]] = convert(RECEIVE, args);
      if (this[KEYS]) return run(receiveWithTags, live(this), [bytes, tagsOf(this[KEYS], bytes), value, values]);
      return run(receive, live(this), [bytes, value, values]);
    }
    commit(...args) {
      return call(commit, live(this), COMMIT, args);
    }
  };

  const { validate: validateWith } = raw.BeneficiaryValidator.prototype;
  const DOCUMENTS = [RULES_DOCUMENT, banksIn];
  // A document as it is now, for a reset to read again: a text as it is (strings do not change),
  // anything else as its JSON data.
  const keep = (doc) => (typeof doc === 'string' ? doc : plainJson(doc ?? null));
  /** A rules document and a bank list read once; each `validate(draft)` crosses the draft only. */
  api.BeneficiaryValidator = class BeneficiaryValidator {
    constructor(rules, banks) {
      const [r, [country, response]] = convert(DOCUMENTS, [rules, banks]);
      let saved; // the documents as they were when read: what a reset reads again
      adopt(this, (first) => (first ? new raw.BeneficiaryValidator(r, country, response) : new raw.BeneficiaryValidator(...saved)));
      saved = [keep(r), country, keep(response)];
    }
    validate(draft) {
      return run(validateWith, live(this), [draft]);
    }
  };
  freeable(api.BeneficiaryValidator);

  const { nextQuery, isDone, __feed } = raw.PageWalker.prototype;
  const FETCH_PAGE = [fn('fetchPage', 'async (query) => (await fetch(`${url}?${query}`)).json()'),
    (v) => (v === undefined || v === null ? undefined : fn('onStep', '(step) => console.log(step.drifts)')(v))];
  /** Walks every page of a list: the query to send next, each record once, the drift. */
  api.PageWalker = class PageWalker {
    constructor(params) {
      LIST_PARAMS(params);
      adopt(this, (first) => {
        if (first) return new raw.PageWalker(params);
        // Which records were passed on lived in the old instance: a walk cannot go on.
        const e = new XborderError(resetBy.code, `${resetBy.code}: this PageWalker's walk was lost when xborder-wasm was reset after an internal error; start a new PageWalker`);
        Object.defineProperty(e, LOST, { value: true }); // a consequence of the reset, not another one
        throw e;
      });
    }
    nextQuery() {
      return call(nextQuery, live(this), [], []) ?? null;
    }
    isDone() {
      return call(isDone, live(this), [], []);
    }
    feed(response) {
      const { fresh, info, drifts } = call(__feed, live(this), [], [response]);
      // The caller's own records at the indices the core passes on (its plain copy when the
      // response is made by toJSON).
      const own = isOptions(response) && typeof response.toJSON !== 'function' ? response.data : undefined;
      const data = Array.isArray(own) && typeof own.toJSON !== 'function' ? own : plainJson(response).data;
      return { records: fresh.map((i) => data[i]), info, drifts };
    }
    records(...args) {
      live(this); // FREED at the call, not at the first page
      const [fetchPage, onStep] = convert(FETCH_PAGE, args);
      const walker = this;
      return (async function* records() {
        for (let query = walker.nextQuery(); query !== null; query = walker.nextQuery()) {
          const step = walker.feed(await fetchPage(query));
          if (onStep !== undefined) await onStep(step);
          yield* step.records;
        }
      })();
    }
  };

  freeable(api.Receiver);
  freeable(api.PageWalker);

  api.Claims = claimsClass(raw, { call, live, adopt, generation: () => generation, ensureLoaded });
  freeable(api.Claims);
  return api;
}

const STEP = [str('step'), str('id'), str('token'), millis('atMs', 'Date.now()')];
const LEASE = maybeMillis('options.leaseMs', 'how long a claim holds (30000)');
const WINDOW_MS = maybeMillis('options.windowMs', 'how long a done id is a duplicate (86400000)');
const BORN = Symbol('born'); // the WebAssembly instance (its generation) an object was made in
const STORE = Symbol('store');
const REPLY = [(v) => v, str('step'), str('outcome')];
/** A reply pair from the module as `{ status, retryAfter }`; null for an empty one (`claimed`). */
const replyOf = (pair) => (pair.length === 0 ? null : { status: pair[0], retryAfter: pair[1] < 0 ? null : pair[1] });
const RULES = Symbol('rules');

function storeFailed(raw, method, cause) {
  const e = raw.__storeUnavailable(`store.${method} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  e.cause = cause;
  return e;
}

/** A store's answer checked by kind: a load's entry text (or null), a compare-and-set's boolean. */
function answer(need, v) {
  if (need.op === 'load') {
    if (typeof v === 'string' || v === null || v === undefined) return v ?? null;
    throw refuse('store.load', 'an entry text (a string) or null/undefined when there is none (a result)', v);
  }
  if (typeof v === 'boolean') return v;
  throw refuse('store.compareAndSet', 'true or false (a result)', v, 'answer whether the entry was the expected one and was set');
}

/** The store method a need asks for. */
const method = (need) => (need.op === 'load' ? 'load' : 'compareAndSet');

/** The store call a need asks for, unawaited; STORE_UNAVAILABLE (with the cause) when it throws. */
function ask(raw, store, need) {
  try {
    return need.op === 'load' ? store.load(need.id) : store.compareAndSet(need.id, need.expected, need.next, need.ttlMs);
  } catch (e) {
    throw storeFailed(raw, method(need), e);
  }
}

function isThenable(v) {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof v.then === 'function';
}

/**
 * The `Claims` class: core's in-memory store, or the host's store driven through core's claim
 * task (every decision, the retries on conflict included, is the task's: the loops below only
 * carry its needs to the store and the answers back). The built-in store lives in the module's
 * memory: after a reset it is made again, empty. A store of the host's lives outside it: a task
 * is made per step, so nothing of it is lost.
 */
function claimsClass(raw, { call, live, adopt, generation, ensureLoaded }) {
  const { step: memoryStep } = raw.Claims.prototype;
  const { start, loaded, swapped } = raw.ClaimTask.prototype;
  const CAPACITY = count('options.capacity', 'how many done ids to remember (10000)');
  const newTask = (...args) => new raw.ClaimTask(...args);
  const task = (claims, args) => call(newTask, undefined, [], [...claims[RULES], ...convert(STEP, args)]);
  // A task's memory is given back at once, unless the module was reset meanwhile (wasm-bindgen's
  // free() would then free that address in the new instance).
  const done = (t, born) => {
    if (generation() === born) t.free();
  };
  /** A Claims (of a store of the host's: nothing in the module) not freed, the module loaded. */
  const usable = (claims) => {
    if (claims[FREED]) throw freedError(claims);
    ensureLoaded();
  };
  const next = (t, need, v) => call(need.op === 'load' ? loaded : swapped, t, [], [answer(need, v)]);

  class Claims {
    constructor(opts) {
      const o = options('options', opts, { leaseMs: LEASE, windowMs: WINDOW_MS, capacity: CAPACITY });
      adopt(this, () => new raw.Claims(o.leaseMs, o.windowMs, o.capacity));
      this[RULES] = [o.leaseMs, o.windowMs];
    }

    /** What to answer the provider after `step` gave `outcome`: core's `ClaimRules::reply`. */
    reply(...args) {
      usable(this);
      return replyOf(call(raw.__claimReply, undefined, REPLY, [this[RULES][0], ...args]));
    }

    /** What to answer the provider when a step threw `error`: core's `reply_to_code`. */
    static errorReply(error) {
      const code = typeof error === 'object' && error !== null && typeof error.code === 'string' ? error.code : '';
      return replyOf(call(raw.__claimErrorReply, undefined, [], [code]));
    }

    static withStore(store, opts) {
      ensureLoaded();
      if (typeof store !== 'object' || store === null) {
        throw refuse('store', 'a store object ({ load(id), compareAndSet(id, expected, next, ttlMs) })', store);
      }
      fn('store.load', 'load(id) { return redis.get(id) }')(store.load);
      fn('store.compareAndSet', 'compareAndSet(id, expected, next, ttlMs) { ... }')(store.compareAndSet);
      const o = options('options', opts, { leaseMs: LEASE, windowMs: WINDOW_MS });
      const claims = Object.create(Claims.prototype);
      claims[STORE] = store;
      claims[RULES] = [o.leaseMs, o.windowMs];
      return claims;
    }

    step(...args) {
      if (!this[STORE]) return call(memoryStep, live(this), STEP, args);
      usable(this);
      const t = task(this, args);
      const born = generation();
      try {
        let need = call(start, t, [], []);
        while (need.op !== 'done') {
          const v = ask(raw, this[STORE], need);
          if (isThenable(v)) {
            Promise.resolve(v).catch(() => {});
            throw new TypeError(`xborder: \`store.${method(need)}\` returned a Promise: step() needs a synchronous store; use stepAsync() with an asynchronous one`);
          }
          need = next(t, need, v);
        }
        return need.outcome;
      } finally {
        done(t, born);
      }
    }

    async stepAsync(...args) {
      if (!this[STORE]) return this.step(...args);
      usable(this);
      const t = task(this, args);
      const born = generation();
      try {
        let need = call(start, t, [], []);
        while (need.op !== 'done') {
          const pending = ask(raw, this[STORE], need); // throws STORE_UNAVAILABLE when the method throws
          let v;
          try {
            v = await pending;
          } catch (e) {
            throw storeFailed(raw, method(need), e);
          }
          need = next(t, need, v);
        }
        return need.outcome;
      } finally {
        done(t, born);
      }
    }
  }
  return Claims;
}

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

export { XborderError, Envelope, xbError, xbMismatch, makeEnvelope, makePageInfo, makeValidation, wrapApi, plainJson, jsonTape, jsonTapeText, isWellFormed };
