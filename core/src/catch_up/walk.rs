//! [`CatchUp`]: the walk of `GET /v1/external-events`, newest first, down to the checkpoint.

use serde_json::Value;

use super::payload::payload_texts;
use super::record::record_time;
use super::{timestamp_ms, CatchUpDrift, CatchUpError, ExternalEvent, Recovery};
use crate::pagination::{ListParams, PageWalker, SortOrder, MAX_SAFE_INTEGER};

/// The walk of `GET /v1/external-events` that finds the events the provider dead-lettered
/// (FORMAT.md `events.catch_up`). The list has no `since` filter, so the walk goes newest first
/// (`sortBy=createdAt&sortOrder=DESC`) and stops at the first page that holds a record older than
/// its window: `since` (the checkpoint of the last catch-up) minus an overlap (5 minutes unless
/// given), for records the provider wrote late. Each id is passed on once, records that are not
/// events are reported ([`CatchUpDrift::MalformedRecord`]), and every walk ends (it is a
/// [`PageWalker`]'s).
///
/// Sans-IO: ask [`CatchUp::next_request`], GET it, [`CatchUp::feed`] the answer, until there is
/// no next request; then hand the [`CatchUp::events`] (oldest first) to the same handling as a
/// delivery ([`CatchUp::recover`]) and keep the checkpoint for the next time.
///
/// ```
/// use serde_json::json;
/// use xborder_core::catch_up::CatchUp;
/// let mut c = CatchUp::new(Some("2026-11-27T11:58:00Z")).unwrap().overlap_ms(0).unwrap();
/// let q = c.next_request().unwrap().to_query();
/// assert_eq!(q, "page=0&pageSize=100&sortBy=createdAt&sortOrder=DESC");
/// let rec = |id: &str, at: &str| json!({"id": id, "name": "order:created", "aggregateType": "order",
///     "aggregateId": "o", "payload": {}, "createdAt": at});
/// c.feed(&json!({"data": [rec("e2", "2026-11-27T12:00:00Z"), rec("e1", "2026-11-27T11:59:00Z"),
///     rec("e0", "2026-11-27T11:50:00Z")], "total": 300, "page": 0, "pageSize": 100})).unwrap();
/// assert!(c.next_request().is_none()); // e0 is older than the window: done
/// let ids: Vec<_> = c.events().map(|e| e.id()).collect();
/// assert_eq!(ids, ["e1", "e2"]); // oldest first
/// assert_eq!(c.checkpoint(), Some("2026-11-27T12:00:00Z"));
/// ```
#[derive(Debug, Clone)]
pub struct CatchUp {
    walker: PageWalker,
    since: Option<String>,
    since_ms: Option<i64>,
    overlap_ms: u64,
    /// The events passed on, each with the order it was received in; kept oldest first.
    found: Vec<(usize, ExternalEvent)>,
    received: usize,
    drifts: Vec<CatchUpDrift>,
    /// Answers to the pending request that asked for a retry ([`CatchUp::answered`]).
    pub(super) tries: u32,
}

impl CatchUp {
    /// The overlap unless given: 5 minutes.
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUp::DEFAULT_OVERLAP_MS, 300_000);
    /// ```
    pub const DEFAULT_OVERLAP_MS: u64 = 300_000;

    /// The page size unless given: 100.
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUp::DEFAULT_PAGE_SIZE, 100);
    /// ```
    pub const DEFAULT_PAGE_SIZE: u64 = 100;

    /// A catch-up from `since` (the checkpoint an earlier catch-up returned; `None`: walk
    /// everything the provider keeps). `INVALID_SINCE` when `since` is not a date-time.
    ///
    /// ```
    /// use xborder_core::catch_up::CatchUp;
    /// assert!(CatchUp::new(None).is_ok());
    /// assert_eq!(CatchUp::new(Some("2026-11-27 12:00:00Z")).unwrap_err().code(), "INVALID_SINCE");
    /// ```
    pub fn new(since: Option<&str>) -> Result<CatchUp, CatchUpError> {
        let since_ms = match since {
            None => None,
            Some(s) => Some(timestamp_ms(s).ok_or(CatchUpError::InvalidSince)?),
        };
        Ok(CatchUp {
            walker: PageWalker::new(Self::params(Self::DEFAULT_PAGE_SIZE)),
            since: since.map(str::to_owned),
            since_ms,
            overlap_ms: Self::DEFAULT_OVERLAP_MS,
            found: Vec::new(),
            received: 0,
            drifts: Vec::new(),
            tries: 0,
        })
    }

    fn params(page_size: u64) -> ListParams {
        ListParams::default()
            .page_size(page_size)
            .sort("createdAt", SortOrder::Desc)
    }

    /// The overlap in milliseconds (`INVALID_OVERLAP` above 2^53 − 1). Set before the first
    /// page; a later call changes the window for the pages still to come.
    ///
    /// ```
    /// use xborder_core::catch_up::CatchUp;
    /// assert_eq!(CatchUp::new(None).unwrap().overlap_ms(1 << 53).unwrap_err().code(), "INVALID_OVERLAP");
    /// ```
    pub fn overlap_ms(mut self, overlap_ms: u64) -> Result<CatchUp, CatchUpError> {
        if overlap_ms > MAX_SAFE_INTEGER {
            return Err(CatchUpError::InvalidOverlap);
        }
        self.overlap_ms = overlap_ms;
        Ok(self)
    }

    /// The page size (`INVALID_PAGE_SIZE` for 0 or above 2^53 − 1). Set before the first page.
    ///
    /// ```
    /// use xborder_core::catch_up::CatchUp;
    /// let c = CatchUp::new(None).unwrap().page_size(5).unwrap();
    /// assert_eq!(c.next_request().unwrap().to_query(), "page=0&pageSize=5&sortBy=createdAt&sortOrder=DESC");
    /// assert_eq!(CatchUp::new(None).unwrap().page_size(0).unwrap_err().code(), "INVALID_PAGE_SIZE");
    /// ```
    pub fn page_size(mut self, page_size: u64) -> Result<CatchUp, CatchUpError> {
        let params = Self::params(page_size);
        params.validate()?;
        self.walker = PageWalker::new(params);
        Ok(self)
    }

    /// The query of the next page (`GET /v1/external-events?` + [`ListParams::to_query`]),
    /// `None` when the walk is over.
    ///
    /// ```
    /// let c = xborder_core::catch_up::CatchUp::new(None).unwrap();
    /// assert_eq!(c.next_request().unwrap().page, 0);
    /// ```
    pub fn next_request(&self) -> Option<ListParams> {
        self.walker.next_request()
    }

    /// Whether the walk is over (no next request).
    ///
    /// ```
    /// assert!(!xborder_core::catch_up::CatchUp::new(None).unwrap().is_done());
    /// ```
    pub fn is_done(&self) -> bool {
        self.walker.is_done()
    }

    /// The start of the window in milliseconds (`since` minus the overlap), `None` without
    /// `since`.
    fn window_start(&self) -> Option<i64> {
        let overlap = i64::try_from(self.overlap_ms).unwrap_or(i64::MAX);
        self.since_ms.map(|s| s.saturating_sub(overlap))
    }

    /// Feeds the answer to [`CatchUp::next_request`]: its events are passed on (a record older
    /// than the window is not, and ends the walk), and its drift returned (also kept, see
    /// [`CatchUp::drifts`]). A page that is not a list envelope is `MALFORMED_RESPONSE` and
    /// changes nothing: it can be asked for again.
    ///
    /// ```
    /// use serde_json::json;
    /// let mut c = xborder_core::catch_up::CatchUp::new(None).unwrap();
    /// let drift = c.feed(&json!({"data": [{"id": "x"}], "total": 1, "page": 0, "pageSize": 100})).unwrap();
    /// assert_eq!(drift[0].code(), "MALFORMED_RECORD");
    /// assert_eq!(c.feed(&json!({"error": "x"})).unwrap_err().code(), "MALFORMED_RESPONSE");
    /// ```
    pub fn feed(&mut self, page: &Value) -> Result<Vec<CatchUpDrift>, CatchUpError> {
        self.feed_with(page, |record, _| ExternalEvent::from_record(record))
    }

    /// [`CatchUp::feed`] of a page's JSON text, each event's `entity.data` the record's
    /// `payload` exactly as the text holds it (a delivery's `entity.data` is the raw text of the
    /// body likewise). `MALFORMED_RESPONSE` when the text is not JSON, or not a list envelope.
    ///
    /// ```
    /// let mut c = xborder_core::catch_up::CatchUp::new(None).unwrap();
    /// c.feed_text(r#"{"data": [{"id": "e", "name": "order:created", "aggregateType": "order",
    ///     "aggregateId": "o", "payload": {"amount": 10.50}, "createdAt": "2026-11-27T12:00:00Z"}],
    ///     "total": 1, "page": 0, "pageSize": 100}"#).unwrap();
    /// let e = c.events().next().unwrap();
    /// assert!(e.envelope_text().ends_with(r#""data":{"amount": 10.50}}}"#));
    /// assert_eq!(c.feed_text("<html>").unwrap_err().code(), "MALFORMED_RESPONSE");
    /// ```
    pub fn feed_text(&mut self, page: &str) -> Result<Vec<CatchUpDrift>, CatchUpError> {
        let value = crate::parse_json(page).map_err(|_| {
            CatchUpError::Page(crate::pagination::PaginationError::MalformedResponse)
        })?;
        let raw = payload_texts(page);
        self.feed_with(&value, |record, i| {
            ExternalEvent::from_record_text(record, raw.get(i).and_then(Option::as_ref))
        })
    }

    /// [`CatchUp::feed`], each record (at its position in `data`) read by `event` (generic, so
    /// that a build which reads pages from text only carries no JSON writer).
    fn feed_with(
        &mut self,
        page: &Value,
        event: impl Fn(&Value, usize) -> Option<ExternalEvent>,
    ) -> Result<Vec<CatchUpDrift>, CatchUpError> {
        let start = self.window_start();
        let older = |r: &Value| matches!((start, record_time(r)), (Some(s), Some(t)) if t < s);
        let step = self
            .walker
            .feed_until(page, |data| data.iter().any(older))?;
        let mut drift: Vec<CatchUpDrift> =
            step.drift.iter().cloned().map(CatchUpDrift::Page).collect();
        let mut malformed = 0;
        let data = page.get("data").and_then(Value::as_array);
        for &i in &step.fresh {
            let Some(record) = data.and_then(|d| d.get(i)) else {
                continue;
            };
            match event(record, i) {
                None => malformed += 1,
                Some(e) if start.is_some_and(|s| e.created_at_ms() < s) => {}
                Some(e) => {
                    self.found.push((self.received, e));
                    self.received += 1;
                }
            }
        }
        if malformed > 0 {
            drift.push(CatchUpDrift::MalformedRecord { count: malformed });
        }
        // Oldest first; equal times in the reverse of the order received (the list is newest
        // first, so the later received of two equal times was written first).
        self.found.sort_by(|(i, a), (j, b)| {
            a.created_at_ms()
                .cmp(&b.created_at_ms())
                .then_with(|| j.cmp(i))
        });
        self.drifts.extend(drift.iter().cloned());
        Ok(drift)
    }

    /// The events passed on so far, oldest first.
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUp::new(None).unwrap().events().len(), 0);
    /// ```
    pub fn events(&self) -> impl ExactSizeIterator<Item = &ExternalEvent> + '_ {
        self.found.iter().map(|(_, e)| e)
    }

    /// Every drift reported so far.
    ///
    /// ```
    /// assert!(xborder_core::catch_up::CatchUp::new(None).unwrap().drifts().is_empty());
    /// ```
    pub fn drifts(&self) -> &[CatchUpDrift] {
        &self.drifts
    }

    /// The `since` this catch-up started from.
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUp::new(None).unwrap().since(), None);
    /// ```
    pub fn since(&self) -> Option<&str> {
        self.since.as_deref()
    }

    /// Whether the walk is over with nothing possibly missed (no `STALLED`, no
    /// `POSSIBLY_SKIPPED`): only then may the checkpoint move.
    fn complete(&self) -> bool {
        self.is_done() && !self.drifts.iter().any(CatchUpDrift::may_have_missed)
    }

    /// The `since` of the next catch-up, once every event passed on is handled: when the walk
    /// is over with nothing possibly missed, the `createdAt` of the newest event passed on;
    /// otherwise (or when none was) `since` unchanged, so nothing older than an unfinished walk
    /// is ever skipped. [`Recovery::checkpoint`] gives it after the handling, which may stop
    /// it earlier.
    ///
    /// ```
    /// let c = xborder_core::catch_up::CatchUp::new(Some("2026-11-27T12:00:00Z")).unwrap();
    /// assert_eq!(c.checkpoint(), Some("2026-11-27T12:00:00Z"));
    /// ```
    pub fn checkpoint(&self) -> Option<&str> {
        match self.found.last() {
            Some((_, newest)) if self.complete() => Some(newest.created_at()),
            _ => self.since(),
        }
    }

    /// The handling of the events found (oldest first): see [`Recovery`].
    ///
    /// ```
    /// let r = xborder_core::catch_up::CatchUp::new(None).unwrap().recover();
    /// assert!(r.next_event().is_none());
    /// ```
    pub fn recover(self) -> Recovery {
        let complete = self.complete();
        Recovery::new(
            self.found.into_iter().map(|(_, e)| e).collect(),
            self.since,
            complete,
        )
    }
}
