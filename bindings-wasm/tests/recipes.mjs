// The README's recipes, as a user copies them: every ```ts block of README.md is compiled with
// `tsc --strict` (ESM, nodenext, @types/node: a Node 20 project), and the three servers among them
// (Express, Fastify, a Fetch handler served through node:http as Node's global Request and
// Response) are started on loopback and sent deliveries: signed (2xx, saved once), redelivered
// (2xx, not saved again), the signature header repeated (2xx), tampered (400 SIGNATURE_MISMATCH),
// two different signatures (400 MALFORMED_SIGNATURE), none (400 MISSING_SIGNATURE).
// Run in a scratch project where xborder-wasm (the packed tarball), express, fastify, @types/express
// and @types/node are installed (bindings-wasm/test.sh):  node recipes.mjs README.md
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';

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
writeFileSync('tsconfig.json', JSON.stringify({
  compilerOptions: {
    strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'],
    types: ['node'], outDir: 'out', rootDir: 'src', skipLibCheck: true,
  },
  include: ['src'],
}, null, 2));
execFileSync('tsc', ['-p', 'tsconfig.json'], { stdio: 'inherit' });
console.log(`recipes: tsc --strict compiled ${named.length} ts blocks (${named.map(([n]) => n).join(', ')})`);

// The fetch recipe exports POST(request); a Node server hands it Node's global Request.
writeFileSync('out/serve-fetch.js', `import { createServer } from 'node:http';
import { POST } from './fetch.js';

createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const response = await POST(new Request(\`http://\${req.headers.host}\${req.url}\`, { method: req.method, headers, body: Buffer.concat(chunks) }));
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

/** POSTs `body` to /webhooks with the given signature header values: [status, response text]. */
function post(port, body, signatures) {
  const headers = { 'content-type': 'application/json' };
  if (signatures.length > 0) headers['x-webhook-signature'] = signatures.length === 1 ? signatures[0] : signatures; // an array: the header sent once per value
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/webhooks', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve([res.statusCode, text]));
    });
    req.on('error', reject);
    req.end(body);
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

let failed = 0;
for (const name of Object.keys(SERVERS)) {
  const port = await freePort();
  const file = name === 'fetch' ? 'out/serve-fetch.js' : `out/${name}.js`;
  const child = spawn(process.execPath, [file], { env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    await whenUp(port, child);
    const [one, two] = [envelope('evt_1'), envelope('evt_2')];
    const answers = {
      signed: await post(port, one, [sign(one)]),
      redelivered: await post(port, one, [sign(one)]),
      repeated: await post(port, two, [sign(two), sign(two)]),
      tampered: await post(port, one.replace('10.00', '99.00'), [sign(one)]),
      twoSignatures: await post(port, one, [sign(one), sign(two)]),
      unsigned: await post(port, one, []),
    };
    assert.deepEqual(Object.fromEntries(Object.entries(answers).map(([k, [status, text]]) => [k, status >= 400 ? `${status} ${text}` : status])), {
      signed: 200, redelivered: 200, repeated: 200,
      tampered: '400 SIGNATURE_MISMATCH', twoSignatures: '400 MALFORMED_SIGNATURE', unsigned: '400 MISSING_SIGNATURE',
    });
    const saved = out.split('\n').filter((l) => l.startsWith('saved '));
    assert.deepEqual(saved, ['saved evt_1 order:created {"amount":"10.00"}', 'saved evt_2 order:created {"amount":"10.00"}'],
      'each event saved once, with its data');
    console.log(`ok recipe ${name}: signed 200, redelivered 200 (not saved again), header repeated 200, tampered 400, two signatures 400, unsigned 400`);
  } catch (e) {
    failed++;
    console.log(`FAIL recipe ${name}: ${e.message}\n${out}`);
  } finally {
    child.kill();
  }
}
console.log(`recipes: ${Object.keys(SERVERS).length - failed} servers passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
