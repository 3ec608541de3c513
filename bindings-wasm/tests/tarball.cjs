// The packed package used through `require`, as a CommonJS user would.
'use strict';
const assert = require('node:assert/strict');
const xb = require('xborder-wasm');

const body = '{"id":"evt_1","event":"order:success","entity":{"id":"ord_1","type":"order","data":{"amount":"10.00"}}}';
const sig = xb.sign('whsec_k', body);
assert.match(sig, /^[0-9a-f]{64}$/);
xb.verify(['old', 'whsec_k'], Buffer.from(body), `  ${sig.toUpperCase()}\n`);
assert.throws(() => xb.verify('whsec_k', body, null), (e) => e instanceof xb.XborderError && e instanceof Error && e.name === 'XborderError' && e.code === 'MISSING_SIGNATURE');
const env = xb.decodeEnvelope(body);
assert.deepEqual([env.id, env.kind, env.entityId, env.data.amount], ['evt_1', 'live', 'ord_1', '10.00']);
assert.throws(() => xb.decodeEnvelope('{"id":"e","entity":{}}'), (e) => e.code === 'MISSING_FIELD' && e.field === 'event');
const rx = new xb.Receiver('whsec_k', 10);
assert.equal(rx.receive(body, sig).action, 'process');
rx.commit('evt_1');
assert.equal(rx.receive(body, sig).action, 'duplicate');
assert.equal(xb.listQuery({ page: 1 }), 'page=1&pageSize=10&sortBy=createdAt&sortOrder=DESC');
assert.deepEqual(xb.validateBeneficiary({}).valid, false);
module.exports = { sign: xb.sign, XborderError: xb.XborderError, Receiver: xb.Receiver };
console.log('tarball (require): ok');
