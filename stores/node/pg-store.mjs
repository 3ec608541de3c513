// Claims of xborder kept in PostgreSQL, for Node (pg): the same table, statements and meaning
// as the Rust crate's `PostgresClaims` (stores/sql/src/postgres.rs), so Rust, Node and Python
// instances can share one table. The rules are xborder's: xborder-wasm's `Claims` drives core's
// claim task, which asks this store for a load and a compare-and-set; the store only keeps entry
// texts, and each request is one SQL statement (LOAD, INSERT … ON CONFLICT … WHERE <expired>,
// UPDATE … WHERE entry = $expected, DELETE … WHERE entry = $expected).
//
//   const claims = new PgClaims(pool, { leaseMs: 30_000 });
//   await claims.migrate();                                    // stores/sql/migrations/postgres.sql
//   await claims.step('claim', id, token, Date.now());         // 'claimed', 'in_progress', 'duplicate'
//   await claims.completeIn(client, id, token, Date.now());    // inside the host's BEGIN … COMMIT
//   await claims.purge(Date.now() - 60_000);                   // now and then: drop expired rows
//
// Time: xborder-wasm hands each store call core's times (`time`: { nowMs, ttlMs, expiresAtMs },
// clamped by core): the store writes `time.expiresAtMs` as the row's expiry and counts a row
// expired at `time.nowMs` as no row, exactly as the Rust crate's store does with the same
// numbers. It computes no time, reads none from an entry text, and never calls `Date.now()`: the
// step's time is the one the host passes (`atMs`), so the hosts' clocks (kept within much less
// than a lease of each other by NTP) are the only clocks. One store, `pgClaimStore(db)`, serves
// `Claims.withStore`, `handleDelivery` and `PgClaims` alike; xborder-wasm drives it.
import { Claims } from 'xborder-wasm';
import { millis, readMigration, refuse, storeTime } from './sql-common.mjs';

/** The table's DDL, read from stores/sql/migrations/postgres.sql: idempotent. */
export const MIGRATION = readMigration('postgres');

/** The entry of `$1` unless it expired at `$2` (the step's time). */
export const LOAD = 'SELECT entry FROM xborder_claims ' +
  'WHERE id = $1 AND (expires_at IS NULL OR expires_at > $2)';

/** Writes entry `$2` (expiring at `$3`) for id `$1` when it has no row, or only a row expired at `$4`. */
export const INSERT = 'INSERT INTO xborder_claims AS c (id, entry, expires_at) ' +
  'VALUES ($1, $2, $3) ' +
  'ON CONFLICT (id) DO UPDATE SET entry = excluded.entry, expires_at = excluded.expires_at ' +
  'WHERE c.expires_at IS NOT NULL AND c.expires_at <= $4';

/** Replaces entry `$2` of id `$1` with `$3` (expiring at `$4`) when the row still holds `$2` and has not expired at `$5`. */
export const UPDATE = 'UPDATE xborder_claims SET entry = $3, expires_at = $4 ' +
  'WHERE id = $1 AND entry = $2 AND (expires_at IS NULL OR expires_at > $5)';

/** Removes id `$1`'s row when it still holds entry `$2` and has not expired at `$3`. */
export const DELETE = 'DELETE FROM xborder_claims ' +
  'WHERE id = $1 AND entry = $2 AND (expires_at IS NULL OR expires_at > $3)';

/** Deletes the rows expired at `$1`. */
export const PURGE = 'DELETE FROM xborder_claims WHERE expires_at <= $1';

/** The server's clock in milliseconds (`clock_timestamp()`, the time of the statement, not of its transaction). */
export const STORE_TIME = 'SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS ms';

/**
 * The PostgreSQL server's clock in milliseconds: the clock every instance sharing this database
 * can take its claim times from, so that their own clocks cannot disagree.
 */
export async function pgTimeMs(db) {
  return Number((await queryable('db', db).query(STORE_TIME)).rows[0].ms);
}

const DB = 'a pg Pool, Client or PoolClient (anything with query(text, values))';
function queryable(name, v) {
  if (typeof v === 'object' && v !== null && typeof v.query === 'function') return v;
  throw refuse(name, DB, v, 'pass new pg.Pool({ connectionString })');
}
/** The connection of a transaction: a Client or PoolClient, never a Pool (any connection per query). */
function connection(name, v) {
  queryable(name, v);
  if ('totalCount' in v && 'idleCount' in v) {
    throw refuse(name, 'the connection your transaction is on (a PoolClient from pool.connect(), or a Client)', v,
      'a Pool runs each query on any of its connections, outside your BEGIN');
  }
  return v;
}

/**
 * The store `Claims.withStore(store, options)` and `handleDelivery({ store })` take, over `db` (a
 * Pool, a Client, or the PoolClient of an open transaction: then its writes commit or roll back
 * with it). Each call runs one statement with the times xborder gives it: a row expired at
 * `time.nowMs` is no row, a written row expires at `time.expiresAtMs` (null: never). A failed
 * statement rejects: xborder reports it as `STORE_UNAVAILABLE`, the error as `cause`.
 */
export function pgClaimStore(db) {
  queryable('db', db);
  const load = async (id, time) => (await db.query(LOAD, [id, storeTime('time', time).nowMs])).rows[0]?.entry ?? null;
  return {
    load,
    // `ttlMs` is `time.ttlMs`: the row keeps `time.expiresAtMs` instead.
    compareAndSet: async (id, expected, next, ttlMs, time) => {
      const { nowMs, expiresAtMs = null } = storeTime('time', time);
      let result;
      if (expected === null && next !== null) result = await db.query(INSERT, [id, next, expiresAtMs, nowMs]);
      else if (expected !== null && next !== null) result = await db.query(UPDATE, [id, expected, next, expiresAtMs, nowMs]);
      else if (expected !== null) result = await db.query(DELETE, [id, expected, nowMs]);
      // Core never asks to remove what is not there: "no row" is already the case when the id has no live row.
      else return (await load(id, time)) === null;
      return result.rowCount === 1;
    },
  };
}

/**
 * The `transaction` option of xborder-wasm's `handleDelivery` over `pool` (a pg Pool): the
 * event's write and the claim's completion on one connection, committed together (core's order;
 * this only carries it out). `begin()` takes a connection and sends BEGIN (the `tx` your
 * `persist(envelope, tx)` writes on); `store(client)` is `pgClaimStore(client)`;
 * `commit(client)` sends COMMIT (a transaction PostgreSQL rolled back because a statement in it
 * failed is a failed commit) and gives the connection back; `rollback(client)` destroys the
 * connection (the server rolls its transaction back; a connection whose statement failed or
 * timed out is never reused).
 *
 *   await handleDelivery({ receiver, body, signature, store: pgClaimStore(pool), leaseMs,
 *     transaction: pgTransaction(pool), persist: (env, client) => client.query(INSERT, [env.id]) });
 */
export function pgTransaction(pool) {
  queryable('pool', pool);
  return {
    async begin() {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
      } catch (e) {
        client.release(true);
        throw e;
      }
      return client;
    },
    store: (client) => pgClaimStore(client),
    async commit(client) {
      const result = await client.query('COMMIT');
      if (result.command === 'ROLLBACK') throw new Error('the transaction was rolled back (a statement in it failed)');
      client.release();
    },
    rollback(client) {
      client.release(true);
    },
  };
}

/**
 * Claims in PostgreSQL over `db` (a `pg.Pool`, usually: each statement on any of its
 * connections, one round trip each), with xborder's `options` ({ leaseMs, windowMs }, as
 * `Claims.withStore` takes them).
 */
export class PgClaims {
  #db;
  #options;
  #claims;

  constructor(db, options) {
    // The options checked as xborder-wasm checks them (a TypeError naming `options.leaseMs`, ...).
    this.#claims = Claims.withStore(pgClaimStore(db), options);
    this.#db = db;
    this.#options = options == null ? options : { ...options };
  }

  /** The pool (or client) the steps run on. */
  get db() {
    return this.#db;
  }

  /**
   * Runs the migration (creates the table and its index when missing; idempotent). Instances
   * starting together take turns: the migration is one simple query (one implicit transaction)
   * that first takes a transaction-scoped advisory lock, since two concurrent CREATE TABLE IF
   * NOT EXISTS of one table can fail in PostgreSQL (a duplicate key in pg_type).
   */
  async migrate() {
    await this.#db.query(`SELECT pg_advisory_xact_lock(hashtext('xborder_claims'));\n${MIGRATION}`);
  }

  /** One step ('claim', 'complete', 'release') by `token` on event `id` at `atMs` (the host's clock). */
  async step(step, id, token, atMs) {
    return this.#claims.stepAsync(step, id, token, atMs);
  }

  /**
   * Completes `id` for `token` inside the host's open transaction, on its connection `client`
   * (a PoolClient on which the host ran BEGIN and its own insert of the event): both commit
   * together, or neither does. 'completed': COMMIT; 'stale' (the lease ended and another
   * request took the claim over): ROLLBACK, the event is that request's. Run it last in the
   * transaction, at READ COMMITTED (PostgreSQL's default): it locks the claim's row until the
   * commit. If the transaction rolls back, the claim is as it was: the id is claimable again
   * once the lease is over.
   */
  async completeIn(client, id, token, atMs) {
    connection('client', client);
    return Claims.withStore(pgClaimStore(client), this.#options).stepAsync('complete', id, token, atMs);
  }

  /** Deletes the rows expired at `nowMs` (pass your clock minus the skew you allow); how many. */
  async purge(nowMs) {
    return (await this.#db.query(PURGE, [millis('nowMs', nowMs, 'Date.now() - 60_000')])).rowCount;
  }

  /** What to answer the provider after `step` gave `outcome` (xborder's `claims.reply`). */
  reply(step, outcome) {
    return this.#claims.reply(step, outcome);
  }
}
