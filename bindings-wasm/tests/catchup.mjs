// The catch-up of the npm package (`catchUp`, `CatchUp`, `readApiError`) as a Node service runs
// it, against the simulator's GET /v1/external-events (`xborder-simulator api`, serving a records
// file this test writes, read again on every request):
// - an event the webhook path already processed (handleDelivery) is a duplicate: the catch-up
//   persists every other event once, and its checkpoint is the newest event's createdAt;
// - a second catch-up from that checkpoint finds the events of its overlap and persists none;
//   an event written since is persisted by the third;
// - a persist that fails leaves its event (and every later one) to the next catch-up: the
//   checkpoint stops before it, and the next one persists it, each event once in all;
// - the API's answers: a 429 with `retryAfterMs` waits that long and goes on; a 503 five times
//   rejects with XborderError API_ERROR (its `api`: status, retry advice) after four waits; a
//   401 rejects at once; options of the wrong kind are TypeErrors.
// Usage: node catchup.mjs <scratch project with node_modules/xborder-wasm> <xborder-simulator>
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const [scratch, simulator] = process.argv.slice(2);
assert.ok(scratch && simulator, 'usage: node catchup.mjs <scratch project> <xborder-simulator>');
const xb = createRequire(resolve(scratch, 'package.json'))('xborder-wasm');
const { catchUp, CatchUp, readApiError, handleDelivery, Receiver, Claims, sign, XborderError } = xb;

const dir = mkdtempSync(join(tmpdir(), 'xb-catchup-'));
const records = join(dir, 'external-events.jsonl');
const at = (minute) => `2026-11-27T12:${String(minute).padStart(2, '0')}:00.000Z`;
const record = (n) => JSON.stringify({
  id: `evt_${n}`, name: 'order:created', aggregateType: 'order', aggregateId: `ord_${n}`,
  merchantId: 'm_1', payload: { id: `ord_${n}`, status: 'created' }, createdAt: at(n),
});
writeFileSync(records, `${[0, 1, 2, 3, 4, 5, 6].map(record).join('\n')}\n`);

const addrFile = join(dir, 'addr');
const api = spawn(simulator, ['api', '--events', records, '--addr-file', addrFile], { stdio: ['ignore', 'ignore', 'inherit'] });
let failures = 0;
try {
  for (let i = 0; i < 600 && !existsSync(addrFile); i++) await sleep(50); // the process's start, not a timing
  assert.ok(existsSync(addrFile), 'the simulator did not write its address in 30 s');
  const base = `http://${readFileSync(addrFile, 'utf8').trim()}`;
  const get = (path) => fetch(base + path);

  const receiver = new Receiver('whsec_test', { window: 0 });
  const claims = new Claims();
  const saved = [];
  const persist = (envelope) => {
    saved.push(envelope.id);
  };

  // The webhook path processed evt_1 before the outage.
  const body = JSON.stringify({ id: 'evt_1', event: 'order:created', entity: { id: 'ord_1', type: 'order' } });
  const delivered = await handleDelivery({ receiver, claims, body, signature: sign('whsec_test', body), persist });
  assert.equal(delivered.status, 200);

  const first = await catchUp({ get, receiver, claims, persist, pageSize: 3 });
  assert.deepEqual(
    { ...first, drifts: first.drifts.map((d) => d.code) },
    { checkpoint: at(6), found: 7, processed: 6, skipped: 1, rejected: 0, failed: 0, drifts: [] },
  );
  assert.deepEqual(saved, ['evt_1', 'evt_0', 'evt_2', 'evt_3', 'evt_4', 'evt_5', 'evt_6'], 'oldest first, evt_1 once');
  console.log(`catchup: first run: found 7 in 3 pages, ${first.processed} persisted, ${first.skipped} duplicate (delivered before), checkpoint ${first.checkpoint}`);

  // From the checkpoint: the 5-minute overlap finds evt_1..evt_6 again, all duplicates.
  const again = await catchUp({ get, receiver, claims, persist, since: first.checkpoint });
  assert.deepEqual([again.found, again.processed, again.skipped, again.checkpoint], [6, 0, 6, at(6)]);
  appendFileSync(records, `${record(7)}\n`);
  const third = await catchUp({ get, receiver, claims, persist, since: again.checkpoint });
  assert.deepEqual([third.processed, third.checkpoint], [1, at(7)]);
  assert.equal(saved.length, 8);
  console.log(`catchup: from the checkpoint: ${again.found} found again, none persisted; a new event persisted by the next run (checkpoint ${third.checkpoint})`);

  // A persist that fails on evt_9: evt_8 is persisted, the checkpoint stays at evt_8.
  appendFileSync(records, `${record(8)}\n${record(9)}\n${record(10)}\n`);
  const failing = (envelope) => {
    if (envelope.id === 'evt_9') throw new Error('the database is down');
    saved.push(envelope.id);
  };
  const broken = await catchUp({ get, receiver, claims, persist: failing, since: third.checkpoint });
  assert.deepEqual([broken.processed, broken.failed, broken.checkpoint], [2, 1, at(8)]);
  const mended = await catchUp({ get, receiver, claims, persist, since: broken.checkpoint });
  assert.deepEqual([mended.processed, mended.failed, mended.checkpoint], [1, 0, at(10)]);
  assert.deepEqual(saved.slice(8).sort(), ['evt_10', 'evt_8', 'evt_9']);
  assert.equal(new Set(saved).size, saved.length, 'each event persisted once');
  console.log(`catchup: a failed persist: ${broken.processed} persisted, 1 failed, checkpoint held at ${broken.checkpoint}; the next run persisted it (each of ${saved.length} events once)`);

  // The API's answers, through a get of this test's making.
  const answer = (status, headers, text) => ({ status, headers: new Headers(headers), text: async () => text });
  const waits = [];
  const record_ = (ms) => {
    waits.push(ms);
  };
  let calls = 0;
  const busyOnce = async (path) => {
    calls += 1;
    if (calls === 1) return answer(429, {}, JSON.stringify({ error: { CODE: 'TOO_MANY_REQUESTS', MESSAGE: 'Slow down', DETAILS: { retryAfterMs: 1500 } } }));
    return get(path);
  };
  const busy = await catchUp({ get: busyOnce, sleep: record_, receiver, claims, persist, since: mended.checkpoint });
  assert.deepEqual([waits, busy.checkpoint], [[1500], at(10)]);
  waits.length = 0;
  const down = () => answer(503, { 'Retry-After': '2' }, '<html>busy</html>');
  const e503 = await catchUp({ get: down, sleep: record_, receiver, claims, persist }).then(() => null, (e) => e);
  assert.ok(e503 instanceof XborderError, String(e503));
  assert.equal(e503.code, 'API_ERROR');
  assert.deepEqual([e503.api.status, e503.api.retry, e503.api.afterMs], [503, 'after', 2000]);
  assert.deepEqual(waits, [2000, 2000, 2000, 2000], 'four waits, then the fifth answer ends it');
  const e401 = await catchUp({
    get: () => answer(401, {}, JSON.stringify({ error: { CODE: 'UNAUTHORIZED', MESSAGE: 'bad key' }, requestId: 'r-1' })),
    receiver, claims, persist,
  }).then(() => null, (e) => e);
  assert.equal(e401.code, 'API_ERROR');
  assert.equal(e401.message, 'API_ERROR: the API answered 401 UNAUTHORIZED: bad key (request r-1)');
  assert.deepEqual([e401.api.code, e401.api.requestId, e401.api.retry], ['UNAUTHORIZED', 'r-1', 'no']);
  const e400 = await catchUp({ get, receiver, claims, persist, since: '27/11/2026' }).then(() => null, (e) => e);
  assert.deepEqual([e400.code, e400.field], ['INVALID_SINCE', 'since']);
  console.log('catchup: a 429 waited 1500 ms (its retryAfterMs); a 503 five times: API_ERROR after 4 waits of 2000 ms; a 401: API_ERROR at once (its code and request id); a bad since: INVALID_SINCE');

  // readApiError: the create recipe's reading (a POST that may have happened).
  const created = readApiError({ method: 'POST', status: 502, headers: { 'retry-after': '1' }, body: '' });
  assert.deepEqual([created.retry, created.afterMs], ['check_first', null]);
  const slow = readApiError({ method: 'POST', status: 429, body: { error: { CODE: 'TOO_MANY_REQUESTS', DETAILS: { retryAfterMs: 250 } } } });
  assert.deepEqual([slow.code, slow.retry, slow.afterMs], ['TOO_MANY_REQUESTS', 'after', 250]);

  // Kinds.
  for (const [opts, name] of [
    [{ receiver, claims, persist }, 'options.get'],
    [{ get: 'url', receiver, claims, persist }, 'options.get'],
    [{ get, receiver, claims, persist, sleep: 5 }, 'options.sleep'],
    [{ get, receiver, claims, persist, since: 5 }, 'options.since'],
    [{ get, receiver, claims, persist, body: 'x' }, 'body'],
  ]) {
    const e = await catchUp(opts).then(() => null, (x) => x);
    assert.ok(e instanceof TypeError && e.message.includes(name), `${name}: ${e}`);
  }
  assert.throws(() => readApiError({ method: 'GET', status: '500' }), /options\.status/);
  // Bytes, a Response or a promise for the body: refused, never read as an object of no fields.
  for (const body of [Buffer.from('{}'), new Uint8Array(2), new Response('{}'), Promise.resolve('{}')]) {
    assert.throws(() => readApiError({ method: 'GET', status: 500, body }), /options\.body.*await res\.text\(\)/);
  }
  assert.throws(() => readApiError({ method: 'GET', status: 500, headers: 'retry-after: 1' }), /options\.headers/);
  assert.throws(() => new CatchUp({ overlapMs: '5' }), /options\.overlapMs/);
  assert.throws(() => new CatchUp({ overlapMs: -1 }), (e) => e instanceof XborderError && e.code === 'INVALID_OVERLAP');
  console.log('catchup: ok (the catch-up against the simulator, retries and errors as core says; kinds refused)');
} catch (e) {
  failures += 1;
  console.error(e);
} finally {
  api.kill();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failures === 0 ? 0 : 1);
