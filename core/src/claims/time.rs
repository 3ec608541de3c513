//! [`StoreTime`]: the times a store is given, clamped once, here, to [`MAX_TIME_MS`].

/// The latest time a step can carry, in milliseconds since the Unix epoch: 2^48 − 1 (the
/// year 10889). A later `at` is taken as this, by every store alike (the built-in one keeps
/// times in 48 bits).
pub const MAX_TIME_MS: u64 = (1 << 48) - 1;

/// The times of one store call, as core has clamped them (`now_ms` and `ttl_ms` at most
/// [`MAX_TIME_MS`], so `expires_at_ms`, their sum, is below 2^49: an `i64`, a JavaScript number
/// and a SQL `BIGINT` hold it exactly): the step's time, and for a write how long the store may
/// keep the new entry. A store writes and
/// compares these numbers as they are; it never reads an entry's text for a time, nor clamps one.
///
/// A SQL store keeps `expires_at_ms` in a column and counts a row whose expiry is at or before
/// `now_ms` as no row; a Redis store gives `ttl_ms` to `PEXPIRE`.
///
/// ```
/// use xborder_core::claims::{StoreTime, MAX_TIME_MS};
/// let t = StoreTime::expiring(1_000, Some(500));
/// assert_eq!((t.now_ms, t.ttl_ms, t.expires_at_ms), (1_000, Some(500), Some(1_500)));
/// // Clamped: a time past the 48-bit range, and a TTL past it. The expiry is their sum, so an
/// // entry written at the latest time still expires after it.
/// assert_eq!(StoreTime::at(u64::MAX).now_ms, MAX_TIME_MS);
/// let late = StoreTime::expiring(u64::MAX, Some(u64::MAX));
/// assert_eq!(late.expires_at_ms, Some(2 * MAX_TIME_MS));
/// assert!(late.expires_at_ms > Some(late.now_ms));
/// assert_eq!(StoreTime::at(7).expires_at_ms, None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreTime {
    /// The step's time (host milliseconds).
    pub now_ms: u64,
    /// How long the store may keep the new entry, from `now_ms` (`None`: as long as it likes; a
    /// load or a removal has none).
    pub ttl_ms: Option<u64>,
    /// `now_ms + ttl_ms`: when the store may drop the new entry (`None`: never); not clamped to
    /// [`MAX_TIME_MS`], so an entry written at that time is not expired at it.
    pub expires_at_ms: Option<u64>,
}

impl StoreTime {
    /// The time of a load (or of a write that never expires) at `now_ms`.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::StoreTime::at(5).ttl_ms, None);
    /// ```
    pub fn at(now_ms: u64) -> StoreTime {
        StoreTime {
            now_ms: now_ms.min(MAX_TIME_MS),
            ttl_ms: None,
            expires_at_ms: None,
        }
    }

    /// The time of a write at `now_ms` whose entry the store may drop after `ttl_ms`.
    ///
    /// ```
    /// let t = xborder_core::claims::StoreTime::expiring(0, None);
    /// assert_eq!(t, xborder_core::claims::StoreTime::at(0));
    /// ```
    pub fn expiring(now_ms: u64, ttl_ms: Option<u64>) -> StoreTime {
        let now_ms = now_ms.min(MAX_TIME_MS);
        let ttl_ms = ttl_ms.map(|t| t.min(MAX_TIME_MS));
        StoreTime {
            now_ms,
            ttl_ms,
            expires_at_ms: ttl_ms.map(|t| now_ms.saturating_add(t)),
        }
    }
}
