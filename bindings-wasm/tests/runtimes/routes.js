// The test app every runtime serves around the README's Fetch handler (plain JS, no runtime API):
// POST /webhooks is the recipe's POST(request) as written; POST /validate answers
// validateBeneficiary(draft, rules, banks) for the JSON { draft, rules, banks } it is sent; GET
// /probe answers probe(). `api` is the package as the runtime loaded it (xborder-wasm, or
// xborder-wasm/web after init(module) in a worker).

/** What a load of the package gives: compared with Node's answer by runtimes.mjs. */
export function probe(api) {
  let error;
  try {
    api.decodeEnvelope('{"id":"evt_1"}');
  } catch (e) {
    error = { isXborderError: e instanceof api.XborderError, name: e.name, code: e.code, field: e.field ?? null };
  }
  return {
    sign: api.sign('whsec_probe', '{"id":"evt_1"}'),
    classify: api.classifyEvent('order:created'),
    error,
  };
}

/** A fetch handler: (Request) => Promise<Response>. */
export function app(POST, api) {
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (request.method === 'POST' && pathname === '/webhooks') return POST(request);
    if (request.method === 'POST' && pathname === '/validate') {
      const { draft, rules, banks } = await request.json();
      return Response.json(api.validateBeneficiary(draft, rules, banks));
    }
    if (request.method === 'GET' && pathname === '/probe') return Response.json(probe(api));
    return Response.json({ code: 'NOT_FOUND', message: `${request.method} ${pathname}` }, { status: 404 });
  };
}
