// The Node SQL claim stores (pg-store.mjs, sqlite-store.mjs) against a real PostgreSQL (started
// here by tests/servers/postgres.sh on a free loopback port, stopped at the end, on failure
// too) and an SQLite file: their statements are the Rust crate's (stores/sql/src), every
// `delivery.claims` vector of the project and of ../shared/conformance through both ways of using
// them (a step bound to its time, and the plain store of `Claims.withStore`), one winner among
// concurrent claims from several connections (worker threads for SQLite), expiry and purge, the
// host's transaction (rolled back after complete: claimable again after the lease; committed: a
// duplicate), handleDelivery with pgTransaction and sqliteHandling (a commit that fails: nothing
// kept, the claim released, 500; a statement that aborted the transaction: 503, nothing kept;
// a complete stale inside the transaction: rolled back, 503 with the lease as Retry-After;
// concurrent SQLite deliveries taking turns on the one connection), the recipes of stores/node/README.md run as written, wrong kinds, and server.mjs with --postgres
// and --sqlite (each event's row written in the transaction of its complete). Run by test.sh.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Claims, Receiver, handleDelivery, sign } from 'xborder-wasm';
import * as pgs from '../../stores/node/pg-store.mjs';
import * as sqs from '../../stores/node/sqlite-store.mjs';

const { PgClaims, pgClaimStore } = pgs;
const { SqliteClaims, sqliteClaimStore } = sqs;
const here = new URL('.', import.meta.url).pathname;
const root = new URL('../../', import.meta.url).pathname;

// A worker thread of the SQLite concurrency test: its own connection to the file; each round it
// waits for the go (the shared counter reaching the round), claims the round's id, reports.
if (!isMainThread) {
  const { file, index, go } = workerData;
  const flag = new Int32Array(go);
  const claims = SqliteClaims.open(file, { leaseMs: 1000 });
  parentPort.on('message', ({ round, id, at }) => {
    parentPort.postMessage({ ready: round });
    Atomics.wait(flag, 0, round); // until the main thread moves the counter past `round`
    let outcome;
    try {
      outcome = claims.step('claim', id, `r${round}_${index}`, at);
    } catch (e) {
      outcome = e.code ?? String(e);
    }
    parentPort.postMessage({ round, outcome });
  });
} else {
  await main();
}

async function main() {
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

  const work = mkdtempSync(join(tmpdir(), 'xb-node-sql-'));
  const pgDir = mkdtempSync('/tmp/xb-node-pg-');
  const serverSh = join(root, 'tests/servers/postgres.sh');
  let pgStarted = false;
  const stopPg = () => {
    if (pgStarted) spawnSync('bash', [serverSh, 'stop', pgDir], { stdio: ['ignore', 'ignore', 'inherit'] });
    pgStarted = false;
    rmSync(pgDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  };
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { stopPg(); process.exit(1); });
  const pools = [];
  try {
    // The server's watchdog stops it should this process die without the finally below.
    const started = spawnSync('bash', [serverSh, 'start', pgDir], { encoding: 'utf8',
      env: { ...process.env, XBORDER_PG_OWNER: String(process.pid) }, stdio: ['ignore', 'pipe', 'inherit'] });
    if (started.status !== 0) throw new Error(`postgres/server.sh start failed (${started.status})`);
    pgStarted = true;
    const url = started.stdout.trim().split('\n').pop();
    console.log(`postgres: ${url}`);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const db of ['claims', 'recipe', 'receiver', 'race']) await admin.query(`CREATE DATABASE ${db}`);
    await admin.end();
    const dbUrl = (db) => url.replace(/\/postgres$/, `/${db}`);
    const newPool = (db = 'claims', max = 10) => {
      const p = new pg.Pool({ connectionString: dbUrl(db), max });
      p.on('error', () => {});
      pools.push(p);
      return p;
    };
    const pool = newPool();
    await new PgClaims(pool).migrate();
    await new PgClaims(pool).migrate(); // idempotent
    await test('postgres: 8 instances migrating a fresh database at once all succeed', async () => {
      const race = newPool('race', 8);
      await Promise.all(Array.from({ length: 8 }, () => new pg.Client({ connectionString: dbUrl('race') }))
        .map(async (c) => { await c.connect(); try { await new PgClaims(c).migrate(); } finally { await c.end(); } }));
      assert.equal((await race.query("SELECT count(*) AS n FROM pg_tables WHERE tablename = 'xborder_claims'")).rows[0].n, '1');
    });
    const sqliteFile = join(work, 'claims.db');
    const sq = SqliteClaims.open(sqliteFile, { leaseMs: 1000 });
    sq.migrate(); // idempotent
    const pgRows = async () => (await pool.query(
      'SELECT id, entry, expires_at::text AS exp FROM xborder_claims ORDER BY id')).rows.map((r) => [r.id, r.entry, r.exp && Number(r.exp)]);
    const sqRows = () => sq.db.prepare('SELECT id, entry, expires_at AS exp FROM xborder_claims ORDER BY id').all()
      .map((r) => [r.id, r.entry, r.exp]);
    const engines = {
      postgres: { reset: () => pool.query('DELETE FROM xborder_claims'), rows: pgRows,
        bound: (o) => { const c = new PgClaims(pool, o); return (...a) => c.step(...a); },
        plain: (o) => { const c = Claims.withStore(pgClaimStore(pool), o); return (...a) => c.stepAsync(...a); } },
      sqlite: { reset: () => sq.db.exec('DELETE FROM xborder_claims'), rows: sqRows,
        bound: (o) => { const c = new SqliteClaims(sq.db, o); return async (...a) => c.step(...a); },
        plain: (o) => { const c = Claims.withStore(sqliteClaimStore(sq.db), o); return async (...a) => c.step(...a); } },
    };

    await test('the statements are the Rust crate\'s (stores/sql/src/*.rs), the migrations read from stores/sql/migrations', () => {
      for (const [engine, mod] of [['postgres', pgs], ['sqlite', sqs]]) {
        const src = readFileSync(join(root, `stores/sql/src/${engine}.rs`), 'utf8');
        for (const name of ['LOAD', 'INSERT', 'UPDATE', 'DELETE', 'PURGE']) {
          const m = new RegExp(`pub const ${name}: &str = "((?:[^"\\\\]|\\\\[\\s\\S])*)";`).exec(src);
          assert.ok(m, `${engine}.rs: const ${name}`);
          const rust = m[1].replace(/\\\n\s*/g, '');
          assert.equal(mod[name], rust, `${engine} ${name}`);
        }
        assert.equal(mod.MIGRATION, readFileSync(join(root, `stores/sql/migrations/${engine}.sql`), 'utf8'));
      }
    });

    // Every delivery.claims vector, through each store both ways.
    const dirs = [join(root, 'tests/vectors'), join(root, '../shared/conformance'),
      ...(process.env.XBORDER_VECTORS_DIR ?? '').split(':').filter(Boolean)];
    const vectors = [];
    const empty = [];
    for (const [d, dir] of dirs.entries()) {
      if (!existsSync(dir)) {
        if (d === 0) empty.push(dir);
        continue;
      }
      const before = vectors.length;
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
        const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
        for (const c of doc.cases ?? []) if (c.op === 'delivery.claims') vectors.push({ file, c });
      }
      if (d < 2 && vectors.length === before) empty.push(dir);
    }
    for (const [engine, e] of Object.entries(engines)) {
      for (const way of ['bound', 'plain']) {
        await test(`${engine} (${way === 'bound' ? 'a store per step, at its time' : 'Claims.withStore, no time'}): ${vectors.length} delivery.claims vectors`, async () => {
          assert.deepEqual(empty, [], 'no delivery.claims case in these folders');
          assert.ok(vectors.length > 0);
          const wrong = [];
          for (const { file, c } of vectors) {
            await e.reset();
            // FORMAT.md: no windowMs, a done id is a duplicate for ever: the longest window.
            const step = e[way]({ leaseMs: c.input.leaseMs, windowMs: c.input.windowMs ?? Number.MAX_SAFE_INTEGER });
            const got = [];
            for (const s of c.input.steps) got.push(await step(s.do, s.id, s.token, s.at).catch((x) => x.code ?? String(x)));
            if (JSON.stringify(got) !== JSON.stringify(c.expect.results)) wrong.push(`${file} :: ${c.name}: got ${JSON.stringify(got)}`);
          }
          assert.deepEqual(wrong, []);
        });
      }
    }

    await test('postgres: 16 connections claim one id at once, 20 rounds (odd ones over an expired row): one claimed', async () => {
      const clients = [];
      try {
        for (let i = 0; i < 16; i += 1) {
          const c = new pg.Client({ connectionString: dbUrl('claims') });
          await c.connect();
          clients.push(c);
        }
        const claims = clients.map((c) => new PgClaims(c, { leaseMs: 1000 }));
        for (let round = 0; round < 20; round += 1) {
          const id = `conc_${Math.floor(round / 2)}`;
          const at = 10000 * (round % 2) + 1;
          const out = await Promise.all(claims.map((c, i) => c.step('claim', id, `r${round}_${i}`, at)));
          assert.equal(out.filter((o) => o === 'claimed').length, 1, `round ${round}: ${out}`);
          assert.equal(out.filter((o) => o === 'in_progress').length, 15, `round ${round}: ${out}`);
        }
      } finally {
        await Promise.all(clients.map((c) => c.end()));
      }
    });

    await test('sqlite: 4 worker threads, each its own connection, claim one id at once, 20 rounds: one claimed', async () => {
      const go = new SharedArrayBuffer(4);
      const flag = new Int32Array(go);
      const workers = Array.from({ length: 4 }, (_, index) =>
        new Worker(new URL(import.meta.url), { workerData: { file: sqliteFile, index, go } }));
      try {
        for (let round = 0; round < 20; round += 1) {
          const id = `conc_${Math.floor(round / 2)}`;
          const at = 10000 * (round % 2) + 1;
          const ready = workers.map((w) => new Promise((ok) => w.once('message', ok)));
          for (const w of workers) w.postMessage({ round, id, at });
          await Promise.all(ready);
          const results = workers.map((w) => new Promise((ok) => w.once('message', ok)));
          Atomics.store(flag, 0, round + 1);
          Atomics.notify(flag, 0);
          const out = (await Promise.all(results)).map((r) => r.outcome);
          assert.equal(out.filter((o) => o === 'claimed').length, 1, `round ${round}: ${out}`);
          assert.equal(out.filter((o) => o === 'in_progress').length, 3, `round ${round}: ${out}`);
        }
      } finally {
        await Promise.all(workers.map((w) => w.terminate()));
      }
    });

    for (const [engine, e] of Object.entries(engines)) {
      await test(`${engine}: rows expire with the TTL from the step's time; expired rows are no rows`, async () => {
        await e.reset();
        const step = e.bound({ leaseMs: 50, windowMs: 100 });
        assert.equal(await step('claim', 'a', 'r1', 1000), 'claimed');
        assert.deepEqual(await e.rows(), [['a', 'h:1000:r1', 1100]], 'two leases');
        assert.equal(await step('complete', 'a', 'r1', 1010), 'completed');
        assert.deepEqual(await e.rows(), [['a', 'd:1010', 1110]], 'the window');
        assert.equal(await step('claim', 'a', 'r2', 1109), 'duplicate');
        assert.equal(await step('claim', 'a', 'r2', 1110), 'claimed', 'the expired row is written over');
        assert.deepEqual(await e.rows(), [['a', 'h:1110:r2', 1210]]);
        assert.equal(await step('release', 'a', 'r2', 1210), 'stale');
        assert.equal(await step('complete', 'a', 'r2', 1300), 'completed');
        assert.deepEqual(await e.rows(), [['a', 'd:1300', 1400]]);
        // The plain store (the package's Claims over the same table) writes the same rows: the times are core's.
        const plain = e.plain({ leaseMs: 50, windowMs: 100 });
        assert.equal(await plain('claim', 'b', 'r1', 1000), 'claimed');
        assert.equal(await plain('complete', 'b', 'r1', 1010), 'completed');
        assert.equal(await plain('release', 'c', 'r1', 0), 'stale');
        assert.equal(await plain('claim', 'c', 'r1', 0), 'claimed');
        assert.equal(await plain('release', 'c', 'r1', 1), 'released');
        assert.deepEqual((await e.rows()).slice(1), [['b', 'd:1010', 1110]], 'a release removes the row');
        // A window past 2^48 is core's TTL cap: the row expires at the step's time plus 2^48 - 1.
        assert.equal(await e.bound({ leaseMs: 50, windowMs: Number.MAX_SAFE_INTEGER })('complete', 'z', 'r', 2 ** 48 - 1), 'completed');
        const [, , zExp] = (await e.rows()).find((r) => r[0] === 'z');
        assert.equal(BigInt(zExp), 2n * BigInt(2 ** 48 - 1));
      });

      await test(`${engine}: purge deletes the expired rows only`, async () => {
        await e.reset();
        const step = e.bound({ leaseMs: 10, windowMs: 1000 });
        for (const [i, at] of [0, 500, 2000].entries()) {
          await step('claim', `done_${i}`, 'r', at);
          await step('complete', `done_${i}`, 'r', at); // expires at + 1000
        }
        await step('claim', 'held', 'r', 1480); // expires at 1500
        const purge = (n) => (engine === 'postgres' ? new PgClaims(pool).purge(n) : sq.purge(n));
        assert.equal(await purge(999), 0);
        assert.equal(await purge(1000), 1);
        assert.equal(await purge(1500), 2);
        assert.deepEqual((await e.rows()).map((r) => r[0]), ['done_2']);
        assert.equal(await purge(Number.MAX_SAFE_INTEGER), 1);
      });
    }

    await test('postgres: complete inside the host\'s transaction commits or rolls back with it', async () => {
      await pool.query('CREATE TABLE events (id text PRIMARY KEY)');
      const count = async (id) => Number((await pool.query('SELECT count(*) AS n FROM events WHERE id = $1', [id])).rows[0].n);
      const claims = new PgClaims(pool, { leaseMs: 1000 });
      const host = await pool.connect();
      try {
        // Rolled back after complete: no event; the claim is as it was: held until the lease ends.
        assert.equal(await claims.step('claim', 'e1', 'r1', 0), 'claimed');
        await host.query('BEGIN');
        await host.query('INSERT INTO events VALUES ($1)', ['e1']);
        assert.equal(await claims.completeIn(host, 'e1', 'r1', 10), 'completed');
        assert.equal(await claims.step('claim', 'e1', 'r2', 20), 'in_progress', 'not committed: still held, no wait');
        await host.query('ROLLBACK');
        assert.equal(await count('e1'), 0);
        assert.equal(await claims.step('claim', 'e1', 'r2', 999), 'in_progress');
        assert.equal(await claims.step('claim', 'e1', 'r2', 1000), 'claimed', 'claimable again after the lease');

        // Committed: the event once, the id a duplicate; a takeover after the lease waits on the
        // row's lock for the transaction, then sees the completion.
        assert.equal(await claims.step('claim', 'e2', 'r1', 0), 'claimed');
        await host.query('BEGIN');
        await host.query('INSERT INTO events VALUES ($1)', ['e2']);
        assert.equal(await claims.completeIn(host, 'e2', 'r1', 10), 'completed');
        let lateDone = false;
        const late = claims.step('claim', 'e2', 'r3', 5000).finally(() => { lateDone = true; });
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(lateDone, false, 'the takeover waits for the host\'s transaction');
        await host.query('COMMIT');
        assert.equal(await late, 'duplicate');
        assert.equal(await count('e2'), 1);
        assert.equal(await claims.step('claim', 'e2', 'r4', 20), 'duplicate');

        // Taken over meanwhile: completeIn says stale, the host rolls back.
        assert.equal(await claims.step('claim', 'e3', 'r1', 0), 'claimed');
        assert.equal(await claims.step('claim', 'e3', 'r2', 2000), 'claimed');
        await host.query('BEGIN');
        assert.equal(await claims.completeIn(host, 'e3', 'r1', 2001), 'stale');
        await host.query('ROLLBACK');
      } finally {
        host.release();
      }
    });

    await test('sqlite: complete inside the host\'s transaction commits or rolls back with it', async () => {
      const db = sq.db;
      db.exec('CREATE TABLE events (id TEXT PRIMARY KEY)');
      const other = new SqliteClaims(new Database(sqliteFile), { leaseMs: 1000 }); // another connection
      const count = (id) => other.db.prepare('SELECT count(*) FROM events WHERE id = ?').pluck().get(id);
      const claims = new SqliteClaims(db, { leaseMs: 1000 });
      const insert = db.prepare('INSERT INTO events VALUES (?)');
      class Rollback extends Error {}
      try {
        assert.equal(claims.step('claim', 'e1', 'r1', 0), 'claimed');
        assert.throws(() => db.transaction(() => {
          insert.run('e1');
          assert.equal(claims.completeIn(db, 'e1', 'r1', 10), 'completed');
          // Not committed: another connection still sees the claim (WAL: readers never wait).
          assert.equal(other.step('claim', 'e1', 'r2', 20), 'in_progress');
          throw new Rollback();
        }).immediate(), Rollback);
        assert.equal(count('e1'), 0);
        assert.equal(other.step('claim', 'e1', 'r2', 999), 'in_progress');
        assert.equal(other.step('claim', 'e1', 'r2', 1000), 'claimed', 'claimable again after the lease');

        assert.equal(claims.step('claim', 'e2', 'r1', 0), 'claimed');
        const done = db.transaction(() => {
          insert.run('e2');
          return claims.completeIn(db, 'e2', 'r1', 10);
        }).immediate();
        assert.equal(done, 'completed');
        assert.equal(count('e2'), 1);
        assert.equal(other.step('claim', 'e2', 'r4', 20), 'duplicate');
        assert.equal(other.step('claim', 'e2', 'r4', 5000), 'duplicate');

        // The host's transaction on another connection to the file.
        assert.equal(claims.step('claim', 'e3', 'r1', 0), 'claimed');
        const odb = other.db;
        const out = odb.transaction(() => {
          odb.prepare('INSERT INTO events VALUES (?)').run('e3');
          return claims.completeIn(odb, 'e3', 'r1', 10);
        }).immediate();
        assert.equal(out, 'completed');
        assert.equal(claims.step('claim', 'e3', 'r9', 20), 'duplicate');

        // Taken over meanwhile: stale, rolled back.
        assert.equal(claims.step('claim', 'e4', 'r1', 0), 'claimed');
        assert.equal(other.step('claim', 'e4', 'r2', 2000), 'claimed');
        assert.equal(db.transaction(() => claims.completeIn(db, 'e4', 'r1', 2001)).immediate(), 'stale');
        // Outside a transaction completeIn refuses (it would commit alone).
        assert.throws(() => claims.completeIn(db, 'e5', 'r1', 0), /inside db\.transaction/);
      } finally {
        other.close();
      }
    });

    await test('handleDelivery with pgTransaction and sqliteHandling: the row and the completion commit together; a failed commit rolls both back and releases (500)', async () => {
      const secret = 'whsec_tx';
      const receiver = new Receiver(secret, { window: 0 });
      const delivery = (id) => {
        const body = JSON.stringify({ id, event: 'order:created', entity: { id: 'o', type: 'order' } });
        return { receiver, body, signature: sign(secret, body), leaseMs: 1000 };
      };
      // A complete that is stale inside the transaction: delivery A claims at 0 (lease 1 s); as
      // it begins its transaction, delivery B of the same event (2.5 s: A's lease over) takes the
      // id over, writes its row and commits; A's complete at 2.51 s on its transaction finds the
      // claim B's: core answers 503 with the lease as Retry-After and no commit, so A's row is
      // rolled back and only B's is kept.
      const takeover = async (id, store, transaction, write) => {
        const times = [0];
        let b;
        const a = await handleDelivery({ ...delivery(id), store, now: () => times.shift() ?? 2510,
          transaction: { ...transaction,
            async begin() {
              b = await handleDelivery({ ...delivery(id), store, transaction, now: () => 2500,
                persist: (env, tx) => write(env, tx, 'b') });
              return transaction.begin();
            } },
          persist: (env, tx) => write(env, tx, 'a') });
        assert.deepEqual([a.status, a.retryAfter, a.headers, a.outcome, a.code, a.persisted],
          [503, 1, { 'Retry-After': '1' }, 'stale', null, false], 'A: stale inside its transaction');
        assert.deepEqual([b.status, b.outcome, b.persisted], [200, 'completed', true], 'B: committed');
      };
      try {
        // PostgreSQL: a deferred unique key fails at COMMIT (the insert goes through, the commit not).
        await pool.query('CREATE TABLE tx_events (id text, k text UNIQUE DEFERRABLE INITIALLY DEFERRED)');
        const n = async (table, id) => Number((await pool.query(`SELECT count(*) AS n FROM ${table} WHERE id = $1`, [id])).rows[0].n);
        const pgRun = (id, k, extra = async () => {}) => handleDelivery({ ...delivery(id), store: pgs.pgClaimStore(pool),
          transaction: pgs.pgTransaction(pool),
          persist: async (env, client) => {
            await client.query('INSERT INTO tx_events VALUES ($1, $2)', [env.id, k]);
            await extra(client);
          } });
        let r = await pgRun('t1', 'a');
        assert.deepEqual([r.status, r.outcome, r.persisted], [200, 'completed', true]);
        assert.deepEqual([await n('tx_events', 't1'), (await pool.query("SELECT entry FROM xborder_claims WHERE id = 't1'")).rows[0].entry.slice(0, 2)], [1, 'd:']);
        r = await pgRun('t2', 'a'); // the commit fails: t1's key
        assert.deepEqual([r.status, r.code, r.outcome, r.persisted], [500, 'PERSIST_FAILED', 'released', false]);
        assert.match(String(r.error?.message), /duplicate key/);
        assert.deepEqual([await n('tx_events', 't2'), await n('xborder_claims', 't2')], [0, 0], 'nothing kept, the claim released');
        // A statement that failed in the transaction (its error swallowed): the transaction is
        // aborted, so the complete step's store calls on it fail: core answers the complete's
        // error (503 STORE_UNAVAILABLE), nothing committed (never a 200 with nothing written),
        // the claim left to its lease (core's rule for a complete that fails in a transaction).
        r = await pgRun('t3', 'c', (client) => client.query('SELECT 1/0').catch(() => {}));
        assert.deepEqual([r.status, r.code, await n('tx_events', 't3'), await n('xborder_claims', 't3')], [503, 'STORE_UNAVAILABLE', 0, 1]);
        r = await pgRun('t2', 'b'); // the retry
        assert.deepEqual([r.status, r.outcome, await n('tx_events', 't2')], [200, 'completed', 1]);
        await takeover('t4', pgs.pgClaimStore(pool), pgs.pgTransaction(pool),
          (env, client, who) => client.query('INSERT INTO tx_events VALUES ($1, $2)', [env.id, `${env.id}:${who}`]));
        assert.deepEqual((await pool.query("SELECT k FROM tx_events WHERE id = 't4'")).rows, [{ k: 't4:b' }], 'only B\'s row');
        assert.match((await pool.query("SELECT entry FROM xborder_claims WHERE id = 't4'")).rows[0].entry, /^d:/, 'done by B');
        assert.equal(pool.totalCount <= pool.options.max && pool.waitingCount, 0, 'every connection given back');
        assert.equal(pool.idleCount, pool.totalCount, 'no connection left checked out');

        // SQLite: a deferred foreign key fails at COMMIT; concurrent deliveries take turns on the one connection.
        const sc = SqliteClaims.open(join(work, 'tx.db'), { leaseMs: 1000 });
        const db = sc.db;
        db.pragma('foreign_keys = ON');
        db.exec('CREATE TABLE orders (id TEXT PRIMARY KEY); INSERT INTO orders VALUES (\'o1\');' +
          'CREATE TABLE tx_events (id TEXT, o TEXT REFERENCES orders (id) DEFERRABLE INITIALLY DEFERRED)');
        const { store, transaction } = sqs.sqliteHandling(db);
        const insert = db.prepare('INSERT INTO tx_events VALUES (?, ?)');
        const rows = (id) => db.prepare('SELECT count(*) FROM tx_events WHERE id = ?').pluck().get(id);
        const sqRun = (id, order) => handleDelivery({ ...delivery(id), store, transaction,
          persist: async (env, tx) => {
            await new Promise((ok) => { setTimeout(ok, 5); }); // another delivery's claim meanwhile
            insert.run(env.id, order);
            assert.equal(tx, db);
          } });
        const all = await Promise.all(['s1', 's2', 's3'].map((id) => sqRun(id, 'o1')));
        assert.deepEqual(all.map((x) => [x.status, x.outcome]), [[200, 'completed'], [200, 'completed'], [200, 'completed']]);
        assert.deepEqual(['s1', 's2', 's3'].map(rows), [1, 1, 1]);
        r = await sqRun('s4', 'o9'); // no such order: the COMMIT fails
        assert.deepEqual([r.status, r.code, r.outcome, rows('s4'), db.inTransaction], [500, 'PERSIST_FAILED', 'released', 0, false]);
        assert.match(String(r.error?.message), /FOREIGN KEY/);
        assert.equal(db.prepare("SELECT count(*) FROM xborder_claims WHERE id = 's4'").pluck().get(), 0);
        const orderOf = db.prepare('INSERT INTO orders VALUES (?) ON CONFLICT DO NOTHING');
        await takeover('s5', store, transaction, (env, tx, who) => {
          orderOf.run(who);
          insert.run(env.id, who);
        });
        assert.deepEqual(db.prepare("SELECT o FROM tx_events WHERE id = 's5'").pluck().all(), ['b'], 'only B\'s row');
        assert.deepEqual([db.prepare("SELECT entry FROM xborder_claims WHERE id = 's5'").pluck().get().slice(0, 2), db.inTransaction],
          ['d:', false], 'done by B, no transaction left open');
        sc.close();
      } finally {
        receiver.free();
      }
    });

    await test('foreign rows and an unreachable server are STORE_UNAVAILABLE', async () => {
      await pool.query("INSERT INTO xborder_claims (id, entry) VALUES ('foreign', 'not ours')");
      const code = (p) => Promise.resolve().then(p).then((v) => v, (x) => x.code ?? String(x));
      assert.equal(await code(() => new PgClaims(pool).step('claim', 'foreign', 'r', 0)), 'STORE_UNAVAILABLE');
      sq.db.prepare("INSERT INTO xborder_claims (id, entry) VALUES ('foreign', 'not ours')").run();
      assert.equal(await code(() => sq.step('claim', 'foreign', 'r', 0)), 'STORE_UNAVAILABLE');
      const dead = new pg.Pool({ connectionString: 'postgres://xborder@127.0.0.1:1/postgres', connectionTimeoutMillis: 2000 });
      dead.on('error', () => {});
      assert.equal(await code(() => new PgClaims(dead).step('claim', 'x', 'r', 0)), 'STORE_UNAVAILABLE');
      await dead.end();
      const noTable = new SqliteClaims(new Database(':memory:'));
      assert.equal(await code(() => noTable.step('claim', 'x', 'r', 0)), 'STORE_UNAVAILABLE');
      noTable.close();
    });

    await test('wrong kinds are TypeErrors naming the parameter', async () => {
      const pgc = new PgClaims(pool);
      const client = await pool.connect();
      const calls = [
        ['db', () => new PgClaims('postgres://x')], ['options', () => new PgClaims(pool, 30000)],
        ['options.leaseMs', () => new PgClaims(pool, { leaseMs: '30000' })], ['options.lease', () => new PgClaims(pool, { lease: 1 })],
        ['db', () => pgClaimStore(null)],
        ['step', () => pgc.step(1, 'e', 't', 0)], ['id', () => pgc.step('claim', 7, 't', 0)],
        ['token', () => pgc.step('claim', 'e', null, 0)], ['atMs', () => pgc.step('claim', 'e', 't', '0')],
        ['client', () => pgc.completeIn(pool, 'e', 't', 0)], ['client', () => pgc.completeIn({}, 'e', 't', 0)],
        ['id', () => pgc.completeIn(client, 1, 't', 0)], ['token', () => pgc.completeIn(client, 'e', 1, 0)],
        ['atMs', () => pgc.completeIn(client, 'e', 't', 1.5)], ['nowMs', () => pgc.purge(new Date())],
        ['step', () => pgc.reply(3, 'claimed')], ['outcome', () => pgc.reply('claim', 3)],
        ['path', () => SqliteClaims.open(Buffer.from('x.db'))], ['options.windowMs', () => SqliteClaims.open(':memory:', { windowMs: -1 })],
        ['db', () => new SqliteClaims(pool)], ['options', () => new SqliteClaims(sq.db, 'x')],
        ['db', () => sqliteClaimStore('claims.db')],
        ['step', () => sq.step(null, 'e', 't', 0)], ['id', () => sq.step('claim', 1, 't', 0)],
        ['token', () => sq.step('claim', 'e', 1, 0)], ['atMs', () => sq.step('claim', 'e', 't')],
        ['db', () => sq.completeIn(pool, 'e', 't', 0)], ['atMs', () => sq.db.transaction(() => sq.completeIn(sq.db, 'e', 't', -5))()],
        ['nowMs', () => sq.purge('0')], ['outcome', () => sq.reply('claim', null)],
      ];
      try {
        for (const [name, call] of calls) {
          let err;
          try {
            await call();
          } catch (x) {
            err = x;
          }
          assert.ok(err instanceof TypeError, `${name}: ${err} (${call})`);
          assert.ok(err.message.includes(`\`${name}\``), `${name}: ${err.message}`);
        }
      } finally {
        client.release();
      }
    });

    await test('the recipes of stores/node/README.md, run as written (postgres and sqlite)', async () => {
      // stores/node/README.md's recipes, run beside the stores they import ('./pg-store.mjs').
      const stores = join(root, 'stores/node');
      const readme = readFileSync(join(stores, 'README.md'), 'utf8');
      const blocks = [...readme.matchAll(/<!-- recipe: (\w+) -->\n```js\n([\s\S]*?)```/g)];
      assert.deepEqual(blocks.map((b) => b[1]), ['postgres', 'sqlite']);
      const secret = 'whsec_recipe';
      process.env.WEBHOOK_SECRET = secret;
      process.env.DATABASE_URL = dbUrl('recipe');
      process.env.SQLITE_PATH = join(work, 'recipe.db');
      for (const [, engine, code] of blocks) {
        const file = join(stores, `.recipe-${engine}-${process.pid}.mjs`);
        writeFileSync(file, code);
        let mod;
        try {
          mod = await import(file);
        } finally {
          rmSync(file, { force: true });
        }
        try {
          const body = JSON.stringify({ id: `evt_recipe_${engine}`, event: 'order:created',
            entity: { id: 'ord_1', type: 'order', data: { id: 'ord_1', status: 'created' } } });
          const headers = { 'x-webhook-signature': sign(secret, body) };
          assert.deepEqual(await mod.onDelivery(Buffer.from(body), headers), { status: 200, retryAfter: null }, 'processed');
          assert.deepEqual(await mod.onDelivery(Buffer.from(body), headers), { status: 200, retryAfter: null }, 'duplicate');
          const n = engine === 'postgres'
            ? Number((await mod.pool.query('SELECT count(*) AS n FROM events')).rows[0].n)
            : mod.claims.db.prepare('SELECT count(*) FROM events').pluck().get();
          assert.equal(n, 1, `${engine}: one event row`);
          const entry = engine === 'postgres'
            ? (await mod.pool.query('SELECT entry FROM xborder_claims')).rows[0].entry
            : mod.claims.db.prepare('SELECT entry FROM xborder_claims').pluck().get();
          assert.match(entry, /^d:\d+$/, 'done');
          assert.deepEqual(await mod.onDelivery(Buffer.from(body), { 'x-webhook-signature': sign('whsec_other', body) }),
            { status: 400, retryAfter: null }, 'forged');
        } finally {
          if (engine === 'postgres') await mod.pool.end();
          else mod.claims.close();
        }
      }
    });

    for (const engine of ['postgres', 'sqlite']) {
      await test(`server.mjs --${engine}: events written in the transaction of their complete; a redelivery is a duplicate`, async () => {
        const secret = 'whsec_sql_receiver';
        const persisted = join(work, `rx-${engine}.jsonl`);
        const where = engine === 'postgres' ? dbUrl('receiver') : join(work, 'receiver.db');
        const child = spawn(process.execPath, [join(here, 'server.mjs'), '--listen', '127.0.0.1:0', '--secret', secret,
          `--${engine}`, where, '--persist', persisted, '--records', join(work, `records-${engine}`),
          '--instance', `rx-${engine}`, '--lease-ms', '4000'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d) => { stderr += d; });
        try {
          const addr = await new Promise((ok, no) => {
            createInterface({ input: child.stdout }).once('line', ok);
            child.once('exit', (code) => no(new Error(`server.mjs exited (${code}) before its address: ${stderr}`)));
          });
          const post = async (body, signature) => {
            const r = await fetch(`http://${addr}/webhooks`, { method: 'POST', body,
              headers: { 'content-type': 'application/json', 'x-webhook-signature': signature } });
            return { status: r.status, body: await r.json() };
          };
          const envelope = (id, event) => JSON.stringify({ id, event,
            entity: { id: 'ord_000001', type: event.split(':')[0], data: { id: 'ord_000001', status: 'created' } } });
          const a = envelope('evt_sql_1', 'order:created');
          const b = envelope('evt_sql_2', 'order:cancelled');
          const u = envelope('evt_sql_3', 'order:teleported');
          const sent = [
            [a, sign(secret, a), 200, { result: 'processed' }],
            [a, sign(secret, a), 200, { result: 'duplicate' }],
            [b, sign(secret, b), 200, { result: 'processed' }],
            [b, sign(`${secret}_x`, b), 400, { error: 'SIGNATURE_MISMATCH' }],
            [u, sign(secret, u), 200, { result: 'ignore' }],
            [b, sign(secret, b), 200, { result: 'duplicate' }],
          ];
          // Two concurrent deliveries of a third event: one processed, the other in_progress or duplicate.
          for (const [body, sig, status, said] of sent) assert.deepEqual(await post(body, sig), { status, body: said });
          const c = envelope('evt_sql_4', 'order:created');
          const twins = await Promise.all([post(c, sign(secret, c)), post(c, sign(secret, c))]);
          assert.equal(twins.filter((t) => t.body.result === 'processed').length, 1, JSON.stringify(twins));
          const rows = engine === 'postgres'
            ? await (async () => {
              const p = newPool('receiver', 2);
              const r = (await p.query('SELECT e.id, e.event, e.instance, c.entry FROM xborder_events e JOIN xborder_claims c USING (id) ORDER BY e.id')).rows;
              return r.map((x) => [x.id, x.event, x.instance, x.entry.slice(0, 2)]);
            })()
            : (() => {
              const db = new Database(where, { readonly: true });
              try {
                return db.prepare('SELECT e.id, e.event, e.instance, c.entry FROM xborder_events e JOIN xborder_claims c USING (id) ORDER BY e.id').all()
                  .map((x) => [x.id, x.event, x.instance, x.entry.slice(0, 2)]);
              } finally {
                db.close();
              }
            })();
          assert.deepEqual(rows, [['evt_sql_1', 'order:created', `rx-${engine}`, 'd:'], ['evt_sql_2', 'order:cancelled', `rx-${engine}`, 'd:'],
            ['evt_sql_4', 'order:created', `rx-${engine}`, 'd:']]);
          const lines = readFileSync(persisted, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
          assert.deepEqual(lines.map((l) => l.id).sort(), ['evt_sql_1', 'evt_sql_2', 'evt_sql_4']);
          assert.ok(lines.every((l) => l.lease_ms === 4000 && l.claimed_at_ms <= l.at_ms), JSON.stringify(lines));
          const stats = await (await fetch(`http://${addr}/stats`)).json();
          assert.equal(stats.processed, 3);
          assert.match(stderr, new RegExp(`claims in ${engine}`));
        } finally {
          child.kill('SIGKILL');
        }
      });
    }
    // The catch-up (issue 34): events the provider dead-lettered, recovered from the
    // simulator's GET /v1/external-events by server.mjs --catch-up; one of them was delivered
    // before (a duplicate to the catch-up). No timing is asserted: the test waits for the
    // receiver's own count of catch-ups.
    await test('server.mjs --sqlite --catch-up: dead-lettered events recovered once each, the checkpoint kept', async () => {
      const secret = 'whsec_catch_up';
      const db = join(work, 'catch-up.db');
      const records = join(work, 'external-events.jsonl');
      const at = (n) => `2026-11-27T12:0${n}:00.000Z`;
      writeFileSync(records, [0, 1, 2, 3, 4].map((n) => JSON.stringify({ id: `evt_cu_${n}`, name: 'order:created',
        aggregateType: 'order', aggregateId: `ord_${n}`, merchantId: 'm_1', payload: { id: `ord_${n}`, amount: 10.5 },
        createdAt: at(n) })).join('\n') + '\n');
      const addrFile = join(work, 'api.addr');
      const api = spawn(join(root, 'target/debug/xborder-simulator'), ['api', '--events', records, '--addr-file', addrFile],
        { stdio: 'ignore' });
      const start = async (extra) => {
        const child = spawn(process.execPath, [join(here, 'server.mjs'), '--listen', '127.0.0.1:0', '--secret', secret,
          '--sqlite', db, '--instance', 'rx-catch-up', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d) => { stderr += d; });
        const addr = await new Promise((ok, no) => {
          createInterface({ input: child.stdout }).once('line', ok);
          child.once('exit', (code) => no(new Error(`server.mjs exited (${code}) before its address: ${stderr}`)));
        });
        return { child, addr, stderr: () => stderr };
      };
      try {
        // Before the outage: evt_cu_1 delivered and processed.
        const first = await start([]);
        const body = JSON.stringify({ id: 'evt_cu_1', event: 'order:created', entity: { id: 'ord_1', type: 'order' } });
        const r = await fetch(`http://${first.addr}/webhooks`, { method: 'POST', body,
          headers: { 'content-type': 'application/json', 'x-webhook-signature': sign(secret, body) } });
        assert.equal(r.status, 200);
        first.child.kill('SIGKILL');
        for (let i = 0; i < 600 && !existsSync(addrFile); i++) await new Promise((ok) => { setTimeout(ok, 50); });
        const checkpoint = join(work, 'checkpoint');
        const back = await start(['--catch-up', `http://${readFileSync(addrFile, 'utf8').trim()}`,
          '--catch-up-every-ms', '100', '--checkpoint', checkpoint]);
        try {
          let stats;
          for (let i = 0; ; i++) {
            stats = await (await fetch(`http://${back.addr}/stats`)).json();
            if (stats.catch_ups >= 2) break;
            assert.equal(stats.catch_ups_failed, 0, back.stderr());
            assert.ok(i < 2400, `no second catch-up in 120 s: ${JSON.stringify(stats)} ${back.stderr()}`);
            await new Promise((ok) => { setTimeout(ok, 50); });
          }
          assert.deepEqual([stats.recovered, stats.catch_up_unhandled, stats.catch_ups_failed], [4, 0, 0], JSON.stringify(stats));
          assert.equal(readFileSync(checkpoint, 'utf8'), at(4));
          const d = new Database(db, { readonly: true });
          try {
            const ids = d.prepare('SELECT id FROM xborder_events ORDER BY id').all().map((x) => x.id);
            assert.deepEqual(ids, ['evt_cu_0', 'evt_cu_1', 'evt_cu_2', 'evt_cu_3', 'evt_cu_4']);
          } finally {
            d.close();
          }
          assert.match(back.stderr(), /catch-up: 5 events found since the start \(4 processed, 1 already handled/);
        } finally {
          back.child.kill('SIGKILL');
        }
      } finally {
        api.kill();
      }
    });
    sq.close();
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${e.stack ?? e}`);
  } finally {
    await Promise.all(pools.map((p) => p.end().catch(() => {})));
    stopPg();
  }
  console.log(`test-sql: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
