//! [`MemoryClaims`]: the built-in store, claims in process memory.

use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasherDefault;
use std::sync::{Mutex, MutexGuard};

use super::store::StoreError;
use super::{ClaimStore, Entry, StoreTime};
use crate::digest::DigestHasher;
use crate::window::{Packed, Window};

#[derive(Default)]
struct Memory {
    /// Done ids with their completion time.
    done: Window,
    /// Claims in progress, by id digest: (token, since, expires).
    held: HashMap<u128, (String, u64, u64), BuildHasherDefault<DigestHasher>>,
    /// How long done entries live (the last TTL asked for one), for the window eviction.
    done_ttl: Option<u64>,
}

/// Claims in process memory: the built-in store, for one instance (several instances share a
/// store of the host's, over [`ClaimStore`]).
///
/// `Send + Sync`: its maps are behind a [`Mutex`] held for one load or one compare-and-set (a
/// poisoned lock is taken over, never a panic).
///
/// Bounded: at most `capacity` done ids (oldest forgotten first), and done ids older than the
/// window are dropped as time passes; claims in progress at most `max(capacity, 1024)`
/// (expired ones are swept when that is reached; if none has expired, a new claim is refused
/// with `STORE_UNAVAILABLE`). A done id takes one `u128` in a ring and one in a hash set,
/// about 35 bytes when the set is full and 53 just after it grows, whatever the id's length
/// (ids are kept as an 80-bit digest: a false duplicate needs a collision, about 2⁻⁶⁰ per
/// delivery at a million ids). Each step is O(1).
///
/// ```
/// use xborder_core::claims::{ClaimRules, Claims, Outcome, Step};
/// let c = Claims::in_memory(ClaimRules::new(10), 2);
/// for id in ["a", "b", "c"] {
///     c.step(Step::Claim, id, "r", 0).unwrap();
///     c.step(Step::Complete, id, "r", 0).unwrap();
/// }
/// assert_eq!(c.store().len(), 2);
/// assert_eq!(c.step(Step::Claim, "a", "r2", 1).unwrap(), Outcome::Claimed); // forgotten
/// assert_eq!(c.step(Step::Claim, "c", "r2", 1).unwrap(), Outcome::Duplicate);
/// ```
pub struct MemoryClaims {
    inner: Mutex<Memory>,
}

impl fmt::Debug for MemoryClaims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MemoryClaims {{ capacity: {}, len: {} }}",
            self.capacity(),
            self.len()
        )
    }
}

impl MemoryClaims {
    /// A store that remembers at most `capacity` done ids.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::MemoryClaims::new(3).capacity(), 3);
    /// ```
    pub fn new(capacity: usize) -> Self {
        MemoryClaims {
            inner: Mutex::new(Memory {
                done: Window::new(capacity),
                ..Memory::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Memory> {
        // A panic while the lock is held cannot leave the maps half-written in a way that
        // breaks their invariants (each write is one insert or remove), so a poisoned lock is
        // taken over.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The most done ids it remembers.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::MemoryClaims::new(0).capacity(), 0);
    /// ```
    pub fn capacity(&self) -> usize {
        self.lock().done.capacity()
    }

    /// How many done ids it remembers now.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::MemoryClaims::new(3).len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.lock().done.len()
    }

    /// Whether it remembers nothing (no done id, no claim in progress).
    ///
    /// ```
    /// assert!(xborder_core::claims::MemoryClaims::new(3).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        let m = self.lock();
        m.done.len() == 0 && m.held.is_empty()
    }

    /// Bytes held for done ids now (ring and set), for budgets and benchmarks.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Claims, Step};
    /// let c = Claims::in_memory(ClaimRules::new(10), 1000);
    /// for i in 0..1000 {
    ///     let id = format!("evt_{i}");
    ///     c.step(Step::Claim, &id, "r", 0).unwrap();
    ///     c.step(Step::Complete, &id, "r", 0).unwrap();
    /// }
    /// assert!(c.store().approx_bytes() / 1000 <= 64);
    /// ```
    pub fn approx_bytes(&self) -> usize {
        self.lock().done.approx_bytes()
    }
}

impl Memory {
    fn entry(&self, probe: Packed) -> Option<Entry> {
        if let Some((token, since, _)) = self.held.get(&probe.key()) {
            return Some(Entry::held(token.clone(), *since));
        }
        self.done.get(probe).map(Entry::done)
    }

    fn hold(
        &mut self,
        key: u128,
        token: &str,
        since: u64,
        time: StoreTime,
    ) -> Result<(), StoreError> {
        let limit = self.done.capacity().max(1024);
        if self.held.len() >= limit && !self.held.contains_key(&key) {
            self.held
                .retain(|_, (_, _, expires)| *expires > time.now_ms);
            if self.held.len() >= limit {
                return Err(StoreError::new("too many claims in progress"));
            }
        }
        let expires = time.expires_at_ms.unwrap_or(u64::MAX);
        self.held.insert(key, (token.to_owned(), since, expires));
        Ok(())
    }
}

impl ClaimStore for MemoryClaims {
    fn load(&self, id: &str, _: StoreTime) -> Result<Option<Entry>, StoreError> {
        Ok(self.lock().entry(Packed::new(id, 0)))
    }

    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError> {
        let probe = Packed::new(id, 0);
        let mut m = self.lock();
        if m.entry(probe).as_ref() != expected {
            return Ok(false);
        }
        match new {
            Some(Entry::Held { token, since }) => {
                m.hold(probe.key(), token, *since, time)?;
                m.done.remove(probe);
                let ttl = m.done_ttl;
                m.done.evict(time.now_ms, ttl);
            }
            Some(Entry::Done { at }) => {
                m.held.remove(&probe.key());
                m.done_ttl = time.ttl_ms;
                m.done.insert(probe, *at);
                m.done.evict(time.now_ms, time.ttl_ms);
            }
            None => {
                m.held.remove(&probe.key());
                m.done.remove(probe);
            }
        }
        Ok(true)
    }
}
