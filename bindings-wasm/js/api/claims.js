// Claims on event ids (the full module only): the Claims class, with core's in-memory store or a
// store of the host's (sync or async) driven through core's claim task.

import { refuse, str, count, millis, maybeMillis, fn, options, isThenable, convert } from './kinds.js';

const STEP = [str('step'), str('id'), str('token'), millis('atMs', 'Date.now()')];
const LEASE = maybeMillis('options.leaseMs', 'how long a claim holds (30000)');
const WINDOW_MS = maybeMillis('options.windowMs', 'how long a done id is a duplicate (604800000: 7 days)');
const STORE = Symbol('store');
const REPLY = [(v) => v, str('step'), str('outcome')];
/** A reply pair from the module as `{ status, retryAfter }`; null for an empty one (`claimed`). */
const replyOf = (pair) => (pair.length === 0 ? null : { status: pair[0], retryAfter: pair[1] < 0 ? null : pair[1] });
const RULES = Symbol('rules');

function storeFailed(raw, method, cause) {
  const e = raw.__storeUnavailable(`store.${method} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  e.cause = cause;
  return e;
}

/** A store's answer checked by kind: a load's entry text (or null), a compare-and-set's boolean. */
function answer(need, v) {
  if (need.op === 'load') {
    if (typeof v === 'string' || v === null || v === undefined) return v ?? null;
    throw refuse('store.load', 'an entry text (a string) or null/undefined when there is none (a result)', v);
  }
  if (typeof v === 'boolean') return v;
  throw refuse('store.compareAndSet', 'true or false (a result)', v, 'answer whether the entry was the expected one and was set');
}

/** The store method a need asks for. */
const method = (need) => (need.op === 'load' ? 'load' : 'compareAndSet');

/**
 * The store call a need asks for, unawaited, with core's times (`time`: `{ nowMs, ttlMs,
 * expiresAtMs }`, clamped by core: the store writes and compares them as they are);
 * STORE_UNAVAILABLE (with the cause) when it throws.
 */
function ask(raw, store, need) {
  try {
    return need.op === 'load' ? store.load(need.id, need.time) : store.compareAndSet(need.id, need.expected, need.next, need.ttlMs, need.time);
  } catch (e) {
    throw storeFailed(raw, method(need), e);
  }
}

/**
 * The `Claims` class: core's in-memory store, or the host's store driven through core's claim
 * task (every decision, the retries on conflict included, is the task's: the loops below only
 * carry its needs to the store and the answers back). The built-in store lives in the module's
 * memory: after a reset it is made again, empty. A store of the host's lives outside it: a task
 * is made per step, so nothing of it is lost.
 */
function claimsClass(rt) {
  const { raw, call, live, adopt, generation, ensureLoaded, freeable } = rt;
  const { step: memoryStep } = raw.Claims.prototype;
  const { start, loaded, swapped } = raw.ClaimTask.prototype;
  const CAPACITY = count('options.capacity', 'how many done ids to remember (10000)');
  const newTask = (...args) => new raw.ClaimTask(...args);
  const task = (claims, args) => call(newTask, undefined, [], [...claims[RULES], ...convert(STEP, args)]);
  // A task's memory is given back at once, unless the module was reset meanwhile (wasm-bindgen's
  // free() would then free that address in the new instance).
  const done = (t, born) => {
    if (generation() === born) t.free();
  };
  /** A Claims (of a store of the host's: nothing in the module) not freed, the module loaded. */
  const usable = (claims) => {
    if (rt.isFreed(claims)) throw rt.freedError(claims);
    ensureLoaded();
  };
  const next = (t, need, v) => call(need.op === 'load' ? loaded : swapped, t, [], [answer(need, v)]);

  class Claims {
    constructor(opts) {
      const o = options('options', opts, { leaseMs: LEASE, windowMs: WINDOW_MS, capacity: CAPACITY });
      adopt(this, () => new raw.Claims(o.leaseMs, o.windowMs, o.capacity));
      this[RULES] = [o.leaseMs, o.windowMs];
    }

    /** What to answer the provider after `step` gave `outcome`: core's `ClaimRules::reply`. */
    reply(...args) {
      usable(this);
      return replyOf(call(raw.__claimReply, undefined, REPLY, [this[RULES][0], ...args]));
    }

    /** What to answer the provider when a step threw `error`: core's `reply_to_code`. */
    static errorReply(error) {
      const code = typeof error === 'object' && error !== null && typeof error.code === 'string' ? error.code : '';
      return replyOf(call(raw.__claimErrorReply, undefined, [], [code]));
    }

    static withStore(store, opts) {
      ensureLoaded();
      if (typeof store !== 'object' || store === null) {
        throw refuse('store', 'a store object ({ load(id, time), compareAndSet(id, expected, next, ttlMs, time) })', store);
      }
      fn('store.load', 'load(id, time) { return redis.get(id) }')(store.load);
      fn('store.compareAndSet', 'compareAndSet(id, expected, next, ttlMs, time) { ... }')(store.compareAndSet);
      const o = options('options', opts, { leaseMs: LEASE, windowMs: WINDOW_MS });
      const claims = Object.create(Claims.prototype);
      claims[STORE] = store;
      claims[RULES] = [o.leaseMs, o.windowMs];
      return claims;
    }

    step(...args) {
      if (!this[STORE]) return call(memoryStep, live(this), STEP, args);
      usable(this);
      const t = task(this, args);
      const born = generation();
      try {
        let need = call(start, t, [], []);
        while (need.op !== 'done') {
          const v = ask(raw, this[STORE], need);
          if (isThenable(v)) {
            Promise.resolve(v).catch(() => {});
            throw new TypeError(`xborder: \`store.${method(need)}\` returned a Promise: step() needs a synchronous store; use stepAsync() with an asynchronous one`);
          }
          need = next(t, need, v);
        }
        return need.outcome;
      } finally {
        done(t, born);
      }
    }

    async stepAsync(...args) {
      if (!this[STORE]) return this.step(...args);
      usable(this);
      const t = task(this, args);
      const born = generation();
      try {
        let need = call(start, t, [], []);
        while (need.op !== 'done') {
          const pending = ask(raw, this[STORE], need); // throws STORE_UNAVAILABLE when the method throws
          let v;
          try {
            v = await pending;
          } catch (e) {
            throw storeFailed(raw, method(need), e);
          }
          need = next(t, need, v);
        }
        return need.outcome;
      } finally {
        done(t, born);
      }
    }
  }
  return freeable(Claims);
}


export { claimsClass, STORE, RULES, answer as answerOf };
