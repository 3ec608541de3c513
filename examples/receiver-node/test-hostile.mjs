// The Node receiver (server.mjs) against hostile clients and degraded stores (issue 30), each
// against a real server started here and stopped at the end: a body declared too large → 413
// without reading it; a chunked body trickled past the limit → 413 before it ends; a body that
// stalls → 408 after --body-timeout-ms; connections over --max-connections → 503, Retry-After 1,
// closed, while the first ones are held; a head that never ends → closed; SIGTERM with requests
// in flight → all answered (Connection: close), exit 0, the shutdown line (one that outlasts
// --grace-ms: exit 1, counted as cut); a hung Redis and a
// hung PostgreSQL (SIGSTOP, then SIGCONT) → 503 STORE_UNAVAILABLE within 3 × --store-timeout-ms,
// then deliveries processed again; the store's clock (--clock-skew-ms 300000): the warning, the
// offset in /stats and in the persisted line, claimed_at_ms within a second of the store's clock;
// the PostgreSQL pool bounded by --pool and closed when idle (--pool-idle-ms). Every status is
// core's (Claims.errorReply for the code). Bounds are generous: a loaded 2-core machine.
// Run by test.sh.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import pg from 'pg';
import { Claims, sign } from 'xborder-wasm';

const here = new URL('.', import.meta.url).pathname;
const root = new URL('../../', import.meta.url).pathname;
const SECRET = 'whsec_hostile_test';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const core = (code) => Claims.errorReply({ code });

let passed = 0;
let failed = 0;
async function test(name, fn) {
  const t = Date.now();
  try {
    await fn();
    passed += 1;
    console.log(`ok ${name} (${Date.now() - t} ms)`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e.stack ?? e}`);
  }
}

// ---- The receiver as a process ----
const children = new Set();
/** Starts server.mjs with `args`: { addr, child, stderr(), exited }. */
async function startReceiver(args) {
  const child = spawn(process.execPath, [join(here, 'server.mjs'), '--listen', '127.0.0.1:0', '--secret', SECRET, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((ok) => child.once('exit', (code, signal) => { children.delete(child); ok({ code, signal }); }));
  const addr = await Promise.race([
    new Promise((ok) => createInterface({ input: child.stdout }).once('line', ok)),
    exited.then(({ code }) => { throw new Error(`server.mjs exited (${code}) before its address: ${stderr}`); }),
    sleep(30000).then(() => { throw new Error(`server.mjs printed no address in 30 s: ${stderr}`); }),
  ]);
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
  return { addr, host, port, child, exited, stderr: () => stderr };
}

const envelope = (id) => JSON.stringify({ id, event: 'order:created',
  entity: { id: 'ord_000001', type: 'order', data: { id: 'ord_000001', status: 'created' } } });
/** A signed delivery of event `id` with fetch: { status, retryAfter, connection, body, ms }. */
async function deliver(rx, id) {
  const body = envelope(id);
  const t = Date.now();
  const r = await fetch(`http://${rx.addr}/webhooks`, { method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': sign(SECRET, body) },
    signal: AbortSignal.timeout(60000) });
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json(), ms: Date.now() - t };
}
const stats = async (rx) => (await fetch(`http://${rx.addr}/stats`, { signal: AbortSignal.timeout(30000) })).json();

// ---- Raw connections: what a hostile client sends, byte by byte ----
/** A raw TCP connection: write(), the bytes received, whether it ended, waits with deadlines. */
function raw(rx) {
  return new Promise((ok, no) => {
    const s = connect(rx.port, rx.host);
    const c = { socket: s, received: Buffer.alloc(0), ended: false, error: null, sent: 0 };
    s.on('data', (d) => { c.received = Buffer.concat([c.received, d]); });
    s.on('end', () => { c.ended = true; });
    s.on('close', () => { c.ended = true; });
    s.on('error', (e) => { c.error = e; c.ended = true; });
    c.write = (data) => { if (!s.destroyed) { c.sent += Buffer.byteLength(data); s.write(data); } };
    c.response = () => parseResponse(c.received);
    /** Waits until `pred(c)` holds (polled every 10 ms) or `ms` pass: whether it held. */
    c.until = async (pred, ms) => {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        if (pred(c)) return true;
        await sleep(10);
      }
      return pred(c);
    };
    c.close = () => s.destroy();
    s.once('connect', () => ok(c));
    s.once('error', no);
  });
}
/** The first HTTP response in `buf`: { status, headers, body } once complete, else null. */
function parseResponse(buf) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length'] ?? 0);
  if (buf.length < end + 4 + length) return null;
  return { status: Number(statusLine.split(' ')[1]), headers, body: buf.subarray(end + 4, end + 4 + length).toString() };
}
const head = (extra) => `POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}\r\n`;
/** Asserts that `c` got core's answer for `code` (`{"error":code}`), with Connection: close, then an end. */
async function refusedWith(c, code, what) {
  assert.ok(await c.until((x) => x.response() !== null, 30000), `${what}: no answer in 30 s (${c.received.length} bytes)`);
  const r = c.response();
  const want = core(code);
  assert.equal(r.status, want.status, `${what}: status (core's for ${code})`);
  assert.equal(r.headers['retry-after'] ?? null, want.retryAfter === null ? null : String(want.retryAfter), `${what}: Retry-After`);
  assert.equal(r.headers.connection, 'close', `${what}: Connection: close`);
  assert.deepEqual(JSON.parse(r.body), { error: code }, `${what}: body`);
  assert.ok(await c.until((x) => x.ended, 10000), `${what}: the connection was not closed within 10 s of the answer`);
  return r;
}

/** Asserts the receiver logged the clock warning with an offset within 2 s of `offset`. */
function warnedAbout(stderr, offset) {
  const m = /clock: this host is (-?\d+) ms off the store's clock \(corrected\)/.exec(stderr);
  assert.ok(m, `no clock warning in stderr: ${stderr}`);
  assert.ok(Math.abs(Number(m[1]) - offset) < 2000, `the warning says ${m[1]} ms, want about ${offset}`);
}

// ---- Servers the tests need: redis-server and PostgreSQL ----
const freePort = () => new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
});
const listening = (port) => new Promise((ok) => {
  const c = connect(port, '127.0.0.1', () => { c.destroy(); ok(true); });
  c.on('error', () => ok(false));
});
async function startRedis() {
  const bin = process.env.XBORDER_REDIS_SERVER || 'redis-server';
  let why = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    let exited = null;
    child.on('exit', (code) => { exited = code; });
    why = `redis-server did not listen on ${port} within 5 s`;
    for (let i = 0; i < 100; i += 1) {
      if (await listening(port)) return { child, port };
      if (exited !== null) { why = `redis-server exited (${exited}) before it listened on ${port}`; break; }
      await sleep(50);
    }
    child.kill('SIGKILL');
  }
  throw new Error(why);
}
const stopped = new Set(); // pids SIGSTOPped: SIGCONTed on the way out whatever happens
function hang(pids) {
  for (const p of pids) { process.kill(p, 'SIGSTOP'); stopped.add(p); }
}
function resume(pids) {
  for (const p of pids) { try { process.kill(p, 'SIGCONT'); } catch { /* gone */ } stopped.delete(p); }
}
/** The postmaster of the cluster in `dir` and its children (every backend): the pids to hang. */
function postgresPids(dir) {
  const master = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const kids = spawnSync('ps', ['-o', 'pid=', '--ppid', String(master)], { encoding: 'utf8' }).stdout
    .split('\n').map((l) => Number(l.trim())).filter((p) => p > 0);
  assert.ok(master > 0 && kids.length > 0, `postgres pids: ${master} ${kids}`);
  return [master, ...kids];
}

const work = mkdtempSync(join(tmpdir(), 'xb-node-hostile-'));
const pgDir = mkdtempSync('/tmp/xb-node-hostile-pg-');
const serverSh = join(root, 'tests/servers/postgres.sh');
let pgStarted = false;
let redisServer = null;
function cleanup() {
  resume([...stopped]);
  for (const c of children) c.kill('SIGKILL');
  redisServer?.child.kill('SIGKILL');
  if (pgStarted) spawnSync('bash', [serverSh, 'stop', pgDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  pgStarted = false;
  rmSync(pgDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { cleanup(); process.exit(1); });

try {
  // ---- Bodies and connections (claims in memory) ----
  const LIMIT = 1000;
  const BODY_TIMEOUT = 1500;
  const rx = await startReceiver(['--max-body-bytes', String(LIMIT), '--body-timeout-ms', String(BODY_TIMEOUT),
    '--header-timeout-ms', '1500', '--max-connections', '3', '--instance', 'rx-hostile']);

  await test('a declared Content-Length over --max-body-bytes: 413 BODY_TOO_LARGE at once, unread, the connection closed', async () => {
    const c = await raw(rx);
    c.write(head('Content-Length: 1000000000\r\n'));
    await refusedWith(c, 'BODY_TOO_LARGE', 'declared 1 GB');
    assert.equal(core('BODY_TOO_LARGE').status, 413);
    // The answer came with none of the body sent: it was not waited for.
    assert.equal(c.sent, Buffer.byteLength(head('Content-Length: 1000000000\r\n')));
  });

  await test('a chunked body trickled past the limit: 413 as soon as it passes, the rest unread', async () => {
    const c = await raw(rx);
    c.write(head('Transfer-Encoding: chunked\r\n'));
    const chunk = `64\r\n${'x'.repeat(100)}\r\n`; // 100 bytes a chunk
    let bodyBytes = 0;
    // Up to 60 chunks (6,000 bytes, 6 × the limit), one every 20 ms, until the answer comes.
    for (let i = 0; i < 60 && c.response() === null && !c.ended; i += 1) {
      c.write(chunk);
      bodyBytes += 100;
      await sleep(20);
    }
    await refusedWith(c, 'BODY_TOO_LARGE', 'trickled');
    assert.ok(bodyBytes > LIMIT, `${bodyBytes} bytes sent: the answer came before the limit was passed`);
    // Answered while the client was still sending: well before the 6,000 bytes it would send.
    assert.ok(bodyBytes < 6 * LIMIT, `answered only after ${bodyBytes} body bytes (limit ${LIMIT})`);
  });

  await test('a chunked body within the limit is processed (one buffer, grown as it arrives)', async () => {
    const body = envelope('evt_hostile_chunked');
    const c = await raw(rx);
    c.write(head(`Transfer-Encoding: chunked\r\nX-Webhook-Signature: ${sign(SECRET, body)}\r\n`));
    for (let i = 0; i < body.length; i += 7) {
      const part = body.slice(i, i + 7);
      c.write(`${part.length.toString(16)}\r\n${part}\r\n`);
    }
    c.write('0\r\n\r\n');
    assert.ok(await c.until((x) => x.response() !== null, 30000), 'no answer');
    assert.deepEqual([c.response().status, JSON.parse(c.response().body)], [200, { result: 'processed' }]);
    c.close();
  });

  await test('a body that stalls: 408 BODY_TIMEOUT after --body-timeout-ms, the connection closed', async () => {
    const c = await raw(rx);
    const t = Date.now();
    c.write(head('Content-Length: 500\r\n'));
    c.write('{"id":"evt_stall"'); // then nothing
    await refusedWith(c, 'BODY_TIMEOUT', 'stalled');
    const ms = Date.now() - t;
    assert.equal(core('BODY_TIMEOUT').status, 408);
    // Not before the deadline (the server's timer starts after our head arrived), and not long after.
    assert.ok(ms >= BODY_TIMEOUT - 50, `answered after ${ms} ms, before --body-timeout-ms ${BODY_TIMEOUT}`);
    assert.ok(ms < BODY_TIMEOUT + 15000, `answered after ${ms} ms`);
  });

  await test('a head that never ends: the connection closed after --header-timeout-ms', async () => {
    const c = await raw(rx);
    const t = Date.now();
    c.write('POST /webhooks HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    assert.ok(await c.until((x) => x.ended, 20000), 'still open after 20 s');
    const ms = Date.now() - t;
    assert.ok(ms >= 1400, `closed after ${ms} ms, before --header-timeout-ms 1500`);
  });

  await test('connections over --max-connections: 503 TOO_MANY_CONNECTIONS, Retry-After 1, closed; served again once one closes', async () => {
    // The connections of the tests above are closed on the server's side too (only the one
    // asking is open), then three connections held (each answered once, kept alive), a fourth.
    let open = null;
    for (let i = 0; i < 100 && open !== 1; i += 1) {
      const c = await raw(rx);
      c.write('GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await c.until((x) => x.response() !== null, 10000);
      open = c.response() ? JSON.parse(c.response().body).connections : null;
      c.close();
      if (open !== 1) await sleep(100);
    }
    assert.equal(open, 1, 'connections of earlier tests still open on the server');
    const held = [];
    for (let i = 0; i < 3; i += 1) {
      const c = await raw(rx);
      c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.ok(await c.until((x) => x.response() !== null, 30000), `held ${i}: no answer`);
      assert.equal(c.response().status, 200, `held ${i}`);
      held.push(c);
    }
    const over = await raw(rx);
    over.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await refusedWith(over, 'TOO_MANY_CONNECTIONS', 'the fourth connection');
    assert.deepEqual(core('TOO_MANY_CONNECTIONS'), { status: 503, retryAfter: 1 });
    for (const c of held) assert.equal(c.ended, false, 'a held connection stays open');
    // One held connection closes: a new one is served (the server sees the close soon).
    held.pop().close();
    let served = null;
    for (let i = 0; i < 50 && served !== 200; i += 1) {
      const c = await raw(rx);
      c.write('GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await c.until((x) => x.response() !== null, 10000);
      served = c.response()?.status ?? null;
      if (served === 200) assert.ok(JSON.parse(c.response().body).connections_refused >= 1);
      c.close();
      if (served !== 200) await sleep(100);
    }
    assert.equal(served, 200, 'a new connection is served once a held one closed');
    for (const c of held) c.close();
  });

  await test('the service still processes deliveries after all that', async () => {
    let got;
    for (let i = 0; i < 50; i += 1) { // the refused connections above may still be closing
      got = await deliver(rx, 'evt_hostile_after');
      if (got.status !== 503) break;
      await sleep(100);
    }
    assert.deepEqual([got.status, got.body], [200, { result: 'processed' }]);
    const s = await stats(rx);
    assert.ok(s.body_too_large >= 2 && s.body_timeouts >= 1 && s.connections_refused >= 1, JSON.stringify(s));
    assert.equal(s.clock_offset_ms, 0, 'claims in memory: offset 0');
  });
  rx.child.kill('SIGKILL');

  await test('SIGTERM with requests in flight: each answered (Connection: close), idle connections closed, new ones refused, exit 0', async () => {
    const persisted = join(work, 'sigterm.jsonl');
    const srv = await startReceiver(['--persist', persisted, '--grace-ms', '20000', '--instance', 'rx-sigterm']);
    // An idle kept-alive connection, and 5 requests in flight (head and half the body sent).
    const idle = await raw(srv);
    idle.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.ok(await idle.until((x) => x.response() !== null, 30000), 'the idle connection was not answered');
    const flights = [];
    for (let i = 0; i < 5; i += 1) {
      const body = envelope(`evt_sigterm_${i}`);
      const c = await raw(srv);
      c.write(head(`Content-Length: ${body.length}\r\nX-Webhook-Signature: ${sign(SECRET, body)}\r\n`));
      c.write(body.slice(0, 20));
      flights.push({ c, rest: body.slice(20) });
    }
    await sleep(300); // the server has read the heads
    srv.child.kill('SIGTERM');
    assert.ok(await idle.until((x) => x.ended, 10000), 'the idle connection was not closed');
    // No new connection once the listener is closed.
    let refusedNew = false;
    for (let i = 0; i < 50 && !refusedNew; i += 1) {
      refusedNew = await raw(srv).then((c) => { c.close(); return false; }, (e) => e.code === 'ECONNREFUSED');
      if (!refusedNew) await sleep(50);
    }
    assert.ok(refusedNew, 'new connections are still accepted after SIGTERM');
    for (const { c, rest } of flights) c.write(rest);
    for (const [i, { c }] of flights.entries()) {
      assert.ok(await c.until((x) => x.response() !== null, 30000), `request ${i} in flight not answered`);
      const r = c.response();
      assert.deepEqual([r.status, JSON.parse(r.body)], [200, { result: 'processed' }], `request ${i}`);
      assert.equal(r.headers.connection, 'close', `request ${i}: Connection: close`);
    }
    const { code } = await Promise.race([srv.exited, sleep(30000).then(() => ({ code: 'still running after 30 s' }))]);
    assert.equal(code, 0, `exit code; stderr: ${srv.stderr()}`);
    assert.match(srv.stderr(), /shutdown: 5 in flight answered in \d+ ms/);
    assert.equal(readFileSync(persisted, 'utf8').trim().split('\n').length, 5, 'each persisted once');
  });

  await test('SIGTERM with a request that outlasts --grace-ms: exit 1, saying how many were cut', async () => {
    const srv = await startReceiver(['--grace-ms', '1000', '--body-timeout-ms', '60000', '--instance', 'rx-grace']);
    const c = await raw(srv);
    c.write(head('Content-Length: 500\r\n'));
    c.write('{"id":'); // and never the rest
    await sleep(300);
    srv.child.kill('SIGTERM');
    const { code } = await Promise.race([srv.exited, sleep(30000).then(() => ({ code: 'still running after 30 s' }))]);
    assert.equal(code, 1, `exit code; stderr: ${srv.stderr()}`);
    assert.match(srv.stderr(), /shutdown: 0 in flight answered in \d+ ms; 1 cut after the grace of 1000 ms/);
    c.close();
  });

  await test('SIGTERM while clients send continuously on kept-alive connections: every request written answered (never reset), then refused; exit 0', async () => {
    const srv = await startReceiver(['--grace-ms', '20000', '--drain-ms', '1000', '--instance', 'rx-drain']);
    const WORKERS = 6;
    const tally = { written: 0, answered: 0, closeAnswers: 0, unanswered: [], refused: 0, notProcessed: [], connections: 0 };
    let signalled = false;
    let n = 0;
    // One client: a kept-alive connection, a request as soon as the previous one is answered; a
    // new connection when an answer says Connection: close or the server closed it (FIN) BEFORE
    // the next request was written; stops when a connection is refused (the listener closed).
    const worker = async (w) => {
      let c = null;
      for (;;) {
        if (c === null || c.ended) {
          c?.close();
          try {
            c = await raw(srv);
            tally.connections += 1;
          } catch (e) {
            assert.ok(signalled, `worker ${w}: connection failed before SIGTERM: ${e.message}`);
            assert.equal(e.code, 'ECONNREFUSED', `worker ${w}: ${e.message}`);
            tally.refused += 1;
            return;
          }
        }
        const id = `evt_drain_${w}_${(n += 1)}`;
        const body = envelope(id);
        c.received = Buffer.alloc(0);
        c.write(head(`Content-Length: ${body.length}\r\nX-Webhook-Signature: ${sign(SECRET, body)}\r\n`) + body);
        tally.written += 1;
        await c.until((x) => x.response() !== null || x.ended, 30000);
        const r = c.response();
        if (r === null) {
          tally.unanswered.push(`${id} (${c.ended ? `closed: ${c.error?.code ?? 'FIN'}` : 'no answer in 30 s'}, after SIGTERM: ${signalled})`);
          c.close();
          c = null;
          continue;
        }
        tally.answered += 1;
        if (r.status !== 200 || JSON.parse(r.body).result !== 'processed') tally.notProcessed.push(`${id}: ${r.status} ${r.body}`);
        if (r.headers.connection === 'close') {
          tally.closeAnswers += 1;
          c.close();
          c = null;
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
    // Under load (at least 20 answers per client), then SIGTERM while they keep sending.
    const loaded = Date.now() + 60000;
    while (tally.answered < 20 * WORKERS && Date.now() < loaded) await sleep(20);
    assert.ok(tally.answered >= 20 * WORKERS, `only ${tally.answered} answered in 60 s before SIGTERM`);
    assert.equal(tally.connections, WORKERS, 'each client kept its one connection alive before SIGTERM');
    const before = tally.answered;
    signalled = true;
    srv.child.kill('SIGTERM');
    const all = Promise.all(workers);
    const ended = await Promise.race([all.then(() => true), sleep(60000).then(() => false)]);
    assert.ok(ended, `clients still sending 60 s after SIGTERM: ${JSON.stringify(tally)}`);
    await all; // a worker's assertion
    const { code } = await Promise.race([srv.exited, sleep(30000).then(() => ({ code: 'still running after 30 s' }))]);
    assert.deepEqual(tally.unanswered, [], `requests written and never answered; stderr: ${srv.stderr()}`);
    assert.deepEqual(tally.notProcessed, []);
    assert.equal(tally.written, tally.answered);
    assert.ok(tally.answered > before, 'nothing answered after SIGTERM: the test did not cover the drain');
    // Each client was told to close (Connection: close) and then refused: the listener closed at once.
    assert.ok(tally.closeAnswers >= WORKERS, `${tally.closeAnswers} answers with Connection: close for ${WORKERS} clients`);
    assert.equal(tally.refused, WORKERS, 'each client ended on a refused connection');
    assert.equal(code, 0, `exit code; stderr: ${srv.stderr()}`);
    assert.match(srv.stderr(), /shutdown: \d+ in flight answered in \d+ ms\n/);
  });

  await test('SIGTERM with an idle kept-alive connection: kept open through --drain-ms (a request then written is answered), then ended with a FIN', async () => {
    const srv = await startReceiver(['--grace-ms', '30000', '--drain-ms', '3000', '--instance', 'rx-drain-idle']);
    const c = await raw(srv);
    c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.ok(await c.until((x) => x.response() !== null, 30000), 'no answer before SIGTERM');
    assert.equal(c.response().headers.connection ?? 'keep-alive', 'keep-alive');
    const t = Date.now();
    srv.child.kill('SIGTERM');
    await sleep(500); // within the drain (3 s): the connection is still served
    assert.equal(c.ended, false, 'the idle connection was closed at once (node\'s closeIdleConnections)');
    c.received = Buffer.alloc(0);
    c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.ok(await c.until((x) => x.response() !== null || x.ended, 30000), 'no answer during the drain');
    assert.ok(c.response(), `the request written during the drain was not answered (${c.error?.code ?? 'closed'})`);
    assert.equal(c.response().status, 200);
    assert.equal(c.response().headers.connection, 'close', 'answered during the drain with Connection: close');
    assert.ok(await c.until((x) => x.ended, 10000), 'not closed after its Connection: close answer');
    assert.equal(c.error, null, `closed with an error (a reset?): ${c.error?.code}`);
    // A second idle connection opened before SIGTERM is not possible now; the process exits 0.
    const { code } = await Promise.race([srv.exited, sleep(30000).then(() => ({ code: 'still running after 30 s' }))]);
    assert.equal(code, 0, `exit code; stderr: ${srv.stderr()}`);
    assert.ok(Date.now() - t >= 500, 'exited during the drain');
  });

  // ---- Redis: hung, and its clock ----
  redisServer = await startRedis();
  const redisUrl = `redis://127.0.0.1:${redisServer.port}/`;
  const STORE_TIMEOUT = 1000;
  await test('redis: --clock-skew-ms 300000: the offset corrected (warning, /stats, the persisted line), claimed_at_ms on the store\'s clock', async () => {
    const persisted = join(work, 'redis-clock.jsonl');
    const srv = await startReceiver(['--redis', redisUrl, '--persist', persisted, '--clock-skew-ms', '300000',
      '--store-timeout-ms', String(STORE_TIMEOUT), '--instance', 'rx-redis-clock']);
    const redis = new Redis({ port: redisServer.port, host: '127.0.0.1' });
    redis.on('error', () => {});
    try {
      const time = async () => { const [s, us] = await redis.time(); return Number(s) * 1000 + Math.floor(Number(us) / 1000); };
      const before = await time();
      assert.deepEqual((await deliver(srv, 'evt_redis_clock')).status, 200);
      const after = await time();
      const [line] = readFileSync(persisted, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.ok(line.claimed_at_ms >= before - 1000 && line.claimed_at_ms <= after + 1000,
        `claimed_at_ms ${line.claimed_at_ms} is not within a second of redis TIME [${before}, ${after}]`);
      assert.ok(Math.abs(line.clock_offset_ms + 300000) < 2000, `clock_offset_ms ${line.clock_offset_ms}`);
      assert.ok(Math.abs((await stats(srv)).clock_offset_ms + 300000) < 2000, '/stats clock_offset_ms');
      warnedAbout(srv.stderr(), -300000);
    } finally {
      redis.disconnect();
      srv.child.kill('SIGKILL');
    }
  });

  await test('redis hung (SIGSTOP): 503 STORE_UNAVAILABLE within 3 × --store-timeout-ms; processed again after SIGCONT', async () => {
    const srv = await startReceiver(['--redis', redisUrl, '--store-timeout-ms', String(STORE_TIMEOUT), '--instance', 'rx-redis-hung']);
    try {
      assert.equal((await deliver(srv, 'evt_redis_before')).status, 200);
      hang([redisServer.child.pid]);
      const hung = await Promise.all([1, 2, 3].map((i) => deliver(srv, `evt_redis_hung_${i}`)));
      resume([redisServer.child.pid]);
      for (const got of hung) {
        assert.deepEqual([got.status, got.retryAfter, got.body], [503, '1', { error: 'STORE_UNAVAILABLE' }]);
        assert.ok(got.ms < 3 * STORE_TIMEOUT, `answered after ${got.ms} ms (--store-timeout-ms ${STORE_TIMEOUT})`);
      }
      let after;
      for (let i = 0; i < 50; i += 1) {
        after = await deliver(srv, 'evt_redis_after');
        if (after.status === 200) break;
        await sleep(100);
      }
      assert.deepEqual([after.status, after.body], [200, { result: 'processed' }], 'after SIGCONT');
    } finally {
      resume([redisServer.child.pid]);
      srv.child.kill('SIGKILL');
    }
  });

  await test('redis hung during a complete (claimed, then SIGSTOP): answered 200 (persisted); after SIGCONT the completion is retried until it sticks, a redelivery is a duplicate', async () => {
    const persisted = join(work, 'redis-complete.jsonl');
    // The claim, then 2.5 s before the persist: redis is stopped in between, so the complete hangs.
    const srv = await startReceiver(['--redis', redisUrl, '--persist', persisted, '--store-timeout-ms', String(STORE_TIMEOUT),
      '--lease-ms', '2000', '--persist-delay-ms', '2500', '--instance', 'rx-redis-complete']);
    const redis = new Redis({ port: redisServer.port, host: '127.0.0.1', maxRetriesPerRequest: 0, enableOfflineQueue: false });
    redis.on('error', () => {});
    const id = 'evt_redis_complete_cut';
    try {
      await new Promise((ok) => { if (redis.status === 'ready') ok(); else redis.once('ready', ok); });
      const first = deliver(srv, id);
      // The claim is in redis (no clock raced: polled), then redis stops before the persist.
      let claimed = null;
      for (let i = 0; i < 500 && claimed === null; i += 1) {
        claimed = await redis.get(`xb:claims:${id}`);
        if (claimed === null) await sleep(10);
      }
      assert.ok(claimed !== null, 'the claim never appeared in redis');
      hang([redisServer.child.pid]);
      let got;
      try {
        got = await first;
        // The lease (2 s) has passed while redis is stopped: the claim is expired when it resumes.
        await sleep(500);
        assert.equal(readFileSync(persisted, 'utf8').trim().split('\n').length, 1, 'persisted once');
        assert.equal((await stats(srv)).completions_recovered, 0, 'recovered while redis was stopped');
      } finally {
        resume([redisServer.child.pid]);
      }
      assert.deepEqual([got.status, got.body], [200, { result: 'processed' }], 'persisted: answered as completed');
      assert.ok(got.ms >= STORE_TIMEOUT, `answered after ${got.ms} ms: the complete did not hang`);
      // After SIGCONT the background retry completes it (generously: 30 s).
      let s = await stats(srv);
      for (let i = 0; i < 300 && s.completions_recovered < 1; i += 1) {
        await sleep(100);
        s = await stats(srv);
      }
      assert.equal(s.completions_retried, 1, JSON.stringify(s));
      assert.equal(s.completions_recovered, 1, `not recovered within 30 s of SIGCONT: ${JSON.stringify(s)}; ${srv.stderr()}`);
      assert.match(srv.stderr(), new RegExp(`completion of ${id} recovered after \\d+ tries`));
      // A redelivery (a duplicate after the ack): done, not processed a second time.
      const again = await deliver(srv, id);
      assert.deepEqual([again.status, again.body], [200, { result: 'duplicate' }], 'the redelivery');
      assert.equal(readFileSync(persisted, 'utf8').trim().split('\n').length, 1, 'processed once');
      // And another instance sharing the redis sees it done too.
      const other = await startReceiver(['--redis', redisUrl, '--store-timeout-ms', String(STORE_TIMEOUT), '--instance', 'rx-redis-other']);
      try {
        assert.deepEqual((await deliver(other, id)).body, { result: 'duplicate' }, 'another instance');
      } finally {
        other.child.kill('SIGKILL');
      }
    } finally {
      resume([redisServer.child.pid]);
      redis.disconnect();
      srv.child.kill('SIGKILL');
    }
  });

  // ---- PostgreSQL: hung, its clock, the pool ----
  const started = spawnSync('bash', [serverSh, 'start', pgDir], { encoding: 'utf8',
    env: { ...process.env, XBORDER_PG_OWNER: String(process.pid) }, stdio: ['ignore', 'pipe', 'inherit'] });
  if (started.status !== 0) throw new Error(`postgres/server.sh start failed (${started.status})`);
  pgStarted = true;
  const url = started.stdout.trim().split('\n').pop();
  const admin = new pg.Client({ connectionString: url });
  admin.on('error', () => {});
  await admin.connect();
  await admin.query('CREATE DATABASE hostile');
  const dbUrl = url.replace(/\/postgres$/, '/hostile');
  const receiverConnections = async () => Number((await admin.query(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'hostile' AND backend_type = 'client backend'")).rows[0].n);

  await test('postgres: --clock-skew-ms 300000 corrected (warning, /stats, line), claimed_at_ms on the server\'s clock; the pool bounded and closed when idle', async () => {
    const persisted = join(work, 'pg-clock.jsonl');
    const srv = await startReceiver(['--postgres', dbUrl, '--persist', persisted, '--clock-skew-ms', '300000',
      '--store-timeout-ms', String(STORE_TIMEOUT), '--pool', '2', '--pool-idle-ms', '1000', '--instance', 'rx-pg-clock']);
    try {
      const time = async () => Number((await admin.query('SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS ms')).rows[0].ms);
      const before = await time();
      const outs = await Promise.all(Array.from({ length: 8 }, (_, i) => deliver(srv, `evt_pg_clock_${i}`)));
      const after = await time();
      assert.deepEqual(outs.map((o) => o.status), Array(8).fill(200), JSON.stringify(outs));
      assert.ok((await receiverConnections()) <= 2, '--pool 2: at most 2 connections');
      const lines = readFileSync(persisted, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(lines.length, 8);
      for (const line of lines) {
        assert.ok(line.claimed_at_ms >= before - 1000 && line.claimed_at_ms <= after + 1000,
          `claimed_at_ms ${line.claimed_at_ms} is not within a second of the server's clock [${before}, ${after}]`);
        assert.ok(Math.abs(line.clock_offset_ms + 300000) < 2000, `clock_offset_ms ${line.clock_offset_ms}`);
      }
      assert.ok(Math.abs((await stats(srv)).clock_offset_ms + 300000) < 2000, '/stats clock_offset_ms');
      warnedAbout(srv.stderr(), -300000);
      // Idle for --pool-idle-ms: the pool gives its connections back (the clock sync, every 5 s,
      // takes one for a moment).
      let n = await receiverConnections();
      for (let i = 0; i < 100 && n > 0; i += 1) {
        await sleep(100);
        n = await receiverConnections();
      }
      assert.equal(n, 0, 'the idle pool kept its connections');
    } finally {
      srv.child.kill('SIGKILL');
    }
  });

  await test('postgres hung (SIGSTOP, every backend): 503 STORE_UNAVAILABLE within 3 × --store-timeout-ms; processed again after SIGCONT', async () => {
    const srv = await startReceiver(['--postgres', dbUrl, '--store-timeout-ms', String(STORE_TIMEOUT), '--pool', '4',
      '--instance', 'rx-pg-hung']);
    try {
      assert.equal((await deliver(srv, 'evt_pg_before')).status, 200);
      const pids = postgresPids(pgDir);
      hang(pids);
      let hung;
      try {
        hung = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => deliver(srv, `evt_pg_hung_${i}`)));
      } finally {
        resume(pids);
      }
      for (const got of hung) {
        assert.deepEqual([got.status, got.retryAfter, got.body], [503, '1', { error: 'STORE_UNAVAILABLE' }]);
        assert.ok(got.ms < 3 * STORE_TIMEOUT, `answered after ${got.ms} ms (--store-timeout-ms ${STORE_TIMEOUT})`);
      }
      let after;
      for (let i = 0; i < 100; i += 1) {
        after = await deliver(srv, 'evt_pg_after');
        if (after.status === 200) break;
        await sleep(100);
      }
      assert.deepEqual([after.status, after.body], [200, { result: 'processed' }], 'after SIGCONT');
    } finally {
      srv.child.kill('SIGKILL');
    }
  });
  await admin.end();
} catch (e) {
  failed += 1;
  console.log(`FAIL ${e.stack ?? e}`);
} finally {
  cleanup();
}
console.log(`test-hostile: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
