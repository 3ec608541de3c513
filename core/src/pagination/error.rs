//! [`PaginationError`]: why list parameters or a response are not usable.

use std::fmt;

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
