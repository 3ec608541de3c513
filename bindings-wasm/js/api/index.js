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
import { apiErrors } from './apierrors.js';
import { catchUps } from './catchup.js';

/**
 * `readApiError`, `CatchUp` and `catchUp` of a module built without them (the browser one): each
 * throws (NOT_INITIALIZED before init(), as every call) a TypeError naming the entry that has them.
 */
function serverOnly(rt) {
  const refuse = (name) => new TypeError(`xborder: ${name} is not in the browser module (xborder-wasm/web): the catch-up and the API's error answers are a server's, in the package's main entry (import from 'xborder-wasm' in Node, Bun or Deno)`);
  return {
    readApiError() {
      rt.ensureLoaded();
      throw refuse('readApiError');
    },
    CatchUp: class CatchUp {
      constructor() {
        rt.ensureLoaded();
        throw refuse('CatchUp');
      }
    },
    catchUp() {
      rt.ensureLoaded();
      return Promise.reject(refuse('catchUp'));
    },
  };
}

/** The full API over the wasm-bindgen module `raw`. */
function wrapApi(raw, { XborderError }, host = {}) {
  const rt = runtime(raw, XborderError, host);
  const ev = events(rt);
  const { receiving, ...webhooks } = signatures(rt, ev, host);
  const Claims = claimsClass(rt);
  const { internals, ...handlers } = handling(rt, receiving, Claims);
  const api = {
    ...ev.api,
    ...webhooks,
    Claims,
    ...handlers,
    ...beneficiaries(rt),
    ...pagination(rt),
    // The catch-up and the API's error answers are a server's: the browser module (web/) is
    // built without them (its size budget), and says so where they are called.
    ...(typeof raw.CatchUp === 'function' ? { ...apiErrors(rt), ...catchUps(rt, internals) } : serverOnly(rt)),
  };
  // The test build's hook (build.sh --test-hooks); absent from the published module.
  if (typeof raw.__panicForTests === 'function') api.__panicForTests = rt.fn('__panicForTests', []);
  return api;
}

export { wrapApi };
