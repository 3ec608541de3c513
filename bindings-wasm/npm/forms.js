// The forms module (`xborder-wasm/forms`), for pages that validate beneficiary forms, ask which
// fields to show, classify event names and build or walk list queries: an ES module over a
// smaller .wasm built without signatures, envelopes, claims, the receiver or webhook registration.
// Call `await init()` once before the first call; the .wasm is fetched from beside this file
// (`new URL(..., import.meta.url)`, which bundlers follow). Its answers are the full module's.
import wbgInit, * as raw from './forms/xborder_wasm.js';
import { XborderError } from './forms/@GLUE@/errors.js';
import { plainJson } from './forms/@GLUE@/json.js';
import { wrapForms } from './api/forms.js';
import { loader } from './api/loader.js';

let loaded = false; // init() resolved: before, every call throws NOT_INITIALIZED
const api = wrapForms(raw, { XborderError, plainJson }, { ready: () => loaded });

export { XborderError };
export const {
  classifyEvent,
  eventMatches,
  Catalog,
  validateBeneficiary,
  BeneficiaryValidator,
  beneficiaryForm,
  checkAccount,
  normalizeBeneficiary,
  requiredFields,
  listQuery,
  pageInfo,
  PageWalker,
} = api;

/** Loads the WebAssembly module: see js/api/loader.js (a failed load is tried again). */
export const init = loader(wbgInit, () => {
  loaded = true;
});
