//! List requests and responses: the query, the page facts, and the walker.

use std::fmt;
use std::sync::{Mutex, MutexGuard};

use xborder_core::pagination;

use crate::errors::parse_json;
use crate::XborderError;

/// The page and page size a list request asked for, for responses that do not repeat them.
/// What the request left out is what the server used: core's defaults (page 0, 10 per page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct PageRequest {
    /// 0-based page number (0 when absent).
    #[uniffi(default = None)]
    pub page: Option<u64>,
    /// Records per page (core's default, 10, when absent).
    #[uniffi(default = None)]
    pub page_size: Option<u64>,
}

impl PageRequest {
    /// `(page, pageSize)` with core's defaults and checks (`INVALID_PAGE`, `INVALID_PAGE_SIZE`).
    pub(crate) fn resolved(self) -> Result<(u64, u64), pagination::PaginationError> {
        let mut p = pagination::ListParams::default();
        if let Some(page) = self.page {
            p = p.page(page);
        }
        if let Some(size) = self.page_size {
            p = p.page_size(size);
        }
        p.validate()?;
        Ok((p.page, p.page_size))
    }
}

/// The facts of one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct PageInfo {
    /// Records matching the query.
    pub total: u64,
    /// This page's number (0-based).
    pub page: u64,
    /// Records per page.
    pub page_size: u64,
    /// `ceil(total / pageSize)`.
    pub total_pages: u64,
    /// Whether a later page has records (the response's `hasNext` when it sends one).
    pub has_next: bool,
    /// The response's `hasNext` contradicts its `total`: `has_next` and `next_page` follow the
    /// server; a pager should follow them and report it.
    pub has_next_conflict: bool,
    /// Whether this is not the first page.
    pub has_previous: bool,
    /// 1-based position of this page's first record (0 when the page is empty or past the end).
    pub first_item: u64,
    /// 1-based position of this page's last record (0 when the page is empty or past the end).
    pub last_item: u64,
    /// The page to ask for next, when there is one.
    pub next_page: Option<u64>,
}

impl From<pagination::PageInfo> for PageInfo {
    fn from(i: pagination::PageInfo) -> Self {
        PageInfo {
            total: i.total,
            page: i.page,
            page_size: i.page_size,
            total_pages: i.total_pages,
            has_next: i.has_next,
            has_next_conflict: i.has_next_conflict,
            has_previous: i.has_previous,
            first_item: i.first_item,
            last_item: i.last_item,
            next_page: i.next_page,
        }
    }
}

/// Something that changed under the walker's feet between pages. `code` is core's
/// (`TOTAL_CHANGED`, `REPEATED_RECORDS`, `HAS_NEXT_CONFLICT`, `POSSIBLY_SKIPPED`, `STALLED`); the numbers
/// that code carries are set, the others absent.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Drift {
    /// The stable drift code.
    pub code: String,
    /// `TOTAL_CHANGED`: the previous page's total.
    pub previous_total: Option<u64>,
    /// `TOTAL_CHANGED`: this page's total.
    pub total: Option<u64>,
    /// `REPEATED_RECORDS`: records seen before; `POSSIBLY_SKIPPED`: positions unaccounted for.
    pub count: Option<u64>,
    /// `HAS_NEXT_CONFLICT`: what the response's `hasNext` said (the walker follows it).
    pub has_next: Option<bool>,
}

impl From<&pagination::Drift> for Drift {
    fn from(d: &pagination::Drift) -> Self {
        let mut out = Drift {
            code: d.code().to_owned(),
            previous_total: None,
            total: None,
            count: None,
            has_next: None,
        };
        match d {
            pagination::Drift::TotalChanged { from, to } => {
                out.previous_total = Some(*from);
                out.total = Some(*to);
            }
            pagination::Drift::RepeatedRecords { count }
            | pagination::Drift::PossiblySkipped { count } => out.count = Some(*count),
            pagination::Drift::HasNextConflict { has_next } => out.has_next = Some(*has_next),
            pagination::Drift::Stalled => {}
            // Non-exhaustive in the core: a new drift still crosses with its code
            // (`drifts_keep_their_code_and_numbers` walks core's list of drift codes).
            _ => {}
        }
        out
    }
}

/// What one page gave a [`PageWalker`].
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct WalkStep {
    /// The page's records not seen on an earlier page, in order, each as its own JSON text
    /// (decode each with your model type); records without an `id` are always passed on.
    pub records_json: Vec<String>,
    /// The page's facts.
    pub info: PageInfo,
    /// What drifted since the previous page (empty when nothing did).
    pub drifts: Vec<Drift>,
}

/// Walks every page of a list: says which query to send next, stops at the end, passes each
/// record on once (by its `id`) and reports drift (records added or removed while walking).
/// Safe to share between threads; one walk at a time.
///
/// ```text
/// walker = PageWalker(params_json)
/// while (query = walker.next_query()) != null:
///     step = walker.feed(GET /v1/<list>?<query>)
///     use step.records_json; report step.drifts
/// ```
#[derive(uniffi::Object)]
pub struct PageWalker {
    inner: Mutex<pagination::PageWalker>,
}

impl fmt::Debug for PageWalker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageWalker")
            .field("next_query", &self.next_query())
            .finish()
    }
}

impl PageWalker {
    fn lock(&self) -> MutexGuard<'_, pagination::PageWalker> {
        // A feed that panicked midway can at worst leave a record counted as seen: the walk
        // goes on (a failed feed may be retried anyway), so a poisoned lock is taken over.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[uniffi::export]
impl PageWalker {
    /// A walk from the list parameters [`list_query`] takes (a JSON object, its `page` the
    /// first page asked for). Throws the pagination codes, or `MALFORMED_JSON`.
    #[uniffi::constructor]
    pub fn new(params_json: String) -> Result<Self, XborderError> {
        let params = pagination::ListParams::from_value(&parse_json(&params_json, "params_json")?)?;
        Ok(PageWalker {
            inner: Mutex::new(pagination::PageWalker::new(params)),
        })
    }

    /// The query string (without `?`) of the next request, absent when the walk is over.
    pub fn next_query(&self) -> Option<String> {
        self.lock().next_request().map(|p| p.to_query())
    }

    /// Whether the last page was fed.
    pub fn is_done(&self) -> bool {
        self.lock().is_done()
    }

    /// Feeds the response (JSON text) to the request [`PageWalker::next_query`] gave. An empty
    /// page ends the walk. Throws `MALFORMED_RESPONSE`, `INVALID_PAGE_SIZE`, `OUT_OF_RANGE` or
    /// `MALFORMED_JSON`; the walk is then where it was, and the page may be fetched again.
    pub fn feed(&self, response_json: String) -> Result<WalkStep, XborderError> {
        let response = parse_json(&response_json, "response_json")?;
        let step = self.lock().feed(&response)?;
        let records_json = step
            .records(&response)
            .into_iter()
            .map(|r| {
                serde_json::to_string(r).map_err(|_| pagination::PaginationError::MalformedResponse)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(WalkStep {
            records_json,
            info: step.info.into(),
            drifts: step.drift.iter().map(Drift::from).collect(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The exported functions

/// The query string (without `?`) of a list request from a JSON object of parameters
/// (`page`, `pageSize`, `sortBy`, `sortOrder`, `search`; absent or `null` take the defaults).
/// Throws the pagination codes, or `MALFORMED_JSON` when the text is not JSON.
#[uniffi::export]
pub fn list_query(params_json: String) -> Result<String, XborderError> {
    let params = xborder_core::pagination::ListParams::from_value(&parse_json(
        &params_json,
        "params_json",
    )?)?;
    Ok(params.to_query())
}

/// The page facts of a list response (JSON text): `{data, total, page, pageSize}`,
/// `{data, total, hasNext}` or `{data, meta: {...}}`. `request` supplies what the response
/// leaves out, and without it the defaults do (page 0 of 10); the response's own values win. Throws
/// `MALFORMED_RESPONSE`, `INVALID_PAGE_SIZE`, `OUT_OF_RANGE`, or `MALFORMED_JSON` when the text
/// is not JSON.
#[uniffi::export(default(request = None))]
pub fn page_info(
    response_json: String,
    request: Option<PageRequest>,
) -> Result<PageInfo, XborderError> {
    let response = parse_json(&response_json, "response_json")?;
    let request = request.map(|r| r.resolved()).transpose()?;
    Ok(xborder_core::pagination::page_info(&response, request)?.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every drift code of core's list crosses with its code and its numbers.
    #[test]
    fn drifts_keep_their_code_and_numbers() {
        use pagination::Drift as D;
        let core = [
            D::TotalChanged { from: 3, to: 4 },
            D::RepeatedRecords { count: 2 },
            D::HasNextConflict { has_next: true },
            D::PossiblySkipped { count: 5 },
            D::Stalled,
        ];
        let ours: Vec<Drift> = core.iter().map(Drift::from).collect();
        let codes: Vec<&str> = ours.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, xborder_core::codes::DRIFTS);
        let numbers: Vec<_> = ours
            .iter()
            .map(|d| (d.previous_total, d.total, d.count, d.has_next))
            .collect();
        assert_eq!(
            numbers,
            [
                (Some(3), Some(4), None, None),
                (None, None, Some(2), None),
                (None, None, None, Some(true)),
                (None, None, Some(5), None),
                (None, None, None, None),
            ]
        );
    }

    #[test]
    fn walker_passes_records_once_and_reports_drift() -> Result<(), XborderError> {
        let w = PageWalker::new(r#"{"pageSize":2}"#.into())?;
        assert_eq!(
            w.next_query().as_deref(),
            Some("page=0&pageSize=2&sortBy=createdAt&sortOrder=DESC")
        );
        let s =
            w.feed(r#"{"data":[{"id":"c"},{"id":"b"}],"total":3,"page":0,"pageSize":2}"#.into())?;
        assert_eq!(s.records_json, [r#"{"id":"c"}"#, r#"{"id":"b"}"#]);
        let s = w.feed(
            r#"{"data":[{"id":"b"},{"id":"a","n":1.5}],"total":4,"page":1,"pageSize":2}"#.into(),
        )?;
        assert_eq!(s.records_json, [r#"{"id":"a","n":1.5}"#]);
        let codes: Vec<&str> = s.drifts.iter().map(|d| d.code.as_str()).collect();
        // "d", new on page 0, was never seen: one position unaccounted for at the end.
        assert_eq!(
            codes,
            ["TOTAL_CHANGED", "REPEATED_RECORDS", "POSSIBLY_SKIPPED"]
        );
        assert_eq!(
            s.drifts.iter().map(|d| d.count).collect::<Vec<_>>(),
            [None, Some(1), Some(1)]
        );
        assert!(w.is_done());
        assert_eq!(w.next_query(), None);
        let e = PageWalker::new(r#"{"status":"x"}"#.into()).unwrap_err();
        assert_eq!(
            (e.error_code().as_str(), e.error_field().as_deref()),
            ("UNKNOWN_PARAMETER", Some("status"))
        );
        Ok(())
    }
}
