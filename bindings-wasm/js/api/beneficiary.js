// Beneficiaries: validateBeneficiary, the BeneficiaryValidator class and requiredFields, with the
// checks of the documents a form passes (the rules document, a bank list: as received or parsed).

import { refuse, str, isOptions, isThenable, convert } from './kinds.js';

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

/** The beneficiary API over the runtime `rt`; `plainJson` is the snippet's (json.js). */
function beneficiaries(rt, plainJson) {
  const { raw, run, live, adopt, freeable } = rt;
  const VALIDATE = [null, RULES_DOCUMENT, banksIn];
  function validateBeneficiary(draft, rules, banks) {
    const [d, r, [country, response]] = convert(VALIDATE, [draft, rules, banks]);
    return run(raw.validateBeneficiary, undefined, [d, r, country, response]);
  }
  const { validate: validateWith } = raw.BeneficiaryValidator.prototype;
  const DOCUMENTS = [RULES_DOCUMENT, banksIn];
  // A document as it is now, for a reset to read again: a text as it is (strings do not change),
  // anything else as its JSON data.
  const keep = (doc) => (typeof doc === 'string' ? doc : plainJson(doc ?? null));
  /** A rules document and a bank list read once; each `validate(draft)` crosses the draft only. */
  class BeneficiaryValidator {
    constructor(rules, banks) {
      const [r, [country, response]] = convert(DOCUMENTS, [rules, banks]);
      let saved; // the documents as they were when read: what a reset reads again
      adopt(this, (first) => (first ? new raw.BeneficiaryValidator(r, country, response) : new raw.BeneficiaryValidator(...saved)));
      saved = [keep(r), country, keep(response)];
    }
    validate(draft) {
      return run(validateWith, live(this), [draft]);
    }
  }
  freeable(BeneficiaryValidator);
  const requiredFields = rt.fn('requiredFields', [RULES_DOCUMENT, str('paymentType'), str('country')]);
  return { validateBeneficiary, BeneficiaryValidator, requiredFields };
}

export { beneficiaries };
