// Claims of xborder kept in SQLite, for Node (better-sqlite3): the durable store for one instance
// (or several processes on one machine sharing the file), with the same table, statements and
// meaning as the Rust crate's `SqliteClaims` (stores/sql/src/sqlite.rs): Rust, Node and Python
// processes can share one file. The rules are xborder's (xborder-wasm's `Claims` drives core's
// claim task); the store keeps entry texts and runs one statement per compare-and-set, each
// atomic (SQLite has one writer at a time). better-sqlite3 is synchronous, so every call is.
//
//   const claims = SqliteClaims.open('app.db', { leaseMs: 30_000 });  // WAL, busy timeout, migration
//   claims.step('claim', id, token, Date.now());                       // 'claimed', 'in_progress', 'duplicate'
//   claims.db.transaction(() => {                                      // the host's transaction
//     claims.db.prepare('INSERT INTO events (id, body) VALUES (?, ?)').run(id, body);
//     if (claims.completeIn(claims.db, id, token, Date.now()) !== 'completed') throw new Error('stale');
//   }).immediate();
//   claims.purge(Date.now());                                          // now and then: drop expired rows
//
// Time: as pg-store.mjs says, each store call is given core's times (`time.nowMs`,
// `time.expiresAtMs`), written and compared as they are: the store computes none. One store,
// `sqliteClaimStore(db)`, serves `Claims.withStore`, `handleDelivery` and `SqliteClaims`.
import Database from 'better-sqlite3';
import { Claims } from 'xborder-wasm';
import { millis, readMigration, refuse, storeTime } from './sql-common.mjs';

/** The table's DDL, read from stores/sql/migrations/sqlite.sql: idempotent. */
export const MIGRATION = readMigration('sqlite');

/** The entry of `?1` unless it expired at `?2` (the step's time). */
export const LOAD = 'SELECT entry FROM xborder_claims ' +
  'WHERE id = ?1 AND (expires_at IS NULL OR expires_at > ?2)';

/** Writes entry `?2` (expiring at `?3`) for id `?1` when it has no row, or only a row expired at `?4`. */
export const INSERT = 'INSERT INTO xborder_claims AS c (id, entry, expires_at) ' +
  'VALUES (?1, ?2, ?3) ' +
  'ON CONFLICT (id) DO UPDATE SET entry = excluded.entry, expires_at = excluded.expires_at ' +
  'WHERE c.expires_at IS NOT NULL AND c.expires_at <= ?4';

/** Replaces entry `?2` of id `?1` with `?3` (expiring at `?4`) when the row still holds `?2` and has not expired at `?5`. */
export const UPDATE = 'UPDATE xborder_claims SET entry = ?3, expires_at = ?4 ' +
  'WHERE id = ?1 AND entry = ?2 AND (expires_at IS NULL OR expires_at > ?5)';

/** Removes id `?1`'s row when it still holds entry `?2` and has not expired at `?3`. */
export const DELETE = 'DELETE FROM xborder_claims ' +
  'WHERE id = ?1 AND entry = ?2 AND (expires_at IS NULL OR expires_at > ?3)';

/** Deletes the rows expired at `?1`. */
export const PURGE = 'DELETE FROM xborder_claims WHERE expires_at <= ?1';

/** How long `SqliteClaims.open` lets a statement wait for another connection's write: 5 s. */
export const BUSY_TIMEOUT_MS = 5000;

function database(name, v) {
  if (typeof v === 'object' && v !== null && typeof v.prepare === 'function' && 'inTransaction' in v) return v;
  throw refuse(name, 'a better-sqlite3 Database', v, "pass new Database('app.db')");
}

// Statements prepared once per connection (better-sqlite3 statements belong to one Database).
const prepared = new WeakMap();
function statements(db) {
  let s = prepared.get(db);
  if (!s) {
    s = { load: db.prepare(LOAD).pluck(), insert: db.prepare(INSERT), update: db.prepare(UPDATE),
      delete: db.prepare(DELETE) };
    prepared.set(db, s);
  }
  return s;
}

/**
 * The synchronous store `Claims.withStore(store, options)` takes (call `step`, or `stepAsync`),
 * over the better-sqlite3 Database `db` (inside `db.transaction(...)` its writes commit or roll
 * back with the host's). Each call runs one statement with the times xborder gives it: a row
 * expired at `time.nowMs` is no row, a written row expires at `time.expiresAtMs` (null: never).
 * An SQLite error throws: xborder reports it as `STORE_UNAVAILABLE`, the error as `cause`.
 */
export function sqliteClaimStore(db) {
  database('db', db);
  const load = (id, time) => statements(db).load.get({ 1: id, 2: storeTime('time', time).nowMs }) ?? null;
  return {
    load,
    // `ttlMs` is `time.ttlMs`: the row keeps `time.expiresAtMs` instead.
    compareAndSet: (id, expected, next, ttlMs, time) => {
      const { nowMs, expiresAtMs = null } = storeTime('time', time);
      const s = statements(db);
      let result;
      if (expected === null && next !== null) result = s.insert.run({ 1: id, 2: next, 3: expiresAtMs, 4: nowMs });
      else if (expected !== null && next !== null) result = s.update.run({ 1: id, 2: expected, 3: next, 4: expiresAtMs, 5: nowMs });
      else if (expected !== null) result = s.delete.run({ 1: id, 2: expected, 3: nowMs });
      // Core never asks to remove what is not there.
      else return load(id, time) === null;
      return result.changes === 1;
    },
  };
}

/**
 * For xborder-wasm's `handleDelivery` over the one connection `db`: `store`, the plain claim
 * store (its calls wait while a transaction is open on `db`, so that another request's claim is
 * never written inside it), and `transaction`, its `transaction` option: `begin()` sends
 * `BEGIN IMMEDIATE` on `db` (one transaction at a time; the `tx` your `persist(envelope, tx)`
 * writes on is `db`), `store(db)` is `sqliteClaimStore(db)`, `commit` sends COMMIT,
 * `rollback` ROLLBACK. The order is core's; this only carries it out.
 */
export function sqliteHandling(db) {
  database('db', db);
  let held = null; // the open transaction's end, a promise
  let end = null;
  const close = () => {
    const done = end;
    held = null;
    end = null;
    done?.();
  };
  const plain = sqliteClaimStore(db);
  return {
    store: {
      // Each waits in its own loop, then runs in the same turn as its last check (no await in
      // between, where a transaction could begin).
      async load(id, time) {
        while (held) await held;
        return plain.load(id, time);
      },
      async compareAndSet(id, expected, next, ttlMs, time) {
        while (held) await held;
        return plain.compareAndSet(id, expected, next, ttlMs, time);
      },
    },
    transaction: {
      async begin() {
        while (held) await held;
        held = new Promise((resolve) => { end = resolve; });
        try {
          db.exec('BEGIN IMMEDIATE');
        } catch (e) {
          close();
          throw e;
        }
        return db;
      },
      store: (tx) => sqliteClaimStore(tx),
      commit(tx) {
        try {
          tx.exec('COMMIT');
        } finally {
          if (!tx.inTransaction) close();
        }
      },
      rollback(tx) {
        try {
          if (tx.inTransaction) tx.exec('ROLLBACK');
        } finally {
          close();
        }
      },
    },
  };
}

/**
 * Claims in an SQLite database over the better-sqlite3 Database `db`, as the host configured it
 * (call `migrate()` once; set a busy timeout when other connections write the same file: a new
 * Database has 5 s), with xborder's `options` ({ leaseMs, windowMs }).
 */
export class SqliteClaims {
  #db;
  #options;
  #claims;

  /**
   * Opens (or creates) the database at `path` (':memory:': a private one), sets WAL mode on a
   * file (readers never wait for the writer) and a busy timeout of `BUSY_TIMEOUT_MS`, and runs
   * the migration.
   */
  static open(path, options) {
    if (typeof path !== 'string') throw refuse('path', 'a string (a file path, or :memory:)', path, "pass 'claims.db'");
    Claims.withStore({ load() {}, compareAndSet() {} }, options); // the options' kinds, before a file is created
    const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    try {
      db.pragma('journal_mode = WAL'); // a file answers "wal"; an in-memory database keeps "memory"
      const claims = new SqliteClaims(db, options);
      claims.migrate();
      return claims;
    } catch (e) {
      db.close();
      throw e;
    }
  }

  constructor(db, options) {
    this.#claims = Claims.withStore(sqliteClaimStore(db), options);
    this.#db = db;
    this.#options = options == null ? options : { ...options };
  }

  /** The connection: for the host's own statements and transactions on the same database. */
  get db() {
    return this.#db;
  }

  /** Runs the migration (creates the table and its index when missing; idempotent). */
  migrate() {
    this.#db.exec(MIGRATION);
  }

  /** One step ('claim', 'complete', 'release') by `token` on event `id` at `atMs` (the host's clock). */
  step(step, id, token, atMs) {
    return this.#claims.step(step, id, token, atMs);
  }

  /**
   * Completes `id` for `token` inside the host's open transaction on `db` (this claims' own
   * Database, or another one on the same file), the one that writes the event: call it inside
   * `db.transaction(fn)` (run it `.immediate()`: a deferred transaction that read before another
   * connection wrote cannot write any more). Both commit together, or neither does (throw to roll
   * back: the claim stays held until its lease ends, then the id is claimable again). 'stale'
   * means another request took the claim over: roll back, the event is that request's.
   */
  completeIn(db, id, token, atMs) {
    database('db', db);
    if (!db.inTransaction) {
      throw new Error('xborder: completeIn needs the open transaction the event is written in: call it inside db.transaction(...)');
    }
    return Claims.withStore(sqliteClaimStore(db), this.#options).step('complete', id, token, atMs);
  }

  /** Deletes the rows expired at `nowMs`; how many. Run it now and then. */
  purge(nowMs) {
    return this.#db.prepare(PURGE).run({ 1: millis('nowMs', nowMs) }).changes;
  }

  /** What to answer the provider after `step` gave `outcome` (xborder's `claims.reply`). */
  reply(step, outcome) {
    return this.#claims.reply(step, outcome);
  }

  /** Closes the connection. */
  close() {
    this.#db.close();
  }
}
