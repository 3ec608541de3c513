// The module's lifecycle, shared by every concern: whether it is loaded (NOT_INITIALIZED before),
// the calls into it (a reset after an INTERNAL_ERROR), and the objects over its wasm-bindgen
// objects (made again after a reset, FREED after free()).
//
// After an INTERNAL_ERROR (a Rust panic) the Rust side asked for a fresh instance, which
// wasm-bindgen creates at the next call; that call is made here at once, with no argument
// (wasm-bindgen 0.2.130 copies a call's arguments into the old instance before switching). The
// package then recovers by itself: every object holds its wasm-bindgen object (INNER) and makes
// it again, in the fresh instance, from what made it (secrets, window, catalog names, options) on
// its next call. What lived only in the old instance's memory is gone: a Receiver's window of
// committed ids, the built-in Claims' claims, a PageWalker's walk (which throws INTERNAL_ERROR:
// start a new one). A Claims store of the host's keeps everything: it lives outside the module.

import { convert } from './kinds.js';

// The codes the glue reports itself (core's codes::NOT_INITIALIZED and codes::FREED): the module
// cannot be asked for them, as it is not loaded or the object's memory is gone.
const NOT_INITIALIZED = 'NOT_INITIALIZED';
const FREED_CODE = 'FREED';

const INNER = Symbol('inner'); // a wrapper's wasm-bindgen object
const REMAKE = Symbol('remake'); // makes it again in a fresh instance (or throws)
const FREED = Symbol('freed'); // free() was called: every later use throws FREED
const BORN = Symbol('born'); // the WebAssembly instance (its generation) an object was made in
const LOST = Symbol('lost'); // marks the error of an object whose state went with a reset

/**
 * The runtime of the wasm-bindgen module `raw`, with the snippet's `XborderError` class.
 * `host.ready` (the browser entries): a function true once init() resolved; without it (Node)
 * the module is loaded on import.
 */
function runtime(raw, XborderError, host = {}) {
  let loaded = typeof host.ready !== 'function';
  const ensureLoaded = () => {
    if (loaded || (loaded = host.ready() === true)) return;
    throw new XborderError(NOT_INITIALIZED, `${NOT_INITIALIZED}: xborder-wasm is not loaded yet: await init() once before the first call (it fetches the .wasm; if it failed, call init() again)`);
  };
  let generation = 0; // which WebAssembly instance: objects of an earlier one are made again
  let resetBy; // the INTERNAL_ERROR that reset the module
  const onReset = []; // what each concern drops when the instance goes (the built-in catalog)
  const reset = (e) => {
    if (e instanceof XborderError && e.code === 'INTERNAL_ERROR' && !e[LOST]) {
      for (const f of onReset) f();
      generation++;
      resetBy = e;
      raw.__xborderReset();
    }
    return e;
  };
  const run = (f, self, args) => {
    if (!loaded) ensureLoaded();
    try {
      return f.apply(self, args);
    } catch (e) {
      throw reset(e);
    }
  };
  const call = (f, self, checks, args) => run(f, self, convert(checks, args));
  /** The error of a use of `o` after its free(). */
  const freedError = (o) => {
    const name = o?.constructor?.name || 'object';
    return new XborderError(FREED_CODE, `${FREED_CODE}: this ${name} was freed (free() was called, or a \`using\` block ended); make a new ${name} to go on`);
  };
  /** The wasm-bindgen object of a wrapper, made again when the module was reset since. */
  const live = (o) => {
    if (o[BORN] !== generation) {
      if (o[FREED]) throw freedError(o); // free() leaves BORN unset: no cost on the usual path
      o[INNER] = run(o[REMAKE], o, []);
      o[BORN] = generation;
    }
    return o[INNER];
  };
  /** Makes a wrapper's wasm-bindgen object (`make(first)`; again with `first` false after a reset). */
  const adopt = (o, make) => {
    o[REMAKE] = () => make(false);
    o[INNER] = run(make, o, [true]);
    o[BORN] = generation;
  };
  /**
   * Releases the memory now (a second call does nothing); a wrapper made before a reset has none
   * in this instance. Any later use throws FREED (`live`, `usable`).
   */
  function free() {
    if (this[FREED]) return;
    this[FREED] = true;
    if (this[BORN] === generation && this[INNER] !== undefined) this[INNER].free();
    this[BORN] = undefined;
    this[INNER] = undefined;
  }
  const freeable = (C) => {
    Object.defineProperty(C.prototype, 'free', { value: free, writable: true, configurable: true });
    if (Symbol.dispose) Object.defineProperty(C.prototype, Symbol.dispose, { value: free, writable: true, configurable: true });
    return C;
  };
  /** A free function of the module, its arguments checked by `checks`. */
  const fn = (name, checks) => {
    const f = raw[name];
    return { [name](...args) { return call(f, this, checks, args); } }[name];
  };
  /** The error of an object whose state was lost with a reset (a walk cannot go on). */
  const lost = (message) => {
    const e = new XborderError(resetBy.code, `${resetBy.code}: ${message}`);
    Object.defineProperty(e, LOST, { value: true }); // a consequence of the reset, not another one
    return e;
  };
  return {
    raw,
    XborderError,
    ensureLoaded,
    run,
    call,
    live,
    adopt,
    freeable,
    freedError,
    fn,
    lost,
    onReset: (f) => onReset.push(f),
    generation: () => generation,
    isFreed: (o) => o[FREED] === true,
  };
}

export { runtime, NOT_INITIALIZED, FREED_CODE };
