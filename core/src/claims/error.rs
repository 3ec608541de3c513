//! [`ClaimError`]: why a step could not be carried out.

use std::fmt;

use super::store::StoreError;
use super::Reply;

/// Why a step could not be carried out.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Claims};
/// let c = Claims::in_memory(ClaimRules::new(1_000), 10);
/// let e = c.step("finish", "evt_1", "r1", 0).unwrap_err();
/// assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("do")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimError {
    /// The step is not `claim`, `complete` or `release` (`do`), or its `id` or `token` is empty.
    InvalidStep {
        /// The input that is wrong: `do`, `id` or `token`.
        field: &'static str,
    },
    /// The store failed, holds an entry that is not one of ours, or kept changing under us.
    Store(StoreError),
}

impl ClaimError {
    /// Stable code: `INVALID_STEP` or `STORE_UNAVAILABLE`.
    ///
    /// ```
    /// use xborder_core::{claims::ClaimError, delivery::StoreError};
    /// assert_eq!(ClaimError::Store(StoreError::new("down")).code(), "STORE_UNAVAILABLE");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            ClaimError::InvalidStep { .. } => "INVALID_STEP",
            ClaimError::Store(e) => e.code(),
        }
    }

    /// What to answer the provider when a step failed: `STORE_UNAVAILABLE` → 503 with
    /// `Retry-After: 1` (the store may be back in a moment; nothing was processed), `INVALID_STEP`
    /// → 500 (a bug in the host; the provider retries on its own schedule).
    ///
    /// ```
    /// use xborder_core::{claims::ClaimError, delivery::StoreError};
    /// let r = ClaimError::Store(StoreError::new("down")).reply();
    /// assert_eq!((r.status, r.retry_after_s), (503, Some(1)));
    /// assert_eq!(ClaimError::InvalidStep { field: "id" }.reply().status, 500);
    /// ```
    pub fn reply(&self) -> Reply {
        match self {
            ClaimError::InvalidStep { .. } => Reply::RETRY,
            ClaimError::Store(_) => Reply {
                status: 503,
                retry_after_s: Some(1),
            },
        }
    }

    /// The input at fault, for `INVALID_STEP`.
    ///
    /// ```
    /// use xborder_core::claims::ClaimError;
    /// assert_eq!(ClaimError::InvalidStep { field: "token" }.field(), Some("token"));
    /// ```
    pub fn field(&self) -> Option<&'static str> {
        match self {
            ClaimError::InvalidStep { field } => Some(field),
            ClaimError::Store(_) => None,
        }
    }
}

impl fmt::Display for ClaimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimError::InvalidStep { field: "do" } => {
                f.write_str("INVALID_STEP: do must be claim, complete or release")
            }
            ClaimError::InvalidStep { field } => {
                write!(f, "INVALID_STEP: {field} must not be empty")
            }
            ClaimError::Store(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl std::error::Error for ClaimError {}

impl From<StoreError> for ClaimError {
    fn from(e: StoreError) -> Self {
        ClaimError::Store(e)
    }
}
