// The beneficiary form: a page a team can copy. Every rule comes from xborder-wasm/forms (core
// compiled to WebAssembly); this file fetches the API's documents, renders the form model and
// shows core's answers. Nothing here decides what is valid.
//
// 1. GET the rules document and the bank list for the chosen country and owner type.
// 2. `validator.form(country, paymentType, ownerType)` gives the fields, in order: groups as
//    fieldsets, `choice` as a <select> of the bank list, `text` as inputs.
// 3. On every input of a field with `account` (IBAN, sort code, CLABE, ...): `checkAccount` says
//    empty / incomplete / complete / invalid and gives the grouped display form, written back.
//    Nothing is red while a value is incomplete.
// 4. On submit: `validator.validate(draft)`; when valid, POST `normalizeBeneficiary(draft)` (the
//    account details in their electronic form) and show what was sent and what the server said.
import { init, BeneficiaryValidator, checkAccount, normalizeBeneficiary } from 'xborder-wasm/forms';

const API = new URL('./v1/', document.baseURI); // the stand-in of demo/serve.mjs; your API here
const $ = (id) => document.getElementById(id);

/** GET a JSON document; `null` on 404 (no rules document for this country and owner type). */
async function getJson(path) {
  const res = await fetch(new URL(path, API));
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return res.json();
}

let validator = null; // over the current rules document and bank list
let fields = []; // validator.form(...): the fields rendered
const values = new Map(); // path -> value typed so far (kept when the form is rendered again)
const kinds = new Map(); // path -> its account kind when it was typed (an IBAN is not kept as a CLABE)
const typed = new Set(); // paths typed in since the last submit
let submitted = false; // after a submit, every issue shows

const country = () => $('country').value;
const ownerType = () => $('ownerType').value;
const paymentType = () => $('paymentType').value;

/** Fetches the documents for the chosen country and owner type, then renders the form. */
let loads = 0; // the last load wins when the choices change faster than the API answers
async function loadDocuments() {
  const mine = ++loads;
  delete $('form').dataset.loaded;
  const [rules, banks] = await Promise.all([
    getJson(`validation-rules/beneficiaries?country=${country()}&ownerType=${ownerType()}`),
    getJson(`beneficiaries/banks?countryCode=${country()}`),
  ]);
  if (mine !== loads) return;
  validator?.free();
  validator = new BeneficiaryValidator(rules, banks && { country: country(), response: banks });
  // The payment types the rules document offers (bank_account when there is none).
  const types = rules?.data?.rules?.paymentTypes?.map((t) => t.type) ?? ['bank_account'];
  const before = paymentType();
  $('paymentType').replaceChildren(...types.map((t) => new Option(t, t)));
  if (types.includes(before)) $('paymentType').value = before;
  $('rules-note').textContent = rules ? '' : `No rules document for ${ownerType()} beneficiaries in ${country()}: the API's fixed fields and the country's account fields only.`;
  render();
}

/** Renders every field of the form model. */
function render() {
  fields = validator.form(country(), paymentType(), ownerType());
  for (const f of fields) {
    if (kinds.has(f.path) && kinds.get(f.path) !== f.account) values.delete(f.path);
    kinds.set(f.path, f.account);
  }
  const boxes = new Map([['', $('fields')]]);
  $('fields').replaceChildren();
  for (const f of fields) {
    const parent = f.path.includes('.') ? f.path.slice(0, f.path.lastIndexOf('.')) : '';
    const node = f.input === 'group' ? group(f) : field(f);
    (boxes.get(parent) ?? boxes.get('')).append(node);
    if (f.input === 'group') boxes.set(f.path, node);
  }
  submitted = false;
  typed.clear();
  $('result').replaceChildren();
  for (const f of fields) if (f.account && values.get(f.path)) showAccount(f, control(f.path));
  showIssues();
  $('form').dataset.loaded = `${country()}:${ownerType()}:${paymentType()}`; // for tests/e2e.mjs
}

function group(f) {
  const set = document.createElement('fieldset');
  set.className = 'field group';
  set.dataset.path = f.path;
  set.innerHTML = '<legend></legend><div class="msg"></div>';
  set.querySelector('legend').textContent = f.label;
  return set;
}

function field(f) {
  const div = document.createElement('div');
  div.className = 'field';
  div.dataset.path = f.path;
  const id = `f-${f.path.replaceAll('.', '-')}`;
  div.innerHTML = `<label for="${id}"></label><div class="control"><span class="tick" aria-hidden="true">✓</span></div><div class="msg"></div>`;
  div.querySelector('label').textContent = f.required ? f.label : `${f.label} (optional)`;
  let el;
  if (f.input === 'choice') {
    el = document.createElement('select');
    el.add(new Option('Choose a bank', ''));
    for (const o of f.options) el.add(new Option(o.label, o.value));
  } else {
    el = document.createElement('input');
    el.autocomplete = 'off';
    el.spellcheck = false;
    // Room for the grouped display form (a separator at most every two characters).
    if (f.length) el.maxLength = f.length.max + Math.ceil(f.length.max / 2);
    if (f.account) el.dataset.account = f.account;
  }
  el.id = id;
  el.name = f.path;
  el.value = values.get(f.path) ?? '';
  if (el.selectedIndex < 0) el.selectedIndex = 0; // a bank of another country's list: none chosen
  div.querySelector('.control').prepend(el);
  return div;
}

const control = (path) => $('fields').querySelector(`[name="${CSS.escape(path)}"]`);
const box = (path) => $('fields').querySelector(`.field[data-path="${CSS.escape(path)}"]`);

/** The draft: the choices on top, every non-empty input at its dotted path. */
function draft() {
  const out = { ownerType: ownerType(), country: country(), paymentType: paymentType() };
  for (const el of $('fields').querySelectorAll('input[name], select[name]')) {
    values.set(el.name, el.value);
    if (el.value.trim() === '') continue; // absent, as an empty form field is
    const keys = el.name.split('.');
    let node = out;
    for (const k of keys.slice(0, -1)) node = node[k] ??= {};
    node[keys.at(-1)] = el.value;
  }
  return out;
}

/** checkAccount on a field as it is typed: the display form written back, the state shown. */
function showAccount(f, el) {
  const check = checkAccount(f.account, el.value);
  if (el.value !== check.display) {
    // Keep the caret after the same count of characters that are not separators.
    const caret = el.selectionStart ?? el.value.length;
    const atEnd = caret === el.value.length;
    const kept = el.value.slice(0, caret).replace(/[\s-]/g, '').length;
    el.value = check.display;
    let pos = 0;
    for (let n = 0; pos < el.value.length && n < kept; pos++) if (!/[\s-]/.test(el.value[pos])) n++;
    if (document.activeElement === el) el.setSelectionRange(atEnd ? el.value.length : pos, atEnd ? el.value.length : pos);
  }
  const node = box(f.path);
  node.dataset.state = check.state;
  return check;
}

/** Places each issue at its field (a group's at the group), the others below the form. */
function showIssues() {
  const issues = validator.validate(draft()).issues;
  const placed = new Set();
  for (const node of $('fields').querySelectorAll('.field[data-path]')) {
    const path = node.dataset.path;
    const f = fields.find((x) => x.path === path);
    let messages = [];
    const mine = issues.filter((i) => i.path === path);
    mine.forEach((i) => placed.add(i));
    if (f.account && node.dataset.state && node.dataset.state !== 'empty' && (typed.has(path) || !submitted)) {
      // As typed: checkAccount's answer only (nothing while incomplete).
      if (node.dataset.state === 'invalid') messages = [checkAccount(f.account, control(path).value).message];
    } else if (submitted) {
      messages = mine.map((i) => i.message);
    }
    node.classList.toggle('bad', messages.length > 0);
    node.classList.toggle('done', messages.length === 0 && node.dataset.state === 'complete');
    node.querySelector(':scope > .msg').textContent = messages.join('; ');
  }
  const others = submitted ? issues.filter((i) => !placed.has(i)) : [];
  $('other-issues').textContent = others.map((i) => `${i.path || 'draft'}: ${i.message}`).join('; ');
  return issues;
}

async function submit() {
  submitted = true;
  typed.clear();
  const issues = showIssues();
  const summary = document.createElement('div');
  if (issues.length > 0) {
    summary.className = 'ko';
    summary.textContent = `${issues.length} issue${issues.length === 1 ? '' : 's'} to fix before sending`;
    $('result').replaceChildren(summary);
    return;
  }
  const payload = normalizeBeneficiary(draft());
  $('send').disabled = true;
  try {
    const res = await fetch(new URL('beneficiaries', API), {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload),
    });
    const answer = await res.json().catch(() => null);
    summary.className = res.ok ? 'ok' : 'ko';
    // The provider's error body: { error: { CODE, MESSAGE, DETAILS? }, requestId }.
    const error = res.ok ? null : answer?.error;
    summary.textContent = res.ok
      ? `Created: ${answer?.data?.id ?? ''} (${res.status})`
      : `The server refused it (${res.status} ${error?.CODE ?? ''}): ${error?.MESSAGE ?? ''}`;
    const details = document.createElement('ul');
    details.id = 'server-details';
    for (const d of Array.isArray(error?.DETAILS) ? error.DETAILS : []) {
      if (typeof d !== 'string') continue;
      const li = document.createElement('li');
      li.textContent = d;
      details.append(li);
    }
    summary.append(details);
    $('result').replaceChildren(summary, pre('sent', 'POST /v1/beneficiaries', payload), pre('answer', `answer ${res.status}`, answer));
  } catch (e) {
    summary.className = 'ko';
    summary.textContent = `Not sent: ${e.message}`;
    $('result').replaceChildren(summary);
  } finally {
    $('send').disabled = false;
  }
}

function pre(id, title, value) {
  const div = document.createElement('div');
  div.innerHTML = '<strong></strong><pre></pre>';
  div.querySelector('strong').textContent = title;
  div.querySelector('pre').id = id;
  div.querySelector('pre').textContent = JSON.stringify(value, null, 2);
  return div;
}

$('form').addEventListener('input', (e) => {
  const el = e.target;
  if (!el.name) return;
  typed.add(el.name);
  const f = fields.find((x) => x.path === el.name);
  if (f?.account) showAccount(f, el);
  showIssues();
});
// Backspace (Delete) next to a separator of the display form deletes the character beyond it,
// not the separator (which the display form would only put back).
$('form').addEventListener('beforeinput', (e) => {
  const el = e.target;
  if (!el.dataset?.account || el.selectionStart !== el.selectionEnd) return;
  const v = el.value;
  const s = el.selectionStart;
  const sep = (c) => c !== undefined && /[\s-]/.test(c);
  let i = s;
  if (e.inputType === 'deleteContentBackward' && sep(v[s - 1])) {
    while (i > 0 && sep(v[i - 1])) i--;
    if (i === 0) return;
    e.preventDefault();
    el.value = v.slice(0, i - 1) + v.slice(s);
    el.setSelectionRange(i - 1, i - 1);
  } else if (e.inputType === 'deleteContentForward' && sep(v[s])) {
    while (i < v.length && sep(v[i])) i++;
    if (i === v.length) return;
    e.preventDefault();
    el.value = v.slice(0, s) + v.slice(i + 1);
    el.setSelectionRange(s, s);
  } else {
    return;
  }
  el.dispatchEvent(new Event('input', { bubbles: true }));
});
$('form').addEventListener('change', (e) => {
  if (e.target.id === 'country' || e.target.id === 'ownerType') loadDocuments().catch(fail);
  else if (e.target.id === 'paymentType') render();
});
$('form').addEventListener('submit', (e) => {
  e.preventDefault();
  submit();
});

function fail(e) {
  $('other-issues').textContent = `Could not load the form: ${e.message}`;
}

await init();
await loadDocuments();
document.body.dataset.form = 'ready';
