// The Node SQL stores (pg-store.mjs, sqlite-store.mjs) keep the times core gives them and no
// time of their own, against a real PostgreSQL (tests/servers/postgres.sh, started here on a free
// loopback port and stopped at the end) and an SQLite database: a row's expires_at is the call's
// `time.expiresAtMs` exactly, even when it is neither `nowMs + ttlMs` nor dated from the entry's
// text (a store that computed its own expiry, or read the entry for a time, writes another
// number); a row expired at `time.nowMs` is no row; through xborder-wasm (Claims.withStore and
// handleDelivery with its transaction), the row's expiry is the one xborder-wasm gave, a step
// past core's range being core's clamp (2^48 − 1) in the entry and in the time given; a call
// without a `time` is a TypeError naming it.
// Run: bash stores/node/setup.sh && node stores/node/test-sql-time.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Claims, Receiver, handleDelivery, sign } from 'xborder-wasm';
import { PgClaims, pgClaimStore, pgTransaction } from './pg-store.mjs';
import { SqliteClaims, sqliteClaimStore, sqliteHandling } from './sqlite-store.mjs';

const MAX_TIME_MS = 2 ** 48 - 1; // core's MAX_TIME_MS
const root = new URL('../../', import.meta.url).pathname;
let passed = 0;
let failed = 0;
const test = async (name, fn) => {
  try {
    await fn();
    passed += 1;
    console.log(`ok ${name}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e.stack ?? e}`);
  }
};

const pgDir = mkdtempSync('/tmp/xb-node-pg-time-');
const serverSh = `${root}tests/servers/postgres.sh`;
let pgStarted = false;
const stopPg = () => {
  if (pgStarted) spawnSync('bash', [serverSh, 'stop', pgDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  pgStarted = false;
  rmSync(pgDir, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { stopPg(); process.exit(1); });

let pool;
const sq = SqliteClaims.open(':memory:');
try {
  const started = spawnSync('bash', [serverSh, 'start', pgDir], { encoding: 'utf8',
    env: { ...process.env, XBORDER_PG_OWNER: String(process.pid) }, stdio: ['ignore', 'pipe', 'inherit'] });
  if (started.status !== 0) throw new Error(`tests/servers/postgres.sh start failed (${started.status})`);
  pgStarted = true;
  pool = new pg.Pool({ connectionString: started.stdout.trim().split('\n').pop(), max: 4 });
  pool.on('error', () => {});
  await new PgClaims(pool).migrate();

  const engines = {
    postgres: {
      store: pgClaimStore(pool),
      reset: () => pool.query('DELETE FROM xborder_claims'),
      row: async (id) => {
        const r = (await pool.query('SELECT entry, expires_at::text AS exp FROM xborder_claims WHERE id = $1', [id])).rows[0];
        return r && [r.entry, r.exp === null ? null : Number(r.exp)];
      },
      handling: () => ({ store: pgClaimStore(pool), transaction: pgTransaction(pool) }),
    },
    sqlite: {
      store: sqliteClaimStore(sq.db),
      reset: () => sq.db.exec('DELETE FROM xborder_claims'),
      row: (id) => {
        const r = sq.db.prepare('SELECT entry, expires_at AS exp FROM xborder_claims WHERE id = ?').get(id);
        return r && [r.entry, r.exp];
      },
      handling: () => sqliteHandling(sq.db),
    },
  };

  for (const [engine, e] of Object.entries(engines)) {
    await test(`${engine}: a row expires at the time given (time.expiresAtMs), never one the store computes`, async () => {
      await e.reset();
      const { store, row } = e;
      // expiresAtMs is neither nowMs + ttlMs (1,050) nor the entry's time + ttlMs (55): only a
      // store that writes the number given keeps 7,777.
      assert.equal(await store.compareAndSet('a', null, 'h:5:r1', 50, { nowMs: 1000, ttlMs: 50, expiresAtMs: 7777 }), true);
      assert.deepEqual(await row('a'), ['h:5:r1', 7777], 'insert');
      assert.equal(await store.compareAndSet('a', 'h:5:r1', 'd:6', 10, { nowMs: 2000, ttlMs: 10, expiresAtMs: 8888 }), true);
      assert.deepEqual(await row('a'), ['d:6', 8888], 'update');
      // No expiry given: the row never expires.
      assert.equal(await store.compareAndSet('n', null, 'd:1', null, { nowMs: 1, ttlMs: null, expiresAtMs: null }), true);
      assert.deepEqual(await row('n'), ['d:1', null], 'never');
      // A clamped time, as core gives it past its range, is written as it is.
      assert.equal(await store.compareAndSet('m', null, `d:${MAX_TIME_MS}`, MAX_TIME_MS,
        { nowMs: MAX_TIME_MS, ttlMs: MAX_TIME_MS, expiresAtMs: MAX_TIME_MS }), true);
      assert.deepEqual(await row('m'), [`d:${MAX_TIME_MS}`, MAX_TIME_MS], 'clamped');
      // Compared with the time given: a row expired at nowMs is no row (whatever its text says).
      assert.equal(await store.load('a', { nowMs: 8887, ttlMs: null, expiresAtMs: null }), 'd:6');
      assert.equal(await store.load('a', { nowMs: 8888, ttlMs: null, expiresAtMs: null }), null);
      assert.equal(await store.compareAndSet('a', 'd:6', null, null, { nowMs: 8888, ttlMs: null, expiresAtMs: null }), false, 'an expired row is not removed as live');
      assert.equal(await store.compareAndSet('a', null, 'h:1:r2', 5, { nowMs: 8888, ttlMs: 5, expiresAtMs: 9999 }), true, 'written over');
      assert.deepEqual(await row('a'), ['h:1:r2', 9999]);
      assert.equal(await store.compareAndSet('a', 'h:1:r2', null, null, { nowMs: 9998, ttlMs: null, expiresAtMs: null }), true, 'removed while live');
      assert.equal(await row('a'), undefined);
    });

    await test(`${engine}: through xborder-wasm, the rows keep core's times, clamped past its range`, async () => {
      await e.reset();
      // The time of each write, as xborder-wasm gave it to the store.
      const given = new Map();
      const watched = { load: (id, time) => e.store.load(id, time),
        compareAndSet: (id, expected, next, ttlMs, time) => { given.set(id, time); return e.store.compareAndSet(id, expected, next, ttlMs, time); } };
      const claims = Claims.withStore(watched, { leaseMs: 50, windowMs: Number.MAX_SAFE_INTEGER });
      assert.equal(await claims.stepAsync('claim', 'z', 'r1', 1000), 'claimed');
      assert.deepEqual(given.get('z'), { nowMs: 1000, ttlMs: 100, expiresAtMs: 1100 });
      assert.deepEqual(await e.row('z'), ['h:1000:r1', 1100], 'two leases from the step');
      // The window (2^53 - 1) is past core's range: the row keeps core's expiry as given (the
      // store's own sum, 2^48 - 2 + 2^53 - 1, or a saturation of its own would differ).
      assert.equal(await claims.stepAsync('complete', 'z', 'r1', MAX_TIME_MS - 1), 'completed');
      const done = given.get('z');
      assert.equal(done.nowMs, MAX_TIME_MS - 1);
      assert.ok(done.expiresAtMs !== null && done.expiresAtMs < MAX_TIME_MS - 1 + Number.MAX_SAFE_INTEGER, `core's clamp: ${JSON.stringify(done)}`);
      assert.deepEqual(await e.row('z'), [`d:${MAX_TIME_MS - 1}`, done.expiresAtMs]);
      // A step past core's range: its time is core's clamp, in the entry, the time given and the row.
      assert.equal(await claims.stepAsync('claim', 'y', 'r1', 2 ** 50), 'claimed');
      assert.equal(given.get('y').nowMs, MAX_TIME_MS);
      assert.deepEqual(await e.row('y'), [`h:${MAX_TIME_MS}:r1`, given.get('y').expiresAtMs]);
      // handleDelivery, the complete on the transaction's store: the same times.
      const secret = 'whsec_time';
      const receiver = new Receiver(secret, { window: 0 });
      try {
        const body = JSON.stringify({ id: 'evt_time', event: 'order:created', entity: { id: 'o', type: 'order' } });
        const r = await handleDelivery({ receiver, body, signature: sign(secret, body), ...e.handling(),
          leaseMs: 1000, windowMs: 5000, now: () => 3000, persist: async () => {} });
        assert.deepEqual([r.status, r.outcome], [200, 'completed']);
        assert.deepEqual(await e.row('evt_time'), ['d:3000', 8000]);
      } finally {
        receiver.free();
      }
    });

    await test(`${engine}: a call without core's time is a TypeError naming it`, async () => {
      for (const call of [() => e.store.load('x'), () => e.store.compareAndSet('x', null, 'd:1', 5),
        () => e.store.compareAndSet('x', null, 'd:1', 5, { nowMs: -1 })]) {
        await assert.rejects(async () => call(), (err) => err instanceof TypeError && err.message.includes('`time`'));
      }
    });
  }

  await test('sqlite: the statements bind the times as INTEGER (the Rust crate reads them as i64)', () => {
    const store = sqliteClaimStore(sq.db);
    assert.equal(store.compareAndSet('int', null, 'd:1', MAX_TIME_MS, { nowMs: 1, ttlMs: MAX_TIME_MS, expiresAtMs: MAX_TIME_MS }), true);
    assert.deepEqual(sq.db.prepare("SELECT typeof(expires_at) AS t, expires_at AS e FROM xborder_claims WHERE id = 'int'").get(),
      { t: 'integer', e: MAX_TIME_MS });
  });
} catch (e) {
  failed += 1;
  console.log(`FAIL ${e.stack ?? e}`);
} finally {
  await pool?.end().catch(() => {});
  sq.close();
  stopPg();
}
console.log(`test-sql-time: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
