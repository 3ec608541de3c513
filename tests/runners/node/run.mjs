// Node runner: every *.json of each vector folder, through `import * as xb from 'xborder-wasm'`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as xb from 'xborder-wasm';
import { runVectors } from './conformance.mjs';

const files = [];
for (const dir of process.argv[2].split(':').filter(Boolean)) {
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    files.push({ name: join(dir, name), doc: JSON.parse(readFileSync(join(dir, name), 'utf8')) });
  }
}
await xb.init();
// The claims vectors also run with an asynchronous store written in JS (a network store's shape).
const { lines, failed } = await runVectors(xb, files, { asyncStore: true });
for (const line of lines) console.log(line);
process.exitCode = failed > 0 ? 1 : 0;
