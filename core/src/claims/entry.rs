//! [`Entry`]: what a store keeps for one id (and its text), and [`Write`], what a step
//! writes.

use super::store::StoreError;

/// What a store keeps for one id.
///
/// ```
/// use xborder_core::claims::Entry;
/// let e = Entry::held("req_a", 1_700);
/// assert_eq!(e.encode(), "h:1700:req_a");
/// assert_eq!(Entry::decode("h:1700:req_a").unwrap(), e);
/// assert_eq!(Entry::decode("d:5").unwrap(), Entry::done(5));
/// assert_eq!(Entry::decode("x").unwrap_err().code(), "STORE_UNAVAILABLE");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Entry {
    /// Claimed by `token` at `since` (host milliseconds).
    Held {
        /// The request that holds the id.
        token: String,
        /// When it claimed it.
        since: u64,
    },
    /// Completed at `at` (host milliseconds).
    Done {
        /// When it was completed.
        at: u64,
    },
}

impl Entry {
    /// A claim by `token` at `since`.
    ///
    /// ```
    /// assert!(matches!(xborder_core::claims::Entry::held("t", 1), xborder_core::claims::Entry::Held { .. }));
    /// ```
    pub fn held(token: impl Into<String>, since: u64) -> Entry {
        Entry::Held {
            token: token.into(),
            since,
        }
    }

    /// A completion at `at`.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Entry::done(3).encode(), "d:3");
    /// ```
    pub fn done(at: u64) -> Entry {
        Entry::Done { at }
    }

    /// The entry as a store keeps it: `h:<since>:<token>` or `d:<at>`. The text is canonical
    /// (one entry, one text), so a store compares texts for its compare-and-set.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Entry::held("a:b", 0).encode(), "h:0:a:b");
    /// ```
    pub fn encode(&self) -> String {
        match self {
            Entry::Held { token, since } => format!("h:{since}:{token}"),
            Entry::Done { at } => format!("d:{at}"),
        }
    }

    /// Reads a stored text back (`STORE_UNAVAILABLE` when it is not one [`Entry::encode`]
    /// writes).
    ///
    /// ```
    /// assert!(xborder_core::claims::Entry::decode("h:1:").is_err()); // a token is never empty
    /// ```
    pub fn decode(text: &str) -> Result<Entry, StoreError> {
        let bad = || StoreError::new("the store holds an entry xborder did not write");
        let number = |s: &str| {
            if s.is_empty()
                || !s.bytes().all(|b| b.is_ascii_digit())
                || (s.len() > 1 && s.starts_with('0'))
            {
                return Err(bad());
            }
            s.parse::<u64>().map_err(|_| bad())
        };
        match text.split_once(':') {
            Some(("d", at)) => Ok(Entry::done(number(at)?)),
            Some(("h", rest)) => {
                let (since, token) = rest.split_once(':').ok_or_else(bad)?;
                if token.is_empty() {
                    return Err(bad());
                }
                Ok(Entry::held(token, number(since)?))
            }
            _ => Err(bad()),
        }
    }
}

/// What a step writes: nothing, an entry, or the removal of the entry.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Step, Write};
/// let (_, w) = ClaimRules::new(10).decide(None, Step::Release, "r1", 0);
/// assert_eq!(w, Write::Keep);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Write {
    /// Leave the entry as it is.
    Keep,
    /// Replace the entry (or create it) with this one.
    Put(Entry),
    /// Remove the entry.
    Remove,
}
