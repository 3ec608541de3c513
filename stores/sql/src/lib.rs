#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod postgres;
pub mod sqlite;
#[cfg(feature = "testing")]
pub mod testing;

/// The `rusqlite` crate this one is built against (0.43): open your connections and
/// transactions with it (`xborder_sql::rusqlite::Connection`), so that they are the type
/// [`SqliteClaims`] takes.
pub use rusqlite;
/// The `tokio-postgres` crate this one is built against (0.7, at least 0.7.17): your clients
/// and transactions must come from it.
pub use tokio_postgres;

pub use postgres::PostgresClaims;
pub use sqlite::SqliteClaims;
pub use xborder_core::claims::{IntoStep, Step};

use xborder_core::claims::{ClaimError, MAX_TIME_MS};
use xborder_core::delivery::StoreError;

/// The table both migrations create, `xborder_claims`: the id (primary key), the entry text
/// core writes, and `expires_at` (milliseconds since the Unix epoch, `NULL` for never).
///
/// ```
/// assert!(xborder_sql::postgres::MIGRATION.contains(xborder_sql::TABLE));
/// assert!(xborder_sql::sqlite::MIGRATION.contains(xborder_sql::TABLE));
/// ```
pub const TABLE: &str = "xborder_claims";

/// The step's time as the statements take it: core's clamp ([`MAX_TIME_MS`]), so the row's
/// times are the entry's.
fn now_param(at_ms: u64) -> i64 {
    i64::try_from(at_ms.min(MAX_TIME_MS)).unwrap_or(i64::MAX)
}

/// When a row written at `now` with core's `ttl_ms` expires (`None`: never).
fn expiry(now: i64, ttl_ms: Option<u64>) -> Option<i64> {
    ttl_ms.map(|t| now.saturating_add(i64::try_from(t).unwrap_or(i64::MAX)))
}

fn unknown_need() -> ClaimError {
    ClaimError::Store(StoreError::new(
        "xborder-sql does not know this store request: upgrade it",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_clamped_and_expiry_saturates() {
        assert_eq!(now_param(5), 5);
        assert_eq!(now_param(u64::MAX), MAX_TIME_MS as i64);
        assert_eq!(expiry(10, Some(20)), Some(30));
        assert_eq!(expiry(10, None), None);
        assert_eq!(expiry(10, Some(u64::MAX)), Some(i64::MAX));
    }
}
