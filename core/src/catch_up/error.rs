//! [`CatchUpError`]: why a catch-up cannot start or read a page.

use std::fmt;

use crate::api::ApiError;
use crate::pagination::PaginationError;

/// Why a catch-up cannot start, or cannot read a page.
///
/// ```
/// use xborder_core::catch_up::CatchUp;
/// let e = CatchUp::new(Some("27/11/2026")).unwrap_err();
/// assert_eq!(e.code(), "INVALID_SINCE");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatchUpError {
    /// `since` is not a date-time ([`timestamp_ms`](super::timestamp_ms)).
    InvalidSince,
    /// The overlap is not an integer from 0 to 2^53 − 1 milliseconds.
    InvalidOverlap,
    /// The page size cannot be sent (`INVALID_PAGE_SIZE`), or a page is not a list envelope
    /// (`MALFORMED_RESPONSE`: the walk can ask for it again).
    Page(PaginationError),
    /// The API answered a page request with an error it does not ask to retry, or the page's
    /// tries are spent ([`CatchUp::answered`](super::CatchUp::answered)): its status, code,
    /// message and request id as read ([`ApiError`]). The walk can go on with the same request.
    Api(Box<ApiError>),
}

impl CatchUpError {
    /// `INVALID_SINCE`, `INVALID_OVERLAP`, or the page's code.
    ///
    /// ```
    /// use xborder_core::{catch_up::CatchUpError, pagination::PaginationError};
    /// assert_eq!(CatchUpError::Page(PaginationError::MalformedResponse).code(), "MALFORMED_RESPONSE");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            CatchUpError::InvalidSince => "INVALID_SINCE",
            CatchUpError::InvalidOverlap => "INVALID_OVERLAP",
            CatchUpError::Page(e) => e.code(),
            CatchUpError::Api(_) => "API_ERROR",
        }
    }

    /// The parameter concerned: `since`, `overlapMs`, or the page error's own.
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUpError::InvalidOverlap.field(), Some("overlapMs"));
    /// ```
    pub fn field(&self) -> Option<&str> {
        match self {
            CatchUpError::InvalidSince => Some("since"),
            CatchUpError::InvalidOverlap => Some("overlapMs"),
            CatchUpError::Page(e) => e.field(),
            CatchUpError::Api(_) => None,
        }
    }
}

impl fmt::Display for CatchUpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatchUpError::InvalidSince => write!(
                f,
                "INVALID_SINCE: the checkpoint is not a date-time like 2026-11-27T12:00:00.000Z (give the `checkpoint` an earlier catch-up returned, or none to walk everything)"
            ),
            CatchUpError::InvalidOverlap => write!(
                f,
                "INVALID_OVERLAP: the overlap is not an integer from 0 to 2^53 - 1 milliseconds"
            ),
            CatchUpError::Page(e) => write!(f, "{e}"),
            CatchUpError::Api(e) => {
                write!(f, "API_ERROR: the API answered {}", e.status)?;
                if let Some(code) = &e.code {
                    write!(f, " {code}")?;
                }
                if let Some(message) = &e.message {
                    write!(f, ": {message}")?;
                }
                // A string or an integer (`ApiError::request_id`), written without a JSON
                // writer (the WASM module carries none).
                match &e.request_id {
                    Some(serde_json::Value::String(id)) => write!(f, " (request {id})")?,
                    Some(serde_json::Value::Number(n)) => match (n.as_u64(), n.as_i64()) {
                        (Some(id), _) => write!(f, " (request {id})")?,
                        (None, Some(id)) => write!(f, " (request {id})")?,
                        (None, None) => {}
                    },
                    _ => {}
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for CatchUpError {}

impl From<PaginationError> for CatchUpError {
    fn from(e: PaginationError) -> Self {
        CatchUpError::Page(e)
    }
}
