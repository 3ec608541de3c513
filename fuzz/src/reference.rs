//! The envelope decoder xborder-core had before its scanner: serde_json with derived structs
//! of borrowed `RawValue`s. Kept here as the reference the `envelope` target compares the core
//! with, on every fuzz input and every corpus file: the scanner must decide exactly as this did
//! (same fields, same raw data, same error in the same order). With it, [`nesting_exceeds`]: the
//! byte-by-byte depth count the core's pre-pass made before the scan counted depth itself.

use serde::Deserialize;
use serde_json::value::RawValue;
use xborder_core::envelope::EnvelopeError;

/// What the reference decodes: `(id, event, entity.id, entity.type, raw data)`, before the
/// event name is classified (the core and the reference share that step).
pub type Decoded = (String, String, String, String, Option<String>);

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct RawEnvelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    event: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    entity: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawEntity<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "type", deserialize_with = "present")]
    kind: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    data: Option<&'a RawValue>,
}

fn object<'a, T: Deserialize<'a>>(text: &'a str, field: &'static str) -> Result<T, EnvelopeError> {
    let first = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if !first.starts_with('{') {
        return Err(if field.is_empty() {
            EnvelopeError::MalformedJson
        } else {
            EnvelopeError::InvalidField(field)
        });
    }
    serde_json::from_str(text).map_err(|_| EnvelopeError::MalformedJson)
}

fn string(raw: Option<&RawValue>, field: &'static str) -> Result<String, EnvelopeError> {
    let raw = raw
        .filter(|r| r.get() != "null")
        .ok_or(EnvelopeError::MissingField(field))?;
    match serde_json::from_str::<String>(raw.get()) {
        Ok(s) if !s.is_empty() => Ok(s),
        _ => Err(EnvelopeError::InvalidField(field)),
    }
}

/// The fields of a UTF-8 body within the default limits, or the error, as the serde decoder
/// found them.
pub fn decode(text: &str) -> Result<Decoded, EnvelopeError> {
    let raw: RawEnvelope<'_> = object(text, "")?;
    let id = string(raw.id, "id")?;
    let event = string(raw.event, "event")?;
    let entity_raw = raw
        .entity
        .filter(|r| r.get() != "null")
        .ok_or(EnvelopeError::MissingField("entity"))?;
    let entity: RawEntity<'_> = object(entity_raw.get(), "entity")?;
    let entity_id = string(entity.id, "entity.id")?;
    let entity_type = string(entity.kind, "entity.type")?;
    let data = match entity.data {
        None => None,
        Some(d) if d.get().starts_with('{') => Some(d.get().to_owned()),
        Some(_) => return Err(EnvelopeError::InvalidField("entity.data")),
    };
    Ok((id, event, entity_id, entity_type, data))
}

/// Whether `[`/`{` outside strings nest deeper than `limit` anywhere in `body`, counted byte by
/// byte with no JSON needed (an unterminated string ends the count; a closer at depth 0 is
/// ignored): what decides `NESTING_TOO_DEEP`, ahead of every error but `BODY_TOO_LARGE`.
pub fn nesting_exceeds(body: &[u8], limit: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in body {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}
