// Benchmarks of the npm package in Node (never a test: nothing here asserts a time). Run from a
// scratch project where the packed tarball is installed: bash bindings-wasm/bench/bench.sh.
// Each line: calls per second and the time of one call, median of 7 rounds, for the package's
// call and, where there is one, a hand-written JS baseline doing the same work (node:crypto's
// HMAC and timingSafeEqual; JSON.parse and arithmetic).
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as xb from 'xborder-wasm';

const SECRET = 'whsec_bench_secret';
const envelope = (size) => {
  const data = { amount: '10.00', currency: 'USD', note: 'x'.repeat(Math.max(0, size - 120)) };
  return JSON.stringify({ id: 'evt_1', event: 'order:created', entity: { id: 'ord_1', type: 'order', data } });
};

function measure(f) {
  // Calibrate to about 100 ms a round.
  let n = 1;
  for (;;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) f(i);
    const ns = Number(process.hrtime.bigint() - t);
    if (ns > 50e6) break;
    n *= 2;
  }
  const rounds = [];
  for (let r = 0; r < 7; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) f(i);
    rounds.push(Number(process.hrtime.bigint() - t) / n);
  }
  rounds.sort((a, b) => a - b);
  return rounds[3];
}

const rows = [];
function bench(name, f, baseline) {
  const ns = measure(f);
  const base = baseline ? measure(baseline) : undefined;
  rows.push([name, ns, base]);
  const ratio = base ? `  (baseline ${(base / 1000).toFixed(2)} µs, x${(ns / base).toFixed(1)})` : '';
  console.log(`${name.padEnd(44)} ${(ns / 1000).toFixed(2).padStart(8)} µs  ${Math.round(1e9 / ns).toLocaleString('en').padStart(12)}/s${ratio}`);
}

const key = Buffer.from(SECRET);
const jsVerify = (body, header) => {
  const mac = createHmac('sha256', key).update(body).digest();
  const tag = Buffer.from(header.trim(), 'hex');
  return tag.length === 32 && timingSafeEqual(mac, tag);
};

for (const size of [256, 1024, 16 * 1024]) {
  const text = envelope(size);
  const bytes = Buffer.from(text);
  const sig = xb.sign(SECRET, bytes);
  const rx = new xb.Receiver(SECRET, 0);
  const headers = { 'content-type': 'application/json', 'x-webhook-signature': sig, host: 'example.com' };
  bench(`verify, ${bytes.length} B Buffer`, () => xb.verify(SECRET, bytes, sig), () => jsVerify(bytes, sig));
  bench(`Receiver#receive, ${bytes.length} B Buffer`, () => rx.receive(bytes, sig),
    () => jsVerify(bytes, sig) && JSON.parse(bytes.toString('utf8')));
  bench(`Receiver#receive, ${bytes.length} B, req.headers`, () => rx.receive(bytes, headers));
  bench(`Receiver#receive, ${bytes.length} B string`, () => rx.receive(text, sig));
}

const names = ['order:created', 'beneficiary:*', 'order:refunded', 'order:teleported', 'Order:created'];
bench('classifyEvent', (i) => xb.classifyEvent(names[i % names.length]), (i) => {
  const n = names[i % names.length];
  const c = n.indexOf(':');
  return c < 0 ? { kind: 'invalid' } : { kind: 'live', entity: n.slice(0, c), action: n.slice(c + 1) };
});
const catalog = new xb.Catalog();
bench('Catalog#isLive', (i) => catalog.isLive(names[i % names.length]));
const page = { data: Array.from({ length: 25 }, (_, i) => ({ id: `b${i}`, name: `Beneficiary ${i}`, country: 'CO' })), total: 1000, page: 3, pageSize: 25 };
bench('pageInfo, 25 records', () => xb.pageInfo(page), () => {
  const { total, page: p, pageSize } = page;
  return { total, page: p, pageSize, totalPages: Math.ceil(total / pageSize), hasNext: (p + 1) * pageSize < total };
});
bench('pageInfo, {data, total} + request', () => xb.pageInfo({ data: page.data, total: 1000 }, { page: 3, pageSize: 25 }));
bench('listQuery', () => xb.listQuery({ page: 2, pageSize: 25, search: 'café', filters: { status: 'active' } }));
// An account detail as the user types it (every keystroke of a form): two strings in, one text and
// two numbers out.
const IBAN = 'DE89370400440532013000';
bench('checkAccount, iban (complete)', () => xb.checkAccount('iban', IBAN));
bench('checkAccount, iban (typing: "de89 3704")', () => xb.checkAccount('iban', 'de89 3704'));
bench('checkAccount, iban (invalid: too long)', () => xb.checkAccount('iban', `${IBAN}1`));

