//! [`Drift`]: what changed under the walker's feet between pages.

/// Something that changed under the walker's feet.
///
/// ```
/// use xborder_core::pagination::Drift;
/// let d = Drift::TotalChanged { from: 10, to: 12 };
/// assert_eq!(d.code(), "TOTAL_CHANGED");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Drift {
    /// `total` differs from the previous page's.
    TotalChanged {
        /// The earlier total.
        from: u64,
        /// The new total.
        to: u64,
    },
    /// Records seen on an earlier page came again (new records pushed them down).
    RepeatedRecords {
        /// How many.
        count: u64,
    },
    /// The page's `hasNext` contradicts its `total` (see
    /// [`PageInfo::has_next_conflict`](super::PageInfo::has_next_conflict)); the
    /// walker follows `hasNext`.
    HasNextConflict {
        /// What the response's `hasNext` said.
        has_next: bool,
    },
    /// Records may have been skipped: the total shrank between pages (records removed before
    /// the current position move the rest up), or the walk ended with fewer unique records than
    /// it paged over.
    PossiblySkipped {
        /// How many positions are unaccounted for.
        count: u64,
    },
    /// Two pages in a row brought no record the walk had not passed on (a server that ignores
    /// `page`, or says `hasNext: true` forever): the walk ends here, so that it always ends.
    Stalled,
}

impl Drift {
    /// `TOTAL_CHANGED`, `REPEATED_RECORDS`, `HAS_NEXT_CONFLICT`, `POSSIBLY_SKIPPED` or
    /// `STALLED`.
    ///
    /// ```
    /// assert_eq!(xborder_core::pagination::Drift::RepeatedRecords { count: 1 }.code(), "REPEATED_RECORDS");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Drift::TotalChanged { .. } => "TOTAL_CHANGED",
            Drift::RepeatedRecords { .. } => "REPEATED_RECORDS",
            Drift::HasNextConflict { .. } => "HAS_NEXT_CONFLICT",
            Drift::PossiblySkipped { .. } => "POSSIBLY_SKIPPED",
            Drift::Stalled => "STALLED",
        }
    }
}
