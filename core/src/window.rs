//! The bounded window of done ids both built-in stores keep (`delivery::MemoryWindow`,
//! `claims::MemoryClaims`): one type, so the WASM module links its hash table once.

use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use crate::digest::{digest, DigestHasher};

/// An id and a time in one `u128`: the high 80 bits of the id's SHA-256 digest and 48 bits of
/// time (milliseconds, up to the year 10889; later times are clamped). Equal and hashed by the
/// digest alone, so a set finds an id's slot by its digest.
#[derive(Clone, Copy)]
pub(crate) struct Packed(u128);

const TIME_BITS: u32 = 48;
const TIME_MASK: u128 = (1 << TIME_BITS) - 1;

impl Packed {
    pub(crate) fn new(id: &str, at: u64) -> Packed {
        Packed(digest(id) & !TIME_MASK).at_time(at)
    }
    fn at_time(self, at: u64) -> Packed {
        Packed((self.0 & !TIME_MASK) | u128::from(at).min(TIME_MASK))
    }
    pub(crate) fn key(self) -> u128 {
        self.0 >> TIME_BITS
    }
    pub(crate) fn at(self) -> u64 {
        // At most 48 bits: the conversion cannot fail.
        u64::try_from(self.0 & TIME_MASK).unwrap_or(u64::MAX)
    }
}

impl PartialEq for Packed {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Packed {}
impl Hash for Packed {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(self.key());
    }
}

/// At most `capacity` ids, each with a time, oldest forgotten first; with a TTL, also those
/// older than it. A slot is one `u128` in a ring and one in a hash set: about 35 bytes per id
/// when the set is full, 53 just after it grows. Every operation is O(1) (eviction amortised).
#[derive(Default)]
pub(crate) struct Window {
    capacity: usize,
    /// Oldest first; may hold stale slots of ids removed or re-inserted since.
    ring: VecDeque<Packed>,
    set: HashSet<Packed, BuildHasherDefault<DigestHasher>>,
}

impl Window {
    pub(crate) fn new(capacity: usize) -> Self {
        Window {
            capacity,
            ..Window::default()
        }
    }
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }
    pub(crate) fn len(&self) -> usize {
        self.set.len()
    }
    /// The time `probe`'s id was inserted with, when it is in the window.
    pub(crate) fn get(&self, probe: Packed) -> Option<u64> {
        self.set.get(&probe).map(|p| p.at())
    }
    /// Inserts (or moves to the newest end) `probe`'s id at time `at`.
    pub(crate) fn insert(&mut self, probe: Packed, at: u64) {
        if self.capacity == 0 {
            return;
        }
        let p = probe.at_time(at);
        self.set.replace(p);
        self.ring.push_back(p);
    }
    pub(crate) fn remove(&mut self, probe: Packed) {
        self.set.remove(&probe);
    }
    /// Forgets ids beyond the capacity and, with a `ttl`, those inserted at or before
    /// `now - ttl`.
    pub(crate) fn evict(&mut self, now: u64, ttl: Option<u64>) {
        while let Some(front) = self.ring.front().copied() {
            let live = self.set.get(&front).is_some_and(|p| p.0 == front.0);
            let full = self.ring.len() > self.capacity;
            let old = ttl.is_some_and(|t| front.at().saturating_add(t) <= now);
            if live && !full && !old {
                break;
            }
            self.ring.pop_front();
            // A stale slot (its id removed, or inserted again later) only leaves the ring.
            if live {
                self.set.remove(&front);
            }
        }
    }
    pub(crate) fn approx_bytes(&self) -> usize {
        let slot = std::mem::size_of::<Packed>();
        self.ring.capacity() * slot + self.set.capacity() * (slot + 1) * 8 / 7
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_clamped_not_wrapped() {
        assert_eq!(Packed::new("e", u64::MAX).at(), (1u64 << 48) - 1);
        assert_eq!(Packed::new("e", 7).at(), 7);
        assert!(Packed::new("e", 1) == Packed::new("e", 2));
    }

    #[test]
    fn stale_ring_slots_do_not_count_or_evict_newer_ones() {
        let mut w = Window::new(2);
        let (a, b, c) = (
            Packed::new("a", 0),
            Packed::new("b", 0),
            Packed::new("c", 0),
        );
        w.insert(a, 1);
        w.remove(a);
        w.insert(b, 2);
        w.insert(a, 3); // a again: its first slot is stale
        w.evict(3, None);
        assert_eq!((w.get(a), w.get(b), w.len()), (Some(3), Some(2), 2));
        w.insert(c, 4);
        w.evict(4, None); // over capacity: b, the oldest live id, goes
        assert_eq!((w.get(a), w.get(b), w.get(c)), (Some(3), None, Some(4)));
        w.evict(10, Some(6)); // a (3) and c (4) are at or before 10 - 6
        assert_eq!(w.len(), 0);
    }
}
