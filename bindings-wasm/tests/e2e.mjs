// End-to-end: the demo page on the packed package, in headless Chromium, served by the demo's own
// server (demo/serve.mjs, what `bash bindings-wasm/demo/serve.sh` runs). The page opens neutral (no
// message, nothing red); a field's message shows once it is typed in, all of them on "Check all
// fields"; the CO individual form is filled until it is ready; the US forms ask for the fields of
// their rules document (individual: names; business: the business name) and a routing number
// instead of a bank; the webhook inspector is neutral until used, then verifies, refuses a
// tampered body and classifies. Saves a screenshot of the page as it opens and one at the end.
// Usage: node e2e.mjs <scratch project with node_modules/xborder-wasm> <screenshot.png>
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchChromium } from '../../tests/runners/browser/harness.mjs';
import { serveDemo } from '../demo/serve.mjs';

const [scratch, screenshot] = process.argv.slice(2);
const server = await serveDemo({ pkg: join(scratch, 'node_modules', 'xborder-wasm') });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  const msg = (path) => page.locator(`.field[data-path="${path}"] > .msg`).textContent();
  const fieldPaths = () => page.locator('#rules-fields .field[data-path], #payment-fields .field[data-path]')
    .evaluateAll((els) => els.map((e) => e.dataset.path));
  const neutral = async (where) => {
    assert.equal(await page.locator('.field.bad, fieldset.bad, .ko').count(), 0, `${where}: nothing red`);
    const texts = await page.locator('.msg').allTextContents();
    assert.deepEqual(texts.filter((t) => t !== ''), [], `${where}: no message`);
  };

  // Opens neutral: the CO individual form's fields, no message, nothing red, a neutral summary
  // and verdict.
  await neutral('on opening');
  assert.equal(await page.locator('#summary').getAttribute('class'), 'neutral');
  assert.match(await page.locator('#summary').textContent(), /Fill in the form/);
  assert.equal(await page.locator('#verdict').getAttribute('class'), 'neutral');
  assert.deepEqual(await fieldPaths(), ['firstName', 'lastName', 'email', 'address', 'address.street', 'address.city',
    'address.postalCode', 'identity', 'identity.documentNumber', 'identity.documentType', 'paymentInfo.accountNumber', 'paymentInfo.accountType']);
  assert.equal(await page.locator('#bank-field').isVisible(), true);
  assert.equal(await page.locator('#routing-field').isHidden(), true);
  const opening = screenshot.replace(/\.png$/, '-open.png');
  await page.screenshot({ path: opening, fullPage: true });

  // A field typed in shows its own message, not the others'.
  await page.fill('[name="firstName"]', 'Ana');
  assert.equal(await msg('firstName'), '');
  await page.fill('[name="firstName"]', '   ');
  assert.equal(await msg('firstName'), 'Required', 'blank after trimming is required');
  assert.equal(await msg('lastName'), '', 'not typed in yet');
  assert.match(await page.locator('#summary').textContent(), /issues to fix/);
  await page.fill('[name="firstName"]', 'Ana');

  // "Check all fields": every message. An absent group is reported once, at the group.
  await page.click('#check');
  assert.equal(await msg('lastName'), 'Required');
  assert.equal(await msg('address'), 'Required');
  assert.equal(await msg('address.city'), '');
  assert.equal(await msg('paymentInfo'), 'Required');
  await page.fill('[name="address.street"]', 'Cra 7 # 71-21');
  assert.equal(await msg('address'), '');
  assert.equal(await msg('address.city'), 'Required');
  await page.fill('[name="paymentInfo.accountNumber"]', '0012345678');
  assert.equal(await msg('paymentInfo'), '');
  assert.equal(await msg('paymentInfo.bankId'), 'Required');
  await page.selectOption('#bankId', 'bank_co_001');
  assert.equal(await msg('paymentInfo.bankId'), '');
  for (const [path, value] of Object.entries({
    lastName: 'Gómez', email: 'ana@example.com', 'address.city': 'Bogotá',
    'address.postalCode': '110231', 'identity.documentNumber': '1020304050', 'identity.documentType': 'CC',
    'paymentInfo.accountType': 'savings',
  })) await page.fill(`[name="${path}"]`, value);
  assert.equal(await page.locator('#summary').textContent(), 'Ready to send');
  assert.equal(await page.locator('#summary').getAttribute('class'), 'ok');
  console.log('e2e: opens neutral; CO individual: messages as typed and on check, ready once filled');

  // United States, individual: its rules document's fields, a routing number instead of a bank.
  await page.selectOption('#country', 'US');
  assert.equal(await page.locator('#bank-field').isHidden(), true);
  assert.equal(await page.locator('#routing-field').isVisible(), true);
  assert.deepEqual(await fieldPaths(), ['firstName', 'lastName', 'email', 'address', 'address.street', 'address.city',
    'address.state', 'address.postalCode', 'paymentInfo.accountNumber', 'paymentInfo.accountType']);
  assert.equal(await msg('ownerType'), '', 'the rules document is for US individuals');
  assert.equal(await msg('paymentInfo.routingNumber'), 'Required');
  assert.equal(await msg('address.state'), 'Required');
  await page.fill('#routingNumber', '123456789');
  assert.equal(await msg('paymentInfo.routingNumber'), 'Not a valid ABA routing number');
  await page.fill('#routingNumber', '021000021');
  assert.equal(await msg('paymentInfo.routingNumber'), '');
  await page.fill('[name="address.state"]', 'NY');
  assert.equal(await page.locator('#summary').textContent(), 'Ready to send');

  // United States, business: the business name instead of the person's names.
  await page.selectOption('#ownerType', 'business');
  assert.deepEqual(await fieldPaths(), ['businessName', 'email', 'address', 'address.street', 'address.city',
    'address.state', 'address.postalCode', 'paymentInfo.accountNumber', 'paymentInfo.accountType']);
  assert.equal(await msg('ownerType'), '');
  assert.equal(await msg('businessName'), 'Required');
  await page.fill('[name="businessName"]', 'Acme LLC');
  assert.equal(await page.locator('#summary').textContent(), 'Ready to send');
  console.log('e2e: US individual and business: their fields, a routing number, ready once filled');

  // Webhook inspector: neutral until used; signed, tampered, an unknown event.
  assert.match(await page.locator('#verdict').textContent(), /Paste a delivery/);
  assert.equal(await page.locator('#wh-kind').textContent(), 'live');
  await page.click('#wh-sign');
  assert.equal(await page.locator('#verdict').textContent(), 'Signature verified');
  assert.match(await page.locator('#wh-envelope').textContent(), /"entityId": "ord_1"/);
  await page.fill('#wh-body', (await page.inputValue('#wh-body')).replace('100.00', '900.00'));
  assert.equal(await page.locator('#verdict').textContent(), 'Rejected: SIGNATURE_MISMATCH');
  await page.click('#wh-sign');
  await page.fill('#wh-body', '{"id":"evt_2","event":"order:teleported","entity":{"id":"o","type":"order"}}');
  assert.equal(await page.locator('#wh-kind').textContent(), 'unknown');
  await page.click('#wh-sign');
  assert.equal(await page.locator('#verdict').textContent(), 'Signature verified');

  // Leave a message on screen for the screenshot.
  await page.fill('#routingNumber', '02100002');
  assert.equal(await msg('paymentInfo.routingNumber'), 'Not a valid ABA routing number');
  assert.equal(await page.locator('#summary').textContent(), '1 issue to fix');
  assert.deepEqual(errors, []);
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`e2e: ok, screenshots ${opening} (as it opens), ${screenshot}`);
} finally {
  await browser.close();
  await server.close();
}
