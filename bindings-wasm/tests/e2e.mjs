// End-to-end: the demo page on the packed package, in headless Chromium, served by the demo's own
// server (demo/serve.mjs, what `bash bindings-wasm/demo/serve.sh` runs) with its stand-in of the
// payments API. The beneficiary form is built from the form model (xborder-wasm/forms) for the
// rules document and bank list the stand-in serves; the test types into it character by
// character as a user does, for GB (sort code grouped as typed, the caret kept), DE (an IBAN:
// nothing red while incomplete, the check-digit message once invalid, a tick once complete), US
// (routing number), MX (CLABE: the server refuses the account, its error is shown) and IN (IFSC),
// submits, and checks what is shown and the payload the stand-in received (the electronic forms,
// from normalizeBeneficiary). The webhook inspector is neutral until used, then verifies, refuses a
// tampered body and classifies. Writes three screenshots beside <screenshot.png>: -typing (an
// incomplete IBAN), -invalid (a wrong check digit), -submitted (the payload and the server's error).
// Usage: node e2e.mjs <scratch project with node_modules/xborder-wasm> <screenshot.png>
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchChromium } from '../../tests/runners/browser/harness.mjs';
import { serveDemo } from '../demo/serve.mjs';

const [scratch, screenshot] = process.argv.slice(2);
if (!scratch || !screenshot) throw new Error('usage: node e2e.mjs <scratch project> <screenshot.png>');
const shot = (state) => screenshot.replace(/\.png$/, '') + `-${state}.png`;
const server = await serveDemo({ pkg: join(scratch, 'node_modules', 'xborder-wasm') });
let browser;
try {
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  page.setDefaultTimeout(15_000); // every wait and action is bounded
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('body[data-form="ready"][data-webhook="ready"]', { timeout: 30_000 });

  const field = (path) => page.locator(`#fields .field[data-path="${path}"]`);
  const input = (path) => page.locator(`#fields [name="${path}"]`);
  const msg = (path) => field(path).locator(':scope > .msg').textContent();
  const cls = async (path) => (await field(path).getAttribute('class')).split(/\s+/).filter((c) => c !== 'field').sort().join(' ');
  const state = (path) => field(path).getAttribute('data-state');
  const paths = () => page.locator('#fields [name]').evaluateAll((els) => els.map((e) => e.name));
  const nothingRed = async (where) => {
    assert.equal(await page.locator('#fields .bad, #result .ko').count(), 0, `${where}: nothing red`);
    assert.deepEqual((await page.locator('#fields .msg, #other-issues').allTextContents()).filter((t) => t !== ''), [], `${where}: no message`);
  };
  const choose = async (country, ownerType = 'individual') => {
    await page.selectOption('#ownerType', ownerType);
    await page.selectOption('#country', country);
    await page.waitForSelector(`#form[data-loaded="${country}:${ownerType}:bank_account"]`);
  };
  /** Types a value character by character, as a user does (the field emptied first). */
  const type = async (path, text) => {
    await input(path).fill('');
    await input(path).pressSequentially(text);
  };
  const submit = async (expectPost) => {
    const before = server.received.length;
    await page.click('#send');
    if (expectPost) await page.waitForSelector('#sent');
    else await page.waitForSelector('#result .ko');
    assert.equal(server.received.length, before + (expectPost ? 1 : 0), expectPost ? 'one POST' : 'no POST for an invalid draft');
    return server.received.at(-1);
  };
  const person = async () => {
    for (const [path, value] of Object.entries({
      firstName: 'Ana', lastName: 'Gómez', email: 'ana@example.com',
      'address.street': '1 Main Street', 'address.city': 'Springfield', 'address.postalCode': '12345',
    })) if (await input(path).inputValue() !== value) await type(path, value);
  };

  // Opens neutral on the US individual form, every field from the form model.
  assert.equal(await page.locator('#form').getAttribute('data-loaded'), 'US:individual:bank_account');
  await nothingRed('on opening');
  assert.deepEqual(await paths(), ['firstName', 'lastName', 'email', 'address.street', 'address.city', 'address.state',
    'address.postalCode', 'paymentInfo.routingNumber', 'paymentInfo.accountNumber', 'paymentInfo.accountType']);
  assert.equal(await page.locator('#fields fieldset[data-path="address"] > legend').textContent(), 'Residential address');
  assert.equal(await page.locator('#fields fieldset[data-path="paymentInfo"] [name="paymentInfo.routingNumber"]').count(), 1, 'inside its group');
  assert.equal(await input('paymentInfo.routingNumber').getAttribute('maxlength'), '14', '9 digits and room for separators');

  // Submitting an empty form: core's messages at each field (a group's at the group), no POST.
  await submit(false);
  assert.equal(await msg('firstName'), 'this field is required: fill it in');
  assert.equal(await msg('address'), 'this field is required: fill it in');
  assert.equal(await msg('paymentInfo'), 'this field is required: fill it in', 'an absent group once, at the group');
  assert.equal(await msg('paymentInfo.routingNumber'), '');
  assert.match(await page.locator('#result .ko').textContent(), /issues to fix before sending/);

  // US: the routing number checked as typed; a wrong check digit red, the right one ticked.
  await person();
  await type('address.state', 'NY');
  assert.equal(await msg('address'), '', 'the group filled');
  await type('paymentInfo.routingNumber', '12345678');
  assert.equal(await state('paymentInfo.routingNumber'), 'incomplete');
  assert.equal(await cls('paymentInfo.routingNumber'), '', 'incomplete: nothing red, even after a submit');
  assert.equal(await msg('paymentInfo.routingNumber'), '');
  await input('paymentInfo.routingNumber').press('9');
  assert.equal(await state('paymentInfo.routingNumber'), 'invalid');
  assert.equal(await cls('paymentInfo.routingNumber'), 'bad');
  assert.match(await msg('paymentInfo.routingNumber'), /routing number's check digits do not match/);
  await type('paymentInfo.routingNumber', '021000021');
  assert.equal(await cls('paymentInfo.routingNumber'), 'done');
  assert.equal(await field('paymentInfo.routingNumber').locator('.tick').isVisible(), true);
  await type('paymentInfo.accountNumber', '000123456789');
  await type('paymentInfo.accountType', 'checking');
  const us = await submit(true);
  assert.deepEqual(us, {
    ownerType: 'individual', country: 'US', paymentType: 'bank_account', firstName: 'Ana', lastName: 'Gómez',
    email: 'ana@example.com', address: { street: '1 Main Street', city: 'Springfield', state: 'NY', postalCode: '12345' },
    paymentInfo: { routingNumber: '021000021', accountNumber: '000123456789', accountType: 'checking' },
  });
  assert.match(await page.locator('#result .ok').textContent(), /^Created: ben_\d+ \(201\)$/);
  assert.deepEqual(JSON.parse(await page.locator('#sent').textContent()), us, 'the page shows what it sent');
  assert.equal(JSON.parse(await page.locator('#answer').textContent()).data.paymentInfo.routingNumber, '021000021');
  console.log('e2e: US: fields from the model, messages on submit, routing number checked as typed, 201');

  // GB: the sort code grouped as typed, the caret kept where the user types.
  await choose('GB');
  assert.deepEqual(await paths(), ['firstName', 'lastName', 'email', 'address.street', 'address.city', 'address.postalCode',
    'paymentInfo.bankId', 'paymentInfo.sortCode', 'paymentInfo.accountNumber']);
  await nothingRed('GB, before a submit');
  assert.deepEqual(await page.locator('#fields select[name="paymentInfo.bankId"] option').allTextContents(),
    ['Choose a bank', 'Barclays', 'HSBC UK', 'Lloyds Bank', 'NatWest'], 'the bank list as a select');
  assert.equal(await input('address.postalCode').inputValue(), '12345', 'what was typed is kept');
  const sort = input('paymentInfo.sortCode');
  await sort.pressSequentially('123');
  assert.equal(await sort.inputValue(), '12-3');
  assert.equal(await cls('paymentInfo.sortCode'), '');
  await sort.pressSequentially('4');
  await sort.press('ArrowLeft');
  await sort.press('ArrowLeft');
  const caret = () => sort.evaluate((el) => el.selectionStart);
  await sort.press('Backspace');
  assert.equal(await sort.inputValue(), '13-4', 'Backspace after a separator deletes the digit before it');
  assert.equal(await caret(), 1);
  await sort.press('Backspace');
  assert.equal(await sort.inputValue(), '34');
  assert.equal(await caret(), 0);
  await sort.pressSequentially('12');
  assert.equal(await sort.inputValue(), '12-34');
  assert.equal(await caret(), 2, 'the caret after the digits typed, not at the end');
  await sort.press('End');
  await sort.pressSequentially('56');
  assert.equal(await sort.inputValue(), '12-34-56');
  assert.equal(await state('paymentInfo.sortCode'), 'complete');
  assert.equal(await cls('paymentInfo.sortCode'), 'done');
  await type('paymentInfo.accountNumber', '31926819');
  await page.selectOption('#fields [name="paymentInfo.bankId"]', 'bank_gb_001');
  const gb = await submit(true);
  assert.deepEqual(gb.paymentInfo, { bankId: 'bank_gb_001', sortCode: '123456', accountNumber: '31926819' }, 'the sort code in its electronic form');
  assert.equal(gb.address.state, undefined, 'a field the GB form does not have is not sent');
  console.log('e2e: GB: sort code 12-34-56 as typed (caret kept), the bank select, sent as 123456');

  // DE: an IBAN typed in lower case; incomplete (nothing red), a wrong check digit (red, the
  // message), the right one (complete).
  await choose('DE');
  assert.equal(await input('paymentInfo.accountNumber').inputValue(), '', 'a GB account number is not an IBAN: not kept');
  assert.equal(await input('paymentInfo.bankId').inputValue(), '', 'a GB bank is not kept');
  assert.equal(await input('paymentInfo.bankId').locator('option:checked').textContent(), 'Choose a bank');
  const iban = input('paymentInfo.accountNumber');
  for (const [typed, shown] of [['de89', 'DE89'], ['3', 'DE89 3'], ['7040044', 'DE89 3704 0044'], ['05320130', 'DE89 3704 0044 0532 0130']]) {
    await iban.pressSequentially(typed);
    assert.equal(await iban.inputValue(), shown);
    assert.equal(await state('paymentInfo.accountNumber'), 'incomplete');
    assert.equal(await cls('paymentInfo.accountNumber'), '', `${shown}: nothing red while incomplete`);
    assert.equal(await msg('paymentInfo.accountNumber'), '');
  }
  await page.screenshot({ path: shot('typing'), fullPage: true });
  await type('paymentInfo.accountNumber', 'DE88370400440532013000');
  assert.equal(await iban.inputValue(), 'DE88 3704 0044 0532 0130 00');
  assert.equal(await state('paymentInfo.accountNumber'), 'invalid');
  assert.equal(await cls('paymentInfo.accountNumber'), 'bad');
  assert.equal(await msg('paymentInfo.accountNumber'), "the IBAN's check digits do not match: look for a mistyped digit or two swapped ones");
  await page.screenshot({ path: shot('invalid'), fullPage: true });
  await type('paymentInfo.accountNumber', 'DE89370400440532013000');
  assert.equal(await iban.inputValue(), 'DE89 3704 0044 0532 0130 00');
  assert.equal(await state('paymentInfo.accountNumber'), 'complete');
  assert.equal(await cls('paymentInfo.accountNumber'), 'done');
  assert.equal(await msg('paymentInfo.accountNumber'), '');
  await page.selectOption('#fields [name="paymentInfo.bankId"]', 'bank_de_001');
  await type('paymentInfo.bic', 'cobadeff');
  assert.equal(await cls('paymentInfo.bic'), 'done');
  const de = await submit(true);
  assert.deepEqual(de.paymentInfo, { bankId: 'bank_de_001', accountNumber: 'DE89370400440532013000', bic: 'COBADEFF' });
  console.log('e2e: DE: IBAN incomplete (nothing red), wrong check digits (red, message), complete; sent as DE89370400440532013000');

  // IN: the IFSC; a wrong layout is red at once, deleting it is not.
  await choose('IN');
  const ifsc = input('paymentInfo.ifscCode');
  await ifsc.pressSequentially('sbin1');
  assert.equal(await cls('paymentInfo.ifscCode'), 'bad');
  assert.match(await msg('paymentInfo.ifscCode'), /an IFSC is 4 letters \(the bank\), the digit 0/);
  await ifsc.press('Backspace');
  assert.equal(await ifsc.inputValue(), 'SBIN');
  assert.equal(await cls('paymentInfo.ifscCode'), '');
  await ifsc.pressSequentially('0000001');
  assert.equal(await cls('paymentInfo.ifscCode'), 'done');
  await type('paymentInfo.accountNumber', '00000012345678');
  await page.selectOption('#fields [name="paymentInfo.bankId"]', 'bank_in_001');
  const ind = await submit(true);
  assert.deepEqual(ind.paymentInfo, { bankId: 'bank_in_001', ifscCode: 'SBIN0000001', accountNumber: '00000012345678' });
  console.log('e2e: IN: IFSC red on a wrong layout, ticked once complete; sent as SBIN0000001');

  // MX, business: the CLABE; the server refuses the account and the page shows its error.
  await choose('MX', 'business');
  assert.deepEqual((await paths()).slice(0, 2), ['businessName', 'email']);
  await type('businessName', 'Acme SA de CV');
  const clabe = input('paymentInfo.accountNumber');
  await clabe.pressSequentially('00201007777777777');
  assert.equal(await cls('paymentInfo.accountNumber'), '');
  await clabe.pressSequentially('1');
  assert.equal(await cls('paymentInfo.accountNumber'), 'done');
  await page.selectOption('#fields [name="paymentInfo.bankId"]', 'bank_mx_001');
  const mx = await submit(true);
  assert.equal(mx.paymentInfo.accountNumber, '002010077777777771');
  await page.waitForSelector('#result .ko');
  assert.equal(await page.locator('#result .ko').evaluate((n) => n.firstChild.textContent),
    "The server refused it (400 VALIDATION_FAILED): The beneficiary's bank rejected the account: the CLABE belongs to a closed account");
  assert.deepEqual(await page.locator('#server-details li').allTextContents(), ['paymentInfo.accountNumber: account closed at the receiving bank'], "the server's details shown");
  assert.equal(JSON.parse(await page.locator('#answer').textContent()).error.CODE, 'VALIDATION_FAILED');
  await page.screenshot({ path: shot('submitted'), fullPage: true });
  console.log("e2e: MX business: CLABE complete, sent, the server's 400 (the provider's error body) shown with its details");

  // CO: the rules document's groups and its second payment type, rendered from the model.
  await choose('CO');
  assert.deepEqual(await page.locator('#paymentType option').allTextContents(), ['bank_account', 'mobile_money']);
  assert.equal(await page.locator('#fields fieldset[data-path="identity"] > legend').textContent(), 'Identity document');
  await page.selectOption('#paymentType', 'mobile_money');
  await page.waitForSelector('#form[data-loaded="CO:individual:mobile_money"]');
  assert.deepEqual((await paths()).filter((p) => p.startsWith('paymentInfo.')), ['paymentInfo.phoneNumber', 'paymentInfo.provider'], 'no bank for a wallet');
  await nothingRed('CO, mobile money');
  console.log('e2e: CO: groups from the rules document, the payment types it offers');

  // Webhook inspector: neutral until used; signed, tampered, an unknown event.
  assert.match(await page.locator('#verdict').textContent(), /Paste a delivery/);
  assert.equal(await page.locator('#wh-kind').textContent(), 'live');
  await page.click('#wh-sign');
  assert.equal(await page.locator('#verdict').textContent(), 'Signature verified');
  assert.match(await page.locator('#wh-envelope').textContent(), /"entityId": "ord_1"/);
  await page.fill('#wh-body', (await page.inputValue('#wh-body')).replace('100.00', '900.00'));
  assert.equal(await page.locator('#verdict').textContent(), 'Rejected: SIGNATURE_MISMATCH');
  await page.fill('#wh-body', '{"id":"evt_2","event":"order:teleported","entity":{"id":"o","type":"order"}}');
  assert.equal(await page.locator('#wh-kind').textContent(), 'unknown');
  await page.click('#wh-sign');
  assert.equal(await page.locator('#verdict').textContent(), 'Signature verified');
  console.log('e2e: webhook inspector: neutral, verified, tampered refused, unknown event classified');

  // The only console error: Chromium's log of the stand-in's 400 answer.
  assert.deepEqual(errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e)), []);
  assert.equal(errors.length, 1, `one 400 logged: ${errors}`);
  console.log(`e2e: ok, screenshots ${shot('typing')} ${shot('invalid')} ${shot('submitted')}`);
} finally {
  await browser?.close();
  await server.close();
}
