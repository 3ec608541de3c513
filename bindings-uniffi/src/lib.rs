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
//! One module per core concern, each converting that concern only (errors, events, envelope,
//! delivery, beneficiary, pagination, claims), re-exported here. The exported free functions
//! live here rather than in their modules: uniffi orders the generated top-level functions by
//! Rust module path, then name, and the API snapshots (`tests/api_snapshot.rs`) pin that order.

uniffi::setup_scaffolding!("xborder");

mod beneficiary;
mod claims;
mod delivery;
mod envelope;
mod errors;
mod events;
mod pagination;

pub use beneficiary::{
    BeneficiaryValidation, BeneficiaryValidator, FieldSource, Issue, IssueCode, RequiredField,
};
pub use claims::{ClaimNeed, ClaimOutcome, ClaimReply, ClaimStore, ClaimTask, Claims};
pub use delivery::{Action, Decision, Receiver};
pub use envelope::{DecodeLimits, Envelope};
pub use errors::XborderError;
pub use events::{Catalog, EventClassification, EventKind, RegistrationCheck, RejectedEvent};
pub use pagination::{Drift, PageInfo, PageRequest, PageWalker, WalkStep};

use crate::beneficiary::documents;
use crate::errors::parse_json;
use crate::events::registration_check;

// ---------------------------------------------------------------------------------------------
// Events

/// Classifies an event name against the built-in catalog.
#[uniffi::export]
pub fn classify_event(name: String) -> EventClassification {
    xborder_core::events::Catalog::builtin()
        .classify_name(&name)
        .into()
}

/// Checks a Create Webhook call: every name must be live or a listed wildcard, and fewer than 5
/// webhooks may exist already.
#[uniffi::export(default(existing_webhooks = 0))]
pub fn check_registration(events: Vec<String>, existing_webhooks: u32) -> RegistrationCheck {
    registration_check(
        &xborder_core::events::Catalog::builtin(),
        &events,
        existing_webhooks,
    )
}

/// The JSON body of `POST /v1/webhooks` (`{"events":[...],"url":"..."}`), after the same check
/// as [`check_registration`]; throws its code when the server would refuse.
#[uniffi::export(default(existing_webhooks = 0))]
pub fn create_webhook_body(
    events: Vec<String>,
    url: String,
    existing_webhooks: u32,
) -> Result<String, XborderError> {
    let reg =
        xborder_core::events::Catalog::builtin().check_registration(&events, existing_webhooks)?;
    Ok(reg.create_webhook_body(&url)?)
}

/// Whether a delivered `event` is covered by any of `subscriptions` (identical name, or a
/// wildcard of its family).
#[uniffi::export]
pub fn event_matches(subscriptions: Vec<String>, event: String) -> bool {
    xborder_core::events::Catalog::builtin().matches(&subscriptions, &event)
}

// ---------------------------------------------------------------------------------------------
// Signatures

/// The `X-Webhook-Signature` of `body`: lowercase hex HMAC-SHA256 keyed with the UTF-8 bytes
/// of `secret`. Throws `EMPTY_SECRET`.
#[uniffi::export]
pub fn sign(secret: String, body: Vec<u8>) -> Result<String, XborderError> {
    Ok(xborder_core::signature::sign(secret.as_bytes(), &body)?)
}

/// Checks a signature header (`null` when absent) against the raw body with one secret (its
/// UTF-8 bytes are the key, used as given: never trimmed). Returns normally when it verifies;
/// throws `EMPTY_SECRET`, `MISSING_SIGNATURE`, `MALFORMED_SIGNATURE` or `SIGNATURE_MISMATCH`.
/// During a key rotation use [`verify_with_secrets`].
#[uniffi::export]
pub fn verify(
    secret: String,
    body: Vec<u8>,
    signature: Option<String>,
) -> Result<(), XborderError> {
    Ok(xborder_core::signature::verify(
        &[secret],
        &body,
        signature.as_deref(),
    )?)
}

/// [`verify`] with several secrets, for a key rotation: passes when any of them signed the body.
/// Throws `EMPTY_SECRET` when the list is empty or a secret in it is empty.
#[uniffi::export]
pub fn verify_with_secrets(
    secrets: Vec<String>,
    body: Vec<u8>,
    signature: Option<String>,
) -> Result<(), XborderError> {
    Ok(xborder_core::signature::verify(
        &secrets,
        &body,
        signature.as_deref(),
    )?)
}

// ---------------------------------------------------------------------------------------------
// Envelope

/// The core's default limits (1 MiB, depth 64), for hosts that adjust one of them.
#[uniffi::export]
pub fn default_decode_limits() -> DecodeLimits {
    let d = xborder_core::envelope::Limits::default();
    DecodeLimits {
        max_body_bytes: d.max_body_bytes as u64,
        max_depth: d.max_depth as u64,
    }
}

/// Decodes the raw body bytes of a delivery (signature not checked: see [`Receiver`]) under
/// `limits` (the core's defaults when absent). Throws `BODY_TOO_LARGE`, `NESTING_TOO_DEEP`,
/// `MALFORMED_JSON`, `MISSING_FIELD`, `INVALID_FIELD` or `ENTITY_MISMATCH`, with `field`.
#[uniffi::export(default(limits = None))]
pub fn decode_envelope(
    body: Vec<u8>,
    limits: Option<DecodeLimits>,
) -> Result<Envelope, XborderError> {
    let limits = limits
        .map(xborder_core::envelope::Limits::from)
        .unwrap_or_default();
    let catalog = xborder_core::events::Catalog::builtin();
    Ok(Envelope::from(
        &xborder_core::envelope::Envelope::decode_with_limits(&body, &catalog, &limits)?,
    ))
}

// ---------------------------------------------------------------------------------------------
// Beneficiary

/// Validates a beneficiary draft (the JSON payload of `POST /v1/beneficiaries`) with the
/// optional validation-rules response and the optional bank-list response of `banks_country`,
/// each the response text as received (a bank list given without its country is for no
/// country: `BANKS_MISMATCH`). Issues are results, not errors: a document that cannot be read
/// is the issue `RULES_UNREADABLE` or `BANKS_UNREADABLE`; it throws only `MALFORMED_JSON` when
/// the draft is not JSON.
#[uniffi::export(default(rules_json = None, banks_country = None, banks_json = None))]
pub fn validate_beneficiary(
    draft_json: String,
    rules_json: Option<String>,
    banks_country: Option<String>,
    banks_json: Option<String>,
) -> Result<BeneficiaryValidation, XborderError> {
    let draft = parse_json(&draft_json, "draft_json")?;
    Ok(documents(rules_json, banks_country, banks_json)
        .validate(&draft)
        .into())
}

/// The fields a form must ask for, for a payment type and country: the fixed ones, then the
/// rules document's (when given, and for that country), each once, parents before children.
/// `rules_json` is the response text as received; throws `RULES_UNREADABLE` when it cannot be
/// read (never an empty list of its fields).
#[uniffi::export]
pub fn required_fields(
    rules_json: Option<String>,
    payment_type: String,
    country: String,
) -> Result<Vec<RequiredField>, XborderError> {
    let rules = rules_json
        .map(xborder_core::beneficiary::ValidationRules::from_json)
        .transpose()?;
    Ok(
        xborder_core::beneficiary::required_fields(rules.as_ref(), &payment_type, &country)
            .into_iter()
            .map(|f| RequiredField {
                source: f.source.into(),
                path: f.path,
                description: f.description,
            })
            .collect(),
    )
}

// ---------------------------------------------------------------------------------------------
// Pagination

/// The query string (without `?`) of a list request from a JSON object of parameters
/// (`page`, `pageSize`, `sortBy`, `sortOrder`, `search`; absent or `null` take the defaults).
/// Throws the pagination codes, or `MALFORMED_JSON` when the text is not JSON.
#[uniffi::export]
pub fn list_query(params_json: String) -> Result<String, XborderError> {
    let params = xborder_core::pagination::ListParams::from_value(&parse_json(
        &params_json,
        "params_json",
    )?)?;
    Ok(params.to_query())
}

/// The page facts of a list response (JSON text): `{data, total, page, pageSize}`,
/// `{data, total, hasNext}` or `{data, meta: {...}}`. `request` supplies what the response
/// leaves out, and without it the defaults do (page 0 of 10); the response's own values win. Throws
/// `MALFORMED_RESPONSE`, `INVALID_PAGE_SIZE`, `OUT_OF_RANGE`, or `MALFORMED_JSON` when the text
/// is not JSON.
#[uniffi::export(default(request = None))]
pub fn page_info(
    response_json: String,
    request: Option<PageRequest>,
) -> Result<PageInfo, XborderError> {
    let response = parse_json(&response_json, "response_json")?;
    let request = request.map(|r| r.resolved()).transpose()?;
    Ok(xborder_core::pagination::page_info(&response, request)?.into())
}

// ---------------------------------------------------------------------------------------------
// Claims

/// What to answer the provider when a claim step threw the error with `code` (its
/// `error_code()`): `STORE_UNAVAILABLE` → 503 with `Retry-After: 1`; anything else → 500.
#[uniffi::export]
pub fn claim_error_reply(code: String) -> ClaimReply {
    xborder_core::claims::reply_to_code(&code).into()
}
