//! The webhook envelope `{id, event, entity{id, type, data}}`, decoded from the raw body.
//!
//! `entity.data` is kept as the raw JSON text it arrived as (never re-serialised) and parsed
//! only when asked. Names the catalog does not know decode fine with [`EventKind::Unknown`].

use std::fmt;

use serde::de::DeserializeOwned;

use crate::events::{Catalog, EventKind};
use crate::scan::{self, Malformed, Scanner};

/// Why a body is not a usable envelope. [`EnvelopeError::field`] names the field.
///
/// ```
/// use xborder_core::envelope::{Envelope, EnvelopeError};
/// let err = Envelope::decode(br#"{"event":"order:created"}"#).unwrap_err();
/// assert_eq!(err, EnvelopeError::MissingField("id"));
/// assert_eq!((err.code(), err.field()), ("MISSING_FIELD", Some("id")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// Not UTF-8, not JSON, not an object, an envelope field given twice, or a key of the
    /// envelope or of `entity` that is not a Unicode string (a lone surrogate escape).
    MalformedJson,
    /// The body is longer than [`Limits::max_body_bytes`].
    BodyTooLarge {
        /// The limit in force.
        limit: usize,
    },
    /// Arrays and objects nest deeper than [`Limits::max_depth`].
    NestingTooDeep {
        /// The limit in force.
        limit: usize,
    },
    /// A required field is absent or `null`.
    MissingField(&'static str),
    /// A field has the wrong type, is an empty string, or (`event`) is not a well-formed name.
    InvalidField(&'static str),
    /// A live or planned event whose family differs from `entity.type`.
    EntityMismatch {
        /// The event's family (before the colon).
        family: String,
        /// The `entity.type` sent.
        entity_type: String,
    },
}

impl EnvelopeError {
    /// The stable code (see [`crate::codes`]).
    ///
    /// ```
    /// assert_eq!(xborder_core::envelope::EnvelopeError::MalformedJson.code(), "MALFORMED_JSON");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            EnvelopeError::MalformedJson => "MALFORMED_JSON",
            EnvelopeError::BodyTooLarge { .. } => "BODY_TOO_LARGE",
            EnvelopeError::NestingTooDeep { .. } => "NESTING_TOO_DEEP",
            EnvelopeError::MissingField(_) => "MISSING_FIELD",
            EnvelopeError::InvalidField(_) => "INVALID_FIELD",
            EnvelopeError::EntityMismatch { .. } => "ENTITY_MISMATCH",
        }
    }

    /// The dotted field the error is about, where there is one.
    ///
    /// ```
    /// use xborder_core::envelope::EnvelopeError;
    /// assert_eq!(EnvelopeError::InvalidField("entity.data").field(), Some("entity.data"));
    /// assert_eq!(EnvelopeError::MalformedJson.field(), None);
    /// ```
    pub fn field(&self) -> Option<&'static str> {
        match self {
            EnvelopeError::MissingField(f) | EnvelopeError::InvalidField(f) => Some(f),
            EnvelopeError::EntityMismatch { .. } => Some("entity.type"),
            EnvelopeError::MalformedJson
            | EnvelopeError::BodyTooLarge { .. }
            | EnvelopeError::NestingTooDeep { .. } => None,
        }
    }
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvelopeError::BodyTooLarge { limit } => {
                write!(f, "{}: the body is over {limit} bytes", self.code())
            }
            EnvelopeError::NestingTooDeep { limit } => {
                write!(
                    f,
                    "{}: the body nests arrays and objects over {limit} deep",
                    self.code()
                )
            }
            EnvelopeError::MalformedJson => {
                write!(
                    f,
                    "{}: the body is not a JSON object (or repeats an envelope field)",
                    self.code()
                )
            }
            EnvelopeError::MissingField(x) => write!(f, "{}: `{x}` is absent or null", self.code()),
            EnvelopeError::InvalidField(x) => {
                write!(f, "{}: `{x}` has the wrong type or is empty", self.code())
            }
            EnvelopeError::EntityMismatch {
                family,
                entity_type,
            } => write!(
                f,
                "{}: a `{family}` event carries an entity of type `{entity_type}`",
                self.code()
            ),
        }
    }
}

impl std::error::Error for EnvelopeError {}

/// The raw text of the envelope's fields, as one pass of the scanner found them.
#[derive(Default)]
struct Fields<'a> {
    id: Option<&'a str>,
    event: Option<&'a str>,
    /// The raw bytes of `entity` (UTF-8 checked member by member).
    entity: Option<&'a [u8]>,
    entity_id: Option<&'a str>,
    entity_type: Option<&'a str>,
    data: Option<&'a str>,
    /// `entity` repeats one of its fields or has a key that is not a Unicode string (reported
    /// after `id` and `event` are checked, where a parse of `entity` alone would find it).
    entity_malformed: bool,
}

/// Whether a raw key names `name`, compared after decoding escapes (`"\u0069d"` is `id`). A key
/// of an object the envelope reads must be a Unicode string: a lone surrogate escape there is
/// malformed (in the objects it skips, and in `data`, keys are not decoded).
fn key_is(raw: &str, name: &str) -> Result<bool, Malformed> {
    if raw.contains('\\') {
        scan::unescape(raw).map(|k| k == name).ok_or(Malformed)
    } else {
        Ok(raw == name)
    }
}

/// Fills `slot` with a member's value; `false` when it was already filled.
fn fill<'a>(slot: &mut Option<&'a str>, s: &mut Scanner<'a>) -> Result<bool, Malformed> {
    let value = s.value()?;
    Ok(slot.replace(value).is_none())
}

/// One pass over the whole body: strict JSON, UTF-8, an object at the top, no repeated envelope
/// field, nesting no deeper than `max_depth`.
fn scan_fields(body: &[u8], max_depth: usize) -> Result<Fields<'_>, Malformed> {
    let mut f = Fields::default();
    let mut s = Scanner::new(body, max_depth);
    s.ws();
    s.object(|s, key| {
        let first = if key_is(key, "id")? {
            fill(&mut f.id, s)?
        } else if key_is(key, "event")? {
            fill(&mut f.event, s)?
        } else if key_is(key, "entity")? {
            if f.entity.is_some() {
                return Err(Malformed);
            }
            let start = s.pos();
            if s.peek() == Some(b'{') {
                s.object(|s, key| {
                    let first = match (key_is(key, "id"), key_is(key, "type"), key_is(key, "data"))
                    {
                        (Ok(true), _, _) => fill(&mut f.entity_id, s)?,
                        (_, Ok(true), _) => fill(&mut f.entity_type, s)?,
                        (_, _, Ok(true)) => fill(&mut f.data, s)?,
                        (Err(Malformed), _, _) => s.value().map(|_| false)?,
                        _ => s.value().map(|_| true)?,
                    };
                    f.entity_malformed |= !first;
                    Ok(())
                })?;
            } else {
                s.value()?;
            }
            f.entity = Some(s.since(start)?);
            true
        } else {
            s.value().map(|_| true)?
        };
        if first {
            Ok(())
        } else {
            Err(Malformed)
        }
    })?;
    s.ws();
    if s.at_end() {
        Ok(f)
    } else {
        Err(Malformed)
    }
}

/// A required non-empty string field: absent or `null` is missing; another type, an empty
/// string or a lone surrogate escape is invalid.
fn string(raw: Option<&str>, field: &'static str) -> Result<String, EnvelopeError> {
    let raw = raw
        .filter(|r| *r != "null")
        .ok_or(EnvelopeError::MissingField(field))?;
    raw.strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .and_then(scan::unescape)
        .filter(|s| !s.is_empty())
        .ok_or(EnvelopeError::InvalidField(field))
}

/// An owned copy of `entity.data`, made 1 KiB at a time. glibc's `memcpy` copies blocks of a few
/// KiB and more with `rep movsb`, which some CPUs (the AMD EPYC of `tests/bench/`) run about 17
/// times slower when the copy lands 1 to 15 bytes past its source modulo 4 KiB: the data of a
/// 20 KB body took 5.9 µs instead of 0.35 µs for such heap addresses, a matter of luck. Pieces
/// below that size are copied at full speed wherever they land, and cost nothing otherwise.
fn copy(data: &str) -> String {
    let mut copy = String::with_capacity(data.len());
    let mut rest = data;
    while !rest.is_empty() {
        // A character boundary at most 1 KiB in: one is within 3 bytes of any offset.
        let mut cut = rest.len().min(1024);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let Some((piece, tail)) = rest.split_at_checked(cut.max(1)) else {
            copy.push_str(rest);
            break;
        };
        copy.push_str(piece);
        rest = tail;
    }
    copy
}

/// What a body may cost to decode: a hostile sender cannot make a consumer allocate or recurse
/// without bound. The defaults suit webhook envelopes (a few KB, shallow) with a wide margin.
///
/// ```
/// use xborder_core::envelope::{Envelope, EnvelopeError, Limits};
/// let limits = Limits::new(16, Limits::default().max_depth);
/// let err = Envelope::decode_with_limits(br#"{"id":"a long body"}"#, &Default::default(), &limits).unwrap_err();
/// assert_eq!(err, EnvelopeError::BodyTooLarge { limit: 16 });
/// assert_eq!(Limits::default().max_depth, 64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// The longest body accepted, in bytes (default 1 MiB). Checked before anything else.
    pub max_body_bytes: usize,
    /// The deepest nesting of arrays and objects accepted, the envelope's own two levels
    /// included (default 64). Counted by the scan itself; a body nested too deep is
    /// `NESTING_TOO_DEEP` even when it also has another fault (invalid JSON or UTF-8).
    pub max_depth: usize,
}

impl Limits {
    /// Limits with the given longest body (bytes) and deepest nesting.
    ///
    /// ```
    /// let l = xborder_core::envelope::Limits::new(4096, 16);
    /// assert_eq!((l.max_body_bytes, l.max_depth), (4096, 16));
    /// ```
    pub fn new(max_body_bytes: usize, max_depth: usize) -> Self {
        Limits {
            max_body_bytes,
            max_depth,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 1 << 20,
            max_depth: 64,
        }
    }
}

/// The deepest nesting of `[`/`{` outside strings, stopping as soon as it passes `limit`. Needs
/// no valid JSON: an unterminated string ends the count. Searches for the next byte that matters
/// rather than stepping byte by byte. Only run when the scan has failed, to tell a body nested
/// too deep (which wins over any other fault) from a malformed one; on JSON the scan stops at
/// the first bracket past the limit, the very bracket this count stops at.
fn nesting_exceeds(body: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut rest = body;
    while let Some(i) = rest
        .iter()
        .position(|&b| matches!(b, b'"' | b'[' | b'{' | b']' | b'}'))
    {
        let Some((&b, after)) = rest.get(i..).and_then(<[u8]>::split_first) else {
            return false;
        };
        rest = after;
        match b {
            b'"' => loop {
                // Inside a string: to the closing quote, stepping over escaped characters.
                let Some(j) = rest.iter().position(|&c| c == b'"' || c == b'\\') else {
                    return false;
                };
                let Some((&c, after)) = rest.get(j..).and_then(<[u8]>::split_first) else {
                    return false;
                };
                rest = after;
                if c == b'"' {
                    break;
                }
                rest = rest.get(1..).unwrap_or_default();
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            _ => depth = depth.saturating_sub(1),
        }
    }
    false
}

/// A decoded webhook delivery.
///
/// ```
/// use xborder_core::envelope::Envelope;
/// use xborder_core::events::EventKind;
/// let body = br#"{"id":"evt_1","event":"order:success","entity":{"id":"ord_1","type":"order","data":{"status":"success","amount":"10.00"}}}"#;
/// let env = Envelope::decode(body).unwrap();
/// assert_eq!((env.id(), env.event(), env.kind()), ("evt_1", "order:success", EventKind::Live));
/// assert_eq!((env.entity_id(), env.entity_type()), ("ord_1", "order"));
/// assert_eq!(env.data_str("status").as_deref(), Some("success"));
/// assert_eq!(env.raw_data(), Some(r#"{"status":"success","amount":"10.00"}"#));
/// ```
#[derive(Debug, Clone)]
pub struct Envelope {
    id: String,
    event: String,
    kind: EventKind,
    entity_id: String,
    entity_type: String,
    /// `entity.data`, the raw text of an object, exactly as sent.
    data: Option<String>,
}

impl PartialEq for Envelope {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.event == other.event
            && self.kind == other.kind
            && self.entity_id == other.entity_id
            && self.entity_type == other.entity_type
            && self.raw_data() == other.raw_data()
    }
}

impl Envelope {
    /// Decodes raw body bytes against the built-in catalog.
    ///
    /// ```
    /// use xborder_core::envelope::{Envelope, EnvelopeError};
    /// assert_eq!(Envelope::decode(b"not json").unwrap_err(), EnvelopeError::MalformedJson);
    /// ```
    pub fn decode(body: &[u8]) -> Result<Self, EnvelopeError> {
        Self::decode_with(body, &Catalog::builtin())
    }

    /// Decodes raw body bytes, classifying the event against `catalog`.
    ///
    /// ```
    /// use xborder_core::{envelope::Envelope, events::{Catalog, EventKind}};
    /// let mut catalog = Catalog::builtin();
    /// catalog.add_live("order:rejected").unwrap();
    /// let env = Envelope::decode_with(br#"{"id":"e","event":"order:rejected","entity":{"id":"o","type":"order"}}"#, &catalog).unwrap();
    /// assert_eq!(env.kind(), EventKind::Live);
    /// ```
    pub fn decode_with(body: &[u8], catalog: &Catalog) -> Result<Self, EnvelopeError> {
        Self::decode_with_limits(body, catalog, &Limits::default())
    }

    /// Decodes under explicit [`Limits`] (size first, then depth, then the envelope).
    ///
    /// ```
    /// use xborder_core::envelope::{Envelope, EnvelopeError, Limits};
    /// let deep = format!(r#"{{"id":"e","event":"ubo:created","entity":{{"id":"u","type":"ubo","data":{{"x":{}}}}}}}"#, "[".repeat(70));
    /// let err = Envelope::decode_with_limits(deep.as_bytes(), &Default::default(), &Limits::default()).unwrap_err();
    /// assert_eq!(err.code(), "NESTING_TOO_DEEP");
    /// ```
    pub fn decode_with_limits(
        body: &[u8],
        catalog: &Catalog,
        limits: &Limits,
    ) -> Result<Self, EnvelopeError> {
        if body.len() > limits.max_body_bytes {
            return Err(EnvelopeError::BodyTooLarge {
                limit: limits.max_body_bytes,
            });
        }
        let f = scan_fields(body, limits.max_depth).map_err(|Malformed| {
            if nesting_exceeds(body, limits.max_depth) {
                EnvelopeError::NestingTooDeep {
                    limit: limits.max_depth,
                }
            } else {
                EnvelopeError::MalformedJson
            }
        })?;
        let id = string(f.id, "id")?;
        let event = string(f.event, "event")?;
        let entity = f
            .entity
            .filter(|r| *r != b"null")
            .ok_or(EnvelopeError::MissingField("entity"))?;
        if !entity.starts_with(b"{") {
            return Err(EnvelopeError::InvalidField("entity"));
        }
        if f.entity_malformed {
            return Err(EnvelopeError::MalformedJson);
        }
        let entity_id = string(f.entity_id, "entity.id")?;
        let entity_type = string(f.entity_type, "entity.type")?;
        let data = match f.data {
            None => None,
            Some(d) if d.starts_with('{') => Some(copy(d)),
            Some(_) => return Err(EnvelopeError::InvalidField("entity.data")),
        };
        let class = catalog.classify_name(&event);
        let Some(parts) = class.parts else {
            return Err(EnvelopeError::InvalidField("event"));
        };
        if matches!(class.kind, EventKind::Live | EventKind::Planned)
            && parts.entity() != entity_type
        {
            return Err(EnvelopeError::EntityMismatch {
                family: parts.entity().to_owned(),
                entity_type,
            });
        }
        if parts.is_wildcard() {
            return Err(EnvelopeError::InvalidField("event"));
        }
        Ok(Envelope {
            id,
            kind: class.kind,
            event,
            entity_id,
            entity_type,
            data,
        })
    }

    /// The event id: stable across redeliveries, the idempotency key.
    ///
    /// ```
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"ubo:created","entity":{"id":"u","type":"ubo"}}"#).unwrap();
    /// assert_eq!(env.id(), "e1");
    /// ```
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The event name as sent (`order:created`, or a name this release does not know).
    ///
    /// ```
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"ubo:new_thing","entity":{"id":"u","type":"ubo"}}"#).unwrap();
    /// assert_eq!(env.event(), "ubo:new_thing");
    /// ```
    pub fn event(&self) -> &str {
        &self.event
    }

    /// The event's kind: [`EventKind::Live`], [`EventKind::Planned`] or [`EventKind::Unknown`].
    ///
    /// ```
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"ubo:new_thing","entity":{"id":"u","type":"ubo"}}"#).unwrap();
    /// assert_eq!(env.kind(), xborder_core::events::EventKind::Unknown);
    /// ```
    pub fn kind(&self) -> EventKind {
        self.kind
    }

    /// The family of the event (`order` in `order:created`).
    ///
    /// ```
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"ubo:created","entity":{"id":"u","type":"ubo"}}"#).unwrap();
    /// assert_eq!(env.family(), "ubo");
    /// ```
    pub fn family(&self) -> &str {
        self.event.split_once(':').map_or("", |(f, _)| f)
    }

    /// `entity.id`: the object the event is about.
    ///
    /// ```
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"ubo:created","entity":{"id":"u","type":"ubo"}}"#).unwrap();
    /// assert_eq!(env.entity_id(), "u");
    /// ```
    pub fn entity_id(&self) -> &str {
        &self.entity_id
    }

    /// `entity.type` as sent (new types decode too).
    ///
    /// ```
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"ubo:created","entity":{"id":"u","type":"ubo"}}"#).unwrap();
    /// assert_eq!(env.entity_type(), "ubo");
    /// ```
    pub fn entity_type(&self) -> &str {
        &self.entity_type
    }

    /// `entity.data` exactly as sent, or `None` when it was absent.
    ///
    /// ```
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"ubo:created","entity":{"id":"u","type":"ubo","data":{"n" : 1.50}}}"#).unwrap();
    /// assert_eq!(env.raw_data(), Some(r#"{"n" : 1.50}"#));
    /// ```
    pub fn raw_data(&self) -> Option<&str> {
        self.data.as_deref()
    }

    /// Parses `entity.data` into `T` on demand (`None` when it was absent).
    ///
    /// ```
    /// #[derive(serde::Deserialize)]
    /// struct Order { status: String }
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"order:success","entity":{"id":"o","type":"order","data":{"status":"success"}}}"#).unwrap();
    /// let order: Order = env.data_as().unwrap().unwrap();
    /// assert_eq!(order.status, "success");
    /// ```
    pub fn data_as<T: DeserializeOwned>(&self) -> Option<Result<T, serde_json::Error>> {
        self.data.as_deref().map(serde_json::from_str)
    }

    /// `entity.data` as a [`serde_json::Value`] (an empty object when it was absent). Decoding
    /// keeps the data raw without parsing it, so data that is not representable (a lone
    /// surrogate escape, a number like `1e400`, nesting past serde_json's limit) is an error here,
    /// never silently an empty object.
    ///
    /// ```
    /// # use xborder_core::envelope::Envelope;
    /// let env = Envelope::decode(br#"{"id":"e1","event":"ubo:created","entity":{"id":"u","type":"ubo"}}"#).unwrap();
    /// assert_eq!(env.data_value().unwrap(), serde_json::json!({}));
    /// let odd = Envelope::decode(br#"{"id":"e1","event":"ubo:created","entity":{"id":"u","type":"ubo","data":{"n":1e400}}}"#).unwrap();
    /// assert!(odd.data_value().is_err());
    /// ```
    pub fn data_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        self.data_as()
            .unwrap_or_else(|| Ok(serde_json::Value::Object(Default::default())))
    }

    /// A top-level string of `entity.data` (`status`, `amount`, ...), parsed on demand.
    ///
    /// ```
    /// # let env = xborder_core::envelope::Envelope::decode(br#"{"id":"e1","event":"order:success","entity":{"id":"o","type":"order","data":{"amount":"9.99","n":1}}}"#).unwrap();
    /// assert_eq!(env.data_str("amount").as_deref(), Some("9.99"));
    /// assert_eq!(env.data_str("n"), None);
    /// ```
    pub fn data_str(&self, key: &str) -> Option<String> {
        let mut s = Scanner::new(self.data.as_deref()?.as_bytes(), usize::MAX);
        let mut found = None;
        s.object(|s, k| {
            let value = s.value()?;
            if key_is(k, key)? {
                found = Some(value); // a repeated key: the last one, as a JSON map reads it
            }
            Ok(())
        })
        .ok()?;
        found?
            .strip_prefix('"')?
            .strip_suffix('"')
            .and_then(scan::unescape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(s: &str) -> Result<Envelope, EnvelopeError> {
        Envelope::decode(s.as_bytes())
    }

    #[test]
    fn data_is_kept_byte_for_byte() {
        let body = r#"{"id":"e","event":"order:created","entity":{"id":"o","type":"order","data":{"b":1.0e2,"a":"\u00e9","z":[1, 2]}}}"#;
        let env = decode(body).unwrap();
        assert_eq!(
            env.raw_data(),
            Some(r#"{"b":1.0e2,"a":"\u00e9","z":[1, 2]}"#)
        );
    }

    #[test]
    fn order_of_checks_names_the_first_bad_field() {
        assert_eq!(decode("[]"), Err(EnvelopeError::MalformedJson));
        assert_eq!(
            decode(r#"{"id":1}"#),
            Err(EnvelopeError::InvalidField("id"))
        );
        assert_eq!(
            decode(r#"{"id":null,"event":1}"#),
            Err(EnvelopeError::MissingField("id"))
        );
        assert_eq!(
            decode(r#"{"id":"e","event":""}"#),
            Err(EnvelopeError::InvalidField("event"))
        );
        assert_eq!(
            decode(r#"{"id":"e","event":"x:y","entity":[]}"#),
            Err(EnvelopeError::InvalidField("entity"))
        );
        assert_eq!(
            decode(r#"{"id":"e","event":"x:y","entity":{"type":"x"}}"#),
            Err(EnvelopeError::MissingField("entity.id"))
        );
        assert_eq!(
            decode(r#"{"id":"e","event":"x:y","entity":{"id":"i","type":"x","data":null}}"#),
            Err(EnvelopeError::InvalidField("entity.data"))
        );
        assert_eq!(
            decode(r#"{"id":"e","event":"X","entity":{"id":"i","type":"x"}}"#),
            Err(EnvelopeError::InvalidField("event"))
        );
        assert_eq!(
            decode(r#"{"id":"e","event":"order:created","entity":{"id":"i","type":"sender"}}"#)
                .unwrap_err()
                .code(),
            "ENTITY_MISMATCH"
        );
    }

    #[test]
    fn duplicate_envelope_fields_are_refused() {
        assert_eq!(
            decode(
                r#"{"id":"a","id":"b","event":"order:created","entity":{"id":"i","type":"order"}}"#
            ),
            Err(EnvelopeError::MalformedJson)
        );
        assert_eq!(
            decode(
                r#"{"id":"a","event":"order:created","entity":{"id":"i","type":"order","type":"sender"}}"#
            ),
            Err(EnvelopeError::MalformedJson)
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            r#"{{"id":"e","event":"order:created","entity":{{"id":"i","type":"order","data":{{"x":{}{}}}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(
            decode(&deep),
            Err(EnvelopeError::NestingTooDeep { limit: 64 })
        );
        // Without the depth limit the raw data is kept as sent (skipping it is not recursive),
        // and parsing it on demand meets serde_json's recursion limit instead of the stack's.
        let unlimited = Limits {
            max_depth: usize::MAX,
            ..Limits::default()
        };
        let env =
            Envelope::decode_with_limits(deep.as_bytes(), &Catalog::builtin(), &unlimited).unwrap();
        assert_eq!(env.raw_data().map(str::len), Some(200_006));
        assert!(env.data_as::<serde_json::Value>().unwrap().is_err());
    }

    #[test]
    fn depth_scan_ignores_brackets_in_strings() {
        let body = format!(
            r#"{{"id":"e","event":"ubo:created","entity":{{"id":"u","type":"ubo","data":{{"s":"{}\"[["}}}}}}"#,
            "[{".repeat(100)
        );
        assert!(decode(&body).is_ok());
        assert_eq!(
            decode(&"[".repeat(65)),
            Err(EnvelopeError::NestingTooDeep { limit: 64 })
        );
        assert_eq!(decode(&"[".repeat(64)), Err(EnvelopeError::MalformedJson));
    }

    /// The byte-by-byte count `nesting_exceeds` replaced: the reference it must agree with.
    fn nesting_exceeds_stepwise(body: &[u8], limit: usize) -> bool {
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]
        #[test]
        fn nesting_agrees_with_the_stepwise_count(
            text in "[\\[\\]{}\"\\\\a]{0,24}",
            limit in 0usize..6,
        ) {
            proptest::prop_assert_eq!(
                nesting_exceeds(text.as_bytes(), limit),
                nesting_exceeds_stepwise(text.as_bytes(), limit),
                "{:?} limit {}", text, limit
            );
        }
    }

    #[test]
    fn depth_wins_over_any_other_fault_wherever_it_is() {
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        let too_deep = Err(EnvelopeError::NestingTooDeep { limit: 64 });
        let ok =
            r#"{"id":"e","event":"ubo:created","entity":{"id":"u","type":"ubo","data":{"x":1}}}"#;
        for body in [
            format!("{deep}{ok}"),
            format!("{ok}{deep}"),
            format!("x{deep}"),
            format!(r#"{{"id":1,"x":{deep}}}"#),
            format!(r#"{{"id":"\u12","x":{deep}}}"#),
            format!(r#"{{"id":"e","id":"e","x":{deep}}}"#),
            format!(r#"{{"entity":{{"type":"a","type":"b","data":{deep}}}}}"#),
            ok.replace(r#""x":1"#, &format!(r#""x":{deep}"#)),
        ] {
            assert_eq!(decode(&body), too_deep, "{body}");
            // Invalid UTF-8 before or after the deep part: still too deep.
            for at in [0, body.len() / 2, body.len()] {
                let mut bytes = body.clone().into_bytes();
                bytes.insert(at, 0xff);
                assert_eq!(Envelope::decode(&bytes), too_deep, "{body} + 0xff at {at}");
            }
        }
        // At the limit, the faults are what they are.
        // The envelope's object, entity and data are three levels: 61 more is 64.
        let at_limit = format!("{}{}", "[".repeat(61), "]".repeat(61));
        let body = ok.replace(r#""x":1"#, &format!(r#""x":{at_limit}"#));
        assert!(decode(&body).is_ok());
        assert_eq!(
            decode(&format!("{body} x")),
            Err(EnvelopeError::MalformedJson)
        );
    }

    #[test]
    fn invalid_utf8_anywhere_is_malformed_before_any_field_is_checked() {
        let body = r#"{"id":"e","event":"ubo:created","x":["s"],"entity":{"id":"u","type":"ubo","k":"s","data":{"s":"s","k":{"s":"s"}}}}"#;
        for (at, _) in body.match_indices('s') {
            let mut bytes = body.as_bytes().to_vec();
            // A lone continuation byte, a truncated sequence, an overlong encoding, a surrogate.
            for bad in [&[0x80u8][..], &[0xc3], &[0xc0, 0xaf], &[0xed, 0xa0, 0x80]] {
                bytes.splice(at..at + 1, bad.iter().copied());
                assert_eq!(
                    Envelope::decode(&bytes),
                    Err(EnvelopeError::MalformedJson),
                    "{at}"
                );
                bytes = body.as_bytes().to_vec();
            }
        }
        // And valid UTF-8 of every length is kept as sent.
        let body = body.replace(r#""s":"s""#, r#""s":"é€😀""#);
        assert_eq!(
            decode(&body).unwrap().raw_data(),
            Some(r#"{"s":"é€😀","k":{"s":"é€😀"}}"#)
        );
    }

    #[test]
    fn long_bodies_decode_as_the_short_ones() {
        // Strings across the scanner's 64-byte blocks, escapes at every offset of one.
        for pad in 0..130 {
            let a = "a".repeat(pad);
            let body = format!(
                r#"{{"x{a}":"{a}","id":"e{a}\"","event":"ubo:created","entity":{{"type":"ubo","id":"{a}\u00e9\n","data":{{"{a}":"{a}\\","b":[{{"{a}":1}}]}}}}}}"#
            );
            let env = decode(&body).unwrap();
            assert_eq!(env.id(), format!("e{a}\""));
            assert_eq!(env.entity_id(), format!("{a}é\n"));
            assert_eq!(
                env.raw_data(),
                Some(format!(r#"{{"{a}":"{a}\\","b":[{{"{a}":1}}]}}"#).as_str())
            );
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(env.data_value().unwrap(), v["entity"]["data"]);
        }
    }

    #[test]
    fn data_is_copied_whole_whatever_characters_straddle_the_pieces() {
        for len in [0, 1, 1023, 1024, 1025, 2047, 2048, 2049, 5000] {
            for c in ["a", "é", "€", "😀"] {
                for pad in 0..4 {
                    let data = format!("{}{}", "x".repeat(pad), c.repeat(len / c.len()));
                    assert_eq!(&*copy(&data), data.as_str());
                }
            }
        }
    }

    proptest::proptest! {
        /// `NESTING_TOO_DEEP` exactly when the byte-by-byte count over the whole body passes the
        /// limit, whatever else is wrong with the body (the order the depth pre-pass gave).
        #[test]
        fn too_deep_exactly_when_the_count_says_so(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(&b"["[..]), proptest::strategy::Just(&b"]"[..]),
                    proptest::strategy::Just(&b"{\"a\":"[..]), proptest::strategy::Just(&b"}"[..]),
                    proptest::strategy::Just(&b"\"[{\\\"\""[..]), proptest::strategy::Just(&b","[..]),
                    proptest::strategy::Just(&b"1"[..]), proptest::strategy::Just(&b"\xff"[..]),
                    proptest::strategy::Just(&b"\""[..]), proptest::strategy::Just(&b"\\"[..]),
                    proptest::strategy::Just(&br#"{"id":"e","event":"ubo:created","entity":{"id":"u","type":"ubo","data":"#[..]),
                ],
                0..160,
            ),
            limit in 0usize..12,
        ) {
            let body = parts.concat();
            let limits = Limits::new(usize::MAX, limit);
            let got = Envelope::decode_with_limits(&body, &Catalog::builtin(), &limits);
            proptest::prop_assert_eq!(
                matches!(got, Err(EnvelopeError::NestingTooDeep { .. })),
                nesting_exceeds_stepwise(&body, limit),
                "{:?}", String::from_utf8_lossy(&body)
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_decode_or_error(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            let _ = Envelope::decode(&bytes);
        }
    }
}
