// Loads the installed package as the runtime resolves it and prints probe()'s JSON: `node load.mjs`,
// `bun load.mjs`, `deno run --allow-read=... load.mjs`.
import * as api from 'xborder-wasm';
import { probe } from './routes.js';

await api.init();
console.log(JSON.stringify(probe(api)));
