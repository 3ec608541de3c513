// What the PostgreSQL and SQLite claim stores (pg-store.mjs, sqlite-store.mjs) share: the
// migrations read from stores/sql/migrations (the one source of truth, also the Rust crate's)
// and the kind checks of their public functions (a wrong kind is a TypeError naming the
// parameter, as in xborder-wasm). No time is computed here: the stores write and compare the
// times core gives each call (`time`: { nowMs, ttlMs, expiresAtMs }, clamped by core).
import { readFileSync } from 'node:fs';

/** The migration of `engine` ('postgres' or 'sqlite'), read at run time from stores/sql. */
export function readMigration(engine) {
  return readFileSync(new URL(`../sql/migrations/${engine}.sql`, import.meta.url), 'utf8');
}

/** What a value is, for a message: `a string`, `the number -1`, `a Pool`, ... */
function kindOf(v) {
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'number') return `the number ${v}`;
  if (Array.isArray(v)) return 'an array';
  if (typeof v !== 'object') return `a ${typeof v}`;
  const name = Object.getPrototypeOf(v)?.constructor?.name;
  if (typeof name !== 'string' || name === '' || name === 'Object') return 'an object';
  return `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}`;
}

/** The TypeError of a wrong kind, worded as xborder-wasm's. */
export function refuse(name, want, v, how) {
  return new TypeError(`xborder: \`${name}\` must be ${want}, not ${kindOf(v)}${how ? `: ${how}` : ''}`);
}

/** Milliseconds, as xborder-wasm takes them: a non-negative safe integer number. */
export function millis(name, v, example = 'Date.now()') {
  if (Number.isSafeInteger(v) && v >= 0) return v;
  throw refuse(name, 'a non-negative safe integer number of milliseconds', v, `pass ${example}`);
}

/**
 * The `time` of a store call as xborder-wasm passes it (core's `StoreTime`: `nowMs`, and
 * `expiresAtMs` or null), checked only for its kind: a store called without one (by a caller of
 * its own, or an xborder-wasm before StoreTime) fails with a TypeError naming it.
 */
export function storeTime(name, v) {
  const ok = (n) => Number.isSafeInteger(n) && n >= 0;
  if (v !== null && typeof v === 'object' && ok(v.nowMs) && (v.expiresAtMs == null || ok(v.expiresAtMs))) return v;
  throw refuse(name, "core's StoreTime ({ nowMs, ttlMs, expiresAtMs }: xborder-wasm passes it to every store call)", v,
    'let Claims.withStore or handleDelivery call the store');
}
