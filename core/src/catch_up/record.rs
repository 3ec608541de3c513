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
        let created_at = text(r, "createdAt")?;
        Some(ExternalEvent {
            id: text(r, "id")?.to_owned(),
            event: text(r, "name")?.to_owned(),
            entity_id: text(r, "aggregateId")?.to_owned(),
            entity_type: text(r, "aggregateType")?.to_owned(),
            data: r.get("payload").filter(|p| !p.is_null()).cloned(),
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
    /// or a host that stores bodies.
    ///
    /// ```
    /// # let e = xborder_core::catch_up::ExternalEvent::from_record(&serde_json::json!({"id": "e", "name": "ubo:created", "aggregateType": "ubo", "aggregateId": "u", "createdAt": "2026-01-01T00:00:00Z"})).unwrap();
    /// assert_eq!(e.envelope_text(), r#"{"entity":{"id":"u","type":"ubo"},"event":"ubo:created","id":"e"}"#);
    /// ```
    pub fn envelope_text(&self) -> String {
        // Writing a `Value` cannot fail (its keys are strings).
        serde_json::to_string(&self.envelope()).unwrap_or_default()
    }
}
