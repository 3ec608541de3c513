// The demo: every decision comes from xborder-wasm; this file only renders.
import { init, validateBeneficiary, requiredFields, sign, verify, decodeEnvelope, XborderError } from 'xborder-wasm';

const MESSAGES = {
  REQUIRED: 'Required',
  INVALID_VALUE: 'Invalid value',
  INVALID_ROUTING_NUMBER: 'Not a valid ABA routing number',
  UNKNOWN_BANK: 'Not a bank of this country',
  RULES_MISMATCH: 'The rules document is for another country or owner type',
  BANKS_MISMATCH: 'The bank list is for another country',
  UNSUPPORTED_PAYMENT_TYPE: 'Payment type not supported here',
};

const load = async (name) => (await fetch(new URL(`./fixtures/${name}`, import.meta.url))).json();
const $ = (id) => document.getElementById(id);

await init();
const [rulesCO, rulesUSIndividual, rulesUSBusiness, banksCO] = await Promise.all([
  load('rules-co-individual.json'), load('rules-us-individual.json'), load('rules-us-business.json'), load('banks-co.json'),
]);
// The server's rules documents by country and owner type (GET /v1/validation-rules/beneficiaries).
const RULES = { 'CO:individual': rulesCO, 'US:individual': rulesUSIndividual, 'US:business': rulesUSBusiness };
const rules = () => RULES[`${$('country').value}:${$('ownerType').value}`] ?? null;
const BANKS = { CO: banksCO };

for (const bank of banksCO.data) $('bankId').add(new Option(bank.name, bank.id));

const values = {}; // dotted path -> value typed so far (kept when the field set changes)

function input(path, description) {
  const div = document.createElement('div');
  div.className = 'field';
  div.dataset.path = path;
  const id = `f-${path.replaceAll('.', '-')}`;
  div.innerHTML = `<label for="${id}"></label><input id="${id}"><div class="msg"></div>`;
  div.querySelector('label').textContent = description;
  const el = div.querySelector('input');
  el.name = path;
  el.value = values[path] ?? '';
  return div;
}

function group(path, description) {
  const set = document.createElement('fieldset');
  set.className = 'field group';
  set.dataset.path = path;
  set.innerHTML = '<legend></legend><div class="msg"></div>';
  set.querySelector('legend').textContent = description;
  return set;
}

/** The rules document's fields for this country and payment type; a field with sub-fields is a group. */
function renderRulesFields() {
  const country = $('country').value;
  const fixed = new Set(['ownerType', 'country', 'paymentType', 'paymentInfo', 'paymentInfo.bankId', 'paymentInfo.routingNumber']);
  const fields = requiredFields(rules(), $('paymentType').value, country)
    .filter((f) => f.source === 'rules' && !fixed.has(f.path));
  const isParent = (f) => fields.some((g) => g.path.startsWith(`${f.path}.`));
  const boxes = { '': $('rules-fields'), paymentInfo: $('payment-fields') };
  Object.values(boxes).forEach((b) => b.replaceChildren());
  for (const f of fields) { // parents come before their children
    const parent = f.path.includes('.') ? f.path.slice(0, f.path.lastIndexOf('.')) : '';
    const box = boxes[parent] ?? boxes[''];
    const node = isParent(f) ? group(f.path, f.description) : input(f.path, f.description);
    box.append(node);
    if (isParent(f)) boxes[f.path] = node;
  }
}

function draft() {
  const out = {};
  for (const el of $('form').querySelectorAll('input[name], select[name]')) {
    if (el.closest('[hidden]')) continue;
    values[el.name] = el.value;
    if (el.value === '') continue; // absent, as an empty form field is
    const keys = el.name.split('.');
    let node = out;
    for (const k of keys.slice(0, -1)) node = node[k] ??= {};
    node[keys.at(-1)] = el.value;
  }
  return out;
}

// The page opens neutral: a field's messages show once the user has typed in it (a group's, once
// in one of its fields), every message once they ask for a check.
const touched = new Set();
let checkAll = false;
const showsAt = (path) => checkAll || touched.has(path) || [...touched].some((t) => t.startsWith(`${path}.`));

function validate() {
  const country = $('country').value;
  $('bank-field').hidden = country === 'US';
  $('routing-field').hidden = country !== 'US';
  const banks = BANKS[country] ? { country, response: BANKS[country] } : null;
  const { valid, issues } = validateBeneficiary(draft(), rules(), banks);
  const placed = new Set();
  for (const field of document.querySelectorAll('.field[data-path]')) {
    const mine = issues.filter((i) => i.path === field.dataset.path);
    mine.forEach((i) => placed.add(i));
    const shown = showsAt(field.dataset.path) ? mine : [];
    field.classList.toggle('bad', shown.length > 0);
    field.querySelector(':scope > .msg').textContent = shown.map((i) => MESSAGES[i.code] ?? i.code).join('; ');
  }
  const others = issues.filter((i) => !placed.has(i) && showsAt(i.path));
  $('other-issues').textContent = others.map((i) => `${i.path || 'draft'}: ${MESSAGES[i.code] ?? i.code}`).join('; ');
  if (touched.size === 0 && !checkAll) {
    $('summary').className = 'neutral';
    $('summary').textContent = 'Fill in the form: each field is checked as you type';
    return;
  }
  $('summary').className = valid ? 'ok' : 'ko';
  $('summary').textContent = valid ? 'Ready to send' : `${issues.length} issue${issues.length === 1 ? '' : 's'} to fix`;
}

$('form').addEventListener('input', (e) => {
  if (e.target.name) touched.add(e.target.name);
  validate();
});
$('form').addEventListener('change', (e) => {
  if (e.target.name) touched.add(e.target.name);
  if (['country', 'ownerType', 'paymentType'].includes(e.target.id)) { draft(); renderRulesFields(); }
  validate();
});
$('form').addEventListener('submit', (e) => {
  e.preventDefault();
  checkAll = true;
  validate();
});
renderRulesFields();
validate();

// Webhook inspector: neutral until the user types in it or signs the sample.
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
document.body.dataset.ready = 'true';
