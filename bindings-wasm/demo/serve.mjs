// Serves the demo page on loopback (no dependency): this folder at /, the xborder-wasm package at
// /node_modules/xborder-wasm/ (bindings-wasm/pkg, as build.sh leaves it, unless another folder is
// given), which the page's import map points at, and a small stand-in of the payments API
// (/work/shared/spec/payments-api.md) answering from fixtures/:
//   GET  /v1/validation-rules/beneficiaries?country=DE&ownerType=individual
//        fixtures/rules-<country>-<ownerType>.json (404 when there is none)
//   GET  /v1/beneficiaries/banks?countryCode=DE   fixtures/banks-<country>.json, else { "data": [] }
//   POST /v1/beneficiaries   201 { "data": { "id", ...the payload } }; 400 with the provider's
//        error body from fixtures/rejected-accounts.json when paymentInfo.accountNumber is one of
//        its accounts (the provider's shape, as contract v4's api.error vectors have it:
//        { "error": { "CODE", "MESSAGE", "DETAILS" }, "requestId" }), and
//        400 INVALID_JSON for a body that is not a JSON object.
//   node serve.mjs [--port 8000] [--pkg DIR]      (bindings-wasm/demo/serve.sh builds, then runs this)
// The end-to-end test starts it the same way, with the installed tarball (tests/e2e.mjs), and
// reads what the stand-in received (`received`: every POST body, parsed).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(HERE, 'fixtures');
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript',
  '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css', '.png': 'image/png',
};
const CODE = /^[A-Z]{2}$/;

const fixture = async (name) => {
  try {
    return JSON.parse(await readFile(join(FIXTURES, name), 'utf8'));
  } catch (e) {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  }
};
const reply = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
};
// The provider's error body (contract v4's api.error reads it): { error: { CODE, MESSAGE, DETAILS? }, requestId }.
let requests = 0;
const failure = (code, message, details) => ({ error: { CODE: code, MESSAGE: message, ...(details ? { DETAILS: details } : {}) }, requestId: ++requests });
const notFound = (what) => failure('NOT_FOUND', what);

/** The API stand-in: answers and returns true for its routes, false for any other path. */
async function api(req, res, url, received) {
  const q = url.searchParams;
  if (url.pathname === '/v1/validation-rules/beneficiaries' && req.method === 'GET') {
    const country = q.get('country') ?? '';
    const ownerType = q.get('ownerType') ?? '';
    if (!CODE.test(country) || !['individual', 'business'].includes(ownerType)) {
      reply(res, 400, failure('VALIDATION_FAILED', 'country (ISO 3166-1 alpha-2) and ownerType (individual or business) are required'));
    } else {
      const doc = await fixture(`rules-${country.toLowerCase()}-${ownerType}.json`);
      if (doc) reply(res, 200, doc);
      else reply(res, 404, notFound(`no validation rules for ${ownerType} beneficiaries in ${country}`));
    }
    return true;
  }
  if (url.pathname === '/v1/beneficiaries/banks' && req.method === 'GET') {
    const country = q.get('countryCode') ?? '';
    if (!CODE.test(country)) {
      reply(res, 400, failure('VALIDATION_FAILED', 'countryCode (ISO 3166-1 alpha-2) is required'));
    } else {
      reply(res, 200, (await fixture(`banks-${country.toLowerCase()}.json`)) ?? { data: [] });
    }
    return true;
  }
  if (url.pathname === '/v1/beneficiaries' && req.method === 'POST') {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      reply(res, 400, failure('INVALID_JSON', 'the body must be a JSON object'));
      return true;
    }
    received.push(body);
    const rejected = (await fixture('rejected-accounts.json'))[body.paymentInfo?.accountNumber];
    if (rejected) reply(res, 400, rejected);
    else reply(res, 201, { data: { id: `ben_${String(received.length).padStart(4, '0')}`, status: 'pending', ...body } });
    return true;
  }
  return false;
}

/**
 * Starts the server; resolves to its origin (`http://127.0.0.1:PORT`), `received` (the POST
 * /v1/beneficiaries bodies, parsed, in order) and `close()`.
 */
export async function serveDemo({ port = 0, pkg = join(HERE, '..', 'pkg') } = {}) {
  const mounts = [['/node_modules/xborder-wasm/', pkg], ['/', HERE]];
  const received = [];
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://x');
      if (await api(req, res, url, received)) return;
      const path = decodeURIComponent(url.pathname);
      const [prefix, root] = mounts.find(([p]) => path.startsWith(p));
      let file = normalize(join(root, path.slice(prefix.length)));
      if (file !== normalize(root) && !file.startsWith(normalize(root) + sep)) throw new Error('outside');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      if (res.headersSent) return res.end();
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    received,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
  const { origin } = await serveDemo({ port: Number(arg('--port') ?? 8000), pkg: arg('--pkg') });
  console.log(`xborder-wasm demo: ${origin}/ (Ctrl-C to stop)`);
}
