//! [`ExternalEvent`]: a record of `GET /v1/external-events` read as the webhook envelope it
//! stands for.

use serde_json::{Map, Value};

use super::timestamp_ms;

/// A record of `GET /v1/external-events`, `{id, name, aggregateType, aggregateId, payload,
/// createdAt}`, read as the envelope `{id, event: name, entity: {id: aggregateId, type:
/// aggregateType, data: payload}}` with the same `id` (the envelope's `id` is stable across
/// replays, so the claims make an event the webhook path already processed a `duplicate`).
///
/// ```
/// use serde_json::json;
/// use xborder_core::catch_up::ExternalEvent;
/// let r = json!({"id": "evt_1", "name": "order:created", "aggregateType": "order",
///     "aggregateId": "ord_1", "payload": {"id": "ord_1"}, "createdAt": "2026-11-27T12:00:00Z"});
/// let e = ExternalEvent::from_record(&r).unwrap();
/// assert_eq!((e.id(), e.event(), e.entity_id(), e.entity_type()), ("evt_1", "order:created", "ord_1", "order"));
/// assert_eq!(e.envelope()["entity"]["data"], json!({"id": "ord_1"}));
/// assert!(ExternalEvent::from_record(&json!({"id": "evt_2", "name": "order:created"})).is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalEvent {
    id: String,
    event: String,
    entity_id: String,
    entity_type: String,
    data: Option<Value>,
    /// `data` as JSON text: the payload's raw text when the page was read from its text
    /// ([`CatchUp::answered`](super::CatchUp::answered)), else `data` written by serde_json.
    data_text: Option<String>,
    created_at: String,
    created_at_ms: i64,
}

/// A non-empty string field of `r`.
fn text<'a>(r: &'a Value, key: &str) -> Option<&'a str> {
    r.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The `createdAt` in milliseconds of a record that is an event (as
/// [`ExternalEvent::from_record`] reads it, without copying it).
pub(super) fn record_time(r: &Value) -> Option<i64> {
    ["id", "name", "aggregateType", "aggregateId"]
        .iter()
        .all(|k| text(r, k).is_some())
        .then(|| text(r, "createdAt").and_then(timestamp_ms))
        .flatten()
}

impl ExternalEvent {
    /// The event a record stands for: `None` unless `id`, `name`, `aggregateType` and
    /// `aggregateId` are non-empty strings and `createdAt` is a date-time ([`timestamp_ms`]).
    /// `payload` becomes `entity.data` (left out when absent or `null`); other keys
    /// (`merchantId`) are not part of the envelope.
    ///
    /// ```
    /// use serde_json::json;
    /// use xborder_core::catch_up::ExternalEvent;
    /// let r = json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u",
    ///     "createdAt": "yesterday"});
    /// assert!(ExternalEvent::from_record(&r).is_none());
    /// ```
    pub fn from_record(r: &Value) -> Option<ExternalEvent> {
        let mut e = Self::read(r)?;
        e.data_text = e.data.as_ref().and_then(|d| serde_json::to_string(d).ok());
        Some(e)
    }

    /// [`ExternalEvent::from_record`] with the payload's raw text as `entity.data` (`raw`:
    /// what the page's text held for this record).
    pub(super) fn from_record_text(r: &Value, raw: Option<&String>) -> Option<ExternalEvent> {
        let mut e = Self::read(r)?;
        if e.data.is_some() {
            e.data_text = raw.cloned();
        }
        Some(e)
    }

    /// The record's fields, without `data_text`.
    fn read(r: &Value) -> Option<ExternalEvent> {
        let created_at = text(r, "createdAt")?;
        Some(ExternalEvent {
            id: text(r, "id")?.to_owned(),
            event: text(r, "name")?.to_owned(),
            entity_id: text(r, "aggregateId")?.to_owned(),
            entity_type: text(r, "aggregateType")?.to_owned(),
            data: r.get("payload").filter(|p| !p.is_null()).cloned(),
            data_text: None,
            created_at_ms: timestamp_ms(created_at)?,
            created_at: created_at.to_owned(),
        })
    }

    /// The event id (the envelope's `id`, the claims' key).
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00Z"})).unwrap();
    /// assert_eq!(e.id(), "e");
    /// ```
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The event name (`name`; the envelope's `event`).
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00Z"})).unwrap();
    /// assert_eq!(e.event(), "ubo:created");
    /// ```
    pub fn event(&self) -> &str {
        &self.event
    }

    /// `aggregateId` (the envelope's `entity.id`).
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00Z"})).unwrap();
    /// assert_eq!(e.entity_id(), "u");
    /// ```
    pub fn entity_id(&self) -> &str {
        &self.entity_id
    }

    /// `aggregateType` (the envelope's `entity.type`).
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00Z"})).unwrap();
    /// assert_eq!(e.entity_type(), "ubo");
    /// ```
    pub fn entity_type(&self) -> &str {
        &self.entity_type
    }

    /// `payload` (the envelope's `entity.data`), `None` when absent or `null`.
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00Z"})).unwrap();
    /// assert_eq!(e.data(), None);
    /// ```
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// `createdAt` as the provider wrote it (the text a checkpoint keeps).
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00+01:00"})).unwrap();
    /// assert_eq!(e.created_at(), "2026-01-01T00:00:00+01:00");
    /// ```
    pub fn created_at(&self) -> &str {
        &self.created_at
    }

    /// `createdAt` in milliseconds since the Unix epoch.
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "1970-01-01T00:00:02Z"})).unwrap();
    /// assert_eq!(e.created_at_ms(), 2_000);
    /// ```
    pub fn created_at_ms(&self) -> i64 {
        self.created_at_ms
    }

    /// The webhook envelope this record stands for: `{id, event, entity: {id, type, data}}`.
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00Z"})).unwrap();
    /// assert_eq!(e.envelope(), serde_json::json!({"id": "e", "event": "ubo:created", "entity": {"id": "u", "type": "ubo"}}));
    /// ```
    pub fn envelope(&self) -> Value {
        let mut entity = Map::new();
        entity.insert("id".into(), Value::String(self.entity_id.clone()));
        entity.insert("type".into(), Value::String(self.entity_type.clone()));
        if let Some(data) = &self.data {
            entity.insert("data".into(), data.clone());
        }
        let mut env = Map::new();
        env.insert("id".into(), Value::String(self.id.clone()));
        env.insert("event".into(), Value::String(self.event.clone()));
        env.insert("entity".into(), Value::Object(entity));
        Value::Object(env)
    }
}

impl ExternalEvent {
    /// [`ExternalEvent::envelope`] as JSON text: the body a webhook delivery of this event
    /// would have carried, for [`Receiver::receive_recovered`](crate::delivery::Receiver::receive_recovered)
    /// or a host that stores bodies. `entity.data` is the payload's raw text when the page was
    /// read from its text ([`CatchUp::answered`](super::CatchUp::answered)).
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00Z"})).unwrap();
    /// assert_eq!(e.envelope_text(), r#"{"id":"e","event":"ubo:created","entity":{"id":"u","type":"ubo"}}"#);
    /// ```
    pub fn envelope_text(&self) -> String {
        let mut out = String::with_capacity(64 + self.data_text.as_ref().map_or(0, String::len));
        out.push_str("{\"id\":");
        push_string(&mut out, &self.id);
        out.push_str(",\"event\":");
        push_string(&mut out, &self.event);
        out.push_str(",\"entity\":{\"id\":");
        push_string(&mut out, &self.entity_id);
        out.push_str(",\"type\":");
        push_string(&mut out, &self.entity_type);
        if let Some(data) = &self.data_text {
            out.push_str(",\"data\":");
            out.push_str(data);
        }
        out.push_str("}}");
        out
    }
}

/// `s` as a JSON string (quotes, backslashes and control characters escaped).
fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let n = u32::from(c) as usize;
                out.push_str("\\u00");
                out.push(char::from(HEX.get(n >> 4).copied().unwrap_or(b'0')));
                out.push(char::from(HEX.get(n & 15).copied().unwrap_or(b'0')));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::ExternalEvent;
    use serde_json::{json, Value};

    #[test]
    fn the_envelope_text_is_json_with_the_payload_raw() {
        let r = json!({"id": "e\"1\\\u{1}", "name": "order:created", "aggregateType": "order",
            "aggregateId": "o\u{e9}", "payload": {"amount": 0.1}, "createdAt": "2026-01-01T00:00:00Z"});
        let raw = r#"{"amount": 0.10}"#.to_owned();
        let e = ExternalEvent::from_record_text(&r, Some(&raw)).unwrap();
        let text = e.envelope_text();
        assert!(text.ends_with(r#""data":{"amount": 0.10}}}"#), "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["id"], "e\"1\\\u{1}");
        assert_eq!(back["entity"]["id"], "o\u{e9}");
        // From a parsed record: the payload as serde_json writes it, the same envelope.
        let e = ExternalEvent::from_record(&r).unwrap();
        let back: Value = serde_json::from_str(&e.envelope_text()).unwrap();
        assert_eq!(back, e.envelope());
        // No payload: no data, whatever the raw text says.
        let none = json!({"id": "e", "name": "order:created", "aggregateType": "order",
            "aggregateId": "o", "payload": null, "createdAt": "2026-01-01T00:00:00Z"});
        let e = ExternalEvent::from_record_text(&none, Some(&raw)).unwrap();
        assert!(!e.envelope_text().contains("data"));
    }
}
