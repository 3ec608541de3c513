// Conversion helpers imported by the Rust side (wasm-bindgen snippet). build.sh turns the
// last line into `module.exports = {...};` for the CommonJS (Node) build. No rule lives here:
// the error class every xborder function throws, the envelope view whose `data` is parsed
// from the raw JSON text (kept by the core) on first access, and the two helpers the Rust side
// reads JS documents with (plainJson, isWellFormed).

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

const FUNCTIONS = ['classifyEvent', 'checkRegistration', 'createWebhookBody', 'eventMatches', 'sign', 'verify',
  'decodeEnvelope', 'validateBeneficiary', 'requiredFields', 'listQuery', 'pageInfo', '__panicForTests'];

/**
 * The public API over the wasm-bindgen module `raw`. Each call is passed through, except after
 * an INTERNAL_ERROR (a Rust panic): the Rust side then asked for a fresh instance, which
 * wasm-bindgen creates at the next call; that call is made here at once, with no argument
 * (wasm-bindgen 0.2.130 copies a call's arguments into the old instance before switching).
 */
function wrapApi(raw) {
  const guard = (f) => function (...args) {
    try {
      return f.apply(this, args);
    } catch (e) {
      if (e instanceof XborderError && e.code === 'INTERNAL_ERROR') raw.__xborderReset();
      throw e;
    }
  };
  const api = {};
  for (const name of FUNCTIONS) api[name] = guard(raw[name]);
  for (const name of ['receive', 'commit']) raw.Receiver.prototype[name] = guard(raw.Receiver.prototype[name]);
  api.Receiver = raw.Receiver;
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
