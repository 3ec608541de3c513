//! Claim times from the store's clock, so instances cannot disagree.
//!
//! At start and every `--clock-sync-ms`, the receiver samples the store's clock (Redis `TIME`,
//! PostgreSQL `clock_timestamp()`) between two readings of its own (t0 before, t1 after):
//! offset = store − (t0 + t1) / 2. Every time given to core (claim, complete, release) and
//! every time persisted is this host's clock plus that offset. SQLite and memory keep offset 0
//! (one host). `--clock-skew-ms` makes this process's own clock read ahead (or behind) of the
//! real one, for tests: the offset then corrects it.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// This process's clock and its measured offset from the store's.
pub(crate) struct Clock {
    skew_ms: i64,
    offset_ms: AtomicI64,
}

fn real_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Clock {
    pub(crate) fn new(skew_ms: i64) -> Clock {
        Clock {
            skew_ms,
            offset_ms: AtomicI64::new(0),
        }
    }

    /// This host's clock (with `--clock-skew-ms`), uncorrected.
    pub(crate) fn local_ms(&self) -> i64 {
        real_ms().saturating_add(self.skew_ms)
    }

    /// The store's time now: this host's clock plus the offset.
    pub(crate) fn now_ms(&self) -> u64 {
        let t = self.local_ms().saturating_add(self.offset_ms());
        u64::try_from(t).unwrap_or(0)
    }

    pub(crate) fn offset_ms(&self) -> i64 {
        self.offset_ms.load(Ordering::Relaxed)
    }

    /// Records a sample: the store read `store_ms` between this host's `t0` and `t1`. Returns
    /// the new offset.
    pub(crate) fn sampled(&self, t0: i64, store_ms: i64, t1: i64) -> i64 {
        let mid = t0 / 2 + t1 / 2 + (t0 % 2 + t1 % 2) / 2;
        let offset = store_ms.saturating_sub(mid);
        self.offset_ms.store(offset, Ordering::Relaxed);
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_corrects_a_skewed_clock() {
        let c = Clock::new(300_000);
        let ahead = c.local_ms() - real_ms();
        assert!((299_000..=301_000).contains(&ahead), "{ahead}");
        // The store reads the real time; this host 300 s ahead.
        let t0 = c.local_ms();
        let store = real_ms();
        let t1 = c.local_ms();
        let off = c.sampled(t0, store, t1);
        assert!((-301_000..=-299_000).contains(&off), "{off}");
        let now = i64::try_from(c.now_ms()).unwrap_or(0);
        assert!((now - real_ms()).abs() < 1_000);
        assert_eq!(c.sampled(1_000, 1_600, 1_200), 500);
    }
}
