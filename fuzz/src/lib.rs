//! The checks of every fuzz target of xborder-core, one function per untrusted input.
//!
//! Each `fuzz_targets/<name>.rs` is a one-line libFuzzer bin calling `xborder_fuzz::<name>`
//! (`receiver_scenario` for `receiver_model`, which takes the decoded `Scenario`);
//! `tests/replay.rs` feeds every file of `corpus/<name>/` (and `regressions/<name>/`) through the
//! same function on stable, so `cargo test --workspace` re-checks what the fuzzer found.
//!
//! A function returns quietly on input it cannot use and panics (an `assert!`) when xborder-core
//! breaks a property: libFuzzer records the input as a crash, the replay test fails naming it.
// A fuzz harness reports a broken property by panicking (libFuzzer records the input, the
// replay test names it): the workspace's no-panic lints are for the shipped crates, not this one.
#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

use std::collections::{BTreeSet, VecDeque};

pub mod reference;

use arbitrary::{Arbitrary, Unstructured};
use percent_encoding::percent_decode_str;
use serde_json::Value;
use xborder_core::beneficiary::{
    self, BankList, BeneficiaryDraft, IssueCode, Validation, ValidationRules,
};
use xborder_core::delivery::{Decision, DedupeStore, ReceiveError, Receiver};
use xborder_core::envelope::{Envelope, EnvelopeError};
use xborder_core::events::{
    self, Catalog, EventKind, EventName, RegistrationError, RejectedEvent, LIVE_EVENTS,
    MAX_WEBHOOKS, PLANNED_EVENTS, WILDCARDS,
};
use xborder_core::pagination::{self, ListParams, PageWalker, PaginationError, MAX_SAFE_INTEGER};
use xborder_core::signature::{self, SignatureError, Signer, Verifier};

/// A fuzz target: its name (the bin, the corpus folder) and its check.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, in the order `run.sh` runs them.
pub const TARGETS: &[Target] = &[
    ("envelope", envelope),
    ("signature", signature),
    ("event_names", event_names),
    ("registration", registration),
    ("rules", rules),
    ("banks", banks),
    ("page_info", page_info),
    ("list_params", list_params),
    ("receiver_model", receiver_model),
];

/// The first `max` JSON values of a whitespace-separated stream (`{..} {..}`); stops at the first
/// one that does not parse.
fn json_docs(data: &[u8], max: usize) -> Vec<Value> {
    serde_json::Deserializer::from_slice(data)
        .into_iter::<Value>()
        .take(max)
        .map_while(Result::ok)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// envelope: raw webhook body bytes.

const ENVELOPE_FIELDS: [&str; 6] = [
    "id",
    "event",
    "entity",
    "entity.id",
    "entity.type",
    "entity.data",
];
const RX_KEY: &[u8] = b"whsec_fuzz_envelope";

/// `Envelope::decode` on raw body bytes: a decoded envelope keeps every promise of FORMAT.md
/// (non-empty strings, a well-formed non-wildcard event, family = entity type for live/planned
/// events, `data` an object), an error has a stable code and a known field, decoding is
/// deterministic, and a correctly signed delivery of the same bytes gets the matching decision
/// from `Receiver`.
pub fn envelope(data: &[u8]) {
    let catalog = Catalog::builtin();
    let decoded = Envelope::decode(data);
    assert_eq!(
        decoded,
        Envelope::decode_with(data, &catalog),
        "decode is not deterministic"
    );
    same_as_reference(data, &decoded);
    match &decoded {
        Ok(env) => check_envelope(env, &catalog),
        Err(e) => {
            assert!(is_code(e.code()), "bad code {:?}", e.code());
            assert!(e.to_string().starts_with(e.code()));
            match e {
                EnvelopeError::MissingField(f) | EnvelopeError::InvalidField(f) => {
                    assert!(ENVELOPE_FIELDS.contains(f), "unknown field {f:?}")
                }
                EnvelopeError::EntityMismatch {
                    family,
                    entity_type,
                } => {
                    assert_ne!(family, entity_type, "mismatch of equal names")
                }
                _ => {}
            }
        }
    }

    let rx = Receiver::new(&[RX_KEY], 16).expect("non-empty key");
    let sig = signature::sign(RX_KEY, data).expect("non-empty key");
    let decision = rx.receive(data, Some(&sig));
    match (&decoded, &decision) {
        (Ok(env), Decision::Process(got)) => {
            assert_eq!(env.kind(), EventKind::Live);
            assert_eq!(env, got);
        }
        (Ok(env), Decision::Ignore(got)) => {
            assert_ne!(env.kind(), EventKind::Live);
            assert_eq!(env, got);
        }
        (Err(e), Decision::Reject(ReceiveError::Envelope(got))) => assert_eq!(e, got),
        (expected, got) => {
            panic!("Receiver disagrees with Envelope::decode: {expected:?} vs {got:?}")
        }
    }
}

/// The core's scanner decides as the serde decoder it replaced ([`reference`]) did: the same
/// fields and raw data, or the same error; only the steps after field extraction (the event
/// name, the entity family) may turn the reference's fields into an error.
fn same_as_reference(data: &[u8], decoded: &Result<Envelope, EnvelopeError>) {
    if matches!(
        decoded,
        Err(EnvelopeError::BodyTooLarge { .. } | EnvelopeError::NestingTooDeep { .. })
    ) {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        assert_eq!(decoded, &Err(EnvelopeError::MalformedJson), "not UTF-8");
        return;
    };
    match (reference::decode(text), decoded) {
        (Err(want), got) => assert_eq!(got.as_ref().err(), Some(&want), "reference: {want:?}"),
        (Ok((id, event, entity_id, entity_type, raw)), Ok(env)) => {
            assert_eq!(classification_error(&event, &entity_type), None);
            assert_eq!(
                (env.id(), env.event(), env.entity_id(), env.entity_type()),
                (
                    id.as_str(),
                    event.as_str(),
                    entity_id.as_str(),
                    entity_type.as_str()
                )
            );
            assert_eq!(env.raw_data(), raw.as_deref());
        }
        (Ok((_, event, _, entity_type, _)), Err(e)) => {
            assert_eq!(
                Some(e),
                classification_error(&event, &entity_type).as_ref(),
                "the reference decoded what the core refused"
            )
        }
    }
}

/// The error the steps after field extraction give the reference's fields (the event name, its
/// family against `entity.type`, a wildcard), in the core's order; `None` when they pass.
fn classification_error(event: &str, entity_type: &str) -> Option<EnvelopeError> {
    let class = Catalog::builtin().classify_name(event);
    let Some(parts) = class.parts else {
        return Some(EnvelopeError::InvalidField("event"));
    };
    if matches!(class.kind, EventKind::Live | EventKind::Planned) && parts.entity() != entity_type {
        return Some(EnvelopeError::EntityMismatch {
            family: parts.entity().to_owned(),
            entity_type: entity_type.to_owned(),
        });
    }
    parts
        .is_wildcard()
        .then_some(EnvelopeError::InvalidField("event"))
}

fn check_envelope(env: &Envelope, catalog: &Catalog) {
    assert!(!env.id().is_empty(), "empty id decoded");
    assert!(!env.entity_id().is_empty(), "empty entity.id decoded");
    assert!(!env.entity_type().is_empty(), "empty entity.type decoded");
    let parts = EventName::parse(env.event()).expect("decoded event is well formed");
    assert!(!parts.is_wildcard(), "a wildcard decoded as an event");
    assert_eq!(env.family(), parts.entity());
    assert_eq!(env.kind(), catalog.classify(env.event()));
    assert!(
        matches!(
            env.kind(),
            EventKind::Live | EventKind::Planned | EventKind::Unknown
        ),
        "decoded kind {:?}",
        env.kind()
    );
    if matches!(env.kind(), EventKind::Live | EventKind::Planned) {
        assert_eq!(env.family(), env.entity_type(), "entity mismatch decoded");
    }
    if let Some(raw) = env.raw_data() {
        assert!(raw.starts_with('{'), "entity.data not an object: {raw:?}");
        if let Ok(v) = serde_json::from_str::<Value>(raw) {
            assert!(v.is_object());
        }
    }
    if let Ok(v) = env.data_value() {
        assert!(v.is_object());
    }
    let _ = env.data_str("status");
    assert_eq!(env, &env.clone());
}

fn is_code(code: &str) -> bool {
    !code.is_empty() && code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
}

// ---------------------------------------------------------------------------------------------
// signature: `secrets \n header \n body`.

/// Splits `secrets \n header \n body`: secrets separated by NUL bytes (at most 8), the header
/// line as text (lossy), the body the rest (raw bytes).
fn split_signature_input(data: &[u8]) -> (Vec<&[u8]>, Option<String>, &[u8]) {
    let mut parts = data.splitn(3, |b| *b == b'\n');
    let secrets_line = parts.next().unwrap_or_default();
    let header = parts
        .next()
        .map(|h| String::from_utf8_lossy(h).into_owned());
    let body = parts.next().unwrap_or_default();
    let secrets = secrets_line.split(|b| *b == 0).take(8).collect();
    (secrets, header, body)
}

/// The verdict FORMAT.md gives, computed independently of `Verifier`'s parsing and comparison.
fn model_verify(
    secrets: &[&[u8]],
    body: &[u8],
    header: Option<&str>,
) -> Result<(), SignatureError> {
    if secrets.is_empty() || secrets.iter().any(|s| s.is_empty()) {
        return Err(SignatureError::EmptySecret);
    }
    let text = header
        .unwrap_or("")
        .trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c'));
    if text.is_empty() {
        return Err(SignatureError::MissingSignature);
    }
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SignatureError::MalformedSignature);
    }
    let wanted = text.to_ascii_lowercase();
    let ok = secrets
        .iter()
        .any(|s| signature::sign(s, body).expect("non-empty secret") == wanted);
    if ok {
        Ok(())
    } else {
        Err(SignatureError::SignatureMismatch)
    }
}

/// `Verifier::verify` on a signature header and body: it agrees with the model of FORMAT.md
/// (trim, 64 hex digits in either case, any key), `verify` and `Verifier` agree, an absent header
/// and an empty one are the same, and for every key sign → verify round-trips (also upper-cased
/// and padded) while a flipped digit, a truncated signature or one more body byte never verify.
pub fn signature(data: &[u8]) {
    let (secrets, header, body) = split_signature_input(data);
    let header = header.as_deref();
    let expected = model_verify(&secrets, body, header);
    assert_eq!(
        signature::verify(&secrets, body, header),
        expected,
        "verify vs model"
    );
    let verifier = match Verifier::new(&secrets) {
        Ok(v) => v,
        Err(e) => {
            assert_eq!(e, SignatureError::EmptySecret);
            assert_eq!(expected, Err(SignatureError::EmptySecret));
            return;
        }
    };
    assert!(format!("{verifier:?}").contains("redacted"));
    assert_eq!(verifier.verify(body, header), expected, "Verifier vs model");
    if header.is_some_and(str::is_empty) {
        assert_eq!(
            verifier.verify(body, None),
            expected,
            "absent header != empty header"
        );
    }
    if let Err(e) = expected {
        assert!(e.to_string().starts_with(e.code()));
    }

    let mut longer = body.to_vec();
    longer.push(b'\n');
    for secret in &secrets {
        let sig = signature::sign(secret, body).expect("non-empty secret");
        assert_eq!(sig.len(), 64);
        assert!(
            sig.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{sig}"
        );
        assert_eq!(Signer::new(secret).expect("non-empty").sign(body), sig);
        assert_eq!(
            verifier.verify(body, Some(&sig)),
            Ok(()),
            "sign → verify failed"
        );
        assert_eq!(
            verifier.verify(body, Some(&sig.to_ascii_uppercase())),
            Ok(())
        );
        assert_eq!(
            verifier.verify(body, Some(&format!(" \t{sig}\r\n"))),
            Ok(())
        );
        let at = body.len() % 64;
        let mut flipped = sig.clone().into_bytes();
        flipped[at] = if flipped[at] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).expect("hex");
        assert_eq!(
            verifier.verify(body, Some(&flipped)),
            Err(SignatureError::SignatureMismatch),
            "a flipped digit verified"
        );
        let cut = &sig[..at];
        let want = if cut.is_empty() {
            SignatureError::MissingSignature
        } else {
            SignatureError::MalformedSignature
        };
        assert_eq!(
            verifier.verify(body, Some(cut)),
            Err(want),
            "a truncated signature"
        );
        assert_eq!(
            verifier.verify(&longer, Some(&sig)),
            Err(SignatureError::SignatureMismatch),
            "one more body byte verified"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// event_names: `event \n subscription \n subscription ...`.

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Well formed per FORMAT.md: exactly one `:`, entity `[a-z][a-z0-9_]*`, action the same or `*`.
fn model_parts(name: &str) -> Option<(&str, &str)> {
    if name.matches(':').count() != 1 {
        return None;
    }
    let (entity, action) = name.split_once(':')?;
    (is_ident(entity) && (action == "*" || is_ident(action))).then_some((entity, action))
}

fn model_kind(name: &str) -> EventKind {
    match model_parts(name) {
        None => EventKind::Invalid,
        Some((_, "*")) if WILDCARDS.contains(&name) => EventKind::Wildcard,
        Some((_, "*")) => EventKind::Unknown,
        Some(_) if LIVE_EVENTS.contains(&name) => EventKind::Live,
        Some(_) if PLANNED_EVENTS.contains(&name) => EventKind::Planned,
        Some(_) => EventKind::Unknown,
    }
}

fn model_matches(subscriptions: &[&str], event: &str) -> bool {
    let Some((entity, action)) = model_parts(event) else {
        return false;
    };
    action != "*"
        && subscriptions.iter().any(|s| match model_parts(s) {
            Some((e, "*")) => e == entity,
            Some(_) => *s == event,
            None => false,
        })
}

fn check_name(catalog: &Catalog, name: &str) {
    let class = catalog.classify_name(name);
    assert_eq!(class.kind, model_kind(name), "kind of {name:?}");
    assert_eq!(events::classify(name), class.kind);
    assert_eq!(catalog.classify(name), class.kind);
    assert!(!class.kind.as_str().is_empty());
    match (class.parts, model_parts(name)) {
        (Some(parts), Some((entity, action))) => {
            assert_eq!(
                (parts.entity(), parts.action()),
                (entity, action),
                "parts of {name:?}"
            );
            let rebuilt = format!("{}:{}", parts.entity(), parts.action());
            assert_eq!(rebuilt, name, "well-formed name does not round-trip");
            assert_eq!(EventName::parse(&rebuilt), Some(parts));
            assert_eq!(parts.is_wildcard(), action == "*");
        }
        (None, None) => assert_eq!(class.kind, EventKind::Invalid),
        (got, want) => panic!("well-formedness of {name:?}: got {got:?}, model {want:?}"),
    }
    let plain = model_parts(name).is_some_and(|(_, a)| a != "*");
    let wild = model_parts(name).is_some_and(|(_, a)| a == "*");
    let mut c = catalog.clone();
    assert_eq!(c.add_live(name).is_ok(), plain, "add_live({name:?})");
    if plain {
        assert_eq!(c.classify(name), EventKind::Live);
        assert!(c.is_live(name));
    }
    let mut c = catalog.clone();
    assert_eq!(c.add_wildcard(name).is_ok(), wild, "add_wildcard({name:?})");
    if wild {
        assert_eq!(c.classify(name), EventKind::Wildcard);
    }
}

/// `Catalog::classify_name` and `matches` on names: the kind and the well-formedness agree with
/// a model of FORMAT.md, a well-formed name round-trips through its parts, `add_live` and
/// `add_wildcard` accept exactly the well-formed plain / wildcard names, and the first line
/// (the event) matches the others (subscriptions) exactly when the model says so.
pub fn event_names(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let names: Vec<&str> = text.split('\n').take(16).collect();
    let catalog = Catalog::builtin();
    for name in &names {
        check_name(&catalog, name);
    }
    let Some((event, subscriptions)) = names.split_first() else {
        return;
    };
    assert_eq!(
        catalog.matches(subscriptions, event),
        model_matches(subscriptions, event),
        "matches({subscriptions:?}, {event:?})"
    );
    let plain = model_parts(event).is_some_and(|(_, a)| a != "*");
    assert_eq!(
        catalog.matches(&[event], event),
        plain,
        "an event matching itself"
    );
}

// ---------------------------------------------------------------------------------------------
// registration: `existingWebhooks \n name \n name ...`.

/// `Catalog::check_registration`: exactly the model of FORMAT.md (limit first; every name not
/// live and not a listed wildcard rejected once with its kind; accepted names once, in order; an
/// empty list refused), and the Create Webhook body is JSON carrying the accepted names.
pub fn registration(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let existing = lines
        .next()
        .and_then(|l| l.trim().parse::<u32>().ok())
        .unwrap_or(0);
    let names: Vec<&str> = lines.take(64).collect();
    let catalog = Catalog::builtin();
    let got = catalog.check_registration(&names, existing);

    let expected = if existing >= MAX_WEBHOOKS {
        Err(RegistrationError::WebhookLimitReached { existing })
    } else {
        let mut accepted: Vec<String> = Vec::new();
        let mut rejected: Vec<RejectedEvent> = Vec::new();
        for name in &names {
            match model_kind(name) {
                EventKind::Live | EventKind::Wildcard => {
                    if !accepted.iter().any(|a| a == name) {
                        accepted.push((*name).to_owned());
                    }
                }
                reason => {
                    if !rejected.iter().any(|r| r.event == *name) {
                        rejected.push(RejectedEvent::new(*name, reason));
                    }
                }
            }
        }
        if rejected.is_empty() && !accepted.is_empty() {
            Ok(accepted)
        } else {
            Err(RegistrationError::ValidationFailed { rejected })
        }
    };
    match (got, expected) {
        (Ok(reg), Ok(accepted)) => {
            assert_eq!(reg.events(), accepted.as_slice());
            let url = names.first().copied().unwrap_or_default();
            let body: Value = serde_json::from_str(&reg.create_webhook_body(url))
                .expect("Create Webhook body is JSON");
            assert_eq!(body["url"], url);
            assert_eq!(body["events"], serde_json::json!(accepted));
        }
        (Err(e), Err(want)) => {
            assert_eq!(e, want);
            assert!(e.to_string().starts_with(e.code()));
        }
        (got, want) => panic!("check_registration: got {got:?}, model {want:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// rules / banks: beneficiary validation.

fn issue_set(v: &Validation) -> BTreeSet<(String, IssueCode)> {
    v.issues.iter().map(|i| (i.path.clone(), i.code)).collect()
}

/// What holds of every validation: `valid` iff no issue, each issue once, stable codes, a path
/// (empty only for a draft that is not an object).
fn check_validation(draft: &Value, v: &Validation) {
    assert_eq!(v.valid(), v.issues.is_empty());
    assert_eq!(
        issue_set(v).len(),
        v.issues.len(),
        "an issue reported twice: {:?}",
        v.issues
    );
    for issue in &v.issues {
        assert!(is_code(issue.code.as_str()));
        if issue.path.is_empty() {
            assert!(
                !draft.is_object(),
                "empty path on an object draft: {:?}",
                v.issues
            );
        }
        assert_eq!(
            v.at(&issue.path).count(),
            v.issues.iter().filter(|i| i.path == issue.path).count()
        );
    }
    if !draft.is_object() {
        assert_eq!(
            issue_set(v),
            BTreeSet::from([(String::new(), IssueCode::InvalidValue)])
        );
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The typed draft agrees with the raw one: it round-trips through its JSON and validates to the
/// same issues.
fn check_typed_draft(
    draft: &Value,
    rules: Option<&ValidationRules>,
    banks: Option<&BankList>,
    raw: &Validation,
) {
    let Ok(typed) = serde_json::from_value::<BeneficiaryDraft>(draft.clone()) else {
        return;
    };
    let back = BeneficiaryDraft::from_json(&typed.to_json()).expect("to_json parses");
    assert_eq!(back, typed, "BeneficiaryDraft does not round-trip");
    let v = typed.validate(rules, banks);
    assert_eq!(
        issue_set(&v),
        issue_set(raw),
        "typed and raw drafts validate differently"
    );
}

/// Rules document then draft, two JSON values in a row (one value: the draft alone).
/// `ValidationRules::from_value` and `from_json` agree; `validate` with the rules reports every
/// issue it reports without them (fixed rules always apply) plus only rules-made codes; a typed
/// draft validates like the raw one; `required_fields` lists each path once, fixed ones first.
pub fn rules(data: &[u8]) {
    let docs = json_docs(data, 2);
    let (rules_doc, draft) = match docs.as_slice() {
        [draft] => (None, draft),
        [rules, draft] => (Some(rules), draft),
        _ => return,
    };
    let base = beneficiary::validate(draft, None, None);
    check_validation(draft, &base);
    check_typed_draft(draft, None, None, &base);
    let Some(rules_doc) = rules_doc else { return };

    let rules = ValidationRules::from_value(rules_doc);
    assert_eq!(
        ValidationRules::from_json(&rules_doc.to_string()).ok(),
        Some(rules.clone())
    );
    let _ = rules.listed_payment_types();
    let with = beneficiary::validate(draft, Some(&rules), None);
    check_validation(draft, &with);
    let (b, w) = (issue_set(&base), issue_set(&with));
    assert!(
        b.is_subset(&w),
        "a rules document removed issues: {:?} → {:?}",
        base.issues,
        with.issues
    );
    for (path, code) in w.difference(&b) {
        assert!(
            !matches!(code, IssueCode::BanksMismatch | IssueCode::UnknownBank),
            "rules made {code:?} at {path}"
        );
        if *code == IssueCode::RulesMismatch {
            assert!(
                path == "country" || path == "ownerType",
                "RULES_MISMATCH at {path}"
            );
        }
    }
    check_typed_draft(draft, Some(&rules), None, &with);

    let fields = beneficiary::required_fields(
        Some(&rules),
        str_field(draft, "paymentType"),
        str_field(draft, "country"),
    );
    let paths: BTreeSet<&str> = fields.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths.len(), fields.len(), "a required field listed twice");
    let fixed: Vec<&str> = fields.iter().take(4).map(|f| f.path.as_str()).collect();
    assert_eq!(
        fixed,
        ["ownerType", "country", "paymentType", "paymentInfo"]
    );
}

/// `{"country", "response"}` then a draft, two JSON values in a row. `BankList::from_value` keeps
/// exactly the string ids of a `data` array (None without one); `validate` with the list reports
/// every issue it reports without it, plus only `UNKNOWN_BANK` (for a bankId not in the list) and
/// `BANKS_MISMATCH` (for a list of another country).
pub fn banks(data: &[u8]) {
    let docs = json_docs(data, 2);
    let Some(first) = docs.first() else { return };
    let country = first.get("country").and_then(Value::as_str).unwrap_or("CO");
    let response = first.get("response").unwrap_or(first);
    let list = BankList::from_value(country, response);
    let items = response.get("data").and_then(Value::as_array);
    assert_eq!(
        list.is_some(),
        items.is_some(),
        "a bank list without a data array"
    );
    if let (Some(list), Some(items)) = (&list, items) {
        let ids: Vec<&str> = items
            .iter()
            .filter_map(|b| b.get("id").and_then(Value::as_str))
            .collect();
        let kept: Vec<&str> = list.banks.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(kept, ids, "bank ids kept");
        assert_eq!(list.country, country);
        for id in &ids {
            assert!(list.contains(id));
        }
    }
    let Some(draft) = docs.get(1) else { return };
    let base = beneficiary::validate(draft, None, None);
    let with = beneficiary::validate(draft, None, list.as_ref());
    check_validation(draft, &with);
    let (b, w) = (issue_set(&base), issue_set(&with));
    assert!(
        b.is_subset(&w),
        "a bank list removed issues: {:?} → {:?}",
        base.issues,
        with.issues
    );
    for (path, code) in w.difference(&b) {
        match code {
            IssueCode::UnknownBank => {
                assert_eq!(path, "paymentInfo.bankId");
                let id = draft
                    .get("paymentInfo")
                    .and_then(|p| p.get("bankId"))
                    .and_then(Value::as_str);
                let list = list.as_ref().expect("UNKNOWN_BANK without a list");
                assert!(
                    id.is_some_and(|id| !list.contains(id)),
                    "UNKNOWN_BANK for a listed id {id:?}"
                );
            }
            IssueCode::BanksMismatch => {
                assert_eq!(path, "country");
                assert_ne!(Some(country), draft.get("country").and_then(Value::as_str));
            }
            other => panic!("a bank list made {other:?} at {path}"),
        }
    }
    check_typed_draft(draft, None, list.as_ref(), &with);
}

// ---------------------------------------------------------------------------------------------
// page_info: a list response, then optionally the request `{page, pageSize}`.

/// `page_info` on a response (and optional request): every figure is consistent (total pages,
/// 1-based first/last item within the page and the total, next page iff has next, all within
/// 2^53 − 1), the response's own `hasNext`/`page`/`pageSize` win, and `PageWalker::feed` agrees.
pub fn page_info(data: &[u8]) {
    let docs = json_docs(data, 2);
    let Some(response) = docs.first() else { return };
    let request = docs
        .get(1)
        .and_then(|r| Some((r.get("page")?.as_u64()?, r.get("pageSize")?.as_u64()?)));
    let got = pagination::page_info(response, request);
    assert_eq!(
        got,
        pagination::page_info(response, request),
        "not deterministic"
    );
    match got {
        Ok(info) => {
            let len = response["data"].as_array().map_or(0, Vec::len) as u64;
            assert!(info.page_size >= 1);
            for n in [
                info.total,
                info.page,
                info.page_size,
                info.total_pages,
                info.last_item,
            ] {
                assert!(n <= MAX_SAFE_INTEGER, "{info:?}");
            }
            let end = (info.page + 1)
                .checked_mul(info.page_size)
                .expect("checked in core");
            assert!(end <= MAX_SAFE_INTEGER, "{info:?}");
            assert_eq!(info.total_pages, info.total.div_ceil(info.page_size));
            assert_eq!(info.has_previous, info.page > 0);
            assert_eq!(info.next_page, info.has_next.then_some(info.page + 1));
            match response.get("hasNext").and_then(Value::as_bool) {
                Some(h) => assert_eq!(info.has_next, h),
                None => assert_eq!(info.has_next, end < info.total),
            }
            if let Some(p) = response.get("page").and_then(Value::as_u64) {
                assert_eq!(info.page, p);
            }
            if let Some(s) = response.get("pageSize").and_then(Value::as_u64) {
                assert_eq!(info.page_size, s);
            }
            if (info.first_item, info.last_item) != (0, 0) {
                assert_eq!(info.first_item, info.page * info.page_size + 1, "{info:?}");
                assert!(info.first_item <= info.last_item, "{info:?}");
                assert!(info.last_item <= info.total, "{info:?}");
                let count = info.last_item - info.first_item + 1;
                assert!(
                    count <= len.min(info.page_size),
                    "{info:?} for {len} records"
                );
            } else {
                assert!(
                    len == 0 || info.page * info.page_size >= info.total,
                    "{info:?}"
                );
            }
        }
        Err(e) => assert!(is_code(e.code()) && e.to_string().starts_with(e.code())),
    }

    let (page, page_size) = request.unwrap_or((0, 10));
    let mut walker = PageWalker::new(ListParams::default().page(page).page_size(page_size));
    let info = pagination::page_info(response, Some((page, page_size)));
    match (walker.feed(response), info) {
        (Ok(step), Ok(info)) => {
            assert_eq!(step.info, info);
            assert!(step.records.len() <= response["data"].as_array().map_or(0, Vec::len));
            assert_eq!(walker.is_done(), walker.next_request().is_none());
            if let Some(next) = walker.next_request() {
                assert_eq!(
                    next.page,
                    info.next_page.expect("a next request without a next page")
                );
            }
            for d in &step.drift {
                assert!(is_code(d.code()));
            }
        }
        (Err(e), Err(want)) => {
            assert_eq!(e, want);
            assert!(!walker.is_done(), "a failed feed ended the walk");
        }
        (got, want) => panic!("PageWalker::feed {got:?} vs page_info {want:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// list_params: a JSON object of list parameters.

fn model_uint(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return (n <= MAX_SAFE_INTEGER).then_some(n);
    }
    let f = v.as_f64()?;
    (f.is_finite() && f.fract() == 0.0 && f >= 0.0 && f <= MAX_SAFE_INTEGER as f64)
        .then_some(f as u64)
}

/// FORMAT.md's pagination.query: unknown keys first (the first in byte order), then the fields
/// in the order they are listed, then the filters in byte order of key (DECISIONS.md).
fn model_params(v: &Value) -> Result<ListParams, PaginationError> {
    const KNOWN: [&str; 6] = [
        "page",
        "pageSize",
        "sortBy",
        "sortOrder",
        "search",
        "filters",
    ];
    let obj = match v {
        Value::Null => return Ok(ListParams::default()),
        Value::Object(o) => o,
        _ => {
            return Err(PaginationError::UnknownParameter {
                field: String::new(),
            })
        }
    };
    let mut unknown: Vec<&String> = obj
        .keys()
        .filter(|k| !KNOWN.contains(&k.as_str()))
        .collect();
    unknown.sort();
    if let Some(k) = unknown.first() {
        return Err(PaginationError::UnknownParameter {
            field: (*k).clone(),
        });
    }
    let get = |k: &str| obj.get(k).filter(|x| !x.is_null());
    let mut p = ListParams::default();
    if let Some(x) = get("page") {
        p.page = model_uint(x).ok_or(PaginationError::InvalidPage)?;
    }
    if let Some(x) = get("pageSize") {
        p.page_size = model_uint(x).ok_or(PaginationError::InvalidPageSize)?;
    }
    if let Some(x) = get("sortBy") {
        p.sort_by = x.as_str().ok_or(PaginationError::InvalidSortBy)?.to_owned();
    }
    if let Some(x) = get("sortOrder") {
        p.sort_order = match x.as_str().map(str::to_ascii_uppercase).as_deref() {
            Some("ASC") => pagination::SortOrder::Asc,
            Some("DESC") => pagination::SortOrder::Desc,
            _ => return Err(PaginationError::InvalidSortOrder),
        };
    }
    if let Some(x) = get("search") {
        p.search = Some(x.as_str().ok_or(PaginationError::InvalidSearch)?.to_owned());
    }
    if let Some(x) = get("filters") {
        let Some(filters) = x.as_object() else {
            return Err(PaginationError::InvalidFilter {
                field: "filters".to_owned(),
            });
        };
        let mut keys: Vec<&String> = filters.keys().collect();
        keys.sort();
        for k in keys {
            let bad = || PaginationError::InvalidFilter { field: k.clone() };
            if k.is_empty() || KNOWN[..5].contains(&k.as_str()) {
                return Err(bad());
            }
            let text = match &filters[k] {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                Value::Bool(b) => Some(if *b { "true" } else { "false" }.to_owned()),
                Value::Number(n) => {
                    if let Some(i) = n.as_i64() {
                        Some(i.to_string())
                    } else if let Some(u) = n.as_u64() {
                        Some(u.to_string())
                    } else {
                        let f = n.as_f64().ok_or_else(bad)?;
                        if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 {
                            Some((f as i64).to_string())
                        } else {
                            return Err(bad());
                        }
                    }
                }
                _ => return Err(bad()),
            };
            if let Some(t) = text.filter(|t| !t.is_empty()) {
                p = p.filter(k.clone(), t);
            }
        }
    }
    if p.page_size == 0 {
        return Err(PaginationError::InvalidPageSize);
    }
    if p.sort_by.is_empty() {
        return Err(PaginationError::InvalidSortBy);
    }
    Ok(p)
}

/// RFC 3986's unreserved characters stay; everything else is encoded.
const UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn percent_encoded(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, UNRESERVED).to_string()
}

fn decoded(value: &str) -> String {
    percent_decode_str(value)
        .decode_utf8()
        .expect("a percent-encoded UTF-8 value")
        .into_owned()
}

/// `ListParams::from_value` + `to_query`: the parameters agree with the model; the query uses
/// only unreserved characters, `%`, `&` and `=`, every `%` starts a two-digit upper-case escape,
/// keys come in the spec's order, and each value decodes back to the parameter.
pub fn list_params(data: &[u8]) {
    let Some(v) = json_docs(data, 1).pop() else {
        return;
    };
    let got = ListParams::from_value(&v);
    assert_eq!(got, model_params(&v), "from_value vs model for {v}");
    let Ok(p) = got else { return };
    assert_eq!(p.validate(), Ok(()));
    let q = p.to_query();
    assert!(
        q.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~%&=".contains(&b)),
        "query has a reserved character: {q:?}"
    );
    let bytes = q.as_bytes();
    for (i, _) in q.match_indices('%') {
        let esc = bytes
            .get(i + 1..i + 3)
            .expect("a % with two digits after it");
        assert!(
            esc.iter()
                .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b)),
            "bad escape in {q:?}"
        );
    }
    let pairs: Vec<(&str, &str)> = q
        .split('&')
        .map(|kv| kv.split_once('=').expect("key=value"))
        .collect();
    let keys: Vec<&str> = pairs.iter().map(|(k, _)| *k).collect();
    let search = p.search.as_deref().filter(|s| !s.is_empty());
    let mut want = vec![
        "page".to_owned(),
        "pageSize".into(),
        "sortBy".into(),
        "sortOrder".into(),
    ];
    if search.is_some() {
        want.push("search".into());
    }
    // Filters follow, in byte order of key, keys percent-encoded like values.
    let filter_keys: Vec<String> = p
        .filters()
        .iter()
        .map(|(k, _)| percent_encoded(k))
        .collect();
    want.extend(filter_keys);
    assert_eq!(keys, want, "{q:?}");
    let n = 4 + usize::from(search.is_some());
    for ((k, v), (_, sent)) in p.filters().iter().zip(&pairs[n..]) {
        assert_eq!(&decoded(sent), v, "filter {k:?} in {q:?}");
    }
    assert_eq!(pairs[0].1, p.page.to_string());
    assert_eq!(pairs[1].1, p.page_size.to_string());
    assert_eq!(decoded(pairs[2].1), p.sort_by);
    assert_eq!(pairs[3].1, p.sort_order.as_str());
    if let Some(s) = search {
        assert_eq!(decoded(pairs[4].1), s);
    }
    let again = serde_json::json!({
        "page": p.page, "pageSize": p.page_size, "sortBy": p.sort_by,
        "sortOrder": p.sort_order.as_str(), "search": p.search,
        "filters": p.filters().iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<serde_json::Map<String, Value>>(),
    });
    assert_eq!(
        ListParams::from_value(&again).as_ref(),
        Ok(&p),
        "parameters do not round-trip"
    );
}

// ---------------------------------------------------------------------------------------------
// receiver_model: a structured scenario for delivery::Receiver.

const ID_SPACE: u8 = 6;
const KEY_A: &str = "whsec_model_a";
const KEY_B: &str = "whsec_model_b";
/// (event, entity.type, live): live, planned, unknown, another live family, an entity mismatch.
const EVENTS: [(&str, &str, bool); 5] = [
    ("order:created", "order", true),
    ("order:refunded", "order", false),
    ("order:brand_new", "order", false),
    ("ubo:created", "ubo", true),
    ("order:success", "ubo", true),
];

/// How the delivery's signature or body reach the receiver.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Tamper {
    /// As signed.
    None,
    /// Signature upper-cased (still valid).
    Uppercase,
    /// Signature with surrounding whitespace (still valid).
    Padded,
    /// One body byte changed after signing.
    FlipBody(u16),
    /// One signature digit changed.
    FlipSig(u8),
    /// Signed with a key the receiver does not hold.
    WrongKey,
    /// No header.
    Missing,
    /// Signature cut short.
    Truncate(u8),
    /// A byte appended to the body after signing.
    Append,
}

impl Tamper {
    fn is_tampered(self) -> bool {
        !matches!(self, Tamper::None | Tamper::Uppercase | Tamper::Padded)
    }
}

/// One delivery of the scenario.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct Delivery {
    /// `evt_<id % 6>`.
    pub id: u8,
    /// Index into the event table (mod 5).
    pub event: u8,
    /// Signed with the second key (only valid when the receiver rotates keys).
    pub second_key: bool,
    /// Pretty-printed body instead of compact (the id, not the bytes, is what dedupes).
    pub spaced: bool,
    /// What happens on the way.
    pub tamper: Tamper,
}

/// One step of the scenario.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Op {
    /// Receive, persist and commit when it says process or ignore.
    Deliver(Delivery),
    /// Receive, then crash before persisting: no commit.
    Crash(Delivery),
    /// Commit an id directly (`evt_<id % 6>`).
    Commit(u8),
}

/// The whole scenario: a window of 0 to 4 ids, one or two keys, up to 64 steps.
#[derive(Debug, Clone, Arbitrary)]
pub struct Scenario {
    /// Window size, mod 5.
    pub window: u8,
    /// The receiver holds both keys (a rotation).
    pub rotate: bool,
    /// The steps.
    pub ops: Vec<Op>,
}

/// The reference: a FIFO of committed ids, oldest forgotten first, a re-commit a no-op.
struct Model {
    cap: usize,
    ring: VecDeque<String>,
}

impl Model {
    fn commit(&mut self, id: &str) {
        if self.cap == 0 || self.ring.iter().any(|x| x == id) {
            return;
        }
        if self.ring.len() >= self.cap {
            self.ring.pop_front();
        }
        self.ring.push_back(id.to_owned());
    }
    fn has(&self, id: &str) -> bool {
        self.ring.iter().any(|x| x == id)
    }
}

fn body_of(id: &str, d: &Delivery, seq: usize) -> Vec<u8> {
    let (event, entity, _) = EVENTS[usize::from(d.event) % EVENTS.len()];
    if d.spaced {
        format!("{{ \"id\": \"{id}\", \"event\": \"{event}\",\n  \"entity\": {{ \"id\": \"ent_{seq}\", \"type\": \"{entity}\", \"data\": {{ \"seq\": {seq} }} }} }}")
    } else {
        format!(r#"{{"id":"{id}","event":"{event}","entity":{{"id":"ent_{seq}","type":"{entity}","data":{{"seq":{seq}}}}}}}"#)
    }
    .into_bytes()
}

/// Drives `delivery::Receiver` through deliveries, commits and crashes over six ids and a window
/// of 0 to 4, against a model: a committed id still in the window is always `duplicate`, an id
/// never committed (or forgotten) never is; a tampered delivery is always `reject` with a
/// signature error; a valid one is `process` (live) or `ignore` (otherwise) when new; receiving
/// remembers nothing; the window's contents equal the model's after every step.
pub fn receiver_model(data: &[u8]) {
    if let Ok(scenario) = Scenario::arbitrary_take_rest(Unstructured::new(data)) {
        receiver_scenario(&scenario);
    }
}

/// [`receiver_model`] on a decoded scenario (the libFuzzer bin takes a `Scenario` directly, so
/// `cargo fuzz fmt receiver_model FILE` prints it; the bytes decode the same way in both).
pub fn receiver_scenario(scenario: &Scenario) {
    let keys: &[&str] = if scenario.rotate {
        &[KEY_A, KEY_B]
    } else {
        &[KEY_A]
    };
    let window = usize::from(scenario.window % 5);
    let mut rx = Receiver::new(keys, window).expect("non-empty keys");
    let mut model = Model {
        cap: window,
        ring: VecDeque::new(),
    };
    let ids: Vec<String> = (0..ID_SPACE).map(|n| format!("evt_{n}")).collect();

    for (seq, op) in scenario.ops.iter().take(64).enumerate() {
        let (d, commit) = match op {
            Op::Commit(n) => {
                let id = &ids[usize::from(n % ID_SPACE)];
                rx.commit(id).expect("MemoryWindow commit");
                model.commit(id);
                check_window(&rx, &model, &ids);
                continue;
            }
            Op::Deliver(d) => (d, true),
            Op::Crash(d) => (d, false),
        };
        let id = &ids[usize::from(d.id % ID_SPACE)];
        let (_, _, live) = EVENTS[usize::from(d.event) % EVENTS.len()];
        let mismatch = usize::from(d.event) % EVENTS.len() == 4;
        let mut body = body_of(id, d, seq);
        let key = if d.second_key { KEY_B } else { KEY_A };
        let unknown_key = d.second_key && !scenario.rotate;
        let mut sig = signature::sign(key.as_bytes(), &body).expect("non-empty key");
        let mut header = Some(sig.clone());
        match d.tamper {
            Tamper::None => {}
            Tamper::Uppercase => header = Some(sig.to_ascii_uppercase()),
            Tamper::Padded => header = Some(format!("\t {sig} \r\n")),
            Tamper::FlipBody(i) => {
                let at = usize::from(i) % body.len();
                body[at] ^= 0x01;
            }
            Tamper::FlipSig(i) => {
                let at = usize::from(i) % 64;
                let c = if sig.as_bytes()[at] == b'0' { "1" } else { "0" };
                sig.replace_range(at..=at, c);
                header = Some(sig.clone());
            }
            Tamper::WrongKey => {
                header = Some(signature::sign(b"whsec_not_held", &body).expect("non-empty key"))
            }
            Tamper::Missing => header = None,
            Tamper::Truncate(n) => header = Some(sig[..usize::from(n) % 64].to_owned()),
            Tamper::Append => body.push(b' '),
        }

        let decision = rx.receive(&body, header.as_deref());
        assert_eq!(
            decision,
            rx.receive(&body, header.as_deref()),
            "receive is not pure"
        );
        let what = format!(
            "step {seq}: {op:?} on {id} (window {window}, committed {:?})",
            model.ring
        );
        if d.tamper.is_tampered() || unknown_key {
            let Decision::Reject(ReceiveError::Signature(e)) = &decision else {
                panic!("a tampered delivery was not rejected: {decision:?}; {what}");
            };
            let want = match d.tamper {
                Tamper::Missing => SignatureError::MissingSignature,
                Tamper::Truncate(n) if n % 64 == 0 => SignatureError::MissingSignature,
                Tamper::Truncate(_) => SignatureError::MalformedSignature,
                _ => SignatureError::SignatureMismatch,
            };
            assert_eq!(*e, want, "{what}");
        } else if mismatch {
            assert!(
                matches!(
                    decision,
                    Decision::Reject(ReceiveError::Envelope(EnvelopeError::EntityMismatch { .. }))
                ),
                "an entity mismatch was not rejected: {decision:?}; {what}"
            );
        } else if model.has(id) {
            assert!(
                matches!(decision, Decision::Duplicate(_)),
                "a committed id in the window was not a duplicate: {decision:?}; {what}"
            );
        } else {
            assert!(
                !matches!(decision, Decision::Duplicate(_)),
                "an uncommitted (or forgotten) id was a duplicate: {decision:?}; {what}"
            );
            let want = if live { "process" } else { "ignore" };
            assert_eq!(decision.action(), want, "{what}");
        }
        if let Some(env) = decision.envelope() {
            assert_eq!(env.id(), id);
        }
        assert_eq!(decision.acknowledges(), decision.error().is_none());

        if commit && matches!(decision, Decision::Process(_) | Decision::Ignore(_)) {
            rx.commit(id).expect("MemoryWindow commit");
            model.commit(id);
        }
        check_window(&rx, &model, &ids);
    }
}

fn check_window(rx: &Receiver, model: &Model, ids: &[String]) {
    let store = rx.store();
    assert_eq!(
        store.len(),
        model.ring.len(),
        "window length; model {:?}",
        model.ring
    );
    assert!(store.len() <= store.capacity());
    for id in ids {
        assert_eq!(
            store.is_committed(id).expect("MemoryWindow lookup"),
            model.has(id),
            "is_committed({id}); model {:?}",
            model.ring
        );
    }
}
