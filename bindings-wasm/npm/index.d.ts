// Types of xborder-wasm. The same declarations serve `import` and `require` (index.d.cts is a copy).

// ---------------------------------------------------------------------------------------------
// JSON

/**
 * A JSON value, as xborder gives one back (`Envelope.data`). No parameter requires it: where any
 * JSON is taken (a document, a draft, a list response) the parameter is `unknown`, so that an
 * interface of yours or an imported JSON file is passed as it is.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * A raw webhook body: the bytes exactly as received. A string is taken as its UTF-8 bytes; a
 * `Uint8Array` (a Node `Buffer` is one) or an `ArrayBuffer` as its bytes: Express's `req.body`
 * under `express.raw({ type: 'application/json' })`, `await request.arrayBuffer()` or
 * `await request.text()` in a Fetch handler. Anything else throws a `TypeError` naming `body`;
 * a parsed JSON object (what `express.json()` leaves in `req.body`) says how to keep the raw
 * bytes, since its signed bytes are gone.
 */
export type Body = string | Uint8Array | ArrayBuffer;

/**
 * A request's headers as a handler has them, where `X-Webhook-Signature` is looked up in any case:
 * Node's `req.headers` (`IncomingHttpHeaders`, also Express's and Fastify's), or any plain object
 * of header values; or a Fetch `Headers` (`request.headers` in a Fetch handler: Next.js route
 * handlers, Hono's `c.req.raw.headers`, Workers), or a library's object with the same `get(name)`.
 */
export type HeaderCollection =
  | { readonly [name: string]: string | readonly string[] | undefined }
  | { get(name: string): string | null };

/**
 * The `X-Webhook-Signature` header: its one value as a string (taken exactly as it is), its values
 * (an array, as Node types a repeated header), the request's headers (a `HeaderCollection`), or
 * `null` / `undefined` when absent. Of several values (an array, a repeated header, one value
 * joined with `", "` by Node or a proxy), xborder's core decides: the same signature repeated is
 * that signature, two different ones are `MALFORMED_SIGNATURE` (never "try each"), only blank ones
 * are none (`MISSING_SIGNATURE`). Anything else throws a `TypeError` naming `signature`.
 */
export type SignatureHeader = string | readonly string[] | HeaderCollection | null | undefined;

/**
 * The signing secret: one secret as a string (its UTF-8 bytes are the key, nothing is trimmed),
 * or an array of them during a key rotation (any of them verifies). Told apart by `typeof` and
 * `Array.isArray`: anything else (a number, `null`, a `String` object, a `Buffer`) throws a
 * `TypeError` naming the parameter; an empty string or an empty array is `EMPTY_SECRET`; a secret that begins or ends with ASCII whitespace (a pasted line end) is `MALFORMED_SECRET`.
 */
export type SecretOrSecrets = string | readonly string[];

// ---------------------------------------------------------------------------------------------
// Errors

/** Why a signature was not accepted. */
export type SignatureErrorCode = "MISSING_SIGNATURE" | "MALFORMED_SIGNATURE" | "EMPTY_SECRET" | "MALFORMED_SECRET" | "SIGNATURE_MISMATCH";
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
/**
 * Why a webhook registration would fail: `VALIDATION_FAILED` and `WEBHOOK_LIMIT_REACHED` (the
 * server's answers), `INVALID_URL` (`createWebhookBody`: the URL is not an absolute `http://` or
 * `https://` URL with a host).
 */
export type RegistrationErrorCode = "VALIDATION_FAILED" | "WEBHOOK_LIMIT_REACHED" | "INVALID_URL";
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
/** Why a name could not be added to a `Catalog`. */
export type CatalogErrorCode = "INVALID_EVENT_NAME";
/**
 * Why an answer cannot be given from a server document: `RULES_UNREADABLE` (`requiredFields`
 * or `beneficiaryForm` with a rules document that was given and cannot be read; its message says
 * what to pass), `BANKS_UNREADABLE` (`beneficiaryForm` with a bank list that cannot be read).
 * Validation never throws them: there, a document that cannot be read is an `Issue`.
 */
export type DocumentErrorCode = "RULES_UNREADABLE" | "BANKS_UNREADABLE";
/**
 * Why `beneficiaryForm` (or `BeneficiaryValidator#form`) refuses a form, the first that applies:
 * `INVALID_VALUE` with `field` (`country` not an assigned upper-case ISO 3166-1 alpha-2 code,
 * `paymentType` empty, `ownerType` given and not `individual` or `business`), then a document's
 * `DocumentErrorCode`, `RULES_MISMATCH` (the rules are for another country or owner type) or
 * `BANKS_MISMATCH` (the bank list is for another country): a form built on the wrong document is
 * refused, never rendered.
 */
export type FormErrorCode = "INVALID_VALUE" | "RULES_MISMATCH" | "BANKS_MISMATCH" | DocumentErrorCode;
/** Why `checkAccount` cannot check a value: `UNKNOWN_ACCOUNT_KIND` (a kind that is not an `AccountKind`). */
export type AccountErrorCode = "UNKNOWN_ACCOUNT_KIND";
/**
 * Why a claim step could not be carried out: `INVALID_STEP` (with `field`: `do`, `id` or
 * `token`), `STORE_UNAVAILABLE` (the store threw or rejected, with the store's error as `cause`;
 * it holds a text xborder did not write; or the entry kept changing under concurrent requests).
 */
export type ClaimErrorCode = "INVALID_STEP" | "STORE_UNAVAILABLE";
/**
 * What a receiver's HTTP layer refuses a request for, before its body reaches xborder (nothing
 * throws these; a receiver answers them with `Claims.errorReply({ code })`): `BODY_TIMEOUT` (the
 * body did not arrive in full within its deadline: 408, then close the connection),
 * `TOO_MANY_CONNECTIONS` (the receiver's connection cap: 503 with `retryAfter` 1, then close).
 */
export type TransportErrorCode = "BODY_TIMEOUT" | "TOO_MANY_CONNECTIONS";
/**
 * Why the package could not make the call at all: `NOT_INITIALIZED` (in a browser or a worker,
 * a call made before `await init()` resolved; its message says so), `FREED` (an object used after
 * its `free()`, or after a `using` block that held it ended), `WASM_LOAD_FAILED` (`init()`
 * rejects: the `.wasm` was not found, the network failed, or what was fetched is not the module,
 * such as a dev server's `index.html`; its message says what came instead and what to pass to
 * `init(source)`, its `cause` is the original error).
 */
export type LifecycleErrorCode = "NOT_INITIALIZED" | "FREED" | "WASM_LOAD_FAILED";
/**
 * Why a catch-up cannot start or go on: `INVALID_SINCE` (the checkpoint is not a date-time,
 * `field` `since`), `INVALID_OVERLAP` (`overlapMs` is not an integer from 0 to 2^53 − 1,
 * `field` `overlapMs`), `API_ERROR` (the API answered a page with an error it does not ask to
 * retry, or the page's five tries are spent: `api` holds its answer read), besides the page's
 * `INVALID_PAGE_SIZE` and `MALFORMED_RESPONSE`.
 */
export type CatchUpErrorCode = "INVALID_SINCE" | "INVALID_OVERLAP" | "API_ERROR";
/**
 * Every code an `XborderError` carries. `MALFORMED_JSON` is also thrown for a JS value that
 * cannot be written as JSON (a BigInt, a cycle); `INTERNAL_ERROR` is a bug of xborder (a panic),
 * after which the module is reset: objects made before answer again, made again from what made
 * them, without what they held in memory (a `Receiver`'s window, the built-in `Claims`' claims); a
 * `PageWalker` made before throws `INTERNAL_ERROR` (start the walk again).
 */
export type ErrorCode =
  | SignatureErrorCode
  | EnvelopeErrorCode
  | RegistrationErrorCode
  | PaginationErrorCode
  | CatalogErrorCode
  | ClaimErrorCode
  | DocumentErrorCode
  | FormErrorCode
  | AccountErrorCode
  | TransportErrorCode
  | LifecycleErrorCode
  | CatchUpErrorCode
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
   * parameters' JSON is not an object: a `toJSON` that answers a number), or the part of a claim
   * step that is wrong (`INVALID_STEP`: `"do"`, `"id"`, `"token"`), or the form's input that is
   * not valid (`INVALID_VALUE` from `beneficiaryForm`: `"country"`, `"paymentType"`, `"ownerType"`).
   */
  readonly field?: string;
  /** The refused names (`VALIDATION_FAILED` from `createWebhookBody`). */
  readonly rejected?: RejectedEvent[];
  /** The API's answer read (`API_ERROR` from a catch-up). */
  readonly api?: ApiErrorInfo;
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
 * @param url where the provider sends deliveries: an absolute `http://` or `https://` URL with a
 *   host (a port, when given, from 0 to 65535), holding no whitespace or control character
 *   (nothing is trimmed); written into the body as given.
 * @throws {XborderError} `VALIDATION_FAILED` (with `rejected`) or `WEBHOOK_LIMIT_REACHED`, then
 *   (the names accepted) `INVALID_URL`.
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

/**
 * An event catalog: the built-in names plus the ones added to it, for event names the provider
 * sends before this release knows them. The free functions above use the built-in catalog; a
 * `Receiver` given a catalog (`new Receiver(secret, { catalog })`) classifies with a copy of it
 * taken when the receiver is made.
 */
export class Catalog {
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
  /** As `checkRegistration`, against this catalog. */
  checkRegistration(events: readonly string[], existingWebhooks?: number | null): RegistrationCheck;
  /** As `createWebhookBody`, against this catalog. */
  createWebhookBody(events: readonly string[], url: string, existingWebhooks?: number | null): string;
  /** As `eventMatches`, against this catalog. */
  matches(subscriptions: readonly string[], event: string): boolean;
  /**
   * Releases the catalog's WebAssembly memory now (otherwise done when it is garbage-collected).
   * Any later use of it throws `XborderError` `FREED`; a second `free()` does nothing.
   */
  free(): void;
}

// ---------------------------------------------------------------------------------------------
// Signatures and envelopes

/**
 * The `X-Webhook-Signature` of a body: lowercase hex HMAC-SHA256, keyed with the UTF-8 bytes of
 * `secret`.
 * @throws {XborderError} `EMPTY_SECRET`, `MALFORMED_SECRET`.
 * @throws {TypeError} when `secret` is not a string or `body` not a `Body`.
 */
export function sign(secret: string, body: Body): string;

/**
 * Checks a signature header against the raw body, with one secret (a string) or several (an
 * array, during a key rotation). Returns when it verifies.
 * @param signature the request's headers (`req.headers`, `request.headers`) or the
 *   `X-Webhook-Signature` value; `null` or `undefined` when absent (a `SignatureHeader`).
 * @throws {XborderError} `EMPTY_SECRET`, `MALFORMED_SECRET`, `MISSING_SIGNATURE`, `MALFORMED_SIGNATURE`,
 *   `SIGNATURE_MISMATCH` (its message ends with how to pass the body: the raw bytes as received,
 *   not re-serialised JSON).
 * @throws {TypeError} when `secretOrSecrets` is neither a string nor an array of strings, `body`
 *   not a `Body`, or `signature` not a `SignatureHeader`.
 */
export function verify(secretOrSecrets: SecretOrSecrets, body: Body, signature: SignatureHeader): void;

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
  /** Verified, decoded, new, live: persist it, `commit(envelope.id)`, answer `reply` (200). */
  | { action: "process"; envelope: Envelope; reply: ClaimReply }
  /** Verified, decoded, new, but unknown or planned: answer `reply` (200), do nothing else. */
  | { action: "ignore"; envelope: Envelope; reply: ClaimReply }
  /** Its id was committed already: answer `reply` (200), do nothing. */
  | { action: "duplicate"; envelope: Envelope; reply: ClaimReply }
  /**
   * Not verified or not decodable: answer `reply` (non-2xx, so the service retries): 400 for the
   * request's signature or envelope, 413 for a body over the limit, 500 for this service's
   * secret, 503 with `retryAfter` for a store that failed (core's table, in every runtime).
   */
  | { action: "reject"; error: XborderError & { code: ReceiveErrorCode; field?: EnvelopeField }; reply: ClaimReply };

/** The options of a `Receiver`; absent, `null` or `undefined` takes the default. Any other key is a `TypeError`. */
export interface ReceiverOptions {
  /** How many committed ids are remembered (10,000 by default; 0 when claims dedupe instead). */
  window?: number | null | undefined;
  /** The catalog names are classified against (a copy, taken now); the built-in one by default. */
  catalog?: Catalog | null | undefined;
}

/**
 * Verifies, decodes, classifies and dedupes webhook deliveries. Its window of committed ids is
 * memory of this process: it does not survive a restart, nor a reset of the module after an
 * `INTERNAL_ERROR` (the receiver then answers again with an empty window). Ids that must survive
 * belong in a `Claims` store of yours (`Claims.withStore`), with `{ window: 0 }` here.
 */
export class Receiver {
  /**
   * @param secretOrSecrets one signing secret (a string), or an array of them during a key
   *   rotation (`[previousSecret, currentSecret]`).
   * @param window how many committed ids are remembered (10,000 by default, also for `null`;
   *   oldest forgotten first).
   * @throws {XborderError} `EMPTY_SECRET`, `MALFORMED_SECRET`.
   * @throws {TypeError} when `secretOrSecrets` is neither a string nor an array of strings, or
   *   `window` not a non-negative integer number.
   */
  constructor(secretOrSecrets: SecretOrSecrets, window?: number | null);
  /**
   * @param options `{ window, catalog }`: the window as above, and the catalog to classify with.
   * @throws {XborderError} `EMPTY_SECRET`, `MALFORMED_SECRET`.
   * @throws {TypeError} when `secretOrSecrets` is neither a string nor an array of strings, an
   *   option is of the wrong kind (`options.window`, `options.catalog`), or a key is not an option.
   */
  constructor(secretOrSecrets: SecretOrSecrets, options: ReceiverOptions);
  /**
   * Decides one delivery from the raw body and the request's headers (`req.headers`,
   * `request.headers`) or the `X-Webhook-Signature` value (`null` or `undefined` when absent).
   * Remembers nothing.
   * @throws {TypeError} when `body` is not a `Body` or `signature` not a `SignatureHeader`.
   */
  receive(body: Body, signature: SignatureHeader): Decision;
  /**
   * Records an event id as processed: call it once the event is persisted.
   * @throws {TypeError} when `id` is not a string.
   */
  commit(id: string): void;
  /**
   * Releases the receiver's WebAssembly memory now (otherwise done when it is garbage-collected).
   * Any later use of it throws `XborderError` `FREED`; a second `free()` does nothing.
   */
  free(): void;
}

// ---------------------------------------------------------------------------------------------
// Claims (several instances of one consumer)

/** What a request does to an event id's claim. */
export type ClaimStep = "claim" | "complete" | "release";

/**
 * The answer to a step: `claimed` (process, then `complete`, or `release` when it failed),
 * `in_progress` (another request holds the id: answer non-2xx with `Retry-After`), `duplicate`
 * (done: answer 2xx), `completed` (answer 2xx), `released` (answer non-2xx: the retry processes
 * it), `stale` (this request no longer holds the id: nothing changed).
 */
export type ClaimOutcome = "claimed" | "in_progress" | "duplicate" | "completed" | "released" | "stale";

/**
 * What a receiver answers the provider, from `Claims.reply` and `Claims.errorReply` (the same
 * table in every runtime): the HTTP status, and the seconds of a `Retry-After` header when one
 * goes with it.
 */
export interface ClaimReply {
  status: 200 | 400 | 413 | 500 | 503;
  retryAfter: number | null;
}

/**
 * The times of one store call, as xborder's core clamped them (`nowMs` and `ttlMs` at most
 * 2^48 − 1 ms, the year 10889; `expiresAtMs` their sum, below 2^49, an exact number): a store writes and compares these numbers as they are, and never reads an entry
 * text for a time nor clamps one.
 */
export interface StoreTime {
  /** The step's time (the `atMs` it was run at, clamped). A store that keeps expiry counts an entry expired at or before it as none. */
  nowMs: number;
  /** How long the store may keep the new entry from `nowMs` (`null`: as long as it likes; a load or a removal has none). A Redis store gives it to `PEXPIRE`. */
  ttlMs: number | null;
  /** `nowMs + ttlMs` (not clamped, so an entry written at the latest time is not expired at it): when the store may drop the new entry (`null`: never). A SQL store writes it in its expiry column. */
  expiresAtMs: number | null;
}

/**
 * A store of claims shared by the instances of one consumer (Redis, SQL, ...). It keeps one
 * entry text per event id and compares-and-sets it atomically; every decision is xborder's (the
 * entry texts are opaque to the store). Either method may return a Promise (then use
 * `stepAsync`); one that throws or rejects makes the step fail with `STORE_UNAVAILABLE`, the error
 * as its `cause`.
 */
export interface ClaimStore {
  /**
   * The entry text of `id`: a string, or `null` / `undefined` when there is none (a store that
   * keeps expiry: none either when it expired at or before `time.nowMs`).
   */
  load(id: string, time: StoreTime): string | null | undefined | PromiseLike<string | null | undefined>;
  /**
   * Atomically: when the entry of `id` is `expected` (`null`: no entry, or one expired at or
   * before `time.nowMs` in a store that keeps expiry), make it `next` (`null`: remove it), which
   * the store may drop on its own after `ttlMs` (`null`: never; the same as `time.ttlMs`), that
   * is at `time.expiresAtMs`, and answer `true`; otherwise change nothing and answer `false`.
   */
  compareAndSet(id: string, expected: string | null, next: string | null, ttlMs: number | null, time: StoreTime): boolean | PromiseLike<boolean>;
}

/** The rules of claims; absent, `null` or `undefined` takes the default. Any other key is a `TypeError`. */
export interface ClaimRulesOptions {
  /** How long a claim holds an id, in milliseconds (30,000 by default). */
  leaseMs?: number | null | undefined;
  /** How long a done id is a duplicate, in milliseconds (7 days by default: a store drops it after, so none grows forever). */
  windowMs?: number | null | undefined;
}

/** The options of the built-in store. */
export interface ClaimsOptions extends ClaimRulesOptions {
  /** How many done ids it remembers (10,000 by default; oldest forgotten first). */
  capacity?: number | null | undefined;
}

/**
 * Claims on event ids, so that a delivery and its retry arriving at two instances at once are
 * processed once: `claim` before processing, then `complete` once persisted (or `release` when
 * it failed). Times are the host's clock in milliseconds (`Date.now()`), non-decreasing.
 */
export class Claims {
  /**
   * Claims kept in this process's memory (one instance; lost on a restart, and emptied by a reset
   * of the module after an `INTERNAL_ERROR`). Several instances, or done ids that must survive,
   * share a `ClaimStore` through `withStore`.
   * @throws {TypeError} when `options` is not an options object, a key is not an option, or
   *   `leaseMs` / `windowMs` / `capacity` is not a non-negative safe integer number.
   */
  constructor(options?: ClaimsOptions | null);
  /**
   * Claims kept in a store of the host's.
   * @throws {TypeError} when `store` lacks `load` or `compareAndSet`, or an option is wrong as above.
   */
  static withStore(store: ClaimStore, options?: ClaimRulesOptions | null): Claims;
  /**
   * One step by the request `token` (each request makes its own) on the event `id` at `atMs`,
   * with a synchronous store (or the built-in one).
   * @throws {XborderError} `INVALID_STEP` (with `field`), `STORE_UNAVAILABLE`.
   * @throws {TypeError} when an argument is of the wrong kind (`atMs`: a non-negative safe integer
   *   number), or the store returned a Promise (use `stepAsync`).
   */
  step(step: ClaimStep, id: string, token: string, atMs: number): ClaimOutcome;
  /**
   * One step, awaiting the store's answers (an asynchronous store: Redis, SQL); steps of
   * concurrent requests may interleave.
   * @throws {XborderError} (rejects with) `INVALID_STEP` (with `field`), `STORE_UNAVAILABLE`.
   * @throws {TypeError} (rejects with) when an argument is of the wrong kind.
   */
  stepAsync(step: ClaimStep, id: string, token: string, atMs: number): Promise<ClaimOutcome>;
  /**
   * What to answer the provider after `step` gave `outcome`; `null` after `claimed` (persist
   * first). `in_progress` → 503 with `retryAfter` (the lease in whole seconds, rounded up);
   * `duplicate`, `completed`, and `stale` on `complete` → 200; `released`, and `stale` on
   * `release` → 500. After persisting, answer `reply("complete", "completed")` even when
   * `complete` throws (the event is kept); after persisting failed, the release's reply.
   * @throws {XborderError} `INVALID_STEP` (`field` `do`) for a step that is not one.
   * @throws {TypeError} when `step` or `outcome` is not a string, or `outcome` is not an outcome.
   */
  reply(step: ClaimStep, outcome: ClaimOutcome): ClaimReply | null;
  /**
   * What to answer the provider when a step threw `error`, or for a refusal of the receiver's
   * own (`{ code }` with a `TransportErrorCode`; `BODY_TOO_LARGE` → 413): `STORE_UNAVAILABLE` and
   * `TOO_MANY_CONNECTIONS` → 503 with `retryAfter` 1; `BODY_TIMEOUT` → 408; anything else → 500.
   */
  static errorReply(error: unknown): ClaimReply;
  /**
   * Releases the built-in store's WebAssembly memory now (otherwise done when it is garbage-collected;
   * a store of yours holds nothing in it).
   * Any later use of it throws `XborderError` `FREED`; a second `free()` does nothing.
   */
  free(): void;
}

// ---------------------------------------------------------------------------------------------
// Delivery handling (one delivery, from the receiver's decision to the answer)

/**
 * The answer to give the provider for one delivery, decided by xborder (the same in every
 * runtime): a refused delivery is answered with its error's status, an ignored one 200; a live
 * event is claimed, persisted by you, completed (200 whatever `complete` gives: the event is
 * kept), or released when the persist failed (500, `code` `PERSIST_FAILED`: the provider retries).
 */
export interface HandlingAnswer {
  /** The HTTP status to answer with. */
  status: 200 | 400 | 413 | 500 | 503;
  /** The seconds of a `Retry-After` header, when one goes with it (a 503). */
  retryAfter: number | null;
  /** The last claim step's outcome; `null` when no claim was made (the delivery was not a live event). */
  outcome: ClaimOutcome | null;
  /**
   * Why the answer is not 2xx, or what went wrong on the way: the receiver's error code
   * (`SIGNATURE_MISMATCH`, ...), a claim step's (`STORE_UNAVAILABLE`), or `PERSIST_FAILED`. A
   * complete that failed after the event was persisted keeps its code with a 200.
   */
  code: ErrorCode | "PERSIST_FAILED" | null;
  /** Whether your persist succeeded. */
  persisted: boolean;
}

/** What `handleDelivery` resolves to: the answer, ready for an HTTP response. */
export interface DeliveryResult extends HandlingAnswer {
  /** The headers to answer with: `Retry-After` when `retryAfter` is set, else none. */
  headers: { "Retry-After"?: string };
  /** The receiver's decision: `process` (a live event: claimed, persisted, ...), `ignore`, `duplicate` or `reject`. */
  action: Decision["action"];
  /** The event's envelope (`null`: the delivery was refused). */
  envelope: Envelope | null;
  /**
   * What went wrong, to log (never thrown from `handleDelivery`): the receiver's refusal (an
   * `XborderError` with `code`, `field`, `message`), or the first error your `persist` or a store
   * call threw (the answer is then xborder's: 500 `PERSIST_FAILED` for the persist, 503
   * `STORE_UNAVAILABLE` for the store); absent when nothing went wrong.
   */
  error?: unknown;
}

/** The delivery and the claims of its event id, for `handleDelivery` and `DeliveryHandling`. */
export interface DeliveryOptions extends ClaimRulesOptions {
  /** The receiver keyed with your webhook secret(s); `{ window: 0 }` when the claims dedupe. */
  receiver: Receiver;
  /**
   * The claims: a `Claims` (in this process's memory, or `Claims.withStore`). Pass this or
   * `store` (then `leaseMs` / `windowMs` set the rules).
   */
  claims?: Claims | null;
  /** A store of yours (Redis, SQL): its methods may return promises. Pass this or `claims`. */
  store?: ClaimStore | null;
  /** The raw body, exactly as received. */
  body: Body;
  /** The signature header, as `Receiver.receive` takes it (the value, or the request's headers). */
  signature: SignatureHeader;
  /** This request's token, unique per request (a UUID by default: `crypto.randomUUID()`). */
  token?: string | null;
}

/** The options of a `DeliveryHandling`. */
export interface DeliveryHandlingOptions extends DeliveryOptions {
  /**
   * `true`: your write of the event and the claim's completion are one transaction of yours: the
   * complete step (its store calls on the transaction's connection) comes before a `commit` act,
   * reported with `committed(ok)` (a failed commit releases the claim: 500 `PERSIST_FAILED`).
   */
  inTransaction?: boolean | null;
}

/**
 * A transaction of your database for `handleDelivery` (a SQL store): the event's write and the
 * claim's completion commit together or not at all. `tx` is yours (a pg client, a connection).
 */
export interface DeliveryTransaction<Tx = unknown> {
  /** Begins the transaction (e.g. takes a pooled client and sends `BEGIN`), before `persist`. */
  begin(): Tx | Promise<Tx>;
  /**
   * The claim store on the transaction `tx` (its calls on that connection), for the complete
   * step at `atMs` (the time `now` gave it; a store needs none: each of its calls is given
   * core's `time`, `nowMs` being this one, clamped).
   */
  store(tx: Tx, atMs: number): ClaimStore;
  /** Commits `tx` (after the complete step); throwing (or rejecting) is a failed commit. */
  commit(tx: Tx): unknown;
  /** Rolls `tx` back (a failed persist or commit) and gives its connection back. */
  rollback(tx: Tx): unknown;
}

/** The options of `handleDelivery`. */
export interface HandleDeliveryOptions<Tx = unknown> extends DeliveryOptions {
  /**
   * Your write of the event (its own transaction, idempotent on `envelope.id`: a persist that
   * outlasts the lease can run twice; with `transaction`, on `tx`, not committed). Throwing (or
   * rejecting) is a failed persist: the claim is released and the answer is 500
   * `PERSIST_FAILED`, the error kept in the result's `error`.
   */
  persist(envelope: Envelope, tx?: Tx): unknown;
  /**
   * Your write and the claim's completion in one transaction (a SQL store; needs `store`): in
   * core's order, `begin()`, `persist(envelope, tx)`, the complete step on `store(tx, atMs)`, then
   * `commit(tx)`; a failed persist or commit is rolled back and the claim released on `store`
   * (500 `PERSIST_FAILED`).
   */
  transaction?: DeliveryTransaction<Tx> | null;
  /** The clock for the claim steps, in milliseconds (`Date.now` by default; the store's clock across hosts). */
  now?: (() => number) | null;
}

/**
 * Handles one delivery: verifies and decodes it (`receiver`), claims its event id, calls your
 * `persist`, completes (or releases) the claim, and resolves to the answer to give. Every order
 * and answer is xborder's; a store that throws is answered 503, a persist that throws 500.
 * @throws {TypeError} (rejects with) when an option is of the wrong kind, or both or neither of
 *   `claims` and `store` are given.
 * @throws {XborderError} (rejects with) `FREED`, `NOT_INITIALIZED`, `INTERNAL_ERROR`.
 */
export function handleDelivery<Tx = unknown>(options: HandleDeliveryOptions<Tx>): Promise<DeliveryResult>;

/** A claim step a `DeliveryHandling` ran, and what it gave. */
export interface HandlingStep {
  /** The step. */
  step: "claim" | "complete" | "release";
  /** Its outcome (`null` when it failed). */
  outcome: ClaimOutcome | null;
  /** Its error's code (`null` when it gave an outcome). */
  code: ErrorCode | null;
}

/** What a `DeliveryHandling` asks for next. */
export type HandlingAct =
  | { act: "claim" | "complete" | "release" | "commit"; id: string }
  | { act: "persist"; envelope: Envelope }
  | { act: "answer"; answer: HandlingAnswer };

/**
 * `handleDelivery` one act at a time, for a host that runs the acts itself (interleaved with
 * others, or in its own transaction): `next()` says what to do; `step(atMs)` / `stepAsync(atMs)`
 * runs the claim step asked; `persisted(ok)` reports your write; until `{ act: "answer" }`.
 */
export class DeliveryHandling {
  /**
   * The handling of one delivery (the receiver decides at once).
   * @throws {TypeError} as `handleDelivery`.
   */
  constructor(options: DeliveryHandlingOptions);
  /** What to do next. */
  next(): HandlingAct;
  /** The receiver's decision: `process`, `ignore`, `duplicate` or `reject`. */
  readonly action: Decision["action"];
  /** The event's envelope (`null`: the delivery was refused). */
  readonly envelope: Envelope | null;
  /** The receiver's refusal (an `XborderError`), or the first error a store call threw; `null` when none. */
  readonly error: unknown;
  /**
   * Runs the `claim`, `complete` or `release` step `next()` asks for at `atMs`, with the built-in
   * `Claims` or a synchronous store: the next act.
   * @throws {XborderError} `INVALID_STEP` (with `field`: the act expected) when no step is asked.
   * @throws {TypeError} when `atMs` is not a non-negative safe integer, or the store returned a Promise.
   */
  step(atMs: number): HandlingAct;
  /** `step`, awaiting each store call (an asynchronous store). */
  stepAsync(atMs: number): Promise<HandlingAct>;
  /**
   * Reports your persist (`ok`: it succeeded): the next act (`complete`, or `release`).
   * @throws {XborderError} `INVALID_STEP` (with `field`) when no persist is asked.
   */
  persisted(ok: boolean): HandlingAct;
  /**
   * (`inTransaction`.) Reports your commit (`ok`: it succeeded): the next act (`answer`, or `release`).
   * @throws {XborderError} `INVALID_STEP` (with `field`) when no commit is asked.
   */
  committed(ok: boolean): HandlingAct;
  /** The last claim step run: its outcome, or its error's code (the other `null`); `null` before the first. */
  lastStep(): HandlingStep | null;
  /** The answer once the handling is over; `null` before. */
  answer(): HandlingAnswer | null;
  /** Releases its WebAssembly memory now; any later use throws `XborderError` `FREED`. */
  free(): void;
}

// ---------------------------------------------------------------------------------------------
// Beneficiaries

/**
 * Issue codes of `validateBeneficiary`. The account details (`paymentType` `bank_account`, and
 * `spei` for the CLABE) are checked as banks check them: `INVALID_IBAN` (`paymentInfo.accountNumber`
 * beginning with two letters), `INVALID_CLABE` (18 digits to `MX`), `INVALID_CBU` (22 digits to
 * `AR`), `INVALID_CUIT` (`bankDocumentNumber` to `AR`), `INVALID_BIC` (`bic`), `INVALID_IFSC`
 * (`ifscCode` to `IN`), `INVALID_SORT_CODE` (`sortCode` to `GB`), `INVALID_BSB` (`bsbNumber` to
 * `AU`), `INVALID_BRANCH_CODE` (`branchCode` to `CA`). `RULES_UNREADABLE` / `BANKS_UNREADABLE`
 * (path `""`): a document was given and cannot be read; none of its rules was applied.
 */
export type IssueCode =
  | "REQUIRED"
  | "INVALID_VALUE"
  | "INVALID_ROUTING_NUMBER"
  | "UNKNOWN_BANK"
  | "RULES_MISMATCH"
  | "BANKS_MISMATCH"
  | "UNSUPPORTED_PAYMENT_TYPE"
  | "RULES_UNREADABLE"
  | "BANKS_UNREADABLE"
  | "INVALID_IBAN"
  | "INVALID_CLABE"
  | "INVALID_CBU"
  | "INVALID_CUIT"
  | "INVALID_BIC"
  | "INVALID_IFSC"
  | "INVALID_SORT_CODE"
  | "INVALID_BSB"
  | "INVALID_BRANCH_CODE";

/** One problem of a draft, every field always there. */
export interface Issue {
  /** The dotted payload path (`paymentInfo.bankId`); `""` for the draft or a document as a whole. */
  path: string;
  code: IssueCode;
  /**
   * What to fix, in English, for the person filling the form (`"this field is required: fill it
   * in"`; for an IBAN of the wrong length, the length its country's IBANs have).
   */
  message: string;
  /**
   * The rules document's description of the field at `path` (`"First name"`), to show beside
   * the message; `null` where it has none (no rules document, a field it does not describe, an
   * issue of a document as a whole).
   */
  label: string | null;
  /**
   * Why an account detail fails (`INVALID_IBAN`, ..., `INVALID_ROUTING_NUMBER`), for a message
   * of your own (`params` holds its figures); absent on the other issues.
   */
  reason?: Reason;
  /** The figures of `reason` (`{}` where it names none); present exactly when `reason` is. */
  params?: AccountParams;
}

/** The result of a validation: every issue, not just the first. */
export interface Validation {
  /** Whether `issues` is empty. */
  valid: boolean;
  issues: Issue[];
}

/*
 * What the server sends, and what a draft holds, typed for reading and for building them. Every
 * parameter that takes a document (or a draft, or a list response) is `unknown`: any JSON value
 * (a user's own interface, a JSON file imported with `resolveJsonModule`, `await res.json()`)
 * is passed as it is, and core reads it. These types declare no index signature and no
 * literal-union field: a user's own `interface` and an imported JSON file (strings widened to
 * `string`, arrays to `T[]`) satisfy them, and every optional property also takes `null` and
 * `undefined` (both read as absent, also under `exactOptionalPropertyTypes`). Keys they do not
 * name are read as absent by xborder and are allowed in a value of these types (not in an
 * object literal written against them: TypeScript's excess property check).
 */

/** The `paymentInfo` of a beneficiary draft: the fields xborder knows by name. */
export interface PaymentInfo {
  bankId?: string | null | undefined;
  routingNumber?: string | null | undefined;
  /** An IBAN, a CLABE (`MX`), a CBU (`AR`) or a local account number. */
  accountNumber?: string | null | undefined;
  bic?: string | null | undefined;
  /** CUIT/CUIL (`AR`). */
  bankDocumentNumber?: string | null | undefined;
  ifscCode?: string | null | undefined;
  sortCode?: string | null | undefined;
  bsbNumber?: string | null | undefined;
  branchCode?: string | null | undefined;
}

/**
 * The fields xborder knows by name in a beneficiary draft (the JSON payload of
 * `POST /v1/beneficiaries`); the fields the rules document asks for (`firstName`, `address`, ...)
 * are read by the name it gives them: extend it (`interface MyDraft extends BeneficiaryDraft {
 * firstName: string }`). A draft is passed as `unknown`: this type is for building one.
 */
export interface BeneficiaryDraft {
  /** `individual` or `business`. */
  ownerType?: string | null | undefined;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string | null | undefined;
  /** `bank_account`, `spei`, ... */
  paymentType?: string | null | undefined;
  paymentInfo?: PaymentInfo | null | undefined;
}

/**
 * A field rule of the rules document (the provider's `ValidationField`); `nestedFields` and
 * `fields` both hold its sub-fields. Every key is optional, as the provider's SDK types it (a rule
 * without `field` is not applied).
 */
export interface RulesField {
  /** The field's name, dotted for a path (`address.city`). */
  field?: string | null | undefined;
  /** What the field is, shown to the user: an issue at this field carries it as its `label`. */
  description?: string | null | undefined;
  nestedFields?: readonly RulesField[] | null | undefined;
  fields?: readonly RulesField[] | null | undefined;
}

/** A payment type the rules document lists, with the fields it needs under `paymentInfo` (the provider sends `[{}]` too). */
export interface RulesPaymentType {
  /** `bank_account`, `spei`, ... */
  type?: string | null | undefined;
  description?: string | null | undefined;
  requiredFields?: readonly RulesField[] | null | undefined;
}

/** The `rules` of the rules document. */
export interface BeneficiaryRules {
  /** Fields of the payload root. */
  requiredFields?: readonly RulesField[] | null | undefined;
  /** The payment types accepted (any, when absent or empty), each with its fields. */
  paymentTypes?: readonly RulesPaymentType[] | null | undefined;
  /** The documents to upload (`{type, description}`): not read by xborder. */
  requiredDocuments?: unknown;
}

/**
 * The `data` of the rules document: the rules of one country and owner type (the provider also
 * sends `id`, `version`, `owner`, `createdAt`, ...: not read).
 */
export interface RulesDocumentData {
  country?: string | null | undefined;
  /** `individual` or `business`. */
  ownerType?: string | null | undefined;
  rules: BeneficiaryRules;
}

/**
 * The response of `GET /v1/validation-rules/beneficiaries?country=CO&ownerType=individual`, as
 * the server sends it:
 * `{"data": {"country", "ownerType", "rules": {"requiredFields": [...], "paymentTypes": [...]}}, "requestId"}`.
 */
export interface RulesDocument {
  data: RulesDocumentData;
  /** Not read (the provider sends a number). */
  requestId?: unknown;
}

/** A bank of the bank list (the provider also sends `supportedAccountTypes`: not read). */
export interface Bank {
  /** What a draft's `paymentInfo.bankId` names (a bank without one matches nothing). */
  id?: string | null | undefined;
  name?: string | null | undefined;
}

/**
 * The response of `GET /v1/beneficiaries/banks?countryCode=CO`, as the server sends it:
 * `{"data": [{"id", "name"}, ...], "requestId"}`.
 */
export interface BankListResponse {
  data: readonly Bank[];
  /** Not read (the provider sends a number). */
  requestId?: unknown;
}

/**
 * The rules document as given (`unknown`: any value): the response text as received (a string:
 * `await res.text()`, parsed once by xborder), the parsed response (`await res.json()`, a
 * `RulesDocument`, or its `data`: a `RulesDocumentData`), or any other JSON value; `null` or
 * `undefined` when there is none. A document that is given and cannot be read (an error body,
 * `{}`, text that is not JSON, ...) is reported (`RULES_UNREADABLE`), never taken as no document.
 * A function, a symbol or a Promise (or any other thenable) is a `TypeError` naming `rules`.
 */
export type RulesInput = unknown;

/**
 * A bank list with the country it was asked for (given without it, the list is for no country:
 * validation reports `BANKS_MISMATCH` at `country` and does not apply it). Any other key is a
 * `TypeError` naming it.
 */
export interface BankListInput {
  country: string;
  /**
   * The response of `GET /v1/beneficiaries/banks?countryCode=<country>` (`unknown`: any value):
   * its text as received (a string, parsed once by xborder), the parsed response (a
   * `BankListResponse`), or any other JSON value (one that cannot be read is reported:
   * `BANKS_UNREADABLE`); `null` or absent when there is none (the list is then not given). A
   * function, a symbol or a Promise is a `TypeError` naming `banks.response`.
   */
  response?: unknown;
}

/**
 * Validates a beneficiary draft (the JSON payload of `POST /v1/beneficiaries`) against the fixed
 * rules, the rules document and the bank list (each optional). A plain result, never thrown: a
 * document that cannot be read is an issue (`RULES_UNREADABLE`, `BANKS_UNREADABLE`).
 * @example
 * const rules = await (await fetch(`${api}/v1/validation-rules/beneficiaries?country=CO&ownerType=individual`)).text();
 * const banks = { country: 'CO', response: await (await fetch(`${api}/v1/beneficiaries/banks?countryCode=CO`)).json() };
 * validateBeneficiary(draft, rules, banks).issues; // [{ path, code, message, label }, ...]
 * @param draft any value (`unknown`): a `BeneficiaryDraft`, an interface of yours, parsed JSON; one
 *   that is not an object is an issue (`INVALID_VALUE` at path `""`).
 * @throws {XborderError} `MALFORMED_JSON` only for a value that cannot be written as JSON.
 * @throws {TypeError} when `rules` or `banks.response` is a function, a symbol or a Promise,
 *   `banks` is not `{ country, response }` (or has another key), or `banks.country` is there but
 *   not a string.
 */
export function validateBeneficiary(draft: unknown, rules?: RulesInput, banks?: BankListInput | null): Validation;

/**
 * A rules document and a bank list read once, to validate many drafts against them (a form
 * validated as the user types): `validate(draft)` gives what
 * `validateBeneficiary(draft, rules, banks)` gives, with only the draft crossing into the module.
 * @example
 * const validator = new BeneficiaryValidator(rulesResponse, { country: 'CO', response: banksResponse });
 * validator.validate(draft).issues; // [{ path, code, message, label }, ...]
 */
export class BeneficiaryValidator {
  /**
   * @throws {XborderError} `MALFORMED_JSON` for a value that cannot be written as JSON.
   * @throws {TypeError} as `validateBeneficiary` for `rules` and `banks`.
   */
  constructor(rules?: RulesInput, banks?: BankListInput | null);
  /**
   * Every issue of a draft. A plain result, never thrown.
   * @throws {XborderError} `MALFORMED_JSON` only for a value that cannot be written as JSON.
   */
  validate(draft: unknown): Validation;
  /**
   * The fields of the form over these documents: what
   * `beneficiaryForm({ country, paymentType, ownerType, rules, banks })` gives with them.
   * @throws {XborderError} as `beneficiaryForm` (`FormErrorCode`).
   * @throws {TypeError} when `country` or `paymentType` is not a string, or `ownerType` is
   *   there and not a string.
   */
  form(country: string, paymentType: string, ownerType?: string | null): FormField[];
  /**
   * Releases its WebAssembly memory now (otherwise done when it is garbage-collected).
   * Any later use of it throws `XborderError` `FREED`; a second `free()` does nothing.
   */
  free(): void;
}

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
 * @param rules the rules document as `validateBeneficiary` takes it.
 * @throws {XborderError} `RULES_UNREADABLE` when the rules document is given and cannot be read
 *   (its message says what to pass).
 * @throws {TypeError} when `rules` is a function, a symbol or a Promise, or `paymentType` or
 *   `country` is not a string.
 */
export function requiredFields(rules: RulesInput, paymentType: string, country: string): RequiredField[];

/** The name of an account detail's kind: what `FormField.account` holds and `checkAccount` takes. */
export type AccountKind = "iban" | "bic" | "clabe" | "cbu" | "cuit" | "ifsc" | "sort_code" | "bsb" | "ca_branch" | "aba";

/**
 * Why an account detail fails, the first problem found: `LAYOUT` (a character that cannot stand
 * where it stands), `COUNTRY` (`params.country`: not a country of the kind), `LENGTH`
 * (`params.expected`, `params.actual`), `TYPE` (a CUIT type or a routing number's first two
 * digits out of range), `CHECK_DIGITS`.
 */
export type Reason = "LAYOUT" | "COUNTRY" | "LENGTH" | "TYPE" | "CHECK_DIGITS";

/** The figures of a `Reason`, for a message in your own words: each absent where it names none. */
export interface AccountParams {
  /** The count of characters the value must have (`LENGTH`). */
  expected?: number;
  /** The count of characters it has, ASCII spaces and hyphens removed (`LENGTH`). */
  actual?: number;
  /** The two letters that are not a country of the kind (`COUNTRY`). */
  country?: string;
}

/**
 * Where a value being typed stands: `empty` (nothing typed, spaces and hyphens aside),
 * `incomplete` (nothing wrong yet: keep typing, show nothing red), `complete` (exactly what
 * validation accepts for the kind), `invalid` (wrong whatever is typed after it).
 */
export type AccountState = "empty" | "incomplete" | "complete" | "invalid";

/** The account-detail issue codes: what `checkAccount` reports for an invalid value. */
export type AccountIssueCode =
  | "INVALID_IBAN"
  | "INVALID_BIC"
  | "INVALID_CLABE"
  | "INVALID_CBU"
  | "INVALID_CUIT"
  | "INVALID_IFSC"
  | "INVALID_SORT_CODE"
  | "INVALID_BSB"
  | "INVALID_BRANCH_CODE"
  | "INVALID_ROUTING_NUMBER";

/** `checkAccount`'s answer for a value that is not invalid. */
export interface AccountCheckOk {
  state: "empty" | "incomplete" | "complete";
  /** ASCII spaces and hyphens removed, ASCII letters upper-cased: the form the API takes. */
  electronic: string;
  /** `electronic` grouped for reading (`DE89 3704 0044 …`, `12-34-56`): write it back into the input. */
  display: string;
}

/** `checkAccount`'s answer for an invalid value: why, as a code, a reason with its figures, and in English. */
export interface AccountCheckInvalid {
  state: "invalid";
  electronic: string;
  display: string;
  /** The kind's issue code, as validation reports it. */
  code: AccountIssueCode;
  reason: Reason;
  params: AccountParams;
  /** What to fix, in English (replace it with your own words from `code`, `reason`, `params`). */
  message: string;
}

/** One account detail as the user types it: narrow on `state` to read `code`, `reason`, `params`, `message`. */
export type AccountCheck = AccountCheckOk | AccountCheckInvalid;

/**
 * Checks one account detail as the user types it, cheap enough for every keystroke: its state,
 * its electronic form (to send) and its display form (to show).
 * @example
 * checkAccount('iban', 'de89 3704'); // { state: 'incomplete', electronic: 'DE893704', display: 'DE89 3704' }
 * @param kind the field's `account` in `beneficiaryForm`'s answer (`iban`, `sort_code`, ...).
 * @throws {XborderError} `UNKNOWN_ACCOUNT_KIND` when `kind` is not an `AccountKind`.
 * @throws {TypeError} when `kind` or `value` is not a string.
 */
export function checkAccount(kind: AccountKind, value: string): AccountCheck;

/** Where a form field comes from: the API's fixed rules, the rules document, or the country's account fields (not required). */
export type FormSource = "fixed" | "rules" | "country";

/** The input to render: `group` (a field with sub-fields), `text`, `choice` (a `<select>` of `options`). */
export type FormInput = "group" | "text" | "choice";

/** One option of a `choice`: the value to send (a bank's `id`) and what to show (its `name`). */
export interface FormOption {
  value: string;
  label: string;
}

/** One field of a beneficiary form, in the order to render them. */
export interface FormField {
  /** The dotted payload path (`paymentInfo.accountNumber`). */
  path: string;
  /** Whether the draft needs it (`fixed` and `rules` fields). */
  required: boolean;
  source: FormSource;
  input: FormInput;
  /** The options of a `choice` (the bank list's banks, in order); absent otherwise. */
  options?: FormOption[];
  /** The account kind the field holds in this country, for `checkAccount`; absent when none. */
  account?: AccountKind;
  /** The count of characters of `account` in electronic form; absent with `account`. */
  length?: { min: number; max: number };
  /** What to show beside the input: the rules document's description, else an English label. */
  label: string;
}

/** What `beneficiaryForm` takes. */
export interface BeneficiaryFormOptions {
  /** ISO 3166-1 alpha-2, upper case (`DE`). */
  country: string;
  /** `bank_account`, `spei`, ... */
  paymentType: string;
  /** `individual` or `business`; absent: any. */
  ownerType?: string | null | undefined;
  /** The rules document, as `validateBeneficiary` takes it. */
  rules?: RulesInput;
  /** The bank list, as `validateBeneficiary` takes it: `paymentInfo.bankId` becomes a `choice`. */
  banks?: BankListInput | null | undefined;
}

/**
 * The fields a beneficiary form renders for a country, payment type and owner type, in order
 * (an array): the rules document's, `paymentInfo` and its fixed fields, the payment type's, then
 * the country's account fields (`required: false`), each with its input, options, account kind and
 * label.
 * @example
 * for (const f of beneficiaryForm({ country: 'DE', paymentType: 'bank_account' })) render(f);
 * @throws {XborderError} a `FormErrorCode` (`INVALID_VALUE` with `field`) when core refuses the form.
 * @throws {TypeError} when an option has the wrong kind or is not one of `BeneficiaryFormOptions`.
 */
export function beneficiaryForm(options: BeneficiaryFormOptions): FormField[];

/**
 * The payload to send: every account detail validation checks (`paymentInfo.accountNumber` as an
 * IBAN, `sortCode`, `bic`, ..., the routing number) in its electronic form (`de89 3704…` ->
 * `DE893704…`); nothing else changed. A new value: `draft` is not changed.
 * @throws {XborderError} `MALFORMED_JSON` only for a value that cannot be written as JSON.
 * @throws {TypeError} for what is not data: `undefined`, a function, a Promise, bytes (a body
 *   not parsed yet).
 */
export function normalizeBeneficiary<T>(draft: T): T;

// ---------------------------------------------------------------------------------------------
// Pagination

/**
 * The endpoint's own filters (`status`, `event`, `email`, ...): each is sent as `key=value`, in
 * byte order of key; a string as it is, an integer in decimal, a boolean as `true`/`false`. A
 * filter whose value is `null` or `""` is unset and left out. A key that is empty or one of the
 * five list parameters, or any other value, is `INVALID_FILTER` (with `field` = the key). A filter
 * whose value is `undefined` is left out too, as JSON leaves it out.
 */
export type ListFilters = { readonly [key: string]: string | number | boolean | null | undefined };

/** `ASC` or `DESC`, read in any case: any other string is `INVALID_SORT_ORDER` (core's answer, not the type's). */
export type SortOrder = "ASC" | "DESC" | "asc" | "desc" | (string & {});

/**
 * Query parameters of a list endpoint; absent, `null` or `undefined` takes the default. Any other
 * key is `UNKNOWN_PARAMETER` (with `field` = the key): endpoint filters go under `filters`.
 */
export interface ListParams {
  /** 0-based (default 0). */
  page?: number | null | undefined;
  /** At least 1 (default 10). */
  pageSize?: number | null | undefined;
  /** Default `createdAt`. */
  sortBy?: string | null | undefined;
  /** Default `DESC`. Read in any case (`asc`), always sent upper case. */
  sortOrder?: SortOrder | null | undefined;
  /** Omitted when empty. */
  search?: string | null | undefined;
  /** The endpoint's filters, appended after the list parameters (`{ status: 'success' }` → `&status=success`). */
  filters?: ListFilters | null | undefined;
}

/**
 * The query string of a list call, without `?`: `page`, `pageSize`, `sortBy`, `sortOrder`, then
 * `search` when not empty, then the filters in byte order of key, percent-encoded.
 * @throws {XborderError} `INVALID_PAGE`, `INVALID_PAGE_SIZE`, `INVALID_SORT_ORDER`, `INVALID_SORT_BY`,
 *   `INVALID_SEARCH`, `INVALID_FILTER` / `UNKNOWN_PARAMETER` (with `field`).
 * @throws {TypeError} when `params` is not an object, `null` or `undefined` (`42`, `'page=1'`, an
 *   array), as for every other parameter of the wrong kind.
 */
export function listQuery(params?: ListParams | null): string;

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
 * The facts of a paginated response, in any envelope the provider sends (a `ListResponse`:
 * `{data, total, page, pageSize}`, `{data, total, hasNext}` or `{data, meta: {total, page,
 * pageSize, hasNext?}}`), given as any value (`unknown`: parsed JSON, an interface of yours).
 * `request` (the list parameters sent) supplies what the response leaves out; without it, the
 * defaults of `listQuery` do (page 0, pageSize 10: the request sent with no parameters).
 * @throws {XborderError} `MALFORMED_RESPONSE`, `INVALID_PAGE_SIZE`, `OUT_OF_RANGE` (or the request's `INVALID_*`).
 * @throws {TypeError} when `request` is given and is not an object (as `listQuery`'s `params`).
 */
export function pageInfo(response: unknown, request?: ListParams | null): PageInfo;

/** Why a walk may not have seen the list as one snapshot, or was ended (`STALLED`). */
export type DriftCode = "TOTAL_CHANGED" | "REPEATED_RECORDS" | "HAS_NEXT_CONFLICT" | "POSSIBLY_SKIPPED" | "STALLED";

/** Something that changed under the walker's feet between pages. */
export type Drift =
  /** `total` differs from the previous page's. */
  | { code: "TOTAL_CHANGED"; from: number; to: number }
  /** Records seen on an earlier page came again (new records pushed them down): passed on once. */
  | { code: "REPEATED_RECORDS"; count: number }
  /** The page's `hasNext` contradicts its `total`; the walker follows `hasNext`. */
  | { code: "HAS_NEXT_CONFLICT"; hasNext: boolean }
  /** Records may have been skipped (the total shrank, or fewer unique records than `total`). */
  | { code: "POSSIBLY_SKIPPED"; count: number }
  /**
   * Two pages in a row brought no record the walk had not passed on (a server that ignores
   * `page`, or says `hasNext: true` forever): the walk ends here, so that it always ends.
   */
  | { code: "STALLED" };

/*
 * The list envelopes the provider sends (`GET /v1/beneficiaries`, `/v1/webhooks`, `/v1/orders`,
 * ...), as `pageInfo` and `PageWalker` read them. `T` is the record type (`unknown` by default).
 * `requestId` and other keys are not read. As the documents above, they declare no index
 * signature and no literal-union field, and an optional property also takes `null` and
 * `undefined` (read as absent).
 */

/**
 * `{data, total, page, pageSize}`: the envelope of the API specification (`page` 0-based).
 * Either of `page` and `pageSize` left out comes from the request (a `HasNextListResponse` then).
 */
export interface PagedListResponse<T = unknown> {
  data: readonly T[];
  total: number;
  page: number;
  pageSize: number;
  hasNext?: boolean | null | undefined;
  requestId?: unknown;
}

/**
 * `{data, total, hasNext}`: the envelope of the provider's SDK (beneficiaries, webhooks, orders,
 * ...); `page` and `pageSize` come from the request. Without `hasNext` (`{data, total}`), whether
 * a later page has records follows from `total`.
 */
export interface HasNextListResponse<T = unknown> {
  data: readonly T[];
  total: number;
  hasNext?: boolean | null | undefined;
  page?: number | null | undefined;
  pageSize?: number | null | undefined;
  requestId?: unknown;
}

/** The page fields of a `{data, meta}` envelope (`MetaListResponse`). */
export interface ListMeta {
  total: number;
  page?: number | null | undefined;
  pageSize?: number | null | undefined;
  hasNext?: boolean | null | undefined;
}

/**
 * `{data, meta: {total, page, pageSize, hasNext?}}`: the page fields under `meta` (read there
 * only when the top level has none of `total`, `page`, `pageSize`, `hasNext`).
 */
export interface MetaListResponse<T = unknown> {
  data: readonly T[];
  meta: ListMeta;
  requestId?: unknown;
}

/**
 * A page of a list, as the server sends it: any of the three envelopes `pageInfo` and
 * `PageWalker` read. A user's own interface of a list response, or a JSON file of one, is one
 * when it has `data` (an array) and `total` (a number), at the top level or under `meta`.
 */
export type ListResponse<T = unknown> = PagedListResponse<T> | HasNextListResponse<T> | MetaListResponse<T>;

/**
 * The record type of a list response of type `R`: `T` for a `ListResponse<T>`, `unknown` for
 * anything else (what `PageWalker` gives back for a response typed `R`).
 */
export type ListRecord<R> = R extends ListResponse<infer T> ? T : unknown;

/** The former name of `ListResponse`. */
export type PageResponse<T = unknown> = ListResponse<T>;
/** The former name of `ListMeta`. */
export type PageMeta = ListMeta;

/** What one page gave the walker. */
export interface WalkStep<T> {
  /** The page's records not seen before (by `id`; records without one always), the caller's own objects. */
  records: T[];
  /** The page's facts. */
  info: PageInfo;
  /** What drifted since the previous page. */
  drifts: Drift[];
}

/**
 * Walks every page of a list: the query to send next, each record once (by `id`), the drift
 * between pages. Drive it by hand (`nextQuery`, `feed`) or with `records`.
 */
export class PageWalker {
  /**
   * Starts at `params.page` with the list parameters (filters included).
   * @throws {XborderError} as `listQuery`.
   * @throws {TypeError} as `listQuery`.
   */
  constructor(params?: ListParams | null);
  /** The query string of the next request (without `?`), `null` when the walk is over. */
  nextQuery(): string | null;
  /** Whether the last page was fed. */
  isDone(): boolean;
  /**
   * Feeds the response to the last query, given as any value: a `ListResponse<T>` (an interface
   * of yours, an imported JSON file) gives `WalkStep<T>`, its records typed `T`; a value of
   * another type (`unknown`, `await res.json()`) gives records typed `unknown`. A response that
   * throws can be fed again.
   * @throws {XborderError} `MALFORMED_RESPONSE`, `INVALID_PAGE_SIZE`, `OUT_OF_RANGE`, `MALFORMED_JSON`.
   */
  feed<R>(response: R): WalkStep<ListRecord<R>>;
  /**
   * Every record of the list, each once: asks `fetchPage` for each query in turn (the parsed
   * response, or a promise of it), calls `onStep` with each page's step (its drifts), and yields
   * the fresh records: typed `T` when `fetchPage` answers a `ListResponse<T>` (declare its return
   * type: `async (q): Promise<ListResponse<Beneficiary>> => ...`), else `unknown`.
   * @throws {TypeError} when `fetchPage` or `onStep` is not a function.
   */
  records<R>(
    fetchPage: (query: string) => R | PromiseLike<R>,
    onStep?: ((step: WalkStep<ListRecord<R>>) => void | PromiseLike<void>) | null,
  ): AsyncGenerator<ListRecord<R>, void, undefined>;
  /**
   * Releases the walker's WebAssembly memory now (otherwise done when it is garbage-collected).
   * Any later use of it throws `XborderError` `FREED`; a second `free()` does nothing.
   */
  free(): void;
}

// ---------------------------------------------------------------------------------------------
// The provider's API: its error answers, and the catch-up of dead-lettered events. A server's:
// in the package's main entry (Node, Bun, Deno); the browser module (`xborder-wasm/web`) is built
// without them (its size budget), and there `readApiError`, `new CatchUp` and `catchUp` throw (or
// reject with) a TypeError saying so.

/**
 * What a client may do after an error answer: `after` (retry after `afterMs`, or a delay of your
 * own when it is `null`: a 429, or a 408/500/502/503/504 on a GET, HEAD, OPTIONS, PUT or
 * DELETE), `check_first` (the same on any other method: the create may have happened, so look it
 * up before sending it again; the API takes no idempotency key), `no`.
 */
export type RetryAdvice = "after" | "check_first" | "no";

/** An error answer of the provider's API, read (`readApiError`). Absent parts are `null`. */
export interface ApiErrorInfo {
  /** The HTTP status. */
  status: number;
  /** `error.CODE` (or `error.code`). */
  code: string | null;
  /** `error.MESSAGE` (or `error.message`), or the text of `{"error": "text"}`. */
  message: string | null;
  /** The strings of an `error.DETAILS` list. */
  details: string[] | null;
  /** `requestId`, as sent (a string or an integer). */
  requestId: string | number | null;
  /** What to do next. */
  retry: RetryAdvice;
  /** With `after`: the delay the answer gave (`DETAILS.retryAfterMs`, `Retry-After` in seconds). */
  afterMs: number | null;
}

/**
 * Response headers as `readApiError` and `CatchUp#answered` take them: a Fetch `Headers` (or
 * anything with its `forEach`), a plain object of values (Node's `res.headers`), or pairs.
 */
export type ResponseHeaders =
  | { forEach(callback: (value: string, name: string) => void): void }
  | { readonly [name: string]: string | readonly string[] | undefined }
  | readonly (readonly [string, string])[]
  | null
  | undefined;

/** What `readApiError` reads. */
export interface ApiErrorInput {
  /** The request's method (`"POST"`, any case). */
  method: string;
  /** The answer's status (100 to 599). */
  status: number;
  /** The answer's headers (`Retry-After` is read). */
  headers?: ResponseHeaders;
  /** The body: its text (a string), or the JSON you parsed from it; absent when none. */
  body?: unknown;
}

/**
 * Reads an error answer of the provider's API into its parts and the retry advice: a 429 after
 * its delay; after a 5xx on a POST, look the beneficiary (or order) up before sending it again.
 * Reading never fails on what the server sent (anything else reads as no fields).
 * @throws {TypeError} when `method` is not a string, `status` not an HTTP status, or `headers`
 *   not headers.
 */
export function readApiError(input: ApiErrorInput): ApiErrorInfo;

/** Why a catch-up's walk may have missed an event (`DriftCode`), or records it could not read. */
export type CatchUpDrift =
  | Drift
  /** Records of `GET /v1/external-events` that are not events: reported, not passed on. */
  | { code: "MALFORMED_RECORD"; count: number };

/** An event the catch-up found (a record of `GET /v1/external-events`). */
export interface ExternalEvent {
  /** The event's id: the `id` its webhook envelope had. */
  id: string;
  /** Its name (`order:created`). */
  event: string;
  entityId: string;
  entityType: string;
  /** When the provider wrote it (a date-time). */
  createdAt: string;
}

/** Where a catch-up starts. */
export interface CatchUpWalkOptions {
  /** The checkpoint the last catch-up returned; absent: walk everything the provider keeps. */
  since?: string | null;
  /** How far before `since` to look again, for records written late (300000: 5 minutes). */
  overlapMs?: number | null;
  /** Records per page (100). */
  pageSize?: number | null;
}

/**
 * The walk of `GET /v1/external-events` down to a checkpoint, one page at a time: newest first
 * (the list has no `since` filter), ended by the first page holding a record older than `since`
 * minus the overlap; each id once, events oldest first. `catchUp` runs it for you.
 */
export class CatchUp {
  /** @throws {XborderError} `INVALID_SINCE`, `INVALID_OVERLAP`, `INVALID_PAGE_SIZE`. */
  constructor(options?: CatchUpWalkOptions | null);
  /** The query of the next page (`GET /v1/external-events?` + it), `null` when the walk is over. */
  nextQuery(): string | null;
  isDone(): boolean;
  /**
   * Feeds the page answered to `nextQuery()` (the parsed body or its text): its drift.
   * @throws {XborderError} `MALFORMED_RESPONSE` (the page can be asked for again).
   */
  feed(page: unknown): CatchUpDrift[];
  /**
   * The answer to `nextQuery()` as your HTTP client got it: `{ drifts }` (the page was fed) or
   * `{ waitMs }` (send the same query again after it: a 429 or a 5xx, at most five tries).
   * @throws {XborderError} `API_ERROR` (with `api`), `MALFORMED_RESPONSE`.
   */
  answered(status: number, headers: ResponseHeaders, text: string): { drifts: CatchUpDrift[]; waitMs?: undefined } | { waitMs: number; drifts?: undefined };
  /** The events found so far, oldest first. */
  events(): ExternalEvent[];
  /** Every drift so far. */
  drifts(): CatchUpDrift[];
  /** The checkpoint once every event found is handled (`null`: none yet). */
  checkpoint(): string | null;
  /** Releases the walk's WebAssembly memory now; later uses throw `FREED`. */
  free(): void;
}

/** The options of `catchUp`: the walk's, the API's, and the handling's (as `handleDelivery`'s). */
export interface CatchUpOptions<Tx = unknown> extends CatchUpWalkOptions, ClaimRulesOptions {
  /**
   * Your GET of the API: `path` is `/v1/external-events?page=...`; resolve to the Fetch
   * `Response` (or an object with `status`, `headers` and `text()`).
   */
  get(path: string): PromiseLike<{ status: number; headers?: ResponseHeaders; text(): string | PromiseLike<string> }>;
  /** Waits before a retry (`setTimeout` by default). */
  sleep?: ((ms: number) => unknown) | null;
  /** Called with each page's drift (log it: `STALLED` or `POSSIBLY_SKIPPED` keep the checkpoint where it was). */
  onDrift?: ((drift: CatchUpDrift) => unknown) | null;
  /** The receiver that keys your deliveries (its catalog classifies the events). */
  receiver: Receiver;
  /** The same claims as your webhook endpoint's (one of `claims` and `store`). */
  claims?: Claims | null;
  store?: ClaimStore | null;
  /** The same write as your webhook endpoint's (`handleDelivery`'s `persist`). */
  persist(envelope: Envelope, tx?: Tx): unknown;
  transaction?: DeliveryTransaction<Tx> | null;
  now?: (() => number) | null;
  /** The prefix of each event's request token (a UUID by default). */
  token?: string | null;
}

/** What a catch-up came to. */
export interface CatchUpResult {
  /** Pass it as `since` next time (keep it: a file, a row). `null`: nothing found yet. */
  checkpoint: string | null;
  /** Events found in the window. */
  found: number;
  /** Persisted now: events the webhook path had lost. */
  processed: number;
  /** Already processed (a duplicate) or ignored, as a delivery of them would be. */
  skipped: number;
  /** Refused as a delivery of them would be (an envelope core cannot read): not tried again. */
  rejected: number;
  /** Not handled (a store or your persist failed): the checkpoint stops before the first of them. */
  failed: number;
  /** Every drift of the walk. */
  drifts: CatchUpDrift[];
}

/**
 * One catch-up: walks `GET /v1/external-events` down to `since` with your `get`, retries as the
 * API says, then hands each event found (oldest first) to the same handling as a delivery
 * (claims, your `persist`, complete): an event your webhook endpoint already processed is a
 * duplicate. Schedule it (every few minutes) and run it after an outage. It rests on the
 * provider keeping the same `id` on both paths; events it kept shorter than your outage are lost
 * to it too.
 * @throws {XborderError} (rejects with) `API_ERROR`, `MALFORMED_RESPONSE`, `INVALID_SINCE`, ...
 * @throws {TypeError} (rejects with) when an option is of the wrong kind.
 */
export function catchUp<Tx = unknown>(options: CatchUpOptions<Tx>): Promise<CatchUpResult>;

// ---------------------------------------------------------------------------------------------
// Loading

/**
 * Browsers and workers: loads the WebAssembly module; await it once before the first call
 * (later calls return the same promise). Until it has resolved, every call throws `XborderError`
 * `NOT_INITIALIZED`. A load that failed (a 404, the network, bytes that are not the module) is
 * not kept: the returned promise rejects with `XborderError` `WASM_LOAD_FAILED` (its message says
 * what was fetched, its `cause` is the original error), and the next `init()` tries again.
 * `source` replaces the default location of the `.wasm` file: a URL or string, a `Response`, the
 * bytes, or a compiled `WebAssembly.Module`.
 * Node: the module is loaded on import; this resolves at once.
 */
export function init(source?: unknown): Promise<void>;
