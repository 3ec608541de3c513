// The public API of the forms module (`xborder-wasm/forms`): beneficiaries only (the form model,
// account checks, normalize, validate, required fields) over the smaller WebAssembly module built
// without signatures, envelopes, claims, the receiver, webhook registration, event names or
// pagination (the crate without its default features). The same module as the full API's, so
// each answers alike in both.

import { runtime } from './runtime.js';
import { beneficiaries } from './beneficiary.js';

/** The forms API over the forms module's wasm-bindgen module `raw`. */
function wrapForms(raw, { XborderError }, host = {}) {
  const rt = runtime(raw, XborderError, host);
  return { ...beneficiaries(rt) };
}

export { wrapForms };
