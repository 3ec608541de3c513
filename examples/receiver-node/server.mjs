// A webhook receiver service in Node (node:http) over the xborder npm package, the way a
// consumer runs one: several instances behind a load balancer sharing Redis or PostgreSQL (or one
// instance on SQLite). The same flow and flags as the Rust one (examples/receiver-rust), so the
// fault test can mix them:
//
//   node examples/receiver-node/server.mjs --listen 127.0.0.1:0 --secret KEY
//     [--redis redis://127.0.0.1:6379/ | --postgres postgres://... | --sqlite PATH]
//     [--persist FILE] [--records DIR] [--instance NAME] [--lease-ms 30000] [--window-ms 604800000]
//     [--max-body-bytes 1048576] [--body-timeout-ms 10000] [--header-timeout-ms 10000]
//     [--idle-timeout-ms 75000] [--max-connections 512] [--store-timeout-ms 2000] [--pool 4]
//     [--pool-idle-ms 10000] [--clock-sync-ms 5000] [--clock-skew-ms 0] [--grace-ms 10000]
//     [--drain-ms 1000] [--persist-delay-ms 0 (tests)]
//
// 0. the connection and the body (the endpoint is on the public internet: whoever reaches it
//    can attack it): past --max-connections open ones, a new connection is answered core's reply
//    for TOO_MANY_CONNECTIONS (503, Retry-After: 1, Connection: close) and closed; the head must
//    arrive within --header-timeout-ms (node's headersTimeout); a declared Content-Length over
//    --max-body-bytes is answered 413 (BODY_TOO_LARGE) at once, unread; a body without one is
//    copied into ONE buffer as it arrives (grown by doubling: the memory it holds is at most twice
//    the bytes received) and refused 413 as soon as it passes the limit, the rest unread; a body
//    not arrived in full within --body-timeout-ms of its head is answered 408 (BODY_TIMEOUT).
//    Each refusal closes the connection (the client is given a second to read the answer).
// Steps 1 to 4 are one call, `handleDelivery` (core's handling decides their order and every
// answer; this service gives it the body, the headers, the claims or its Redis store, and its
// persist; with --postgres / --sqlite also its transaction, so that persist and complete commit
// together: no SQL flow of its own):
// 1. the RAW body (never a parsed one) and `X-Webhook-Signature` go to `Receiver.receive`
//    (window 0: the claims dedupe): reject → core's status (`decision.reply`: 400 for the
//    request's signature or envelope, 413 for a body over 1 MiB) with {error, field};
//    ignore → 200;
// 2. a live event (`process`) is claimed with a token of this request, in Redis
//    (`redis-store.mjs`) or in memory: in_progress → 503 with Retry-After; duplicate → 200;
//    the store unreachable, failing or slower than --store-timeout-ms → 503 (STORE_UNAVAILABLE);
// 3. persist: the event's record in DIR, written under a temporary name and linked into place
//    (linkSync fails if it exists: the unique key a
//    consumer's table has; found already → processed again, nothing new kept), then one JSON
//    line in FILE; a failure → release → 500 (the retry processes it);
// 4. complete, then 200 (also when complete answers stale or the store fails: persisted). A
//    complete that failed with a store error (Redis hung or away) is retried in the background
//    with the same token and the store's time, every 250 ms doubling to 1 s, until it answers
//    (completed: one log line, /stats completions_recovered; stale: logged, stopped) or 120 s
//    pass (logged): so that once the store is back the id is recorded done and a redelivery is
//    a duplicate, not processed again (core's contract v3: a complete that finds no entry, or
//    one past its lease, records the id done). At most 10,000 pending, past that logged and
//    dropped; /stats completions_retried counts them.
// With --postgres URL or --sqlite PATH (stores/node/pg-store.mjs, sqlite-store.mjs: claims in
// the table xborder_claims, migrated at start) steps 3 and 4 are one transaction of that database,
// carried by the same call (handleDelivery's `transaction`: pgTransaction(pool) beside
// pgClaimStore(pool); sqliteHandling(db)), in core's order: BEGIN, the event's row into the table
// xborder_events (stores/sql/receiver-events.sql, shared with the Rust and Python receivers), the
// claim's complete on the transaction's connection, COMMIT, then the line in FILE (and the record
// in DIR, if given) and core's answer (200). Core's answers otherwise: a failed insert or commit
// (a timeout included) → ROLLBACK (the PostgreSQL connection discarded), release → 500
// PERSIST_FAILED; the complete stale (another request took the claim over after the lease, and
// persists the event) → ROLLBACK, nothing of this request kept, 503 with the lease as
// Retry-After; the complete failing (the store, or a statement that aborted the transaction) →
// ROLLBACK, the claim left to its lease, its error's answer (503 STORE_UNAVAILABLE).
// Store calls: each one bounded by --store-timeout-ms (ioredis commandTimeout and connectTimeout,
// no offline queue; pg connectionTimeoutMillis for a connection or a pooled one, statement_timeout
// and query_timeout, a connection whose query failed destroyed, not reused; SQLite busy_timeout),
// and each call of the claim store outside a transaction as a whole too (inside one, the
// client's own timeouts bound each statement: a connection taken is always given back). PostgreSQL: --pool connections at most, one idle
// --pool-idle-ms closed (size it so that instances × pool ≤ max_connections −
// superuser_reserved_connections − what operators need).
// Clock: every time given to core (claim, complete, release, purge) and written (claimed_at_ms,
// at_ms) is the store's: this host's clock plus the offset to the store's (Redis TIME,
// PostgreSQL clock_timestamp()), sampled at start and every --clock-sync-ms, so instances cannot
// disagree; an offset over a tenth of the lease is logged (`clock: this host is N ms off the
// store's clock (corrected)`); --clock-skew-ms N (tests) sets this process's clock N ms ahead.
// SQLite and memory: offset 0 (one host). /stats and each persisted line carry clock_offset_ms.
// SIGTERM / SIGINT: stop accepting (the listener closed; node's own server.close() is not used,
// since it destroys every connection it deems idle at once, a request the client has written but
// this process not yet read included: reset, unanswered); then drain for --drain-ms (bounded by
// --grace-ms): the open connections are still served, every answer carries Connection: close, and
// a connection is ended (FIN, never a reset) only once it has no request in progress and has
// received nothing for --drain-ms; then what is in flight is answered and the process exits 0 when
// every connection has closed (past --grace-ms: exit 1, saying how many were cut); one stderr
// line `shutdown: N in flight answered in M ms`.
// Expired claim rows are purged at start and every 10 minutes (the clock less 60 s of skew).
// The first line on stdout is the bound address; GET /healthz, GET /stats.
import http from 'node:http';
import net from 'node:net';
import { appendFileSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Claims, Receiver, catchUp, handleDelivery } from 'xborder-wasm';

const USAGE = 'usage: server.mjs --listen HOST:PORT --secret KEY [--redis URL | --postgres URL | --sqlite PATH] ' +
  '[--persist FILE] [--records DIR] [--instance NAME] [--lease-ms N] [--window-ms N] [--capacity N] [--prefix TEXT] ' +
  '[--max-body-bytes N] [--body-timeout-ms N] [--header-timeout-ms N] [--idle-timeout-ms N] [--max-connections N] ' +
  '[--store-timeout-ms N] [--pool N] [--pool-idle-ms N] [--clock-sync-ms N] [--clock-skew-ms N] [--grace-ms N] ' +
  '[--drain-ms N] [--persist-delay-ms N] [--catch-up http://HOST:PORT [--catch-up-every-ms N] [--checkpoint FILE]]';
const opts = { listen: '127.0.0.1:0', secrets: [], leaseMs: 30000, windowMs: 7 * 86400000,
  instance: `rx-${process.pid}`, capacity: 1000000, prefix: 'xb:claims:',
  maxBodyBytes: 1048576, bodyTimeoutMs: 10000, headerTimeoutMs: 10000, idleTimeoutMs: 75000,
  maxConnections: 512, storeTimeoutMs: 2000, pool: 4, poolIdleMs: 10000, clockSyncMs: 5000,
  clockSkewMs: 0, graceMs: 10000, drainMs: 1000, persistDelayMs: 0 };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 1) {
  const [key, inline] = args[i].startsWith('--') ? args[i].slice(2).split(/=(.*)/s) : [null];
  const value = () => inline ?? args[++i] ?? fail(`--${key} needs a value`);
  const number = (signed = false) => {
    const v = value();
    if (!(signed ? /^-?\d+$/ : /^\d+$/).test(v) || !Number.isSafeInteger(Number(v))) {
      fail(`--${key}: ${v} is not ${signed ? 'a whole number of milliseconds' : 'a count'}`);
    }
    return Number(v);
  };
  const count = () => number();
  const positive = () => {
    const n = count();
    if (n < 1) fail(`--${key} must be at least 1`);
    return n;
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
    case 'capacity': opts.capacity = positive(); break;
    case 'prefix': opts.prefix = value(); break;
    case 'max-body-bytes': opts.maxBodyBytes = positive(); break;
    case 'body-timeout-ms': opts.bodyTimeoutMs = positive(); break;
    case 'header-timeout-ms': opts.headerTimeoutMs = positive(); break;
    case 'idle-timeout-ms': opts.idleTimeoutMs = positive(); break;
    case 'max-connections': opts.maxConnections = positive(); break;
    case 'store-timeout-ms': opts.storeTimeoutMs = positive(); break;
    case 'pool': opts.pool = positive(); break;
    case 'pool-idle-ms': opts.poolIdleMs = positive(); break;
    case 'clock-sync-ms': opts.clockSyncMs = positive(); break;
    case 'clock-skew-ms': opts.clockSkewMs = number(true); break;
    case 'grace-ms': opts.graceMs = count(); break;
    case 'drain-ms': opts.drainMs = count(); break;
    // Tests: wait N ms between the claim and the persist (a store stopped in between).
    case 'persist-delay-ms': opts.persistDelayMs = count(); break;
    // The catch-up of dead-lettered events: the provider's API (GET /v1/external-events).
    case 'catch-up': opts.catchUp = value(); break;
    case 'catch-up-every-ms': opts.catchUpEveryMs = positive(); break;
    case 'checkpoint': opts.checkpoint = value(); break;
    default: fail(`unknown argument ${args[i]}`);
  }
}
function fail(why) { console.error(`receiver-node: ${why}\n${USAGE}`); process.exit(2); }
if (opts.secrets.length === 0) fail('--secret is required');
if (opts.catchUp !== undefined && !/^http:\/\/[^/]+:\d+(\/.*)?$/.test(opts.catchUp)) {
  fail(`--catch-up ${opts.catchUp}: http://HOST:PORT[/prefix] only`);
}
if (opts.catchUp === undefined && (opts.catchUpEveryMs !== undefined || opts.checkpoint !== undefined)) {
  fail('--catch-up-every-ms and --checkpoint go with --catch-up');
}
if ([opts.redis, opts.postgres, opts.sqlite].filter((v) => v !== undefined).length > 1) {
  fail('one claims store: --redis, --postgres or --sqlite');
}

const receiver = new Receiver(opts.secrets.length === 1 ? opts.secrets[0] : opts.secrets, { window: 0 });
// --window-ms 0: remembered until the store forgets it (the API's longest window; the API's own
// default, for null, is 7 days), as the Rust receiver's 0 is.
const rules = { leaseMs: opts.leaseMs, windowMs: opts.windowMs || Number.MAX_SAFE_INTEGER };

// ---- Clock: the store's, so that instances cannot disagree ----
// This process's clock (--clock-skew-ms: N ms ahead of the real one, for tests) and its offset
// to the store's clock; now() is the store's time, given to core for every step.
const localNow = () => Date.now() + opts.clockSkewMs;
const clock = { offsetMs: 0, sample: null, warnedAt: null };
const now = () => localNow() + clock.offsetMs;
/** Samples the store's clock once: offset = store − the midpoint of the local times around it. */
async function syncClock() {
  if (!clock.sample) return;
  const t0 = localNow();
  let storeMs;
  try {
    storeMs = await bounded(clock.sample(), 'the store\'s clock');
  } catch (e) {
    console.error(`receiver-node: clock: the store's clock not read (${e.message}); keeping the offset ${clock.offsetMs} ms`);
    return;
  }
  const t1 = localNow();
  clock.offsetMs = Math.round(storeMs - (t0 + t1) / 2);
  const off = Math.abs(clock.offsetMs) > opts.leaseMs / 10;
  // Said once when it passes a tenth of the lease, and again when it moved by that much more.
  if (off && (clock.warnedAt === null || Math.abs(clock.offsetMs - clock.warnedAt) > opts.leaseMs / 10)) {
    clock.warnedAt = clock.offsetMs;
    console.error(`clock: this host is ${clock.offsetMs} ms off the store's clock (corrected)`);
  } else if (!off) {
    clock.warnedAt = null;
  }
}

// ---- Store calls: each bounded by --store-timeout-ms ----
/** A store call that did not answer in time: core's STORE_UNAVAILABLE (503, Retry-After: 1). */
class StoreTimeout extends Error {
  constructor(what) {
    super(`STORE_UNAVAILABLE: ${what} did not answer within ${opts.storeTimeoutMs} ms (--store-timeout-ms)`);
    this.code = 'STORE_UNAVAILABLE';
  }
}
/** `promise`, or a StoreTimeout after --store-timeout-ms (the call itself is bounded by its client too). */
function bounded(promise, what) {
  let timer;
  const late = new Promise((_, no) => { timer = setTimeout(() => no(new StoreTimeout(what)), opts.storeTimeoutMs); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// The events table the Rust, Node and Python receivers share (stores/sql/receiver-events.sql):
// one row per processing and no unique key on purpose, so the fault test sees a second one.
const EVENTS_TABLE = readFileSync(new URL('../../stores/sql/receiver-events.sql', import.meta.url), 'utf8');
const PURGE_EVERY_MS = 600000;
const PURGE_SKEW_MS = 60000;
/** Purges expired claim rows now and every 10 minutes (a failure is logged, never fatal). */
function purgeNowAndThen(purge) {
  const run = async () => {
    try {
      await purge(Math.max(0, now() - PURGE_SKEW_MS));
    } catch (e) {
      console.error(`receiver-node: purge: ${e.message}`);
    }
  };
  setInterval(run, PURGE_EVERY_MS).unref();
  return run();
}
/** The event's row (a processing of it). */
const eventRow = (envelope, token, claimedAt) => [envelope.id, envelope.event, opts.instance, token,
  claimedAt, opts.leaseMs, now()];
const INSERT_EVENT = (p) => 'INSERT INTO xborder_events (id, event, instance, token, claimed_at_ms, lease_ms, at_ms) ' +
  `VALUES (${p.join(', ')})`;

async function openPostgres(url) {
  const { default: pg } = await import('pg');
  const { PgClaims, pgClaimStore, pgTimeMs, pgTransaction } = await import('../../stores/node/pg-store.mjs');
  // The migrations run once at start, on a connection of their own with a generous timeout (an
  // instance may wait for another's advisory lock); the requests' pool is bounded by
  // --store-timeout-ms everywhere.
  const setup = new pg.Client({ connectionString: url, connectionTimeoutMillis: 30000, statement_timeout: 30000,
    query_timeout: 30000 });
  setup.on('error', () => {});
  await setup.connect();
  try {
    await new PgClaims(setup, rules).migrate();
    // One instance at a time (see PgClaims.migrate).
    await setup.query(`SELECT pg_advisory_xact_lock(hashtext('xborder_events'));\n${EVENTS_TABLE}`);
  } finally {
    await setup.end().catch(() => {});
  }
  const t = opts.storeTimeoutMs;
  const pool = new pg.Pool({ connectionString: url, max: opts.pool, idleTimeoutMillis: opts.poolIdleMs,
    // a new connection, or a pooled one while all are busy: --store-timeout-ms at most
    connectionTimeoutMillis: t,
    // the server cancels a statement past the timeout; the client gives up on one that does not
    // answer (a hung server) and pool.query then destroys that connection
    statement_timeout: t, query_timeout: t, lock_timeout: t,
    // a connection left inside a transaction (this process stalled) is closed by the server
    idle_in_transaction_session_timeout: Math.max(2 * t, 1000),
    keepAlive: true });
  pool.on('error', () => {}); // an idle connection lost: the next query reconnects
  // A connection lost while checked out (the server restarted mid-transaction) emits 'error' on
  // its client: the query in flight fails on its own, and the process must not crash.
  pool.on('connect', (client) => client.on('error', () => {}));
  const pgClaims = new PgClaims(pool, rules);
  clock.sample = () => pgTimeMs(pool);
  await purgeNowAndThen((at) => bounded(pgClaims.purge(at), 'postgres purge'));
  const insert = INSERT_EVENT(['$1', '$2', '$3', '$4', '$5', '$6', '$7']);
  return {
    name: `postgres ${url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')} (pool ${opts.pool}, idle ${opts.poolIdleMs} ms)`,
    store: pgClaimStore(pool),
    transaction: pgTransaction(pool),
    // The event's row, on the transaction's connection (committed with the claim's completion).
    insert: (client, row) => client.query(insert, row),
  };
}

async function openSqlite(path) {
  const { SqliteClaims, sqliteHandling } = await import('../../stores/node/sqlite-store.mjs');
  const sqClaims = SqliteClaims.open(path, rules);
  const { db } = sqClaims;
  // A statement waits --store-timeout-ms at most for another connection's write.
  db.pragma(`busy_timeout = ${opts.storeTimeoutMs}`);
  db.exec(EVENTS_TABLE);
  await purgeNowAndThen((at) => sqClaims.purge(at));
  const insert = db.prepare(INSERT_EVENT(['?', '?', '?', '?', '?', '?', '?']));
  const { store, transaction } = sqliteHandling(db);
  return {
    name: `sqlite ${path}`,
    store,
    transaction,
    insert: (_db, row) => insert.run(row),
  };
}

let claims;
let hostStore = null; // --redis, --postgres, --sqlite: the store handleDelivery is given (each call bounded)
// With --postgres or --sqlite: { name, store, transaction, insert(tx, row) }: the claim store, the
// transaction (handleDelivery's option) that writes the event's row and completes its claim.
let sql = null;
if (opts.postgres || opts.sqlite) {
  try {
    sql = await (opts.postgres ? openPostgres(opts.postgres) : openSqlite(opts.sqlite));
  } catch (e) {
    console.error(`receiver-node: ${opts.postgres ? 'postgres' : 'sqlite'}: ${e.message}`);
    process.exit(2);
  }
  hostStore = sql.store;
  claims = Claims.withStore(hostStore, rules);
} else if (opts.redis) {
  const { default: Redis } = await import('ioredis');
  const { redisClaimStore, redisTimeMs } = await import('../../stores/node/redis-store.mjs');
  // Fail fast while Redis is away (answer 503, the provider retries) rather than queueing, and
  // give up on a command Redis does not answer (a hung server) after --store-timeout-ms.
  const redis = new Redis(opts.redis, { maxRetriesPerRequest: 0, enableOfflineQueue: false,
    commandTimeout: opts.storeTimeoutMs, connectTimeout: opts.storeTimeoutMs, retryStrategy: () => 200 });
  redis.on('error', () => {}); // each step reports its own failure
  hostStore = redisClaimStore(redis, { prefix: opts.prefix });
  claims = Claims.withStore(hostStore, rules);
  clock.sample = () => redisTimeMs(redis);
  // Wait (the store timeout at most) for the first connection, so the first sample can read it.
  await bounded(new Promise((ok) => redis.once('ready', ok)), 'redis').catch(() => {});
} else {
  claims = new Claims({ ...rules, capacity: opts.capacity });
}
await syncClock();
if (clock.sample) setInterval(syncClock, opts.clockSyncMs).unref();
if (opts.records) mkdirSync(opts.records, { recursive: true });

const stats = { instance: opts.instance, requests: 0, processed: 0, duplicate: 0, in_progress: 0,
  ignored: 0, rejected: 0, persist_failed: 0, store_errors: 0, stale: 0, again: 0,
  body_too_large: 0, body_timeouts: 0, connections_refused: 0, connections: 0, clock_offset_ms: 0,
  completions_retried: 0, completions_recovered: 0, recovered: 0, catch_ups: 0, catch_ups_failed: 0,
  catch_up_unhandled: 0 };
const boot = Date.now();
let counter = 0;
let shutdown = null; // { at, answered } once SIGTERM or SIGINT came

function answer(res, status, body, headers = {}) {
  const data = Buffer.from(JSON.stringify(body));
  const close = shutdown ? { connection: 'close' } : {};
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': data.length, ...headers, ...close });
  res.end(data);
}
/** Core's reply for `code` ({ status, retryAfter }): the transport codes included. */
const replyTo = (code) => Claims.errorReply({ code });
const retryHeader = (how) => (how.retryAfter === null ? {} : { 'retry-after': String(how.retryAfter) });

// ---- The connection closed after a refusal ----
const LINGER_MS = 1000;
const LINGER_BYTES = 1 << 20;
/**
 * Closes `req`'s connection once the answer is written: half-closed at once (the client reads the
 * answer and an end), then whatever the client still sends is discarded (never kept), and the
 * connection destroyed when the client closes, after LINGER_MS or past LINGER_BYTES, whichever is
 * first. (Closing with unread bytes would send a reset, which can destroy the answer in flight.)
 */
function closeAfterAnswer(req) {
  const socket = req.socket;
  let discarded = 0;
  const cut = () => socket.destroy();
  req.removeAllListeners('data');
  req.on('data', (c) => { discarded += c.length; if (discarded > LINGER_BYTES) cut(); });
  req.on('error', () => {});
  req.resume();
  // node:http closes a Connection: close response's socket with destroySoon (end, then destroy at
  // once): end it, then give the client LINGER_MS.
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const timer = setTimeout(cut, LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
/** Answers core's reply for `code` and closes the connection. */
function refuse(req, res, code, counter) {
  stats[counter] += 1;
  const how = replyTo(code);
  closeAfterAnswer(req);
  answer(res, how.status, { error: code }, { ...retryHeader(how), connection: 'close' });
}

/**
 * The request's body in one buffer, or null when it was refused (answered, the connection
 * closing) or the client went away. Grown by doubling up to the declared length or the limit.
 */
function readBody(req, res) {
  const limit = opts.maxBodyBytes;
  const declared = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
  if (declared !== null && declared > limit) {
    refuse(req, res, 'BODY_TOO_LARGE', 'body_too_large');
    return Promise.resolve(null);
  }
  const most = declared ?? limit;
  return new Promise((resolve) => {
    let buf = Buffer.allocUnsafeSlow(Math.min(most, 16384) || 1);
    let length = 0;
    const done = (v) => {
      clearTimeout(timer);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('close', onClose);
      resolve(v);
    };
    const timer = setTimeout(() => {
      buf = null;
      refuse(req, res, 'BODY_TIMEOUT', 'body_timeouts');
      done(null);
    }, opts.bodyTimeoutMs);
    const onData = (chunk) => {
      if (length + chunk.length > limit) {
        buf = null;
        refuse(req, res, 'BODY_TOO_LARGE', 'body_too_large');
        done(null);
        return;
      }
      if (length + chunk.length > buf.length) {
        const grown = Buffer.allocUnsafeSlow(Math.min(Math.max(buf.length * 2, length + chunk.length), Math.max(most, length + chunk.length)));
        buf.copy(grown, 0, 0, length);
        buf = grown;
      }
      chunk.copy(buf, length);
      length += chunk.length;
    };
    const onEnd = () => done(buf.subarray(0, length));
    const onClose = () => done(null); // the client went away before the end: nothing to answer
    req.on('error', () => {}); // then 'close' follows
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
  });
}

// The event's record (the unique key), then its log line. Returns whether it existed already.
let written = 0;
// The line says when this request claimed the id and its lease, so that `xborder-simulator
// check` tells a takeover after a lease expiry from a completion that did not stick.
// `rowAgain`: the event's row was in the SQL table already (then the record is a mirror of it).
function persist(envelope, token, claimedAt, rowAgain = false) {
  const line = (again) => `${JSON.stringify({ id: envelope.id, event: envelope.event,
    instance: opts.instance, token, claimed_at_ms: claimedAt, lease_ms: opts.leaseMs,
    at_ms: now(), clock_offset_ms: clock.offsetMs, ...(again ? { again: true } : {}) })}\n`;
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

// --postgres, --sqlite: the store's transaction, begun after --persist-delay-ms (tests: a store
// stopped between the claim and the persist).
const sqlTransaction = sql && {
  ...sql.transaction,
  async begin() {
    if (opts.persistDelayMs) await new Promise((ok) => { setTimeout(ok, opts.persistDelayMs); });
    return sql.transaction.begin();
  },
};

async function webhook(req, res) {
  const body = await readBody(req, res);
  if (body === null) return;
  const token = `${opts.instance}-${boot}-${(counter += 1)}`;
  // One call from the delivery to the answer (handleDelivery, core's handling): the receiver's
  // decision on the RAW body and the request's headers (xborder finds the signature, any case,
  // and decides what a repeated one means), the claim, this service's persist, the complete or
  // release. Every status and Retry-After is core's: the Rust, Node and Python receivers answer
  // alike. The clock is the store's; the claim is the first step timed.
  let claimedAt = null;
  const late = {}; // a compare-and-set that outlasted --store-timeout-ms (it may still land)
  const result = await handleDelivery({
    receiver, body, signature: req.headers, token,
    ...(hostStore ? { store: boundedStore(hostStore, late), ...rules } : { claims }),
    now: () => {
      const t = now();
      claimedAt ??= t;
      return t;
    },
    // --postgres, --sqlite: the event's row on the transaction (BEGIN first), committed with
    // the claim's completion (core's order: claim, persist, complete on the transaction, commit);
    // the line (and the record) follow the commit.
    persist: async (envelope, tx) => {
      if (sql) return sql.insert(tx, eventRow(envelope, token, claimedAt));
      if (opts.persistDelayMs) await new Promise((ok) => { setTimeout(ok, opts.persistDelayMs); });
      return persist(envelope, token, claimedAt);
    },
    ...(sql ? { transaction: sqlTransaction } : {}),
  });
  const { action, outcome, code, error, envelope } = result;
  const send = (said) => answer(res, result.status, said, result.headers);
  if (action === 'reject') {
    stats.rejected += 1;
    return send({ error: code, field: error?.field });
  }
  if (action !== 'process') {
    stats.ignored += 1;
    return send({ result: action });
  }
  const { id } = envelope;
  if (code === 'PERSIST_FAILED') {
    // Released (core's answer, 500): the provider's retry processes it.
    stats.persist_failed += 1;
    console.error(`receiver-node: persist ${id}: ${error?.message ?? error}`);
    return send({ error: code });
  }
  if (!result.persisted) {
    if (code !== null) {
      // The claim failed (the store unreachable, failing or slower than --store-timeout-ms):
      // answered 503 now; should the store claim it after all, the claim is given back, so the
      // provider's retry need not wait for the lease to end. (SQL: also the complete inside the
      // transaction, rolled back, the claim left to its lease.)
      stats.store_errors += 1;
      if (outcome === null && late.cas) {
        late.cas.then((applied) => (applied ? bounded(claims.stepAsync('release', id, token, now()), "the claim's release") : null))
          .catch(() => {});
      }
      return send({ error: code });
    }
    // (SQL) stale: another request took the id over inside this one's transaction (rolled
    // back; core's answer: 503, the lease as Retry-After).
    if (outcome === 'stale') stats.stale += 1;
    else if (outcome === 'in_progress') stats.in_progress += 1;
    else stats.duplicate += 1;
    return send({ result: outcome });
  }
  // Persisted, so answered 200 whatever complete gave: the record makes a retry harmless.
  if (outcome === 'stale') stats.stale += 1;
  if (sql) {
    // Committed: the row is the record; the line (and the record file) follow it.
    try {
      persist(envelope, token, claimedAt, false);
    } catch (e) {
      console.error(`receiver-node: ${id} committed, its line not written: ${e.message}`);
    }
  }
  if (code !== null) {
    // The complete failed (a store error): completed in the background once the store answers.
    stats.store_errors += 1;
    retryCompletion(id, token, error);
  }
  stats.processed += 1;
  return send({ result: 'processed' });
}

/**
 * `store` with each call bounded by --store-timeout-ms (a StoreTimeout: core answers 503
 * STORE_UNAVAILABLE); a compare-and-set that timed out is kept in `late.cas`.
 */
const boundedStore = (store, late) => ({
  load: (id, time) => bounded(store.load(id, time), "the claim store's load"),
  compareAndSet(id, expected, next, ttlMs, time) {
    const call = store.compareAndSet(id, expected, next, ttlMs, time);
    return bounded(call, "the claim store's compare-and-set").catch((e) => {
      if (e instanceof StoreTimeout) late.cas = call;
      throw e;
    });
  },
});

// ---- Completions cut by a store error, retried in the background (Redis, memory) ----
const RETRY_FIRST_MS = 250;
const RETRY_MOST_MS = 1000;
const RETRY_FOR_MS = 120000;
const RETRY_PENDING_MAX = 10000;
const retrying = new Set(); // tokens whose completion is being retried
/** Retries `id`'s complete with `token` (same token, the store's time) until it answers or 120 s pass. */
function retryCompletion(id, token, why) {
  if (retrying.size >= RETRY_PENDING_MAX) {
    console.error(`receiver-node: completion of ${id} not retried: ${RETRY_PENDING_MAX} already pending (${why?.message ?? why})`);
    return;
  }
  retrying.add(token);
  stats.completions_retried += 1;
  const started = Date.now();
  let wait = RETRY_FIRST_MS;
  let tries = 0;
  const attempt = async () => {
    tries += 1;
    let outcome;
    try {
      outcome = await bounded(claims.stepAsync('complete', id, token, now()), "the claim's complete (retried)");
    } catch (e) {
      if (Date.now() - started + wait > RETRY_FOR_MS) {
        retrying.delete(token);
        console.error(`receiver-node: completion of ${id} given up after ${tries} tries in ${Date.now() - started} ms: ${e.message}`);
        return;
      }
      const timer = setTimeout(attempt, wait);
      timer.unref();
      wait = Math.min(wait * 2, RETRY_MOST_MS);
      return;
    }
    retrying.delete(token);
    if (outcome === 'completed') {
      stats.completions_recovered += 1;
      console.error(`receiver-node: completion of ${id} recovered after ${tries} tries in ${Date.now() - started} ms`);
    } else {
      if (outcome === 'stale') stats.stale += 1;
      console.error(`receiver-node: completion of ${id} retried: ${outcome} (another request took the claim over); stopped`);
    }
  };
  const timer = setTimeout(attempt, wait);
  timer.unref();
  wait = Math.min(wait * 2, RETRY_MOST_MS);
}


// ---- The server ----
let inFlight = 0;
const REFUSED = Symbol('refused');
const BUSY = Symbol('requests in progress'); // on a connection
const QUIET = Symbol('quiet since'); // during the drain: { at, bytes, ticks } since nothing arrived
const conns = new Set(); // the connections served (not the refused ones)
const server = http.createServer({
  // node checks the head and request deadlines this often (its default: 30 s).
  connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(opts.headerTimeoutMs / 4))),
}, (req, res) => {
  if (req.socket[REFUSED]) {
    req.on('error', () => {});
    req.resume();
    return; // the connection was answered 503 TOO_MANY_CONNECTIONS and is closing
  }
  stats.requests += 1;
  inFlight += 1;
  const socket = req.socket;
  socket[BUSY] = (socket[BUSY] ?? 0) + 1;
  res.once('close', () => {
    inFlight -= 1;
    socket[BUSY] -= 1;
    socket[QUIET] = null; // its quiet time starts again with the next drain tick
    if (shutdown) {
      shutdown.answered += 1;
      maybeFinishShutdown();
    }
  });
  if (req.method === 'GET' && req.url === '/healthz') return answer(res, 200, { result: 'ok' });
  if (req.method === 'GET' && req.url === '/stats') {
    return answer(res, 200, { ...stats, clock_offset_ms: clock.offsetMs });
  }
  if (req.method !== 'POST') return answer(res, 405, { error: 'METHOD_NOT_ALLOWED' });
  webhook(req, res).catch((e) => {
    console.error(`receiver-node: ${e.stack ?? e}`);
    if (!res.headersSent) answer(res, 500, { error: 'INTERNAL_ERROR' });
  });
});
// `Expect: 100-continue` (curl sends it for large bodies): a body declared too large is refused
// before the client sends it; any other is asked for, then read as usual.
server.on('checkContinue', (req, res) => {
  if (Number(req.headers['content-length'] ?? 0) <= opts.maxBodyBytes) res.writeContinue();
  server.emit('request', req, res);
});
// The head within --header-timeout-ms (node answers 408 and closes); the body has its own deadline
// (readBody): node's request timeout is only a backstop past both.
server.headersTimeout = opts.headerTimeoutMs;
server.requestTimeout = opts.headerTimeoutMs + opts.bodyTimeoutMs + 5000;
server.keepAliveTimeout = opts.idleTimeoutMs;
// Connections past --max-connections: answered core's reply for TOO_MANY_CONNECTIONS and closed
// (never left waiting in the backlog). node:http has set the connection up already: the answer
// is written to the socket directly, and whatever the client sends is discarded.
const TOO_MANY = (() => {
  const how = replyTo('TOO_MANY_CONNECTIONS');
  const body = JSON.stringify({ error: 'TOO_MANY_CONNECTIONS' });
  return `HTTP/1.1 ${how.status} ${http.STATUS_CODES[how.status] ?? 'Refused'}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n${how.retryAfter === null ? '' : `retry-after: ${how.retryAfter}\r\n`}` +
    `connection: close\r\n\r\n${body}`;
})();
let open = 0;
server.on('connection', (socket) => {
  if (open >= opts.maxConnections) {
    stats.connections_refused += 1;
    socket[REFUSED] = true;
    socket.on('error', () => {});
    socket.end(TOO_MANY);
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    return;
  }
  open += 1;
  stats.connections = open;
  conns.add(socket);
  socket.once('close', () => {
    open -= 1;
    stats.connections = open;
    conns.delete(socket);
    if (shutdown) maybeFinishShutdown();
  });
});

// ---- Graceful shutdown ----
// The bug this replaces (25 requests unanswered in the fault test's rolling restart): node's
// server.close() and closeIdleConnections() destroy, at once and every 100 ms after, each
// kept-alive connection node deems idle: one whose next request the client has already written
// but this process has not yet read (it sits in the socket's buffer while the SIGTERM handler
// runs) included. Destroyed with unread bytes, the connection is reset: the request was written
// and never answered. And once nothing was in flight the process exited within 500 ms, cutting
// requests written meanwhile on connections still open. Now: the listener is closed (net's
// close, not http's), connections are ended only once quiet for --drain-ms (nothing received,
// seen over several ticks of the event loop, so bytes waiting to be read are read first), with
// end() (FIN) not destroy(), and the process exits once every connection has closed.
const DRAIN_TICK_MS = 50;
const drainMs = () => Math.min(opts.drainMs, opts.graceMs);
function drainTick() {
  const t = Date.now();
  for (const socket of conns) {
    if (socket[BUSY] > 0 || socket.destroyed || socket.writableEnded) {
      socket[QUIET] = null;
      continue;
    }
    const bytes = socket.bytesRead;
    const q = socket[QUIET];
    if (!q || q.bytes !== bytes) {
      socket[QUIET] = { at: t, bytes, ticks: 0 };
      continue;
    }
    q.ticks += 1;
    // Quiet for --drain-ms since the drain began, over 3 ticks at least (the loop read the socket
    // in between): the client sent nothing; end it (FIN), destroyed a second later if it lingers.
    if (t - Math.max(q.at, shutdown.at) >= drainMs() && q.ticks >= 3) {
      socket.end();
      const timer = setTimeout(() => socket.destroy(), LINGER_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    }
  }
}
function maybeFinishShutdown() {
  if (shutdown.finished || inFlight > 0 || conns.size > 0) return;
  shutdown.finished = true;
  console.error(`shutdown: ${shutdown.answered} in flight answered in ${Date.now() - shutdown.at} ms`);
  process.exit(0);
}
function beginShutdown(signal) {
  if (shutdown) return;
  shutdown = { at: Date.now(), answered: 0 };
  console.error(`receiver-node: ${signal}: ${inFlight} in flight, ${conns.size} connections; no new connections, ` +
    `draining ${drainMs()} ms (grace ${opts.graceMs} ms)`);
  // Stops accepting. net.Server's close: http.Server's would also destroy the idle connections.
  net.Server.prototype.close.call(server);
  const drain = setInterval(drainTick, DRAIN_TICK_MS);
  drain.unref();
  setTimeout(() => {
    if (shutdown.finished) return;
    shutdown.finished = true;
    if (inFlight === 0) {
      console.error(`shutdown: ${shutdown.answered} in flight answered in ${Date.now() - shutdown.at} ms ` +
        `(${conns.size} idle connections closed at the grace of ${opts.graceMs} ms)`);
      process.exit(0);
    }
    console.error(`shutdown: ${shutdown.answered} in flight answered in ${Date.now() - shutdown.at} ms; ` +
      `${inFlight} cut after the grace of ${opts.graceMs} ms`);
    process.exit(1);
  }, opts.graceMs).unref();
  maybeFinishShutdown();
}
process.on('SIGTERM', () => beginShutdown('SIGTERM'));
process.on('SIGINT', () => beginShutdown('SIGINT'));

// The catch-up (--catch-up): at start and every --catch-up-every-ms (60 s unless given), the
// events the provider dead-lettered (an outage longer than its five attempts) are recovered from
// its GET /v1/external-events by catchUp (xborder-wasm): core walks the list down to the
// checkpoint (kept in --checkpoint, written whole), decides each event as its delivery and
// drives the same handling as the webhook route (these claims, this persist and transaction),
// and says where the checkpoint may move. One at a time; /stats counts them.
const catchUpBase = opts.catchUp?.replace(/\/+$/, '');
function readCheckpoint() {
  if (!opts.checkpoint) return null;
  try {
    return readFileSync(opts.checkpoint, 'utf8').trim() || null;
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  }
}
function writeCheckpoint(checkpoint) {
  if (!opts.checkpoint || checkpoint === null) return;
  const tmp = `${opts.checkpoint}.tmp`;
  writeFileSync(tmp, checkpoint);
  renameSync(tmp, opts.checkpoint);
}
// One page of the catch-up: the whole GET (answer and body) within 10 s, the body read up to
// 16 MiB (a page of 100 records is far below it; a peer that sends more is refused, not
// buffered; one that hangs is cut by the timeout).
const MAX_PAGE_BYTES = 16 << 20;
async function getPage(path) {
  const res = await fetch(`${catchUpBase}${path}`, { signal: AbortSignal.timeout(10000) });
  const chunks = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > MAX_PAGE_BYTES) throw new Error(`GET ${path}: a page is read up to ${MAX_PAGE_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: res.status, headers: res.headers, text: () => text };
}
async function catchUpOnce() {
  const since = readCheckpoint();
  let n = 0; // the events persisted by this catch-up, for their records' token
  const result = await catchUp({
    since,
    get: getPage,
    receiver,
    token: `${opts.instance}-${boot}-catch-up-${(counter += 1)}`,
    ...(hostStore ? { store: boundedStore(hostStore, {}), ...rules } : { claims }),
    now,
    onDrift: (d) => console.error(`receiver-node ${opts.instance}: catch-up: ${d.code}`),
    persist: async (envelope, tx) => {
      n += 1;
      if (sql) return sql.insert(tx, eventRow(envelope, `catch-up-${n}`, now()));
      return persist(envelope, `catch-up-${n}`, now());
    },
    ...(sql ? { transaction: sqlTransaction } : {}),
  });
  writeCheckpoint(result.checkpoint);
  stats.recovered += result.processed;
  stats.catch_up_unhandled += result.failed;
  console.error(`receiver-node ${opts.instance}: catch-up: ${result.found} events found since ${since ?? 'the start'} ` +
    `(${result.processed} processed, ${result.skipped} already handled or ignored, ${result.rejected} rejected, ` +
    `${result.failed} not handled); checkpoint ${result.checkpoint ?? 'none'}`);
}
function catchUpNowAndThen() {
  const run = async () => {
    if (shutdown) return;
    try {
      await catchUpOnce();
      stats.catch_ups += 1;
    } catch (e) {
      stats.catch_ups_failed += 1;
      console.error(`receiver-node ${opts.instance}: catch-up failed: ${e.code ?? ''} ${e.message}`);
    }
    if (!shutdown) setTimeout(run, opts.catchUpEveryMs ?? 60000).unref();
  };
  run();
}

const at = opts.listen.lastIndexOf(':');
server.listen(Number(opts.listen.slice(at + 1)), opts.listen.slice(0, at), () => {
  const a = server.address();
  process.stdout.write(`${a.address}:${a.port}\n`);
  const where = opts.redis ? `claims in redis ${opts.redis}` : sql ? `claims in ${sql.name}` : 'claims in memory';
  console.error(`receiver-node ${opts.instance}: ${where}, lease ${opts.leaseMs} ms, records ${opts.records ?? 'none'}` +
    `${sql ? ', events in table xborder_events' : ''}; body ${opts.maxBodyBytes} B in ${opts.bodyTimeoutMs} ms, ` +
    `${opts.maxConnections} connections, store timeout ${opts.storeTimeoutMs} ms, clock offset ${clock.offsetMs} ms`);
  if (catchUpBase) catchUpNowAndThen();
});
