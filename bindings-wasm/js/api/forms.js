// The public API of the forms module (`xborder-wasm/forms`): beneficiaries, event names and
// pagination over the smaller WebAssembly module built without signatures, envelopes, claims,
// the receiver or webhook registration (the crate without its `webhooks` feature). The same
// modules as the full API's, so each answers alike in both.

import { runtime } from './runtime.js';
import { events } from './events.js';
import { beneficiaries } from './beneficiary.js';
import { pagination } from './pagination.js';

/** The forms API over the forms module's wasm-bindgen module `raw`. */
function wrapForms(raw, { XborderError, plainJson }, host = {}) {
  const rt = runtime(raw, XborderError, host);
  return { ...events(rt).api, ...beneficiaries(rt, plainJson), ...pagination(rt, plainJson) };
}

export { wrapForms };
