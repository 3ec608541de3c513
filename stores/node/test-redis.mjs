// The Node Redis adapter against a real redis-server (started here on a free loopback port,
// stopped at the end): every `delivery.claims` vector of the project and of
// ../shared/conformance through `Claims.withStore(redisClaimStore(redis))`, and one winner
// among concurrent claims from several connections. Run by examples/receiver-node/test.sh.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Claims } from 'xborder-wasm';
import { redisClaimStore } from './redis-store.mjs';

const root = new URL('../../', import.meta.url).pathname;
const freePort = () => new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
});
const bin = process.env.XBORDER_REDIS_SERVER || 'redis-server';
const listening = (port) => new Promise((ok) => {
  const c = connect(port, '127.0.0.1', () => { c.destroy(); ok(true); });
  c.on('error', () => ok(false));
});
// A port the kernel hands out free; if redis-server exits all the same (something took the port
// in between), another one, five times in all. Then wait (5 s at most) until it listens.
const startServer = async () => {
  let why = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' });
    let exited = null;
    child.on('exit', (code) => { exited = code; });
    why = `redis-server did not listen on ${port} within 5 s`;
    for (let i = 0; i < 100; i += 1) {
      if (await listening(port)) return { server: child, port };
      if (exited !== null) { why = `redis-server exited (${exited}) before it listened on ${port}`; break; }
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
  }
  throw new Error(why);
};
const { server, port } = await startServer();
// The vectors step at their own times while Redis's clock runs on: a zero lease gives a claim a
// 1 ms TTL, which a slow machine outlives between two steps. In the vector runs Redis keeps each
// entry this much past core's TTL; core still reads an entry past its TTL as none at the step's
// time, so no answer changes.
const TTL_MARGIN_MS = 600000;
const vectorTime = (store) => ({
  load: (id, time) => store.load(id, time),
  compareAndSet: (id, expected, next, ttlMs, time) =>
    store.compareAndSet(id, expected, next, ttlMs == null ? ttlMs : ttlMs + TTL_MARGIN_MS, time),
});
let failures = 0;
const fail = (why) => { failures += 1; console.log(`FAIL ${why}`); };
try {
  const redis = new Redis({ port, host: '127.0.0.1' });
  redis.on('error', () => {});
  const dirs = [join(root, 'tests/vectors'), join(root, '../shared/conformance'),
    ...(process.env.XBORDER_VECTORS_DIR ?? '').split(':').filter(Boolean)];
  let cases = 0;
  const empty = []; // the project's folder and shared/conformance (when present) must each give cases
  for (const [d, dir] of dirs.entries()) {
    if (!existsSync(dir)) {
      if (d === 0) empty.push(dir);
      continue;
    }
    const before = cases;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      for (const [m, c] of (doc.cases ?? []).entries()) {
        if (c.op !== 'delivery.claims') continue;
        cases += 1;
        const claims = Claims.withStore(vectorTime(redisClaimStore(redis, { prefix: `t:${d}:${file}:${m}:` })),
          // FORMAT.md: no windowMs, a done id is a duplicate for ever; the API's default is 7
          // days: the longest window stands for it (as tests/runners/node does).
          { leaseMs: c.input.leaseMs, windowMs: c.input.windowMs ?? Number.MAX_SAFE_INTEGER });
        const got = [];
        for (const s of c.input.steps) {
          got.push(await claims.stepAsync(s.do, s.id, s.token, s.at).catch((e) => e.code ?? String(e)));
        }
        if (JSON.stringify(got) !== JSON.stringify(c.expect.results)) {
          fail(`${file} :: ${c.name}: got ${JSON.stringify(got)}`);
        }
      }
    }
    if (d < 2 && cases === before) empty.push(dir);
  }
  if (empty.length > 0) fail(`no delivery.claims case in ${empty.join(', ')}`);
  console.log(`redis (node): ${cases} delivery.claims cases`);

  // 16 connections claim one id at once, 10 rounds: exactly one claimed each time.
  const clients = Array.from({ length: 16 }, () => new Redis({ port, host: '127.0.0.1' }));
  for (const r of clients) r.on('error', () => {});
  const conns = clients.map((r) => Claims.withStore(redisClaimStore(r, { prefix: 'c:' }), { leaseMs: 30000 }));
  for (let round = 0; round < 10; round += 1) {
    const out = await Promise.all(conns.map((c, i) => c.stepAsync('claim', `evt_${round}`, `r${i}`, 1000)));
    const claimed = out.filter((o) => o === 'claimed').length;
    if (claimed !== 1 || out.filter((o) => o === 'in_progress').length !== 15) {
      fail(`round ${round}: ${out.join(' ')}`);
    }
  }
  // The key's expiry is the TTL core gives (`ttlMs`, `time.ttlMs`), as given: two leases for a
  // claim; a window past core's range is core's clamp (2^48 - 1 ms), never one of the store's.
  const MAX_TIME_MS = 2 ** 48 - 1;
  const given = [];
  const watched = (store) => ({
    load: (id, time) => store.load(id, time),
    compareAndSet: (id, expected, next, ttlMs, time) => {
      given.push([ttlMs, time]);
      return store.compareAndSet(id, expected, next, ttlMs, time);
    },
  });
  const ttlClaims = Claims.withStore(watched(redisClaimStore(redis, { prefix: 'ttl:' })),
    { leaseMs: 30000, windowMs: Number.MAX_SAFE_INTEGER });
  if (await ttlClaims.stepAsync('claim', 'a', 'r1', 1000) !== 'claimed') fail('ttl: claim');
  const claimTtl = await redis.pttl('ttl:a');
  if (!(claimTtl > 59000 && claimTtl <= 60000)) fail(`ttl: a claim's key expires in ${claimTtl} ms, not two leases`);
  if (await ttlClaims.stepAsync('complete', 'a', 'r1', 2 ** 50) !== 'completed') fail('ttl: complete');
  const doneTtl = await redis.pttl('ttl:a');
  if (!(doneTtl > MAX_TIME_MS - 60000 && doneTtl <= MAX_TIME_MS)) fail(`ttl: a done key past core's range expires in ${doneTtl} ms, not ${MAX_TIME_MS}`);
  const want = JSON.stringify([[60000, { nowMs: 1000, ttlMs: 60000, expiresAtMs: 61000 }],
    [MAX_TIME_MS, { nowMs: MAX_TIME_MS, ttlMs: MAX_TIME_MS, expiresAtMs: 2 * MAX_TIME_MS }]]);
  if (JSON.stringify(given) !== want) fail(`ttl: the store was given ${JSON.stringify(given)}, not ${want}`);
  ttlClaims.free();
  // Foreign text in a key and a stopped server: STORE_UNAVAILABLE.
  await redis.set('f:x', 'not ours');
  // As a service configures it: no offline queue, so a step fails at once while Redis is away.
  const fr = new Redis({ port, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 0,
    retryStrategy: () => null });
  fr.on('error', () => {});
  await new Promise((ok) => fr.once('ready', ok));
  const f = Claims.withStore(redisClaimStore(fr, { prefix: 'f:' }), { leaseMs: 1000 });
  const foreign = await f.stepAsync('claim', 'x', 'r1', 0).catch((e) => e.code);
  if (foreign !== 'STORE_UNAVAILABLE') fail(`foreign entry: ${foreign}`);
  for (const r of clients) r.disconnect();
  redis.disconnect();
  server.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 200));
  const down = await f.stepAsync('claim', 'y', 'r1', 0).catch((e) => e.code);
  if (down !== 'STORE_UNAVAILABLE') fail(`stopped server: ${down}`);
  redis.disconnect();
  fr.disconnect();
  for (const c of conns) c.free();
  for (const r of clients) r.disconnect();
  console.log(failures ? `redis (node): ${failures} failed` : 'redis (node): ok');
} finally {
  server.kill('SIGKILL');
}
process.exit(failures ? 1 : 0);
