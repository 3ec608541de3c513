// Loading a browser build's WebAssembly (web.js and forms.js): `init(source)` once, the same
// promise to every later call; a load that failed is not kept, so the next call tries again.
//
// Vite's dev server (5, 6 and 7: the esbuild dependency optimizer) copies this package's
// JavaScript into `node_modules/.vite/deps/` and leaves the .wasm where it was, so the default
// location (`new URL(..., import.meta.url)` in the generated loader) names a file that is not
// there and the server answers its index.html (`CompileError: expected magic word`). When this
// file runs from there and the default location failed, the .wasm is loaded once more from where
// the package is installed: `node_modules/xborder-wasm/<wasm>` beside `.vite/`, else where Vite's
// own resolver puts it (`/@id/xborder-wasm/<wasm>?import&url` answers its URL: a workspace that
// hoisted the package to its root). No config line.
// Vite 8 (the rolldown optimizer) rewrites the location itself; production builds, webpack and
// Next.js follow `new URL(..., import.meta.url)`, so this path is never taken there.

const VITE_DEPS = /\/\.vite\/deps(?:_temp_[^/]*)?\/[^/]*$/;

/**
 * Where the package's `.wasm` (`wasm`, its path inside the package) is when this file was copied
 * into Vite's dependency cache (`…/node_modules/.vite/deps/x.js`): the `sibling` URL beside
 * `.vite/`, and the dev server's `@id` URL that resolves it; undefined elsewhere.
 */
function viteDeps(here, wasm) {
  let url;
  try {
    url = new URL(here);
  } catch {
    return undefined;
  }
  const found = VITE_DEPS.exec(url.pathname);
  if (!found) return undefined;
  if (!wasm) {
    // Vite names the copy after the import: `xborder-wasm_forms.js` for `xborder-wasm/forms`,
    // `xborder-wasm.js` or `xborder-wasm_web.js` for the full module. A shared chunk
    // (`chunk-….js`) says neither: no guess, the default location's error stands.
    const entry = /\/xborder-wasm(_forms|_web)?\.js$/.exec(found[0]);
    if (!entry) return undefined;
    wasm = entry[1] === '_forms' ? 'forms/xborder_wasm_bg.wasm' : 'web/xborder_wasm_bg.wasm';
  }
  const at = url.pathname.indexOf('/@fs/');
  const base = at >= 0 ? url.pathname.slice(0, at + 1) : url.pathname.replace(/node_modules\/\.vite\/deps[^/]*\/[^/]*$/, '');
  return {
    sibling: new URL(url.pathname.replace(VITE_DEPS, `/xborder-wasm/${wasm}`), url.origin),
    resolved: new URL(`${base}@id/xborder-wasm/${wasm}?import&url`, url.origin),
  };
}

/** The .wasm's URL as the Vite dev server's resolver finds it (a module whose default is it). */
async function viteResolved(id) {
  const m = await import(/* webpackIgnore: true */ /* @vite-ignore */ String(id));
  return new URL(m.default, id);
}

/**
 * The `init` of a build whose wasm-bindgen loader is `wbgInit`; `onLoaded()` is called when the
 * module is ready (before it, every call throws NOT_INITIALIZED). `wasm` is the .wasm's path
 * inside the package (`forms/xborder_wasm_bg.wasm`), for the dev-server case above; without it,
 * the path is read from the name Vite gave the copy.
 */
function loader(wbgInit, onLoaded, wasm) {
  let loading;
  /**
   * Loads the WebAssembly module (once; later calls return the same promise). `source` replaces
   * the default location of the .wasm: a URL, a Response, bytes or a compiled module. A load that
   * failed (a 404, the network, bytes that are not the module) is not kept: the next call tries
   * again (with its own `source`).
   */
  return function init(source) {
    if (!loading) {
      let load;
      if (source === undefined) {
        load = wbgInit(undefined).catch((e) => {
          const moved = viteDeps(import.meta.url, wasm);
          if (!moved) throw e;
          return wbgInit({ module_or_path: moved.sibling }).catch(async () =>
            wbgInit({ module_or_path: await viteResolved(moved.resolved).catch(() => { throw e; }) }));
        });
      } else {
        load = wbgInit({ module_or_path: source });
      }
      loading = load.then(onLoaded, (e) => {
        loading = undefined;
        throw e;
      });
    }
    return loading;
  };
}

export { loader };
