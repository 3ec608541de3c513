//! # xborder-ffi
//!
//! The uniffi bindings of [`xborder_core`] for Kotlin, Swift and Python. Conversion only: every
//! rule lives in the core; this crate turns its results into records and enums the foreign
//! languages read in their own idiom, and its errors into one error enum, [`XborderError`],
//! whose every variant carries FORMAT.md's stable `code`.
//!
//! JSON inputs (drafts, rules documents, bank lists, list responses, list parameters) cross the
//! boundary as JSON text; raw webhook bodies as bytes, exactly as received.
//!
//! One module per core concern, each converting that concern only and exporting its functions
//! (errors, events, signature, envelope, delivery, beneficiary, account, form, pagination,
//! claims, handling, api, catch_up), re-exported here.

// `XborderError::Api` carries the API's answer (`ApiErrorInfo`, ~170 bytes with its code and
// detail) by value: uniffi lowers an error's fields as they are declared and has no `Box` field,
// and an error crosses the boundary once per failed call (never a hot path), so the size of
// `Result<_, XborderError>` is accepted here rather than flattening the answer into text.
#![allow(clippy::result_large_err)]

uniffi::setup_scaffolding!("xborder");

mod account;
mod api;
mod beneficiary;
mod catch_up;
mod claims;
mod delivery;
mod envelope;
mod errors;
mod events;
mod form;
mod handling;
mod pagination;
mod signature;

pub use account::{AccountCheck, AccountKind, AccountParams, AccountState, Reason};
pub use api::{ApiErrorInfo, HttpHeader, RequestId, Retry};
pub use beneficiary::{
    BeneficiaryValidation, BeneficiaryValidator, FieldSource, Issue, IssueCode, RequiredField,
};
pub use catch_up::{CatchUp, ExternalEvent, Fetched, Recovery, Tally};
pub use claims::{ClaimNeed, ClaimOutcome, ClaimReply, ClaimStore, ClaimTask, Claims, StoreTime};
pub use delivery::{Action, Decision, Receiver};
pub use envelope::{DecodeLimits, Envelope};
pub use errors::XborderError;
pub use events::{Catalog, EventClassification, EventKind, RegistrationCheck, RejectedEvent};
pub use form::{AccountLength, FormField, FormInput, FormOption, FormSource};
pub use pagination::{Drift, PageInfo, PageRequest, PageWalker, WalkStep};

pub use account::{check_account, parse_account_kind};
pub use api::{read_api_error, read_api_error_text};
pub use beneficiary::{normalize_beneficiary, required_fields, validate_beneficiary};
pub use claims::claim_error_reply;
pub use envelope::{decode_envelope, default_decode_limits};
pub use events::{check_registration, classify_event, create_webhook_body, event_matches};
pub use form::beneficiary_form;
pub use pagination::{list_query, page_info};
pub use signature::{sign, verify, verify_with_secrets};
