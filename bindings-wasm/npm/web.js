// Browsers and bundlers: an ES module. Call `await init()` once before the first call; the
// .wasm is fetched from beside this file (`new URL(..., import.meta.url)`, which bundlers follow).
import wbgInit, * as raw from './web/xborder_wasm.js';
import { XborderError } from './web/@GLUE@/errors.js';
import { wrapApi } from './api/index.js';
import { loader } from './api/loader.js';

let loaded = false; // init() resolved: before, every call throws NOT_INITIALIZED
const api = wrapApi(raw, { XborderError }, { ready: () => loaded });

export { XborderError };
export const {
  classifyEvent,
  checkRegistration,
  createWebhookBody,
  eventMatches,
  sign,
  verify,
  decodeEnvelope,
  Receiver,
  Catalog,
  PageWalker,
  Claims,
  DeliveryHandling,
  handleDelivery,
  validateBeneficiary,
  BeneficiaryValidator,
  beneficiaryForm,
  checkAccount,
  normalizeBeneficiary,
  requiredFields,
  listQuery,
  pageInfo,
  readApiError,
  CatchUp,
  catchUp,
} = api;

/**
 * Loads the WebAssembly module: see js/api/loader.js (a failed load rejects with WASM_LOAD_FAILED
 * and is tried again). The .wasm's path inside the package is given: Vite's dev server moves this
 * file, and the loader then looks for the .wasm where the package is installed.
 */
export const init = loader(wbgInit, () => {
  loaded = true;
}, 'web/xborder_wasm_bg.wasm', XborderError);
