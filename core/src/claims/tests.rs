//! Unit tests of the claims module.

use std::collections::HashMap;
use std::sync::Mutex;

use super::store::StoreError;
use super::*;

fn run(c: &Claims<impl ClaimStore>, steps: &[(&str, &str, u64, &str)]) -> Vec<String> {
    steps
        .iter()
        .map(
            |(step, id, at, token)| match c.step(*step, id, token, *at) {
                Ok(o) => o.as_str().to_owned(),
                Err(e) => e.code().to_owned(),
            },
        )
        .collect()
}

#[test]
fn late_complete_by_the_holder_counts_when_nobody_took_over() {
    let c = Claims::in_memory(ClaimRules::new(100), 10);
    let got = run(
        &c,
        &[
            ("claim", "e", 0, "r1"),
            ("complete", "e", 150, "r1"),
            ("claim", "e", 151, "r2"),
        ],
    );
    assert_eq!(got, ["claimed", "completed", "duplicate"]);
}

/// Without a window given, a done id is a duplicate for 7 days and claimable after: no store
/// keeps it for ever (its compare-and-set carries the same TTL).
#[test]
fn the_default_window_is_seven_days() {
    let c = Claims::in_memory(ClaimRules::new(10), 10);
    let week = DEFAULT_WINDOW_MS;
    let got = run(
        &c,
        &[
            ("claim", "e", 0, "r1"),
            ("complete", "e", 5, "r1"),
            ("claim", "e", 5 + week - 1, "r2"),
            ("claim", "e", 5 + week, "r3"),
        ],
    );
    assert_eq!(got, ["claimed", "completed", "duplicate", "claimed"]);
    assert_eq!(ClaimRules::new(10).ttl_ms(&Entry::done(5)), Some(week));
}

#[test]
fn window_evicts_done_ids_and_a_reclaimed_id_survives_its_old_ring_slot() {
    let c = Claims::in_memory(ClaimRules::new(10).with_window(100), 10);
    let got = run(
        &c,
        &[
            ("claim", "e", 0, "r1"),
            ("complete", "e", 0, "r1"),
            ("claim", "e", 100, "r2"),
            ("complete", "e", 101, "r2"),
            ("claim", "f", 150, "r3"),
            ("claim", "e", 200, "r4"),
        ],
    );
    assert_eq!(
        got,
        [
            "claimed",
            "completed",
            "claimed",
            "completed",
            "claimed",
            "duplicate"
        ]
    );
    assert_eq!(c.store().len(), 1);
}

#[test]
fn capacity_zero_remembers_no_done_id_but_still_holds_claims() {
    let c = Claims::in_memory(ClaimRules::new(10), 0);
    let got = run(
        &c,
        &[
            ("claim", "e", 0, "r1"),
            ("claim", "e", 1, "r2"),
            ("complete", "e", 2, "r1"),
            ("claim", "e", 3, "r3"),
        ],
    );
    assert_eq!(got, ["claimed", "in_progress", "completed", "claimed"]);
}

#[test]
fn claims_in_progress_are_bounded_and_expired_ones_swept() {
    let c = Claims::in_memory(ClaimRules::new(10), 0);
    for i in 0..1024 {
        assert_eq!(
            c.step("claim", &format!("e{i}"), "r", 0).unwrap(),
            Outcome::Claimed
        );
    }
    let e = c.step("claim", "x", "r", 5).unwrap_err();
    assert_eq!(e.code(), "STORE_UNAVAILABLE");
    // Two leases later the old claims may be dropped: a new claim gets through.
    assert_eq!(c.step("claim", "x", "r", 20).unwrap(), Outcome::Claimed);
}

#[test]
fn replies_for_every_step_and_outcome() {
    let rules = ClaimRules::new(30_000);
    for &step in Step::ALL {
        for &outcome in Outcome::ALL {
            let got = rules
                .reply(step, outcome)
                .map(|r| (r.status, r.retry_after_s));
            let want = match (step, outcome) {
                (_, Outcome::Claimed) => None,
                (_, Outcome::InProgress) => Some((503, Some(30))),
                (_, Outcome::Duplicate | Outcome::Completed) => Some((200, None)),
                (Step::Complete, Outcome::Stale) => Some((200, None)),
                (_, Outcome::Released | Outcome::Stale) => Some((500, None)),
            };
            assert_eq!(got, want, "{step:?} {outcome:?}");
            if let Some(r) = rules.reply(step, outcome) {
                assert_eq!(r.acknowledges(), r.status == 200);
            }
        }
    }
    // Retry-After: the lease in whole seconds, rounded up, never 0.
    for (lease, secs) in [
        (0, 1),
        (1, 1),
        (1_000, 1),
        (1_001, 2),
        (u64::MAX, u64::MAX / 1_000 + 1),
    ] {
        let r = ClaimRules::new(lease)
            .reply(Step::Claim, Outcome::InProgress)
            .unwrap();
        assert_eq!(r.retry_after_s, Some(secs), "lease {lease}");
    }
    let down = ClaimError::Store(StoreError::new("down")).reply();
    assert_eq!((down.status, down.retry_after_s), (503, Some(1)));
    let bug = ClaimError::InvalidStep { field: "do" }.reply();
    assert_eq!((bug.status, bug.retry_after_s), (500, None));
}

#[test]
fn entries_round_trip_and_refuse_foreign_text() {
    for e in [
        Entry::held("a:b c", 0),
        Entry::held("t", u64::MAX),
        Entry::done(0),
        Entry::done(42),
    ] {
        assert_eq!(Entry::decode(&e.encode()).unwrap(), e);
    }
    for bad in [
        "",
        "d:",
        "d:01",
        "d:-1",
        "d:1x",
        "h:1",
        "h:x:t",
        "q:1",
        "d:99999999999999999999",
    ] {
        assert!(Entry::decode(bad).is_err(), "{bad}");
    }
}

struct Flaky(MemoryClaims);
impl ClaimStore for Flaky {
    fn load(&self, id: &str, time: StoreTime) -> Result<Option<Entry>, StoreError> {
        self.0.load(id, time)
    }
    fn compare_and_set(
        &self,
        _: &str,
        _: Option<&Entry>,
        _: Option<&Entry>,
        _: StoreTime,
    ) -> Result<bool, StoreError> {
        Ok(false) // always somebody else first
    }
}

#[test]
fn endless_conflicts_end_in_store_unavailable() {
    let c = Claims::with_store(ClaimRules::new(10), Flaky(MemoryClaims::new(1)));
    assert_eq!(
        c.step("claim", "e", "r", 0).unwrap_err().code(),
        "STORE_UNAVAILABLE"
    );
}

/// The plainest store there is: entry texts in a map, compared as text.
#[derive(Default)]
struct Texts(Mutex<HashMap<String, String>>);
impl ClaimStore for Texts {
    fn load(&self, id: &str, _: StoreTime) -> Result<Option<Entry>, StoreError> {
        let m = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
        m.get(id).map(|t| Entry::decode(t)).transpose()
    }
    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        _: StoreTime,
    ) -> Result<bool, StoreError> {
        let mut m = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
        if m.get(id).map(String::as_str) != expected.map(Entry::encode).as_deref() {
            return Ok(false);
        }
        match new {
            Some(e) => m.insert(id.to_owned(), e.encode()),
            None => m.remove(id),
        };
        Ok(true)
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// The built-in store (digests, packed times, ring, eviction by window) answers every
    /// sequence of steps as the plain map does, as long as it forgets nothing by count.
    #[test]
    fn memory_store_answers_as_a_plain_map(
        lease in 0u64..50,
        window in proptest::option::of(0u64..80),
        steps in proptest::collection::vec((0usize..4, 0usize..3, 0u64..20, 0usize..3), 1..60),
    ) {
        let mut rules = ClaimRules::new(lease);
        if let Some(w) = window {
            rules = rules.with_window(w);
        }
        let mem = Claims::in_memory(rules, 1000);
        let map = Claims::with_store(rules, Texts::default());
        let mut at = 0;
        for (step, id, dt, token) in steps {
            at += dt;
            let step = ["claim", "complete", "release", "claim"][step];
            let id = ["evt_1", "evt_2", "evt_3"][id];
            let token = ["r1", "r2", "r3"][token];
            let a = mem.step(step, id, token, at).map_err(|e| e.code());
            let b = map.step(step, id, token, at).map_err(|e| e.code());
            proptest::prop_assert_eq!(a, b, "{} {} {} at {}", step, id, token, at);
        }
    }
}
