// A webhook receiver service in Node (node:http) over the xborder npm package, the way a
// consumer runs one: several instances behind a load balancer sharing Redis or PostgreSQL (or one
// instance on SQLite). The same flow and flags as the Rust one (services/receiver-rust), so the
// fault test can mix them:
//
//   node services/receiver-node/server.mjs --listen 127.0.0.1:0 --secret KEY
//     [--redis redis://127.0.0.1:6379/ | --postgres postgres://... | --sqlite PATH]
//     [--persist FILE] [--records DIR] [--instance NAME] [--lease-ms 30000] [--window-ms 604800000]
//
// 1. the RAW body (never a parsed one) and `X-Webhook-Signature` go to `Receiver.receive`
//    (window 0: the claims dedupe): reject → core's status (`decision.reply`: 400 for the
//    request's signature or envelope, 413 for a body over 1 MiB) with {error, field};
//    ignore → 200;
// 2. a live event (`process`) is claimed with a token of this request, in Redis
//    (`redis-store.mjs`) or in memory: in_progress → 503 with Retry-After; duplicate → 200;
//    the store unreachable → 503;
// 3. persist: the event's record in DIR, written under a temporary name and linked into place
//    (linkSync fails if it exists: the unique key a
//    consumer's table has; found already → processed again, nothing new kept), then one JSON
//    line in FILE; a failure → release → 500 (the retry processes it);
// 4. complete, then 200 (also when complete answers stale or the store fails: persisted).
// With --postgres URL or --sqlite PATH (pg-store.mjs, sqlite-store.mjs: claims in the table
// xborder_claims, migrated at start) steps 3 and 4 are one transaction of that database: the
// event's row goes into the table xborder_events (services/sql/receiver-events.sql, shared with
// the Rust and Python receivers) and the claim's complete commits with it. Completed → COMMIT,
// then the line in FILE (and the record in DIR, if given), 200; stale (another request took the
// claim over after the lease, and persists the event) → ROLLBACK, nothing of this request kept,
// core's answer for a stale completion (200); any failure (the insert, the claim's store, the
// commit) → ROLLBACK, release → core's answer for the release (500 PERSIST_FAILED).
// Expired claim rows are purged at start and every 10 minutes (the clock less 60 s of skew).
// The first line on stdout is the bound address; GET /healthz, GET /stats.
import http from 'node:http';
import { appendFileSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Claims, Receiver, XborderError } from 'xborder-wasm';

const USAGE = 'usage: server.mjs --listen HOST:PORT --secret KEY [--redis URL | --postgres URL | --sqlite PATH] ' +
  '[--persist FILE] [--records DIR] [--instance NAME] [--lease-ms N] [--window-ms N]';
const opts = { listen: '127.0.0.1:0', secrets: [], leaseMs: 30000, windowMs: 7 * 86400000,
  instance: `rx-${process.pid}` };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 1) {
  const [key, inline] = args[i].startsWith('--') ? args[i].slice(2).split(/=(.*)/s) : [null];
  const value = () => inline ?? args[++i] ?? fail(`--${key} needs a value`);
  const count = () => {
    const v = value();
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) fail(`--${key}: ${v} is not a count`);
    return Number(v);
  };
  switch (key) {
    case 'listen': opts.listen = value(); break;
    case 'secret': opts.secrets.push(value()); break;
    case 'redis': opts.redis = value(); break;
    case 'postgres': opts.postgres = value(); break;
    case 'sqlite': opts.sqlite = value(); break;
    case 'persist': opts.persist = value(); break;
    case 'records': opts.records = value(); break;
    case 'instance': opts.instance = value(); break;
    case 'lease-ms': opts.leaseMs = count(); break;
    case 'window-ms': opts.windowMs = count(); break;
    default: fail(`unknown argument ${args[i]}`);
  }
}
function fail(why) { console.error(`receiver-node: ${why}\n${USAGE}`); process.exit(2); }
if (opts.secrets.length === 0) fail('--secret is required');
if ([opts.redis, opts.postgres, opts.sqlite].filter((v) => v !== undefined).length > 1) {
  fail('one claims store: --redis, --postgres or --sqlite');
}

const receiver = new Receiver(opts.secrets.length === 1 ? opts.secrets[0] : opts.secrets, { window: 0 });
// --window-ms 0: remembered until the store forgets it (the API's longest window; the API's own
// default, for null, is 7 days), as the Rust receiver's 0 is.
const rules = { leaseMs: opts.leaseMs, windowMs: opts.windowMs || Number.MAX_SAFE_INTEGER };
// The events table the Rust, Node and Python receivers share (services/sql/receiver-events.sql):
// one row per processing and no unique key on purpose, so the fault test sees a second one.
const EVENTS_TABLE = readFileSync(new URL('../sql/receiver-events.sql', import.meta.url), 'utf8');
const PURGE_EVERY_MS = 600000;
const PURGE_SKEW_MS = 60000;
/** Purges expired claim rows now and every 10 minutes (a failure is logged, never fatal). */
function purgeNowAndThen(purge) {
  const run = async () => {
    try {
      await purge(Math.max(0, Date.now() - PURGE_SKEW_MS));
    } catch (e) {
      console.error(`receiver-node: purge: ${e.message}`);
    }
  };
  setInterval(run, PURGE_EVERY_MS).unref();
  return run();
}
/** The event's row (a processing of it). */
const eventRow = (envelope, token, claimedAt) => [envelope.id, envelope.event, opts.instance, token,
  claimedAt, opts.leaseMs, Date.now()];
const INSERT_EVENT = (p) => 'INSERT INTO xborder_events (id, event, instance, token, claimed_at_ms, lease_ms, at_ms) ' +
  `VALUES (${p.join(', ')})`;

async function openPostgres(url) {
  const { default: pg } = await import('pg');
  const { PgClaims } = await import('./pg-store.mjs');
  // A connection waits 2 s at most: then the step fails (503 STORE_UNAVAILABLE, the provider retries).
  const pool = new pg.Pool({ connectionString: url, max: 16, connectionTimeoutMillis: 2000 });
  pool.on('error', () => {}); // an idle connection lost: the next query reconnects
  // A connection lost while checked out (the server restarted mid-transaction) emits 'error' on
  // its client: the query in flight fails on its own, and the process must not crash.
  pool.on('connect', (client) => client.on('error', () => {}));
  const pgClaims = new PgClaims(pool, rules);
  await pgClaims.migrate();
  // One instance at a time (see PgClaims.migrate).
  await pool.query(`SELECT pg_advisory_xact_lock(hashtext('xborder_events'));\n${EVENTS_TABLE}`);
  await purgeNowAndThen((now) => pgClaims.purge(now));
  const insert = INSERT_EVENT(['$1', '$2', '$3', '$4', '$5', '$6', '$7']);
  return {
    name: `postgres ${url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}`,
    claims: pgClaims,
    step: (what, id, token, at) => pgClaims.step(what, id, token, at),
    async transaction(envelope, token, claimedAt) {
      const client = await pool.connect();
      let broken;
      try {
        await client.query('BEGIN');
        await client.query(insert, eventRow(envelope, token, claimedAt));
        const outcome = await pgClaims.completeIn(client, envelope.id, token, Date.now());
        await client.query(outcome === 'completed' ? 'COMMIT' : 'ROLLBACK');
        return { outcome, again: false };
      } catch (e) {
        await client.query('ROLLBACK').catch((r) => { broken = r; });
        throw e;
      } finally {
        client.release(broken); // a connection that could not roll back is closed, not reused
      }
    },
  };
}

async function openSqlite(path) {
  const { SqliteClaims } = await import('./sqlite-store.mjs');
  const sqClaims = SqliteClaims.open(path, rules);
  const { db } = sqClaims;
  db.exec(EVENTS_TABLE);
  await purgeNowAndThen((now) => sqClaims.purge(now));
  const insert = db.prepare(INSERT_EVENT(['?', '?', '?', '?', '?', '?', '?']));
  class Stale extends Error {}
  // better-sqlite3 rolls back when the function throws; IMMEDIATE: the write lock from the start.
  const tx = db.transaction((row, id, token) => {
    insert.run(row);
    const outcome = sqClaims.completeIn(db, id, token, Date.now());
    if (outcome !== 'completed') throw new Stale(outcome);
    return { outcome, again: false };
  });
  return {
    name: `sqlite ${path}`,
    claims: sqClaims,
    step: async (what, id, token, at) => sqClaims.step(what, id, token, at),
    async transaction(envelope, token, claimedAt) {
      try {
        return tx.immediate(eventRow(envelope, token, claimedAt), envelope.id, token);
      } catch (e) {
        if (e instanceof Stale) return { outcome: e.message, again: false };
        throw e;
      }
    },
  };
}

let claims;
// With --postgres or --sqlite: the claim steps, and the transaction that writes the event's row
// and completes its claim ({ outcome, again }; throws when nothing was committed).
let sql = null;
if (opts.postgres || opts.sqlite) {
  try {
    sql = await (opts.postgres ? openPostgres(opts.postgres) : openSqlite(opts.sqlite));
  } catch (e) {
    console.error(`receiver-node: ${opts.postgres ? 'postgres' : 'sqlite'}: ${e.message}`);
    process.exit(2);
  }
  claims = sql.claims;
} else if (opts.redis) {
  const { default: Redis } = await import('ioredis');
  const { redisClaimStore } = await import('./redis-store.mjs');
  // Fail fast while Redis is away (answer 503, the provider retries) rather than queueing.
  const redis = new Redis(opts.redis, { maxRetriesPerRequest: 0, enableOfflineQueue: false,
    retryStrategy: () => 200 });
  redis.on('error', () => {}); // each step reports its own failure
  claims = Claims.withStore(redisClaimStore(redis), rules);
} else {
  claims = new Claims({ ...rules, capacity: 1000000 });
}
if (opts.records) mkdirSync(opts.records, { recursive: true });

const stats = { instance: opts.instance, requests: 0, processed: 0, duplicate: 0, in_progress: 0,
  ignored: 0, rejected: 0, persist_failed: 0, store_errors: 0, stale: 0, again: 0 };
const boot = Date.now();
let counter = 0;

function answer(res, status, body, headers = {}) {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': data.length, ...headers });
  res.end(data);
}

// The event's record (the unique key), then its log line. Returns whether it existed already.
let written = 0;
// The line says when this request claimed the id and its lease, so that `xborder-simulator
// check` tells a takeover after a lease expiry from a completion that did not stick.
// `rowAgain`: the event's row was in the SQL table already (then the record is a mirror of it).
function persist(envelope, token, claimedAt, rowAgain = false) {
  const line = (again) => `${JSON.stringify({ id: envelope.id, event: envelope.event,
    instance: opts.instance, token, claimed_at_ms: claimedAt, lease_ms: opts.leaseMs,
    at_ms: Date.now(), ...(again ? { again: true } : {}) })}\n`;
  let again = rowAgain;
  if (rowAgain) stats.again += 1;
  if (opts.records) {
    const name = `${Buffer.from(envelope.id, 'utf8').toString('hex')}.json`;
    // Written whole under a temporary name, then linked to the event's name: link(2) fails if
    // the record exists (the unique key) and never shows a partial record, so an instance killed
    // mid-write leaves a stray temporary, not a torn record a redelivery would take as persisted.
    const tmp = join(opts.records, `.${name}.${process.pid}-${++written}.tmp`);
    try {
      writeFileSync(tmp, line(false), { flag: 'wx' });
      try {
        linkSync(tmp, join(opts.records, name));
      } catch (e) {
        if (e.code !== 'EEXIST') throw e;
        if (!again) stats.again += 1;
        again = true;
      }
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  if (opts.persist) appendFileSync(opts.persist, line(again));
}

async function webhook(req, res) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  // The request's headers as Node hands them: xborder finds the signature (any case) and
  // decides what a repeated one means.
  const decision = receiver.receive(body, req.headers);
  // Every answer's status and Retry-After come from core (decision.reply, claims.reply,
  // Claims.errorReply): the Rust, Node and Python receivers answer alike.
  const send = (how, body) =>
    answer(res, how.status, body, how.retryAfter === null ? {} : { 'retry-after': String(how.retryAfter) });
  if (decision.action === 'reject') {
    stats.rejected += 1;
    return send(decision.reply, { error: decision.error.code, field: decision.error.field });
  }
  if (decision.action !== 'process') {
    stats.ignored += 1;
    return send(decision.reply, { result: decision.action });
  }
  const { id } = decision.envelope;
  const token = `${opts.instance}-${boot}-${(counter += 1)}`;
  const step = async (what, at = Date.now()) =>
    (sql ? sql.step(what, id, token, at) : claims.stepAsync(what, id, token, at));
  const claimedAt = Date.now();
  let outcome;
  try {
    outcome = await step('claim', claimedAt);
  } catch (e) {
    stats.store_errors += 1;
    return send(Claims.errorReply(e), { error: e instanceof XborderError ? e.code : 'STORE_UNAVAILABLE' });
  }
  if (outcome !== 'claimed') {
    if (outcome === 'in_progress') stats.in_progress += 1;
    else stats.duplicate += 1;
    return send(claims.reply('claim', outcome), { result: outcome });
  }
  if (sql) return persistInTransaction(decision.envelope, token, claimedAt, step, send);
  try {
    persist(decision.envelope, token, claimedAt);
  } catch (e) {
    stats.persist_failed += 1;
    console.error(`receiver-node: persist ${id}: ${e.message}`);
    // Give the id back so the provider's retry processes it; answered as a release is.
    const released = await step('release').catch(() => 'released');
    return send(claims.reply('release', released), { error: 'PERSIST_FAILED' });
  }
  // Persisted, so answered as completed whatever complete gives: the record makes a retry harmless.
  let completed = 'completed';
  try {
    if ((await step('complete')) === 'stale') {
      stats.stale += 1;
      completed = 'stale';
    }
  } catch {
    stats.store_errors += 1;
  }
  stats.processed += 1;
  return send(claims.reply('complete', completed), { result: 'processed' });
}

// The event's row and its claim's completion in one transaction (--postgres, --sqlite).
async function persistInTransaction(envelope, token, claimedAt, step, send) {
  let done;
  try {
    done = await sql.transaction(envelope, token, claimedAt);
  } catch (e) {
    // Nothing committed: give the id back so the provider's retry processes it.
    stats.persist_failed += 1;
    console.error(`receiver-node: persist ${envelope.id}: ${e.message}`);
    const released = await step('release').catch(() => 'released');
    return send(claims.reply('release', released), { error: 'PERSIST_FAILED' });
  }
  if (done.outcome !== 'completed') {
    // Rolled back: another request took the claim over (this one outlasted its lease) and
    // persists the event itself; core's answer for a stale completion.
    stats.stale += 1;
    return send(claims.reply('complete', done.outcome), { result: done.outcome });
  }
  // Committed: the row is the record; the line (and the record file) follow it.
  try {
    persist(envelope, token, claimedAt, done.again);
  } catch (e) {
    console.error(`receiver-node: ${envelope.id} committed, its line not written: ${e.message}`);
  }
  stats.processed += 1;
  return send(claims.reply('complete', 'completed'), { result: 'processed' });
}

const server = http.createServer((req, res) => {
  stats.requests += 1;
  if (req.method === 'GET' && req.url === '/healthz') return answer(res, 200, { result: 'ok' });
  if (req.method === 'GET' && req.url === '/stats') return answer(res, 200, stats);
  if (req.method !== 'POST') return answer(res, 405, { error: 'METHOD_NOT_ALLOWED' });
  webhook(req, res).catch((e) => {
    console.error(`receiver-node: ${e.stack ?? e}`);
    if (!res.headersSent) answer(res, 500, { error: 'INTERNAL_ERROR' });
  });
});
const at = opts.listen.lastIndexOf(':');
server.listen(Number(opts.listen.slice(at + 1)), opts.listen.slice(0, at), () => {
  const a = server.address();
  process.stdout.write(`${a.address}:${a.port}\n`);
  const where = opts.redis ? `claims in redis ${opts.redis}` : sql ? `claims in ${sql.name}` : 'claims in memory';
  console.error(`receiver-node ${opts.instance}: ${where}, lease ${opts.leaseMs} ms, records ${opts.records ?? 'none'}` +
    `${sql ? ', events in table xborder_events' : ''}`);
});
