//! [`CatchUp::answered`]: the API's answer to a page request, as the host's HTTP client got it
//! (status, headers, body text): a page fed to the walk, a wait before the same request again,
//! or the error that ends the catch-up. The retry rule is core's, so every runtime's catch-up
//! waits and gives up alike.

use super::{CatchUp, CatchUpDrift, CatchUpError};
use crate::api::{ApiError, Retry};

/// What the host does after [`CatchUp::answered`].
///
/// ```
/// use xborder_core::catch_up::{CatchUp, Fetched};
/// let mut c = CatchUp::new(None).unwrap();
/// let next = c.answered(503, &[("Retry-After", "2")], "").unwrap();
/// assert_eq!(next, Fetched::Wait { ms: 2_000 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fetched {
    /// The page was fed to the walk ([`CatchUp::feed`]), with its drift: ask
    /// [`CatchUp::next_request`] again.
    Page {
        /// The page's drift (also kept in [`CatchUp::drifts`]).
        drifts: Vec<CatchUpDrift>,
    },
    /// The API asked for a retry: send the same request again after `ms` milliseconds.
    Wait {
        /// How long to wait: the answer's delay (`DETAILS.retryAfterMs`, `Retry-After`), else
        /// [`CatchUp::DEFAULT_WAIT_MS`], at most [`CatchUp::MAX_WAIT_MS`].
        ms: u64,
    },
}

impl CatchUp {
    /// How many times one page is asked for (the first and four retries) before the catch-up
    /// ends with the API's error (`API_ERROR`).
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUp::PAGE_TRIES, 5);
    /// ```
    pub const PAGE_TRIES: u32 = 5;

    /// The wait before a retry the answer gave no delay for: 1 second.
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUp::DEFAULT_WAIT_MS, 1_000);
    /// ```
    pub const DEFAULT_WAIT_MS: u64 = 1_000;

    /// The longest wait between two tries: 30 seconds (a longer delay is cut to it, so a job
    /// never sleeps for an hour on one header).
    ///
    /// ```
    /// assert_eq!(xborder_core::catch_up::CatchUp::MAX_WAIT_MS, 30_000);
    /// ```
    pub const MAX_WAIT_MS: u64 = 30_000;

    /// Reads the answer to [`CatchUp::next_request`]: a 2xx is the page ([`CatchUp::feed_text`]:
    /// `MALFORMED_RESPONSE` when it is not a list envelope); an answer the API
    /// says to retry (`api.error`'s `after`: a 429, or a 408/5xx on this `GET`) is
    /// [`Fetched::Wait`] until the page's [`CatchUp::PAGE_TRIES`] are spent; any other answer,
    /// or the last try, is `API_ERROR` with the API's error read ([`ApiError`]). Headers are
    /// (name, value) in any case.
    ///
    /// ```
    /// use xborder_core::catch_up::{CatchUp, Fetched};
    /// let mut c = CatchUp::new(None).unwrap();
    /// let page = r#"{"data": [], "total": 0, "page": 0, "pageSize": 100}"#;
    /// assert_eq!(c.answered(200, &[], page).unwrap(), Fetched::Page { drifts: vec![] });
    /// assert!(c.next_request().is_none());
    /// let mut c = CatchUp::new(None).unwrap();
    /// let e = c.answered(401, &[], r#"{"error": {"CODE": "UNAUTHORIZED", "MESSAGE": "bad key"}}"#).unwrap_err();
    /// assert_eq!(e.code(), "API_ERROR");
    /// assert_eq!(e.to_string(), "API_ERROR: the API answered 401 UNAUTHORIZED: bad key");
    /// ```
    pub fn answered(
        &mut self,
        status: u16,
        headers: &[(&str, &str)],
        text: &str,
    ) -> Result<Fetched, CatchUpError> {
        if (200..300).contains(&status) {
            self.tries = 0;
            return self.feed_text(text).map(|drifts| Fetched::Page { drifts });
        }
        self.tries = self.tries.saturating_add(1);
        let error = ApiError::read_text("GET", status, headers, text);
        match error.retry {
            Retry::After { after_ms } if self.tries < Self::PAGE_TRIES => Ok(Fetched::Wait {
                ms: after_ms
                    .unwrap_or(Self::DEFAULT_WAIT_MS)
                    .min(Self::MAX_WAIT_MS),
            }),
            _ => {
                self.tries = 0;
                Err(CatchUpError::Api(Box::new(error)))
            }
        }
    }
}
