//! The decoded envelope of a webhook body, and the limits bodies are decoded under.

use xborder_core::envelope;

use crate::{EventKind, XborderError};

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

// ---------------------------------------------------------------------------------------------
// The exported functions

/// The core's default limits (1 MiB, depth 64), for hosts that adjust one of them.
#[uniffi::export]
pub fn default_decode_limits() -> DecodeLimits {
    let d = xborder_core::envelope::Limits::default();
    DecodeLimits {
        max_body_bytes: d.max_body_bytes as u64,
        max_depth: d.max_depth as u64,
    }
}

/// Decodes the raw body bytes of a delivery (signature not checked: see [`Receiver`](crate::Receiver)) under
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decode_envelope, default_decode_limits};

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
}
