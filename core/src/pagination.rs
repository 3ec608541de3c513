//! List parameters, the paginated envelope, page facts and an all-pages walker.
//!
//! Every list endpoint takes `page` (0-based), `pageSize`, `sortBy`, `sortOrder` and `search`,
//! plus filters of its own (`status`, `event`, `email`, ...), and answers
//! `{data, total, page, pageSize}` (some answer `{data, total, hasNext}`, the api-keys list
//! `{data, meta: {total, page, pageSize}}`). Arithmetic is exact up to 2^53 − 1, the largest
//! integer every runtime holds exactly, and errors beyond. Nothing a caller passes is dropped
//! silently: an unknown parameter or an unusable filter is an error. Every walk ends, whatever
//! the server answers (drift `STALLED`).

use std::collections::HashSet;
use std::fmt;
use std::hash::BuildHasherDefault;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::Value;

use crate::digest::{digest, DigestHasher};

/// 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) is encoded.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Why list parameters or a response are not usable.
///
/// ```
/// use xborder_core::pagination::PaginationError;
/// assert_eq!(PaginationError::InvalidPageSize.code(), "INVALID_PAGE_SIZE");
/// let e = PaginationError::UnknownParameter { field: "status".into() };
/// assert_eq!((e.code(), e.field()), ("UNKNOWN_PARAMETER", Some("status")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PaginationError {
    /// `page` negative, not an integer, or above 2^53 − 1.
    InvalidPage,
    /// `pageSize` below 1, not an integer, or above 2^53 − 1.
    InvalidPageSize,
    /// `sortOrder` not `ASC` or `DESC` (in any case), or not a string.
    InvalidSortOrder,
    /// `sortBy` not a non-empty string (xborder's own code).
    InvalidSortBy,
    /// `search` not a string (xborder's own code).
    InvalidSearch,
    /// A filter that cannot be sent: an empty key, a key that is one of the five list
    /// parameters, or a value that is not a string, an integer, a boolean or null. `field` is
    /// the filter's key (`filters` when `filters` itself is not an object).
    InvalidFilter {
        /// The filter's key.
        field: String,
    },
    /// The parameters have a key other than `page`, `pageSize`, `sortBy`, `sortOrder`,
    /// `search` and `filters` (endpoint filters go under `filters`). `field` is that key (`""`
    /// when the parameters are not an object at all).
    UnknownParameter {
        /// The key.
        field: String,
    },
    /// The response is not a paginated envelope.
    MalformedResponse,
    /// The arithmetic would pass 2^53 − 1.
    OutOfRange,
}

impl PaginationError {
    /// The stable code.
    ///
    /// ```
    /// assert_eq!(xborder_core::pagination::PaginationError::OutOfRange.code(), "OUT_OF_RANGE");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            PaginationError::InvalidPage => "INVALID_PAGE",
            PaginationError::InvalidPageSize => "INVALID_PAGE_SIZE",
            PaginationError::InvalidSortOrder => "INVALID_SORT_ORDER",
            PaginationError::InvalidSortBy => "INVALID_SORT_BY",
            PaginationError::InvalidSearch => "INVALID_SEARCH",
            PaginationError::InvalidFilter { .. } => "INVALID_FILTER",
            PaginationError::UnknownParameter { .. } => "UNKNOWN_PARAMETER",
            PaginationError::MalformedResponse => "MALFORMED_RESPONSE",
            PaginationError::OutOfRange => "OUT_OF_RANGE",
        }
    }

    /// The parameter or filter key concerned, for `INVALID_FILTER` and `UNKNOWN_PARAMETER`.
    ///
    /// ```
    /// use xborder_core::pagination::PaginationError;
    /// assert_eq!(PaginationError::InvalidFilter { field: "status".into() }.field(), Some("status"));
    /// assert_eq!(PaginationError::InvalidPage.field(), None);
    /// ```
    pub fn field(&self) -> Option<&str> {
        match self {
            PaginationError::InvalidFilter { field }
            | PaginationError::UnknownParameter { field } => Some(field),
            _ => None,
        }
    }
}

impl fmt::Display for PaginationError {
    /// The code, then what to fix; a key is quoted with `escape_default` (no `{:?}`: it would
    /// link Unicode tables into the WASM module, so the WASM module stays small).
    ///
    /// ```
    /// use xborder_core::pagination::PaginationError;
    /// let e = PaginationError::UnknownParameter { field: "status".into() };
    /// assert!(e.to_string().starts_with("UNKNOWN_PARAMETER: `status` is not a list parameter"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())?;
        f.write_str(": ")?;
        let why = match self {
            PaginationError::InvalidFilter { field } => {
                return write!(
                    f,
                    "filter `{}` must have a non-empty key that is not one of page, pageSize, sortBy, sortOrder, search, and a string, integer, boolean or null value",
                    field.escape_default()
                );
            }
            PaginationError::UnknownParameter { field } if field.is_empty() => {
                "list parameters must be an object (page, pageSize, sortBy, sortOrder, search, filters)"
            }
            PaginationError::UnknownParameter { field } => {
                return write!(
                    f,
                    "`{}` is not a list parameter; pass endpoint filters under `filters`",
                    field.escape_default()
                );
            }
            PaginationError::InvalidPage => "page must be an integer from 0 to 2^53-1",
            PaginationError::InvalidPageSize => "pageSize must be an integer from 1 to 2^53-1",
            PaginationError::InvalidSortOrder => "sortOrder must be ASC or DESC (any case)",
            PaginationError::InvalidSortBy => "sortBy must be a non-empty string",
            PaginationError::InvalidSearch => "search must be a string",
            PaginationError::MalformedResponse => "the response is not a paginated envelope",
            PaginationError::OutOfRange => "the page arithmetic passes 2^53-1",
        };
        f.write_str(why)
    }
}

impl std::error::Error for PaginationError {}

/// `ASC` or `DESC`.
///
/// ```
/// assert_eq!(xborder_core::pagination::SortOrder::Desc.as_str(), "DESC");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SortOrder {
    /// Ascending.
    Asc,
    /// Descending (the default).
    #[default]
    Desc,
}

impl SortOrder {
    /// The wire value.
    ///
    /// ```
    /// assert_eq!(xborder_core::pagination::SortOrder::Asc.as_str(), "ASC");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            SortOrder::Asc => "ASC",
            SortOrder::Desc => "DESC",
        }
    }

    /// Parses `ASC` or `DESC` in any case (the provider's SDK sends `asc`/`desc` for some
    /// lists); nothing is trimmed.
    ///
    /// ```
    /// use xborder_core::pagination::SortOrder;
    /// assert_eq!(SortOrder::parse("ASC"), Ok(SortOrder::Asc));
    /// assert_eq!(SortOrder::parse("desc"), Ok(SortOrder::Desc));
    /// assert!(SortOrder::parse("ASC ").is_err());
    /// ```
    pub fn parse(s: &str) -> Result<Self, PaginationError> {
        if s.eq_ignore_ascii_case("ASC") {
            Ok(SortOrder::Asc)
        } else if s.eq_ignore_ascii_case("DESC") {
            Ok(SortOrder::Desc)
        } else {
            Err(PaginationError::InvalidSortOrder)
        }
    }
}

/// Reads a JSON number as an integer in 0..=2^53−1 (`2.0` counts as 2, as JavaScript reads it).
/// `Err(true)` when it is an integer above the range, `Err(false)` when it is not an integer.
fn safe_uint(v: &Value) -> Result<u64, bool> {
    if let Some(n) = v.as_u64() {
        return if n <= MAX_SAFE_INTEGER {
            Ok(n)
        } else {
            Err(true)
        };
    }
    match v.as_f64() {
        Some(f) if f.is_finite() && f.fract() == 0.0 && f >= 0.0 => {
            if f <= MAX_SAFE_INTEGER as f64 {
                // Exact: an integral f64 at or below 2^53 − 1.
                Ok(f as u64)
            } else {
                Err(true)
            }
        }
        _ => Err(false),
    }
}

/// Query parameters of a list endpoint, with the spec's defaults, and the endpoint's filters.
///
/// ```
/// use xborder_core::pagination::ListParams;
/// assert_eq!(ListParams::default().to_query(), "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC");
/// let p = ListParams::default().page(2).search("a b&c");
/// assert_eq!(p.to_query(), "page=2&pageSize=10&sortBy=createdAt&sortOrder=DESC&search=a%20b%26c");
/// let p = ListParams::default().filter("status", "need_review");
/// assert!(p.to_query().ends_with("&status=need_review"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ListParams {
    /// 0-based page number.
    pub page: u64,
    /// Records per page (at least 1).
    pub page_size: u64,
    /// Field to sort by.
    pub sort_by: String,
    /// Sort direction.
    pub sort_order: SortOrder,
    /// Free-text search; omitted when `None` or empty.
    pub search: Option<String>,
    /// Endpoint filters (`status`, `event`, `email`, ...): (key, text sent), kept in ascending
    /// byte order of key, each key once; set with [`filter`](Self::filter), read with
    /// [`filters`](Self::filters). (A sorted `Vec`, not a `BTreeMap`: it keeps the WASM module
    /// within its size budget.)
    filters: Vec<(String, String)>,
}

impl Default for ListParams {
    fn default() -> Self {
        ListParams {
            page: 0,
            page_size: 10,
            sort_by: "createdAt".to_owned(),
            sort_order: SortOrder::Desc,
            search: None,
            filters: Vec::new(),
        }
    }
}

/// The five list parameters, which a filter may not shadow.
const PARAMETERS: [&str; 5] = ["page", "pageSize", "sortBy", "sortOrder", "search"];

/// A filter's value as sent: a string as it is, an integer in decimal, a boolean as
/// `true`/`false`; `Ok(None)` for an unset filter (null or the empty string). An integral
/// number within ±(2^53 − 1) written with a fraction or exponent (`2.0`) counts as an integer,
/// as JavaScript reads it; any other number is refused.
fn filter_text(v: &Value) -> Result<Option<String>, ()> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        Value::Bool(b) => Ok(Some(b.to_string())),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                return Ok(Some(i.to_string()));
            }
            if let Some(u) = n.as_u64() {
                return Ok(Some(u.to_string()));
            }
            match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 => {
                    // Exact: an integral f64 within ±(2^53 − 1).
                    Ok(Some((f as i64).to_string()))
                }
                _ => Err(()),
            }
        }
        Value::Array(_) | Value::Object(_) => Err(()),
    }
}

impl ListParams {
    /// Reads parameters from a JSON object (`page`, `pageSize`, `sortBy`, `sortOrder`,
    /// `search`, and `filters`, an object of endpoint filters); absent or `null` keys take the
    /// defaults. Checked strictly, in this order: a key other than those six
    /// (`UNKNOWN_PARAMETER`, the first in byte order), then the parameters in output order,
    /// then the filters in key order (`INVALID_FILTER`). A `null` document means all defaults;
    /// any other non-object is `UNKNOWN_PARAMETER` with field `""`.
    ///
    /// ```
    /// use xborder_core::pagination::{ListParams, PaginationError};
    /// use serde_json::json;
    /// let p = ListParams::from_value(&json!({"page": 3, "sortOrder": "asc"})).unwrap();
    /// assert_eq!((p.page, p.page_size), (3, 10));
    /// assert_eq!(ListParams::from_value(&json!({"page": -1})), Err(PaginationError::InvalidPage));
    /// let p = ListParams::from_value(&json!({"filters": {"status": "success", "archived": false}})).unwrap();
    /// assert!(p.to_query().ends_with("&archived=false&status=success"));
    /// assert_eq!(
    ///     ListParams::from_value(&json!({"status": "success"})),
    ///     Err(PaginationError::UnknownParameter { field: "status".into() })
    /// );
    /// ```
    pub fn from_value(v: &Value) -> Result<Self, PaginationError> {
        let obj = match v {
            Value::Object(obj) => obj,
            Value::Null => return Ok(ListParams::default()),
            _ => {
                return Err(PaginationError::UnknownParameter {
                    field: String::new(),
                })
            }
        };
        if let Some(k) = obj
            .keys()
            .filter(|k| k.as_str() != "filters" && !PARAMETERS.contains(&k.as_str()))
            .min()
        {
            return Err(PaginationError::UnknownParameter { field: k.clone() });
        }
        let get = |k: &str| obj.get(k).filter(|x| !x.is_null());
        let mut p = ListParams::default();
        if let Some(page) = get("page") {
            p.page = safe_uint(page).map_err(|_| PaginationError::InvalidPage)?;
        }
        if let Some(size) = get("pageSize") {
            p.page_size = safe_uint(size).map_err(|_| PaginationError::InvalidPageSize)?;
        }
        if let Some(sort_by) = get("sortBy") {
            p.sort_by = sort_by
                .as_str()
                .ok_or(PaginationError::InvalidSortBy)?
                .to_owned();
        }
        if let Some(order) = get("sortOrder") {
            p.sort_order =
                SortOrder::parse(order.as_str().ok_or(PaginationError::InvalidSortOrder)?)?;
        }
        if let Some(search) = get("search") {
            p.search = Some(
                search
                    .as_str()
                    .ok_or(PaginationError::InvalidSearch)?
                    .to_owned(),
            );
        }
        if let Some(filters) = get("filters") {
            let filters = filters
                .as_object()
                .ok_or_else(|| PaginationError::InvalidFilter {
                    field: "filters".to_owned(),
                })?;
            // serde_json's map iterates in byte order of key: the first bad filter is the
            // same in every runtime.
            for (key, value) in filters {
                let invalid = || PaginationError::InvalidFilter { field: key.clone() };
                check_filter_key(key)?;
                if let Some(text) = filter_text(value).map_err(|()| invalid())? {
                    p.set_filter(key.clone(), text);
                }
            }
        }
        p.validate()?;
        Ok(p)
    }

    /// Sets the 0-based page number.
    ///
    /// ```
    /// use xborder_core::pagination::{ListParams, SortOrder};
    /// let p = ListParams::default().page(2).page_size(25).sort("updatedAt", SortOrder::Asc).search("Ana María");
    /// assert_eq!(p.to_query(), "page=2&pageSize=25&sortBy=updatedAt&sortOrder=ASC&search=Ana%20Mar%C3%ADa");
    /// ```
    #[must_use]
    pub fn page(mut self, page: u64) -> Self {
        self.page = page;
        self
    }

    /// Sets the number of records per page (checked by [`validate`](Self::validate)).
    ///
    /// ```
    /// use xborder_core::pagination::ListParams;
    /// let p = ListParams::default().page_size(50);
    /// assert_eq!(p.to_query(), "page=0&pageSize=50&sortBy=createdAt&sortOrder=DESC");
    /// assert_eq!(ListParams::default().page_size(0).validate().unwrap_err().code(), "INVALID_PAGE_SIZE");
    /// ```
    #[must_use]
    pub fn page_size(mut self, page_size: u64) -> Self {
        self.page_size = page_size;
        self
    }

    /// Sets the field to sort by and the direction.
    ///
    /// ```
    /// use xborder_core::pagination::{ListParams, SortOrder};
    /// let p = ListParams::default().sort("amount", SortOrder::Asc);
    /// assert_eq!(p.to_query(), "page=0&pageSize=10&sortBy=amount&sortOrder=ASC");
    /// ```
    #[must_use]
    pub fn sort(mut self, sort_by: impl Into<String>, order: SortOrder) -> Self {
        self.sort_by = sort_by.into();
        self.sort_order = order;
        self
    }

    /// Sets the free-text search (an empty one is left out of the query).
    ///
    /// ```
    /// use xborder_core::pagination::ListParams;
    /// assert!(ListParams::default().search("Ana").to_query().ends_with("&search=Ana"));
    /// assert!(!ListParams::default().search("").to_query().contains("search"));
    /// ```
    #[must_use]
    pub fn search(mut self, text: impl Into<String>) -> Self {
        self.search = Some(text.into());
        self
    }

    /// Adds an endpoint filter (`status`, `event`, ...): the text to send for `key`. An empty
    /// text is an unset filter, left out of the query. The key is checked by
    /// [`validate`](Self::validate) and [`from_value`](Self::from_value), not here.
    ///
    /// ```
    /// use xborder_core::pagination::ListParams;
    /// let p = ListParams::default().filter("status", "success").filter("event", "order:created");
    /// assert_eq!(p.to_query(), "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC&event=order%3Acreated&status=success");
    /// ```
    #[must_use]
    pub fn filter(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.set_filter(key.into(), value.into());
        self
    }

    /// The endpoint filters, `(key, text)` in ascending byte order of key, each key once (an
    /// empty text is kept here and left out of the query).
    ///
    /// ```
    /// use xborder_core::pagination::ListParams;
    /// let p = ListParams::default().filter("status", "a").filter("event", "b").filter("status", "c");
    /// assert_eq!(p.filters(), [("event".to_owned(), "b".to_owned()), ("status".to_owned(), "c".to_owned())]);
    /// ```
    pub fn filters(&self) -> &[(String, String)] {
        &self.filters
    }

    /// Sets `key` to `value`, keeping the filters sorted and unique by key.
    fn set_filter(&mut self, key: String, value: String) {
        match self
            .filters
            .binary_search_by(|(k, _)| k.as_str().cmp(key.as_str()))
        {
            Ok(at) => {
                if let Some(slot) = self.filters.get_mut(at) {
                    slot.1 = value;
                }
            }
            Err(at) => self.filters.insert(at, (key, value)),
        }
    }

    /// Checks the typed values: page and pageSize within 2^53 − 1, pageSize at least 1, sortBy
    /// not empty, every filter key non-empty and not one of the five list parameters.
    ///
    /// ```
    /// use xborder_core::pagination::{ListParams, PaginationError};
    /// let p = ListParams::default().page_size(0);
    /// assert_eq!(p.validate(), Err(PaginationError::InvalidPageSize));
    /// ```
    pub fn validate(&self) -> Result<(), PaginationError> {
        if self.page > MAX_SAFE_INTEGER {
            return Err(PaginationError::InvalidPage);
        }
        if self.page_size == 0 || self.page_size > MAX_SAFE_INTEGER {
            return Err(PaginationError::InvalidPageSize);
        }
        if self.sort_by.is_empty() {
            return Err(PaginationError::InvalidSortBy);
        }
        self.filters
            .iter()
            .try_for_each(|(k, _)| check_filter_key(k))
    }

    /// The query string (without `?`): `page`, `pageSize`, `sortBy`, `sortOrder`, then `search`
    /// when not empty, then the filters in byte order of key; keys and values percent-encoded
    /// as UTF-8, only unreserved characters left as they are.
    ///
    /// ```
    /// let p = xborder_core::pagination::ListParams::default().search("café ~");
    /// assert!(p.to_query().ends_with("&search=caf%C3%A9%20~"));
    /// ```
    pub fn to_query(&self) -> String {
        let enc = |s: &str| utf8_percent_encode(s, QUERY_VALUE).to_string();
        let mut q = format!(
            "page={}&pageSize={}&sortBy={}&sortOrder={}",
            self.page,
            self.page_size,
            enc(&self.sort_by),
            self.sort_order.as_str()
        );
        if let Some(s) = self.search.as_deref().filter(|s| !s.is_empty()) {
            q.push_str("&search=");
            q.push_str(&enc(s));
        }
        for (key, value) in self.filters.iter().filter(|(_, v)| !v.is_empty()) {
            q.push('&');
            q.push_str(&enc(key));
            q.push('=');
            q.push_str(&enc(value));
        }
        q
    }
}

/// A filter key must be non-empty and must not shadow one of the five list parameters.
fn check_filter_key(key: &str) -> Result<(), PaginationError> {
    if key.is_empty() || PARAMETERS.contains(&key) {
        Err(PaginationError::InvalidFilter {
            field: key.to_owned(),
        })
    } else {
        Ok(())
    }
}

/// The `(page, pageSize)` a list request asked for, from its parameters as a JSON object: what
/// [`ListParams::from_value`] reads, so an absent `pageSize` is the default the server used
/// (10) and an absent `page` is 0. Bindings read `pagination.info`'s `request` with it.
///
/// ```
/// use xborder_core::pagination::request_of;
/// assert_eq!(request_of(&serde_json::json!({"page": 2})), Ok((2, 10)));
/// ```
pub fn request_of(params: &Value) -> Result<(u64, u64), PaginationError> {
    ListParams::from_value(params).map(|p| (p.page, p.page_size))
}

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

/// The request a caller sends with no parameters: page 0 of 10 ([`ListParams::default`]).
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

/// Something that changed under the walker's feet.
///
/// ```
/// use xborder_core::pagination::Drift;
/// let d = Drift::TotalChanged { from: 10, to: 12 };
/// assert_eq!(d.code(), "TOTAL_CHANGED");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Drift {
    /// `total` differs from the previous page's.
    TotalChanged {
        /// The earlier total.
        from: u64,
        /// The new total.
        to: u64,
    },
    /// Records seen on an earlier page came again (new records pushed them down).
    RepeatedRecords {
        /// How many.
        count: u64,
    },
    /// The page's `hasNext` contradicts its `total` (see [`PageInfo::has_next_conflict`]); the
    /// walker follows `hasNext`.
    HasNextConflict {
        /// What the response's `hasNext` said.
        has_next: bool,
    },
    /// Records may have been skipped: the total shrank between pages (records removed before
    /// the current position move the rest up), or the walk ended with fewer unique records than
    /// it paged over.
    PossiblySkipped {
        /// How many positions are unaccounted for.
        count: u64,
    },
    /// Two pages in a row brought no record the walk had not passed on (a server that ignores
    /// `page`, or says `hasNext: true` forever): the walk ends here, so that it always ends.
    Stalled,
}

impl Drift {
    /// `TOTAL_CHANGED`, `REPEATED_RECORDS`, `HAS_NEXT_CONFLICT`, `POSSIBLY_SKIPPED` or
    /// `STALLED`.
    ///
    /// ```
    /// assert_eq!(xborder_core::pagination::Drift::RepeatedRecords { count: 1 }.code(), "REPEATED_RECORDS");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Drift::TotalChanged { .. } => "TOTAL_CHANGED",
            Drift::RepeatedRecords { .. } => "REPEATED_RECORDS",
            Drift::HasNextConflict { .. } => "HAS_NEXT_CONFLICT",
            Drift::PossiblySkipped { .. } => "POSSIBLY_SKIPPED",
            Drift::Stalled => "STALLED",
        }
    }
}

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
fn record_key(r: &Value) -> Option<u128> {
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
        match info.next_page {
            Some(next) if !data.is_empty() && !stalled => self.params.page = next,
            _ => {
                self.done = true;
                // A walk from the first page should have met `total` records by its end.
                let flagged = drift
                    .iter()
                    .any(|d| matches!(d, Drift::PossiblySkipped { .. }));
                if self.start_page == 0 && self.unique < info.total && !flagged {
                    drift.push(Drift::PossiblySkipped {
                        count: info.total - self.unique,
                    });
                }
            }
        }
        Ok(WalkStep { fresh, info, drift })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn page_facts_partition_the_records(total in 0u64..500, size in 1u64..40) {
            let mut covered = 0;
            let pages = total.div_ceil(size);
            for page in 0..pages + 2 {
                let len = total.saturating_sub(page * size).min(size) as usize;
                let r = json!({"data": vec![json!({}); len], "total": total, "page": page, "pageSize": size});
                let info = page_info(&r, None).unwrap();
                prop_assert!(info.first_item <= info.last_item && info.last_item <= total);
                prop_assert_eq!(info.total_pages, pages);
                if info.last_item > 0 {
                    prop_assert_eq!(info.first_item, covered + 1);
                    covered = info.last_item;
                }
                prop_assert_eq!(info.has_next, page + 1 < pages);
            }
            prop_assert_eq!(covered, total);
        }

        #[test]
        fn facts_never_exceed_bounds(total: u64, page: u64, size: u64, len in 0usize..5) {
            let r = json!({"data": vec![json!({}); len], "total": total, "page": page, "pageSize": size});
            if let Ok(info) = page_info(&r, None) {
                prop_assert!(info.first_item <= info.last_item && info.last_item <= info.total);
                prop_assert!(info.total <= MAX_SAFE_INTEGER);
            }
        }

        #[test]
        fn facts_of_parts_equal_facts_of_the_response(
            total in prop_oneof![Just(json!(null)), (0u64..300).prop_map(|n| json!(n)), Just(json!(-1)), Just(json!("7")), Just(json!(1.5))],
            page in prop_oneof![Just(None), (0u64..40).prop_map(|n| Some(json!(n))), Just(Some(json!(null)))],
            size in prop_oneof![Just(None), (0u64..40).prop_map(|n| Some(json!(n))), Just(Some(json!(true)))],
            has_next in prop_oneof![Just(None), any::<bool>().prop_map(|b| Some(json!(b))), Just(Some(json!("yes")))],
            len in 0usize..30,
            request in proptest::option::of((0u64..40, 0u64..40)),
        ) {
            let mut fields = serde_json::Map::new();
            fields.insert("total".into(), total);
            for (k, v) in [("page", page), ("pageSize", size), ("hasNext", has_next)] {
                if let Some(v) = v {
                    fields.insert(k.into(), v);
                }
            }
            let parts = Value::Object(fields.clone());
            fields.insert("data".into(), json!(vec![json!({}); len]));
            let full = Value::Object(fields);
            prop_assert_eq!(page_info_of(len as u64, &parts, request), page_info(&full, request));
        }

        #[test]
        fn query_parses_back(page in 0u64..=MAX_SAFE_INTEGER, size in 1u64..=MAX_SAFE_INTEGER,
                             sort_by in "\\PC{1,12}", asc: bool, search in proptest::option::of("\\PC{0,16}"),
                             filters in proptest::collection::btree_map("\\PC{1,8}", "\\PC{0,8}", 0..4)) {
            let mut p = ListParams { page, page_size: size, sort_by, sort_order: if asc { SortOrder::Asc } else { SortOrder::Desc }, search, filters: Vec::new() };
            for (k, v) in filters.into_iter().filter(|(k, _)| !PARAMETERS.contains(&k.as_str())) {
                p = p.filter(k, v);
            }
            prop_assert!(p.validate().is_ok());
            let q = p.to_query();
            let url = url::Url::parse(&format!("https://x.test/v1/orders?{q}")).unwrap();
            let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
            prop_assert_eq!(&pairs[0], &("page".to_owned(), page.to_string()));
            prop_assert_eq!(&pairs[1], &("pageSize".to_owned(), size.to_string()));
            prop_assert_eq!(&pairs[2], &("sortBy".to_owned(), p.sort_by.clone()));
            prop_assert_eq!(&pairs[3].1, p.sort_order.as_str());
            let mut rest = &pairs[4..];
            if let Some(s) = p.search.as_deref().filter(|s| !s.is_empty()) {
                prop_assert_eq!(&rest[0], &("search".to_owned(), s.to_owned()));
                rest = &rest[1..];
            }
            let want: Vec<(String, String)> = p.filters.iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            prop_assert_eq!(rest, &want[..]);
            prop_assert!(q.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%&=".contains(&b)));
        }

        /// Whatever JSON document is given, `from_value` either refuses it or keeps every filter
        /// it was given with a non-empty value: nothing is dropped silently.
        #[test]
        fn filters_are_never_dropped(keys in proptest::collection::vec("[a-zA-Z]{0,6}", 0..5),
                                     values in proptest::collection::vec(0u8..7, 5)) {
            let mut filters = serde_json::Map::new();
            for (k, v) in keys.iter().zip(&values) {
                let v = match v {
                    0 => json!(null), 1 => json!(""), 2 => json!("x y"), 3 => json!(-42),
                    4 => json!(true), 5 => json!(1.5), _ => json!(["a"]),
                };
                filters.insert(k.clone(), v);
            }
            let doc = json!({"filters": filters.clone()});
            match ListParams::from_value(&doc) {
                Ok(p) => {
                    for (k, v) in &filters {
                        let sent = !(v.is_null() || v == &json!(""));
                        prop_assert_eq!(p.filters().iter().any(|(f, _)| f == k), sent, "{}", k);
                    }
                }
                Err(PaginationError::InvalidFilter { field }) => {
                    let v = &filters[&field];
                    prop_assert!(field.is_empty() || PARAMETERS.contains(&field.as_str()) || v.is_array() || v == &json!(1.5));
                }
                Err(e) => prop_assert!(false, "unexpected {e}"),
            }
        }
    }

    #[test]
    fn has_next_conflict_keeps_the_servers_word_and_shows_it() {
        let info = |r: Value| page_info(&r, None).unwrap();
        let more =
            info(json!({"data": [{}], "total": 1, "page": 0, "pageSize": 10, "hasNext": true}));
        assert!(more.has_next && more.has_next_conflict);
        assert_eq!((more.total_pages, more.next_page), (1, Some(1)));
        let fewer =
            info(json!({"data": [{}], "total": 95, "page": 0, "pageSize": 10, "hasNext": false}));
        assert!(!fewer.has_next && fewer.has_next_conflict);
        assert_eq!((fewer.total_pages, fewer.next_page), (10, None));
        let agree =
            info(json!({"data": [{}], "total": 95, "page": 0, "pageSize": 10, "hasNext": true}));
        assert!(agree.has_next && !agree.has_next_conflict);
        let absent = info(json!({"data": [{}], "total": 95, "page": 0, "pageSize": 10}));
        assert!(absent.has_next && !absent.has_next_conflict);

        // The walker follows hasNext, says so, and flags what the short walk may have missed.
        let mut w = PageWalker::new(ListParams::default());
        let step = w
            .feed(&json!({"data": [{"id": 1}], "total": 1, "page": 0, "pageSize": 10, "hasNext": true}))
            .unwrap();
        assert_eq!(step.drift, vec![Drift::HasNextConflict { has_next: true }]);
        assert_eq!(w.next_request().map(|p| p.page), Some(1));
        let mut w = PageWalker::new(ListParams::default());
        let step = w
            .feed(&json!({"data": [{"id": 1}], "total": 30, "page": 0, "pageSize": 10, "hasNext": false}))
            .unwrap();
        assert!(w.is_done());
        assert_eq!(
            step.drift,
            vec![
                Drift::HasNextConflict { has_next: false },
                Drift::PossiblySkipped { count: 29 }
            ]
        );
    }

    #[test]
    fn walker_carries_filters() {
        let mut w = PageWalker::new(ListParams::default().filter("status", "success"));
        let first = w.next_request().unwrap();
        assert!(first.to_query().ends_with("&status=success"));
        w.feed(&json!({"data": [{"id": 1}], "total": 20, "page": 0, "pageSize": 10}))
            .unwrap();
        let second = w.next_request().unwrap();
        assert_eq!(second.page, 1);
        assert_eq!(
            second
                .filters()
                .iter()
                .find(|(k, _)| k == "status")
                .map(|(_, v)| v.as_str()),
            Some("success")
        );
    }

    #[test]
    fn from_value_errors_name_the_key() {
        let e = |v: Value| ListParams::from_value(&v).unwrap_err();
        assert_eq!(
            e(json!({"status": "x"})),
            PaginationError::UnknownParameter {
                field: "status".into()
            }
        );
        assert_eq!(
            e(json!({"zeta": 1, "alpha": 1})),
            PaginationError::UnknownParameter {
                field: "alpha".into()
            }
        );
        assert_eq!(
            e(json!([1])),
            PaginationError::UnknownParameter {
                field: String::new()
            }
        );
        assert_eq!(
            e(json!("page=1")),
            PaginationError::UnknownParameter {
                field: String::new()
            }
        );
        assert_eq!(
            e(json!({"filters": "status=x"})),
            PaginationError::InvalidFilter {
                field: "filters".into()
            }
        );
        assert_eq!(
            e(json!({"filters": {"page": 1}})),
            PaginationError::InvalidFilter {
                field: "page".into()
            }
        );
        assert_eq!(
            e(json!({"filters": {"": "x"}})),
            PaginationError::InvalidFilter {
                field: String::new()
            }
        );
        assert_eq!(
            e(json!({"filters": {"b": {}, "a": [1]}})),
            PaginationError::InvalidFilter { field: "a".into() }
        );
        assert_eq!(
            e(json!({"filters": {"n": 1e300}})),
            PaginationError::InvalidFilter { field: "n".into() }
        );
        let ok = ListParams::from_value(
            &json!({"filters": {"n": 2.0, "m": -3, "big": 18446744073709551615u64}}),
        )
        .unwrap();
        assert!(ok
            .to_query()
            .ends_with("&big=18446744073709551615&m=-3&n=2"));
        assert_eq!(
            ListParams::from_value(&Value::Null).unwrap(),
            ListParams::default()
        );
        let typed = ListParams::default().filter("page", "2");
        assert_eq!(
            typed.validate(),
            Err(PaginationError::InvalidFilter {
                field: "page".into()
            })
        );
    }

    #[test]
    fn walker_stops_and_dedupes() {
        let mut w = PageWalker::new(ListParams {
            page_size: 2,
            ..Default::default()
        });
        let pages = [
            json!([{"id": 1}, {"id": 2}]),
            json!([{"id": 3}, {"id": 4}]),
            json!([{"id": 5}]),
        ];
        let mut all = vec![];
        while let Some(req) = w.next_request() {
            let data = pages[req.page as usize].clone();
            let step = w
                .feed(&json!({"data": data, "total": 5, "page": req.page, "pageSize": 2}))
                .unwrap();
            assert!(step.drift.is_empty(), "{:?}", step.drift);
            all.extend(step.fresh.iter().map(|i| data[*i].clone()));
        }
        assert_eq!(all.len(), 5);
    }

    #[test]
    fn walker_flags_skips_when_records_vanish() {
        let mut w = PageWalker::new(ListParams {
            page_size: 2,
            ..Default::default()
        });
        w.feed(&json!({"data": [{"id": 1}, {"id": 2}], "total": 5, "page": 0, "pageSize": 2}))
            .unwrap();
        // Record 1 was deleted: the rest moved up, page 1 now shows 4 and 5, and 3 was skipped.
        let step = w
            .feed(&json!({"data": [{"id": 4}, {"id": 5}], "total": 4, "page": 1, "pageSize": 2}))
            .unwrap();
        assert!(step.drift.contains(&Drift::TotalChanged { from: 5, to: 4 }));
        assert!(step.drift.contains(&Drift::PossiblySkipped { count: 1 }));
        assert!(w.is_done()); // positions 3-4 were the last
    }

    #[test]
    fn record_ids_are_exact_by_kind_and_value() {
        let ids = [
            json!("1"),
            json!(1),
            json!(1.0),
            json!(-1),
            json!(9_007_199_254_740_992u64),
            json!(9_007_199_254_740_993u64), // the same double as the one before
            json!(u64::MAX),
            json!(i64::MIN),
            json!(""),
        ];
        let keys: HashSet<u128> = ids
            .iter()
            .filter_map(|id| record_key(&json!({ "id": id })))
            .collect();
        assert_eq!(keys.len(), ids.len());
        assert_eq!(record_key(&json!({"id": null})), None);
        assert_eq!(record_key(&json!({"id": [1]})), None);
        assert_eq!(
            record_key(&json!({"id": "a"})),
            record_key(&json!({"id": "a", "x": 1}))
        );
    }

    #[test]
    fn walker_flags_a_short_walk() {
        let mut w = PageWalker::new(ListParams::default());
        let step = w
            .feed(&json!({"data": [{"id": 1}], "total": 3, "hasNext": false}))
            .unwrap();
        assert!(w.is_done());
        assert_eq!(step.drift, vec![Drift::PossiblySkipped { count: 2 }]);
    }
}
