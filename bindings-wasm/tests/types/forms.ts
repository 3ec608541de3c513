// The form model (issue 31) as a TypeScript user meets it: beneficiaryForm's fields, checkAccount's
// answer narrowed on `state`, normalizeBeneficiary keeping the draft's type, reason and params on
// issues, the string-literal unions (AccountKind, AccountState, Reason, FormSource, FormInput).
// Also through `xborder-wasm/forms`, whose types are the package's.
import {
  beneficiaryForm, checkAccount, normalizeBeneficiary, validateBeneficiary, BeneficiaryValidator, XborderError,
  type AccountKind, type AccountState, type AccountCheck, type AccountParams, type Reason, type FormField,
  type FormSource, type FormInput, type FormOption, type BeneficiaryFormOptions, type FormErrorCode, type ErrorCode,
  type BeneficiaryDraft,
} from 'xborder-wasm';
import * as forms from 'xborder-wasm/forms';
import type { Equals } from './equals.js';

const options: BeneficiaryFormOptions = { country: 'DE', paymentType: 'bank_account', ownerType: null, banks: { country: 'DE', response: '{"data": []}' } };
const fields: FormField[] = beneficiaryForm(options);
for (const f of fields) {
  const source: FormSource = f.source;
  const input: FormInput = f.input;
  const choices: FormOption[] | undefined = f.options;
  const kind: AccountKind | undefined = f.account;
  const max: number | undefined = f.length?.max;
  if (kind !== undefined) {
    const c: AccountCheck = checkAccount(kind, 'de89 3704');
    const state: AccountState = c.state;
    if (c.state === 'invalid') {
      const reason: Reason = c.reason;
      const p: AccountParams = c.params;
      console.log(c.code, reason, p.expected, p.actual, p.country, c.message);
    } else {
      // @ts-expect-error: only an invalid value has a reason
      console.log(c.reason);
    }
    console.log(state);
  }
  console.log(source, input, choices, max, f.label, f.required, f.path);
}
const exactFields: Equals<ReturnType<typeof beneficiaryForm>, FormField[]> = true;
const exactKinds: Equals<AccountKind, 'iban' | 'bic' | 'clabe' | 'cbu' | 'cuit' | 'ifsc' | 'sort_code' | 'bsb' | 'ca_branch' | 'aba'> = true;
const exactStates: Equals<AccountState, 'empty' | 'incomplete' | 'complete' | 'invalid'> = true;
const exactReasons: Equals<Reason, 'LAYOUT' | 'COUNTRY' | 'LENGTH' | 'TYPE' | 'CHECK_DIGITS'> = true;
const exactSources: Equals<FormSource, 'fixed' | 'rules' | 'country'> = true;
const exactInputs: Equals<FormInput, 'group' | 'text' | 'choice'> = true;
// @ts-expect-error: a kind is one of the ten names
checkAccount('IBAN', 'DE89');
// @ts-expect-error: the options are named (country and paymentType are required)
beneficiaryForm({ country: 'DE' });
// @ts-expect-error: a misspelt option (also a TypeError at run time)
beneficiaryForm({ country: 'DE', paymentType: 'bank_account', owner: 'business' });
const validator = new BeneficiaryValidator(null, null);
const same: FormField[] = validator.form('DE', 'bank_account', 'business');
validator.free();

const draft: BeneficiaryDraft = { country: 'DE', paymentType: 'bank_account', paymentInfo: { accountNumber: 'de89 3704 0044 0532 0130 00' } };
const sent: BeneficiaryDraft = normalizeBeneficiary(draft);
const exactNormalized: Equals<ReturnType<typeof normalizeBeneficiary<BeneficiaryDraft>>, BeneficiaryDraft> = true;
for (const issue of validateBeneficiary(draft).issues) {
  const reason: Reason | undefined = issue.reason;
  const figures: AccountParams | undefined = issue.params;
  console.log(reason, figures?.expected);
}
try {
  beneficiaryForm({ country: 'de', paymentType: 'bank_account' });
} catch (e) {
  if (e instanceof XborderError) {
    const code: ErrorCode = e.code;
    const formCodes: FormErrorCode[] = ['INVALID_VALUE', 'RULES_MISMATCH', 'BANKS_MISMATCH', 'RULES_UNREADABLE', 'BANKS_UNREADABLE'];
    const unknownKind: ErrorCode = 'UNKNOWN_ACCOUNT_KIND';
    console.log(code, e.field, formCodes, unknownKind);
  }
}
const formsFields: FormField[] = forms.beneficiaryForm({ country: 'GB', paymentType: 'bank_account' });
const formsCheck: AccountCheck = forms.checkAccount('sort_code', '12-34-56');
const formsSent: { country: string } = forms.normalizeBeneficiary({ country: 'GB' });
console.log(fields, same, sent, formsFields, formsCheck, formsSent, exactFields, exactKinds, exactStates, exactReasons, exactSources, exactInputs, exactNormalized);
