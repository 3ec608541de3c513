// What the Rust side imports for beneficiaries (a wasm-bindgen snippet; src/beneficiary.rs).

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

export { makeValidation };
