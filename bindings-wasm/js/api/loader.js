// Loading a browser build's WebAssembly (web.js and forms.js): `init(source)` once, the same
// promise to every later call; a load that failed is not kept, so the next call tries again.

/**
 * The `init` of a build whose wasm-bindgen loader is `wbgInit`; `onLoaded()` is called when the
 * module is ready (before it, every call throws NOT_INITIALIZED).
 */
function loader(wbgInit, onLoaded) {
  let loading;
  /**
   * Loads the WebAssembly module (once; later calls return the same promise). `source` replaces
   * the default location of the .wasm: a URL, a Response, bytes or a compiled module. A load that
   * failed (a 404, the network, bytes that are not the module) is not kept: the next call tries
   * again (with its own `source`).
   */
  return function init(source) {
    if (!loading) {
      loading = wbgInit(source === undefined ? undefined : { module_or_path: source }).then(onLoaded, (e) => {
        loading = undefined;
        throw e;
      });
    }
    return loading;
  };
}

export { loader };
