// Runs every ```js block of the package README as written, in the consumer folder where the packed
// tarball is installed: node readme.mjs README.md. The names a snippet leaves to the reader
// (rawBody, rulesResponse, saveEvent, fetch's answer, a Redis client, ...) are defined first, as a
// reader's app would have them: rulesResponse and banksResponse are the README's own ```json
// documents (the rules document and the bank list as the server sends them), which fetch serves
// as the responses of their endpoints (text() and json()); otherwise fetch serves the pages of a
// list of 60 records. A block with a `// prints:` comment must print the `//   ` lines under it,
// in that order (other lines may come between). saveEvent refuses
// an event persisted twice; `redis` is an in-memory node-redis stand-in whose EVAL runs only
// xborder's compare-and-set script (core/src/claims/redis_compare_and_set.lua, copied beside the
// snippets as the README says), emulated in JS. A block that starts a server (`.listen(PORT)`) is run in its own process and
// sent a signed delivery (answered 200), a tampered one (answered 400), a body declared over 1 MiB
// (413 before it is sent) and a chunked one trickled past 1 MiB (413 before it ends: read with a
// limit, never whole). Exits 1 on any failure.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';

const readme = readFileSync(process.argv[2], 'utf8');
const LUA = join(dirname(process.argv[2]), '..', 'core', 'src', 'claims', 'redis_compare_and_set.lua');
copyFileSync(LUA, 'redis_compare_and_set.lua');
const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
if (blocks.length === 0) throw new Error('no ```js block in the README');
// The documents the README shows, as the server sends them: what the snippets fetch.
const documents = [...readme.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => JSON.parse(m[1]));
const RULES_DOC = documents.find((d) => d.data !== null && typeof d.data === 'object' && 'rules' in d.data);
const BANKS_DOC = documents.find((d) => Array.isArray(d.data));
if (!RULES_DOC || !BANKS_DOC) throw new Error('the README does not show the rules document and the bank list as ```json blocks');

const SECRET = 'whsec_readme_test';
const BODY = '{"id":"evt_1","event":"order:created","entity":{"id":"ord_1","type":"order","data":{"amount":"10.00"}}}';
const sign = (body) => createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(body).digest('hex');

// What the snippets take as given. Each is what a real app would hold at that point.
const PRELUDE = `
process.env.WEBHOOK_SECRET = ${JSON.stringify(SECRET)};
globalThis.previousSecret = 'whsec_readme_old';
globalThis.currentSecret = ${JSON.stringify(SECRET)};
globalThis.rawBody = Buffer.from(${JSON.stringify(BODY)});
globalThis.signatureHeader = ${JSON.stringify(sign(BODY))};
globalThis.handled = [];
globalThis.handle = (event, data) => globalThis.handled.push([event, data]);
globalThis.saved = new Set();
globalThis.saveEvent = async (id) => {
  if (globalThis.saved.has(id)) throw new Error('event ' + id + ' persisted twice');
  globalThis.saved.add(id);
};
globalThis.rulesResponse = ${JSON.stringify(RULES_DOC)};
globalThis.banksResponse = ${JSON.stringify(BANKS_DOC)};
globalThis.headers = { authorization: 'Bearer test' };
globalThis.fetch = async (url) => {
  const u = new URL(url);
  const answer = (doc) => ({ text: async () => JSON.stringify(doc, null, 2), json: async () => structuredClone(doc) });
  if (u.pathname === '/v1/validation-rules/beneficiaries') return answer(globalThis.rulesResponse);
  if (u.pathname === '/v1/beneficiaries/banks') return answer(globalThis.banksResponse);
  const q = u.searchParams;
  const [page, pageSize] = [Number(q.get('page')), Number(q.get('pageSize'))];
  const records = Array.from({ length: 60 }, (_, i) => ({ id: 'b' + i }));
  return answer({ data: records.slice(page * pageSize, (page + 1) * pageSize), total: 60, page, pageSize });
};
globalThis.redis = (() => {
  const SCRIPT = ${JSON.stringify(readFileSync(LUA, 'utf8'))};
  const kv = new Map(); // key -> [value, expiresAt]
  const later = (v) => new Promise((resolve) => setTimeout(() => resolve(v), 0));
  const get = (k) => {
    const e = kv.get(k);
    if (e && e[1] <= Date.now()) kv.delete(k);
    return kv.has(k) ? kv.get(k)[0] : null;
  };
  return {
    get: (key) => later(get(key)),
    eval(script, { keys: [key], arguments: [expected, next, ttl] }) {
      if (script !== SCRIPT) throw new Error('redis stand-in: EVAL runs only redis_compare_and_set.lua');
      if ((get(key) ?? '') !== expected) return later(0);
      if (next === '' || (ttl !== '' && Number(ttl) < 1)) kv.delete(key);
      else kv.set(key, [next, ttl === '' ? Infinity : Date.now() + Number(ttl)]);
      return later(1);
    },
  };
})();
`;

/** The lines a block says it prints: the `//   ` lines under its `// prints:` comment. */
function printed(block) {
  const lines = block.split('\n');
  const at = lines.findIndex((l) => l.trim() === '// prints:');
  if (at < 0) return [];
  const out = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith('//   ')) break;
    out.push(l.slice(5));
  }
  return out;
}

/** Why `stdout` does not hold the `want` lines in order (null when it does). */
function missing(want, stdout) {
  const got = stdout.split('\n');
  let k = 0;
  for (const line of want) {
    while (k < got.length && got[k] !== line) k++;
    if (k === got.length) return `it did not print ${JSON.stringify(line)} (after the lines before it); it printed:\n${stdout}`;
    k++;
  }
  return null;
}

function run(file, { server, prints = [] }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stdout = '';
    child.stdout.on('data', (d) => { out += d; stdout += d; });
    child.stderr.on('data', (d) => (out += d));
    const done = (why) => {
      child.kill();
      resolve(why);
    };
    if (!server) {
      const timer = setTimeout(() => done(`did not finish in 20 s\n${out}`), 20_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code === 0 ? missing(prints, stdout) : `exited ${code}\n${out}`);
      });
      return;
    }
    child.on('exit', (code) => resolve(`the server exited (${code}) before it was tested\n${out}`));
    deliverWhenUp(server).then(done, (e) => done(`${e.message}\n${out}`));
  });
}

function post(port, body, signature) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'x-webhook-signature': signature } },
      (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Sends a request head to `port` on a raw connection, then `chunks` (each after 5 ms) until an
 * answer comes or the connection ends: { status (null: none), sent (body bytes written) }. 10 s at most.
 */
function raw(port, head, chunks = []) {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    let sent = 0;
    let over = false;
    const finish = () => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      s.destroy();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      resolve({ status: m ? Number(m[1]) : null, sent });
    };
    const timer = setTimeout(finish, 10_000);
    s.on('data', (d) => { got += d.toString('latin1'); if (got.includes('\r\n\r\n')) finish(); });
    s.on('end', finish);
    s.on('error', (e) => (got ? finish() : (over = true, clearTimeout(timer), reject(e))));
    s.on('connect', async () => {
      s.write(head);
      for (const c of chunks) {
        if (over || s.destroyed) return;
        await new Promise((r) => setTimeout(r, 5));
        if (over || s.destroyed) return;
        s.write(c);
        sent += c.length;
      }
    });
  });
}

/**
 * Why a server does not read its body with a limit (null when it does): a Content-Length over
 * 1 MiB is answered 413 with none of the body sent; a chunked body is answered 413 once it
 * passes 1 MiB, well before the 4 MiB the client would send.
 */
async function limits(port) {
  const head = (h) => `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${h}\r\n`;
  const declared = await raw(port, head('Content-Length: 2097152\r\n'));
  if (declared.status !== 413) return `a declared 2 MiB body -> ${declared.status} (want 413 before it is sent)`;
  const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`; // 64 KiB a chunk, 64 of them
  const chunked = await raw(port, head('Transfer-Encoding: chunked\r\n'), Array(64).fill(chunk));
  if (chunked.status !== 413) return `a chunked body past 1 MiB -> ${chunked.status} (want 413)`;
  if (chunked.sent > 3 * 1024 * 1024) return `a chunked body past 1 MiB answered only after ${chunked.sent} bytes were sent: the server read on`;
  return null;
}

async function deliverWhenUp(port) {
  for (let i = 0; i < 100; i++) {
    try {
      const signed = await post(port, BODY, sign(BODY));
      const tampered = await post(port, BODY.replace('10.00', '99.00'), sign(BODY));
      if (signed !== 200 || tampered !== 400) return `signed -> ${signed} (want 200), tampered -> ${tampered} (want 400)`;
      return await limits(port);
    } catch (e) {
      if (e.code !== 'ECONNREFUSED') throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('the server never listened');
}

let failed = 0;
for (const [i, block] of blocks.entries()) {
  const file = `readme-snippet-${i}.mjs`;
  const listen = block.match(/\.listen\((\d+)\)/);
  // Outside a server, a snippet's console.warn is an error it caught and reported: a failure here.
  const trap = listen ? '' : "console.warn = (...a) => { throw new Error('the snippet warned: ' + a.join(' ')); };\n";
  writeFileSync(file, PRELUDE + trap + block);
  const prints = printed(block);
  const why = await run(file, { server: listen ? Number(listen[1]) : null, prints });
  const first = block.split('\n').find((l) => l.trim() && !l.startsWith('import')) ?? '';
  if (why) {
    failed++;
    console.log(`FAIL README js block ${i} (${first.trim()}): ${why}`);
  } else {
    console.log(`ok README js block ${i}${listen ? ' (server: signed 200, tampered 400, 413 for a body declared or sent past 1 MiB)' : ''}${prints.length ? ` (printed the ${prints.length} lines it shows)` : ''}`);
  }
}
console.log(`readme: ${blocks.length - failed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
