// Browser test harness: a static HTTP server on 127.0.0.1 and headless Chromium through
// playwright-core (from the toolchain's node-tools, XBORDER_NODE_TOOLS; the browser is the
// system Chromium, XBORDER_CHROMIUM). Used by the browser runner and the demo's e2e test.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

/**
 * Serves `mounts` ({ '/url/prefix/': '/abs/dir', '/exact': { type, body } }) and returns
 * { origin, close }.
 */
export async function startServer(mounts) {
  const server = createServer(async (req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    try {
      const fixed = mounts[url];
      if (fixed && typeof fixed === 'object') {
        res.writeHead(200, { 'content-type': fixed.type });
        res.end(fixed.body);
        return;
      }
      const prefix = Object.keys(mounts)
        .filter((p) => p.endsWith('/') && url.startsWith(p))
        .sort((a, b) => b.length - a.length)[0];
      if (prefix === undefined) throw new Error('no mount');
      let file = normalize(join(mounts[prefix], url.slice(prefix.length)));
      if (!file.startsWith(normalize(mounts[prefix]))) throw new Error('outside');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Headless Chromium, launched the only way that works here (no `npx playwright install`). */
export async function launchChromium() {
  const tools = process.env.XBORDER_NODE_TOOLS;
  if (!tools) throw new Error('XBORDER_NODE_TOOLS is not set: source the toolchain env.sh (tests/tools/setup.sh browser)');
  const { chromium } = createRequire(join(tools, 'package.json'))('playwright-core');
  return chromium.launch({
    executablePath: process.env.XBORDER_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: (process.env.XBORDER_CHROMIUM_ARGS ||
      '--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --no-first-run').split(' '),
  });
}
