//! [`Receiver::receive_recovered`]: a recovered event decided as its delivery would be.

use super::ExternalEvent;
use crate::delivery::{Decision, DedupeStore, Receiver};

impl<S: DedupeStore> Receiver<S> {
    /// The [`Decision`] for an event a catch-up recovered from `GET /v1/external-events`:
    /// everything [`Receiver::receive`] does after the signature (the envelope read with this
    /// receiver's catalog and limits, then classified and deduped), for the envelope the record
    /// stands for ([`ExternalEvent::envelope_text`]). There is no signature to check: the
    /// record came from the provider's API, over your authenticated call. Never use it for a
    /// webhook request's body (take [`Receiver::receive`] there).
    ///
    /// ```
    /// use serde_json::json;
    /// use xborder_core::{catch_up::ExternalEvent, delivery::Receiver};
    /// let rx = Receiver::new(&["whsec"], 10).unwrap();
    /// let e = ExternalEvent::from_record(&json!({"id": "evt_1", "name": "order:created",
    ///     "aggregateType": "order", "aggregateId": "o1", "payload": {}, "createdAt": "2026-11-27T12:00:00Z"})).unwrap();
    /// assert_eq!(rx.receive_recovered(&e).action(), "process");
    /// rx.commit("evt_1").unwrap();
    /// assert_eq!(rx.receive_recovered(&e).action(), "duplicate");
    /// ```
    pub fn receive_recovered(&self, event: &ExternalEvent) -> Decision {
        self.decide(event.envelope_text().as_bytes())
    }
}
