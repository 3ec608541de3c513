// Node, ES module entry: the same instance as the CommonJS entry (no dual-package hazard).
import xborder from './index.cjs';

export const {
  XborderError,
  init,
  classifyEvent,
  checkRegistration,
  createWebhookBody,
  eventMatches,
  sign,
  verify,
  decodeEnvelope,
  Receiver,
  Catalog,
  PageWalker,
  Claims,
  DeliveryHandling,
  handleDelivery,
  validateBeneficiary,
  BeneficiaryValidator,
  beneficiaryForm,
  checkAccount,
  normalizeBeneficiary,
  requiredFields,
  listQuery,
  pageInfo,
  //@TEST-HOOKS __panicForTests,
} = xborder;
