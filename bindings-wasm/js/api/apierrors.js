// The API's error answers (`api.error`): readApiError, core's reading of an error response of the
// provider's API (code, message, details, request id) and what a client may do next (`after` a
// delay, `check_first` for a create that may have happened, `no`).

import { refuse, str, options, isOptions, isThenable } from './kinds.js';
import { textIn as text } from './json.js';

const HEADERS_HOW = 'pass res.headers (Fetch), the headers of your client as an object, or leave it out';

/**
 * Response headers as the flat list the module takes (`[name, value, ...]`): absent (none), a
 * Fetch Headers (or anything with its `forEach(value, name)`: a Map), a plain object (values a string or a list
 * of strings; `undefined` skipped), or a list of `[name, value]` pairs.
 */
function headerList(name, v) {
  const out = [];
  if (v === undefined || v === null) return out;
  const add = (k, x, where) => {
    if (x === undefined) return;
    if (typeof x === 'string') out.push(k, x);
    else if (Array.isArray(x) && x.every((s) => typeof s === 'string')) for (const s of x) out.push(k, s);
    else throw refuse(where, 'a header value (a string)', x, HEADERS_HOW);
  };
  if (Array.isArray(v)) {
    v.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') throw refuse(`${name}[${i}]`, 'a [name, value] pair', pair, HEADERS_HOW);
      add(pair[0], pair[1], `${name}[${i}][1]`);
    });
    return out;
  }
  const tag = Object.prototype.toString.call(v);
  if (tag === '[object Headers]' || (typeof v === 'object' && typeof v.forEach === 'function')) {
    v.forEach((x, k) => add(String(k), x, `${name}.get('${k}')`));
    return out;
  }
  if (isOptions(v)) {
    for (const k of Object.keys(v)) add(k, v[k], `${name}['${k}']`);
    return out;
  }
  throw refuse(name, 'response headers', v, HEADERS_HOW);
}

/** An HTTP status: an integer number from 100 to 599. */
const status = (name) => (v) => {
  if (Number.isInteger(v) && v >= 100 && v <= 599) return v;
  throw refuse(name, 'an HTTP status (an integer number from 100 to 599)', v, 'pass res.status');
};

const READ = {
  method: str('options.method'),
  status: status('options.status'),
  headers: (v) => headerList('options.headers', v),
  body: (v) => {
    // The text, or a parsed JSON value (a plain object or array, a number, a boolean); never
    // bytes, a Response or a promise, which JSON would turn into something else silently.
    if (v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || Array.isArray(v) || isOptions(v)) {
      if (isThenable(v)) throw refuse('options.body', 'the body\'s text or its parsed JSON', v, 'await it first: body: await res.text()');
      return v;
    }
    throw refuse('options.body', 'the body\'s text or its parsed JSON', v, 'pass body: await res.text() (or the value res.json() gave)');
  },
};

/** The API's error answers over the runtime `rt`. */
function apiErrors(rt) {
  /**
   * Reads an error answer: `{ method, status, headers?, body? }`, `body` the response text (a
   * string) or the body you parsed (any other JSON value); `{ status, code, message, details,
   * requestId, retry, afterMs }`. Reading never fails on what the server sent.
   */
  function readApiError(opts) {
    if (!isOptions(opts)) throw refuse('options', 'an options object ({ method, status, headers, body })', opts, "pass { method: 'POST', status: res.status, headers: res.headers, body: await res.text() }");
    const o = options('options', opts, READ);
    if (o.method === undefined) throw refuse('options.method', 'a string', undefined, "the request's method: 'GET', 'POST', ...");
    if (o.status === undefined) throw refuse('options.status', 'an HTTP status (an integer number from 100 to 599)', undefined, 'pass res.status');
    const body = o.body;
    const args = body === undefined || body === null ? [undefined, false] : typeof body === 'string' ? [body, false] : [text(body), true];
    return rt.run(rt.raw.__readApiError, undefined, [o.method, o.status, o.headers, ...args]);
  }
  return { readApiError };
}

export { apiErrors, headerList, status };
