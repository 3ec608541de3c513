// Recovery after a trap, on the package's test build (build.sh --test-hooks, installed as
// xborder-wasm in a scratch project of its own): the published package has no test hook
// (tarball.mjs checks). No panic is expected; one that slips through is a readable XborderError
// (INTERNAL_ERROR), the module is a fresh instance at once, and the package recovers by itself:
// objects made before answer again, made again in the new instance from what made them. What
// lived only in the module's memory is gone (a Receiver's window, the built-in Claims' claims, a
// PageWalker's walk); what the user keeps in a Claims store of their own is not.
import assert from 'node:assert/strict';
import * as xb from 'xborder-wasm';

assert.equal(typeof xb.__panicForTests, 'function', 'this is the test build');
const trap = () =>
  assert.throws(() => xb.__panicForTests(), (e) => {
    assert.ok(e instanceof xb.XborderError && e instanceof Error);
    assert.equal(e.name, 'XborderError');
    assert.equal(e.code, 'INTERNAL_ERROR');
    assert.match(e.message, /deliberate panic/);
    return true;
  });

const delivery = (id, event = 'order:success') => {
  const body = JSON.stringify({ id, event, entity: { id: 'o', type: event.split(':')[0] } });
  return [body, xb.sign('k', body)];
};
const [body, sig] = delivery('evt_1');
const mapStore = () => {
  const texts = new Map();
  return {
    texts,
    load: (id) => texts.get(id) ?? null,
    compareAndSet(id, expected, next) {
      if ((texts.get(id) ?? null) !== expected) return false;
      if (next === null) texts.delete(id); else texts.set(id, next);
      return true;
    },
  };
};

// State before the first trap: an event committed in a receiver's window and completed in a
// claims store of the user's (a JS Map here; Redis or SQL in production), a catalog with an added
// name and a receiver made with it, the built-in claims holding an id, a walk under way.
const store = mapStore();
const shared = xb.Claims.withStore(store);
const before = new xb.Receiver('k');
assert.equal(before.receive(body, sig).action, 'process');
assert.equal(shared.step('claim', 'evt_1', 'req_1', 0), 'claimed');
assert.equal(shared.step('complete', 'evt_1', 'req_1', 1), 'completed');
before.commit('evt_1');
assert.equal(before.receive(body, sig).action, 'duplicate');
const catalogBefore = new xb.Catalog();
catalogBefore.addLive('order:rejected');
assert.throws(() => catalogBefore.addLive('order:*'), (e) => e.code === 'INVALID_EVENT_NAME'); // refused: not kept
const [rejected, rejectedSig] = delivery('evt_r', 'order:rejected');
const withCatalog = new xb.Receiver('k', { window: 5, catalog: catalogBefore });
catalogBefore.addWildcard('fiat_deposit:*');
catalogBefore.addLive('order:teleported'); // after the receiver took its copy
assert.equal(withCatalog.receive(rejected, rejectedSig).action, 'process');
const claimsBefore = new xb.Claims();
assert.equal(claimsBefore.step('claim', 'evt_2', 'req_a', 0), 'claimed');
const formRules = { data: { country: 'CO', ownerType: 'individual', rules: { requiredFields: [{ field: 'lastName' }] } } };
const validatorBefore = new xb.BeneficiaryValidator(formRules);
const formDraft = { ownerType: 'individual', country: 'CO', paymentType: 'bank_account', paymentInfo: { bankId: 'b' } };
const formAnswer = validatorBefore.validate(formDraft);
// The same documents as their response text, made again from that text.
const textValidator = new xb.BeneficiaryValidator(JSON.stringify(formRules), { country: 'CO', response: '{"data": [{"id": "b2"}]}' });
const textAnswer = textValidator.validate(formDraft);
formRules.data.rules.requiredFields.length = 0; // read once: what it read is what it keeps
const walkerBefore = new xb.PageWalker({ pageSize: 2 });
assert.equal(walkerBefore.feed({ data: [{ id: 'a' }, { id: 'b' }], total: 4, page: 0, pageSize: 2 }).records.length, 2);
const handlingStore = mapStore(); // the user's too
const handlingBefore = new xb.DeliveryHandling({ receiver: before, store: handlingStore, body: delivery('evt_h')[0], signature: delivery('evt_h')[1], token: 'req_h' });
assert.equal(handlingBefore.step(0).act, 'persist'); // claimed in the user's store, waiting for the persist

for (let round = 1; round <= 3; round++) {
  trap();
  // The module answers at once, arguments and all; new objects work.
  assert.equal(xb.sign('k', body), sig);
  assert.equal(xb.classifyEvent('ubo:*').kind, 'wildcard');
  assert.equal(new xb.Receiver('k').receive(body, sig).action, 'process');
  const catalog = new xb.Catalog();
  catalog.addLive('order:rejected');
  assert.equal(new xb.Receiver('k', { catalog }).receive(rejected, rejectedSig).action, 'process');
  assert.equal(new xb.Claims().step('claim', 'evt_1', 'r', 0), 'claimed');
  assert.equal(new xb.PageWalker().nextQuery(), 'page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC');
}

// Nothing the user committed to their own store is lost: the retry of evt_1 is a duplicate for
// any instance, with a receiver made before or after the reset.
assert.equal(shared.step('claim', 'evt_1', 'req_2', 2), 'duplicate');
assert.equal(xb.Claims.withStore(store).step('claim', 'evt_1', 'req_3', 3), 'duplicate');
assert.deepEqual([...store.texts.keys()], ['evt_1']);
/** A delivery handled as the README's claims recipe does: the status answered, persisted ids in `saved`. */
const saved = [];
const onDelivery = (rx, claims, b, s, token, at) => {
  const d = rx.receive(b, s);
  if (d.action === 'reject') return 400;
  if (d.action !== 'process') return 200;
  const outcome = claims.step('claim', d.envelope.id, token, at);
  if (outcome === 'duplicate') return 200;
  if (outcome !== 'claimed') return 503;
  saved.push(d.envelope.id);
  return claims.step('complete', d.envelope.id, token, at) === 'completed' ? 200 : 503;
};
assert.equal(onDelivery(before, shared, body, sig, 'req_4', 4), 200);
assert.equal(onDelivery(new xb.Receiver('k', { window: 0 }), shared, body, sig, 'req_5', 5), 200);
assert.deepEqual(saved, [], 'evt_1 was not processed again');
const [body3, sig3] = delivery('evt_3');
assert.equal(onDelivery(before, shared, body3, sig3, 'req_6', 6), 200);
assert.equal(onDelivery(before, shared, body3, sig3, 'req_7', 7), 200);
assert.deepEqual(saved, ['evt_3']);

// Objects made before the reset answer again (no "stale object"): made again from their secrets,
// window, options and added names. Their memory is not: the receiver's window is empty (evt_1
// is processed again by a receiver that only dedupes in its window: at least once, as after a
// restart), and the built-in claims hold nothing.
assert.equal(before.receive(body, sig).action, 'process');
assert.equal(before.receive(body, 'nope').error.code, 'MALFORMED_SIGNATURE');
before.commit('evt_1');
assert.equal(before.receive(body, sig).action, 'duplicate');
assert.equal(catalogBefore.isLive('order:rejected'), true);
assert.equal(catalogBefore.classify('fiat_deposit:*').kind, 'wildcard');
assert.equal(catalogBefore.isLive('order:*'), false);
assert.equal(withCatalog.receive(rejected, rejectedSig).action, 'process'); // its copy: order:rejected ...
assert.equal(withCatalog.receive(...delivery('evt_t', 'order:teleported')).action, 'ignore'); // ... not the later name
assert.equal(catalogBefore.isLive('order:teleported'), true);
assert.equal(claimsBefore.step('claim', 'evt_2', 'req_b', 1), 'claimed', 'the built-in claims were made again, empty');
// A validator is made again from the rules as it read them, not as they are now.
assert.deepEqual(validatorBefore.validate(formDraft), formAnswer);
assert.ok(formAnswer.issues.some((i) => i.path === 'lastName'), JSON.stringify(formAnswer));
assert.deepEqual(textValidator.validate(formDraft), textAnswer);
assert.deepEqual(textAnswer.issues.map((i) => i.code).sort(), ['REQUIRED', 'UNKNOWN_BANK']);
// A walk cannot go on: its seen records went with the old instance. It says so (INTERNAL_ERROR,
// the code of what reset the module), and that error does not reset the module again.
const kept = new xb.Receiver('k');
kept.commit('evt_9');
for (const call of [() => walkerBefore.nextQuery(), () => walkerBefore.feed({ data: [], total: 0 }), () => walkerBefore.isDone()]) {
  assert.throws(call, (e) => e instanceof xb.XborderError && e.code === 'INTERNAL_ERROR' && /start a new PageWalker/.test(e.message));
}
assert.equal(kept.receive(...delivery('evt_9')).action, 'duplicate', 'no second reset');
// A delivery's handling cannot go on either (its state went with the old instance): it says so,
// and the provider's retry, handled anew once the lease ends, takes the event from the user's store.
assert.throws(() => handlingBefore.persisted(true), (e) => e instanceof xb.XborderError && e.code === 'INTERNAL_ERROR' && /handle the retry with a new one/.test(e.message));
handlingBefore.free();
{
  const [bh, sh] = delivery('evt_h');
  const retry = await xb.handleDelivery({ receiver: kept, store: handlingStore, body: bh, signature: sh, leaseMs: 10, now: () => 100, persist: () => {} });
  assert.deepEqual([retry.status, retry.outcome, retry.persisted], [200, 'completed', true]);
  assert.equal(kept.receive(...delivery('evt_9')).action, 'duplicate', 'no second reset');
}

// free() of objects made before a reset frees nothing in the new instance: the objects made
// since (made first in a fresh instance, as the old ones were: at the same addresses) keep
// working, also after more allocations.
{
  trap();
  const old = Array.from({ length: 5 }, () => [new xb.Receiver('k'), new xb.Catalog(), new xb.PageWalker(), new xb.Claims()]);
  trap();
  const fresh = Array.from({ length: 5 }, () => new xb.Receiver('k'));
  const claims = new xb.Claims();
  assert.equal(claims.step('claim', 'evt_1', 'r1', 0), 'claimed');
  for (const objects of old) for (const o of objects) o.free();
  for (const objects of old) for (const o of objects) o[Symbol.dispose]?.();
  const others = Array.from({ length: 20 }, () => [new xb.Receiver('other'), new xb.Claims(), new xb.Catalog()]);
  assert.deepEqual(fresh.map((r) => r.receive(body, sig).action), Array(5).fill('process'));
  assert.equal(claims.step('claim', 'evt_1', 'r2', 1), 'in_progress');
  assert.equal(others.length, 20);
  for (const r of fresh) r.free(); // objects of this instance are freed as ever
  const freed = (e) => e instanceof xb.XborderError && e.code === 'FREED' && !/null pointer/.test(e.message);
  assert.throws(() => fresh[0].receive(body, sig), freed);
  // A freed object is not made again by a later reset: still FREED. An object made before a
  // reset and freed after it is FREED too.
  trap();
  assert.throws(() => fresh[0].receive(body, sig), freed);
  assert.throws(() => old[0][0].receive(body, sig), freed);
  assert.throws(() => old[0][1].classify('order:created'), freed);
}
// An ordinary error does not reset anything.
const rx = new xb.Receiver('k');
rx.commit('evt_1');
assert.throws(() => xb.verify('k', body, 'nope'), (e) => e.code === 'MALFORMED_SIGNATURE');
assert.throws(() => rx.receive({ parsed: true }, sig), TypeError);
assert.equal(rx.receive(body, sig).action, 'duplicate');
console.log('panic recovery: ok (6 traps, each an XborderError INTERNAL_ERROR; the module answered after each; objects made before were made again, '
  + 'a receiver\'s window and the built-in claims emptied, a walk and a delivery\'s handling refused; the done ids of a Claims store of the user\'s kept)');
