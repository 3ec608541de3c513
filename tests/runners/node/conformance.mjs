// The conformance cases of FORMAT.md run against the public API of xborder-wasm. Shared by the
// Node runner and the browser runner (this file runs in both: no Node or DOM API besides atob).
//
// await runVectors(xb, files, { asyncStore }) → { lines, passed, failed, skipped }, where `files`
// is [{ name, doc }] (doc: the parsed vector file) and `xb` the package's exports. After each case
// of a hostile file (path containing "hostile") one ordinary call must still succeed.
// `delivery.claims` runs each case with the built-in store and with a store written here, in JS
// (asynchronous when `asyncStore`: the Node runner; synchronous in the browser runner).
// `delivery.handle` (the project's own op, tests/vectors/handling/) drives one DeliveryHandling per
// delivery, act by act (in a transaction when the input says `transaction`: its commit reported
// per the delivery's `commit`), with the built-in Claims and with an asynchronous store written
// here (stepAsync): the two must agree. Each claim step's text is the package's lastStep().
// `signature.verify` and `webhook.receive` also pass each signature as a handler has it (a record
// of headers, a Fetch Headers): the outcome must be the same. `beneficiary.validate` hands a
// document that is a JSON string over as the JS string (the response text), anything else as the
// parsed value, through both validateBeneficiary and a BeneficiaryValidator (which must agree,
// messages and labels included); `pagination.walk` drives the public PageWalker. Contract v4
// (issue 31): `account.check` through checkAccount, `beneficiary.form` through beneficiaryForm and
// a BeneficiaryValidator's form (which must agree), `beneficiary.normalize` through
// normalizeBeneficiary (the draft given must come back unchanged); results compared by the v4
// rules (an expected null matches null or absent, `issues` paired by their keys, `fields` in order).
// Contract v4's api.json (issue 34): `api.error` through readApiError, `events.catch_up` through
// the public CatchUp.

const OPS = [
  'event.classify',
  'event.check_registration',
  'event.matches',
  'signature.sign',
  'signature.verify',
  'envelope.decode',
  'webhook.receive',
  'beneficiary.validate',
  'pagination.query',
  'pagination.info',
  'pagination.walk',
  'delivery.claims',
  'delivery.handle',
  'account.check',
  'beneficiary.form',
  'beneficiary.normalize',
  'api.error',
  'events.catch_up',
];

/** Ops FORMAT.md defines that this runner does not implement yet: counted as skipped. */
const NOT_YET = [];

/**
 * FORMAT.md's loop over a walker (a PageWalker, a CatchUp): ask for the next query (none: done);
 * no page left: not done; feed the next page (an error: thrown) and note the query; `onStep`
 * gets what each feed gave.
 */
function feedPages(walker, pages, onStep) {
  const queries = [];
  let fed = 0;
  for (;;) {
    const query = walker.nextQuery();
    if (query === null) return { queries, done: true };
    if (fed === pages.length) return { queries, done: false };
    const step = walker.feed(pages[fed++]);
    queries.push(query);
    onStep(step);
  }
}

/** `body` as given, or `bodyBase64` as bytes (Uint8Array). */
function body(input) {
  if (typeof input.bodyBase64 === 'string') {
    const bin = atob(input.bodyBase64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }
  return input.body ?? '';
}

/** A thrown XborderError as FORMAT.md's `{ok: false, error, field?}`; anything else rethrown. */
function failure(xb, e) {
  if (!(e instanceof xb.XborderError)) throw e;
  const out = { ok: false, error: e.code };
  if (typeof e.field === 'string') out.field = e.field; // undefined or null: no field
  return out;
}

function attempt(xb, f) {
  try {
    return f();
  } catch (e) {
    return failure(xb, e);
  }
}

/**
 * The runner's own claim store, plugged in through the public store interface as a user plugs
 * in Redis: entry texts in a Map, compared and set as text (it keeps no expiry: core's rules
 * ignore an entry past its TTL). Its answers are Promises when `async` (then the steps go
 * through `stepAsync`). Every call must come with core's time (`{ nowMs, ttlMs, expiresAtMs }`,
 * `ttlMs` equal to the compare-and-set's): a call without one throws (the step's
 * STORE_UNAVAILABLE, a failed vector).
 */
function mapStore(async) {
  const texts = new Map();
  const answer = (v) => (async ? Promise.resolve(v) : v);
  const timed = (time, ttlMs = null) => {
    const ms = (n) => Number.isSafeInteger(n) && n >= 0;
    if (!(time && ms(time.nowMs) && time.ttlMs === ttlMs && (time.expiresAtMs === null || ms(time.expiresAtMs)))) {
      throw new TypeError(`the store was not given core's time: ${JSON.stringify(time)} (ttlMs ${ttlMs})`);
    }
  };
  return {
    load: (id, time) => {
      timed(time);
      return answer(texts.get(id) ?? null);
    },
    compareAndSet(id, expected, next, ttlMs, time) {
      timed(time, ttlMs);
      if ((texts.get(id) ?? null) !== expected) return answer(false);
      if (next === null) texts.delete(id);
      else texts.set(id, next);
      return answer(true);
    },
  };
}

/** Each step's outcome, or its error's code. */
async function claimSteps(xb, claims, steps, async) {
  const results = [];
  for (const s of steps) {
    try {
      results.push(async ? await claims.stepAsync(s.do, s.id, s.token, s.at) : claims.step(s.do, s.id, s.token, s.at));
    } catch (e) {
      results.push(failure(xb, e).error);
    }
  }
  return results;
}

/**
 * The vector's signature header as a handler has it: in a record of headers (Node's
 * `req.headers`, the name in another case) and in a Fetch `Headers` (where it accepts the value),
 * `{}` and an empty `Headers` when absent. None for a value with a comma, which a header
 * collection holds as several values (FORMAT.md's signature is one string).
 */
function headerForms(signature) {
  if (signature === null || signature === undefined) return [{}, new Headers()];
  if (typeof signature !== 'string' || signature.includes(',')) return [];
  const forms = [{ 'X-Webhook-Signature': signature, 'content-type': 'application/json' }];
  try {
    forms.push(new Headers({ 'x-webhook-signature': signature }));
  } catch {
    // Not a value a Fetch Headers takes (a NUL, a line break inside it).
  }
  return forms;
}

const handlers = {
  'event.classify': (xb, i) => xb.classifyEvent(i.name),
  'event.check_registration': (xb, i) => xb.checkRegistration(i.events, i.existingWebhooks ?? undefined),
  'event.matches': (xb, i) => ({ matches: xb.eventMatches(i.subscriptions, i.event) }),
  'signature.sign': (xb, i) => attempt(xb, () => ({ signature: xb.sign(i.secret, body(i)) })),
  'signature.verify': (xb, i) => {
    // The one string when the vector has `secret`, the list when it has `secrets` (rotation);
    // neither: an empty list (EMPTY_SECRET).
    const verify = (signature) =>
      attempt(xb, () => {
        xb.verify(i.secrets ?? i.secret ?? [], body(i), signature);
        return { ok: true };
      });
    const out = verify(i.signature);
    // The same header as a handler has it verifies alike (core's signature_header picks it).
    for (const form of headerForms(i.signature)) {
      const again = verify(form);
      if (JSON.stringify(again) !== JSON.stringify(out)) return { ok: 'differs', asValue: out, asHeaders: again };
    }
    return out;
  },
  'envelope.decode': (xb, i) =>
    attempt(xb, () => {
      const env = xb.decodeEnvelope(body(i));
      const out = { ok: true, id: env.id, event: env.event, kind: env.kind, entityId: env.entityId, entityType: env.entityType };
      if (env.rawData !== undefined) out.data = env.data;
      return out;
    }),
  'webhook.receive': (xb, i) => {
    let receiver;
    try {
      receiver = new xb.Receiver(i.secrets ?? i.secret, i.window ?? undefined);
    } catch (e) {
      const { error } = failure(xb, e); // a misconfigured receiver rejects every delivery
      return { decisions: i.deliveries.map(() => ({ action: 'reject', error })) };
    }
    try {
      const decisions = i.deliveries.map((d) => {
        const decision = receiver.receive(body(d), d.signature);
        // The same header as a handler has it is decided alike (receiving remembers nothing).
        for (const form of headerForms(d.signature)) {
          const again = receiver.receive(body(d), form);
          if (again.action !== decision.action || again.error?.code !== decision.error?.code) {
            return { action: 'differs', asValue: decision.action, asHeaders: again.action };
          }
        }
        if (decision.action === 'reject') return { action: 'reject', error: decision.error.code };
        // The consumer commits after persisting (process) or acknowledging (ignore), unless
        // the delivery stands for a crash before that.
        if ((decision.action === 'process' || decision.action === 'ignore') && d.commit !== false) {
          receiver.commit(decision.envelope.id);
        }
        return { action: decision.action };
      });
      return { decisions };
    } finally {
      receiver.free();
    }
  },
  // Both paths: the one-call function, and the validator that reads the rules and banks once.
  // A document that is a JSON string in the vector is the response text: handed over as the JS
  // string it is. Issues are compared by path and code (their message and label, which vectors
  // do not pin, must be the same on both paths).
  'beneficiary.validate': (xb, i) => {
    const once = xb.validateBeneficiary(i.draft, i.rules, i.banks);
    const validator = new xb.BeneficiaryValidator(i.rules, i.banks);
    try {
      const reused = validator.validate(i.draft);
      if (JSON.stringify(reused) !== JSON.stringify(once)) {
        throw new Error(`BeneficiaryValidator gave ${JSON.stringify(reused)}, validateBeneficiary ${JSON.stringify(once)}`);
      }
    } finally {
      validator.free();
    }
    for (const issue of once.issues) {
      if (typeof issue.message !== 'string' || issue.message === '' || !(issue.label === null || typeof issue.label === 'string')) {
        throw new Error(`an issue without its message or label: ${JSON.stringify(issue)}`);
      }
      if (('reason' in issue) !== ('params' in issue)) throw new Error(`reason without params, or params without reason: ${JSON.stringify(issue)}`);
    }
    // Every key: the v4 rules pair an expected issue with an actual one by the keys it has.
    return once;
  },
  // The state, forms and, when invalid, code, reason, params and an English message.
  'account.check': (xb, i) =>
    attempt(xb, () => {
      const c = xb.checkAccount(i.kind, i.value);
      const invalid = c.state === 'invalid';
      if (invalid !== (typeof c.message === 'string' && c.message !== '') || invalid !== ('code' in c)) {
        throw new Error(`message and code must be there exactly when invalid: ${JSON.stringify(c)}`);
      }
      return c;
    }),
  // Both paths: the one-call function, and the form of a validator over the same documents.
  'beneficiary.form': (xb, i) => {
    const owner = i.ownerType ?? undefined;
    const once = attempt(xb, () => ({ fields: xb.beneficiaryForm({ country: i.country, paymentType: i.paymentType, ownerType: owner, rules: i.rules, banks: i.banks }) }));
    const validator = new xb.BeneficiaryValidator(i.rules, i.banks);
    try {
      const reused = attempt(xb, () => ({ fields: validator.form(i.country, i.paymentType, owner) }));
      if (JSON.stringify(reused) !== JSON.stringify(once)) {
        throw new Error(`BeneficiaryValidator#form gave ${JSON.stringify(reused)}, beneficiaryForm ${JSON.stringify(once)}`);
      }
    } finally {
      validator.free();
    }
    return once;
  },
  // A new value: the draft handed over is left as it was.
  'beneficiary.normalize': (xb, i) => {
    const before = JSON.stringify(i.draft);
    const draft = xb.normalizeBeneficiary(i.draft);
    if (JSON.stringify(i.draft) !== before) throw new Error(`normalizeBeneficiary changed the draft it was given: ${JSON.stringify(i.draft)}`);
    return { draft };
  },
  'pagination.query': (xb, i) => attempt(xb, () => ({ query: xb.listQuery(i) })),
  'pagination.info': (xb, i) => attempt(xb, () => xb.pageInfo(i.response, i.request)),
  // FORMAT.md's loop, through the public PageWalker: ask for the next query (none: done); no
  // page left: not done; feed the next page (an error: its code) and note the query, the id of
  // each record passed on (null when it has none) and each drift's code.
  'pagination.walk': (xb, i) =>
    attempt(xb, () => {
      const walker = new xb.PageWalker(i.request);
      try {
        const records = [];
        const drifts = [];
        const { queries, done } = feedPages(walker, i.pages, (step) => {
          for (const r of step.records) records.push(idOf(r));
          for (const d of step.drifts) drifts.push(d.code);
        });
        return { queries, records, done, drifts };
      } finally {
        walker.free();
      }
    }),
  // Contract v4 (issue 34): an error answer through readApiError (the body as the vector gives
  // it: a string is the response text, anything else the parsed body), its FORMAT.md keys.
  'api.error': (xb, i) =>
    attempt(xb, () => {
      const e = xb.readApiError({ method: i.method, status: i.status, headers: i.headers, body: i.body });
      return { code: e.code, message: e.message, details: e.details, requestId: e.requestId, retry: e.retry, afterMs: e.afterMs };
    }),
  // The public CatchUp fed the vector's pages as `pagination.walk` feeds a PageWalker: its
  // events (oldest first), checkpoint and the set of drift codes.
  'events.catch_up': (xb, i) =>
    attempt(xb, () => {
      const walk = new xb.CatchUp({ since: i.since, overlapMs: i.overlapMs, pageSize: i.pageSize });
      try {
        const { queries, done } = feedPages(walk, i.pages, () => {});
        const events = walk.events().map((e) => ({ id: e.id, event: e.event, entityId: e.entityId, entityType: e.entityType }));
        const drifts = [...new Set(walk.drifts().map((d) => d.code))].sort();
        return { queries, events, checkpoint: walk.checkpoint(), done, drifts };
      } finally {
        walk.free();
      }
    }),
  'delivery.claims': async (xb, i, { asyncStore }) => {
    // FORMAT.md: no windowMs, a done id is a duplicate for ever; the API's default is 7 days: the longest window stands for it.
    const rules = { leaseMs: i.leaseMs, windowMs: i.windowMs ?? Number.MAX_SAFE_INTEGER };
    const builtin = new xb.Claims(rules);
    let results;
    try {
      results = await claimSteps(xb, builtin, i.steps, false);
    } finally {
      builtin.free();
    }
    const own = await claimSteps(xb, xb.Claims.withStore(mapStore(asyncStore), rules), i.steps, asyncStore);
    if (!deepEqual(results, own)) {
      const kind = asyncStore ? 'asynchronous' : 'synchronous';
      throw new Error(`the built-in store gave ${JSON.stringify(results)}, the runner's own (${kind}) store ${JSON.stringify(own)}`);
    }
    return { results };
  },
  'delivery.handle': async (xb, i) => {
    // As delivery.claims: no windowMs, a done id is a duplicate for ever (the longest window).
    const rules = { leaseMs: i.leaseMs, windowMs: i.windowMs ?? Number.MAX_SAFE_INTEGER };
    const builtin = new xb.Claims(rules);
    let out;
    try {
      out = await handleSteps(xb, i, { claims: builtin }, false);
    } finally {
      builtin.free();
    }
    const own = await handleSteps(xb, i, { store: mapStore(true), ...rules }, true);
    if (!deepEqual(out, own)) {
      throw new Error(`the built-in store gave ${JSON.stringify(out)}, the runner's own (asynchronous) store ${JSON.stringify(own)}`);
    }
    return out;
  },
};

/** The vector's deliveries handled step by step (DECISIONS.md "Delivery handling") with `claims` options. */
async function handleSteps(xb, i, claims, async) {
  const receiver = new xb.Receiver(i.secret);
  const handlings = new Map();
  const acts = [];
  const answers = {};
  try {
    for (const { go, at } of i.steps) {
      const d = i.deliveries[go];
      if (d === undefined) throw new Error(`no delivery ${go}`);
      let h = handlings.get(go);
      if (h === undefined) {
        const body = JSON.stringify(d.body);
        const sig = d.signature ?? 'valid';
        const signature = sig === 'valid' ? xb.sign(i.secret, body) : sig === 'missing' ? undefined : sig;
        h = new xb.DeliveryHandling({ receiver, ...claims, body, signature, token: d.token ?? go, inTransaction: i.transaction === true });
        handlings.set(go, h);
      }
      const act = h.next();
      let text;
      if (act.act === 'answer') {
        answers[go] = act.answer;
        text = `answer:${act.answer.status}`;
      } else if (act.act === 'persist') {
        const ok = (d.persist ?? 'ok') === 'ok';
        h.persisted(ok);
        text = `persist:${ok ? 'ok' : 'fail'}`;
      } else if (act.act === 'commit') {
        const ok = (d.commit ?? 'ok') === 'ok';
        h.committed(ok);
        text = `commit:${ok ? 'ok' : 'fail'}`;
      } else {
        if (async) await h.stepAsync(at);
        else h.step(at);
        const last = h.lastStep();
        text = `${last.step}:${last.outcome ?? last.code}`;
      }
      acts.push(`${go}:${text}`);
    }
  } finally {
    for (const h of handlings.values()) h.free();
    receiver.free();
  }
  return { acts, answers };
}

/** A record's `id` as the JSON value it is; null when it has none (or is not an object). */
function idOf(record) {
  const isObject = typeof record === 'object' && record !== null && !Array.isArray(record);
  return isObject && Object.prototype.hasOwnProperty.call(record, 'id') ? record.id : null;
}

/** Deep equality, numbers by value (the claims stores' results must be the same). */
function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, k) => deepEqual(x, b[k]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

/**
 * (v4) Deep equality of an expected value with an actual one: numbers by value, and an expected
 * `null` matches a key that is `null` or absent (so an actual object's keys beyond the expected
 * ones must be `null`).
 */
function matches(expected, actual) {
  if (expected === actual) return true;
  if (expected === null || actual === null || typeof expected !== 'object' || typeof actual !== 'object') return false;
  if (Array.isArray(expected) !== Array.isArray(actual)) return false;
  if (Array.isArray(expected)) return expected.length === actual.length && expected.every((x, k) => matches(x, actual[k]));
  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  return Object.keys(expected).every((k) => keyMatches(expected[k], actual, k)) &&
    Object.keys(actual).every((k) => has(expected, k) || actual[k] === null || actual[k] === undefined);
}

/** An expected key's value against the actual object's: `null` matches `null` or absent. */
function keyMatches(want, actual, key) {
  const there = Object.prototype.hasOwnProperty.call(actual, key) && actual[key] !== undefined;
  return there ? matches(want, actual[key]) : want === null;
}

/** (v4) An expected element against an actual one: every key the expected one has matches. */
function elementMatches(expected, actual) {
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(expected) && isObject(actual)) return Object.keys(expected).every((k) => keyMatches(expected[k], actual, k));
  return matches(expected, actual);
}

/** (v4) `issues`: the expected elements paired one to one with actual ones they match, none left over. */
function paired(expected, actual) {
  if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return false;
  const used = actual.map(() => false);
  const pair = (k) => {
    if (k === expected.length) return true;
    for (let j = 0; j < actual.length; j++) {
      if (!used[j] && elementMatches(expected[k], actual[j])) {
        used[j] = true;
        if (pair(k + 1)) return true;
        used[j] = false;
      }
    }
    return false;
  };
  return pair(0);
}

/** (v4) `fields`: element by element, in order, each matched by its keys, the same length. */
function inOrder(expected, actual) {
  return Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length &&
    expected.every((e, k) => elementMatches(e, actual[k]));
}

/** Same length and each expected item matched by a distinct actual item. */
function multisetEqual(expected, actual) {
  if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return false;
  const left = [...actual];
  return expected.every((e) => {
    const k = left.findIndex((a) => matches(e, a));
    if (k < 0) return false;
    left.splice(k, 1);
    return true;
  });
}

/** The same distinct items, whatever their order and count (`drifts`: each code once). */
function setEqual(expected, actual) {
  if (!Array.isArray(expected) || !Array.isArray(actual)) return false;
  const has = (list, x) => list.some((y) => matches(x, y));
  return expected.every((e) => has(actual, e)) && actual.every((a) => has(expected, a));
}

/**
 * Partial match: every key of `expect` matches the actual's (an expected null: null or absent);
 * `issues` paired by their keys, `fields` in order, `rejected` as a multiset, `drifts` as a set.
 */
function mismatch(expect, actual) {
  if (actual === null || typeof actual !== 'object') return `result ${JSON.stringify(actual)} is not an object`;
  for (const [key, want] of Object.entries(expect)) {
    const got = actual[key];
    const same = !Object.prototype.hasOwnProperty.call(actual, key) || got === undefined ? want === null
      : key === 'issues' ? paired(want, got)
      : key === 'fields' || key === 'events' ? inOrder(want, got)
      : key === 'rejected' ? multisetEqual(want, got)
      : key === 'drifts' ? setEqual(want, got)
      : matches(want, got);
    if (!same) return `${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
  }
  return null;
}

/**
 * After a hostile case (its file path contains "hostile"), one ordinary call that must still
 * work: a hostile input may not leave the module unusable (a trap, a poisoned instance, an
 * exhausted heap). Returns why it failed, or null.
 */
function stillWorks(xb) {
  // The forms module (`xborder-wasm/forms`, beneficiaries only since issue 32) has no
  // classifyEvent: one of its own calls instead.
  if (typeof xb.classifyEvent !== 'function') {
    try {
      const c = xb.checkAccount('iban', 'DE89370400440532013000');
      return c && c.state === 'complete' ? null : `checkAccount('iban', a valid IBAN) gave ${JSON.stringify(c)}`;
    } catch (e) {
      return `checkAccount('iban', a valid IBAN) threw ${e && e.name}: ${e && e.message}`;
    }
  }
  try {
    const c = xb.classifyEvent('order:created');
    return c && c.kind === 'live' ? null : `classifyEvent('order:created') gave ${JSON.stringify(c)}`;
  } catch (e) {
    return `classifyEvent('order:created') threw ${e && e.name}: ${e && e.message}`;
  }
}

export async function runVectors(xb, files, options = {}) {
  const { asyncStore = false } = options;
  const lines = [];
  let passed = 0;
  let failed = 0;
  const skipped = new Map();
  for (const { name: file, doc } of files) {
    const hostile = file.includes('hostile');
    for (const c of doc.cases ?? []) {
      if (NOT_YET.includes(c.op)) {
        skipped.set(c.op, (skipped.get(c.op) ?? 0) + 1);
        continue;
      }
      const handler = Object.prototype.hasOwnProperty.call(handlers, c.op) ? handlers[c.op] : undefined;
      let why;
      if (!OPS.includes(c.op) || handler === undefined) {
        why = `op ${JSON.stringify(c.op)} is not defined by FORMAT.md`;
      } else {
        try {
          why = mismatch(c.expect, JSON.parse(JSON.stringify(await handler(xb, c.input, { asyncStore }))));
        } catch (e) {
          why = `threw ${e && e.name}: ${e && e.message}`;
        }
      }
      if (why) {
        failed++;
        lines.push(`FAIL ${file} :: ${c.name}: ${why}`);
      } else {
        passed++;
      }
      // Counted only when it fails, so every runtime reports the same number of cases.
      const broken = hostile ? stillWorks(xb) : null;
      if (broken) {
        failed++;
        lines.push(`FAIL ${file} :: ${c.name}: the module is unusable after this case: ${broken}`);
      }
    }
  }
  let nSkipped = 0;
  for (const [op, n] of skipped) {
    lines.push(`SKIP ${op} (${n})`);
    nSkipped += n;
  }
  lines.push(`conformance: ${passed} passed, ${failed} failed${nSkipped > 0 ? `, ${nSkipped} skipped` : ''}`);
  return { lines, passed, failed, skipped: nSkipped };
}
