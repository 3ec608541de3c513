// Event names: the Catalog class, and the free functions that are the methods of one built-in
// catalog (classifyEvent, eventMatches; checkRegistration and createWebhookBody in the full module,
// whose Rust side has webhook registration: the forms module has not).

import { str, names, count } from './kinds.js';

const ADDED = Symbol('added'); // a catalog's added names, in order: [method, name]

const EXISTING = count('existingWebhooks', 'how many webhooks exist (3)');

/** The checks of the catalog's methods (the free functions are those of the built-in catalog). */
const CATALOG = {
  addLive: [str('name')],
  addWildcard: [str('name')],
  classify: [str('name')],
  isLive: [str('name')],
  checkRegistration: [names('events', "['order:created']"), EXISTING],
  createWebhookBody: [names('events', "['order:created']"), str('url'), EXISTING],
  matches: [names('subscriptions', "['order:*']"), str('event')],
};

/** The methods of webhook registration: absent from the forms module (its Rust side has none). */
const REGISTRATION = ['checkRegistration', 'createWebhookBody'];

/** The free functions that are methods of the built-in catalog. */
const BUILTIN = {
  classifyEvent: 'classify',
  checkRegistration: 'checkRegistration',
  createWebhookBody: 'createWebhookBody',
  eventMatches: 'matches',
};

/**
 * `{kind, entity?, action?}` from core's classification of `name`, packed in one number by the
 * Rust side (`Catalog.__classify`): the kind's index in `kinds` (core's texts), plus 8 × (the
 * entity's length + 1) when the name is well formed, `<entity>:<action>` in ASCII.
 */
function classification(kinds, n, name) {
  const kind = kinds[n % 8];
  const colon = Math.floor(n / 8) - 1;
  return colon < 0 ? { kind } : { kind, entity: name.slice(0, colon), action: name.slice(colon + 1) };
}

/**
 * The event API over the runtime `rt`: `{ api, builtin, catalogOf }`, `api` the Catalog class and
 * the free functions; `builtin()` the built-in catalog of this instance (made again after a reset)
 * and `catalogOf(added)` a catalog with names added, for the Receiver (signatures.js).
 */
function events(rt) {
  const { raw, call, live, adopt, freeable, ensureLoaded } = rt;
  const proto = raw.Catalog.prototype;
  const has = (name) => !REGISTRATION.includes(name) || typeof proto[name] === 'function';

  /** An event catalog: `new Catalog()` is a copy of the built-in one, to add names to. */
  class Catalog {
    constructor() {
      this[ADDED] = [];
      adopt(this, () => catalogOf(this[ADDED]));
    }
  }
  /** A catalog in this instance with `added` added (each was accepted once already). */
  const catalogOf = (added) => {
    const c = new raw.Catalog();
    for (const [method, name] of added) proto[method].call(c, name);
    return c;
  };
  freeable(Catalog);
  // classify: core's answer as one number, made an object here (classification).
  let kinds;
  const { __classify } = proto;
  const classify = function classify(name) {
    return classification(kinds ??= raw.__eventKinds(), __classify.call(this, name), name);
  };
  const catalogMethod = (name) => (name === 'classify' ? classify : proto[name]);
  for (const [name, checks] of Object.entries(CATALOG)) {
    if (!has(name)) continue;
    const f = catalogMethod(name);
    const adds = name === 'addLive' || name === 'addWildcard';
    Object.defineProperty(Catalog.prototype, name, {
      value: { [name](...args) {
        const out = call(f, live(this), checks, args);
        if (adds) this[ADDED].push([name, args[0]]);
        return out;
      } }[name],
      writable: true,
      configurable: true,
    });
  }
  // The free functions: the methods of one built-in catalog, made again after a reset.
  let builtinCatalog;
  rt.onReset(() => {
    builtinCatalog = undefined; // it lived in the old instance
  });
  const builtin = () => {
    if (builtinCatalog === undefined) {
      ensureLoaded();
      builtinCatalog = new raw.Catalog();
    }
    return builtinCatalog;
  };
  const api = { Catalog };
  for (const [name, of] of Object.entries(BUILTIN)) {
    if (!has(of)) continue;
    const f = catalogMethod(of);
    const checks = CATALOG[of];
    api[name] = { [name](...args) { return call(f, builtin(), checks, args); } }[name];
  }
  return { api, builtin, catalogOf };
}

export { events, ADDED };
