//! [`PageInfo`]: the facts of one page, from every list envelope the provider sends
//! ([`page_info`], [`page_info_of`]).

use serde_json::Value;

use super::numbers::safe_uint;
use super::{PaginationError, MAX_SAFE_INTEGER};

/// The facts of one page.
///
/// ```
/// use xborder_core::pagination::page_info;
/// let r = serde_json::json!({"data": [{}, {}, {}, {}, {}], "total": 95, "page": 9, "pageSize": 10});
/// let info = page_info(&r, None).unwrap();
/// assert_eq!((info.total_pages, info.has_next, info.first_item, info.last_item), (10, false, 91, 95));
/// assert_eq!(info.next_page, None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct PageInfo {
    /// Records matching the query.
    pub total: u64,
    /// This page's number (0-based).
    pub page: u64,
    /// Records per page.
    pub page_size: u64,
    /// `ceil(total / pageSize)`.
    pub total_pages: u64,
    /// Whether a later page has records: the response's `hasNext` when it sends one (the
    /// server's word wins), else whether `(page + 1) · pageSize < total`.
    pub has_next: bool,
    /// The response's `hasNext` contradicts its `total` (`total: 1, hasNext: true` on page 0 of
    /// size 10, or `hasNext: false` with records left): `has_next` and `next_page` follow the
    /// server, `total_pages` follows `total`; a pager should follow `next_page` and report it.
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

fn response_uint(v: Option<&Value>) -> Result<Option<u64>, PaginationError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(x) => match safe_uint(x) {
            Ok(n) => Ok(Some(n)),
            Err(true) => Err(PaginationError::OutOfRange),
            Err(false) => Err(PaginationError::MalformedResponse),
        },
    }
}

/// The request a caller sends with no parameters: page 0 of 10
/// ([`ListParams::default`](super::ListParams::default)).
const DEFAULT_REQUEST: (u64, u64) = (0, 10);

/// Computes the page facts of a response, from every list envelope the provider sends:
/// `{data, total, page, pageSize}`, `{data, total, hasNext}` and `{data, meta: {total, page,
/// pageSize, hasNext?}}` (read from `meta` only when the top level has none of those four).
/// `request` (`page`, `pageSize`) supplies what the response leaves out, and without it the
/// defaults do (page 0, pageSize 10: the request sent with no parameters); the response's own
/// values win.
///
/// ```
/// use serde_json::json;
/// use xborder_core::pagination::{page_info, PaginationError};
/// let r = json!({"data": [{}, {}, {}], "total": 3, "hasNext": false});
/// let info = page_info(&r, Some((0, 10))).unwrap();
/// assert_eq!((info.first_item, info.last_item, info.total_pages), (1, 3, 1));
/// assert_eq!(page_info(&r, None), Ok(info));
/// let meta = json!({"data": [{}, {}], "meta": {"total": 12, "page": 1, "pageSize": 10}});
/// assert_eq!(page_info(&meta, None).unwrap().last_item, 12);
/// assert_eq!(page_info(&json!({"error": {"CODE": "INTERNAL"}}), None), Err(PaginationError::MalformedResponse));
/// ```
pub fn page_info(
    response: &Value,
    request: Option<(u64, u64)>,
) -> Result<PageInfo, PaginationError> {
    let len = response
        .get("data")
        .and_then(Value::as_array)
        .ok_or(PaginationError::MalformedResponse)?
        .len() as u64;
    page_info_of(len, response, request)
}

/// The keys that carry a page's facts, at the top level or under `meta`.
const PAGE_KEYS: [&str; 4] = ["total", "page", "pageSize", "hasNext"];

/// [`page_info`] of a response whose `data` array holds `records` items, given the response's
/// other fields (`total`, `page`, `pageSize`, `hasNext`, or `meta`; `data` itself is not read):
/// a host that already holds the response as its own objects hands over those fields and a
/// count instead of every record, whatever the page's length.
///
/// ```
/// use xborder_core::pagination::{page_info, page_info_of};
/// let fields = serde_json::json!({"total": 95, "page": 9, "pageSize": 10});
/// let full = serde_json::json!({"data": [{}, {}, {}, {}, {}], "total": 95, "page": 9, "pageSize": 10});
/// assert_eq!(page_info_of(5, &fields, None), page_info(&full, None));
/// assert_eq!(page_info_of(5, &fields, None).unwrap().last_item, 95);
/// ```
pub fn page_info_of(
    records: u64,
    fields: &Value,
    request: Option<(u64, u64)>,
) -> Result<PageInfo, PaginationError> {
    let top = fields
        .as_object()
        .ok_or(PaginationError::MalformedResponse)?;
    // `{data, meta: {...}}` (the api-keys list): the facts under `meta`, unless the top level
    // has any of them.
    let obj = match top.get("meta").and_then(Value::as_object) {
        Some(meta) if !PAGE_KEYS.iter().any(|k| top.contains_key(*k)) => meta,
        _ => top,
    };
    let request = request.unwrap_or(DEFAULT_REQUEST);
    let len = records;
    let total = response_uint(obj.get("total"))?.ok_or(PaginationError::MalformedResponse)?;
    let page = response_uint(obj.get("page"))?.unwrap_or(request.0);
    let page_size = response_uint(obj.get("pageSize"))?.unwrap_or(request.1);
    if page_size == 0 {
        return Err(PaginationError::InvalidPageSize);
    }
    if page > MAX_SAFE_INTEGER || page_size > MAX_SAFE_INTEGER {
        return Err(PaginationError::OutOfRange);
    }
    let end = page
        .checked_add(1)
        .and_then(|p| p.checked_mul(page_size))
        .filter(|e| *e <= MAX_SAFE_INTEGER)
        .ok_or(PaginationError::OutOfRange)?;
    let start = end - page_size;
    let total_pages = total.div_ceil(page_size);
    let implied = end < total;
    let sent = obj.get("hasNext").and_then(Value::as_bool);
    let has_next = sent.unwrap_or(implied);
    let (first_item, last_item) = if len > 0 && start < total {
        (start + 1, (start + len.min(page_size)).min(total))
    } else {
        (0, 0)
    };
    Ok(PageInfo {
        total,
        page,
        page_size,
        total_pages,
        has_next,
        has_next_conflict: sent.is_some_and(|h| h != implied),
        has_previous: page > 0,
        first_item,
        last_item,
        next_page: has_next.then_some(page + 1),
    })
}
