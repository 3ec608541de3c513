// The public API of the full module (the package's main entry and `xborder-wasm/web`): every
// concern's module over one runtime. The entry files (npm/index.cjs, npm/web.js) hand in the
// wasm-bindgen module `raw`, the snippet's `XborderError`, and what the host adds
// (`ready` in browsers, `hmac` in Node). No rule lives here or in the modules below: they check
// each parameter's kind and pass it through (kinds.js), and keep the objects alive across a reset
// (runtime.js); every answer is core's.

import { runtime } from './runtime.js';
import { events } from './events.js';
import { signatures } from './signatures.js';
import { claimsClass } from './claims.js';
import { handling } from './handling.js';
import { beneficiaries } from './beneficiary.js';
import { pagination } from './pagination.js';

/** The full API over the wasm-bindgen module `raw`. */
function wrapApi(raw, { XborderError }, host = {}) {
  const rt = runtime(raw, XborderError, host);
  const ev = events(rt);
  const { receiving, ...webhooks } = signatures(rt, ev, host);
  const Claims = claimsClass(rt);
  const api = {
    ...ev.api,
    ...webhooks,
    Claims,
    ...handling(rt, receiving, Claims),
    ...beneficiaries(rt),
    ...pagination(rt),
  };
  // The test build's hook (build.sh --test-hooks); absent from the published module.
  if (typeof raw.__panicForTests === 'function') api.__panicForTests = rt.fn('__panicForTests', []);
  return api;
}

export { wrapApi };
