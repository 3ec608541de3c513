'use strict';
// The npm package xborder-wasm against what a Node integrator writes instead (node:crypto
// createHmac + timingSafeEqual, JSON.parse, a Set of seen ids), on the bytes of
// tests/bench/fixtures/, in one process. Each pair runs in alternating batches (the order flips
// every round); the figure is the median time per call, and the ratio the median of the
// per-round ratios. Module load and instantiation are timed in fresh child processes.
//
// Usage: node bench.cjs CONSUMER_DIR FIXTURES_DIR OUT.json   (CONSUMER_DIR has xborder-wasm
// installed by bindings-wasm/scripts/consumer.sh). XBORDER_BENCH_ROUNDS, XBORDER_BENCH_BATCH_MS.
const path = require('node:path');
const fs = require('node:fs');
const { createRequire } = require('node:module');
const { execFileSync } = require('node:child_process');
const { createHmac, timingSafeEqual } = require('node:crypto');

const [consumer, fixtures, out] = process.argv.slice(2);
const requireFrom = createRequire(path.join(path.resolve(consumer), 'package.json'));
const pkgPath = requireFrom.resolve('xborder-wasm');
const xb = requireFrom('xborder-wasm');

const ROUNDS = Number(process.env.XBORDER_BENCH_ROUNDS || 15);
const BATCH_MS = Number(process.env.XBORDER_BENCH_BATCH_MS || 20);
const read = (f) => fs.readFileSync(path.join(fixtures, f));
const SECRET = read('secret.txt').toString();
const BODIES = ['1k7', '20k'].map((size) => ({
  size,
  body: read(`envelope-${size}.json`), // a Buffer (a Uint8Array), as node:http delivers it
  sig: read(`envelope-${size}.sig`).toString(),
}));
const RULES = JSON.parse(read('rules.json'));
const DRAFT = JSON.parse(read('draft.json'));
const BANKS = JSON.parse(read('banks.json'));
const PAGE = JSON.parse(read('page.json'));
// The live events, copied from the API docs as an integrator would.
const LIVE = new Set([
  'order:created', 'order:awaiting_funds', 'order:awaiting_funds_timeout', 'order:funds_received',
  'order:in_progress', 'order:sent_to_beneficiary', 'order:success', 'order:failed',
  'order:cancelled', 'order:returned', 'order:proof_of_payment_received', 'order:invoice_review_required',
  'sender:created', 'sender:kyb_pending', 'sender:kyb_approved', 'sender:kyb_declined',
  'sender:kyc_pending', 'sender:kyc_approved', 'sender:kyc_declined', 'sender:tos_link_generated',
  'sender:tos_accepted', 'sender:activated', 'sender:deactivated', 'ubo:created',
  'ubo:verification_pending', 'ubo:verification_approved', 'ubo:verification_declined', 'beneficiary:created',
  'beneficiary:verification_approved', 'beneficiary:verification_declined', 'fiat_deposit:settled', 'stablecoin_deposit:settled',
  'stablecoin_deposit:rejected',
]);

// ---------------------------------------------------------------------------------------------
// What a Node integrator writes.

function nodeVerify(secret, body, header) {
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(String(header).trim(), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function nodeReceive(secret, seen, body, header) {
  if (!nodeVerify(secret, body, header)) return 'reject';
  let ev;
  try {
    ev = JSON.parse(body.toString('utf8'));
  } catch {
    return 'reject';
  }
  if (typeof ev.id !== 'string' || typeof ev.event !== 'string' || !ev.entity) return 'reject';
  if (ev.event.split(':')[0] !== ev.entity.type) return 'reject';
  if (seen.has(ev.id)) return 'duplicate';
  return LIVE.has(ev.event) ? 'process' : 'ignore';
}

function nodeMissing(draft, rule, parent, out) {
  if (typeof rule.field !== 'string') return;
  const p = parent ? `${parent}.${rule.field}` : rule.field;
  const v = draft == null ? undefined : draft[rule.field];
  if (v == null || (typeof v === 'string' && v.trim() === '')) {
    out.push(p);
    return;
  }
  for (const c of [...(rule.nestedFields || []), ...(rule.fields || [])]) nodeMissing(v, c, p, out);
}

function nodeValidate(draft, rules, banks) {
  const out = [];
  for (const k of ['ownerType', 'country', 'paymentType']) if (!draft[k]) out.push(k);
  const doc = rules.data.rules;
  for (const r of doc.requiredFields) nodeMissing(draft, r, '', out);
  for (const pt of doc.paymentTypes) if (pt.type === draft.paymentType) for (const r of pt.requiredFields) nodeMissing(draft, r, '', out);
  const id = draft.paymentInfo && draft.paymentInfo.bankId;
  if (id && !banks.data.some((b) => b.id === id)) out.push('paymentInfo.bankId');
  return out;
}

function nodePage(r, page, pageSize) {
  const p = r.page ?? page;
  const size = r.pageSize ?? pageSize;
  const len = r.data.length;
  const first = len > 0 ? p * size + 1 : 0;
  return { total: r.total, totalPages: Math.ceil(r.total / size), firstItem: first, lastItem: first + len - 1, hasNext: r.hasNext ?? (p + 1) * size < r.total };
}

// ---------------------------------------------------------------------------------------------
// Timing.

let sink = 0;
function timeBatch(fn, iters) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iters; i++) {
    const r = fn();
    if (r === 12345) sink++;
  }
  return Number(process.hrtime.bigint() - t0) / iters;
}

function calibrate(fn) {
  let iters = 1;
  for (;;) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) fn();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (ms >= BATCH_MS / 4 || iters > 1e7) return Math.max(1, Math.round((iters * BATCH_MS) / Math.max(ms, 0.001)));
    iters *= 4;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Runs the functions of one comparison in alternating batches; the first one is xborder's. */
function compare(name, fns) {
  const names = Object.keys(fns);
  for (const n of names) for (let i = 0; i < 200; i++) fns[n](); // warm-up (JIT, caches)
  const iters = Object.fromEntries(names.map((n) => [n, calibrate(fns[n])]));
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    for (const n of order) times[n].push(timeBatch(fns[n], iters[n]));
  }
  const res = { name, ns: {}, ratio: {} };
  for (const n of names) res.ns[n] = median(times[n]);
  const [first, ...rest] = names;
  for (const n of rest) res.ratio[`${first}/${n}`] = median(times[first].map((t, i) => t / times[n][i]));
  const line = names.map((n) => `${n} ${(res.ns[n] / 1000).toFixed(2)} µs`).join(', ');
  console.log(`node: ${name}: ${line}; ${Object.entries(res.ratio).map(([k, v]) => `${k} ${v.toFixed(2)}×`).join(', ')}`);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Module load and instantiation, each in a fresh process (the first require compiles and
// instantiates the WebAssembly module synchronously).

function coldStart(runs) {
  const script = `
    const t0 = process.hrtime.bigint();
    const xb = require(${JSON.stringify(pkgPath)});
    const t1 = process.hrtime.bigint();
    const rx = new xb.Receiver('k');
    const t2 = process.hrtime.bigint();
    xb.verify('k', '{}', xb.sign('k', '{}'));
    const t3 = process.hrtime.bigint();
    const c = require('node:crypto');
    c.createHmac('sha256', 'k').update('{}').digest();
    const t4 = process.hrtime.bigint();
    console.log(JSON.stringify({ load: Number(t1 - t0) / 1e6, receiver: Number(t2 - t1) / 1e6, firstCall: Number(t3 - t2) / 1e6, nodeCrypto: Number(t4 - t3) / 1e6 }));`;
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(JSON.parse(execFileSync(process.execPath, ['-e', script]).toString()));
  const keys = Object.keys(samples[0]);
  return Object.fromEntries(keys.map((k) => [k, median(samples.map((s) => s[k]))]));
}

// ---------------------------------------------------------------------------------------------

const results = [];
const rx = new xb.Receiver(SECRET, 20000);
const seen = new Set();
for (let i = 0; i < 10000; i++) {
  const id = `evt_${String(i).padStart(26, '0')}`;
  rx.commit(id);
  seen.add(id);
}

for (const { size, body, sig } of BODIES) {
  // Sanity: both sides agree before anything is timed.
  xb.verify(SECRET, body, sig);
  if (!nodeVerify(SECRET, body, sig)) throw new Error('node verify failed');
  if (rx.receive(body, sig).action !== 'process' || nodeReceive(SECRET, seen, body, sig) !== 'process') throw new Error('receive disagrees');
  const env = xb.decodeEnvelope(body);
  const plain = JSON.parse(body.toString('utf8'));
  if (JSON.stringify(env.data) !== JSON.stringify(plain.entity.data)) throw new Error('decode disagrees');

  results.push(compare(`verify/${size}`, {
    xborder: () => xb.verify(SECRET, body, sig),
    'node:crypto': () => nodeVerify(SECRET, body, sig),
  }));
  // A usable JS event: the envelope with entity.data read (parsed on first access).
  results.push(compare(`decode/${size}`, {
    xborder: () => xb.decodeEnvelope(body).data,
    'JSON.parse': () => JSON.parse(body.toString('utf8')),
  }));
  // The envelope fields only (entity.data left as text until read).
  results.push(compare(`decode_lazy/${size}`, {
    xborder: () => xb.decodeEnvelope(body).id,
    'JSON.parse': () => JSON.parse(body.toString('utf8')).id,
  }));
  results.push(compare(`receive/${size}`, {
    xborder: () => rx.receive(body, sig).envelope.data,
    naive: () => nodeReceive(SECRET, seen, body, sig),
    'node:crypto': () => nodeVerify(SECRET, body, sig),
  }));
}
results.push(compare('classify/order_funds_received', {
  xborder: () => xb.classifyEvent('order:funds_received').kind,
  naive: () => (LIVE.has('order:funds_received') ? 'live' : 'unknown'),
}));
const banksArg = { country: 'CO', response: BANKS };
if (xb.validateBeneficiary(DRAFT, RULES, banksArg).issues.length !== nodeValidate(DRAFT, RULES, BANKS).length) throw new Error('validate disagrees');
results.push(compare('validate/rules30', {
  xborder: () => xb.validateBeneficiary(DRAFT, RULES, banksArg),
  naive: () => nodeValidate(DRAFT, RULES, BANKS),
}));
// The same draft against a BeneficiaryValidator: the rules and the bank list read once.
const validator = new xb.BeneficiaryValidator(RULES, banksArg);
if (JSON.stringify(validator.validate(DRAFT)) !== JSON.stringify(xb.validateBeneficiary(DRAFT, RULES, banksArg))) throw new Error('validator disagrees');
results.push(compare('validate_prepared/rules30', {
  xborder: () => validator.validate(DRAFT),
  naive: () => nodeValidate(DRAFT, RULES, BANKS),
}));
// An account detail as the user types it (issue 31): the package's checkAccount against the
// IBAN check a Node integrator writes (separators out, the first four moved, mod 97 in chunks).
function nodeIban(value) {
  const s = value.replace(/[\s-]/g, '').toUpperCase();
  if (s.length < 15 || s.length > 34 || !/^[A-Z0-9]+$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = parseInt(ch, 36);
    rem = v < 10 ? (rem * 10 + v) % 97 : (rem * 100 + v) % 97;
  }
  return rem === 1;
}
const IBAN = 'DE89370400440532013000';
if (typeof xb.checkAccount === 'function') {
  if (xb.checkAccount('iban', IBAN).state !== 'complete' || !nodeIban(IBAN)) throw new Error('checkAccount disagrees');
  results.push(compare('account/iban22', {
    xborder: () => xb.checkAccount('iban', IBAN),
    naive: () => nodeIban(IBAN),
  }));
}
const request = { page: 2, pageSize: 25 };
results.push(compare('page/25', {
  xborder: () => xb.pageInfo(PAGE, request),
  naive: () => nodePage(PAGE, 2, 25),
}));

const cold = coldStart(Number(process.env.XBORDER_BENCH_COLD_RUNS || 7));
console.log(`node: load ${cold.load.toFixed(2)} ms, new Receiver ${cold.receiver.toFixed(3)} ms, first call ${cold.firstCall.toFixed(3)} ms (node:crypto first use ${cold.nodeCrypto.toFixed(3)} ms)`);
const report = {
  node: process.version,
  v8: process.versions.v8,
  rounds: ROUNDS,
  batchMs: BATCH_MS,
  results,
  cold,
  sink,
};
fs.writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
