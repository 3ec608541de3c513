// Loading a browser build's WebAssembly (web.js and forms.js): `init(source)` once, the same
// promise to every later call; a load that failed is not kept, so the next call tries again.
// A load that fails rejects with XborderError WASM_LOAD_FAILED (the original error as `cause`),
// whose message says what was fetched (its URL, HTTP status, content type and first bytes, as
// far as they are known) and what to do: pass the .wasm's URL to `init(source)`.
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

const WASM_LOAD_FAILED = 'WASM_LOAD_FAILED';
const VITE_DEPS = /\/\.vite\/deps(?:_temp_[^/]*)?\/[^/]*$/;
const MAGIC = [0x00, 0x61, 0x73, 0x6d]; // `\0asm`, the first bytes of every WebAssembly module

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
  if (!VITE_DEPS.test(url.pathname)) return undefined;
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

/** What bytes begin with, for a person: their text when they read as text, else hexadecimal. */
function beginning(bytes) {
  const head = Array.from(bytes.subarray(0, 32));
  if (head.length === 0) return 'nothing (an empty body)';
  const printable = head.every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127));
  if (printable) return `"${String.fromCharCode(...head).replace(/\s+/g, ' ')}${bytes.length > 32 ? '…' : ''}"`;
  return head.slice(0, 8).map((b) => b.toString(16).padStart(2, '0')).join(' ');
}

/** The bytes of a BufferSource, or undefined. */
function bytesOf(source) {
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return undefined;
}

const isWasm = (bytes) => bytes.length >= 4 && MAGIC.every((b, i) => bytes[i] === b);

/**
 * What the engine's own message says the bytes began with (V8: `expected magic word 00 61 73 6d,
 * found 3c 21 64 6f @+0`), as text; '' when it does not say.
 */
function foundInMessage(e) {
  const m = /found ((?:[0-9a-f]{2} ){3}[0-9a-f]{2})/.exec(String(e && e.message));
  if (!m) return '';
  const bytes = new Uint8Array(m[1].split(' ').map((h) => parseInt(h, 16)));
  return ` (the bytes begin ${beginning(bytes)})`;
}

/**
 * The URL the default location was fetched from, when the page's resource timing names exactly
 * one `.wasm` fetched since `since` (the generated loader fetches it; the loader cannot see it),
 * with its HTTP status and content type where the browser reports them (`: URL, HTTP 200,
 * text/html`); '' otherwise.
 */
function fetchedSince(since) {
  try {
    const found = performance.getEntriesByType('resource').filter((r) =>
      r.startTime >= since && r.initiatorType === 'fetch' && /\.wasm(?:[?#]|$)/.test(r.name));
    if (found.length !== 1) return '';
    const status = found[0].responseStatus;
    return `: ${found[0].name}${status ? `, HTTP ${status}` : ''}${found[0].contentType ? `, ${found[0].contentType}` : ''}`;
  } catch {
    return '';
  }
}

const now = () => (typeof performance === 'object' && typeof performance.now === 'function' ? performance.now() : 0);

const describeError = (e) => `${(e && e.name) || 'Error'}: ${(e && e.message) || String(e)}`;

/** Why a load failed (`what`, for the message) and the error under it; made into the XborderError by `init`. */
class LoadFailure {
  constructor(what, cause) {
    this.what = what;
    this.cause = cause;
  }
}

/**
 * The `init` of a build whose wasm-bindgen loader is `wbgInit`; `onLoaded()` is called when the
 * module is ready (before it, every call throws NOT_INITIALIZED). `wasm` is the .wasm's path
 * inside the package (`forms/xborder_wasm_bg.wasm`): where the dev-server case above finds it, and
 * what the error of a failed load names. `XborderError` is the package's error class.
 */
function loader(wbgInit, onLoaded, wasm, XborderError) {
  /** Loads from a Response; a body that is not WebAssembly is refused before it is compiled. */
  const fromResponse = async (res) => {
    const url = res.url || 'the Response given';
    if (!res.ok) throw new LoadFailure(`${url} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
    const type = res.headers.get('content-type') || '';
    if (type.split(';')[0].trim().toLowerCase() === 'application/wasm') {
      // Compiled as it streams; an error here is a body that is not this module.
      return wbgInit({ module_or_path: res }).catch((e) => {
        throw new LoadFailure(`${url} answered HTTP ${res.status} (application/wasm), not this module: ${describeError(e)}${foundInMessage(e)}`, e);
      });
    }
    // Another content type: the body is read (wasm-bindgen would warn about the type, then do so).
    let bytes;
    try {
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      throw new LoadFailure(`reading the body of ${url} failed: ${describeError(e)}`, e);
    }
    const page = /html/i.test(type) ? ' (a web page: the server has no .wasm there)' : '';
    return fromBytes(bytes, `the body of ${url} (HTTP ${res.status}, ${type ? `content-type ${type}` : 'no content-type'}) is`, page);
  };
  /** Loads from bytes (`what`: their name and verb); bytes that are not WebAssembly are not compiled. */
  const fromBytes = (bytes, what, note = '') => {
    if (!isWasm(bytes)) throw new LoadFailure(`${what} not WebAssembly, beginning ${beginning(bytes)}${note}`);
    return wbgInit({ module_or_path: bytes }).catch((e) => {
      throw new LoadFailure(`${what} WebAssembly but not this module: ${describeError(e)}`, e);
    });
  };
  /** Fetches `url` (a string, URL or Request) and loads the answer. */
  const fromUrl = async (url) => {
    let res;
    try {
      res = await fetch(url);
    } catch (e) {
      const name = typeof url === 'object' && 'url' in url ? url.url : String(url);
      throw new LoadFailure(`fetching ${name} failed: ${describeError(e)}${e && e.cause ? ` (${describeError(e.cause)})` : ''}`, e);
    }
    return fromResponse(res);
  };
  /** Loads from what `init(source)` was given. */
  const fromSource = async (source) => {
    if (source && typeof source.then === 'function') {
      try {
        source = await source;
      } catch (e) {
        throw new LoadFailure(`the source given rejected: ${describeError(e)}`, e);
      }
    }
    if (typeof source === 'string' || source instanceof URL || (typeof Request === 'function' && source instanceof Request)) {
      return fromUrl(source);
    }
    if (typeof Response === 'function' && source instanceof Response) return fromResponse(source);
    const bytes = bytesOf(source);
    if (bytes) return fromBytes(bytes, 'the bytes given are');
    return wbgInit({ module_or_path: source }).catch((e) => {
      throw new LoadFailure(`the source given (${Object.prototype.toString.call(source)}) is not this module: ${describeError(e)}`, e);
    });
  };
  /** Loads from the default location (beside the package's JavaScript, as bundled). */
  const fromDefault = () => {
    const since = now();
    return wbgInit(undefined).catch(async (e) => {
      const cause = e && e.cause ? ` (${describeError(e.cause)})` : '';
      const where = fetchedSince(since);
      const tried = [`loading it from its default location (beside the package's JavaScript, where the bundler or server put it${where}) failed: ${describeError(e)}${cause}${foundInMessage(e)}`];
      const moved = viteDeps(import.meta.url, wasm);
      if (moved) {
        try {
          return await fromUrl(moved.sibling);
        } catch (e2) {
          tried.push(e2 instanceof LoadFailure ? e2.what : describeError(e2));
        }
        try {
          return await wbgInit({ module_or_path: await viteResolved(moved.resolved) });
        } catch (e3) {
          tried.push(`Vite's resolver (${moved.resolved}) did not give it: ${describeError(e3)}`);
        }
      }
      throw new LoadFailure(tried.join('; then '), e);
    });
  };

  /** The XborderError of a failed load, the original error as its `cause`. */
  const coded = (e, given) => {
    const what = e instanceof LoadFailure ? e.what : describeError(e);
    const cause = e instanceof LoadFailure ? e.cause : e;
    const remedy = given
      ? `init(source) takes the URL of the package's ${wasm} (or a Response, its bytes, its compiled module)`
      : `serve the package's ${wasm} with your assets and pass its URL: await init(url) (with Vite: import url from 'xborder-wasm/${wasm}?url'); see the README, "Bundlers and dev servers"`;
    const error = new XborderError(WASM_LOAD_FAILED, `${WASM_LOAD_FAILED}: init() could not load xborder-wasm's WebAssembly (${wasm}): ${what}; ${remedy}`);
    if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause, writable: true, configurable: true });
    return error;
  };

  let loading;
  /**
   * Loads the WebAssembly module (once; later calls return the same promise). `source` replaces
   * the default location of the .wasm: a URL, a Response, bytes or a compiled module. A load that
   * failed (a 404, the network, bytes that are not the module) rejects with WASM_LOAD_FAILED and
   * is not kept: the next call tries again (with its own `source`).
   */
  return function init(source) {
    if (!loading) {
      const given = source !== undefined;
      const load = given ? fromSource(source) : fromDefault();
      loading = load.then(onLoaded, (e) => {
        loading = undefined;
        throw coded(e, given);
      });
    }
    return loading;
  };
}

export { loader };
