//! [`CatchUpDrift`]: what a catch-up reports beside its events.

use crate::pagination::Drift;

/// What a catch-up reports beside its events: the walk's own [`Drift`], or records that are
/// not events (never dropped in silence).
///
/// ```
/// use xborder_core::{catch_up::CatchUpDrift, pagination::Drift};
/// assert_eq!(CatchUpDrift::MalformedRecord { count: 2 }.code(), "MALFORMED_RECORD");
/// assert_eq!(CatchUpDrift::Page(Drift::Stalled).code(), "STALLED");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatchUpDrift {
    /// What changed under the walk's feet, as `pagination.walk` reports it.
    Page(Drift),
    /// Records of a page that are not events (an `id`, `name`, `aggregateType` or
    /// `aggregateId` that is not a non-empty string, or a `createdAt` that is not a
    /// date-time): not passed on.
    MalformedRecord {
        /// How many records of the page.
        count: u64,
    },
}

impl CatchUpDrift {
    /// `MALFORMED_RECORD`, or the page drift's code.
    ///
    /// ```
    /// use xborder_core::{catch_up::CatchUpDrift, pagination::Drift};
    /// assert_eq!(CatchUpDrift::Page(Drift::RepeatedRecords { count: 1 }).code(), "REPEATED_RECORDS");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            CatchUpDrift::Page(d) => d.code(),
            CatchUpDrift::MalformedRecord { .. } => "MALFORMED_RECORD",
        }
    }

    /// Whether an event may be missing from the walk (`STALLED`, `POSSIBLY_SKIPPED`): the
    /// checkpoint then stays where it was, so the next catch-up walks the same window again.
    ///
    /// ```
    /// use xborder_core::{catch_up::CatchUpDrift, pagination::Drift};
    /// assert!(CatchUpDrift::Page(Drift::Stalled).may_have_missed());
    /// assert!(!CatchUpDrift::MalformedRecord { count: 1 }.may_have_missed());
    /// ```
    pub fn may_have_missed(&self) -> bool {
        matches!(
            self,
            CatchUpDrift::Page(Drift::Stalled | Drift::PossiblySkipped { .. })
        )
    }
}
