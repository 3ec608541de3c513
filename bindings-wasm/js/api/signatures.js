// Signatures and receiving (the full module only): sign, verify, decodeEnvelope and the Receiver,
// with the checks of what a webhook handler passes (a secret or several, the raw body, the
// signature header in every form a handler has it).

import { refuse, str, strings, count, instance, isOptions, options, convert } from './kinds.js';
import { ADDED } from './events.js';

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

/**
 * The webhook API over the runtime `rt` and the event API `ev` (events.js): the Receiver classifies
 * with a catalog's copy. `host.hmac` (Node: node:crypto, passed by index.cjs) is the host's
 * HMAC-SHA256 when it has a faster one: the glue computes the tags, core reads the header and
 * compares in constant time (`verify_tags`). Browsers pass none: the module's own HMAC.
 */
function signatures(rt, ev, host = {}) {
  const { raw, run, live, call, adopt, freeable, ensureLoaded } = rt;
  const { Catalog } = ev.api;
  const { builtin, catalogOf } = ev;
  const hmac = typeof host.hmac === 'function' ? host.hmac : undefined;
  let headerName;
  const signatureName = () => {
    if (headerName === undefined) {
      ensureLoaded();
      headerName = raw.__signatureHeader().toLowerCase();
    }
    return headerName;
  };
  const signature = (v) => signatureIn(signatureName, v);

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
  function verify(...args) {
    const [list, bytes, [value, values]] = convert(VERIFY, args);
    if (hmac) return run(raw.__verifyTags, undefined, [tagsOf(keysOf(list), bytes), value, values]);
    return run(raw.verify, undefined, [list, bytes, value, values]);
  }

  const { receive, __receiveWithTags: receiveWithTags, commit } = raw.Receiver.prototype;
  const KEYS = Symbol('keys');
  const SECRETS = secrets('secretOrSecrets');
  const WINDOW_EXAMPLE = 'how many committed ids to remember (10000)';
  const WINDOW = count('window', `${WINDOW_EXAMPLE} or an options object ({ window, catalog })`);
  const RECEIVER_OPTIONS = {
    window: count('options.window', WINDOW_EXAMPLE),
    catalog: (v) => (v === undefined || v === null ? undefined : instance('options.catalog', Catalog, 'a Catalog (new Catalog())')(v)),
  };
  const RECEIVE = [body, signature];
  const COMMIT = [str('id')];
  /** Verifies, decodes, classifies and dedupes webhook deliveries. */
  class Receiver {
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
  }
  freeable(Receiver);
  /**
   * What a `DeliveryHandling` hands the module for `receiver`'s decision, checked as `receive`
   * checks them: `[bytes, tags, value, values]` (`tags`: the host's HMACs, or undefined).
   */
  const inputs = (receiver, ...args) => {
    const [bytes, [value, values]] = convert(RECEIVE, args);
    return [bytes, receiver[KEYS] ? tagsOf(receiver[KEYS], bytes) : undefined, value, values];
  };

  return { receiving: { Receiver, inputs }, sign: rt.fn('sign', [str('secret'), body]), verify, decodeEnvelope: rt.fn('decodeEnvelope', [body]), Receiver };
}

export { signatures };
