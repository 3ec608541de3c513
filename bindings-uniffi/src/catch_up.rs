//! The catch-up (contract v4 `events.catch_up`, core's `catch_up`): the walk of
//! `GET /v1/external-events` down to the checkpoint ([`CatchUp`]), and the handling of what it
//! found, each event as its delivery would be ([`Recovery`]: core's `Receiver::receive_recovered`
//! decision driven by a [`DeliveryHandling`]). The host GETs the pages and waits; core decides
//! every page, retry, event and checkpoint.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use xborder_core::catch_up::{self, CatchUpDrift, CatchUpError};
use xborder_core::pagination::{self, PaginationError};

use crate::api::{pairs, HttpHeader};
use crate::claims::{claim_rules, Claims};
use crate::delivery::Receiver;
use crate::errors::parse_json;
use crate::handling::DeliveryHandling;
use crate::{Drift, XborderError};

/// A catch-up's drift as a [`Drift`]: the walk's own (`pagination.walk`'s codes and numbers), or
/// `MALFORMED_RECORD` with `count`, the records of a page that are not events.
fn drift(d: &CatchUpDrift) -> Drift {
    match d {
        CatchUpDrift::Page(page) => Drift::from(page),
        other => Drift {
            code: other.code().to_owned(),
            previous_total: None,
            total: None,
            count: match other {
                CatchUpDrift::MalformedRecord { count } => Some(*count),
                _ => None,
            },
            has_next: None,
        },
    }
}

fn drifts<'a>(ds: impl IntoIterator<Item = &'a CatchUpDrift>) -> Vec<Drift> {
    ds.into_iter().map(drift).collect()
}

/// An event a catch-up found: a record of `GET /v1/external-events`, read as the webhook
/// envelope it stands for (the same `id`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ExternalEvent {
    /// The event id (the envelope's `id`, the claims' key).
    pub id: String,
    /// The event name (the record's `name`, the envelope's `event`).
    pub event: String,
    /// `aggregateId` (the envelope's `entity.id`).
    pub entity_id: String,
    /// `aggregateType` (the envelope's `entity.type`).
    pub entity_type: String,
    /// `createdAt` as the provider wrote it (what a checkpoint keeps).
    pub created_at: String,
    /// `payload` as JSON text (the envelope's `entity.data`), absent when absent or `null`.
    pub data_json: Option<String>,
}

impl From<&catch_up::ExternalEvent> for ExternalEvent {
    fn from(e: &catch_up::ExternalEvent) -> Self {
        ExternalEvent {
            id: e.id().to_owned(),
            event: e.event().to_owned(),
            entity_id: e.entity_id().to_owned(),
            entity_type: e.entity_type().to_owned(),
            created_at: e.created_at().to_owned(),
            data_json: e.data().map(|d| d.to_string()),
        }
    }
}

/// What the host does after [`CatchUp::answered`].
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum Fetched {
    /// The page was fed to the walk, with its drift: ask [`CatchUp::next_query`] again.
    Page {
        /// The page's drift (also kept in [`CatchUp::drifts`]).
        drifts: Vec<Drift>,
    },
    /// The API asked for a retry: send the same query again after `ms` milliseconds (core's
    /// delay: the answer's, else 1 s, at most 30 s).
    Wait {
        /// How long to wait.
        ms: u64,
    },
}

/// What the handling of a catch-up's events came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct Tally {
    /// Persisted now: events the webhook path had lost.
    pub processed: u64,
    /// Answered 2xx without a persist: already processed (a duplicate), or not a live event.
    pub skipped: u64,
    /// Refused as a delivery of it would be (4xx); not tried again.
    pub rejected: u64,
    /// Not handled (5xx: the store or the persist failed, or another worker holds the claim):
    /// the checkpoint stops before the first of them.
    pub failed: u64,
}

impl From<catch_up::Tally> for Tally {
    fn from(t: catch_up::Tally) -> Self {
        Tally {
            processed: t.processed,
            skipped: t.skipped,
            rejected: t.rejected,
            failed: t.failed,
        }
    }
}

/// A signed number from a host as core's `u64`: `None` when negative.
fn unsigned(n: i64) -> Option<u64> {
    u64::try_from(n).ok()
}

/// The walk of `GET /v1/external-events` that finds the events the provider dead-lettered
/// (core's `catch_up::CatchUp`): newest first, down to `since` minus the overlap. Each id is
/// passed on once; every walk ends. Safe to share between threads; one walk at a time.
///
/// ```text
/// walk = CatchUp(since = checkpoint)
/// while (query = walk.next_query()) != null:
///     (status, headers, text) = GET /v1/external-events?<query>
///     match walk.answered(status, headers, text): Page -> go on; Wait(ms) -> sleep ms
/// recovery = walk.recover()   # each event handled as its delivery would be
/// ```
#[derive(uniffi::Object)]
pub struct CatchUp {
    inner: Mutex<catch_up::CatchUp>,
}

impl fmt::Debug for CatchUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CatchUp")
            .field("next_query", &self.next_query())
            .finish()
    }
}

impl CatchUp {
    fn lock(&self) -> MutexGuard<'_, catch_up::CatchUp> {
        // A feed changes the walk as one step: a poisoned lock is taken over.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[uniffi::export]
impl CatchUp {
    /// A catch-up from `since` (the checkpoint an earlier catch-up returned; absent: walk
    /// everything the provider keeps), with an overlap (`overlap_ms`, 5 minutes when absent)
    /// and a page size (100 when absent). Throws `INVALID_SINCE`, `INVALID_OVERLAP` (a negative
    /// overlap, or one above 2^53 − 1), `INVALID_PAGE_SIZE` (0, negative, above 2^53 − 1).
    #[uniffi::constructor(default(since = None, overlap_ms = None, page_size = None))]
    pub fn new(
        since: Option<String>,
        overlap_ms: Option<i64>,
        page_size: Option<i64>,
    ) -> Result<Self, XborderError> {
        let mut c = catch_up::CatchUp::new(since.as_deref())?;
        if let Some(o) = overlap_ms {
            let o = unsigned(o).ok_or(CatchUpError::InvalidOverlap)?;
            c = c.overlap_ms(o)?;
        }
        if let Some(p) = page_size {
            let p = unsigned(p).ok_or(PaginationError::InvalidPageSize)?;
            c = c.page_size(p)?;
        }
        Ok(CatchUp {
            inner: Mutex::new(c),
        })
    }

    /// The query string (without `?`) of the next page: `GET /v1/external-events?` + it;
    /// absent when the walk is over.
    pub fn next_query(&self) -> Option<String> {
        self.lock()
            .next_request()
            .map(|p: pagination::ListParams| p.to_query())
    }

    /// Whether the walk is over.
    pub fn is_done(&self) -> bool {
        self.lock().is_done()
    }

    /// Feeds the page (its JSON text) answered to [`CatchUp::next_query`]: its drift. Throws
    /// `MALFORMED_RESPONSE` (the walk is where it was: the page may be asked for again),
    /// `MALFORMED_JSON`.
    pub fn feed(&self, page_json: String) -> Result<Vec<Drift>, XborderError> {
        // Not JSON: MALFORMED_JSON, naming the argument. Then core reads the text itself, so a
        // recovered event's `entity.data` is the record's payload exactly as sent.
        parse_json(&page_json, "page_json")?;
        Ok(drifts(&self.lock().feed_text(&page_json)?))
    }

    /// The answer to [`CatchUp::next_query`] as the host's HTTP client got it: a 2xx is the page
    /// (`Page`); an answer the API says to retry is `Wait` until the page's tries (5) are
    /// spent. Throws `API_ERROR` (with the API's answer: any other error answer, or the last
    /// try), `MALFORMED_RESPONSE`.
    pub fn answered(
        &self,
        status: u16,
        headers: Vec<HttpHeader>,
        text: String,
    ) -> Result<Fetched, XborderError> {
        match self.lock().answered(status, &pairs(&headers), &text)? {
            catch_up::Fetched::Wait { ms } => Ok(Fetched::Wait { ms }),
            catch_up::Fetched::Page { drifts: d } => Ok(Fetched::Page { drifts: drifts(&d) }),
            // Non-exhaustive in core: an answer this binding does not know is a page with
            // no drift (the walk asks for its next query either way).
            _ => Ok(Fetched::Page { drifts: vec![] }),
        }
    }

    /// The events found so far, oldest first.
    pub fn events(&self) -> Vec<ExternalEvent> {
        self.lock().events().map(ExternalEvent::from).collect()
    }

    /// Every drift so far.
    pub fn drifts(&self) -> Vec<Drift> {
        drifts(self.lock().drifts())
    }

    /// The `since` of the next catch-up once every event found is handled (absent: walk
    /// everything again): see [`Recovery::checkpoint`] for the checkpoint the handling allows.
    pub fn checkpoint(&self) -> Option<String> {
        self.lock().checkpoint().map(str::to_owned)
    }

    /// The handling of the events found, oldest first (of a copy of the walk: this one stays
    /// as it is).
    pub fn recover(&self) -> Arc<Recovery> {
        Arc::new(Recovery::new(self.lock().clone().recover()))
    }
}

/// The events a [`CatchUp`] found, handled one by one, oldest first (core's
/// `catch_up::Recovery`): [`Recovery::handling`] (or
/// [`Recovery::handling_with_store_steps`]) gives the next event's [`DeliveryHandling`], driven
/// as a delivery's, then [`Recovery::handled`]; [`Recovery::checkpoint`] is the `since` of the
/// next catch-up. Safe to share between threads.
#[derive(uniffi::Object)]
pub struct Recovery {
    inner: Mutex<Recovering>,
}

/// A recovery, and the handling it gave for its next event (the one [`Recovery::handled`]
/// takes: an answer is recorded once, for the event it was made for).
struct Recovering {
    core: catch_up::Recovery,
    given: Option<Arc<DeliveryHandling>>,
}

impl fmt::Debug for Recovery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recovery")
            .field("checkpoint", &self.checkpoint())
            .finish()
    }
}

impl Recovery {
    fn new(core: catch_up::Recovery) -> Self {
        Recovery {
            inner: Mutex::new(Recovering { core, given: None }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Recovering> {
        // Each call changes the recovery in one step: a poisoned lock is taken over.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The handling of the next event's decision by `decide`, kept as the one
    /// [`Recovery::handled`] takes; `None` when every event was handled.
    fn give(
        &self,
        decide: impl FnOnce(&catch_up::ExternalEvent) -> DeliveryHandling,
    ) -> Option<Arc<DeliveryHandling>> {
        let mut r = self.lock();
        let h = Arc::new(decide(r.core.next_event()?));
        r.given = Some(h.clone());
        Some(h)
    }
}

#[uniffi::export]
impl Recovery {
    /// Every event found, oldest first.
    pub fn events(&self) -> Vec<ExternalEvent> {
        self.lock()
            .core
            .events()
            .iter()
            .map(ExternalEvent::from)
            .collect()
    }

    /// The event to handle next, absent when every one has been.
    pub fn next_event(&self) -> Option<ExternalEvent> {
        self.lock().core.next_event().map(ExternalEvent::from)
    }

    /// The handling of the next event as its delivery would be (`receiver`'s
    /// `receive_recovered` decision: no signature, it came over the API), claimed in `claims`
    /// with the request's `token`; `in_transaction` as for `DeliveryHandling`. Absent when
    /// every event was handled. Drive it to its answer, then [`Recovery::handled`].
    #[uniffi::method(default(in_transaction = false))]
    pub fn handling(
        &self,
        receiver: Arc<Receiver>,
        claims: Arc<Claims>,
        token: String,
        in_transaction: bool,
    ) -> Option<Arc<DeliveryHandling>> {
        let rules = claims.rules();
        self.give(|event| {
            let decision = receiver.inner.receive_recovered(event);
            DeliveryHandling::of(decision, rules, token, Some(claims), in_transaction)
        })
    }

    /// [`Recovery::handling`] over a store the host calls itself (as
    /// `DeliveryHandling.with_store_steps`: `lease_ms`, `window_ms`, `in_transaction`).
    #[uniffi::method(default(lease_ms = 30000, window_ms = None, in_transaction = false))]
    pub fn handling_with_store_steps(
        &self,
        receiver: Arc<Receiver>,
        token: String,
        lease_ms: u64,
        window_ms: Option<u64>,
        in_transaction: bool,
    ) -> Option<Arc<DeliveryHandling>> {
        let rules = claim_rules(lease_ms, window_ms);
        self.give(|event| {
            let decision = receiver.inner.receive_recovered(event);
            DeliveryHandling::of(decision, rules, token, None, in_transaction)
        })
    }

    /// Records the answer of `handling`, the last one [`Recovery::handling`] gave for the next
    /// event, once it is over, and moves to the next event: an event counts as handled when
    /// its answer is not a 5xx. False (nothing recorded) for a handling not over, one this
    /// recovery did not give for its next event, or one already recorded.
    pub fn handled(&self, handling: Arc<DeliveryHandling>) -> bool {
        let mut r = self.lock();
        let current = r.given.as_ref().is_some_and(|g| Arc::ptr_eq(g, &handling));
        match handling.core_answer() {
            Some(answer) if current => {
                r.given = None;
                r.core.handled(&answer)
            }
            _ => false,
        }
    }

    /// What the handling came to so far.
    pub fn tally(&self) -> Tally {
        self.lock().core.tally().into()
    }

    /// The `since` of the next catch-up: up to the newest event handled before the first that
    /// was not (the walk's checkpoint when every one was); `since` unchanged when the walk may
    /// have missed an event or the oldest was not handled. Absent: walk everything again.
    pub fn checkpoint(&self) -> Option<String> {
        self.lock().core.checkpoint().map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handling::HandlingAct;

    fn record(id: &str, at: &str) -> String {
        format!(
            r#"{{"id":"{id}","name":"order:created","aggregateType":"order","aggregateId":"o_{id}","payload":{{"id":"o_{id}"}},"createdAt":"{at}"}}"#
        )
    }

    fn page(records: &[String], total: u64, page: u64, size: u64) -> String {
        format!(
            r#"{{"data":[{}],"total":{total},"page":{page},"pageSize":{size}}}"#,
            records.join(",")
        )
    }

    #[test]
    fn negative_and_bad_numbers_are_core_errors_never_clamped() {
        let code = |since: Option<&str>, o: Option<i64>, p: Option<i64>| {
            CatchUp::new(since.map(str::to_owned), o, p)
                .map(|_| ())
                .map_err(|e| (e.error_code(), e.error_field()))
        };
        let field = |f: &str| Some(f.to_owned());
        assert_eq!(
            code(None, Some(-1), None),
            Err(("INVALID_OVERLAP".into(), field("overlapMs")))
        );
        assert_eq!(
            code(None, Some(1 << 53), None),
            Err(("INVALID_OVERLAP".into(), field("overlapMs")))
        );
        assert_eq!(code(None, Some(0), None), Ok(()));
        for bad in [-1, 0, i64::MIN, 1 << 53] {
            assert_eq!(
                code(None, None, Some(bad)).map_err(|e| e.0),
                Err("INVALID_PAGE_SIZE".into()),
                "{bad}"
            );
        }
        assert_eq!(
            code(Some("27/11/2026"), None, None),
            Err(("INVALID_SINCE".into(), field("since")))
        );
    }

    #[test]
    fn the_walk_feeds_pages_retries_and_reports() -> Result<(), XborderError> {
        let c = CatchUp::new(Some("2026-11-27T12:00:00Z".into()), Some(0), Some(2))?;
        assert_eq!(
            c.next_query().as_deref(),
            Some("page=0&pageSize=2&sortBy=createdAt&sortOrder=DESC")
        );
        let wait = c.answered(
            503,
            vec![HttpHeader {
                name: "Retry-After".into(),
                value: "2".into(),
            }],
            String::new(),
        )?;
        assert_eq!(wait, Fetched::Wait { ms: 2_000 });
        let first = page(
            &[
                record("e3", "2026-11-27T12:03:00Z"),
                r#"{"id":"bad"}"#.to_owned(),
            ],
            4,
            0,
            2,
        );
        let Fetched::Page { drifts } = c.answered(200, vec![], first)? else {
            panic!("a page")
        };
        assert_eq!(drifts.len(), 1);
        assert_eq!(
            (drifts[0].code.as_str(), drifts[0].count),
            ("MALFORMED_RECORD", Some(1))
        );
        c.feed(page(
            &[
                record("e1", "2026-11-27T12:01:00Z"),
                record("e0", "2026-11-27T11:00:00Z"),
            ],
            4,
            1,
            2,
        ))?;
        assert!(c.is_done());
        let ids: Vec<String> = c.events().into_iter().map(|e| e.id).collect();
        assert_eq!(ids, ["e1", "e3"]);
        assert_eq!(c.events()[0].data_json.as_deref(), Some(r#"{"id":"o_e1"}"#));
        assert_eq!(c.checkpoint().as_deref(), Some("2026-11-27T12:03:00Z"));
        let e = c
            .feed(r#"{"error": "x"}"#.into())
            .map_err(|e| e.error_code());
        assert_eq!(e, Err("MALFORMED_RESPONSE".into()));
        // The API's refusal: API_ERROR with its answer.
        let c = CatchUp::new(None, None, None)?;
        let e = c
            .answered(401, vec![], r#"{"error": {"CODE": "UNAUTHORIZED"}}"#.into())
            .unwrap_err();
        let XborderError::Api { code, answer, .. } = e else {
            panic!("an Api error")
        };
        assert_eq!(
            (code.as_str(), answer.status, answer.code.as_deref()),
            ("API_ERROR", 401, Some("UNAUTHORIZED"))
        );
        Ok(())
    }

    /// Events found are handled as deliveries: processed once, then duplicates; a failed
    /// persist holds the checkpoint.
    #[test]
    fn recovery_handles_each_event_as_a_delivery() -> Result<(), XborderError> {
        let walk = || -> Result<CatchUp, XborderError> {
            let c = CatchUp::new(None, None, None)?;
            c.feed(page(
                &[
                    record("e2", "2026-11-27T12:02:00Z"),
                    record("e1", "2026-11-27T12:01:00Z"),
                ],
                2,
                0,
                100,
            ))?;
            Ok(c)
        };
        let receiver = Arc::new(Receiver::new("whsec".into(), 0, None, None)?);
        let claims = Arc::new(Claims::new(30_000, None, 100));
        // Persist fails for e2: e1 counts, the checkpoint stops at it.
        let run = |fail: &str| -> Result<Recovery, XborderError> {
            let r = Arc::into_inner(walk()?.recover()).ok_or(XborderError::Json {
                code: "X".into(),
                detail: "shared".into(),
            })?;
            let mut i = 0;
            while let Some(h) = r.handling(receiver.clone(), claims.clone(), format!("t{i}"), false)
            {
                let id = r.next_event().map(|e| e.id).unwrap_or_default();
                assert!(!r.handled(h.clone()), "not over yet");
                let mut act = h.next();
                for _ in 0..16 {
                    act = match act {
                        HandlingAct::Claim { .. }
                        | HandlingAct::Complete { .. }
                        | HandlingAct::Release { .. } => h.step(1_000)?,
                        HandlingAct::Persist { .. } => h.persisted(id != fail)?,
                        HandlingAct::Answer { .. } => break,
                        other => panic!("an act over Claims: {other:?}"),
                    };
                }
                assert!(r.handled(h.clone()));
                assert!(!r.handled(h), "an answer is recorded once");
                i += 1;
            }
            Ok(r)
        };
        let r = run("e2")?;
        assert_eq!(
            r.tally(),
            Tally {
                processed: 1,
                skipped: 0,
                rejected: 0,
                failed: 1
            }
        );
        assert_eq!(r.checkpoint().as_deref(), Some("2026-11-27T12:01:00Z"));
        // Again: e1 is a duplicate now, e2 is processed; every event handled.
        let r = run("")?;
        assert_eq!(
            r.tally(),
            Tally {
                processed: 1,
                skipped: 1,
                rejected: 0,
                failed: 0
            }
        );
        assert_eq!(r.checkpoint().as_deref(), Some("2026-11-27T12:02:00Z"));
        assert!(r.handling(receiver, claims, "t".into(), false).is_none());
        Ok(())
    }
}
