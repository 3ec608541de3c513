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

pub use postgres::{PostgresClaims, PostgresStore};
pub use sqlite::{SqliteClaims, SqliteStore};
pub use xborder_core::claims::{IntoStep, Step};

use xborder_core::delivery::StoreError;

/// The table both migrations create, `xborder_claims`: the id (primary key), the entry text
/// core writes, and `expires_at` (milliseconds since the Unix epoch, `NULL` for never).
///
/// ```
/// assert!(xborder_sql::postgres::MIGRATION.contains(xborder_sql::TABLE));
/// assert!(xborder_sql::sqlite::MIGRATION.contains(xborder_sql::TABLE));
/// ```
pub const TABLE: &str = "xborder_claims";

/// A time of [`StoreTime`](xborder_core::claims::StoreTime) (or `purge`'s) as the statements
/// compare it with `expires_at` (`BIGINT`): as given. Core's times are at most
/// [`MAX_TIME_MS`](xborder_core::claims::MAX_TIME_MS); a time past `i64::MAX` compares as
/// `i64::MAX`, which is after every expiry a row can hold, so every comparison is the same.
fn at_param(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// The expiry a write stores: `time.expires_at_ms` as given (`None`: never). One past `BIGINT`
/// (core never gives one) is a store error, not a different time.
fn expiry_param(expires_at_ms: Option<u64>) -> Result<Option<i64>, StoreError> {
    expires_at_ms
        .map(|ms| {
            i64::try_from(ms).map_err(|_| StoreError::new(format!("expiry {ms} is past BIGINT")))
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_passed_as_given() {
        assert_eq!(at_param(5), 5);
        assert_eq!(at_param(u64::MAX), i64::MAX);
        assert_eq!(expiry_param(Some(30)), Ok(Some(30)));
        assert_eq!(expiry_param(None), Ok(None));
        let max = xborder_core::claims::MAX_TIME_MS;
        assert_eq!(expiry_param(Some(max)), Ok(Some(max as i64)));
        assert_eq!(
            expiry_param(Some(u64::MAX)).unwrap_err().code(),
            "STORE_UNAVAILABLE"
        );
    }
}
