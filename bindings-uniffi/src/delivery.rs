//! The receiver: verifies, decodes, classifies and dedupes deliveries.

use std::fmt;
use std::sync::Arc;

use xborder_core::{delivery, envelope};

use crate::{Catalog, ClaimReply, DecodeLimits, Envelope, XborderError};

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
    /// What to answer the provider (core's `Decision::reply`): 200 for process (once persisted),
    /// ignore and duplicate; for a reject, 400 (the request's signature or body), 413 (a body over
    /// the limit), 500 (this service's secret) or 503 with `Retry-After` (a store that failed).
    pub reply: ClaimReply,
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
            reply: d.reply().into(),
        }
    }
}

/// Verifies, decodes, classifies and dedupes deliveries, remembering up to `window` committed
/// ids in memory. Safe to share between threads.
#[derive(uniffi::Object)]
pub struct Receiver {
    pub(crate) inner: delivery::Receiver,
}

impl fmt::Debug for Receiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Receiver { secrets: <redacted> }")
    }
}

#[uniffi::export]
impl Receiver {
    /// A receiver keyed with one secret (its UTF-8 bytes, used as given) and an in-memory
    /// window of `window` committed ids (10,000 by default; 0 remembers none). Throws
    /// `EMPTY_SECRET` when the secret is empty. `limits` bounds the bodies it decodes (the
    /// core's defaults when absent). `catalog` classifies the events (the built-in catalog when
    /// absent); the receiver copies it now, so names added to it later do not reach this
    /// receiver. During a key rotation use [`Receiver::with_secrets`].
    #[uniffi::constructor(default(window = 10000, limits = None, catalog = None))]
    pub fn new(
        secret: String,
        window: u64,
        limits: Option<DecodeLimits>,
        catalog: Option<Arc<Catalog>>,
    ) -> Result<Self, XborderError> {
        Self::with_secrets(vec![secret], window, limits, catalog)
    }

    /// A receiver keyed with several secrets, for a key rotation: a delivery signed with any of
    /// them verifies. Throws `EMPTY_SECRET` when the list is empty or a secret in it is empty.
    /// `window`, `limits` and `catalog` as for the one-secret constructor (the catalog is
    /// copied).
    #[uniffi::constructor(default(window = 10000, limits = None, catalog = None))]
    pub fn with_secrets(
        secrets: Vec<String>,
        window: u64,
        limits: Option<DecodeLimits>,
        catalog: Option<Arc<Catalog>>,
    ) -> Result<Self, XborderError> {
        let window = usize::try_from(window).unwrap_or(usize::MAX);
        let limits = limits.map(envelope::Limits::from).unwrap_or_default();
        let mut rx = delivery::Receiver::new(&secrets, window)?.with_limits(limits);
        if let Some(catalog) = catalog {
            rx = rx.with_catalog(catalog.snapshot());
        }
        // Core's receiver takes `&self` everywhere and is `Send + Sync`: shared as it is.
        Ok(Receiver { inner: rx })
    }

    /// Decides one delivery: the raw body bytes exactly as received and the
    /// `X-Webhook-Signature` header (`null` when absent). Remembers nothing: only `commit` does.
    pub fn receive(&self, body: Vec<u8>, signature: Option<String>) -> Decision {
        Decision::from(&self.inner.receive(&body, signature.as_deref()))
    }

    /// Records `id` as processed: call it after the event is persisted, before answering 2xx.
    pub fn commit(&self, id: String) -> Result<(), XborderError> {
        Ok(self.inner.commit(&id)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{sign, EventKind};

    // The lists come from core: a variant added there without its arm here maps through a
    // fallback arm onto another text, and these tests fail.

    #[test]
    fn actions_round_trip() {
        for a in delivery::Action::ALL {
            assert_eq!(Action::from(*a).to_string(), a.as_str());
        }
    }

    #[test]
    fn receiver_commits() -> Result<(), XborderError> {
        let rx = Receiver::new("k".into(), 10, None, None)?;
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

    #[test]
    fn catalog_reaches_the_receiver_as_a_copy() -> Result<(), XborderError> {
        let catalog = Arc::new(Catalog::new());
        catalog.add_live("order:rejected".into())?;
        assert_eq!(
            catalog.classify("order:rejected".into()).kind,
            EventKind::Live
        );
        let rx = Receiver::new("k".into(), 10, None, Some(catalog.clone()))?;
        catalog.add_live("order:later".into())?;
        let plain = Receiver::new("k".into(), 10, None, None)?;
        let deliver = |rx: &Receiver, event: &str| -> Result<Action, XborderError> {
            let body = format!(
                r#"{{"id":"e_{event}","event":"{event}","entity":{{"id":"o","type":"order"}}}}"#
            );
            let sig = sign("k".into(), body.clone().into_bytes())?;
            Ok(rx.receive(body.into_bytes(), Some(sig)).action)
        };
        assert_eq!(deliver(&rx, "order:rejected")?, Action::Process);
        assert_eq!(deliver(&plain, "order:rejected")?, Action::Ignore);
        assert_eq!(deliver(&rx, "order:later")?, Action::Ignore); // copied before the addition
        Ok(())
    }
}
