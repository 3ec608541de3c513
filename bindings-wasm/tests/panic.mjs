// No panics are expected; one that slips through becomes a readable XborderError, and the
// module still answers afterwards (a fresh instance; receivers made before are invalidated).
import assert from 'node:assert/strict';
import * as xb from 'xborder-wasm';

const body = '{"id":"evt_1","event":"order:success","entity":{"id":"o","type":"order"}}';
const sig = xb.sign('k', body);
const before = new xb.Receiver('k');
for (let round = 1; round <= 3; round++) {
  assert.throws(() => xb.__panicForTests(), (e) => {
    assert.ok(e instanceof xb.XborderError && e instanceof Error);
    assert.equal(e.name, 'XborderError');
    assert.equal(e.code, 'INTERNAL_ERROR');
    assert.match(e.message, /deliberate panic/);
    return true;
  });
  // The module answers, arguments and all.
  assert.equal(xb.sign('k', body), sig);
  assert.equal(xb.classifyEvent('ubo:*').kind, 'wildcard');
  const rx = new xb.Receiver('k');
  assert.equal(rx.receive(body, sig).action, 'process');
}
assert.throws(() => before.receive(body, sig), /stale object/);
// An ordinary error does not reset anything.
const rx = new xb.Receiver('k');
assert.throws(() => xb.verify('k', body, 'nope'), (e) => e.code === 'MALFORMED_SIGNATURE');
assert.equal(rx.receive(body, sig).action, 'process');
console.log('panic recovery: ok (3 panics, each an XborderError INTERNAL_ERROR; the module answered after each)');
