// Serves the demo page on loopback (no dependency): this folder at /, and the xborder-wasm
// package at /node_modules/xborder-wasm/ (bindings-wasm/pkg, as build.sh leaves it, unless another
// folder is given), which the page's import map points at.
//   node serve.mjs [--port 8000] [--pkg DIR]      (bindings-wasm/demo/serve.sh builds, then runs this)
// The end-to-end test starts it the same way, with the installed tarball (tests/e2e.mjs).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript',
  '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css', '.png': 'image/png',
};

/** Starts the server; resolves to its origin (`http://127.0.0.1:PORT`) and `close()`. */
export async function serveDemo({ port = 0, pkg = join(HERE, '..', 'pkg') } = {}) {
  const mounts = [['/node_modules/xborder-wasm/', pkg], ['/', HERE]];
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      const [prefix, root] = mounts.find(([p]) => path.startsWith(p));
      let file = normalize(join(root, path.slice(prefix.length)));
      if (file !== normalize(root) && !file.startsWith(normalize(root) + sep)) throw new Error('outside');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
  const { origin } = await serveDemo({ port: Number(arg('--port') ?? 8000), pkg: arg('--pkg') });
  console.log(`xborder-wasm demo: ${origin}/ (Ctrl-C to stop)`);
}
