// Pagination: listQuery, pageInfo and the PageWalker class, with the check of list parameters.

import { refuse, fn, isOptions, isThenable, convert } from './kinds.js';
import { plainJson, textIn as text } from './json.js';

const PARAMS_HOW = "pass an object of list parameters ({ page: 0, pageSize: 50, filters: { status: 'success' } }), or leave it out for the defaults";

/**
 * List parameters: absent (undefined or null: the defaults) or an object (a plain one, or one
 * whose JSON is the parameters: a `toJSON`, a class instance). Any other kind (a number, a
 * string, a boolean, an array, a function) is a TypeError, as for every other parameter; which
 * keys and values an object may hold is core's (`UNKNOWN_PARAMETER`, `INVALID_*`).
 */
const listParams = (name) => (v) => {
  if (v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v) && !isThenable(v))) return v;
  throw refuse(name, 'an object of list parameters', v, PARAMS_HOW);
};
const LIST_PARAMS = listParams('params');
/**
 * The pagination API over the runtime `rt`; parameters and responses cross as their JSON text
 * (json.js).
 */
function pagination(rt) {
  const { raw, run, call, live, adopt, freeable } = rt;
  // A plain response object (what `await res.json()` gives): its page fields (the four, and
  // `meta`, where an envelope `{data, meta}` keeps them) and the length of its `data` cross, never
  // the records; core reads them as it reads the whole response (`page_info_of`). Anything else
  // (text, a class instance, a `toJSON`) crosses whole, as every other input.
  const REQUEST = listParams('request');
  function pageInfo(response, request) {
    REQUEST(request);
    if (isOptions(response) && Array.isArray(response.data) && typeof response.toJSON !== 'function') {
      const { total, page, pageSize, hasNext, meta } = response;
      return run(raw.__pageInfoOf, undefined, [response.data.length, text([{ total, page, pageSize, hasNext, meta }, request ?? null])]);
    }
    return run(raw.pageInfo, undefined, [text(response), request === undefined || request === null ? undefined : text(request)]);
  }

  const { nextQuery, isDone, __feed } = raw.PageWalker.prototype;
  const FETCH_PAGE = [fn('fetchPage', 'async (query) => (await fetch(`${url}?${query}`)).json()'),
    (v) => (v === undefined || v === null ? undefined : fn('onStep', '(step) => console.log(step.drifts)')(v))];
  /** Walks every page of a list: the query to send next, each record once, the drift. */
  class PageWalker {
    constructor(params) {
      LIST_PARAMS(params);
      adopt(this, (first) => {
        if (first) return new raw.PageWalker(text(params));
        // Which records were passed on lived in the old instance: a walk cannot go on.
        throw rt.lost("this PageWalker's walk was lost when xborder-wasm was reset after an internal error; start a new PageWalker");
      });
    }
    nextQuery() {
      return call(nextQuery, live(this), [], []) ?? null;
    }
    isDone() {
      return call(isDone, live(this), [], []);
    }
    feed(response) {
      const { fresh, info, drifts } = call(__feed, live(this), [], [text(response)]);
      // The caller's own records at the indices the core passes on (its plain copy when the
      // response is made by toJSON).
      const own = isOptions(response) && typeof response.toJSON !== 'function' ? response.data : undefined;
      const data = Array.isArray(own) && typeof own.toJSON !== 'function' ? own : plainJson(response).data;
      return { records: fresh.map((i) => data[i]), info, drifts };
    }
    records(...args) {
      live(this); // FREED at the call, not at the first page
      const [fetchPage, onStep] = convert(FETCH_PAGE, args);
      const walker = this;
      return (async function* records() {
        for (let query = walker.nextQuery(); query !== null; query = walker.nextQuery()) {
          const step = walker.feed(await fetchPage(query));
          if (onStep !== undefined) await onStep(step);
          yield* step.records;
        }
      })();
    }
  }
  freeable(PageWalker);

  return { listQuery: rt.fn('listQuery', [(v) => text(LIST_PARAMS(v))]), pageInfo, PageWalker };
}

export { pagination };
