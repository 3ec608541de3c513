'use strict';
// Node, CommonJS entry: the WebAssembly module is loaded synchronously on first require.
const raw = require('./node/xborder_wasm.js');
const { XborderError } = require('./node/@GLUE@/errors.js');
const { wrapApi } = require('./node/api.cjs'); // js/api/, one module per concern, bundled

const { createHmac } = require('node:crypto');

// HMAC-SHA256 by node:crypto (OpenSSL, several times faster than the module's own); the header
// parsing and the constant-time compare stay in core.
const api = wrapApi(raw, { XborderError }, { hmac: (key, bytes) => createHmac('sha256', key).update(bytes).digest() });

module.exports = {
  XborderError,
  /** Nothing to wait for in Node; kept so the same code runs in browsers. */
  init: () => Promise.resolve(),
  classifyEvent: api.classifyEvent,
  checkRegistration: api.checkRegistration,
  createWebhookBody: api.createWebhookBody,
  eventMatches: api.eventMatches,
  sign: api.sign,
  verify: api.verify,
  decodeEnvelope: api.decodeEnvelope,
  Receiver: api.Receiver,
  Catalog: api.Catalog,
  PageWalker: api.PageWalker,
  Claims: api.Claims,
  DeliveryHandling: api.DeliveryHandling,
  handleDelivery: api.handleDelivery,
  validateBeneficiary: api.validateBeneficiary,
  BeneficiaryValidator: api.BeneficiaryValidator,
  beneficiaryForm: api.beneficiaryForm,
  checkAccount: api.checkAccount,
  normalizeBeneficiary: api.normalizeBeneficiary,
  requiredFields: api.requiredFields,
  listQuery: api.listQuery,
  pageInfo: api.pageInfo,
  readApiError: api.readApiError,
  CatchUp: api.CatchUp,
  catchUp: api.catchUp,
  //@TEST-HOOKS __panicForTests: api.__panicForTests,
};
