// What the Rust side imports for errors (a wasm-bindgen snippet; src/errors.rs, src/signatures.rs):
// the error class every xborder function throws. build.sh turns the last line into
// `module.exports = {...};` for the CommonJS (Node) build. The public API (js/api/) is handed
// this class by the package's entry files, so `instanceof XborderError` holds for every error.

/** The error every xborder function throws: `code` is a FORMAT.md code. */
class XborderError extends Error {
  constructor(code, message, field, rejected) {
    super(message);
    this.name = 'XborderError';
    this.code = code;
    if (field !== undefined) this.field = field;
    if (rejected !== undefined) this.rejected = rejected;
  }
}

function xbError(code, message, field, rejected) {
  return new XborderError(code, message, field, rejected);
}

/**
 * What a signature that does not match the body usually means in JavaScript: the body was
 * parsed and written again (express.json(), JSON.stringify) before it was verified.
 */
const RAW_BODY_HINT = 'the body must be the raw bytes as received (express.raw(), await req.arrayBuffer()), not re-serialised JSON';

/** The error of a signature that does not match the body (core's code and message), with the hint. */
function xbMismatch(code, message) {
  return new XborderError(code, `${message}; ${RAW_BODY_HINT}`);
}

export { XborderError, xbError, xbMismatch };
