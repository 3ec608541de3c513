//! [`Claims`]: steps run synchronously against a store.

use super::{ClaimError, ClaimRules, ClaimStore, ClaimTask, IntoStep, MemoryClaims, Outcome};

/// Claims against a store: the synchronous way to run steps.
///
/// Every method takes `&self`, and `Claims` is `Send + Sync` when its store is (the built-in
/// [`MemoryClaims`] is): share one between the handlers of an async server in an `Arc`. With
/// [`MemoryClaims`] a step never waits on IO, so call it directly from an async handler; with
/// a store that does IO, drive a [`ClaimTask`] against the store's async client instead (the
/// `xborder-redis` crate does this for Redis).
///
/// ```
/// use xborder_core::claims::{ClaimRules, Claims, Outcome, Step};
/// let c = Claims::in_memory(ClaimRules::new(30_000), 100);
/// assert_eq!(c.step(Step::Claim, "evt_1", "r1", 0).unwrap(), Outcome::Claimed);
/// assert_eq!(c.step(Step::Release, "evt_1", "r1", 5).unwrap(), Outcome::Released);
/// assert_eq!(c.step(Step::Claim, "evt_1", "r2", 6).unwrap(), Outcome::Claimed);
/// ```
#[derive(Debug)]
pub struct Claims<S = MemoryClaims> {
    rules: ClaimRules,
    store: S,
}

impl Claims<MemoryClaims> {
    /// Claims kept in this process, remembering at most `capacity` done ids.
    ///
    /// ```
    /// let c = xborder_core::claims::Claims::in_memory(Default::default(), 5);
    /// assert_eq!(c.store().capacity(), 5);
    /// ```
    pub fn in_memory(rules: ClaimRules, capacity: usize) -> Self {
        Claims {
            rules,
            store: MemoryClaims::new(capacity),
        }
    }
}

impl<S: ClaimStore> Claims<S> {
    /// Claims kept in the host's store.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Claims, MemoryClaims};
    /// let c = Claims::with_store(ClaimRules::new(1), MemoryClaims::new(1));
    /// assert_eq!(c.rules().lease_ms(), 1);
    /// ```
    pub fn with_store(rules: ClaimRules, store: S) -> Self {
        Claims { rules, store }
    }

    /// The rules in use.
    ///
    /// ```
    /// let c = xborder_core::claims::Claims::in_memory(xborder_core::claims::ClaimRules::new(7), 1);
    /// assert_eq!(c.rules().lease_ms(), 7);
    /// ```
    pub fn rules(&self) -> ClaimRules {
        self.rules
    }

    /// The store.
    ///
    /// ```
    /// assert!(xborder_core::claims::Claims::in_memory(Default::default(), 1).store().is_empty());
    /// ```
    pub fn store(&self) -> &S {
        &self.store
    }

    /// One step ([`Step`](super::Step), or its text `claim`, `complete`, `release`: see
    /// [`IntoStep`]) by
    /// `token` on `id` at `at` (host milliseconds).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Claims, Step};
    /// let c = Claims::in_memory(ClaimRules::new(10), 1);
    /// assert_eq!(c.step(Step::Claim, "e", "r1", 0).unwrap(), "claimed");
    /// assert_eq!(c.step(Step::Complete, "e", "r2", 1).unwrap(), "stale"); // r1 holds it
    /// assert_eq!(c.step(Step::Complete, "e", "r1", 2).unwrap(), "completed");
    /// assert_eq!(c.step("claim", "e", "r3", 3).unwrap(), "duplicate"); // the text works too
    /// ```
    pub fn step(
        &self,
        step: impl IntoStep,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<Outcome, ClaimError> {
        ClaimTask::new(self.rules, step, id, token, at)?.run(&self.store)
    }
}
