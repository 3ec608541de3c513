//! [`Retry`]: what a client may do after an error answer of the provider's API.

/// What a client may do after an error answer, knowing that the API takes no idempotency key
/// (FORMAT.md `api.error`).
///
/// ```
/// use xborder_core::api::Retry;
/// assert_eq!(Retry::advise("POST", 503, None), Retry::CheckFirst);
/// assert_eq!(Retry::advise("get", 503, Some(2_000)), Retry::After { after_ms: Some(2_000) });
/// assert_eq!(Retry::advise("POST", 409, Some(2_000)), Retry::No);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Retry {
    /// Send the same request again after `after_ms` (the server's advice; `None`: your own
    /// backoff). A 429 (refused before any work), or 408, 500, 502, 503, 504 on a method that
    /// is safe to repeat (`GET`, `HEAD`, `OPTIONS`, `PUT`, `DELETE`).
    After {
        /// The delay the answer gave, in milliseconds.
        after_ms: Option<u64>,
    },
    /// The request may have taken effect (408, 500, 502, 503 or 504 on a `POST` or `PATCH`):
    /// look it up (the beneficiary, the webhook) before sending it again; never retry it blind.
    CheckFirst,
    /// Do not send it again as it is (any other status).
    No,
}

impl Retry {
    /// The advice for an answer with `status` to a request with `method` (any case), given
    /// the delay the answer named ([`ApiError::read`](super::ApiError::read) finds it).
    ///
    /// ```
    /// use xborder_core::api::Retry;
    /// assert_eq!(Retry::advise("POST", 429, Some(1_500)), Retry::After { after_ms: Some(1_500) });
    /// assert_eq!(Retry::advise("patch", 500, None), Retry::CheckFirst);
    /// ```
    pub fn advise(method: &str, status: u16, after_ms: Option<u64>) -> Retry {
        let repeatable = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]
            .iter()
            .any(|m| m.eq_ignore_ascii_case(method));
        match status {
            429 => Retry::After { after_ms },
            408 | 500 | 502 | 503 | 504 if repeatable => Retry::After { after_ms },
            408 | 500 | 502 | 503 | 504 => Retry::CheckFirst,
            _ => Retry::No,
        }
    }

    /// `after`, `check_first` or `no` (the same texts in every runtime).
    ///
    /// ```
    /// assert_eq!(xborder_core::api::Retry::CheckFirst.as_str(), "check_first");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            Retry::After { .. } => "after",
            Retry::CheckFirst => "check_first",
            Retry::No => "no",
        }
    }

    /// The delay of an `after`, `None` otherwise (or when the answer named none).
    ///
    /// ```
    /// assert_eq!(xborder_core::api::Retry::No.after_ms(), None);
    /// ```
    pub fn after_ms(&self) -> Option<u64> {
        match self {
            Retry::After { after_ms } => *after_ms,
            _ => None,
        }
    }
}
