// Types of xborder-wasm. The same declarations serve `import` and `require` (index.d.cts is a copy).

// ---------------------------------------------------------------------------------------------
// JSON

/** A JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * A raw webhook body: the bytes exactly as received. A string is taken as its UTF-8 bytes; a
 * `Uint8Array` (a Node `Buffer` is one) or an `ArrayBuffer` as its bytes. Anything else (a parsed
 * JSON object, a `DataView`, another typed array) throws a `TypeError` naming `body`.
 */
export type Body = string | Uint8Array | ArrayBuffer;

/**
 * The signing secret: one secret as a string (its UTF-8 bytes are the key, nothing is trimmed),
 * or an array of them during a key rotation (any of them verifies). Told apart by `typeof` and
 * `Array.isArray`: anything else (a number, `null`, a `String` object, a `Buffer`) throws a
 * `TypeError` naming the parameter; an empty string or an empty array is `EMPTY_SECRET`.
 */
export type SecretOrSecrets = string | readonly string[];

// ---------------------------------------------------------------------------------------------
// Errors

/** Why a signature was not accepted. */
export type SignatureErrorCode = "MISSING_SIGNATURE" | "MALFORMED_SIGNATURE" | "EMPTY_SECRET" | "SIGNATURE_MISMATCH";
/** Why a body is not a usable envelope (`BODY_TOO_LARGE`: over 1 MiB; `NESTING_TOO_DEEP`: arrays and objects nested over 64 levels). */
export type EnvelopeErrorCode =
  | "MALFORMED_JSON"
  | "BODY_TOO_LARGE"
  | "NESTING_TOO_DEEP"
  | "MISSING_FIELD"
  | "INVALID_FIELD"
  | "ENTITY_MISMATCH";
/** The envelope field an envelope error is about. */
export type EnvelopeField = "id" | "event" | "entity" | "entity.id" | "entity.type" | "entity.data";
/** Why a webhook registration would fail. */
export type RegistrationErrorCode = "VALIDATION_FAILED" | "WEBHOOK_LIMIT_REACHED";
/** Why list parameters or a paginated response are not usable. */
export type PaginationErrorCode =
  | "INVALID_PAGE"
  | "INVALID_PAGE_SIZE"
  | "INVALID_SORT_ORDER"
  | "INVALID_SORT_BY"
  | "INVALID_SEARCH"
  | "INVALID_FILTER"
  | "UNKNOWN_PARAMETER"
  | "MALFORMED_RESPONSE"
  | "OUT_OF_RANGE";
/** Why a delivery was rejected. */
export type ReceiveErrorCode = SignatureErrorCode | EnvelopeErrorCode | "STORE_UNAVAILABLE";
/**
 * Every code an `XborderError` carries. `MALFORMED_JSON` is also thrown for a JS value that
 * cannot be written as JSON (a BigInt, a cycle); `INTERNAL_ERROR` is a bug of xborder (a panic),
 * after which the module is reset.
 */
export type ErrorCode =
  | SignatureErrorCode
  | EnvelopeErrorCode
  | RegistrationErrorCode
  | PaginationErrorCode
  | "STORE_UNAVAILABLE"
  | "INTERNAL_ERROR";

/**
 * The error every xborder function throws. An argument of the wrong kind (a string where an
 * array of names is meant, a number where a string is, ...) is never coerced: it throws a plain
 * `TypeError` whose message names the parameter and says how to pass it.
 */
export class XborderError extends Error {
  constructor(code: ErrorCode, message: string, field?: string, rejected?: RejectedEvent[]);
  readonly name: "XborderError";
  /** The stable code (the same in every xborder runtime). */
  readonly code: ErrorCode;
  /**
   * What the error is about: the envelope field (an `EnvelopeField`: `MISSING_FIELD`,
   * `INVALID_FIELD`, `ENTITY_MISMATCH`), or the list parameter or filter key (`UNKNOWN_PARAMETER`,
   * `INVALID_FILTER`: `"status"`, `"filters"` when `filters` is not an object, `""` when the
   * parameters are not an object).
   */
  readonly field?: string;
  /** The refused names (`VALIDATION_FAILED` from `createWebhookBody`). */
  readonly rejected?: RejectedEvent[];
}

// ---------------------------------------------------------------------------------------------
// Events

/** What an event name is. */
export type EventKind = "live" | "planned" | "wildcard" | "unknown" | "invalid";

/** The result of `classifyEvent`. `entity` and `action` are there when the name is well formed. */
export interface Classification {
  kind: EventKind;
  entity?: string;
  /** The action, `*` for a wildcard. */
  action?: string;
}

/** A name refused by the registration pre-check, with its kind as the reason. */
export interface RejectedEvent {
  event: string;
  reason: "planned" | "unknown" | "invalid";
}

/** The server's verdict on a Create Webhook call, given before the call is made. */
export type RegistrationCheck =
  | { ok: true; /** The accepted names, each once, in first-seen order. */ events: string[] }
  | { ok: false; code: "VALIDATION_FAILED"; rejected: RejectedEvent[] }
  | { ok: false; code: "WEBHOOK_LIMIT_REACHED" };

/**
 * Classifies an event name against the built-in catalog.
 * @throws {TypeError} when `name` is not a string.
 */
export function classifyEvent(name: string): Classification;

/**
 * Pre-checks a webhook registration: every name must be live or a listed wildcard, and fewer
 * than 5 webhooks may exist already (`existingWebhooks`, 0 by default; `null` is absent). A
 * plain result: the registration's problems are never thrown.
 * @param events an array of event names (`['order:created']`), never a single string.
 * @throws {TypeError} when `events` is not an array of strings, or `existingWebhooks` not a
 *   non-negative integer number (`'3'` and `true` are refused, not converted).
 */
export function checkRegistration(events: readonly string[], existingWebhooks?: number | null): RegistrationCheck;

/**
 * The JSON body of `POST /v1/webhooks` (`{"events": [...], "url": "..."}`).
 * @param events an array of event names (`['order:created']`), never a single string.
 * @throws {XborderError} `VALIDATION_FAILED` (with `rejected`) or `WEBHOOK_LIMIT_REACHED`.
 * @throws {TypeError} when `events` is not an array of strings, `url` not a string, or
 *   `existingWebhooks` not a non-negative integer number.
 */
export function createWebhookBody(events: readonly string[], url: string, existingWebhooks?: number | null): string;

/**
 * Whether a delivered event is covered by the subscriptions (an identical name or a `family:*`).
 * @param subscriptions an array of event names (`['order:*']`), never a single string.
 * @throws {TypeError} when `subscriptions` is not an array of strings or `event` not a string.
 */
export function eventMatches(subscriptions: readonly string[], event: string): boolean;

// ---------------------------------------------------------------------------------------------
// Signatures and envelopes

/**
 * The `X-Webhook-Signature` of a body: lowercase hex HMAC-SHA256, keyed with the UTF-8 bytes of
 * `secret`.
 * @throws {XborderError} `EMPTY_SECRET`.
 * @throws {TypeError} when `secret` is not a string or `body` not a `Body`.
 */
export function sign(secret: string, body: Body): string;

/**
 * Checks a signature header against the raw body, with one secret (a string) or several (an
 * array, during a key rotation). Returns when it verifies.
 * @param signature the `X-Webhook-Signature` header value; `null` or `undefined` when absent.
 * @throws {XborderError} `EMPTY_SECRET`, `MISSING_SIGNATURE`, `MALFORMED_SIGNATURE`, `SIGNATURE_MISMATCH`.
 * @throws {TypeError} when `secretOrSecrets` is neither a string nor an array of strings, `body`
 *   not a `Body`, or `signature` not a string, `null` or `undefined` (an array of header values
 *   is refused: pass the single value).
 */
export function verify(secretOrSecrets: SecretOrSecrets, body: Body, signature: string | null | undefined): void;

/** A decoded webhook envelope. */
export interface Envelope {
  /** The event id: stable across redeliveries, the idempotency key. */
  readonly id: string;
  /** The event name as sent. */
  readonly event: string;
  /** `live`, `planned` or `unknown` (a name this release does not know: ignore it, don't fail). */
  readonly kind: "live" | "planned" | "unknown";
  /** `entity.id`. */
  readonly entityId: string;
  /** `entity.type` as sent. */
  readonly entityType: string;
  /** `entity.data` exactly as sent (JSON text), `undefined` when absent. */
  readonly rawData: string | undefined;
  /** `entity.data` parsed (once, on first access), `undefined` when absent. */
  readonly data: JsonObject | undefined;
  /** `{id, event, kind, entityId, entityType, data?}`. */
  toJSON(): JsonObject;
}

/**
 * Decodes a webhook body (verify it first, or use a `Receiver`).
 * @throws {XborderError} `MALFORMED_JSON`, `BODY_TOO_LARGE`, `NESTING_TOO_DEEP`, `MISSING_FIELD` /
 *   `INVALID_FIELD` (with `field`), `ENTITY_MISMATCH`.
 * @throws {TypeError} when `body` is not a `Body`.
 */
export function decodeEnvelope(body: Body): Envelope;

/** What to do with one delivery. */
export type Decision =
  /** Verified, decoded, new, live: persist it, `commit(envelope.id)`, answer 2xx. */
  | { action: "process"; envelope: Envelope }
  /** Verified, decoded, new, but unknown or planned: answer 2xx, do nothing else. */
  | { action: "ignore"; envelope: Envelope }
  /** Its id was committed already: answer 2xx, do nothing. */
  | { action: "duplicate"; envelope: Envelope }
  /** Not verified or not decodable: answer non-2xx so the service retries. */
  | { action: "reject"; error: XborderError & { code: ReceiveErrorCode; field?: EnvelopeField } };

/** Verifies, decodes, classifies and dedupes webhook deliveries. */
export class Receiver {
  /**
   * @param secretOrSecrets one signing secret (a string), or an array of them during a key
   *   rotation (`[previousSecret, currentSecret]`).
   * @param window how many committed ids are remembered (10,000 by default, also for `null`;
   *   oldest forgotten first).
   * @throws {XborderError} `EMPTY_SECRET`.
   * @throws {TypeError} when `secretOrSecrets` is neither a string nor an array of strings, or
   *   `window` not a non-negative integer number.
   */
  constructor(secretOrSecrets: SecretOrSecrets, window?: number | null);
  /**
   * Decides one delivery from the raw body and the `X-Webhook-Signature` header value (`null` or
   * `undefined` when absent). Remembers nothing.
   * @throws {TypeError} when `body` is not a `Body` or `signature` not a string, `null` or `undefined`.
   */
  receive(body: Body, signature: string | null | undefined): Decision;
  /**
   * Records an event id as processed: call it once the event is persisted.
   * @throws {TypeError} when `id` is not a string.
   */
  commit(id: string): void;
  /** Releases the receiver's WebAssembly memory now (otherwise done when it is garbage-collected). */
  free(): void;
}

// ---------------------------------------------------------------------------------------------
// Beneficiaries

/** Issue codes of `validateBeneficiary`. */
export type IssueCode =
  | "REQUIRED"
  | "INVALID_VALUE"
  | "INVALID_ROUTING_NUMBER"
  | "UNKNOWN_BANK"
  | "RULES_MISMATCH"
  | "BANKS_MISMATCH"
  | "UNSUPPORTED_PAYMENT_TYPE";

/** One problem: the dotted payload path (`paymentInfo.bankId`, `""` for the draft itself) and its code. */
export interface Issue {
  path: string;
  code: IssueCode;
}

/** The result of a validation: every issue, not just the first. */
export interface Validation {
  valid: boolean;
  issues: Issue[];
}

/** The fields xborder knows by name in a beneficiary draft; any other field is kept as sent. */
export interface BeneficiaryDraft {
  ownerType?: "individual" | "business" | string;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
  paymentType?: "bank_account" | string;
  paymentInfo?: {
    bankId?: string;
    routingNumber?: string;
    accountNumber?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A bank list with the country it was requested for (given without it, the list is for no
 * country: validation reports `BANKS_MISMATCH` at `country` and does not apply it). */
export interface BankListInput {
  country: string;
  /** The raw response of `GET /v1/beneficiaries/banks?countryCode=<country>`. */
  response: JsonValue;
}

/**
 * Validates a beneficiary draft (the JSON payload of `POST /v1/beneficiaries`). `rules` is the raw
 * response of `GET /v1/validation-rules/beneficiaries`. A plain result, never thrown.
 * @throws {XborderError} `MALFORMED_JSON` only for a value that cannot be written as JSON.
 */
export function validateBeneficiary(
  draft: BeneficiaryDraft | JsonValue,
  rules?: JsonValue | null,
  banks?: BankListInput | null,
): Validation;

/** A field a form must ask for. */
export interface RequiredField {
  /** Dotted payload path. */
  path: string;
  /** What to show beside it. */
  description: string;
  /** `fixed` (the API's own rules) or `rules` (the rules document). */
  source: "fixed" | "rules";
}

/**
 * The fields a form must ask for, for a payment type and country, parents before children.
 * @throws {TypeError} when `paymentType` or `country` is not a string.
 */
export function requiredFields(rules: JsonValue | null | undefined, paymentType: string, country: string): RequiredField[];

// ---------------------------------------------------------------------------------------------
// Pagination

/**
 * The endpoint's own filters (`status`, `event`, `email`, ...): each is sent as `key=value`, in
 * byte order of key; a string as it is, an integer in decimal, a boolean as `true`/`false`. A
 * filter whose value is `null` or `""` is unset and left out. A key that is empty or one of the
 * five list parameters, or any other value, is `INVALID_FILTER` (with `field` = the key).
 */
export type ListFilters = { [key: string]: string | number | boolean | null };

/**
 * Query parameters of a list endpoint; absent or `null` takes the default. Any other key is
 * `UNKNOWN_PARAMETER` (with `field` = the key): endpoint filters go under `filters`.
 */
export interface ListParams {
  /** 0-based (default 0). */
  page?: number | null;
  /** At least 1 (default 10). */
  pageSize?: number | null;
  /** Default `createdAt`. */
  sortBy?: string | null;
  /** Default `DESC`. Read in any case (`asc`), always sent upper case. */
  sortOrder?: "ASC" | "DESC" | "asc" | "desc" | null;
  /** Omitted when empty. */
  search?: string | null;
  /** The endpoint's filters, appended after the list parameters (`{ status: 'success' }` → `&status=success`). */
  filters?: ListFilters | null;
}

/**
 * The query string of a list call, without `?`: `page`, `pageSize`, `sortBy`, `sortOrder`, then
 * `search` when not empty, then the filters in byte order of key, percent-encoded.
 * @throws {XborderError} `INVALID_PAGE`, `INVALID_PAGE_SIZE`, `INVALID_SORT_ORDER`, `INVALID_SORT_BY`,
 *   `INVALID_SEARCH`, `INVALID_FILTER` / `UNKNOWN_PARAMETER` (with `field`).
 */
export function listQuery(params?: ListParams): string;

/** The facts of one page. */
export interface PageInfo {
  total: number;
  /** 0-based. */
  page: number;
  pageSize: number;
  totalPages: number;
  /** Whether a later page has records: the response's `hasNext` when it sends one, else from `total`. */
  hasNext: boolean;
  /**
   * The response's `hasNext` contradicts its `total` (`total: 1, hasNext: true` on page 0 of
   * size 10, or `hasNext: false` with records left): `hasNext` and `nextPage` follow the server,
   * `totalPages` follows `total`. Follow `nextPage`, and report it.
   */
  hasNextConflict: boolean;
  hasPrevious: boolean;
  /** 1-based position of the page's first record (0 when the page is empty or past the end). */
  firstItem: number;
  /** 1-based position of the page's last record (0 when the page is empty or past the end). */
  lastItem: number;
  /** The page to ask for next, `null` when there is none. */
  nextPage: number | null;
}

/**
 * The facts of a paginated response `{data, total, page, pageSize}`; `request` (the list
 * parameters sent) supplies what a `{data, total, hasNext}` response leaves out.
 * @throws {XborderError} `MALFORMED_RESPONSE`, `INVALID_PAGE_SIZE`, `OUT_OF_RANGE` (or the request's `INVALID_*`).
 */
export function pageInfo(response: JsonValue, request?: ListParams | null): PageInfo;

// ---------------------------------------------------------------------------------------------
// Loading

/**
 * Browsers: loads the WebAssembly module; await it once before the first call (later calls
 * return the same promise). `source` replaces the default location of the `.wasm` file: a URL
 * or string, a `Response`, the bytes, or a compiled `WebAssembly.Module`.
 * Node: the module is loaded on import; this resolves at once.
 */
export function init(source?: unknown): Promise<void>;
