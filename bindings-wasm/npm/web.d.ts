// Types of the browser entry (`xborder-wasm/web`, web.js): the same API as the package's (index.d.ts).
// Resolvers that follow `exports` read index.d.ts directly; this file serves those that look
// beside web.js (TypeScript's node10 resolution).
export * from './index.js';
