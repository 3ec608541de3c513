// What the Rust side imports for beneficiaries (a wasm-bindgen snippet; src/beneficiary.rs,
// src/account.rs).

/**
 * `{valid, issues: [{path, code, message, label, reason?, params?}]}` (core's Validation), made on
 * the Rust side in one call: each issue's path, code, message, label (when it has one), reason
 * (when it has one) and params' country (when there) are in `text` one after the other; `lengths`
 * holds eight numbers per issue: the lengths in UTF-16 units of the path, the code and the
 * message; the label's plus one (0: no label, `null`); the reason's plus one (0: no reason, and
 * then neither `reason` nor `params`); `params.expected` and `params.actual` plus one (0: absent);
 * the country's length plus one (0: absent).
 */
function makeValidation(valid, text, lengths) {
  const issues = [];
  let at = 0;
  for (let i = 0; i + 7 < lengths.length; i += 8) {
    const path = text.slice(at, (at += lengths[i]));
    const code = text.slice(at, (at += lengths[i + 1]));
    const message = text.slice(at, (at += lengths[i + 2]));
    const n = lengths[i + 3];
    const issue = { path, code, message, label: n === 0 ? null : text.slice(at, (at += n - 1)) };
    const r = lengths[i + 4];
    if (r !== 0) {
      issue.reason = text.slice(at, (at += r - 1));
      const params = {};
      if (lengths[i + 5] !== 0) params.expected = lengths[i + 5] - 1;
      if (lengths[i + 6] !== 0) params.actual = lengths[i + 6] - 1;
      if (lengths[i + 7] !== 0) params.country = text.slice(at, (at += lengths[i + 7] - 1));
      issue.params = params;
    } else if (lengths[i + 7] !== 0) {
      at += lengths[i + 7] - 1; // a country without a reason: none today, skipped alike
    }
    issues.push(issue);
  }
  return { valid, issues };
}

/**
 * `{state, electronic, display}` (core's AccountCheck), and for an invalid value `code`,
 * `reason`, `params` (`{expected?, actual?, country?}`) and `message`: their texts one after the
 * other in `text`, with the UTF-16 length of each (`nCode` 0: not invalid; `nCountry` the
 * country's plus one, 0 when absent), `expected` and `actual` undefined when absent. One call for
 * the whole answer (every keystroke of a form: no array crosses).
 */
function makeAccountCheck(text, nState, nElectronic, nDisplay, nCode, nReason, nMessage, nCountry, expected, actual) {
  let at = nState;
  const state = text.slice(0, at);
  const electronic = text.slice(at, (at += nElectronic));
  const display = text.slice(at, (at += nDisplay));
  if (nCode === 0) return { state, electronic, display };
  const code = text.slice(at, (at += nCode));
  const reason = text.slice(at, (at += nReason));
  const message = text.slice(at, (at += nMessage));
  const params = {};
  if (expected !== undefined && expected !== null) params.expected = expected;
  if (actual !== undefined && actual !== null) params.actual = actual;
  if (nCountry !== 0) params.country = text.slice(at, at + nCountry - 1);
  return { state, electronic, display, code, reason, params, message };
}

export { makeValidation, makeAccountCheck };
