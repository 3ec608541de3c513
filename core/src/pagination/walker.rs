//! [`PageWalker`]: every page walked, each record passed on once, drift flagged; [`WalkStep`],
//! what one page gave it.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use serde_json::Value;

use super::{page_info, Drift, ListParams, PageInfo, PaginationError};
use crate::digest::{digest, DigestHasher};

/// What one page gave the walker.
///
/// ```
/// # use xborder_core::pagination::{PageWalker, ListParams};
/// let mut w = PageWalker::new(ListParams::default());
/// let step = w.feed(&serde_json::json!({"data": [{"id": "a"}], "total": 1, "page": 0, "pageSize": 10})).unwrap();
/// assert_eq!(step.fresh, vec![0]);
/// assert!(step.drift.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WalkStep {
    /// The positions in the page's `data` of the records not seen before, in order (records
    /// without an `id` are always passed on). [`WalkStep::records`] gives the records
    /// themselves; a binding hands its caller's own objects back by position, with no copy.
    pub fresh: Vec<usize>,
    /// The page's facts.
    pub info: PageInfo,
    /// What drifted since the previous page.
    pub drift: Vec<Drift>,
}

impl WalkStep {
    /// The fresh records of `response`, the page this step was fed.
    ///
    /// ```
    /// # use xborder_core::pagination::{PageWalker, ListParams};
    /// use serde_json::json;
    /// let mut w = PageWalker::new(ListParams::default());
    /// let page = json!({"data": [{"id": "a"}, {"id": "a"}], "total": 2, "page": 0, "pageSize": 10});
    /// let step = w.feed(&page).unwrap();
    /// assert_eq!(step.records(&page), vec![&json!({"id": "a"})]);
    /// ```
    pub fn records<'a>(&self, response: &'a Value) -> Vec<&'a Value> {
        let data = response.get("data").and_then(Value::as_array);
        self.fresh
            .iter()
            .filter_map(|i| data.and_then(|d| d.get(*i)))
            .collect()
    }
}

/// Walks every page: says which page to request next, stops at the end, passes each record on
/// once (by `id`), and flags drift. Every walk ends: after the last page (by `hasNext` where the
/// response has it, else by `total`), after an empty page, and after two pages in a row that
/// bring no record it has not passed on ([`Drift::Stalled`]).
///
/// ```
/// use serde_json::json;
/// use xborder_core::pagination::{ListParams, PageWalker, Drift};
/// let mut w = PageWalker::new(ListParams::default().page_size(2));
/// assert_eq!(w.next_request().unwrap().page, 0);
/// w.feed(&json!({"data": [{"id": "c"}, {"id": "b"}], "total": 3, "page": 0, "pageSize": 2})).unwrap();
/// // A new record "d" arrived: "b" is pushed onto page 1 again.
/// let step = w.feed(&json!({"data": [{"id": "b"}, {"id": "a"}], "total": 4, "page": 1, "pageSize": 2})).unwrap();
/// assert_eq!(step.fresh, vec![1]); // "a", the second record of the page
/// assert!(step.drift.contains(&Drift::TotalChanged { from: 3, to: 4 }));
/// assert!(step.drift.contains(&Drift::RepeatedRecords { count: 1 }));
/// assert!(w.is_done()); // positions 3-4 were the last of 4
/// ```
#[derive(Debug, Clone)]
pub struct PageWalker {
    params: ListParams,
    seen: HashSet<u128, BuildHasherDefault<DigestHasher>>,
    last_total: Option<u64>,
    unique: u64,
    start_page: u64,
    done: bool,
    /// Pages in a row that brought nothing new.
    stale: u8,
    /// Digests of the id-less records' texts: such records are always passed on, and one seen
    /// before is nothing new to the stall check.
    anonymous: HashSet<u128, BuildHasherDefault<DigestHasher>>,
}

/// A record's identity: a 126-bit digest of a string `id`, or the exact number (an integer as
/// itself, any other number by its bits), tagged by kind in the two low bits, so `"1"`, `1`
/// and `1.0` are three ids, as their JSON texts are.
pub(super) fn record_key(r: &Value) -> Option<u128> {
    match r.get("id")? {
        Value::String(s) => Some(digest(s) & !3),
        Value::Number(n) => n
            .as_u64()
            .map(|u| u128::from(u) << 2 | 1)
            // Two's complement bits: distinct for distinct negatives.
            .or_else(|| n.as_i64().map(|i| u128::from(i as u64) << 2 | 2))
            .or_else(|| n.as_f64().map(|f| u128::from(f.to_bits()) << 2 | 3)),
        _ => None,
    }
}

/// A digest of a record's content (for id-less records): a canonical text of the value, each
/// string length-prefixed and each number by kind and bits, so that no two different values
/// share a text. Written here rather than by serde_json's writer, which would bring its float
/// formatting into the WASM module for this alone.
fn value_digest(v: &Value) -> u128 {
    fn canon(v: &Value, out: &mut String) {
        use std::fmt::Write;
        // Writing to a String cannot fail.
        let _ = match v {
            Value::Null => write!(out, "n"),
            Value::Bool(b) => write!(out, "{}", if *b { 't' } else { 'f' }),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => write!(out, "u{u};"),
                (None, Some(i)) => write!(out, "i{i};"),
                _ => write!(out, "d{};", n.as_f64().map_or(0, f64::to_bits)),
            },
            Value::String(t) => write!(out, "s{}:{t}", t.len()),
            Value::Array(items) => {
                out.push('[');
                for item in items {
                    canon(item, out);
                }
                write!(out, "]")
            }
            Value::Object(map) => {
                out.push('{');
                for (k, item) in map {
                    let _ = write!(out, "{}:{k}", k.len());
                    canon(item, out);
                }
                write!(out, "}}")
            }
        };
    }
    let mut text = String::new();
    canon(v, &mut text);
    digest(&text)
}

impl PageWalker {
    /// Starts at `params.page` with those parameters.
    ///
    /// ```
    /// let w = xborder_core::pagination::PageWalker::new(Default::default());
    /// assert!(!w.is_done());
    /// ```
    pub fn new(params: ListParams) -> Self {
        PageWalker {
            start_page: params.page,
            params,
            seen: HashSet::default(),
            last_total: None,
            unique: 0,
            done: false,
            stale: 0,
            anonymous: HashSet::default(),
        }
    }

    /// The parameters of the next request, `None` when the walk is over.
    ///
    /// ```
    /// let w = xborder_core::pagination::PageWalker::new(Default::default());
    /// assert_eq!(w.next_request().unwrap().to_query(), "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC");
    /// ```
    pub fn next_request(&self) -> Option<ListParams> {
        (!self.done).then(|| self.params.clone())
    }

    /// Whether the last page was fed.
    ///
    /// ```
    /// let mut w = xborder_core::pagination::PageWalker::new(Default::default());
    /// w.feed(&serde_json::json!({"data": [], "total": 0, "page": 0, "pageSize": 10})).unwrap();
    /// assert!(w.is_done());
    /// ```
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Feeds the response to the request [`PageWalker::next_request`] gave. An empty page ends
    /// the walk even when the response claims more (it cannot loop forever).
    ///
    /// ```
    /// let mut w = xborder_core::pagination::PageWalker::new(Default::default());
    /// assert!(w.feed(&serde_json::json!({"total": 1})).is_err());
    /// assert!(!w.is_done()); // a bad response can be retried
    /// ```
    pub fn feed(&mut self, response: &Value) -> Result<WalkStep, PaginationError> {
        self.feed_until(response, |_| false)
    }

    /// [`PageWalker::feed`], where `last` may end the walk at this page (a catch-up's page that
    /// holds a record older than its window): the walk is then over by the caller's choice, so
    /// the end-of-walk count ([`Drift::PossiblySkipped`] for a walk that met fewer records than
    /// `total`) does not apply. `last` sees the page's records.
    pub(crate) fn feed_until(
        &mut self,
        response: &Value,
        last: impl FnOnce(&[Value]) -> bool,
    ) -> Result<WalkStep, PaginationError> {
        let info = page_info(response, Some((self.params.page, self.params.page_size)))?;
        let data = response
            .get("data")
            .and_then(Value::as_array)
            .ok_or(PaginationError::MalformedResponse)?;
        let mut drift = Vec::new();
        if let Some(from) = self.last_total.filter(|t| *t != info.total) {
            drift.push(Drift::TotalChanged {
                from,
                to: info.total,
            });
        }
        self.last_total = Some(info.total);
        let mut fresh = Vec::new();
        let mut repeated = 0;
        let mut brought_new = false;
        for (i, r) in data.iter().enumerate() {
            let key = record_key(r);
            let new = match key {
                Some(k) => self.seen.insert(k),
                None => {
                    brought_new |= self.anonymous.insert(value_digest(r));
                    true
                }
            };
            if new {
                self.unique += 1;
                fresh.push(i);
                brought_new |= key.is_some();
            } else {
                repeated += 1;
            }
        }
        self.stale = if brought_new {
            0
        } else {
            self.stale.saturating_add(1)
        };
        if repeated > 0 {
            drift.push(Drift::RepeatedRecords { count: repeated });
        }
        if info.has_next_conflict {
            drift.push(Drift::HasNextConflict {
                has_next: info.has_next,
            });
        }
        if let Some(Drift::TotalChanged { from, to }) = drift.first() {
            if to < from {
                drift.push(Drift::PossiblySkipped { count: from - to });
            }
        }
        let stalled = self.stale >= 2;
        if stalled {
            drift.push(Drift::Stalled);
        }
        let cut = last(data);
        match info.next_page {
            Some(next) if !data.is_empty() && !stalled && !cut => self.params.page = next,
            _ => {
                self.done = true;
                // A walk from the first page should have met `total` records by its end.
                let flagged = drift
                    .iter()
                    .any(|d| matches!(d, Drift::PossiblySkipped { .. }));
                if self.start_page == 0 && self.unique < info.total && !flagged && !cut {
                    drift.push(Drift::PossiblySkipped {
                        count: info.total - self.unique,
                    });
                }
            }
        }
        Ok(WalkStep { fresh, info, drift })
    }
}
