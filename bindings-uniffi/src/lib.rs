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
//! claims), re-exported
//! here.

uniffi::setup_scaffolding!("xborder");

mod account;
mod beneficiary;
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
pub use beneficiary::{
    BeneficiaryValidation, BeneficiaryValidator, FieldSource, Issue, IssueCode, RequiredField,
};
pub use claims::{ClaimNeed, ClaimOutcome, ClaimReply, ClaimStore, ClaimTask, Claims, StoreTime};
pub use delivery::{Action, Decision, Receiver};
pub use envelope::{DecodeLimits, Envelope};
pub use errors::XborderError;
pub use events::{Catalog, EventClassification, EventKind, RegistrationCheck, RejectedEvent};
pub use form::{AccountLength, FormField, FormInput, FormOption, FormSource};
pub use pagination::{Drift, PageInfo, PageRequest, PageWalker, WalkStep};

pub use account::{check_account, parse_account_kind};
pub use beneficiary::{normalize_beneficiary, required_fields, validate_beneficiary};
pub use claims::claim_error_reply;
pub use envelope::{decode_envelope, default_decode_limits};
pub use events::{check_registration, classify_event, create_webhook_body, event_matches};
pub use form::beneficiary_form;
pub use pagination::{list_query, page_info};
pub use signature::{sign, verify, verify_with_secrets};
