//! [`Outcome`]: the answer to one step.

use std::fmt;

/// The answer to one step (its text: [`Outcome::as_str`]).
///
/// ```
/// use xborder_core::claims::Outcome;
/// assert_eq!(Outcome::InProgress.as_str(), "in_progress");
/// assert!(!Outcome::InProgress.acknowledges());
/// assert!(Outcome::Duplicate.acknowledges());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// This token now holds the id: process the event, then complete (or release).
    Claimed,
    /// Another request holds the id and its lease runs: answer non-2xx (with `Retry-After`), the
    /// provider retries later.
    InProgress,
    /// The id is done: answer 2xx, do nothing.
    Duplicate,
    /// The id is done from now on: answer 2xx.
    Completed,
    /// The id is free again: answer non-2xx, the retry processes it.
    Released,
    /// This token no longer holds the id (its lease expired and another request took it over,
    /// or it was never claimed): nothing changed.
    Stale,
}

impl Outcome {
    /// Every outcome.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Outcome::ALL.len(), 6);
    /// ```
    pub const ALL: &'static [Outcome] = &[
        Outcome::Claimed,
        Outcome::InProgress,
        Outcome::Duplicate,
        Outcome::Completed,
        Outcome::Released,
        Outcome::Stale,
    ];

    /// The outcome of its text ([`Outcome::as_str`]), `None` for any other text.
    ///
    /// ```
    /// use xborder_core::claims::Outcome;
    /// assert_eq!(Outcome::parse("in_progress"), Some(Outcome::InProgress));
    /// assert_eq!(Outcome::parse("IN_PROGRESS"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Outcome> {
        Outcome::ALL.iter().copied().find(|o| o.as_str() == text)
    }

    /// Its text, the same in every xborder runtime.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Outcome::Stale.as_str(), "stale");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Claimed => "claimed",
            Outcome::InProgress => "in_progress",
            Outcome::Duplicate => "duplicate",
            Outcome::Completed => "completed",
            Outcome::Released => "released",
            Outcome::Stale => "stale",
        }
    }

    /// Whether the delivery this step belongs to is answered 2xx: `duplicate` and `completed`
    /// (`claimed` means "process first"; `in_progress` and `released` ask the provider to
    /// retry; after `stale`, another request owns the id, so a retry is safe).
    ///
    /// ```
    /// assert!(xborder_core::claims::Outcome::Completed.acknowledges());
    /// assert!(!xborder_core::claims::Outcome::Claimed.acknowledges());
    /// ```
    pub fn acknowledges(self) -> bool {
        matches!(self, Outcome::Duplicate | Outcome::Completed)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Outcome {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
