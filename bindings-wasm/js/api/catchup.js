// The catch-up (`events.catch_up`): events the provider dead-lettered after an outage longer
// than its retries, recovered from `GET /v1/external-events`. `CatchUp` is core's walk, one page
// at a time (newest first, down to the checkpoint minus an overlap); `catchUp` (the full module)
// is the one call: it GETs every page with the host's HTTP client, waits and retries as core
// says, hands each event found (oldest first) to the same handling as a delivery (claims,
// persist, complete), and returns the checkpoint for the next time. No rule lives here: which
// page, when to retry, which event is new and where the checkpoint may move are core's.

import { refuse, str, fn, options, isOptions, convert } from './kinds.js';
import { textIn as text } from './json.js';
import { headerList, status } from './apierrors.js';

const SINCE_HOW = 'pass the checkpoint an earlier catch-up returned (a date-time string), or leave it out to walk everything';
const since = (name) => (v) => {
  if (v === undefined || v === null || typeof v === 'string') return v ?? undefined;
  throw refuse(name, 'a date-time string', v, SINCE_HOW);
};
const number = (name, example) => (v) => {
  if (v === undefined || v === null || typeof v === 'number') return v ?? undefined;
  throw refuse(name, 'a number', v, `pass ${example}, or leave it out`);
};
const WALK = {
  since: since('options.since'),
  overlapMs: number('options.overlapMs', '300000 (5 minutes, the default)'),
  pageSize: number('options.pageSize', '100 (the default)'),
};

/**
 * The catch-up API over the runtime `rt`; `handling` (the full module: handling.js's internals)
 * gives the one call its handling of each event.
 */
function catchUps(rt, handling) {
  const { raw, call, live, adopt, freeable } = rt;
  const { nextQuery, isDone, feed, answered, events, drifts, checkpoint } = raw.CatchUp.prototype;
  const ANSWERED = [status('status'), (v) => headerList('headers', v), str('text')];

  /** The walk of `GET /v1/external-events` down to the checkpoint (core's CatchUp). */
  class CatchUp {
    constructor(opts) {
      const o = options('options', opts, WALK);
      adopt(this, (first) => {
        if (first) return new raw.CatchUp(o.since, o.overlapMs, o.pageSize);
        throw rt.lost("this CatchUp's walk was lost when xborder-wasm was reset after an internal error; start a new CatchUp from the same checkpoint");
      });
    }
    /** The query of the next page (`GET /v1/external-events?` + it), null when the walk is over. */
    nextQuery() {
      return call(nextQuery, live(this), [], []) ?? null;
    }
    isDone() {
      return call(isDone, live(this), [], []);
    }
    /** Feeds the page answered to nextQuery() (the parsed body or its text): its drift. */
    feed(page) {
      return call(feed, live(this), [], [typeof page === 'string' ? page : text(page)]);
    }
    /**
     * The answer to nextQuery() as your HTTP client got it: `{ drifts }` (the page was fed) or
     * `{ waitMs }` (send the same query again after it). Throws API_ERROR (`error.api`: the
     * API's answer read) or MALFORMED_RESPONSE.
     */
    answered(...args) {
      return call(answered, live(this), ANSWERED, args);
    }
    /** The events found so far, oldest first: `{ id, event, entityId, entityType, createdAt }`. */
    events() {
      return call(events, live(this), [], []);
    }
    drifts() {
      return call(drifts, live(this), [], []);
    }
    /** The checkpoint once every event found is handled (null: none). */
    checkpoint() {
      return call(checkpoint, live(this), [], []) ?? null;
    }
  }
  freeable(CatchUp);

  if (handling === undefined) return { CatchUp };

  const GET = fn('options.get', "(path) => fetch(API + path, { headers: { 'x-api-key': KEY } })");
  const SLEEP = fn('options.sleep', '(ms) => new Promise((r) => setTimeout(r, ms))');
  const sleepFor = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** The status, headers and body text of what `get` resolved to (a Fetch Response, or one like it). */
  async function answerOf(res) {
    if (res === null || typeof res !== 'object') throw refuse('options.get(path)', 'a Response', res, 'return fetch(...) (or an object with status, headers and text())');
    const body = fn('options.get(path).text', 'a Response\'s text()')(res.text);
    return [res.status, res.headers, await body.call(res)];
  }

  /**
   * Runs one catch-up: `{ since?, overlapMs?, pageSize?, get(path), sleep?(ms), onDrift?(drift),
   * receiver, claims | store, persist(envelope, tx), transaction?, now?, leaseMs?, windowMs? }`;
   * resolves to `{ checkpoint, found, processed, skipped, rejected, failed, drifts }`. Keep
   * `checkpoint` and pass it as `since` next time.
   */
  async function catchUp(opts) {
    if (!isOptions(opts)) throw refuse('options', 'an options object ({ since, get, receiver, claims | store, persist })', opts);
    const { since: from, overlapMs, pageSize, get, sleep, onDrift, token, ...rest } = opts;
    convert([GET], [get]);
    const wait = sleep === undefined || sleep === null ? sleepFor : SLEEP(sleep);
    const report = onDrift === undefined || onDrift === null ? undefined : fn('options.onDrift', '(drift) => log.warn(drift.code)')(onDrift);
    const run = handling.prepare(rest);
    const prefix = token === undefined || token === null ? handling.newToken() : str('options.token')(token);
    const walk = new CatchUp({ since: from, overlapMs, pageSize });
    let recovery;
    try {
      for (let query = walk.nextQuery(); query !== null; query = walk.nextQuery()) {
        const step = walk.answered(...(await answerOf(await get(`/v1/external-events?${query}`))));
        if (step.waitMs !== undefined) await wait(step.waitMs);
        else if (report !== undefined) for (const d of step.drifts) await report(d);
      }
      const found = walk.events().length;
      recovery = call(raw.CatchUp.prototype.__recover, live(walk), [], []);
      const r = (method, ...args) => rt.run(raw.Recovery.prototype[method], recovery, args);
      // Each event once, oldest first; the loop ends when core has recorded every answer (or
      // records none: a bug, never a loop).
      let recorded = true;
      for (let i = 0; recorded && r('nextEvent') !== null; i++) {
        recorded = false;
        const make = (receiver, ...args) => r('__handling', receiver, `${prefix}:${i}`, ...args);
        await run(make, (h) => {
          recorded = r('__handled', h);
        });
      }
      return { checkpoint: r('checkpoint') ?? null, found, ...r('tally'), drifts: walk.drifts() };
    } finally {
      walk.free();
      recovery?.free();
    }
  }

  return { CatchUp, catchUp };
}

export { catchUps };
