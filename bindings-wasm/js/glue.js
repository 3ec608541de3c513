// Conversion helpers imported by the Rust side (wasm-bindgen snippet). build.sh turns the
// last line into `module.exports = {...};` for the CommonJS (Node) build. No rule lives here:
// the error class every xborder function throws, the envelope view whose `data` is parsed
// from the raw JSON text (kept by the core) on first access, the checks of every public
// parameter's kind (wrapApi), and the two helpers the Rust side reads JS documents with
// (plainJson, isWellFormed).

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

function xbError(code, message, field, rejected) {
  return new XborderError(code, message, field, rejected);
}

const RAW = Symbol('rawData');
const DATA = Symbol('data');

/** A decoded webhook envelope; `data` is `entity.data`, parsed once, when first read. */
class Envelope {
  constructor(id, event, kind, entityId, entityType, rawData) {
    this.id = id;
    this.event = event;
    this.kind = kind;
    this.entityId = entityId;
    this.entityType = entityType;
    this[RAW] = rawData;
  }
  get rawData() {
    return this[RAW];
  }
  get data() {
    if (this[RAW] === undefined) return undefined;
    if (!(DATA in this)) this[DATA] = JSON.parse(this[RAW]);
    return this[DATA];
  }
  toJSON() {
    const out = { id: this.id, event: this.event, kind: this.kind, entityId: this.entityId, entityType: this.entityType };
    if (this[RAW] !== undefined) out.data = this.data;
    return out;
  }
}

function makeEnvelope(id, event, kind, entityId, entityType, rawData) {
  return new Envelope(id, event, kind, entityId, entityType, rawData);
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

/** The raw body: a string (its UTF-8 bytes), a Uint8Array (a Node Buffer is one) or an ArrayBuffer. */
function body(v) {
  if (typeof v === 'string') return ENCODER.encode(v);
  if (TYPED_ARRAY_TAG.call(v) === 'Uint8Array') return v;
  if (isArrayBuffer(v)) return new Uint8Array(v);
  throw refuse('body', 'the raw body: a string, a Uint8Array (a Buffer) or an ArrayBuffer', v,
    'pass the bytes exactly as received, not a parsed or re-serialised object');
}

/** The X-Webhook-Signature header: a string, or null/undefined when absent. */
function header(v) {
  if (typeof v === 'string' || v === null || v === undefined) return v;
  throw refuse('signature', 'the X-Webhook-Signature header value (a string, or null/undefined when absent)', v,
    'pass the single header value (a string)');
}

/** An optional count: absent (undefined or null) or a non-negative integer number, never `+x`. */
const count = (name, example) => (v) => {
  if (v === undefined || v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0)) return v;
  throw refuse(name, 'a non-negative integer (a number)', v, `pass ${example}, or leave it out`);
};

const EXISTING = count('existingWebhooks', 'how many webhooks exist (3)');

/** The checks of each function's parameters, in order; `null` passes a JSON document as it is. */
const PARAMETERS = {
  classifyEvent: [str('name')],
  checkRegistration: [names('events', "['order:created']"), EXISTING],
  createWebhookBody: [names('events', "['order:created']"), str('url'), EXISTING],
  eventMatches: [names('subscriptions', "['order:*']"), str('event')],
  sign: [str('secret'), body],
  verify: [secrets('secretOrSecrets'), body, header],
  decodeEnvelope: [body],
  validateBeneficiary: [],
  requiredFields: [null, str('paymentType'), str('country')],
  listQuery: [],
  pageInfo: [],
  __panicForTests: [],
};

function convert(checks, args) {
  for (let i = 0; i < checks.length; i++) if (checks[i]) args[i] = checks[i](args[i]);
  return args;
}

/**
 * The public API over the wasm-bindgen module `raw`: each call's arguments are checked and
 * converted (above), then passed through. After an INTERNAL_ERROR (a Rust panic) the Rust side
 * asked for a fresh instance, which wasm-bindgen creates at the next call; that call is made here
 * at once, with no argument (wasm-bindgen 0.2.130 copies a call's arguments into the old
 * instance before switching).
 */
function wrapApi(raw) {
  const reset = (e) => {
    if (e instanceof XborderError && e.code === 'INTERNAL_ERROR') raw.__xborderReset();
    return e;
  };
  const call = (f, self, checks, args) => {
    convert(checks, args);
    try {
      return f.apply(self, args);
    } catch (e) {
      throw reset(e);
    }
  };
  const api = {};
  for (const [name, checks] of Object.entries(PARAMETERS)) {
    const f = raw[name];
    api[name] = { [name](...args) { return call(f, this, checks, args); } }[name];
  }
  const { receive, commit } = raw.Receiver.prototype;
  const NEW = [secrets('secretOrSecrets'), count('window', 'how many committed ids to remember (10000)')];
  const RECEIVE = [body, header];
  const COMMIT = [str('id')];
  /** Verifies, decodes, classifies and dedupes webhook deliveries. */
  api.Receiver = class Receiver extends raw.Receiver {
    constructor(secretOrSecrets, window) {
      const args = convert(NEW, [secretOrSecrets, window]);
      try {
        super(...args);
      } catch (e) {
        throw reset(e);
      }
    }
    receive(...args) {
      return call(receive, this, RECEIVE, args);
    }
    commit(...args) {
      return call(commit, this, COMMIT, args);
    }
  };
  return api;
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

export { XborderError, Envelope, xbError, makeEnvelope, wrapApi, plainJson, isWellFormed };
