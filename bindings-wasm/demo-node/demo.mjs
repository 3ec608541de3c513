// The main-job scenario through the npm package, as a Node service would run it: a signed batch
// of webhook deliveries, then two beneficiary drafts against the sample rules and bank list.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Receiver, validateBeneficiary, listQuery, XborderError } from 'xborder-wasm';

const fixtures = process.argv[2];
const read = (name) => JSON.parse(readFileSync(`${fixtures}/${name}`, 'utf8'));
const SECRET = 'whsec_demo_2f1c9a';
// The provider's side of the demo: node:crypto signs, xborder verifies.
const sign = (body) => createHmac('sha256', SECRET).update(body).digest('hex');
const envelope = (id, event, type, amount) => Buffer.from(JSON.stringify({
  id, event, entity: { id: 'ord_77', type, data: { status: 'funds_received', amount, currency: 'USD' } },
}));

console.log('== Webhooks through xborder-wasm (Node)');
const receiver = new Receiver(SECRET, 10000);
const paid = envelope('evt_100', 'order:funds_received', 'order', '250.00');
const tampered = envelope('evt_100', 'order:funds_received', 'order', '950.00');
const crashed = envelope('evt_101', 'sender:kyb_approved', 'sender', '0');
const future = envelope('evt_102', 'order:awaiting_beneficiary_verification', 'order', '1.00');
const batch = [
  ['valid delivery', paid, sign(paid), true],
  ['tampered body, original signature', tampered, sign(paid), true],
  ['the same event again (provider retry)', paid, sign(paid), true],
  ['crash before persisting', crashed, sign(crashed), false],
  ['redelivery after the crash', crashed, sign(crashed), true],
  ['event name newer than this release', future, sign(future), true],
  ['no signature header', paid, undefined, true],
];
for (const [label, body, signature, persists] of batch) {
  const d = receiver.receive(body, signature);
  const detail = d.envelope ? `${d.envelope.id} ${d.envelope.event} (${d.envelope.kind}) amount=${d.envelope.data.amount}`
    : `${d.error.code}`;
  if ((d.action === 'process' || d.action === 'ignore') && persists) receiver.commit(d.envelope.id);
  console.log(`  ${label.padEnd(40)} -> ${d.action.padEnd(9)} ${detail}`);
}

console.log('\n== Beneficiary drafts');
const banks = { country: 'CO', response: read('banks-co.json') };
for (const [name, draft, rules, b] of [
  ['draft-co.json', read('draft-co.json'), read('rules-co-individual.json'), banks],
  ['draft-us.json', read('draft-us.json'), read('rules-us-business.json'), undefined],
]) {
  const v = validateBeneficiary(draft, rules, b);
  console.log(`  ${name}: ${v.valid ? 'valid' : 'not valid'}`);
  for (const issue of v.issues) console.log(`    ${issue.path.padEnd(28)} ${issue.code}`);
}

console.log('\n== Paging');
console.log(`  GET /v1/beneficiaries?${listQuery({ page: 2, search: 'Ana María' })}`);
try {
  listQuery({ sortOrder: 'desc' });
} catch (e) {
  console.log(`  a bad sortOrder throws ${e instanceof XborderError ? 'XborderError' : 'Error'} ${e.code}`);
}
