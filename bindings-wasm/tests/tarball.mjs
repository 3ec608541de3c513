// The packed package used through `import`, as an ES-module user would; and both ways at once
// give the same module (one WebAssembly instance, one XborderError class).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as xb from 'xborder-wasm';
import { XborderError, checkRegistration, classifyEvent, createWebhookBody, listQuery, pageInfo, validateBeneficiary } from 'xborder-wasm';

const require = createRequire(import.meta.url);
const cjs = require('./tarball.cjs');
assert.equal(cjs.sign, xb.sign);
assert.equal(cjs.XborderError, XborderError);
assert.equal(cjs.Receiver, xb.Receiver);

await xb.init(); // resolves at once in Node
assert.deepEqual(classifyEvent('order:created'), { kind: 'live', entity: 'order', action: 'created' });
assert.equal(createWebhookBody(['order:*'], 'https://x.test/h'), '{"events":["order:*"],"url":"https://x.test/h"}');
assert.throws(() => createWebhookBody(['order:refunded'], 'https://x.test/h'),
  (e) => e instanceof XborderError && e.code === 'VALIDATION_FAILED' && e.rejected[0].reason === 'planned');
assert.throws(() => pageInfo({ data: [] }), (e) => e.code === 'MALFORMED_RESPONSE');
assert.throws(() => xb.sign('k', 42), TypeError);
// Numbers JSON cannot hold are refused, not turned into null (JSON.stringify's default).
assert.throws(() => listQuery({ page: Infinity }), (e) => e instanceof XborderError && e.code === 'MALFORMED_JSON');
assert.throws(() => validateBeneficiary({ country: 1e400 }), (e) => e.code === 'MALFORMED_JSON');
assert.throws(() => pageInfo({ data: [], total: NaN, page: 0, pageSize: 10 }), (e) => e.code === 'MALFORMED_JSON');
// JS values reach the core as the JSON document JSON.stringify writes, read as serde_json reads
// it in the other runtimes: toJSON honoured, undefined dropped; a cycle, a lone surrogate (in a
// value or a key) or nesting over serde_json's 127 levels is MALFORMED_JSON.
const malformed = (e) => e instanceof XborderError && e.code === 'MALFORMED_JSON';
const plain = validateBeneficiary({ country: 'CO', ownerType: 'individual' });
assert.deepEqual(validateBeneficiary({ country: { toJSON: () => 'CO' }, ownerType: 'individual', x: undefined }), plain);
assert.throws(() => listQuery({ page: new Number(Infinity) }), malformed);
assert.throws(() => pageInfo({ data: [], total: new Number(NaN), page: 0, pageSize: 10 }), malformed);
const cyclic = { country: 'CO' }; cyclic.self = cyclic;
assert.throws(() => validateBeneficiary(cyclic), malformed);
assert.throws(() => validateBeneficiary({ country: 'CO\ud800' }), malformed);
assert.throws(() => validateBeneficiary({ ['\udc00']: 1 }), malformed);
assert.deepEqual(validateBeneficiary({ country: 'CO', ownerType: 'individual', x: '\ud83d\ude00' }), plain);
const nest = (n) => { let v = 1; for (let i = 0; i < n; i++) v = [v]; return v; };
assert.deepEqual(validateBeneficiary({ country: 'CO', ownerType: 'individual', x: nest(126) }), plain); // 127 levels
assert.throws(() => validateBeneficiary({ country: 'CO', ownerType: 'individual', x: nest(127) }), malformed);
// Counts are non-negative integers: never wrapped (2^32 + 3 is not 3) nor truncated.
assert.deepEqual(checkRegistration(['order:created'], 2 ** 32 + 3), { ok: false, code: 'WEBHOOK_LIMIT_REACHED' });
assert.deepEqual(checkRegistration(['order:created'], 4), { ok: true, events: ['order:created'] });
for (const bad of [-1, 1.5, NaN, Infinity, 'x']) {
  assert.throws(() => checkRegistration(['order:created'], bad), TypeError, String(bad));
  assert.throws(() => createWebhookBody(['order:created'], 'https://x.test/h', bad), TypeError, String(bad));
  assert.throws(() => new xb.Receiver('k', bad), TypeError, String(bad));
}
assert.equal(listQuery({ page: 2, pageSize: 50, search: 'a&b' }), listQuery(JSON.parse('{"page":2,"pageSize":50,"search":"a&b"}')));

// The runtime exports are exactly the documented ones (index.d.ts), through import, require and
// the browser entry: no test hook, no plumbing of the glue (`__`-prefixed), in any of them.
const pkgDir = require.resolve('xborder-wasm/package.json').replace(/package\.json$/, '');
const dts = readFileSync(`${pkgDir}index.d.ts`, 'utf8');
const declared = [...dts.matchAll(/^export (?:function|class) (\w+)/gm)].map((m) => m[1]).sort();
const web = await import('xborder-wasm/web');
for (const [entry, names] of [['import', Object.keys(xb)], ['require', Object.keys(require('xborder-wasm'))], ['web.js', Object.keys(web)]]) {
  assert.deepEqual(names.filter((k) => k !== 'default').sort(), declared, entry);
}
assert.doesNotMatch(dts, /\b__\w/, 'index.d.ts types no __ name');
assert.equal(readFileSync(`${pkgDir}index.d.cts`, 'utf8'), dts);
// The test hook is not even compiled into the published module (it is the test build's: build.sh --test-hooks).
for (const dir of ['node', 'web']) {
  assert.doesNotMatch(readFileSync(`${pkgDir}${dir}/xborder_wasm.js`, 'utf8'), /panicForTests/, `${dir}/xborder_wasm.js`);
}
// The README as packed links only to what the package holds or a public page: a link to a
// repository file not in the tarball is dead on npm. Relative targets must be files of the
// package, anchors headings of the README, absolute ones public https pages (not localhost).
{
  const readme = readFileSync(`${pkgDir}README.md`, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const slug = (h) => h.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
  const anchors = new Set([...readme.matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1])));
  const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g), ...readme.matchAll(/<([a-z]+:[^>\s]+)>/g)].map((m) => m[1]);
  assert.ok(links.length > 0, 'the README has links');
  for (const link of links) {
    if (link.startsWith('#')) assert.ok(anchors.has(link.slice(1)), `README: ${link} is not a heading`);
    else if (/^[a-z]+:/.test(link)) {
      assert.match(link, /^https:\/\//, `README: ${link} is not a public https page`);
      assert.doesNotMatch(link, /^https:\/\/(localhost|127\.|\[::1\])/, `README: ${link} is not public`);
    } else {
      const target = link.split('#')[0];
      assert.ok(!target.includes('..') && existsSync(`${pkgDir}${target}`), `README: ${link} is not in the package`);
    }
  }
}
const code = dts.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
assert.doesNotMatch(code, /\bany\b/, 'index.d.ts must not use any');
console.log(`tarball (import + require): ok, ${declared.length} exports: ${declared.join(', ')}`);
