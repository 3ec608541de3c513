// Delivery handling (the full module only): `handleDelivery`, the one call from a delivery to the
// answer, and `DeliveryHandling`, the same one act at a time. Core's handling (its StoreSteps)
// decides the order (claim, persist, then complete, or release when the persist failed; in a
// transaction, the commit after the complete) and every answer; this module only carries its acts: the claim steps to the built-in Claims (run
// in the module) or to a store of the host's (each load and compare-and-set awaited here), the
// persist to the host's function, and what each gave back.

import { refuse, str, millis, fn, options, isThenable, convert } from './kinds.js';
import { STORE, RULES, answerOf } from './claims.js';

const TOKEN = (v) => (v === undefined || v === null ? newToken() : str('options.token')(v));
const AT = [millis('atMs', 'Date.now()')];
const OK = [(v) => {
  if (typeof v === 'boolean') return v;
  throw refuse('ok', 'true or false', v, 'whether the persist (or the commit) succeeded');
}];
// The acts a handling goes through (claim, persist, complete, commit, release, answer): core's
// answer comes within six; the bound stops a loop that would not end (a bug), never a handling.
const MAX_ACTS = 16;
// A claim step's store calls: core's conflict limit (16 compare-and-sets) and a load each.
const MAX_CALLS = 2 * 16 + 4;

/** A request token: a UUID (unique per request), from the platform's crypto. */
function newToken() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  throw new TypeError('xborder: `options.token` is required where crypto.randomUUID() is not available: pass a unique id of the request');
}

/** `{ status, retryAfter, headers, outcome, code, persisted }` of core's answer. */
function resultOf(a) {
  return {
    status: a.status,
    retryAfter: a.retryAfter,
    headers: a.retryAfter === null ? {} : { 'Retry-After': String(a.retryAfter) },
    outcome: a.outcome,
    code: a.code,
    persisted: a.persisted,
  };
}

/** The store method an act asks for. */
const methodOf = (act) => (act.act === 'load' ? 'load' : 'compareAndSet');

const what = (e) => (e instanceof Error ? e.message : String(e));

/**
 * The handling API over the runtime `rt`, the Receiver's inputs (`receiving`: signatures.js) and
 * the Claims class.
 */
function handling(rt, receiving, Claims) {
  const { raw, call, live, adopt, freeable, XborderError } = rt;
  const { Receiver, inputs } = receiving;
  const { next, begin, stepIn, loaded, swapped, storeFailed, persisted, lastStep, answer, envelope, refusal, action } = raw.DeliveryHandling.prototype;
  const CHECKS = {
    receiver: (v) => {
      if (v instanceof Receiver) return v;
      throw refuse('options.receiver', 'a Receiver', v, 'pass new Receiver(process.env.WEBHOOK_SECRET, { window: 0 })');
    },
    claims: (v) => {
      if (v === undefined || v === null || v instanceof Claims) return v ?? undefined;
      throw refuse('options.claims', 'a Claims', v, 'pass new Claims() (this process) or Claims.withStore(store)');
    },
    store: (v) => {
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'object') throw refuse('options.store', 'a store object ({ load(id, time), compareAndSet(id, expected, next, ttlMs, time) })', v);
      fn('options.store.load', 'load(id, time) { return redis.get(id) }')(v.load);
      fn('options.store.compareAndSet', 'compareAndSet(id, expected, next, ttlMs, time) { ... }')(v.compareAndSet);
      return v;
    },
    body: (v) => v,
    signature: (v) => v,
    token: TOKEN,
    leaseMs: (v) => v,
    windowMs: (v) => v,
    inTransaction: (v) => {
      if (v === undefined || v === null || typeof v === 'boolean') return v === true;
      throw refuse('options.inTransaction', 'true or false', v, 'true: your write and the claim\'s completion commit together');
    },
  };
  const ERROR = Symbol('error');
  const MAKERS = new WeakSet(); // the catch-up's makers of a recovered event's handling
  const CHECK_ONLY = () => undefined; // a "maker" that makes nothing: the options checked alone
  const HOST_STORE = Symbol('store');
  const MEMORY = Symbol('claims');

  /** The store call `act` asks for (with core's `time`, as claims.js), unawaited; what it threw, marked, when it threw. */
  function ask(store, act) {
    const m = methodOf(act);
    try {
      return m === 'load' ? store.load(act.id, act.time) : store.compareAndSet(act.id, act.expected, act.next, act.ttlMs, act.time);
    } catch (e) {
      return { [ERROR]: e };
    }
  }
  /**
   * Hands the store's answer `v` for `act` back to core (checked by kind, as claims.js does): the
   * next act. A call that threw, or answered a wrong kind, ends the step as core's failed store
   * call (STORE_UNAVAILABLE), its error kept on the handling.
   */
  function answerWith(h, act, v) {
    let e = v !== null && typeof v === 'object' ? v[ERROR] : undefined;
    if (e === undefined) {
      try {
        const checked = answerOf({ op: act.act }, v);
        return call(act.act === 'load' ? loaded : swapped, live(h), [], [checked]);
      } catch (bad) {
        if (!(bad instanceof TypeError)) throw bad;
        e = bad;
      }
    }
    h[ERROR] ??= e;
    return call(storeFailed, live(h), [], [`store.${methodOf(act)} failed: ${what(e)}`]);
  }

  /**
   * One delivery's handling: `next()` says what to do, `step()` / `stepAsync()` run the claim
   * step it asks for, `persisted(ok)` reports the host's write, until `{ act: 'answer' }`.
   */
  class DeliveryHandling {
    constructor(opts, make) {
      const o = options('options', opts, CHECKS);
      if (o.receiver === undefined) throw refuse('options.receiver', 'a Receiver', undefined, 'pass the Receiver that keys the deliveries');
      if ((o.claims === undefined) === (o.store === undefined)) {
        throw new TypeError('xborder: pass one of `options.claims` (a Claims) and `options.store` (a store object): the claims of the delivery\'s event id');
      }
      let rules;
      if (o.claims !== undefined) {
        if (o.leaseMs !== undefined || o.windowMs !== undefined) {
          throw new TypeError('xborder: `options.leaseMs` and `options.windowMs` go with `options.store`; a Claims has its own (new Claims({ leaseMs, windowMs }))');
        }
        rules = o.claims[RULES];
        if (o.claims[STORE]) this[HOST_STORE] = o.claims[STORE];
        else this[MEMORY] = o.claims;
      } else {
        rules = Claims.withStore(o.store, { leaseMs: o.leaseMs, windowMs: o.windowMs })[RULES];
        this[HOST_STORE] = o.store;
      }
      if (make === CHECK_ONLY) return; // the catch-up's check of its options: nothing made
      // `make` (the catch-up's, never a caller's): the handling of a recovered event, which has
      // no body or signature.
      const recovered = MAKERS.has(make) ? make : undefined;
      const args = recovered ? [] : [...inputs(o.receiver, o.body, o.signature), o.token, ...rules, o.inTransaction];
      adopt(this, (first) => {
        if (first && recovered) return recovered(live(o.receiver), ...rules, o.inTransaction);
        if (first) return new raw.DeliveryHandling(live(o.receiver), ...args);
        throw rt.lost('this DeliveryHandling was lost when xborder-wasm was reset after an internal error; answer the delivery 503 (the provider retries) and handle the retry with a new one');
      });
    }

    /** What to do next: `{ act: 'claim' | 'complete' | 'release' | 'commit', id }`, `{ act: 'persist', envelope }` or `{ act: 'answer', answer }`. */
    next() {
      return call(next, live(this), [], []);
    }

    /** The receiver's decision: `process` (claimed, persisted, ...), `ignore`, `duplicate` or `reject`. */
    get action() {
      return call(action, live(this), [], []);
    }

    /** The event's envelope (`null`: the delivery was refused). */
    get envelope() {
      return call(envelope, live(this), [], []) ?? null;
    }

    /**
     * What went wrong, for the host to log: the receiver's refusal (an `XborderError`: code,
     * field, message), or the first error a store call or the persist threw; null when nothing did.
     */
    get error() {
      return this[ERROR] ?? call(refusal, live(this), [], []) ?? null;
    }

    /** Runs the claim, complete or release step `next()` asks for at `atMs`, with the built-in Claims or a synchronous store: the next act. */
    step(...args) {
      const [at] = convert(AT, args);
      if (this[MEMORY]) return call(stepIn, live(this), [], [live(this[MEMORY]), at]);
      const store = this[HOST_STORE];
      let act = call(begin, live(this), [], [at]);
      for (let i = 0; i < MAX_CALLS && (act.act === 'load' || act.act === 'cas'); i++) {
        const v = ask(store, act);
        if (isThenable(v)) {
          Promise.resolve(v).catch(() => {});
          throw new TypeError(`xborder: \`store.${methodOf(act)}\` returned a Promise: step() needs a synchronous store; use stepAsync() with an asynchronous one`);
        }
        act = answerWith(this, act, v);
      }
      return act;
    }

    /** `step` with a store whose methods may return promises (each awaited): the next act. */
    async stepAsync(...args) {
      const [at] = convert(AT, args);
      if (this[MEMORY]) return this.step(at);
      return runAsync(this, this[HOST_STORE], at);
    }

    /** Reports the host's persist (`ok`: it succeeded): the next act (`complete` or `release`). */
    persisted(...args) {
      return call(persisted, live(this), [], [...convert(OK, args), false]);
    }

    /** (In a transaction.) Reports the host's commit (`ok`: it succeeded): the next act (`answer`, or `release`). */
    committed(...args) {
      return call(persisted, live(this), [], [...convert(OK, args), true]);
    }

    /** The last claim step run: `{ step, outcome, code }` (its outcome, or its error's code), or null before the first. */
    lastStep() {
      return call(lastStep, live(this), [], []);
    }

    /** Core's answer once the handling is over: `{ status, retryAfter, outcome, code, persisted }`, or null before. */
    answer() {
      return call(answer, live(this), [], []);
    }
  }
  freeable(DeliveryHandling);

  /** Runs `h`'s claim step at `at` against `store` (its calls awaited): the next act. */
  async function runAsync(h, store, at) {
    let act = call(begin, live(h), [], [at]);
    for (let i = 0; i < MAX_CALLS && (act.act === 'load' || act.act === 'cas'); i++) {
      let v = ask(store, act);
      try {
        v = await v;
      } catch (e) {
        v = { [ERROR]: e };
      }
      act = answerWith(h, act, v);
    }
    return act;
  }

  const PERSIST = fn('options.persist', 'async (envelope, tx) => db.insert(envelope)');
  const NOW = fn('options.now', '() => Date.now()');
  const TRANSACTION = (v) => {
    if (v === undefined || v === null) return undefined;
    const how = '{ begin() { return pool.connect() }, store(tx) { return pgClaimStore(tx) }, commit(tx), rollback(tx) }';
    if (typeof v !== 'object') throw refuse('options.transaction', 'a transaction object', v, how);
    for (const m of ['begin', 'store', 'commit', 'rollback']) fn(`options.transaction.${m}`, how)(v[m]);
    return v;
  };

  /** `t.store(tx, at)`; when it throws, a store whose calls throw that (the step's store failure). */
  function storeOn(t, tx, at) {
    try {
      return t.store(tx, at);
    } catch (e) {
      const fail = () => { throw e; };
      return { load: fail, compareAndSet: fail };
    }
  }

  /**
   * Handles one delivery: the receiver's decision, the claim of its event id, the host's
   * `persist(envelope, tx)`, the complete or release, and core's answer. With `transaction`
   * (core's order in a transaction): `begin()` then the persist on it, the complete's store calls
   * on `store(tx, atMs)` (each call with core's `time` too), `commit(tx)`; a persist or commit that fails is rolled back (`rollback(tx)`)
   * and the claim released on the plain store.
   */
  async function handleDelivery(opts) {
    if (opts === null || typeof opts !== 'object') {
      throw refuse('options', 'an options object ({ receiver, claims | store, body, signature, persist })', opts);
    }
    const { persist, clock, t, rest } = common(opts);
    return drive(handlingOf(rest, t), persist, t, clock);
  }

  /** The options every one call shares (`persist`, `now`, `transaction`), checked; the rest as given. */
  function common(opts) {
    const { persist, now, transaction, ...rest } = opts;
    PERSIST(persist);
    const clock = now === undefined || now === null ? Date.now : NOW(now);
    const t = TRANSACTION(transaction);
    if (rest.inTransaction !== undefined) {
      throw new TypeError('xborder: `options.inTransaction` goes with DeliveryHandling; handleDelivery takes `options.transaction`');
    }
    return { persist, clock, t, rest };
  }

  /** The DeliveryHandling of `rest` (with `make`: a recovered event's), in `t`'s transaction when given. */
  function handlingOf(rest, t, make) {
    const h = new DeliveryHandling(t === undefined ? rest : { ...rest, inTransaction: true }, make);
    if (t !== undefined && h[MEMORY]) {
      h.free();
      throw new TypeError('xborder: `options.transaction` needs the claims in your database: pass `options.store` (or Claims.withStore(store)), whose `transaction.store(tx)` is the same store on the transaction');
    }
    return h;
  }

  /**
   * Drives `h` to its answer (the persist, the commit in `t`, the claim steps at `clock()`), then
   * frees it: handleDelivery's result. `seen(raw)` (the catch-up's) is handed the handling's
   * wasm-bindgen object once it is over.
   */
  async function drive(h, persist, t, clock, seen) {
    let tx;
    let open = false; // a transaction begun, not yet committed or rolled back
    const rollback = async () => {
      open = false;
      try {
        await t.rollback(tx);
      } catch (e) {
        h[ERROR] ??= e;
      }
    };
    try {
      let envelope;
      let act = h.next();
      for (let i = 0; i < MAX_ACTS; i++) {
        if (act.act === 'answer') {
          const out = resultOf(act.answer);
          out.action = h.action;
          out.envelope = envelope ?? h.envelope;
          if (h.error !== null) out.error = h.error;
          if (seen !== undefined) seen(live(h));
          return out;
        }
        if (act.act === 'persist') {
          envelope = act.envelope;
          let ok = true;
          try {
            if (t !== undefined) {
              tx = await t.begin();
              open = true;
            }
            await persist(envelope, tx);
          } catch (e) {
            ok = false;
            h[ERROR] ??= e;
            if (open) await rollback();
          }
          act = h.persisted(ok);
        } else if (act.act === 'commit') {
          let ok = true;
          try {
            open = false;
            await t.commit(tx);
          } catch (e) {
            ok = false;
            h[ERROR] ??= e;
            await rollback();
          }
          act = h.committed(ok);
        } else if (act.act === 'claim' || act.act === 'complete' || act.act === 'release') {
          const at = millis('options.now()', '() => Date.now()')(clock());
          // In a transaction, the complete's store calls go on the transaction (its connection).
          act = t !== undefined && act.act === 'complete' ? await runAsync(h, storeOn(t, tx, at), at) : await h.stepAsync(at);
        } else {
          break;
        }
      }
      throw new XborderError('INTERNAL_ERROR', `INTERNAL_ERROR: xborder-wasm: the handling did not end (last act: ${act.act})`);
    } finally {
      // Never left open (a bug, or an error thrown on the way): nothing of it is kept.
      if (open) await rollback();
      h.free();
    }
  }

  /**
   * For the catch-up's one call: the options of `handleDelivery` without `body` and `signature`
   * (`receiver`, `claims` | `store`, `persist`, `transaction`, `now`, `leaseMs`, `windowMs`),
   * checked once; `run(make, seen)` then handles one recovered event (`make(receiver, leaseMs,
   * windowMs, inTransaction)` its wasm-bindgen handling, `seen` as in `drive`): its result.
   */
  function prepare(opts) {
    if (opts.body !== undefined || opts.signature !== undefined) {
      throw new TypeError('xborder: a catch-up has no `body` or `signature`: its events come from GET /v1/external-events');
    }
    const { persist, clock, t, rest } = common(opts);
    handlingOf(rest, t, CHECK_ONLY); // every option checked before the first page
    return (make, seen) => {
      MAKERS.add(make);
      return drive(handlingOf(rest, t, make), persist, t, clock, seen);
    };
  }

  return { DeliveryHandling, handleDelivery, internals: { prepare, newToken } };
}

export { handling };
