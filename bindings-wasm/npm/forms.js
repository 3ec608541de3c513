// The forms module (`xborder-wasm/forms`), for pages that render and validate beneficiary forms:
// beneficiaries only, an ES module over a smaller .wasm built without signatures, envelopes,
// claims, the receiver, webhook registration, event names or pagination (the full module's).
// Call `await init()` once before the first call; the .wasm is fetched from beside this file
// (`new URL(..., import.meta.url)`, which bundlers follow). Its answers are the full module's.
import wbgInit, * as raw from './forms/xborder_wasm.js';
import { XborderError } from './forms/@GLUE@/errors.js';
import { wrapForms } from './api/forms.js';
import { loader } from './api/loader.js';

let loaded = false; // init() resolved: before, every call throws NOT_INITIALIZED
const api = wrapForms(raw, { XborderError }, { ready: () => loaded });

export { XborderError };
export const {
  validateBeneficiary,
  BeneficiaryValidator,
  beneficiaryForm,
  checkAccount,
  normalizeBeneficiary,
  requiredFields,
} = api;

/**
 * Loads the WebAssembly module: see js/api/loader.js (a failed load rejects with WASM_LOAD_FAILED
 * and is tried again). The .wasm's path inside the package is given: Vite's dev server moves this
 * file, and the loader then looks for the .wasm where the package is installed.
 */
export const init = loader(wbgInit, () => {
  loaded = true;
}, 'forms/xborder_wasm_bg.wasm', XborderError);
