// JS values as JSON: jsonText, the text every document and draft crosses into the module as (the
// Rust side reads it with core's one JSON parser, src/json.rs), and plainJson, the plain data of
// the same text.

/**
 * A JS value's JSON text: what JSON.stringify writes (toJSON honoured, undefined, functions and
 * symbols dropped from objects and written null in arrays, -0 written 0, a lone surrogate
 * escaped as `\udXXX`, which the Rust side refuses as serde_json does), `null` when it writes
 * nothing (a function, a symbol). JSON.stringify writes Infinity and NaN (and 1e400, which JS
 * reads as Infinity) as null, which would change the input silently: they throw instead, as a
 * BigInt or a cycle does, and the binding reports MALFORMED_JSON, as the other runtimes do for
 * such text.
 */
function jsonText(value) {
  // Without a replacer JSON.stringify takes its fast path; a non-finite number can only have
  // become a `null`, so a text with one is written again with the check.
  let text = JSON.stringify(value);
  if (text !== undefined && text.includes('null')) text = JSON.stringify(value, finite);
  return text === undefined ? 'null' : text;
}

function finite(_key, x) {
  // JSON.stringify unboxes a Number object after the replacer: check both forms.
  if (typeof x === 'number' ? !Number.isFinite(x) : x instanceof Number && !Number.isFinite(Number(x))) {
    throw new RangeError('a non-finite number');
  }
  return x;
}

/** A JS value as plain JSON data: what JSON.parse reads back from jsonText (a new value). */
function plainJson(value) {
  return JSON.parse(jsonText(value));
}

/**
 * The text a value crosses into the module as: its JSON text, or no text ('') where
 * JSON.stringify refuses it (a cycle, a BigInt, a non-finite number), which the Rust side refuses
 * with MALFORMED_JSON, its message saying why.
 */
function textIn(value) {
  try {
    return jsonText(value);
  } catch {
    return '';
  }
}

export { plainJson, jsonText, textIn };
