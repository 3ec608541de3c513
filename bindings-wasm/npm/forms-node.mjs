// `xborder-wasm/forms` in Node: the forms functions of the package's Node entry (the full module,
// loaded on import; `init()` has nothing to wait for), so server code shared with a page runs
// unchanged. The same answers as the browsers' forms module, and the same exports: beneficiaries only.
export {
  XborderError,
  init,
  validateBeneficiary,
  BeneficiaryValidator,
  beneficiaryForm,
  checkAccount,
  normalizeBeneficiary,
  requiredFields,
} from './index.mjs';
