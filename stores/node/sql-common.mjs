// What the PostgreSQL and SQLite claim stores (pg-store.mjs, sqlite-store.mjs) share: the
// migrations read from stores/sql/migrations (the one source of truth, also the Rust crate's),
// the times as the statements take them (core's clamp, the expiry), and the kind checks of
// their public functions (a wrong kind is a TypeError naming the parameter, as in xborder-wasm).
import { readFileSync } from 'node:fs';

/** Core's largest time (`MAX_TIME_MS`, 2^48 − 1): a step's time is clamped to it. */
export const MAX_TIME_MS = 2 ** 48 - 1;
const I64_MAX = (1n << 63n) - 1n;

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

/** A step's time as the statements take it: core's clamp, so the row's times are the entry's. */
export const nowParam = (atMs) => Math.min(atMs, MAX_TIME_MS);

/**
 * When a row written at `now` (a number or a BigInt) with core's `ttlMs` expires, as a BigInt
 * (saturating at the largest bigint / INTEGER); null when the entry never expires.
 */
export function expiry(now, ttlMs) {
  if (ttlMs === null || ttlMs === undefined) return null;
  const at = BigInt(now) + BigInt(ttlMs);
  return at > I64_MAX ? I64_MAX : at;
}

/**
 * The time written in an entry text (`h:<since>:<token>`, `d:<at>`), for a store that is not
 * given the step's time (the same rule as the Rust crate's `ClaimStore` impl); 0 for none.
 */
export function entryTime(text) {
  const m = typeof text === 'string' ? /^[dh]:(\d+)/.exec(text) : null;
  return m ? BigInt(m[1]) : 0n;
}
