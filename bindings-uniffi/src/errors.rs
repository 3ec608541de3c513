//! The one error enum of the bindings, and the conversion of every core error into it
//! through core's [`Coded`] trait.

use serde_json::Value;
use xborder_core::codes::Coded;
use xborder_core::{
    beneficiary, catch_up, claims, delivery, envelope, events, handling, pagination, signature,
};

use crate::{ApiErrorInfo, RejectedEvent};
#[cfg(doc)]
use crate::{Catalog, ClaimStore};

/// Every error of the bindings. Each variant carries `code`, the stable SCREAMING_SNAKE code of
/// FORMAT.md, and `detail`, a human-readable sentence (never to be parsed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, uniffi::Error)]
pub enum XborderError {
    /// `VALIDATION_FAILED` or `WEBHOOK_LIMIT_REACHED`: the server would refuse the registration.
    #[error("{detail}")]
    Registration {
        /// `VALIDATION_FAILED` or `WEBHOOK_LIMIT_REACHED`.
        code: String,
        /// The names refused, each once (empty for `WEBHOOK_LIMIT_REACHED`).
        rejected: Vec<RejectedEvent>,
        /// What happened, for people.
        detail: String,
    },
    /// A signature or key problem: `MISSING_SIGNATURE`, `MALFORMED_SIGNATURE`, `EMPTY_SECRET`,
    /// `MALFORMED_SECRET`, `SIGNATURE_MISMATCH`.
    #[error("{detail}")]
    Signature {
        /// The stable code.
        code: String,
        /// What happened, for people.
        detail: String,
    },
    /// The body is not a usable envelope: `BODY_TOO_LARGE`, `NESTING_TOO_DEEP`, `MALFORMED_JSON`,
    /// `MISSING_FIELD`, `INVALID_FIELD`, `ENTITY_MISMATCH`.
    #[error("{detail}")]
    Envelope {
        /// The stable code.
        code: String,
        /// The dotted envelope field concerned (`id`, `entity.type`, ...), where there is one.
        field: Option<String>,
        /// What happened, for people.
        detail: String,
    },
    /// A store failed (the receiver's dedupe store, or a claims store: it threw, answered an
    /// entry xborder did not write, or kept changing under concurrent requests):
    /// `STORE_UNAVAILABLE`.
    #[error("{detail}")]
    Store {
        /// The stable code.
        code: String,
        /// What happened, for people.
        detail: String,
    },
    /// A name could not be added to a [`Catalog`]: `INVALID_EVENT_NAME`.
    #[error("{detail}")]
    Catalog {
        /// `INVALID_EVENT_NAME`.
        code: String,
        /// What happened, for people.
        detail: String,
    },
    /// A claim step is not usable: `INVALID_STEP` (a store failure during a step is a `Store`
    /// error, `STORE_UNAVAILABLE`).
    #[error("{detail}")]
    Claim {
        /// `INVALID_STEP`.
        code: String,
        /// The input at fault: `do` (the step), `id` or `token`.
        field: Option<String>,
        /// What happened, for people.
        detail: String,
    },
    /// A JSON text argument is not JSON: `MALFORMED_JSON`.
    #[error("{detail}")]
    Json {
        /// `MALFORMED_JSON`.
        code: String,
        /// Which argument, for people.
        detail: String,
    },
    /// A server document given and unreadable where the answer is an error rather than an
    /// issue (the fields a form asks for): `RULES_UNREADABLE`, `BANKS_UNREADABLE`.
    #[error("{detail}")]
    Document {
        /// `RULES_UNREADABLE` or `BANKS_UNREADABLE`.
        code: String,
        /// Why, and the shape the document must have, for people.
        detail: String,
    },
    /// A form cannot be built or an account kind is unknown: `INVALID_VALUE` (with the field:
    /// `country`, `paymentType`, `ownerType`), `RULES_UNREADABLE`, `RULES_MISMATCH`,
    /// `BANKS_UNREADABLE`, `BANKS_MISMATCH`, `UNKNOWN_ACCOUNT_KIND`.
    #[error("{detail}")]
    Form {
        /// The stable code.
        code: String,
        /// The input concerned, for `INVALID_VALUE`.
        field: Option<String>,
        /// What happened, for people.
        detail: String,
    },
    /// List parameters or a list response are not usable: `INVALID_PAGE`, `INVALID_PAGE_SIZE`,
    /// `INVALID_SORT_ORDER`, `INVALID_SORT_BY`, `INVALID_SEARCH`, `INVALID_FILTER`,
    /// `UNKNOWN_PARAMETER`, `MALFORMED_RESPONSE`, `OUT_OF_RANGE`.
    #[error("{detail}")]
    Pagination {
        /// The stable code.
        code: String,
        /// The parameter or filter key concerned (`INVALID_FILTER`, `UNKNOWN_PARAMETER`).
        field: Option<String>,
        /// What happened, for people.
        detail: String,
    },
    /// A catch-up cannot start: `INVALID_SINCE` (`field`: `since`), `INVALID_OVERLAP`
    /// (`overlapMs`). (Its page errors, `INVALID_PAGE_SIZE` and `MALFORMED_RESPONSE`, are
    /// `Pagination` errors.)
    #[error("{detail}")]
    CatchUp {
        /// The stable code.
        code: String,
        /// The parameter concerned: `since` or `overlapMs`.
        field: Option<String>,
        /// What happened, for people.
        detail: String,
    },
    /// `API_ERROR`: the API answered a catch-up's page request with an error it does not ask to
    /// retry (a 401, a 404), or the page's tries are spent. The walk can go on with the same
    /// request.
    #[error("{detail}")]
    Api {
        /// `API_ERROR`.
        code: String,
        /// The API's answer as core read it: its status, code, message, request id and retry.
        answer: ApiErrorInfo,
        /// What happened, for people.
        detail: String,
    },
}

#[uniffi::export]
impl XborderError {
    /// The stable code, whatever the variant (Swift reads a variant's fields only by matching).
    pub fn error_code(&self) -> String {
        match self {
            XborderError::Registration { code, .. }
            | XborderError::Signature { code, .. }
            | XborderError::Envelope { code, .. }
            | XborderError::Store { code, .. }
            | XborderError::Catalog { code, .. }
            | XborderError::Claim { code, .. }
            | XborderError::Json { code, .. }
            | XborderError::Document { code, .. }
            | XborderError::Form { code, .. }
            | XborderError::Pagination { code, .. }
            | XborderError::CatchUp { code, .. }
            | XborderError::Api { code, .. } => code.clone(),
        }
    }

    /// The field concerned: the envelope field of an `Envelope` error, the parameter or filter
    /// key of a `Pagination` error, the step input (`do`, `id`, `token`) of a `Claim` error,
    /// the parameter of a `CatchUp` error, where they name one.
    pub fn error_field(&self) -> Option<String> {
        match self {
            XborderError::Envelope { field, .. }
            | XborderError::Pagination { field, .. }
            | XborderError::Form { field, .. }
            | XborderError::CatchUp { field, .. }
            | XborderError::Claim { field, .. } => field.clone(),
            _ => None,
        }
    }
}

/// Every core error crosses through core's one trait: its code, its field, its message.
pub(crate) fn coded(e: &dyn Coded) -> (String, Option<String>, String) {
    (
        e.code().to_owned(),
        e.field().map(str::to_owned),
        e.to_string(),
    )
}

impl From<events::RegistrationError> for XborderError {
    fn from(e: events::RegistrationError) -> Self {
        let (code, _, detail) = coded(&e);
        XborderError::Registration {
            code,
            rejected: rejected_of(&e),
            detail,
        }
    }
}

impl From<signature::SignatureError> for XborderError {
    fn from(e: signature::SignatureError) -> Self {
        let (code, _, detail) = coded(&e);
        XborderError::Signature { code, detail }
    }
}

impl From<envelope::EnvelopeError> for XborderError {
    fn from(e: envelope::EnvelopeError) -> Self {
        let (code, field, detail) = coded(&e);
        XborderError::Envelope {
            code,
            field,
            detail,
        }
    }
}

impl From<delivery::StoreError> for XborderError {
    fn from(e: delivery::StoreError) -> Self {
        let (code, _, detail) = coded(&e);
        XborderError::Store { code, detail }
    }
}

impl From<pagination::PaginationError> for XborderError {
    fn from(e: pagination::PaginationError) -> Self {
        let (code, field, detail) = coded(&e);
        XborderError::Pagination {
            code,
            field,
            detail,
        }
    }
}

impl From<catch_up::CatchUpError> for XborderError {
    fn from(e: catch_up::CatchUpError) -> Self {
        let (code, field, detail) = coded(&e);
        match e {
            catch_up::CatchUpError::Page(page) => page.into(),
            catch_up::CatchUpError::Api(api) => XborderError::Api {
                code,
                answer: ApiErrorInfo::from(api.as_ref()),
                detail,
            },
            _ => XborderError::CatchUp {
                code,
                field,
                detail,
            },
        }
    }
}

impl From<beneficiary::UnreadableDocument> for XborderError {
    fn from(e: beneficiary::UnreadableDocument) -> Self {
        let (code, _, detail) = coded(&e);
        XborderError::Document { code, detail }
    }
}

impl From<beneficiary::FormError> for XborderError {
    fn from(e: beneficiary::FormError) -> Self {
        let (code, field, detail) = coded(&e);
        XborderError::Form {
            code,
            field,
            detail,
        }
    }
}

impl From<beneficiary::UnknownAccountKind> for XborderError {
    fn from(e: beneficiary::UnknownAccountKind) -> Self {
        let (code, field, detail) = coded(&e);
        XborderError::Form {
            code,
            field,
            detail,
        }
    }
}

impl From<events::CatalogError> for XborderError {
    fn from(e: events::CatalogError) -> Self {
        let (code, _, detail) = coded(&e);
        XborderError::Catalog { code, detail }
    }
}

impl From<handling::OutOfOrder> for XborderError {
    fn from(e: handling::OutOfOrder) -> Self {
        let (code, field, detail) = coded(&e);
        XborderError::Claim {
            code,
            field,
            detail,
        }
    }
}

impl From<claims::ClaimError> for XborderError {
    fn from(e: claims::ClaimError) -> Self {
        match e {
            claims::ClaimError::Store(store) => store.into(),
            other => {
                let (code, field, detail) = coded(&other);
                XborderError::Claim {
                    code,
                    field,
                    detail,
                }
            }
        }
    }
}

/// What a foreign [`ClaimStore`] raised that is not an `XborderError` (any exception of the
/// host's own): a store failure, `STORE_UNAVAILABLE`, never a panic.
impl From<uniffi::UnexpectedUniFFICallbackError> for XborderError {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> Self {
        delivery::StoreError::new(format!("the store raised: {}", e.reason)).into()
    }
}

pub(crate) fn rejected_of(e: &events::RegistrationError) -> Vec<RejectedEvent> {
    match e {
        events::RegistrationError::ValidationFailed { rejected } => {
            rejected.iter().map(RejectedEvent::from).collect()
        }
        _ => Vec::new(),
    }
}

/// Parses a JSON text argument; `MALFORMED_JSON` naming the argument when it is not JSON.
pub(crate) fn parse_json(text: &str, argument: &str) -> Result<Value, XborderError> {
    serde_json::from_str(text).map_err(|e| {
        let code = beneficiary::MalformedJson.code().to_owned();
        XborderError::Json {
            detail: format!("{code}: `{argument}` is not JSON ({e})"),
            code,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClaimTask;

    /// Every pagination code reaches the foreign error with its code and, where it has one,
    /// its field (the other error types are converted by the same `code()` copy).
    #[test]
    fn pagination_errors_keep_code_and_field() {
        let e = XborderError::from(pagination::PaginationError::InvalidFilter {
            field: "status".into(),
        });
        assert_eq!(
            (e.error_code().as_str(), e.error_field().as_deref()),
            ("INVALID_FILTER", Some("status"))
        );
        assert!(xborder_core::codes::ERRORS.contains(&e.error_code().as_str()));
    }

    /// The errors added with the catalog and the claims keep core's code and field.
    #[test]
    fn catalog_and_claim_errors_keep_code_and_field() {
        let mut c = events::Catalog::builtin();
        let e = XborderError::from(c.add_live("Bad Name").unwrap_err());
        assert_eq!(
            (e.error_code().as_str(), e.error_field()),
            ("INVALID_EVENT_NAME", None)
        );
        for (step, id, token, field) in [
            ("finish", "e", "t", "do"),
            ("claim", "", "t", "id"),
            ("claim", "e", "", "token"),
        ] {
            let e = ClaimTask::new(step.into(), id.into(), token.into(), 0, 10, None).unwrap_err();
            assert!(matches!(e, XborderError::Claim { .. }));
            assert_eq!(
                (e.error_code().as_str(), e.error_field().as_deref()),
                ("INVALID_STEP", Some(field))
            );
        }
        let e = XborderError::from(claims::ClaimError::Store(delivery::StoreError::new("down")));
        assert!(matches!(e, XborderError::Store { .. }));
        assert_eq!(e.error_code(), "STORE_UNAVAILABLE");
        let e = XborderError::from(uniffi::UnexpectedUniFFICallbackError::new(
            "ValueError: boom",
        ));
        assert_eq!(e.error_code(), "STORE_UNAVAILABLE");
        assert!(e.to_string().contains("boom"));
        for e in [
            e,
            XborderError::from(c.add_wildcard("order:x").unwrap_err()),
        ] {
            assert!(xborder_core::codes::ERRORS.contains(&e.error_code().as_str()));
        }
    }

    /// Every catch-up error keeps core's code and field, through `Coded`; a page error is a
    /// `Pagination` error, `API_ERROR` carries the API's answer.
    #[test]
    fn catch_up_errors_keep_code_field_and_answer() {
        use xborder_core::api::ApiError;
        use xborder_core::catch_up::CatchUpError as E;
        let body = serde_json::json!({"error": {"CODE": "UNAUTHORIZED", "MESSAGE": "bad key"},
            "requestId": "r1"});
        let api = ApiError::read("GET", 401, &[], Some(&body));
        let all = [
            E::InvalidSince,
            E::InvalidOverlap,
            E::Page(pagination::PaginationError::InvalidPageSize),
            E::Page(pagination::PaginationError::MalformedResponse),
            E::Api(Box::new(api)),
        ];
        for core in all {
            let e = XborderError::from(core.clone());
            assert_eq!(
                (e.error_code().as_str(), e.error_field().as_deref()),
                (core.code(), core.field())
            );
            assert_eq!(e.to_string(), core.to_string());
            assert!(xborder_core::codes::ERRORS.contains(&e.error_code().as_str()));
            match (&core, &e) {
                (E::Page(_), XborderError::Pagination { .. })
                | (E::InvalidSince | E::InvalidOverlap, XborderError::CatchUp { .. }) => {}
                (E::Api(_), XborderError::Api { answer, .. }) => {
                    assert_eq!(
                        (
                            answer.status,
                            answer.code.as_deref(),
                            answer.message.as_deref()
                        ),
                        (401, Some("UNAUTHORIZED"), Some("bad key"))
                    );
                    assert_eq!(answer.retry, crate::Retry::No);
                }
                _ => panic!("{core:?} crossed as {e:?}"),
            }
        }
    }
}
