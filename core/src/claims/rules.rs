//! [`ClaimRules`]: the rules of claims (the lease, the window of done ids), what each step
//! decides and what the receiver answers for it.

use super::{Entry, Outcome, Reply, Step, Write};

/// How long a claim holds an id unless told otherwise: 30 s, well under the provider's retry
/// delay, well over a persist.
pub const DEFAULT_LEASE_MS: u64 = 30_000;

/// How long a done id is remembered unless told otherwise: 7 days, longer than the provider
/// retries a delivery, short enough that no store grows forever (a store drops a done id's entry
/// after it: the TTL of its compare-and-set).
pub const DEFAULT_WINDOW_MS: u64 = 7 * 86_400_000;

/// The rules of claims: the lease of a claim and how long a done id is remembered.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Entry, Outcome, Step, Write};
/// let rules = ClaimRules::new(30_000).with_window(60_000);
/// let done = Entry::done(0);
/// assert_eq!(rules.decide(Some(&done), Step::Claim, "r2", 59_999).0, Outcome::Duplicate);
/// let (outcome, write) = rules.decide(Some(&done), Step::Claim, "r3", 60_000);
/// assert_eq!((outcome, write), (Outcome::Claimed, Write::Put(Entry::held("r3", 60_000))));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimRules {
    lease_ms: u64,
    window_ms: Option<u64>,
}

impl Default for ClaimRules {
    fn default() -> Self {
        ClaimRules::new(DEFAULT_LEASE_MS)
    }
}

impl ClaimRules {
    /// Claims that hold for `lease_ms`; done ids remembered for [`DEFAULT_WINDOW_MS`] (7 days).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, DEFAULT_WINDOW_MS};
    /// assert_eq!(ClaimRules::new(5).lease_ms(), 5);
    /// assert_eq!(ClaimRules::new(5).window_ms(), Some(DEFAULT_WINDOW_MS));
    /// ```
    pub fn new(lease_ms: u64) -> Self {
        ClaimRules {
            lease_ms,
            window_ms: Some(DEFAULT_WINDOW_MS),
        }
    }

    /// Done ids remembered until the store forgets them (the claims contract's rules without
    /// `windowMs`): a store that never forgets grows with every id, so this is for a store
    /// that bounds itself (by capacity) or for tests.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::ClaimRules::new(5).without_window().window_ms(), None);
    /// ```
    pub fn without_window(mut self) -> Self {
        self.window_ms = None;
        self
    }

    /// Done ids count as duplicates for `window_ms` after completion, then are forgotten.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::ClaimRules::new(5).with_window(9).window_ms(), Some(9));
    /// ```
    pub fn with_window(mut self, window_ms: u64) -> Self {
        self.window_ms = Some(window_ms);
        self
    }

    /// The lease of a claim, in milliseconds.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::ClaimRules::default().lease_ms(), 30_000);
    /// ```
    pub fn lease_ms(&self) -> u64 {
        self.lease_ms
    }

    /// How long a done id is remembered, when bounded by time.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, DEFAULT_WINDOW_MS};
    /// assert_eq!(ClaimRules::default().window_ms(), Some(DEFAULT_WINDOW_MS));
    /// ```
    pub fn window_ms(&self) -> Option<u64> {
        self.window_ms
    }

    /// The rule of one step, given the id's current entry (`None`: no entry): its outcome and
    /// what to write. Pure; `at` is the host's clock in milliseconds.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Entry, Outcome, Step, Write};
    /// let rules = ClaimRules::new(30_000);
    /// let held = Entry::held("r1", 0);
    /// assert_eq!(rules.decide(Some(&held), Step::Claim, "r2", 10).0, Outcome::InProgress);
    /// assert_eq!(rules.decide(Some(&held), Step::Complete, "r2", 10).0, Outcome::Stale);
    /// assert_eq!(rules.decide(Some(&held), Step::Release, "r1", 10), (Outcome::Released, Write::Remove));
    /// // A completion that finds no entry (its claim expired and the store dropped it) sticks.
    /// assert_eq!(rules.decide(None, Step::Complete, "r1", 10), (Outcome::Completed, Write::Put(Entry::done(10))));
    /// assert_eq!(rules.decide(None, Step::Release, "r1", 10).0, Outcome::Stale);
    /// ```
    pub fn decide(
        &self,
        current: Option<&Entry>,
        step: Step,
        token: &str,
        at: u64,
    ) -> (Outcome, Write) {
        // An entry past the time its store keeps it (`ttl_ms`) is no entry, whether the store
        // has dropped it yet (Redis, the built-in store's window) or not (a plain table): every
        // store answers alike.
        let current = current.filter(|e| !self.outlived(e, at));
        let holds = matches!(current, Some(Entry::Held { token: t, .. }) if t == token);
        match step {
            Step::Claim => match current {
                Some(Entry::Done { at: done }) if self.remembers(*done, at) => {
                    (Outcome::Duplicate, Write::Keep)
                }
                Some(Entry::Held { since, .. }) if at < since.saturating_add(self.lease_ms) => {
                    (Outcome::InProgress, Write::Keep)
                }
                _ => (Outcome::Claimed, Write::Put(Entry::held(token, at))),
            },
            // No entry at all (a store dropped an expired claim, as Redis does after its TTL, or
            // never had one): nobody else holds the id, so it is done from `at` (contract v3).
            Step::Complete if holds || current.is_none() => {
                (Outcome::Completed, Write::Put(Entry::done(at)))
            }
            Step::Release if holds => (Outcome::Released, Write::Remove),
            Step::Complete | Step::Release => (Outcome::Stale, Write::Keep),
        }
    }

    /// What a receiver answers the provider after `step` gave `outcome` (`None` after
    /// `claimed`: persist the event first, then complete, or release if persisting failed):
    ///
    /// | step, outcome | reply |
    /// |---|---|
    /// | claim, `in_progress` | 503, `Retry-After` = the lease in whole seconds, rounded up, at least 1 |
    /// | claim, `duplicate` | 200 |
    /// | complete, `completed` or `stale` | 200: the event is persisted and a retry would only repeat it |
    /// | release, `released` or `stale` | 500: persisting failed, the provider's retry processes it |
    ///
    /// After persisting, answer `reply(Step::Complete, Outcome::Completed)` also when
    /// `complete` fails ([`ClaimError`](super::ClaimError)): the event is kept, and a
    /// consumer's unique key makes a
    /// retry harmless. After persisting failed, answer the release's reply whatever it gave.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Outcome, Step};
    /// let rules = ClaimRules::new(30_000);
    /// assert_eq!(rules.reply(Step::Claim, Outcome::Claimed), None);
    /// assert_eq!(rules.reply(Step::Claim, Outcome::InProgress).unwrap().retry_after_s, Some(30));
    /// assert_eq!(rules.reply(Step::Complete, Outcome::Stale).unwrap().status, 200);
    /// assert_eq!(rules.reply(Step::Release, Outcome::Stale).unwrap().status, 500);
    /// ```
    pub fn reply(&self, step: Step, outcome: Outcome) -> Option<Reply> {
        match outcome {
            Outcome::Claimed => None,
            Outcome::InProgress => Some(Reply {
                status: 503,
                retry_after_s: Some(self.lease_ms.div_ceil(1_000).max(1)),
            }),
            Outcome::Duplicate | Outcome::Completed => Some(Reply::OK),
            Outcome::Released => Some(Reply::RETRY),
            Outcome::Stale => Some(match step {
                Step::Complete => Reply::OK,
                Step::Claim | Step::Release => Reply::RETRY,
            }),
        }
    }

    fn remembers(&self, done: u64, at: u64) -> bool {
        self.window_ms.is_none_or(|w| at < done.saturating_add(w))
    }

    /// Whether `entry` is past its `ttl_ms` at `at` (a store may have dropped it).
    fn outlived(&self, entry: &Entry, at: u64) -> bool {
        let since = match entry {
            Entry::Done { at } => *at,
            Entry::Held { since, .. } => *since,
        };
        self.ttl_ms(entry)
            .is_some_and(|ttl| at >= since.saturating_add(ttl))
    }

    /// How long a store may keep `entry` before dropping it on its own (a TTL), `None` for no
    /// limit: a done entry for the window; a claim for two leases (an entry past it is no
    /// entry to [`ClaimRules::decide`], whether the store has dropped it or not).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Entry};
    /// let r = ClaimRules::new(10).with_window(100);
    /// assert_eq!(r.ttl_ms(&Entry::done(0)), Some(100));
    /// assert_eq!(r.ttl_ms(&Entry::held("t", 0)), Some(20));
    /// ```
    pub fn ttl_ms(&self, entry: &Entry) -> Option<u64> {
        match entry {
            Entry::Done { .. } => self.window_ms,
            Entry::Held { .. } => Some(self.lease_ms.saturating_mul(2).max(1)),
        }
    }
}
