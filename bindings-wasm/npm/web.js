// Browsers and bundlers: an ES module. Call `await init()` once before the first call; the
// .wasm is fetched from beside this file (`new URL(..., import.meta.url)`, which bundlers follow).
import wbgInit, * as raw from './web/xborder_wasm.js';
import { XborderError, wrapApi } from './web/@GLUE@';

const api = wrapApi(raw);

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

let ready;

/**
 * Loads the WebAssembly module (once; later calls return the same promise). `source` replaces
 * the default location of the .wasm: a URL, a Response, bytes or a compiled module.
 */
export function init(source) {
  if (!ready) {
    ready = wbgInit(source === undefined ? undefined : { module_or_path: source }).then(() => undefined);
  }
  return ready;
}
