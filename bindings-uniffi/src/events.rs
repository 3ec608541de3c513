//! Event names: classification, the registration check, matching, and the host's catalog.

use std::fmt;
use std::sync::{Mutex, MutexGuard};

use xborder_core::events;

use crate::errors::rejected_of;
#[cfg(doc)]
use crate::Receiver;
use crate::XborderError;

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

impl From<events::Classification<'_>> for EventClassification {
    fn from(c: events::Classification<'_>) -> Self {
        EventClassification {
            kind: c.kind.into(),
            entity: c.parts.map(|p| p.entity().to_owned()),
            action: c.parts.map(|p| p.action().to_owned()),
        }
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

pub(crate) fn registration_check(
    catalog: &events::Catalog,
    events: &[String],
    existing_webhooks: u32,
) -> RegistrationCheck {
    match catalog.check_registration(events, existing_webhooks) {
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

/// The event catalog of a host that knows names this release does not: the built-in catalog
/// plus the live names and wildcards the host adds (`order:rejected`, `fiat_deposit:*`, ...).
/// Classification, the registration check and matching answer as the free functions do, with
/// the added names. Safe to share between threads. A [`Receiver`] built with a catalog keeps its
/// own copy: names added afterwards do not reach it.
#[derive(uniffi::Object)]
pub struct Catalog {
    inner: Mutex<events::Catalog>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.lock(), f)
    }
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new()
    }
}

impl Catalog {
    fn lock(&self) -> MutexGuard<'_, events::Catalog> {
        // Each change is one insertion into a sorted list, done or not: a poisoned lock holds a
        // usable catalog, so it is taken over.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A copy of the catalog as it is now.
    pub(crate) fn snapshot(&self) -> events::Catalog {
        self.lock().clone()
    }
}

#[uniffi::export]
impl Catalog {
    /// A copy of the built-in catalog, with nothing added.
    #[uniffi::constructor]
    pub fn new() -> Self {
        Catalog {
            inner: Mutex::new(events::Catalog::builtin()),
        }
    }

    /// Adds a live name (`<entity>:<action>`, not a wildcard) the provider sends before this
    /// release knows it; a planned name added this way becomes live. Throws
    /// `INVALID_EVENT_NAME`.
    pub fn add_live(&self, name: String) -> Result<(), XborderError> {
        Ok(self.lock().add_live(&name)?)
    }

    /// Adds a wildcard (`<entity>:*`) the provider accepts at registration. Throws
    /// `INVALID_EVENT_NAME`.
    pub fn add_wildcard(&self, name: String) -> Result<(), XborderError> {
        Ok(self.lock().add_wildcard(&name)?)
    }

    /// Classifies an event name against this catalog (as [`classify_event`] does against the
    /// built-in one).
    pub fn classify(&self, name: String) -> EventClassification {
        self.lock().classify_name(&name).into()
    }

    /// Whether `name` is live here (built in or added).
    pub fn is_live(&self, name: String) -> bool {
        self.lock().is_live(&name)
    }

    /// [`check_registration`] against this catalog.
    #[uniffi::method(default(existing_webhooks = 0))]
    pub fn check_registration(
        &self,
        events: Vec<String>,
        existing_webhooks: u32,
    ) -> RegistrationCheck {
        registration_check(&self.lock(), &events, existing_webhooks)
    }

    /// [`create_webhook_body`] against this catalog: the added names are accepted.
    #[uniffi::method(default(existing_webhooks = 0))]
    pub fn create_webhook_body(
        &self,
        events: Vec<String>,
        url: String,
        existing_webhooks: u32,
    ) -> Result<String, XborderError> {
        let reg = self.lock().check_registration(&events, existing_webhooks)?;
        Ok(reg.create_webhook_body(&url)?)
    }

    /// [`event_matches`] (matching does not depend on the names listed: a wildcard covers every
    /// name of its family).
    pub fn matches(&self, subscriptions: Vec<String>, event: String) -> bool {
        self.lock().matches(&subscriptions, &event)
    }
}

// ---------------------------------------------------------------------------------------------
// The exported functions

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
}
