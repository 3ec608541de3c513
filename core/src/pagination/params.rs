//! [`ListParams`]: the query parameters of a list endpoint ([`SortOrder`], the endpoint's
//! filters), read from JSON, checked and written as a query string; [`request_of`].

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::Value;

use super::numbers::safe_uint;
use super::{PaginationError, MAX_SAFE_INTEGER};

/// Everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) is encoded.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

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
    pub(super) filters: Vec<(String, String)>,
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
pub(super) const PARAMETERS: [&str; 5] = ["page", "pageSize", "sortBy", "sortOrder", "search"];

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
