// End-to-end: the demo page on the packed package, in headless Chromium. Fills the beneficiary
// form, checks the messages at their fields, swaps to US (routing number instead of a bank),
// inspects a webhook, and saves a screenshot.
// Usage: node e2e.mjs <scratch project with node_modules/xborder-wasm> <screenshot.png>
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, startServer } from '../../tests/runners/browser/harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [scratch, screenshot] = process.argv.slice(2);
const server = await startServer({
  '/': join(here, '../demo'),
  '/node_modules/': join(scratch, 'node_modules'),
});
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.origin}/index.html`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  const msg = (path) => page.locator(`.field[data-path="${path}"] > .msg`).textContent();

  // Colombia, individual: the rules document's fields are asked for, all required at first.
  assert.equal(await msg('firstName'), 'Required');
  // An absent group is reported once, at the group, not at each of its fields.
  assert.equal(await msg('address'), 'Required');
  assert.equal(await msg('address.city'), '');
  assert.equal(await msg('paymentInfo'), 'Required');
  await page.fill('[name="address.street"]', 'Cra 7 # 71-21');
  assert.equal(await msg('address'), '');
  assert.equal(await msg('address.city'), 'Required');
  assert.match(await page.locator('#summary').textContent(), /issues to fix/);

  await page.fill('[name="firstName"]', 'Ana');
  assert.equal(await msg('firstName'), '');
  await page.fill('[name="firstName"]', '   ');
  assert.equal(await msg('firstName'), 'Required', 'blank after trimming is required');
  await page.fill('[name="firstName"]', 'Ana');
  await page.fill('[name="paymentInfo.accountNumber"]', '0012345678');
  assert.equal(await msg('paymentInfo'), '');
  assert.equal(await msg('paymentInfo.bankId'), 'Required');
  await page.selectOption('#bankId', 'bank_co_001');
  assert.equal(await msg('paymentInfo.bankId'), '');
  for (const [path, value] of Object.entries({
    lastName: 'Gómez', email: 'ana@example.com', 'address.city': 'Bogotá',
    'address.postalCode': '110231', 'identity.documentNumber': '1020304050', 'identity.documentType': 'CC',
  })) await page.fill(`[name="${path}"]`, value);
  const remaining = await page.locator('.field.bad:not(.group)').evaluateAll((els) => els.map((e) => e.dataset.path));
  for (const path of remaining) await page.fill(`[name="${path}"]`, 'x');
  assert.equal(await page.locator('#summary').textContent(), 'Ready to send');
  console.log(`e2e: CO form valid after filling ${remaining.length} payment fields (${remaining.join(', ')})`);

  // United States: the bank picker gives way to a routing-number field.
  await page.selectOption('#country', 'US');
  assert.equal(await page.locator('#bank-field').isHidden(), true);
  assert.equal(await page.locator('#routing-field').isVisible(), true);
  assert.equal(await msg('paymentInfo.routingNumber'), 'Required');
  assert.equal(await msg('ownerType'), 'The rules document is for another country or owner type');
  await page.selectOption('#ownerType', 'business');
  assert.equal(await msg('ownerType'), '');
  assert.equal(await msg('businessName'), 'Required');
  await page.fill('#routingNumber', '123456789');
  assert.equal(await msg('paymentInfo.routingNumber'), 'Not a valid ABA routing number');
  await page.fill('#routingNumber', '021000021');
  assert.equal(await msg('paymentInfo.routingNumber'), '');
  await page.fill('[name="businessName"]', 'Acme LLC');
  await page.fill('[name="address.state"]', 'NY');

  // Webhook inspector: unsigned, signed, tampered.
  assert.equal(await page.locator('#verdict').textContent(), 'Rejected: MISSING_SIGNATURE');
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

  // Leave a message on screen for the screenshot.
  await page.fill('#routingNumber', '02100002');
  assert.equal(await msg('paymentInfo.routingNumber'), 'Not a valid ABA routing number');
  assert.equal(await page.locator('#summary').textContent(), '1 issue to fix');
  assert.deepEqual(errors, []);
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`e2e: ok, screenshot ${screenshot}`);
} finally {
  await browser.close();
  await server.close();
}
