// The Node receiver as a process (claims in memory): each decision gets core's status
// (decision.reply for a refused delivery: 400 for the request's signature or envelope; 413 for a
// body over 1 MiB, refused by its Content-Length before it is read), a processed event is persisted once with the line `xborder-simulator check`
// reads (claimed_at_ms, lease_ms, at_ms), and a redelivery is a duplicate. Run by test.sh.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';
import { sign } from 'xborder-wasm';

const secret = 'whsec_node_receiver_test';
const dir = mkdtempSync(join(tmpdir(), 'xborder-rx-node-'));
const persisted = join(dir, 'rx.jsonl');
const child = spawn(process.execPath, [new URL('./server.mjs', import.meta.url).pathname,
  '--listen', '127.0.0.1:0', '--secret', secret, '--persist', persisted, '--records', join(dir, 'records'),
  '--instance', 'rx-node', '--lease-ms', '4000'], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const addr = await new Promise((ok, no) => {
    createInterface({ input: child.stdout }).once('line', ok);
    child.once('exit', (code) => no(new Error(`server.mjs exited (${code}) before its address`)));
  });
  const url = `http://${addr}/webhooks`;
  const post = async (body, signature) => {
    const headers = { 'content-type': 'application/json' };
    if (signature !== undefined) headers['x-webhook-signature'] = signature;
    const r = await fetch(url, { method: 'POST', body, headers });
    return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() };
  };
  const envelope = (id, event, type = event.split(':')[0]) => JSON.stringify({ id, event,
    entity: { id: 'ord_000001', type, data: { id: 'ord_000001', status: 'created', updatedAt: 1 } } });

  const good = envelope('evt_node_1', 'order:created');
  const cases = [
    ['processed', good, sign(secret, good), 200, { result: 'processed' }],
    ['redelivered', good, sign(secret, good), 200, { result: 'duplicate' }],
    ['wrong key', good, sign(`${secret}_other`, good), 400, { error: 'SIGNATURE_MISMATCH' }],
    ['no signature', good, undefined, 400, { error: 'MISSING_SIGNATURE' }],
    ['malformed signature', good, 'sha256=zz', 400, { error: 'MALFORMED_SIGNATURE' }],
  ];
  const mismatch = envelope('evt_node_2', 'order:created', 'sender');
  cases.push(['entity type', mismatch, sign(secret, mismatch), 400,
    { error: 'ENTITY_MISMATCH', field: 'entity.type' }]);
  const unknown = envelope('evt_node_3', 'order:teleported');
  cases.push(['unknown name', unknown, sign(secret, unknown), 200, { result: 'ignore' }]);
  const big = `{"id":"evt_node_4","pad":"${'x'.repeat(1024 * 1024)}"}`;
  cases.push(['over 1 MiB', big, sign(secret, big), 413, { error: 'BODY_TOO_LARGE' }]);
  for (const [what, body, signature, status, said] of cases) {
    const got = await post(body, signature);
    assert.deepEqual({ status: got.status, body: got.body }, { status, body: said }, what);
    assert.equal(got.retryAfter, null, what);
  }

  const lines = readFileSync(persisted, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 1);
  const [line] = lines;
  assert.equal(line.id, 'evt_node_1');
  assert.equal(line.lease_ms, 4000);
  assert.ok(Number.isSafeInteger(line.claimed_at_ms) && line.claimed_at_ms <= line.at_ms, JSON.stringify(line));
  const stats = await (await fetch(`http://${addr}/stats`)).json();
  // The body over 1 MiB is refused by its Content-Length, before core sees it (body_too_large).
  assert.deepEqual([stats.processed, stats.duplicate, stats.rejected, stats.ignored, stats.body_too_large], [1, 1, 4, 1, 1]);
  assert.equal(stats.clock_offset_ms, 0);
  assert.equal(line.clock_offset_ms, 0);
  console.log(`receiver-node: ${cases.length} deliveries answered with core's statuses (` +
    `${cases.map(([what, , , status]) => `${what} ${status}`).join(', ')}); 1 line persisted`);
} finally {
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
