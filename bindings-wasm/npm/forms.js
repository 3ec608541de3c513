// The forms module (`xborder-wasm/forms`), for pages that validate beneficiary forms, ask which
// fields to show, classify event names and build or walk list queries: an ES module over a
// smaller .wasm built without signatures, envelopes, claims, the receiver or webhook registration.
// Call `await init()` once before the first call; the .wasm is fetched from beside this file
// (`new URL(..., import.meta.url)`, which bundlers follow). Its answers are the full module's.
import wbgInit, * as raw from './forms/xborder_wasm.js';
import { XborderError } from './forms/@GLUE@/errors.js';
import { plainJson } from './forms/@GLUE@/json.js';
import { wrapForms } from './api/forms.js';

let loaded = false; // init() resolved: before, every call throws NOT_INITIALIZED
const api = wrapForms(raw, { XborderError, plainJson }, { ready: () => loaded });

export { XborderError };
export const {
  classifyEvent,
  eventMatches,
  Catalog,
  validateBeneficiary,
  BeneficiaryValidator,
  requiredFields,
  listQuery,
  pageInfo,
  PageWalker,
} = api;

let loading;

/**
 * Loads the forms module's WebAssembly (once; later calls return the same promise). `source`
 * replaces the default location of the .wasm: a URL, a Response, bytes or a compiled module. A
 * load that failed (a 404, the network, bytes that are not the module) is not kept: the next call
 * tries again (with its own `source`).
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
