// Browsers and bundlers: an ES module. Call `await init()` once before the first call; the
// .wasm is fetched from beside this file (`new URL(..., import.meta.url)`, which bundlers follow).
import wbgInit, * as raw from './web/xborder_wasm.js';
import { XborderError } from './web/@GLUE@/errors.js';
import { plainJson } from './web/@GLUE@/json.js';
import { wrapApi } from './api/index.js';

let loaded = false; // init() resolved: before, every call throws NOT_INITIALIZED
const api = wrapApi(raw, { XborderError, plainJson }, { ready: () => loaded });

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
  validateBeneficiary,
  BeneficiaryValidator,
  requiredFields,
  listQuery,
  pageInfo,
} = api;

let loading;

/**
 * Loads the WebAssembly module (once; later calls return the same promise). `source` replaces
 * the default location of the .wasm: a URL, a Response, bytes or a compiled module. A load that
 * failed (a 404, the network, bytes that are not the module) is not kept: the next call tries
 * again (with its own `source`).
 */
export function init(source) {
  if (!loading) {
    loading = wbgInit(source === undefined ? undefined : { module_or_path: source }).then(
      () => {
        loaded = true;
      },
      (e) => {
        loading = undefined;
        throw e;
      },
    );
  }
  return loading;
}
