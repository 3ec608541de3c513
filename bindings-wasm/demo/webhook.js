// The webhook inspector: verifies, signs and decodes a delivery with the full module (xborder-wasm).
import { init, sign, verify, decodeEnvelope, XborderError } from 'xborder-wasm';

const $ = (id) => document.getElementById(id);
await init();

// Neutral until the user types in it or signs the sample.
let inspecting = false;
function inspect() {
  const body = $('wh-body').value;
  const verdict = $('verdict');
  if (!inspecting) {
    verdict.className = 'neutral';
    verdict.textContent = 'Paste a delivery (its raw body and X-Webhook-Signature), or sign this sample';
  } else {
    try {
      verify($('wh-secret').value, body, $('wh-signature').value);
      verdict.className = 'ok';
      verdict.textContent = 'Signature verified';
    } catch (e) {
      if (!(e instanceof XborderError)) throw e;
      verdict.className = 'ko';
      verdict.textContent = `Rejected: ${e.code}`;
    }
  }
  try {
    const env = decodeEnvelope(body);
    $('wh-kind').textContent = env.kind;
    $('wh-envelope').textContent = JSON.stringify(env, null, 2);
  } catch (e) {
    if (!(e instanceof XborderError)) throw e;
    $('wh-kind').textContent = '—';
    $('wh-envelope').textContent = `Not an envelope: ${e.code}${e.field ? ` (${e.field})` : ''}`;
  }
}
for (const id of ['wh-body', 'wh-secret', 'wh-signature']) {
  $(id).addEventListener('input', () => {
    inspecting = true;
    inspect();
  });
}
$('wh-sign').addEventListener('click', () => {
  inspecting = true;
  try { $('wh-signature').value = sign($('wh-secret').value, $('wh-body').value); } catch (e) { if (!(e instanceof XborderError)) throw e; }
  inspect();
});
$('wh-body').value = JSON.stringify({ id: 'evt_001', event: 'order:funds_received', entity: { id: 'ord_1', type: 'order', data: { status: 'funds_received', amount: '100.00' } } });
inspect();
document.body.dataset.webhook = 'ready';
