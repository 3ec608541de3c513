// The README's recipes, as a user copies them: every ```ts block of README.md is compiled with
// `tsc --strict` (ESM, nodenext, @types/node: a Node 20 project), and the servers among them are
// started on loopback: the Express recipe under Express 5 (as written) and Express 4 (the same
// block importing `express4`, an npm alias of express@4 typed by @types/express@4), Fastify, and a
// Fetch handler served through node:http as Node's global Request and Response. Each is sent
// deliveries: signed (2xx, saved once), redelivered (2xx, not saved again), the signature header
// repeated (2xx), tampered (400 SIGNATURE_MISMATCH), two different signatures (400
// MALFORMED_SIGNATURE), none (400 MISSING_SIGNATURE); and what a webhook route must survive: no
// Content-Type, another one, no body at all (415 UNSUPPORTED_MEDIA_TYPE), an empty body (400
// MALFORMED_JSON, the package's), and a body a JSON parser read before the route (400
// RAW_BODY_REQUIRED: the recipe with `app.use(express.json())` added, without its Fastify
// parsers, or the request read before the Fetch handler), and one over 1 MiB (413 from Express's
// body limit through the recipe's error handler, or Fastify's own; the Fetch handler's own 413
// BODY_TOO_LARGE, from the limit it reads the request's stream with, the body handed to it as
// the stream node:http receives; and, to it alone, a chunked body trickled past 1 MiB: 413 before
// 3 MiB are sent). Every 4xx is JSON `{ code, message }`
// with no stack trace, the process is still up after them, and a signed delivery still gets 200.
// Run in a scratch project where xborder-wasm (the packed tarball), express (5), express4,
// fastify, @types/express, @types/express4 and @types/node are installed (bindings-wasm/test.sh):
// node recipes.mjs README.md
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';

const readme = readFileSync(process.argv[2], 'utf8');
const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const SERVERS = {
  express: (b) => /from 'express'/.test(b),
  fastify: (b) => /from 'fastify'/.test(b),
  fetch: (b) => /export async function POST\(request: Request\): Promise<Response>/.test(b),
};
const named = blocks.map((b, i) => [Object.keys(SERVERS).find((k) => SERVERS[k](b)) ?? `block-${i}`, b]);
for (const name of Object.keys(SERVERS)) {
  assert.equal(named.filter(([n]) => n === name).length, 1, `the README has one ${name} recipe (a \`\`\`ts block)`);
}

// (a) Compiled as written, with the user's own module the recipes import (./db.js).
rmSync('src', { recursive: true, force: true });
rmSync('out', { recursive: true, force: true });
mkdirSync('src');
writeFileSync('src/db.ts', `// The persistence the recipes leave to the user: here, a line per saved event on stdout.
export async function saveEvent(id: string, event: string, data: unknown): Promise<void> {
  console.log(\`saved \${id} \${event} \${JSON.stringify(data)}\`);
}
`);
for (const [name, block] of named) writeFileSync(`src/${name}.ts`, block);
/** `block` with `from` replaced by `to`, which must occur in it (a variant of a recipe). */
function variant(name, block, from, to) {
  assert.ok(block.includes(from), `the ${name} recipe has ${JSON.stringify(from)}`);
  return block.replace(from, to);
}
const recipe = Object.fromEntries(named);
// Express 4: the same block, importing express@4 (installed as the alias express4).
writeFileSync('src/express4.ts', variant('express', recipe.express, "from 'express';", "from 'express4';"));
// A JSON parser before the route, as a user may have for the rest of the app.
const parsedExpress = variant('express', recipe.express, 'const app = express();\n', 'const app = express();\napp.use(express.json());\n');
writeFileSync('src/express-parsed.ts', parsedExpress);
writeFileSync('src/express4-parsed.ts', variant('express', parsedExpress, "from 'express';", "from 'express4';"));
// Fastify with its own parsers (the route registered where they apply): JSON arrives parsed.
const OWN_PARSERS = /^app\.(removeAllContentTypeParsers|addContentTypeParser)\(.*\n/gm;
assert.match(recipe.fastify, OWN_PARSERS, 'the fastify recipe sets its own content type parsers');
writeFileSync('src/fastify-parsed.ts', recipe.fastify.replace(OWN_PARSERS, ''));
writeFileSync('tsconfig.json', JSON.stringify({
  compilerOptions: {
    strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'],
    types: ['node'], outDir: 'out', rootDir: 'src', skipLibCheck: true,
  },
  include: ['src'],
}, null, 2));
execFileSync('tsc', ['-p', 'tsconfig.json'], { stdio: 'inherit' });
console.log(`recipes: tsc --strict compiled ${named.length} ts blocks (${named.map(([n]) => n).join(', ')}) and the variants express4, express-parsed, express4-parsed, fastify-parsed`);

// The fetch recipe exports POST(request); a Node server hands it Node's global Request, its body
// the request's stream as it arrives, as a Fetch runtime does (with READ_FIRST set, read first, as
// a middleware calling request.json() would). What the handler leaves unread (it answered
// without reading, or cancelled the stream past its limit) is discarded, as a runtime does, so
// the kept-alive connection serves the next request.
writeFileSync('out/serve-fetch.js', `import { createServer } from 'node:http';
import { POST } from './fetch.js';

createServer(async (req, res) => {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  let open = true;
  const discard = () => {
    open = false;
    req.removeAllListeners('data');
    req.resume();
  };
  const body = new ReadableStream({
    start(c) {
      req.on('data', (d) => {
        c.enqueue(new Uint8Array(d));
        if (c.desiredSize <= 0) req.pause();
      });
      req.on('end', () => { if (open) { open = false; c.close(); } });
      req.on('error', (e) => { if (open) { open = false; c.error(e); } });
    },
    pull() { req.resume(); },
    cancel: discard,
  });
  const request = new Request(\`http://\${req.headers.host}\${req.url}\`, { method: req.method, headers, body, duplex: 'half' });
  if (process.env.READ_FIRST) await request.json().catch(() => undefined);
  const response = await POST(request);
  discard();
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}).listen(Number(process.env.PORT), '127.0.0.1');
`);

// (b) Started and sent deliveries.
const SECRET = 'whsec_recipes';
const sign = (body) => createHmac('sha256', SECRET).update(body).digest('hex');
const envelope = (id) => JSON.stringify({ id, event: 'order:created', entity: { id: 'ord_1', type: 'order', data: { amount: '10.00' } } });

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * POSTs `body` to /webhooks with the given signature header values (an array: the header sent once
 * per value) and Content-Type (`null`: none): { status, type, text }. The body is sent with its
 * Content-Length (0 for an empty one), as a webhook sender does.
 */
function post(port, body, signatures, contentType = 'application/json') {
  const headers = { 'content-length': Buffer.byteLength(body) };
  if (contentType !== null) headers['content-type'] = contentType;
  if (signatures.length > 0) headers['x-webhook-signature'] = signatures.length === 1 ? signatures[0] : signatures;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/webhooks', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] ?? '', text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Sends a chunked body of 64 KiB chunks (4 MiB in all, one every 5 ms) to /webhooks until an
 * answer comes: { status, code, sent } (the body bytes written by then). 20 s at most.
 */
function trickle(port, signature) {
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
      const status = /^HTTP\/1\.1 (\d{3})/.exec(got);
      const code = /"code":"([A-Z_]+)"/.exec(got);
      resolve({ status: status ? Number(status[1]) : null, code: code?.[1] ?? null, sent });
    };
    const timer = setTimeout(finish, 20_000);
    s.on('data', (d) => { got += d.toString('latin1'); if (/\r\n\r\n[\s\S]*\}/.test(got)) finish(); });
    s.on('end', finish);
    s.on('error', (e) => (got ? finish() : (over = true, clearTimeout(timer), reject(e))));
    s.on('connect', async () => {
      s.write(`POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Webhook-Signature: ${signature}\r\nTransfer-Encoding: chunked\r\n\r\n`);
      const chunk = `10000\r\n${'1'.repeat(0x10000)}\r\n`;
      for (let i = 0; i < 64 && !over; i++) {
        s.write(chunk);
        sent += 0x10000;
        await new Promise((r) => setTimeout(r, 5));
      }
    });
  });
}

async function whenUp(port, child) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}`);
    try {
      return await post(port, '{}', []);
    } catch (e) {
      if (e.code !== 'ECONNREFUSED') throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('never listened');
}

/** Starts `file` on a free port: { port, child, output() } once it answers. */
async function start(file, env = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [file], { env: { ...process.env, ...env, PORT: String(port), WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const server = { port, child, output: () => out };
  try {
    await whenUp(port, child);
  } catch (e) {
    child.kill();
    throw new Error(`${file} did not start: ${e.message}\n${out}`);
  }
  return server;
}

/**
 * An answer as `200` (2xx), or `status CODE` for a 4xx, after checking that the 4xx is JSON
 * `{ code, message }` (strings, the message not empty, no stack trace) whose message, for the
 * recipes' own codes, says what to fix.
 */
const FIX = {
  UNSUPPORTED_MEDIA_TYPE: /Content-Type: application\/json/,
  RAW_BODY_REQUIRED: /raw bytes|unread/,
  BODY_TOO_LARGE: /1 MiB|1048576 bytes/,
};
function summary(what, { status, type, text }) {
  if (status < 400) return status;
  assert.ok(status < 500, `${what}: ${status} is not a 4xx: ${text}`);
  assert.match(type, /^application\/json/, `${what}: the ${status} answer is JSON, not ${type}: ${text}`);
  const answer = JSON.parse(text);
  assert.equal(typeof answer.code, 'string', `${what}: the answer has a code: ${text}`);
  assert.equal(typeof answer.message, 'string', `${what}: the answer has a message: ${text}`);
  assert.ok(answer.message.length > 0, `${what}: the message is not empty`);
  assert.doesNotMatch(text, /\bat .*:\d+:\d+/, `${what}: no stack trace in the answer`);
  if (FIX[answer.code]) assert.match(answer.message, FIX[answer.code], `${what}: the ${answer.code} message says what to fix`);
  return `${status} ${answer.code}`;
}

const RUNS = {
  express5: { file: 'out/express.js', parsed: ['out/express-parsed.js'] },
  express4: { file: 'out/express4.js', parsed: ['out/express4-parsed.js'] },
  fastify: { file: 'out/fastify.js', parsed: ['out/fastify-parsed.js'] },
  fetch: { file: 'out/serve-fetch.js', parsed: ['out/serve-fetch.js', { READ_FIRST: '1' }] },
};
const EXPECTED = {
  signed: 200, redelivered: 200, repeated: 200,
  tampered: '400 SIGNATURE_MISMATCH', twoSignatures: '400 MALFORMED_SIGNATURE', unsigned: '400 MISSING_SIGNATURE',
  noContentType: '415 UNSUPPORTED_MEDIA_TYPE', wrongContentType: '415 UNSUPPORTED_MEDIA_TYPE', noBody: '415 UNSUPPORTED_MEDIA_TYPE',
  emptyBody: '400 MALFORMED_JSON', emptyUnsigned: '400 MISSING_SIGNATURE',
  // Over 1 MiB: refused by the framework's body limit (Express: the recipe's error handler,
  // Fastify: its own JSON answer), or, in the Fetch handler, by the package.
  tooLarge: { express5: '413 BODY_TOO_LARGE', express4: '413 BODY_TOO_LARGE', fastify: '413 FST_ERR_CTP_BODY_TOO_LARGE', fetch: '413 BODY_TOO_LARGE' },
  afterwards: 200,
  parsed: '400 RAW_BODY_REQUIRED',
};
const matrix = {};
let failed = 0;
for (const [name, run] of Object.entries(RUNS)) {
  const servers = [];
  try {
    const main = await start(run.file);
    servers.push(main);
    const { port } = main;
    const [one, two, three] = [envelope('evt_1'), envelope('evt_2'), envelope('evt_3')];
    const large = envelope('evt_large').replace('"10.00"', `"${'1'.repeat(1 << 20)}"`); // over 1 MiB
    const sent = {
      signed: await post(port, one, [sign(one)]),
      redelivered: await post(port, one, [sign(one)]),
      repeated: await post(port, two, [sign(two), sign(two)]),
      tampered: await post(port, one.replace('10.00', '99.00'), [sign(one)]),
      twoSignatures: await post(port, one, [sign(one), sign(two)]),
      unsigned: await post(port, one, []),
      // What a route must survive, each signed: only the request's shape is wrong.
      noContentType: await post(port, three, [sign(three)], null),
      wrongContentType: await post(port, three, [sign(three)], 'text/plain'),
      noBody: await post(port, '', [sign('')], null),
      emptyBody: await post(port, '', [sign('')]),
      emptyUnsigned: await post(port, '', []),
      tooLarge: await post(port, large, [sign(large)]),
      // Still up, and the event refused above for its Content-Type is processed now.
      afterwards: await post(port, three, [sign(three)]),
    };
    const parsedServer = await start(...run.parsed);
    servers.push(parsedServer);
    sent.parsed = await post(parsedServer.port, three, [sign(three)]);
    matrix[name] = Object.fromEntries(Object.entries(sent).map(([k, a]) => [k, `${a.status} (unchecked)`]));
    const answers = Object.fromEntries(Object.entries(sent).map(([k, a]) => [k, summary(`${name} ${k}`, a)]));
    matrix[name] = answers;
    assert.deepEqual(answers, Object.fromEntries(Object.entries(EXPECTED).map(([k, v]) => [k, v[name] ?? v])));
    if (name === 'fetch') {
      // The Fetch handler reads the stream with its limit: a chunked body (no Content-Length) is
      // refused once it passes 1 MiB, not read whole.
      const t = await trickle(port, sign('x'));
      assert.deepEqual([t.status, t.code], [413, 'BODY_TOO_LARGE'], `a chunked body past 1 MiB: ${JSON.stringify(t)}`);
      assert.ok(t.sent < 3 * 1024 * 1024, `a chunked body past 1 MiB answered only after ${t.sent} bytes: the handler read on`);
      answers.chunkedTooLarge = `${t.status} ${t.code} after ${(t.sent / 1048576).toFixed(2)} MiB sent`;
    }
    for (const s of servers) {
      assert.equal(s.child.exitCode, null, `the ${name} server is still running`);
      assert.doesNotMatch(s.output(), /Unhandled|\bat .*:\d+:\d+/, 'nothing unhandled, no stack trace in its output');
    }
    const saved = main.output().split('\n').filter((l) => l.startsWith('saved '));
    assert.deepEqual(saved, ['evt_1', 'evt_2', 'evt_3'].map((id) => `saved ${id} order:created {"amount":"10.00"}`),
      'each event saved once, with its data');
    assert.deepEqual(parsedServer.output().split('\n').filter((l) => l.startsWith('saved ')), [], 'nothing saved from a parsed body');
    console.log(`ok recipe ${name}: ${Object.entries(answers).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  } catch (e) {
    failed++;
    console.log(`FAIL recipe ${name}: ${e.message}\n${servers.map((s) => s.output()).join('\n')}`);
  } finally {
    for (const s of servers) s.child.kill();
  }
}
console.log('recipes: answers (rows: requests; columns: servers)');
const names = Object.keys(RUNS);
console.log(`  ${''.padEnd(17)} ${names.map((n) => n.padEnd(32)).join('')}`);
for (const k of Object.keys(EXPECTED)) console.log(`  ${k.padEnd(17)} ${names.map((n) => String(matrix[n]?.[k] ?? '-').padEnd(32)).join('')}`);
console.log(`recipes: ${names.length - failed} servers passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
