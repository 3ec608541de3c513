//! [`Recovery`]: the events a catch-up found, handled one by one, oldest first, and the
//! checkpoint that handling allows.

use super::ExternalEvent;
use crate::handling::Answer;

/// What the handling of a catch-up's events came to.
///
/// ```
/// let t = xborder_core::catch_up::CatchUp::new(None).unwrap().recover().tally();
/// assert_eq!((t.processed, t.skipped, t.rejected, t.failed), (0, 0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tally {
    /// Persisted now: events the webhook path had lost (dead-lettered, or never delivered).
    pub processed: u64,
    /// Answered 2xx without a persist: already processed (a duplicate), or not a live event
    /// (ignored, as a delivery of it would be).
    pub skipped: u64,
    /// Refused as a delivery of it would be (4xx: an envelope core cannot read, e.g. an
    /// `entity.type` that contradicts the event). Reported, and not tried again: a retry reads
    /// the same record.
    pub rejected: u64,
    /// Not handled (5xx: the store or the persist failed, or another worker holds the claim):
    /// the checkpoint stops before the first of them, so the next catch-up tries again.
    pub failed: u64,
}

/// The events a [`CatchUp`](super::CatchUp) found, oldest first, each handled as a delivery of
/// it would be ([`Receiver::receive_recovered`](crate::delivery::Receiver::receive_recovered),
/// then a [`Handling`](crate::handling::Handling) driven as for a delivery), and the checkpoint
/// that allows. An event counts as handled when its answer is not a 5xx; the checkpoint moves
/// to the newest event before the first that was not, so a failed event is found again by the
/// next catch-up (the claims make the ones handled this time `duplicate`s then).
///
/// ```
/// use serde_json::json;
/// use xborder_core::catch_up::CatchUp;
/// use xborder_core::claims::{ClaimRules, Claims, Step};
/// use xborder_core::delivery::Receiver;
/// use xborder_core::handling::{Act, Handling};
///
/// let mut c = CatchUp::new(None).unwrap();
/// c.feed(&json!({"data": [{"id": "evt_1", "name": "order:created", "aggregateType": "order",
///     "aggregateId": "o1", "payload": {}, "createdAt": "2026-11-27T12:00:00Z"}],
///     "total": 1, "page": 0, "pageSize": 100})).unwrap();
/// let receiver = Receiver::new(&["whsec"], 100).unwrap();
/// let rules = ClaimRules::new(30_000);
/// let claims = Claims::in_memory(rules, 100);
/// let mut recovery = c.recover();
/// while let Some(event) = recovery.next_event() {
///     let mut h = Handling::new(receiver.receive_recovered(event), rules, "catch-up-1");
///     let answer = loop {
///         match h.next() {
///             Act::Claim { id, token } => { let (i, t) = (id.to_owned(), token.to_owned()); h.claimed(claims.step(Step::Claim, &i, &t, 1)).unwrap(); }
///             Act::Persist(_) => { h.persisted(true).unwrap(); } // your INSERT
///             Act::Complete { id, token } => { let (i, t) = (id.to_owned(), token.to_owned()); h.completed(claims.step(Step::Complete, &i, &t, 2)).unwrap(); }
///             Act::Answer(a) => break *a,
///             _ => unreachable!(),
///         }
///     };
///     recovery.handled(&answer);
/// }
/// assert_eq!(recovery.tally().processed, 1);
/// assert_eq!(recovery.checkpoint(), Some("2026-11-27T12:00:00Z"));
/// ```
#[derive(Debug, Clone)]
pub struct Recovery {
    events: Vec<ExternalEvent>,
    since: Option<String>,
    complete: bool,
    next: usize,
    /// How many events, from the oldest, were handled before the first that was not.
    handled: usize,
    tally: Tally,
}

impl Recovery {
    pub(super) fn new(events: Vec<ExternalEvent>, since: Option<String>, complete: bool) -> Self {
        Recovery {
            events,
            since,
            complete,
            next: 0,
            handled: 0,
            tally: Tally::default(),
        }
    }

    /// Every event found, oldest first.
    ///
    /// ```
    /// assert!(xborder_core::catch_up::CatchUp::new(None).unwrap().recover().events().is_empty());
    /// ```
    pub fn events(&self) -> &[ExternalEvent] {
        &self.events
    }

    /// The event to handle next, `None` when every one has been.
    ///
    /// ```
    /// assert!(xborder_core::catch_up::CatchUp::new(None).unwrap().recover().next_event().is_none());
    /// ```
    pub fn next_event(&self) -> Option<&ExternalEvent> {
        self.events.get(self.next)
    }

    /// Records the answer of [`Recovery::next_event`]'s handling and moves to the next event.
    /// Returns `false` (and records nothing) when every event was handled already.
    ///
    /// ```
    /// use xborder_core::handling::Handling;
    /// let mut r = xborder_core::catch_up::CatchUp::new(None).unwrap().recover();
    /// # let d = xborder_core::delivery::Decision::Reject(xborder_core::delivery::ReceiveError::Signature(xborder_core::signature::SignatureError::EmptySecret));
    /// # let answer = *Handling::new(d, Default::default(), "t").answer().unwrap();
    /// assert!(!r.handled(&answer)); // nothing to handle
    /// ```
    pub fn handled(&mut self, answer: &Answer) -> bool {
        if self.next >= self.events.len() {
            return false;
        }
        let ok = answer.reply.status < 500;
        if ok && self.handled == self.next {
            self.handled += 1;
        }
        let count = match (ok, answer.reply.status < 300, answer.persisted) {
            (false, _, _) => &mut self.tally.failed,
            (true, false, _) => &mut self.tally.rejected,
            (true, true, true) => &mut self.tally.processed,
            (true, true, false) => &mut self.tally.skipped,
        };
        *count += 1;
        self.next += 1;
        true
    }

    /// What the handling came to so far.
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUp::new(None).unwrap().recover().tally().failed, 0);
    /// ```
    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// The `since` of the next catch-up: the `createdAt` of the newest event handled before
    /// the first that was not (or the walk's checkpoint when all were); `since` unchanged when
    /// the walk may have missed an event (`STALLED`, `POSSIBLY_SKIPPED`, or pages that ran out)
    /// or the oldest event was not handled. Keep it (in the same transaction as nothing else:
    /// it only ever names a time up to which everything was handled).
    ///
    /// ```
    /// let r = xborder_core::catch_up::CatchUp::new(Some("2026-01-01T00:00:00Z")).unwrap().recover();
    /// assert_eq!(r.checkpoint(), Some("2026-01-01T00:00:00Z"));
    /// ```
    pub fn checkpoint(&self) -> Option<&str> {
        match self.handled.checked_sub(1).and_then(|i| self.events.get(i)) {
            Some(e) if self.complete => Some(e.created_at()),
            _ => self.since.as_deref(),
        }
    }
}
