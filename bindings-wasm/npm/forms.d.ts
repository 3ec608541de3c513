// Types of the forms module (`xborder-wasm/forms`): the package's own declarations (index.d.ts)
// for what the module holds, so a value typed for one entry is typed for the other. It holds
// beneficiaries only: event names (classifyEvent, Catalog) and pagination (listQuery, pageInfo,
// PageWalker) are the full module's (`xborder-wasm`).
export type * from './index.js';
export {
  XborderError,
  init,
  validateBeneficiary,
  BeneficiaryValidator,
  beneficiaryForm,
  checkAccount,
  normalizeBeneficiary,
  requiredFields,
} from './index.js';
