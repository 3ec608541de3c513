//! Every code xborder reports, in one list, with what it means.
//!
//! Each error type still answers its own `code()`; this module is the list those answers come
//! from, so that a binding, a `.d.ts` union or a doc can be checked against it (a test here
//! fails when an error type gains a code the list lacks, or the list names one nothing
//! reports, or when the tables below miss one). The codes are the same in every xborder runtime.
//!
//! ## Errors ([`ERRORS`])
//!
//! For a delivery, "status" is what [`Decision::reply`](crate::delivery::Decision::reply) (and
//! [`claims::reply_to_code`](crate::claims::reply_to_code)) answer the provider with.
//!
//! | code | from | means | status |
//! |---|---|---|---|
//! | `MISSING_SIGNATURE` | signature | the `X-Webhook-Signature` header is absent or empty | 400 |
//! | `MALFORMED_SIGNATURE` | signature | the header is not 64 hexadecimal digits (ASCII whitespace around it is trimmed), or two different values were sent | 400 |
//! | `SIGNATURE_MISMATCH` | signature | no secret's HMAC-SHA256 of the raw body equals the header (compared in constant time) | 400 |
//! | `EMPTY_SECRET` | signature | a secret given to a signer or receiver is empty (or no secret was given) | 500 |
//! | `MALFORMED_SECRET` | signature | a secret begins or ends with ASCII whitespace (a pasted line end): refused where it is given | 500 |
//! | `BODY_TOO_LARGE` | envelope | the body is longer than [`Limits::max_body_bytes`](crate::envelope::Limits) (1 MiB by default) | 413 |
//! | `NESTING_TOO_DEEP` | envelope | arrays and objects nest deeper than [`Limits::max_depth`](crate::envelope::Limits) (64 by default) | 400 |
//! | `MALFORMED_JSON` | envelope, documents | not UTF-8, not JSON, not an object, or an envelope field given twice | 400 |
//! | `MISSING_FIELD` | envelope | `id`, `event`, `entity`, `entity.id` or `entity.type` is absent or `null` (`field` names it) | 400 |
//! | `INVALID_FIELD` | envelope | a field has the wrong type, is an empty string, or `event` is not `<entity>:<action>` | 400 |
//! | `ENTITY_MISMATCH` | envelope | a known event's family (before the colon) differs from `entity.type` | 400 |
//! | `BODY_TIMEOUT` | transport | the body did not arrive in full within the receiver's deadline (a slow or stalled client) | 408 |
//! | `TOO_MANY_CONNECTIONS` | transport | the receiver has its cap of connections open: this one is answered and closed | 503, `Retry-After: 1` |
//! | `STORE_UNAVAILABLE` | delivery, claims | a dedupe or claims store failed, holds text that is not an entry, or kept changing | 503, `Retry-After: 1` |
//! | `INVALID_STEP` | claims | a step that is not `claim`, `complete` or `release` (`field` `do`), or an empty `id` or `token` | 500 |
//! | `PERSIST_FAILED` | the host's flow | the host's persist of an event failed; the claim was released, so the provider's retry can take it (core's `Handling` answers it; `reply_to_code` gives its status) | 500 |
//! | `VALIDATION_FAILED` | registration | event names a webhook cannot be registered for (planned, unknown, malformed): `rejected` lists them | |
//! | `WEBHOOK_LIMIT_REACHED` | registration | the account has its [`MAX_WEBHOOKS`](crate::events::MAX_WEBHOOKS) webhooks already | |
//! | `INVALID_URL` | registration | the webhook URL is not an absolute `http://` or `https://` URL with a host | |
//! | `INVALID_EVENT_NAME` | catalog | a name added to the catalog is not `<entity>:<action>` | |
//! | `INVALID_PAGE` | pagination | `page` is not an integer from 0 to 2^53 − 1 | |
//! | `INVALID_PAGE_SIZE` | pagination | `pageSize` is not an integer from 1 to 2^53 − 1 | |
//! | `INVALID_SORT_ORDER` | pagination | `sortOrder` is not `ASC` or `DESC` (any case) | |
//! | `INVALID_SORT_BY` | pagination | `sortBy` is not a non-empty string | |
//! | `INVALID_SEARCH` | pagination | `search` is not a string | |
//! | `INVALID_FILTER` | pagination | a filter with an empty key, a key that is a list parameter, or a value that is not a string, integer, boolean or `null` (`field` names it) | |
//! | `UNKNOWN_PARAMETER` | pagination | a list parameter this API does not have (`field` names it) | |
//! | `MALFORMED_RESPONSE` | pagination | a list response is none of the provider's list envelopes | |
//! | `OUT_OF_RANGE` | pagination | the page arithmetic passes 2^53 − 1 | |
//! | `INVALID_SINCE` | catch-up | the checkpoint a catch-up starts from is not a date-time (`2026-11-27T12:00:00.000Z`, `T` and `Z` in either case, or `±HH:MM`) | |
//! | `INVALID_OVERLAP` | catch-up | the catch-up's overlap is not an integer from 0 to 2^53 − 1 milliseconds | |
//! | `API_ERROR` | catch-up | the API answered a page of `GET /v1/external-events` with an error it does not ask to retry (a 401, a 404), or the page's tries are spent: the error carries the API's status, code, message and request id | |
//! | `INVALID_ROUTING_NUMBER` | beneficiary | not 9 digits with a valid ABA check digit (also an issue code) | |
//! | `RULES_UNREADABLE` | beneficiary | the rules document was given and does not have its shape | |
//! | `BANKS_UNREADABLE` | beneficiary | the bank list was given and does not have its shape | |
//! | `UNKNOWN_ACCOUNT_KIND` | beneficiary | an account kind that is none of the ten names (`iban`, `bic`, `clabe`, `cbu`, `cuit`, `ifsc`, `sort_code`, `bsb`, `ca_branch`, `aba`) | |
//! | `INTERNAL_ERROR` | bindings | a bug of xborder (a panic) reached a binding | |
//! | `NOT_INITIALIZED` | bindings | the npm package was called before its module loaded | |
//! | `FREED` | bindings | an object was used after `free()` | |
//! | `WASM_LOAD_FAILED` | bindings | the npm package's `init()` could not load its `.wasm` (a 404, the network, or bytes that are not the module: a dev server's page) | |
//!
//! ## Beneficiary issues ([`ISSUES`])
//!
//! Each issue of a [`Validation`](crate::beneficiary::Validation) has a path, one of these
//! codes, an English message saying what to fix, and the rules document's label of the field;
//! an account-detail issue (`INVALID_ROUTING_NUMBER` and `INVALID_IBAN` to `INVALID_BRANCH_CODE`)
//! also its [`Reason`](crate::beneficiary::Reason) and figures
//! ([`AccountParams`](crate::beneficiary::AccountParams)).
//!
//! | code | means |
//! |---|---|
//! | `REQUIRED` | a required field (fixed rules, or the rules document's) is absent, `null`, or blank |
//! | `INVALID_VALUE` | the wrong type, or a value outside the allowed ones (`ownerType`, `paymentType`, a country that is not ISO 3166-1 alpha-2) |
//! | `INVALID_ROUTING_NUMBER` | `paymentInfo.routingNumber` (US) is not a valid ABA routing number |
//! | `UNKNOWN_BANK` | `paymentInfo.bankId` is not in the country's bank list |
//! | `RULES_MISMATCH` | the rules document is for another country or owner type than the draft |
//! | `BANKS_MISMATCH` | the bank list is for another country than the draft |
//! | `UNSUPPORTED_PAYMENT_TYPE` | the rules document lists payment types and the draft's is not one |
//! | `RULES_UNREADABLE` | the rules document was given and cannot be read: none of its rules applied (path `""`) |
//! | `BANKS_UNREADABLE` | the bank list was given and cannot be read: no bank checked (path `""`) |
//! | `INVALID_IBAN` | an `accountNumber` starting with two letters (outside `AR`), or any in an IBAN country: not a registry country, wrong length or layout, check digits `00`, `01`, `99`, or mod 97 fails |
//! | `INVALID_CLABE` | an 18-digit `accountNumber` to `MX`: its check digit (weights 3, 7, 1) fails |
//! | `INVALID_CBU` | a 22-digit `accountNumber` to `AR` (any other there is an alias, not checked): a block's check digit fails |
//! | `INVALID_CUIT` | `bankDocumentNumber` to `AR`: not 11 digits, a wrong type prefix, or mod 11 fails |
//! | `INVALID_BIC` | `bic`: not 8 or 11 characters of bank, ISO country, location, branch |
//! | `INVALID_IFSC` | `ifscCode` to `IN`: not 4 letters, `0`, 6 letters or digits |
//! | `INVALID_SORT_CODE` | `sortCode` to `GB`: not 6 digits |
//! | `INVALID_BSB` | `bsbNumber` to `AU`: not 6 digits |
//! | `INVALID_BRANCH_CODE` | `branchCode` to `CA`: not 8 digits |
//!
//! ## Page drift ([`DRIFTS`])
//!
//! | code | means |
//! |---|---|
//! | `TOTAL_CHANGED` | `total` differs from the previous page's |
//! | `REPEATED_RECORDS` | records of an earlier page came again (passed on once) |
//! | `HAS_NEXT_CONFLICT` | the page's `hasNext` contradicts its `total`; the walker follows `hasNext` |
//! | `POSSIBLY_SKIPPED` | the total shrank, or the walk saw fewer unique records than `total` |
//! | `STALLED` | two pages in a row brought nothing new: the walk ends |
//!
//! ## Catch-up drift ([`CATCH_UP_DRIFTS`], beyond the page drift above)
//!
//! | code | means |
//! |---|---|
//! | `MALFORMED_RECORD` | records of `GET /v1/external-events` that are not events: reported, not passed on |
//!
//! ```
//! use xborder_core::codes;
//! assert!(codes::ERRORS.contains(&"SIGNATURE_MISMATCH"));
//! assert!(codes::ISSUES.contains(&"UNKNOWN_BANK"));
//! assert_eq!(codes::INTERNAL_ERROR, "INTERNAL_ERROR");
//! assert!(codes::ERRORS.contains(&codes::NOT_INITIALIZED) && codes::ERRORS.contains(&codes::FREED));
//! ```

/// What every error of xborder answers: its stable code and, where it names one, the field
/// concerned. A binding converts any error through this one trait (its code, its field, its
/// `Display` as the message) instead of by hand per error type.
///
/// ```
/// use xborder_core::codes::Coded;
/// use xborder_core::pagination::ListParams;
/// fn describe(e: &dyn Coded) -> String {
///     format!("{} at {:?}: {e}", e.code(), e.field())
/// }
/// let e = ListParams::from_value(&serde_json::json!({"status": "x"})).unwrap_err();
/// assert!(describe(&e).starts_with("UNKNOWN_PARAMETER at Some(\"status\")"));
/// ```
pub trait Coded: std::error::Error {
    /// The stable SCREAMING_SNAKE code (one of [`ERRORS`], or of [`ISSUES`] for an account
    /// detail).
    ///
    /// ```
    /// use xborder_core::{codes::Coded, signature::SignatureError};
    /// let e: &dyn Coded = &SignatureError::MalformedSecret;
    /// assert_eq!(e.code(), "MALFORMED_SECRET");
    /// ```
    fn code(&self) -> &'static str;
    /// The field, parameter or step input concerned, where the error names one.
    ///
    /// ```
    /// use xborder_core::{codes::Coded, envelope::EnvelopeError};
    /// let e: &dyn Coded = &EnvelopeError::MissingField("id");
    /// assert_eq!((e.code(), e.field()), ("MISSING_FIELD", Some("id")));
    /// ```
    fn field(&self) -> Option<&str> {
        None
    }
}

/// `Coded` from the type's own `code()` (and `field()`), each written once in its module. The
/// two `Copy` errors take `self` by value.
macro_rules! coded {
    ($($(#[$copy:ident])? $ty:ty $(=> $field:ident)?),* $(,)?) => {$(
        impl Coded for $ty {
            fn code(&self) -> &'static str {
                <$ty>::code(coded!(@recv self $($copy)?))
            }
            $(fn field(&self) -> Option<&str> {
                <$ty>::$field(self)
            })?
        }
    )*};
    (@recv $s:ident copy) => { *$s };
    (@recv $s:ident) => { $s };
}

#[cfg(feature = "api")]
coded!(crate::catch_up::CatchUpError => field);

coded!(
    #[copy] crate::signature::SignatureError,
    crate::envelope::EnvelopeError => field,
    crate::delivery::StoreError,
    crate::delivery::ReceiveError => field,
    crate::claims::ClaimError => field,
    crate::handling::OutOfOrder => field,
    crate::events::RegistrationError,
    crate::events::CatalogError,
    crate::pagination::PaginationError => field,
    #[copy] crate::beneficiary::RoutingNumberError,
    crate::beneficiary::UnreadableDocument,
    crate::beneficiary::AccountDetailError,
    crate::beneficiary::UnknownAccountKind,
    crate::beneficiary::FormError => field,
    crate::MalformedJson,
    #[copy] crate::transport::TransportError,
);

/// A bug of xborder reached a binding (a Rust panic turned into an error). Core never
/// reports it; the bindings do, with this text.
pub const INTERNAL_ERROR: &str = "INTERNAL_ERROR";

/// A call reached a binding whose module is not loaded yet (the npm package in a browser or a
/// worker, before `await init()` resolved). Core never reports it; the bindings do.
pub const NOT_INITIALIZED: &str = "NOT_INITIALIZED";

/// An object was used after its memory was released (the npm package's `free()`). Core never
/// reports it; the bindings do.
pub const FREED: &str = "FREED";

/// The host's persist of an event failed: the claim was released so the provider's retry can
/// take it, and the delivery is answered 500 (`reply_to_code(PERSIST_FAILED)`). Core's
/// [`Handling`](crate::handling::Handling) reports it in its answer's `code` (no error type does);
/// the receivers answer it, with this text.
///
/// ```
/// use xborder_core::{claims::reply_to_code, codes};
/// assert!(codes::ERRORS.contains(&codes::PERSIST_FAILED));
/// assert_eq!(reply_to_code(codes::PERSIST_FAILED).status, 500);
/// ```
pub use crate::handling::PERSIST_FAILED;

/// Every error code: what a thrown error, a rejected delivery or a refused registration
/// carries, the codes only the bindings report ([`INTERNAL_ERROR`], [`NOT_INITIALIZED`],
/// [`FREED`], `WASM_LOAD_FAILED`) and the one the hosts answer ([`PERSIST_FAILED`]) included.
pub const ERRORS: &[&str] = &[
    // signature::SignatureError
    "MISSING_SIGNATURE",
    "MALFORMED_SIGNATURE",
    "EMPTY_SECRET",
    "MALFORMED_SECRET",
    "SIGNATURE_MISMATCH",
    // envelope::EnvelopeError
    "BODY_TOO_LARGE",
    "NESTING_TOO_DEEP",
    "MALFORMED_JSON",
    "MISSING_FIELD",
    "INVALID_FIELD",
    "ENTITY_MISMATCH",
    // transport::TransportError
    "BODY_TIMEOUT",
    "TOO_MANY_CONNECTIONS",
    // delivery::StoreError (also claims::ClaimError)
    "STORE_UNAVAILABLE",
    // claims::ClaimError
    "INVALID_STEP",
    // the host's flow: a persist that failed, the claim released
    PERSIST_FAILED,
    // events::RegistrationError, events::CatalogError
    "VALIDATION_FAILED",
    "WEBHOOK_LIMIT_REACHED",
    "INVALID_URL",
    "INVALID_EVENT_NAME",
    // pagination::PaginationError
    "INVALID_PAGE",
    "INVALID_PAGE_SIZE",
    "INVALID_SORT_ORDER",
    "INVALID_SORT_BY",
    "INVALID_SEARCH",
    "INVALID_FILTER",
    "UNKNOWN_PARAMETER",
    "MALFORMED_RESPONSE",
    "OUT_OF_RANGE",
    // catch_up::CatchUpError (beside the pagination codes it carries)
    "INVALID_SINCE",
    "INVALID_OVERLAP",
    "API_ERROR",
    // beneficiary::RoutingNumberError (also an issue code)
    "INVALID_ROUTING_NUMBER",
    // beneficiary::UnreadableDocument (also issue codes): a document that cannot be read,
    // where the answer is an error rather than an issue (the fields a form asks for)
    "RULES_UNREADABLE",
    "BANKS_UNREADABLE",
    // beneficiary::UnknownAccountKind: `account.check` of a kind that is not one of the ten
    "UNKNOWN_ACCOUNT_KIND",
    // the bindings
    INTERNAL_ERROR,
    NOT_INITIALIZED,
    FREED,
    // the npm package's `init()` in a browser: the `.wasm` could not be fetched, or what was
    // fetched is not the module (a dev server's index.html); its message says what came instead
    "WASM_LOAD_FAILED",
];

/// Every issue code of a beneficiary validation ([`crate::beneficiary::IssueCode`]).
pub const ISSUES: &[&str] = &[
    "REQUIRED",
    "INVALID_VALUE",
    "INVALID_ROUTING_NUMBER",
    "UNKNOWN_BANK",
    "RULES_MISMATCH",
    "BANKS_MISMATCH",
    "UNSUPPORTED_PAYMENT_TYPE",
    "RULES_UNREADABLE",
    "BANKS_UNREADABLE",
    "INVALID_IBAN",
    "INVALID_CLABE",
    "INVALID_CBU",
    "INVALID_CUIT",
    "INVALID_BIC",
    "INVALID_IFSC",
    "INVALID_SORT_CODE",
    "INVALID_BSB",
    "INVALID_BRANCH_CODE",
];

/// Every drift code of the all-pages walker ([`crate::pagination::Drift`]).
pub const DRIFTS: &[&str] = &[
    "TOTAL_CHANGED",
    "REPEATED_RECORDS",
    "HAS_NEXT_CONFLICT",
    "POSSIBLY_SKIPPED",
    "STALLED",
];

/// The drift codes a catch-up reports beyond [`DRIFTS`]
/// ([`crate::catch_up::CatchUpDrift`]).
pub const CATCH_UP_DRIFTS: &[&str] = &["MALFORMED_RECORD"];

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// The module's tables name every code of the lists, once each, and nothing else.
    #[test]
    fn the_doc_tables_cover_every_code() {
        let doc: Vec<&str> = include_str!("codes.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .filter_map(|l| l.split('`').next())
            .collect();
        let mut listed: Vec<&str> = ERRORS
            .iter()
            .chain(ISSUES)
            .chain(DRIFTS)
            .chain(CATCH_UP_DRIFTS)
            .copied()
            .collect();
        let mut doc_sorted = doc.clone();
        listed.sort_unstable();
        doc_sorted.sort_unstable();
        assert_eq!(doc_sorted, listed);
    }

    use super::*;
    use crate::beneficiary::{Document, IssueCode, RoutingNumberError};
    use crate::claims::ClaimError;
    use crate::delivery::StoreError;
    use crate::envelope::EnvelopeError;
    use crate::events::{CatalogError, RegistrationError};
    use crate::pagination::{Drift, PaginationError};
    use crate::signature::SignatureError;

    // Each `every_*` lists every variant; its `match` is exhaustive inside this crate, so a new
    // variant does not compile until it is listed here, and then its code must be in the list.

    fn every_signature_error() -> Vec<SignatureError> {
        use SignatureError as E;
        let all = vec![
            E::MissingSignature,
            E::MalformedSignature,
            E::EmptySecret,
            E::MalformedSecret,
            E::SignatureMismatch,
        ];
        for e in &all {
            match e {
                E::MissingSignature
                | E::MalformedSignature
                | E::EmptySecret
                | E::MalformedSecret
                | E::SignatureMismatch => {}
            }
        }
        all
    }

    /// Every error a delivery can be rejected with has the status its doc promises: the request's
    /// (signature, envelope) 400, a body over the limit 413, this service's secret 500, a store
    /// that failed 503 with `Retry-After`.
    #[test]
    fn every_reject_has_its_status() {
        use crate::claims::reply_to_code;
        for e in every_signature_error() {
            let want = match e {
                SignatureError::EmptySecret | SignatureError::MalformedSecret => 500,
                _ => 400,
            };
            assert_eq!(reply_to_code(e.code()).status, want, "{}", e.code());
        }
        for e in every_envelope_error() {
            let want = if e.code() == "BODY_TOO_LARGE" {
                413
            } else {
                400
            };
            assert_eq!(reply_to_code(e.code()).status, want, "{}", e.code());
        }
        let store = reply_to_code("STORE_UNAVAILABLE");
        assert_eq!((store.status, store.retry_after_s), (503, Some(1)));
        let persist = reply_to_code(PERSIST_FAILED);
        assert_eq!((persist.status, persist.retry_after_s), (500, None));
        for e in every_transport_error() {
            assert_eq!(reply_to_code(e.code()), e.reply(), "{}", e.code());
        }
    }

    fn every_envelope_error() -> Vec<EnvelopeError> {
        use EnvelopeError as E;
        let all = vec![
            E::BodyTooLarge { limit: 1 },
            E::NestingTooDeep { limit: 1 },
            E::MalformedJson,
            E::MissingField("id"),
            E::InvalidField("id"),
            E::EntityMismatch {
                family: String::new(),
                entity_type: String::new(),
            },
        ];
        for e in &all {
            match e {
                E::BodyTooLarge { .. }
                | E::NestingTooDeep { .. }
                | E::MalformedJson
                | E::MissingField(_)
                | E::InvalidField(_)
                | E::EntityMismatch { .. } => {}
            }
        }
        all
    }

    fn every_pagination_error() -> Vec<PaginationError> {
        use PaginationError as E;
        let field = String::new;
        let all = vec![
            E::InvalidPage,
            E::InvalidPageSize,
            E::InvalidSortOrder,
            E::InvalidSortBy,
            E::InvalidSearch,
            E::InvalidFilter { field: field() },
            E::UnknownParameter { field: field() },
            E::MalformedResponse,
            E::OutOfRange,
        ];
        for e in &all {
            match e {
                E::InvalidPage
                | E::InvalidPageSize
                | E::InvalidSortOrder
                | E::InvalidSortBy
                | E::InvalidSearch
                | E::InvalidFilter { .. }
                | E::UnknownParameter { .. }
                | E::MalformedResponse
                | E::OutOfRange => {}
            }
        }
        all
    }

    fn every_registration_error() -> Vec<RegistrationError> {
        use RegistrationError as E;
        let all = vec![
            E::ValidationFailed { rejected: vec![] },
            E::WebhookLimitReached { existing: 5 },
            E::InvalidUrl { reason: "x" },
        ];
        for e in &all {
            match e {
                E::ValidationFailed { .. }
                | E::WebhookLimitReached { .. }
                | E::InvalidUrl { .. } => {}
            }
        }
        all
    }

    fn every_routing_error() -> Vec<RoutingNumberError> {
        use RoutingNumberError as E;
        let all = vec![E::Format, E::AllZeros, E::Prefix, E::Checksum];
        for e in &all {
            match e {
                E::Format | E::AllZeros | E::Prefix | E::Checksum => {}
            }
        }
        all
    }

    fn every_claim_error() -> Vec<ClaimError> {
        use ClaimError as E;
        let all = vec![
            E::InvalidStep { field: "do" },
            E::Store(StoreError::new("x")),
        ];
        for e in &all {
            match e {
                E::InvalidStep { .. } | E::Store(_) => {}
            }
        }
        all
    }

    fn every_drift() -> Vec<Drift> {
        use Drift as D;
        let all = vec![
            D::TotalChanged { from: 1, to: 2 },
            D::RepeatedRecords { count: 1 },
            D::HasNextConflict { has_next: true },
            D::PossiblySkipped { count: 1 },
            D::Stalled,
        ];
        for d in &all {
            match d {
                D::TotalChanged { .. }
                | D::RepeatedRecords { .. }
                | D::HasNextConflict { .. }
                | D::PossiblySkipped { .. }
                | D::Stalled => {}
            }
        }
        all
    }

    /// Every error type answers through `Coded` what its own `code()` and `field()` say.
    #[test]
    fn every_error_type_is_coded() {
        fn check(e: &dyn Coded, code: &str, field: Option<&str>) {
            assert_eq!((e.code(), e.field()), (code, field), "{e}");
        }
        for e in every_signature_error() {
            check(&e, e.code(), None);
        }
        for e in every_envelope_error() {
            check(&e, e.code(), e.field());
        }
        for e in every_pagination_error() {
            check(&e, e.code(), e.field());
        }
        #[cfg(feature = "api")]
        for e in every_catch_up_error() {
            check(&e, e.code(), e.field());
        }
        for e in every_registration_error() {
            check(&e, e.code(), None);
        }
        for e in every_routing_error() {
            check(&e, e.code(), None);
        }
        for e in every_claim_error() {
            check(&e, e.code(), e.field());
        }
        check(&StoreError::new("x"), "STORE_UNAVAILABLE", None);
        check(
            &CatalogError::InvalidName(String::new()),
            "INVALID_EVENT_NAME",
            None,
        );
        check(&crate::MalformedJson, "MALFORMED_JSON", None);
        for e in every_transport_error() {
            check(&e, e.code(), None);
        }
    }

    #[cfg(feature = "api")]
    fn every_catch_up_error() -> Vec<crate::catch_up::CatchUpError> {
        use crate::catch_up::CatchUpError as E;
        let api = crate::api::ApiError::read("GET", 401, &[], None);
        let mut all = vec![E::InvalidSince, E::InvalidOverlap, E::Api(Box::new(api))];
        all.extend(every_pagination_error().into_iter().map(E::Page));
        for e in &all {
            match e {
                E::InvalidSince | E::InvalidOverlap | E::Page(_) | E::Api(_) => {}
            }
        }
        all
    }

    fn every_transport_error() -> Vec<crate::transport::TransportError> {
        use crate::transport::TransportError as E;
        let all = vec![
            E::BodyTimeout { limit_ms: 1 },
            E::TooManyConnections { limit: 1 },
        ];
        for e in &all {
            match e {
                E::BodyTimeout { .. } | E::TooManyConnections { .. } => {}
            }
        }
        all
    }

    fn set(codes: &[&'static str]) -> BTreeSet<&'static str> {
        codes.iter().copied().collect()
    }

    #[test]
    fn errors_is_exactly_what_the_error_types_report() {
        let mut reported = BTreeSet::new();
        reported.extend(every_signature_error().iter().map(|e| e.code()));
        reported.extend(every_envelope_error().iter().map(|e| e.code()));
        reported.extend(every_pagination_error().iter().map(|e| e.code()));
        #[cfg(feature = "api")]
        reported.extend(every_catch_up_error().iter().map(|e| e.code()));
        #[cfg(not(feature = "api"))]
        reported.extend(["INVALID_SINCE", "INVALID_OVERLAP"]);
        reported.extend(every_registration_error().iter().map(|e| e.code()));
        reported.extend(every_routing_error().iter().map(|e| e.code()));
        reported.insert(StoreError::new("x").code());
        reported.extend(every_claim_error().iter().map(|e| e.code()));
        reported.insert(CatalogError::InvalidName(String::new()).code());
        reported.insert(crate::MalformedJson.code());
        let kind = "IBAN".parse::<crate::beneficiary::AccountDetail>();
        reported.extend(kind.err().map(|e| e.code()));
        reported.extend(every_transport_error().iter().map(|e| e.code()));
        for document in [Document::Rules, Document::Banks] {
            match document {
                Document::Rules | Document::Banks => {}
            }
            reported.insert(document.issue_code().as_str());
        }
        reported.extend([
            INTERNAL_ERROR,
            NOT_INITIALIZED,
            FREED,
            "WASM_LOAD_FAILED",
            PERSIST_FAILED,
        ]);
        assert_eq!(reported, set(ERRORS));
        assert_eq!(ERRORS.len(), set(ERRORS).len(), "a code is listed twice");
    }

    #[test]
    fn issues_and_drifts_are_exactly_their_enums() {
        let issues: BTreeSet<_> = IssueCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(issues, set(ISSUES));
        assert_eq!(IssueCode::ALL.len(), ISSUES.len());
        let drifts: BTreeSet<_> = every_drift().iter().map(Drift::code).collect();
        #[cfg(feature = "api")]
        {
            use crate::catch_up::CatchUpDrift;
            let malformed = CatchUpDrift::MalformedRecord { count: 1 };
            match malformed {
                CatchUpDrift::MalformedRecord { .. } | CatchUpDrift::Page(_) => {}
            }
            assert_eq!(set(&[malformed.code()]), set(CATCH_UP_DRIFTS));
        }
        assert_eq!(drifts, set(DRIFTS));
    }

    /// `ALL` of each enum a binding mirrors lists every variant: the exhaustive match does
    /// not compile without a new variant, and the count then differs.
    #[test]
    fn enum_lists_are_complete() {
        use crate::beneficiary::FieldSource;
        use crate::claims::{Outcome, Step};
        use crate::delivery::Action;
        use crate::events::EventKind;
        let issue = |c: &IssueCode| match c {
            IssueCode::Required => 0,
            IssueCode::InvalidValue => 1,
            IssueCode::InvalidRoutingNumber => 2,
            IssueCode::UnknownBank => 3,
            IssueCode::RulesMismatch => 4,
            IssueCode::BanksMismatch => 5,
            IssueCode::UnsupportedPaymentType => 6,
            IssueCode::RulesUnreadable => 7,
            IssueCode::BanksUnreadable => 8,
            IssueCode::InvalidIban => 9,
            IssueCode::InvalidClabe => 10,
            IssueCode::InvalidCbu => 11,
            IssueCode::InvalidCuit => 12,
            IssueCode::InvalidBic => 13,
            IssueCode::InvalidIfsc => 14,
            IssueCode::InvalidSortCode => 15,
            IssueCode::InvalidBsb => 16,
            IssueCode::InvalidBranchCode => 17,
        };
        let kind = |k: &EventKind| match k {
            EventKind::Live => 0,
            EventKind::Planned => 1,
            EventKind::Wildcard => 2,
            EventKind::Unknown => 3,
            EventKind::Invalid => 4,
        };
        let action = |a: &Action| match a {
            Action::Process => 0,
            Action::Ignore => 1,
            Action::Duplicate => 2,
            Action::Reject => 3,
        };
        let source = |s: &FieldSource| match s {
            FieldSource::Fixed => 0,
            FieldSource::Rules => 1,
        };
        // Each list holds the arms' indices 0..arms exactly once: adding a variant forces an arm
        // (and its count below) before this compiles, and ALL must then list it.
        let check = |idx: Vec<usize>, arms: usize| {
            let set: BTreeSet<usize> = idx.iter().copied().collect();
            assert_eq!(set.len(), idx.len(), "listed twice");
            assert_eq!(
                set,
                (0..arms).collect::<BTreeSet<_>>(),
                "ALL misses a variant"
            );
        };
        check(IssueCode::ALL.iter().map(issue).collect(), 18);
        check(EventKind::ALL.iter().map(kind).collect(), 5);
        check(Action::ALL.iter().map(action).collect(), 4);
        check(FieldSource::ALL.iter().map(source).collect(), 2);
        let outcome = |o: &Outcome| match o {
            Outcome::Claimed => 0,
            Outcome::InProgress => 1,
            Outcome::Duplicate => 2,
            Outcome::Completed => 3,
            Outcome::Released => 4,
            Outcome::Stale => 5,
        };
        let step = |s: &Step| match s {
            Step::Claim => 0,
            Step::Complete => 1,
            Step::Release => 2,
        };
        check(Outcome::ALL.iter().map(outcome).collect(), 6);
        check(Step::ALL.iter().map(step).collect(), 3);
    }

    #[test]
    fn codes_are_screaming_snake() {
        for c in ERRORS.iter().chain(ISSUES).chain(DRIFTS) {
            assert!(
                !c.is_empty()
                    && c.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
                    && !c.starts_with('_')
                    && !c.ends_with('_'),
                "{c}"
            );
        }
    }
}
