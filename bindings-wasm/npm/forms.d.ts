// Types of the forms module (`xborder-wasm/forms`): the package's own declarations (index.d.ts)
// for what the module holds, so a value typed for one entry is typed for the other. Its Catalog
// has no webhook registration (checkRegistration, createWebhookBody: the full module's).
import type { Classification } from './index.js';

export type * from './index.js';
export {
  XborderError,
  init,
  classifyEvent,
  eventMatches,
  validateBeneficiary,
  BeneficiaryValidator,
  beneficiaryForm,
  checkAccount,
  normalizeBeneficiary,
  requiredFields,
  listQuery,
  pageInfo,
  PageWalker,
} from './index.js';

/** An event catalog (the forms module's: no webhook registration). */
export declare class Catalog {
  /** A copy of the built-in catalog, with nothing added. */
  constructor();
  /**
   * Adds a live name (`order:rejected`); a planned name added this way becomes live.
   * @throws {XborderError} `INVALID_EVENT_NAME` when the name is not well formed or is a wildcard.
   * @throws {TypeError} when `name` is not a string.
   */
  addLive(name: string): void;
  /**
   * Adds a wildcard `<entity>:*` the provider accepts in registrations.
   * @throws {XborderError} `INVALID_EVENT_NAME` when the name is not a well-formed wildcard.
   * @throws {TypeError} when `name` is not a string.
   */
  addWildcard(name: string): void;
  /** Whether `name` is live (built in or added). @throws {TypeError} when `name` is not a string. */
  isLive(name: string): boolean;
  /** As `classifyEvent`, against this catalog. */
  classify(name: string): Classification;
  /** As `eventMatches`, against this catalog. */
  matches(subscriptions: readonly string[], event: string): boolean;
  /**
   * Releases the catalog's WebAssembly memory now (otherwise done when it is garbage-collected).
   * Any later use of it throws `XborderError` `FREED`; a second `free()` does nothing.
   */
  free(): void;
}
