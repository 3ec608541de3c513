// What the Rust side imports for envelopes (a wasm-bindgen snippet; src/signatures.rs): the
// envelope view, whose `data` is parsed from the raw JSON text (kept by the core) on first access.

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

export { Envelope, makeEnvelope };
