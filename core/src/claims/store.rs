//! [`ClaimStore`]: where claims are kept, and [`StoreError`], a store that failed (the
//! dedupe store of [`delivery`](crate::delivery) fails with it too; it is public there, as
//! `xborder_core::delivery::StoreError`).

use std::fmt;
use std::future::Future;

use super::{Entry, StoreTime};

/// A shared store could not be reached or answered with an error.
///
/// ```
/// let e = xborder_core::delivery::StoreError::new("redis: connection refused");
/// assert_eq!(e.code(), "STORE_UNAVAILABLE");
/// assert!(e.to_string().contains("connection refused"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    message: String,
}

impl StoreError {
    /// Wraps the store's own message.
    ///
    /// ```
    /// let _ = xborder_core::delivery::StoreError::new("timeout");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        StoreError {
            message: message.into(),
        }
    }

    /// Stable code: `STORE_UNAVAILABLE`.
    ///
    /// ```
    /// assert_eq!(xborder_core::delivery::StoreError::new("x").code(), "STORE_UNAVAILABLE");
    /// ```
    pub fn code(&self) -> &'static str {
        "STORE_UNAVAILABLE"
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message)
    }
}

impl std::error::Error for StoreError {}

/// Where claims are kept, shared by the instances of one consumer. Implement it over Redis
/// (`WATCH`/`MULTI` or a Lua script), a SQL row (`UPDATE … WHERE value = $expected`), or
/// anything with an atomic compare-and-set. The store only keeps entries: the rules are
/// [`ClaimRules::decide`](super::ClaimRules::decide)'s. Methods take `&self`, so one store
/// serves concurrent requests.
///
/// ```
/// use std::{collections::HashMap, sync::Mutex};
/// use xborder_core::claims::{ClaimRules, ClaimStore, Claims, Entry, Outcome, Step, StoreTime};
/// use xborder_core::delivery::StoreError;
/// #[derive(Default)]
/// struct Texts(Mutex<HashMap<String, String>>); // what a Redis adapter does, in memory
/// impl ClaimStore for Texts {
///     fn load(&self, id: &str, _: StoreTime) -> Result<Option<Entry>, StoreError> {
///         let map = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
///         map.get(id).map(|t| Entry::decode(t)).transpose()
///     }
///     fn compare_and_set(&self, id: &str, expected: Option<&Entry>, new: Option<&Entry>, _: StoreTime) -> Result<bool, StoreError> {
///         let mut map = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
///         if map.get(id).map(String::as_str) != expected.map(Entry::encode).as_deref() { return Ok(false); }
///         match new { Some(e) => { map.insert(id.to_owned(), e.encode()); } None => { map.remove(id); } }
///         Ok(true)
///     }
/// }
/// let c = Claims::with_store(ClaimRules::new(1_000), Texts::default());
/// assert_eq!(c.step(Step::Claim, "evt_1", "r1", 0).unwrap(), Outcome::Claimed);
/// assert_eq!(c.step(Step::Claim, "evt_1", "r2", 1).unwrap(), Outcome::InProgress);
/// ```
pub trait ClaimStore {
    /// The entry of `id` at `time.now_ms`, `None` when it has none (a store that keeps expiry
    /// times answers `None` for an entry whose `expires_at_ms` is at or before `time.now_ms`;
    /// one that does not may answer it: core's rules ignore an entry past its TTL themselves).
    /// A failure ends the step with `STORE_UNAVAILABLE` (503: the provider retries).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimStore, Claims, Entry, MemoryClaims, Step, StoreTime};
    /// let store = MemoryClaims::new(10);
    /// assert_eq!(store.load("evt_1", StoreTime::at(0)).unwrap(), None);
    /// let claims = Claims::with_store(ClaimRules::new(30_000), &store);
    /// claims.step(Step::Claim, "evt_1", "req_a", 5).unwrap();
    /// assert_eq!(store.load("evt_1", StoreTime::at(6)).unwrap(), Some(Entry::held("req_a", 5)));
    /// ```
    fn load(&self, id: &str, time: StoreTime) -> Result<Option<Entry>, StoreError>;

    /// Atomically: when the entry of `id` is `expected` (`None`: no entry; an entry expired at
    /// `time.now_ms` counts as none), makes it `new` (`None`: remove it), which the store may
    /// drop on its own after `time.ttl_ms` (at `time.expires_at_ms`), and answers `true`;
    /// otherwise changes nothing and answers `false`.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimStore, Entry, MemoryClaims, StoreTime};
    /// let store = MemoryClaims::new(10);
    /// let held = Entry::held("req_a", 0);
    /// assert!(store.compare_and_set("evt_1", None, Some(&held), StoreTime::expiring(0, Some(60_000))).unwrap());
    /// // Another request saw no entry too: its write is refused, it loads again.
    /// let other = Entry::held("req_b", 1);
    /// assert!(!store.compare_and_set("evt_1", None, Some(&other), StoreTime::expiring(1, Some(60_000))).unwrap());
    /// assert!(store.compare_and_set("evt_1", Some(&held), Some(&Entry::done(9)), StoreTime::at(9)).unwrap());
    /// assert_eq!(store.load("evt_1", StoreTime::at(10)).unwrap(), Some(Entry::done(9)));
    /// ```
    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError>;
}

impl<S: ClaimStore + ?Sized> ClaimStore for &S {
    fn load(&self, id: &str, time: StoreTime) -> Result<Option<Entry>, StoreError> {
        (**self).load(id, time)
    }
    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError> {
        (**self).compare_and_set(id, expected, new, time)
    }
}

/// [`ClaimStore`] for a store reached asynchronously (an async Redis or SQL client): the same two
/// operations as futures. Core runs no executor: [`ClaimTask::run_async`](super::ClaimTask::run_async)
/// and [`Handling::run_async`](crate::handling::Handling::run_async) are futures the host awaits
/// on its own runtime (tokio, async-std, a browser's). The futures are `Send`, so a tokio handler
/// can await them.
///
/// ```
/// use std::future::Future;
/// use xborder_core::claims::{AsyncClaimStore, ClaimStore, Entry, MemoryClaims, StoreTime};
/// use xborder_core::delivery::StoreError;
/// struct Remote(MemoryClaims); // stands for an async client
/// impl AsyncClaimStore for Remote {
///     fn load(&self, id: &str, time: StoreTime) -> impl Future<Output = Result<Option<Entry>, StoreError>> + Send {
///         let answer = self.0.load(id, time);
///         async move { answer }
///     }
///     fn compare_and_set(&self, id: &str, expected: Option<&Entry>, new: Option<&Entry>, time: StoreTime)
///         -> impl Future<Output = Result<bool, StoreError>> + Send {
///         let answer = self.0.compare_and_set(id, expected, new, time);
///         async move { answer }
///     }
/// }
/// ```
pub trait AsyncClaimStore {
    /// [`ClaimStore::load`], awaited.
    ///
    /// ```
    /// # use std::future::Future;
    /// # use xborder_core::claims::{AsyncClaimStore, Entry, StoreTime};
    /// # use xborder_core::delivery::StoreError;
    /// struct Empty;
    /// impl AsyncClaimStore for Empty {
    ///     fn load(&self, _: &str, _: StoreTime) -> impl Future<Output = Result<Option<Entry>, StoreError>> + Send { async { Ok(None) } }
    ///     fn compare_and_set(&self, _: &str, _: Option<&Entry>, _: Option<&Entry>, _: StoreTime)
    ///         -> impl Future<Output = Result<bool, StoreError>> + Send { async { Ok(true) } }
    /// }
    /// ```
    fn load(
        &self,
        id: &str,
        time: StoreTime,
    ) -> impl Future<Output = Result<Option<Entry>, StoreError>> + Send;

    /// [`ClaimStore::compare_and_set`], awaited.
    ///
    /// ```
    /// # use std::future::Future;
    /// # use xborder_core::claims::{AsyncClaimStore, Entry, StoreTime};
    /// # use xborder_core::delivery::StoreError;
    /// struct Refusing;
    /// impl AsyncClaimStore for Refusing {
    ///     fn load(&self, _: &str, _: StoreTime) -> impl Future<Output = Result<Option<Entry>, StoreError>> + Send { async { Ok(None) } }
    ///     fn compare_and_set(&self, _: &str, _: Option<&Entry>, _: Option<&Entry>, _: StoreTime)
    ///         -> impl Future<Output = Result<bool, StoreError>> + Send { async { Err(StoreError::new("down")) } }
    /// }
    /// ```
    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
}
