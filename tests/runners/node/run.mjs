// Node runner: every *.json of each vector folder and each single vector file (files.mjs),
// through `import * as xb from 'xborder-wasm'`.
import * as xb from 'xborder-wasm';
import { runVectors } from './conformance.mjs';
import { vectorFiles } from './files.mjs';

const files = vectorFiles(process.argv[2], process.argv[3], process.argv[4]);
await xb.init();
// The claims vectors also run with an asynchronous store written in JS (a network store's shape).
const { lines, failed } = await runVectors(xb, files, { asyncStore: true });
for (const line of lines) console.log(line);
process.exitCode = failed > 0 ? 1 : 0;
