//! # xborder-ffi
//!
//! The uniffi bindings of [`xborder_core`] for Kotlin, Swift and Python. Conversion only: every
//! rule lives in the core; this crate turns its results into records and enums the foreign
//! languages read in their own idiom, and its errors into one error enum, [`XborderError`],
//! whose every variant carries FORMAT.md's stable `code`.
//!
//! JSON inputs (drafts, rules documents, bank lists, list responses, list parameters) cross the
//! boundary as JSON text; raw webhook bodies as bytes, exactly as received.

use std::fmt;
use std::sync::Mutex;

use serde_json::Value;
use xborder_core::{beneficiary, delivery, envelope, events, pagination, signature};

uniffi::setup_scaffolding!("xborder");

// ---------------------------------------------------------------------------------------------
// Errors

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
    /// `SIGNATURE_MISMATCH`.
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
    /// The dedupe store failed: `STORE_UNAVAILABLE`.
    #[error("{detail}")]
    Store {
        /// The stable code.
        code: String,
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
            | XborderError::Json { code, .. }
            | XborderError::Pagination { code, .. } => code.clone(),
        }
    }

    /// The field concerned: the envelope field of an `Envelope` error, the parameter or filter
    /// key of a `Pagination` error, where they name one.
    pub fn error_field(&self) -> Option<String> {
        match self {
            XborderError::Envelope { field, .. } | XborderError::Pagination { field, .. } => {
                field.clone()
            }
            _ => None,
        }
    }
}

impl From<events::RegistrationError> for XborderError {
    fn from(e: events::RegistrationError) -> Self {
        XborderError::Registration {
            code: e.code().to_owned(),
            rejected: rejected_of(&e),
            detail: e.to_string(),
        }
    }
}

impl From<signature::SignatureError> for XborderError {
    fn from(e: signature::SignatureError) -> Self {
        XborderError::Signature {
            code: e.code().to_owned(),
            detail: e.to_string(),
        }
    }
}

impl From<envelope::EnvelopeError> for XborderError {
    fn from(e: envelope::EnvelopeError) -> Self {
        XborderError::Envelope {
            code: e.code().to_owned(),
            field: e.field().map(str::to_owned),
            detail: e.to_string(),
        }
    }
}

impl From<delivery::StoreError> for XborderError {
    fn from(e: delivery::StoreError) -> Self {
        XborderError::Store {
            code: e.code().to_owned(),
            detail: e.to_string(),
        }
    }
}

impl From<pagination::PaginationError> for XborderError {
    fn from(e: pagination::PaginationError) -> Self {
        XborderError::Pagination {
            code: e.code().to_owned(),
            field: e.field().map(str::to_owned),
            detail: e.to_string(),
        }
    }
}

fn rejected_of(e: &events::RegistrationError) -> Vec<RejectedEvent> {
    match e {
        events::RegistrationError::ValidationFailed { rejected } => {
            rejected.iter().map(RejectedEvent::from).collect()
        }
        _ => Vec::new(),
    }
}

/// Parses a JSON text argument; `MALFORMED_JSON` naming the argument when it is not JSON.
fn parse_json(text: &str, argument: &str) -> Result<Value, XborderError> {
    serde_json::from_str(text).map_err(|e| {
        let code = beneficiary::MalformedJson.code().to_owned();
        XborderError::Json {
            detail: format!("{code}: `{argument}` is not JSON ({e})"),
            code,
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Events

/// What an event name is. Its text form (`toString()`, `description`, `str()`) is FORMAT.md's
/// lower-case name: `live`, `planned`, `wildcard`, `unknown`, `invalid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum EventKind {
    /// In the live tables: emitted and registrable.
    Live,
    /// Reserved: not emitted, rejected at registration.
    Planned,
    /// One of the listed `<entity>:*` wildcards: registrable.
    Wildcard,
    /// Well formed but not in the catalog: a name added after this release.
    Unknown,
    /// Not of the form `<entity>:<action>`.
    Invalid,
}

impl From<EventKind> for events::EventKind {
    fn from(k: EventKind) -> Self {
        match k {
            EventKind::Live => events::EventKind::Live,
            EventKind::Planned => events::EventKind::Planned,
            EventKind::Wildcard => events::EventKind::Wildcard,
            EventKind::Unknown => events::EventKind::Unknown,
            EventKind::Invalid => events::EventKind::Invalid,
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(events::EventKind::from(*self).as_str())
    }
}

impl From<events::EventKind> for EventKind {
    fn from(k: events::EventKind) -> Self {
        match k {
            events::EventKind::Live => EventKind::Live,
            events::EventKind::Planned => EventKind::Planned,
            events::EventKind::Wildcard => EventKind::Wildcard,
            events::EventKind::Unknown => EventKind::Unknown,
            events::EventKind::Invalid => EventKind::Invalid,
            // The core's enum is non-exhaustive; a kind added there must be added here (the
            // unit test `kinds_round_trip` names every one).
            _ => EventKind::Unknown,
        }
    }
}

/// An event name classified: its kind and, when well formed, its entity and action.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct EventClassification {
    /// Live, planned, wildcard, unknown or invalid.
    pub kind: EventKind,
    /// The part before the colon; absent for an invalid name.
    pub entity: Option<String>,
    /// The part after the colon (`*` for a wildcard); absent for an invalid name.
    pub action: Option<String>,
}

/// Classifies an event name against the built-in catalog.
#[uniffi::export]
pub fn classify_event(name: String) -> EventClassification {
    let c = events::Catalog::builtin().classify_name(&name);
    EventClassification {
        kind: c.kind.into(),
        entity: c.parts.map(|p| p.entity().to_owned()),
        action: c.parts.map(|p| p.action().to_owned()),
    }
}

/// A name refused by the registration pre-check, with its kind as the reason.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RejectedEvent {
    /// The name as given.
    pub event: String,
    /// `planned`, `unknown` or `invalid`.
    pub reason: EventKind,
}

impl From<&events::RejectedEvent> for RejectedEvent {
    fn from(r: &events::RejectedEvent) -> Self {
        RejectedEvent {
            event: r.event.clone(),
            reason: r.reason.into(),
        }
    }
}

/// The server's verdict on a Create Webhook call, given before the call is made.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RegistrationCheck {
    /// Whether the server would accept it.
    pub ok: bool,
    /// `VALIDATION_FAILED` or `WEBHOOK_LIMIT_REACHED` when not ok.
    pub code: Option<String>,
    /// The names refused, each once, in the order given.
    pub rejected: Vec<RejectedEvent>,
    /// When ok, the accepted names, each once, in first-seen order.
    pub events: Vec<String>,
}

/// Checks a Create Webhook call: every name must be live or a listed wildcard, and fewer than 5
/// webhooks may exist already.
#[uniffi::export(default(existing_webhooks = 0))]
pub fn check_registration(events: Vec<String>, existing_webhooks: u32) -> RegistrationCheck {
    match events::Catalog::builtin().check_registration(&events, existing_webhooks) {
        Ok(reg) => RegistrationCheck {
            ok: true,
            code: None,
            rejected: Vec::new(),
            events: reg.events().to_vec(),
        },
        Err(e) => RegistrationCheck {
            ok: false,
            code: Some(e.code().to_owned()),
            rejected: rejected_of(&e),
            events: Vec::new(),
        },
    }
}

/// The JSON body of `POST /v1/webhooks` (`{"events":[...],"url":"..."}`), after the same check
/// as [`check_registration`]; throws its code when the server would refuse.
#[uniffi::export(default(existing_webhooks = 0))]
pub fn create_webhook_body(
    events: Vec<String>,
    url: String,
    existing_webhooks: u32,
) -> Result<String, XborderError> {
    let reg = events::Catalog::builtin().check_registration(&events, existing_webhooks)?;
    Ok(reg.create_webhook_body(&url))
}

/// Whether a delivered `event` is covered by any of `subscriptions` (identical name, or a
/// wildcard of its family).
#[uniffi::export]
pub fn event_matches(subscriptions: Vec<String>, event: String) -> bool {
    events::Catalog::builtin().matches(&subscriptions, &event)
}

// ---------------------------------------------------------------------------------------------
// Signatures

/// The `X-Webhook-Signature` of `body`: lowercase hex HMAC-SHA256 keyed with the UTF-8 bytes
/// of `secret`. Throws `EMPTY_SECRET`.
#[uniffi::export]
pub fn sign(secret: String, body: Vec<u8>) -> Result<String, XborderError> {
    Ok(signature::sign(secret.as_bytes(), &body)?)
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
    Ok(signature::verify(&[secret], &body, signature.as_deref())?)
}

/// [`verify`] with several secrets, for a key rotation: passes when any of them signed the body.
/// Throws `EMPTY_SECRET` when the list is empty or a secret in it is empty.
#[uniffi::export]
pub fn verify_with_secrets(
    secrets: Vec<String>,
    body: Vec<u8>,
    signature: Option<String>,
) -> Result<(), XborderError> {
    Ok(signature::verify(&secrets, &body, signature.as_deref())?)
}

// ---------------------------------------------------------------------------------------------
// Envelope

/// A decoded webhook delivery.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Envelope {
    /// The event id: stable across redeliveries, the idempotency key.
    pub id: String,
    /// The event name as sent.
    pub event: String,
    /// Live, planned or unknown.
    pub kind: EventKind,
    /// `entity.id`.
    pub entity_id: String,
    /// `entity.type` as sent.
    pub entity_type: String,
    /// `entity.data` exactly as sent (JSON text), absent when it was absent.
    pub data_json: Option<String>,
}

impl From<&envelope::Envelope> for Envelope {
    fn from(e: &envelope::Envelope) -> Self {
        Envelope {
            id: e.id().to_owned(),
            event: e.event().to_owned(),
            kind: e.kind().into(),
            entity_id: e.entity_id().to_owned(),
            entity_type: e.entity_type().to_owned(),
            data_json: e.raw_data().map(str::to_owned),
        }
    }
}

/// Decoding limits: bodies longer or nested deeper are refused before they are parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct DecodeLimits {
    /// The longest body accepted, in bytes (`BODY_TOO_LARGE` beyond).
    pub max_body_bytes: u64,
    /// The deepest nesting of arrays and objects accepted, the envelope's own two levels
    /// included (`NESTING_TOO_DEEP` beyond).
    pub max_depth: u64,
}

impl From<DecodeLimits> for envelope::Limits {
    fn from(l: DecodeLimits) -> Self {
        envelope::Limits::new(
            usize::try_from(l.max_body_bytes).unwrap_or(usize::MAX),
            usize::try_from(l.max_depth).unwrap_or(usize::MAX),
        )
    }
}

/// The core's default limits (1 MiB, depth 64), for hosts that adjust one of them.
#[uniffi::export]
pub fn default_decode_limits() -> DecodeLimits {
    let d = envelope::Limits::default();
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
    let limits = limits.map(envelope::Limits::from).unwrap_or_default();
    let catalog = events::Catalog::builtin();
    Ok(Envelope::from(&envelope::Envelope::decode_with_limits(
        &body, &catalog, &limits,
    )?))
}

// ---------------------------------------------------------------------------------------------
// Receiver

/// What to do with a delivery. Its text form is FORMAT.md's: `process`, `ignore`, `duplicate`,
/// `reject`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum Action {
    /// Verified, decoded, new, live: persist it, `commit` its id, answer 2xx.
    Process,
    /// Verified, decoded, new, but unknown or planned: answer 2xx, do nothing else.
    Ignore,
    /// Its id was committed already: answer 2xx, do nothing.
    Duplicate,
    /// Not verified or not decodable: answer non-2xx so the service retries.
    Reject,
}

impl From<Action> for delivery::Action {
    fn from(a: Action) -> Self {
        match a {
            Action::Process => delivery::Action::Process,
            Action::Ignore => delivery::Action::Ignore,
            Action::Duplicate => delivery::Action::Duplicate,
            Action::Reject => delivery::Action::Reject,
        }
    }
}

impl From<delivery::Action> for Action {
    fn from(a: delivery::Action) -> Self {
        match a {
            delivery::Action::Process => Action::Process,
            delivery::Action::Ignore => Action::Ignore,
            delivery::Action::Duplicate => Action::Duplicate,
            delivery::Action::Reject => Action::Reject,
            // Non-exhaustive in the core: an unknown decision is not acknowledged
            // (`actions_round_trip` walks core's `Action::ALL`).
            _ => Action::Reject,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(delivery::Action::from(*self).as_str())
    }
}

/// The decision on one delivery.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Decision {
    /// Process, ignore, duplicate or reject.
    pub action: Action,
    /// Whether to answer 2xx (every action but reject; for process, once persisted).
    pub acknowledges: bool,
    /// The code of a reject (a signature or envelope code).
    pub error_code: Option<String>,
    /// The envelope field a reject is about, where there is one.
    pub error_field: Option<String>,
    /// The envelope, when the delivery decoded.
    pub envelope: Option<Envelope>,
}

impl From<&delivery::Decision> for Decision {
    fn from(d: &delivery::Decision) -> Self {
        let action = Action::from(d.action());
        Decision {
            action,
            acknowledges: d.acknowledges(),
            error_code: d.error().map(|e| e.code().to_owned()),
            error_field: d.error().and_then(|e| e.field()).map(str::to_owned),
            envelope: d.envelope().map(Envelope::from),
        }
    }
}

/// Verifies, decodes, classifies and dedupes deliveries, remembering up to `window` committed
/// ids in memory. Safe to share between threads.
#[derive(uniffi::Object)]
pub struct Receiver {
    inner: Mutex<delivery::Receiver>,
}

impl fmt::Debug for Receiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Receiver { secrets: <redacted> }")
    }
}

impl Receiver {
    fn lock(&self) -> std::sync::MutexGuard<'_, delivery::Receiver> {
        // A panic while holding the lock cannot leave the receiver half-updated in a way that
        // matters (a commit either recorded the id or not), so a poisoned lock is reused.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[uniffi::export]
impl Receiver {
    /// A receiver keyed with one secret (its UTF-8 bytes, used as given) and an in-memory
    /// window of `window` committed ids (10,000 by default; 0 remembers none). Throws
    /// `EMPTY_SECRET` when the secret is empty. `limits` bounds the bodies it decodes (the
    /// core's defaults when absent). During a key rotation use [`Receiver::with_secrets`].
    #[uniffi::constructor(default(window = 10000, limits = None))]
    pub fn new(
        secret: String,
        window: u64,
        limits: Option<DecodeLimits>,
    ) -> Result<Self, XborderError> {
        Self::with_secrets(vec![secret], window, limits)
    }

    /// A receiver keyed with several secrets, for a key rotation: a delivery signed with any of
    /// them verifies. Throws `EMPTY_SECRET` when the list is empty or a secret in it is empty.
    #[uniffi::constructor(default(window = 10000, limits = None))]
    pub fn with_secrets(
        secrets: Vec<String>,
        window: u64,
        limits: Option<DecodeLimits>,
    ) -> Result<Self, XborderError> {
        let window = usize::try_from(window).unwrap_or(usize::MAX);
        let limits = limits.map(envelope::Limits::from).unwrap_or_default();
        Ok(Receiver {
            inner: Mutex::new(delivery::Receiver::new(&secrets, window)?.with_limits(limits)),
        })
    }

    /// Decides one delivery: the raw body bytes exactly as received and the
    /// `X-Webhook-Signature` header (`null` when absent). Remembers nothing: only `commit` does.
    pub fn receive(&self, body: Vec<u8>, signature: Option<String>) -> Decision {
        Decision::from(&self.lock().receive(&body, signature.as_deref()))
    }

    /// Records `id` as processed: call it after the event is persisted, before answering 2xx.
    pub fn commit(&self, id: String) -> Result<(), XborderError> {
        Ok(self.lock().commit(&id)?)
    }
}

// ---------------------------------------------------------------------------------------------
// Beneficiary

/// The kind of problem found at a path. Its text form is FORMAT.md's code (`REQUIRED`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum IssueCode {
    /// Absent, `null`, or a string that is empty after trimming.
    Required,
    /// Wrong type, or a value outside the allowed ones.
    InvalidValue,
    /// Not a valid ABA routing number.
    InvalidRoutingNumber,
    /// `bankId` is not among the ids of the bank list.
    UnknownBank,
    /// The rules document is for another country or owner type.
    RulesMismatch,
    /// The bank list is for another country.
    BanksMismatch,
    /// The rules list payment types and the draft's is not among them.
    UnsupportedPaymentType,
}

impl From<IssueCode> for beneficiary::IssueCode {
    fn from(c: IssueCode) -> Self {
        use beneficiary::IssueCode as C;
        match c {
            IssueCode::Required => C::Required,
            IssueCode::InvalidValue => C::InvalidValue,
            IssueCode::InvalidRoutingNumber => C::InvalidRoutingNumber,
            IssueCode::UnknownBank => C::UnknownBank,
            IssueCode::RulesMismatch => C::RulesMismatch,
            IssueCode::BanksMismatch => C::BanksMismatch,
            IssueCode::UnsupportedPaymentType => C::UnsupportedPaymentType,
        }
    }
}

impl fmt::Display for IssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(beneficiary::IssueCode::from(*self).as_str())
    }
}

impl From<beneficiary::IssueCode> for IssueCode {
    fn from(c: beneficiary::IssueCode) -> Self {
        use beneficiary::IssueCode as C;
        match c {
            C::Required => IssueCode::Required,
            C::InvalidValue => IssueCode::InvalidValue,
            C::InvalidRoutingNumber => IssueCode::InvalidRoutingNumber,
            C::UnknownBank => IssueCode::UnknownBank,
            C::RulesMismatch => IssueCode::RulesMismatch,
            C::BanksMismatch => IssueCode::BanksMismatch,
            C::UnsupportedPaymentType => IssueCode::UnsupportedPaymentType,
            // Non-exhaustive in the core; `issue_codes_round_trip` names every one.
            _ => IssueCode::InvalidValue,
        }
    }
}

/// One problem: the dotted payload path (`paymentInfo.bankId`, `""` for the root) and its code.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Issue {
    /// Dotted path from the payload root.
    pub path: String,
    /// What is wrong there.
    pub code: IssueCode,
}

/// The result of a validation: every issue, not just the first.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct BeneficiaryValidation {
    /// Whether there is no issue.
    pub valid: bool,
    /// The issues, unique by (path, code), in the order found.
    pub issues: Vec<Issue>,
}

/// Validates a beneficiary draft (the JSON payload of `POST /v1/beneficiaries`) with the
/// optional validation-rules response and the optional bank-list response of `banks_country`
/// (a bank list given without its country is for no country: `BANKS_MISMATCH`). Issues are
/// results, not errors: it throws only `MALFORMED_JSON` when a given text is not JSON.
#[uniffi::export(default(rules_json = None, banks_country = None, banks_json = None))]
pub fn validate_beneficiary(
    draft_json: String,
    rules_json: Option<String>,
    banks_country: Option<String>,
    banks_json: Option<String>,
) -> Result<BeneficiaryValidation, XborderError> {
    let draft = parse_json(&draft_json, "draft_json")?;
    let rules = rules_json
        .map(|t| parse_json(&t, "rules_json"))
        .transpose()?
        .map(|v| beneficiary::ValidationRules::from_value(&v));
    let banks = banks_json
        .map(|t| parse_json(&t, "banks_json"))
        .transpose()?
        .and_then(|v| beneficiary::BankList::from_parts(banks_country.as_deref(), &v));
    let v = beneficiary::validate(&draft, rules.as_ref(), banks.as_ref());
    Ok(BeneficiaryValidation {
        valid: v.valid(),
        issues: v
            .issues
            .iter()
            .map(|i| Issue {
                path: i.path.clone(),
                code: i.code.into(),
            })
            .collect(),
    })
}

/// Where a required field comes from. Text form: `fixed` or `rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum FieldSource {
    /// The fixed rules of the payments API.
    Fixed,
    /// The server's rules document.
    Rules,
}

impl From<beneficiary::FieldSource> for FieldSource {
    fn from(s: beneficiary::FieldSource) -> Self {
        match s {
            beneficiary::FieldSource::Fixed => FieldSource::Fixed,
            // Non-exhaustive in the core: anything not fixed came from a document
            // (`field_sources_round_trip` walks core's `FieldSource::ALL`).
            _ => FieldSource::Rules,
        }
    }
}

impl fmt::Display for FieldSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let core = match self {
            FieldSource::Fixed => beneficiary::FieldSource::Fixed,
            FieldSource::Rules => beneficiary::FieldSource::Rules,
        };
        f.write_str(core.as_str())
    }
}

/// A field a form must ask for.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RequiredField {
    /// Dotted payload path.
    pub path: String,
    /// What to show beside it.
    pub description: String,
    /// Where the requirement comes from.
    pub source: FieldSource,
}

/// The fields a form must ask for, for a payment type and country: the fixed ones, then the
/// rules document's (when given, and for that country), each once, parents before children.
/// Throws `MALFORMED_JSON` when `rules_json` is not JSON.
#[uniffi::export]
pub fn required_fields(
    rules_json: Option<String>,
    payment_type: String,
    country: String,
) -> Result<Vec<RequiredField>, XborderError> {
    let rules = rules_json
        .map(|t| parse_json(&t, "rules_json"))
        .transpose()?
        .map(|v| beneficiary::ValidationRules::from_value(&v));
    Ok(
        beneficiary::required_fields(rules.as_ref(), &payment_type, &country)
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
    let params = pagination::ListParams::from_value(&parse_json(&params_json, "params_json")?)?;
    Ok(params.to_query())
}

/// The page and page size a list request asked for, for responses that do not repeat them.
/// What the request left out is what the server used: core's defaults (page 0, 10 per page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct PageRequest {
    /// 0-based page number (0 when absent).
    #[uniffi(default = None)]
    pub page: Option<u64>,
    /// Records per page (core's default, 10, when absent).
    #[uniffi(default = None)]
    pub page_size: Option<u64>,
}

impl PageRequest {
    /// `(page, pageSize)` with core's defaults and checks (`INVALID_PAGE`, `INVALID_PAGE_SIZE`).
    fn resolved(self) -> Result<(u64, u64), pagination::PaginationError> {
        let mut p = pagination::ListParams::default();
        if let Some(page) = self.page {
            p = p.page(page);
        }
        if let Some(size) = self.page_size {
            p = p.page_size(size);
        }
        p.validate()?;
        Ok((p.page, p.page_size))
    }
}

/// The facts of one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct PageInfo {
    /// Records matching the query.
    pub total: u64,
    /// This page's number (0-based).
    pub page: u64,
    /// Records per page.
    pub page_size: u64,
    /// `ceil(total / pageSize)`.
    pub total_pages: u64,
    /// Whether a later page has records (the response's `hasNext` when it sends one).
    pub has_next: bool,
    /// The response's `hasNext` contradicts its `total`: `has_next` and `next_page` follow the
    /// server; a pager should follow them and report it.
    pub has_next_conflict: bool,
    /// Whether this is not the first page.
    pub has_previous: bool,
    /// 1-based position of this page's first record (0 when the page is empty or past the end).
    pub first_item: u64,
    /// 1-based position of this page's last record (0 when the page is empty or past the end).
    pub last_item: u64,
    /// The page to ask for next, when there is one.
    pub next_page: Option<u64>,
}

/// The page facts of a list response (JSON text). `request` supplies what a
/// `{data, total, hasNext}` response leaves out; the response's own values win. Throws
/// `MALFORMED_RESPONSE`, `INVALID_PAGE_SIZE`, `OUT_OF_RANGE`, or `MALFORMED_JSON` when the text
/// is not JSON.
#[uniffi::export(default(request = None))]
pub fn page_info(
    response_json: String,
    request: Option<PageRequest>,
) -> Result<PageInfo, XborderError> {
    let response = parse_json(&response_json, "response_json")?;
    let request = request.map(|r| r.resolved()).transpose()?;
    let i = pagination::page_info(&response, request)?;
    Ok(PageInfo {
        total: i.total,
        page: i.page,
        page_size: i.page_size,
        total_pages: i.total_pages,
        has_next: i.has_next,
        has_next_conflict: i.has_next_conflict,
        has_previous: i.has_previous,
        first_item: i.first_item,
        last_item: i.last_item,
        next_page: i.next_page,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The lists come from core: a variant added there without its arm here maps through a
    // fallback arm onto another text, and these tests fail.

    #[test]
    fn kinds_round_trip() {
        for k in events::EventKind::ALL {
            assert_eq!(EventKind::from(*k).to_string(), k.as_str());
        }
    }

    #[test]
    fn issue_codes_round_trip() {
        for c in beneficiary::IssueCode::ALL {
            assert_eq!(IssueCode::from(*c).to_string(), c.as_str());
        }
        assert_eq!(
            beneficiary::IssueCode::ALL.len(),
            xborder_core::codes::ISSUES.len()
        );
    }

    #[test]
    fn actions_round_trip() {
        for a in delivery::Action::ALL {
            assert_eq!(Action::from(*a).to_string(), a.as_str());
        }
    }

    #[test]
    fn field_sources_round_trip() {
        for s in beneficiary::FieldSource::ALL {
            assert_eq!(FieldSource::from(*s).to_string(), s.as_str());
        }
    }

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

    #[test]
    fn limits_reach_the_core() {
        let body = br#"{"id":"e1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
        let small = DecodeLimits {
            max_body_bytes: 8,
            ..default_decode_limits()
        };
        let err = decode_envelope(body.to_vec(), Some(small)).unwrap_err();
        assert_eq!(err.error_code(), "BODY_TOO_LARGE");
        assert!(decode_envelope(body.to_vec(), None).is_ok());
    }

    #[test]
    fn receiver_commits() -> Result<(), XborderError> {
        let rx = Receiver::new("k".into(), 10, None)?;
        let body = br#"{"id":"e1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
        let sig = sign("k".into(), body.to_vec())?;
        let d = rx.receive(body.to_vec(), Some(sig.clone()));
        assert_eq!(d.action, Action::Process);
        rx.commit("e1".into())?;
        assert_eq!(
            rx.receive(body.to_vec(), Some(sig)).action,
            Action::Duplicate
        );
        let d = rx.receive(b"{}".to_vec(), None);
        assert_eq!(
            (d.action, d.error_code.as_deref()),
            (Action::Reject, Some("MISSING_SIGNATURE"))
        );
        Ok(())
    }
}
