// Beneficiaries: validateBeneficiary, the BeneficiaryValidator class (validate, form),
// beneficiaryForm, checkAccount, normalizeBeneficiary and requiredFields, with the checks of the
// documents a form passes (the rules document, a bank list: as received or parsed).

import { refuse, str, isOptions, isThenable, convert, options } from './kinds.js';
import { textIn as text } from './json.js';

const RULES_HOW = 'pass the response of GET /v1/validation-rules/beneficiaries as received (await res.text()) or parsed (await res.json()), or null when there is none';
const BANKS_HOW = "pass { country: 'CO', response } with the response of GET /v1/beneficiaries/banks?countryCode=CO as received (await res.text()) or parsed (await res.json()), or null when there is none";

/**
 * A server document (the rules document, a bank list's response): absent (undefined or null:
 * not given), the response text (a string, which core parses once) or its parsed JSON (any
 * other JSON value: what core cannot read is an issue, RULES_UNREADABLE / BANKS_UNREADABLE).
 * Never a function or a symbol (JSON has none: it would be dropped, the document silently not
 * given) nor a Promise (a response not awaited).
 */
const documentIn = (name, how) => (v) => {
  if (typeof v === 'function' || typeof v === 'symbol' || isThenable(v)) {
    throw refuse(name, 'the response text (a string) or its parsed JSON', v, how);
  }
  return v;
};

const RULES_DOCUMENT = documentIn('rules', RULES_HOW);

/**
 * The draft to normalize: any JSON data (what is not an object comes back as it is), never
 * undefined, a function, a symbol, a Promise (a body not awaited) or bytes (a body not parsed):
 * each would come back changed or as null, with nothing said.
 */
const DRAFT = (v) => {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol' || isThenable(v) ||
      v instanceof ArrayBuffer || ArrayBuffer.isView(v)) {
    throw refuse('draft', 'the draft as data (the payload of POST /v1/beneficiaries, a plain object)', v,
      'pass the object you will send, or JSON.parse the text first');
  }
  return v;
};

const BANKS_RESPONSE = documentIn('banks.response', BANKS_HOW);

/**
 * The bank list, `{ country, response }` (absent: undefined or null), as the two values the
 * Rust side takes: `[country, response]`. `country` is absent or a string; any other key (a
 * misspelt one, or the response itself passed as `banks`) is a TypeError, never ignored.
 */
function banksIn(v) {
  if (v === undefined || v === null) return [undefined, undefined];
  if (!isOptions(v)) throw refuse('banks', 'the bank list as { country, response }', v, BANKS_HOW);
  for (const key of Object.keys(v)) {
    if (key !== 'country' && key !== 'response') {
      throw new TypeError(`xborder: \`banks.${key}\` is not a key of the bank list { country, response }: ${BANKS_HOW}`);
    }
  }
  const { country, response } = v;
  if (country !== undefined && country !== null && typeof country !== 'string') {
    throw refuse('banks.country', 'a string (the country the list was asked for)', country, BANKS_HOW);
  }
  return [country ?? undefined, BANKS_RESPONSE(response)];
}

/** An optional string (`ownerType`): absent (undefined or null) or a string. */
const maybeStr = (name, how) => (v) => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw refuse(name, 'a string', v, how);
  return v;
};

const OWNER_HOW = "pass 'individual' or 'business', or leave it out";
const FORM_OPTIONS = {
  country: str('options.country'),
  paymentType: str('options.paymentType'),
  ownerType: maybeStr('options.ownerType', OWNER_HOW),
  rules: RULES_DOCUMENT,
  banks: banksIn,
};

/**
 * The beneficiary API over the runtime `rt`. Documents and drafts cross as their JSON text
 * (json.js), read on the Rust side by core's one parser; forms and field lists come back as JSON
 * text, parsed here.
 */
function beneficiaries(rt) {
  const { raw, run, call, live, adopt, freeable } = rt;
  // A document (absent: undefined; a string, the response text, crosses as a JSON string).
  const doc = (check) => (v) => {
    const d = check(v);
    return d === undefined || d === null ? undefined : text(d);
  };
  const RULES = doc(RULES_DOCUMENT);
  const BANKS = (v) => {
    const [country, response] = banksIn(v);
    return [country, response === undefined || response === null ? undefined : text(response)];
  };
  const DRAFT_TEXT = (v) => text(v);
  const VALIDATE = [DRAFT_TEXT, RULES, BANKS];
  function validateBeneficiary(draft, rules, banks) {
    const [d, r, [country, response]] = convert(VALIDATE, [draft, rules, banks]);
    return run(raw.validateBeneficiary, undefined, [d, r, country, response]);
  }
  const { validate: validateWith, form: formWith } = raw.BeneficiaryValidator.prototype;
  const DOCUMENTS = [RULES, BANKS];
  /** A rules document and a bank list read once; each `validate(draft)` crosses the draft only. */
  class BeneficiaryValidator {
    constructor(rules, banks) {
      // The documents' texts: what a reset reads again (a text does not change).
      const [r, [country, response]] = convert(DOCUMENTS, [rules, banks]);
      adopt(this, () => new raw.BeneficiaryValidator(r, country, response));
    }
    validate(draft) {
      return run(validateWith, live(this), [text(draft)]);
    }
    form(country, paymentType, ownerType) {
      return JSON.parse(call(formWith, live(this), VALIDATOR_FORM, [country, paymentType, ownerType]));
    }
  }
  const VALIDATOR_FORM = [str('country'), str('paymentType'), maybeStr('ownerType', OWNER_HOW)];
  freeable(BeneficiaryValidator);
  const FORM = { ...FORM_OPTIONS, rules: RULES, banks: BANKS };
  /** The fields of a form: `beneficiaryForm({ country, paymentType, ownerType?, rules?, banks? })`. */
  function beneficiaryForm(opts) {
    if (opts === undefined || opts === null) {
      throw refuse('options', 'an options object ({ country, paymentType, ownerType, rules, banks })', opts);
    }
    const o = options('options', opts, FORM);
    const [country, response] = o.banks;
    return JSON.parse(run(raw.beneficiaryForm, undefined, [o.country, o.paymentType, o.ownerType, o.rules, country, response]));
  }
  const checkAccount = rt.fn('checkAccount', [str('kind'), str('value')]);
  /**
   * A new value of the draft's plain JSON data with the `paymentInfo` fields core changed (the
   * Rust side answers `{field: text}`) written in.
   */
  function normalizeBeneficiary(draft) {
    const t = text(DRAFT(draft));
    const changes = JSON.parse(run(raw.normalizeBeneficiary, undefined, [t]));
    const out = JSON.parse(t);
    for (const field of Object.keys(changes)) out.paymentInfo[field] = changes[field];
    return out;
  }
  const REQUIRED = [RULES, str('paymentType'), str('country')];
  function requiredFields(rules, paymentType, country) {
    return JSON.parse(call(raw.requiredFields, undefined, REQUIRED, [rules, paymentType, country]));
  }
  return { validateBeneficiary, BeneficiaryValidator, beneficiaryForm, checkAccount, normalizeBeneficiary, requiredFields };
}

export { beneficiaries };
