// envelope: raw webhook body bytes.

use serde_json::Value;
use xborder_core::delivery::{Decision, ReceiveError, Receiver};
use xborder_core::envelope::{Envelope, EnvelopeError, Limits};
use xborder_core::events::{Catalog, EventKind, EventName};
use xborder_core::signature;

use crate::{is_code, reference};

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
    same_depth_as_reference(data, &decoded, &catalog);
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

/// `NESTING_TOO_DEEP` exactly when the byte-by-byte count passes the limit, whatever else is
/// wrong with the body (the scan counts depth itself, and must decide as the pre-pass it replaced
/// did); under a lower limit (0 to 7, from the first byte) the same, and a body within it decodes
/// as under the default limit.
fn same_depth_as_reference(
    data: &[u8],
    decoded: &Result<Envelope, EnvelopeError>,
    catalog: &Catalog,
) {
    let default = Limits::default();
    assert!(
        data.len() <= default.max_body_bytes,
        "fuzz inputs are short"
    );
    assert_eq!(
        matches!(decoded, Err(EnvelopeError::NestingTooDeep { .. })),
        reference::nesting_exceeds(data, default.max_depth),
        "depth decided unlike the byte count"
    );
    let limit = usize::from(data.first().copied().unwrap_or_default() % 8);
    let limited = Envelope::decode_with_limits(data, catalog, &Limits::new(data.len(), limit));
    if reference::nesting_exceeds(data, limit) {
        assert_eq!(
            limited,
            Err(EnvelopeError::NestingTooDeep { limit }),
            "depth {limit} not refused"
        );
    } else {
        assert_eq!(&limited, decoded, "within depth {limit}, decoded otherwise");
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
