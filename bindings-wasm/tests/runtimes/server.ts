// Serves the README's Fetch handler (recipe.ts, the README block as written) with Bun.serve or
// Deno.serve on 127.0.0.1, the port given as the first argument: `bun server.ts PORT`,
// `deno run <the README's flags> server.ts PORT`.
import * as api from 'xborder-wasm';
import { POST } from './recipe.ts';
import { app } from './routes.js';

const handler = app(POST, api);
const port = Number(process.argv[2]);
const g = globalThis as any;
if (g.Bun) g.Bun.serve({ hostname: '127.0.0.1', port, fetch: handler });
else g.Deno.serve({ hostname: '127.0.0.1', port, onListen() {} }, handler);
console.log(`listening on 127.0.0.1:${port}`);
