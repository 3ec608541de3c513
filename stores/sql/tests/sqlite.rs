//! Against SQLite files in a fresh temporary folder: every `delivery.claims` vector (through
//! `step` and through core's `ClaimStore`), one winner among claims from many connections,
//! expiry, purge, and completion inside the host's transaction.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use xborder_core::claims::{
    ClaimRules, ClaimStore, Claims, Entry, Outcome, StoreTime, MAX_TIME_MS,
};
use xborder_sql::rusqlite::{Connection, TransactionBehavior};
use xborder_sql::{SqliteClaims, SqliteStore, Step};

/// A fresh folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let dir = std::env::temp_dir().join(format!(
            "xborder-sqlite-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn db(&self) -> PathBuf {
        self.0.join("claims.db")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn rows(c: &Connection) -> Vec<(String, String, Option<i64>)> {
    let mut st = c
        .prepare("SELECT id, entry, expires_at FROM xborder_claims ORDER BY id")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn delivery_claims_vectors_pass_against_sqlite_both_ways() {
    let dir = TempDir::new("vectors");
    let cases = common::cases();
    let mut failures = Vec::new();
    for case in &cases {
        // `step` (on a connection), then core's `Claims` over the `ClaimStore` of
        // `SqliteClaims`: the same statements, given the same times; the same answers.
        let by_step = SqliteClaims::open(dir.db(), case.rules).unwrap();
        by_step
            .lock()
            .execute_batch("DELETE FROM xborder_claims")
            .unwrap();
        let by_store = Claims::with_store(
            case.rules,
            SqliteClaims::open(dir.0.join("store.db"), case.rules).unwrap(),
        );
        by_store
            .store()
            .lock()
            .execute_batch("DELETE FROM xborder_claims")
            .unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (step, id, token, at) in &case.steps {
            let text = |r: Result<Outcome, xborder_core::claims::ClaimError>| match r {
                Ok(o) => o.as_str().to_owned(),
                Err(e) => e.code().to_owned(),
            };
            a.push(text(by_step.step(step.as_str(), id, token, *at)));
            b.push(text(by_store.step(step.as_str(), id, token, *at)));
        }
        if a != case.expect || b != case.expect {
            failures.push(format!(
                "{}: step {a:?}, store {b:?}, expected {:?}",
                case.name, case.expect
            ));
        }
    }
    println!(
        "sqlite: {} delivery.claims cases (x2), {} failed",
        cases.len(),
        failures.len()
    );
    assert!(!cases.is_empty());
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn one_claim_wins_among_concurrent_connections_also_over_an_expired_row() {
    let dir = TempDir::new("race");
    let n = 8;
    let rules = ClaimRules::new(1_000);
    let stores: Vec<Arc<SqliteClaims>> = (0..n)
        .map(|_| Arc::new(SqliteClaims::open(dir.db(), rules).unwrap()))
        .collect();
    let started = Instant::now();
    for round in 0..20u64 {
        let id = format!("evt_{}", round / 2);
        let at = 10_000 * (round % 2) + 1; // odd rounds: the even round's claim has expired
        let barrier = Arc::new(Barrier::new(n));
        let threads: Vec<_> = stores
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (s, id, barrier) = (s.clone(), id.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    s.step(Step::Claim, &id, &format!("r{round}_{i}"), at)
                        .unwrap()
                })
            })
            .collect();
        let outcomes: Vec<Outcome> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let won = outcomes.iter().filter(|o| **o == Outcome::Claimed).count();
        let busy = outcomes
            .iter()
            .filter(|o| **o == Outcome::InProgress)
            .count();
        assert_eq!((won, busy), (1, n - 1), "round {round}: {outcomes:?}");
    }
    println!(
        "sqlite: 20 rounds of {n} concurrent claims in {:?}",
        started.elapsed()
    );
}

#[test]
fn rows_expire_with_the_ttl_from_the_steps_time_and_expired_rows_are_no_rows() {
    let claims = SqliteClaims::open(":memory:", ClaimRules::new(50).with_window(100)).unwrap();
    let rows = || rows(&claims.lock());
    assert_eq!(
        claims.step(Step::Claim, "a", "r1", 1_000).unwrap(),
        Outcome::Claimed
    );
    assert_eq!(
        rows(),
        [("a".into(), "h:1000:r1".into(), Some(1_100))],
        "two leases"
    );
    assert_eq!(
        claims.step(Step::Complete, "a", "r1", 1_010).unwrap(),
        Outcome::Completed
    );
    assert_eq!(
        rows(),
        [("a".into(), "d:1010".into(), Some(1_110))],
        "the window"
    );
    assert_eq!(
        claims.step(Step::Claim, "a", "r2", 1_109).unwrap(),
        Outcome::Duplicate
    );
    assert_eq!(
        claims.step(Step::Claim, "a", "r2", 1_110).unwrap(),
        Outcome::Claimed
    );
    assert_eq!(rows(), [("a".into(), "h:1110:r2".into(), Some(1_210))]);
    assert_eq!(
        claims.step(Step::Release, "a", "r2", 1_210).unwrap(),
        Outcome::Stale
    );
    assert_eq!(
        claims.step(Step::Complete, "a", "r2", 1_300).unwrap(),
        Outcome::Completed
    );
    assert_eq!(rows(), [("a".into(), "d:1300".into(), Some(1_400))]);
    let forever = SqliteClaims::open(":memory:", ClaimRules::new(50).without_window()).unwrap();
    forever.step(Step::Claim, "b", "r1", 0).unwrap();
    forever.step(Step::Complete, "b", "r1", 1).unwrap();
    forever.step(Step::Claim, "c", "r1", 0).unwrap();
    forever.step(Step::Release, "c", "r1", 1).unwrap();
    assert_eq!(
        self::rows(&forever.lock()),
        [("b".into(), "d:1".into(), None)]
    );
    assert_eq!(
        forever.step(Step::Claim, "b", "r9", u64::MAX).unwrap(),
        Outcome::Duplicate
    );
}

/// The store writes `time.expires_at_ms` and compares with `time.now_ms` as core gives them: a
/// store that computed an expiry of its own (now + ttl, or from the entry's text) or clamped a
/// time would write another number here.
#[test]
fn a_row_expires_when_core_says_and_is_compared_with_the_time_given() {
    let conn = Connection::open_in_memory().unwrap();
    SqliteClaims::migrate(&conn).unwrap();
    let store = SqliteStore::on(&conn);
    // An expiry that is not now + ttl, for an entry whose text says another time.
    let mut time = StoreTime::expiring(1_000, Some(50));
    time.expires_at_ms = Some(7_777);
    let held = Entry::held("r1", 3);
    assert!(store.compare_and_set("a", None, Some(&held), time).unwrap());
    assert_eq!(rows(&conn), [("a".into(), "h:3:r1".into(), Some(7_777))]);
    assert_eq!(
        store.load("a", StoreTime::at(7_776)).unwrap(),
        Some(held.clone())
    );
    assert_eq!(store.load("a", StoreTime::at(7_777)).unwrap(), None);
    // Expired at the time given: the row is no row to a write either.
    assert!(!store
        .compare_and_set("a", Some(&held), None, StoreTime::at(7_777))
        .unwrap());
    assert!(store
        .compare_and_set("a", Some(&held), None, StoreTime::at(7_776))
        .unwrap());
    // Near 2^48: core's expiry (clamped or not: core's rule), written as given.
    let late = StoreTime::expiring(MAX_TIME_MS - 1, Some(10));
    let late_expiry = late.expires_at_ms.map(|t| t as i64); // core clamps, or not
    assert!(late_expiry.is_some_and(|t| t >= MAX_TIME_MS as i64));
    assert!(store.compare_and_set("b", None, Some(&held), late).unwrap());
    assert_eq!(rows(&conn)[0], ("b".into(), "h:3:r1".into(), late_expiry));
    // Past BIGINT (no time core gives): refused, nothing written.
    let mut huge = StoreTime::expiring(0, Some(1));
    huge.expires_at_ms = Some(u64::MAX);
    let e = store
        .compare_and_set("c", None, Some(&held), huge)
        .unwrap_err();
    assert_eq!(e.code(), "STORE_UNAVAILABLE");
    assert_eq!(rows(&conn).len(), 1);
    // Through a step at a time past 2^48: core's clamped times, in the text and in the row.
    let claims = SqliteClaims::open(":memory:", ClaimRules::new(50)).unwrap();
    assert_eq!(
        claims.step(Step::Claim, "d", "r1", u64::MAX).unwrap(),
        Outcome::Claimed
    );
    assert_eq!(
        rows(&claims.lock()),
        [(
            "d".into(),
            format!("h:{MAX_TIME_MS}:r1"),
            StoreTime::expiring(u64::MAX, Some(100)) // two leases of 50
                .expires_at_ms
                .map(|t| t as i64)
        )]
    );
    // The `ClaimStore` of `SqliteClaims` is the same store on its own connection.
    assert_eq!(
        claims.load("d", StoreTime::at(MAX_TIME_MS - 1)).unwrap(),
        Some(Entry::held("r1", MAX_TIME_MS))
    );
}

#[test]
fn purge_deletes_the_expired_rows_only() {
    let claims = SqliteClaims::open(":memory:", ClaimRules::new(10).with_window(1_000)).unwrap();
    for (i, at) in [0u64, 500, 2_000].iter().enumerate() {
        let id = format!("done_{i}");
        claims.step(Step::Claim, &id, "r", *at).unwrap();
        claims.step(Step::Complete, &id, "r", *at).unwrap();
    }
    claims.step(Step::Claim, "held", "r", 1_480).unwrap(); // expires at 1500
    claims
        .lock()
        .execute(
            "INSERT INTO xborder_claims VALUES ('kept', 'd:0', NULL)",
            [],
        )
        .unwrap();
    assert_eq!(claims.purge(999).unwrap(), 0);
    assert_eq!(claims.purge(1_000).unwrap(), 1);
    assert_eq!(claims.purge(1_500).unwrap(), 2);
    let left: Vec<String> = rows(&claims.lock()).into_iter().map(|r| r.0).collect();
    assert_eq!(left, ["done_2", "kept"]);
    assert_eq!(claims.purge(u64::MAX).unwrap(), 1);
    assert_eq!(rows(&claims.lock()).len(), 1, "a row without expiry stays");
}

fn host(path: &Path) -> Connection {
    let c = Connection::open(path).unwrap();
    c.busy_timeout(Duration::from_secs(5)).unwrap();
    c.execute_batch("CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY)")
        .unwrap();
    c
}

fn count(c: &Connection, id: &str) -> i64 {
    c.query_row("SELECT count(*) FROM events WHERE id = ?1", [id], |r| {
        r.get(0)
    })
    .unwrap()
}

#[test]
fn complete_in_the_hosts_transaction_commits_or_rolls_back_with_it() {
    let dir = TempDir::new("tx");
    let claims = SqliteClaims::open(dir.db(), ClaimRules::new(1_000)).unwrap();
    let other = SqliteClaims::open(dir.db(), ClaimRules::new(1_000)).unwrap(); // another process
    let mut conn = host(&dir.db()); // the host's own connection

    // Rolled back after complete: no event, the claim held until its lease ends, then free.
    assert_eq!(
        claims.step(Step::Claim, "e1", "r1", 0).unwrap(),
        Outcome::Claimed
    );
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .unwrap();
    tx.execute("INSERT INTO events VALUES (?1)", ["e1"])
        .unwrap();
    assert_eq!(
        claims.complete_in(&tx, "e1", "r1", 10).unwrap(),
        Outcome::Completed
    );
    // WAL: another connection reads the committed claim without waiting for the writer.
    assert_eq!(
        other.step(Step::Claim, "e1", "r2", 20).unwrap(),
        Outcome::InProgress
    );
    tx.rollback().unwrap();
    assert_eq!(count(&conn, "e1"), 0);
    assert_eq!(
        other.step(Step::Claim, "e1", "r2", 999).unwrap(),
        Outcome::InProgress
    );
    assert_eq!(
        other.step(Step::Claim, "e1", "r2", 1_000).unwrap(),
        Outcome::Claimed
    );

    // Committed: the event once, the id a duplicate. A takeover after the lease on another
    // connection waits for the host's write lock, then sees the completion.
    assert_eq!(
        claims.step(Step::Claim, "e2", "r1", 0).unwrap(),
        Outcome::Claimed
    );
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .unwrap();
    tx.execute("INSERT INTO events VALUES (?1)", ["e2"])
        .unwrap();
    assert_eq!(
        claims.complete_in(&tx, "e2", "r1", 10).unwrap(),
        Outcome::Completed
    );
    let other = Arc::new(other);
    let late = std::thread::spawn({
        let other = other.clone();
        move || other.step(Step::Claim, "e2", "r3", 5_000).unwrap()
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !late.is_finished(),
        "the takeover waits for the host's transaction"
    );
    tx.commit().unwrap();
    // Its load ran before the commit (a claim expired at 5000): its write is refused, it loads
    // again and finds the id done.
    assert_eq!(late.join().unwrap(), Outcome::Duplicate);
    assert_eq!(count(&conn, "e2"), 1);
    assert_eq!(
        other.step(Step::Claim, "e2", "r4", 20).unwrap(),
        Outcome::Duplicate
    );

    // The same on the claims' own connection (lock), as with ":memory:".
    assert_eq!(
        claims.step(Step::Claim, "e3", "r1", 0).unwrap(),
        Outcome::Claimed
    );
    {
        let mut own = claims.lock();
        own.execute_batch("CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY)")
            .unwrap();
        let tx = own
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .unwrap();
        tx.execute("INSERT INTO events VALUES (?1)", ["e3"])
            .unwrap();
        assert_eq!(
            claims.complete_in(&tx, "e3", "r1", 5).unwrap(),
            Outcome::Completed
        );
        tx.commit().unwrap();
    }
    assert_eq!(
        other.step(Step::Claim, "e3", "r2", 6).unwrap(),
        Outcome::Duplicate
    );

    // Taken over meanwhile: complete_in says stale.
    assert_eq!(
        claims.step(Step::Claim, "e4", "r1", 0).unwrap(),
        Outcome::Claimed
    );
    assert_eq!(
        other.step(Step::Claim, "e4", "r2", 2_000).unwrap(),
        Outcome::Claimed
    );
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .unwrap();
    assert_eq!(
        claims.complete_in(&tx, "e4", "r1", 2_001).unwrap(),
        Outcome::Stale
    );
    tx.rollback().unwrap();
}

#[test]
fn a_restart_keeps_the_done_ids() {
    let dir = TempDir::new("restart");
    let rules = ClaimRules::new(1_000);
    let claims = SqliteClaims::open(dir.db(), rules).unwrap();
    claims.step(Step::Claim, "e", "r1", 0).unwrap();
    claims.step(Step::Complete, "e", "r1", 1).unwrap();
    drop(claims);
    let again = SqliteClaims::open(dir.db(), rules).unwrap();
    assert_eq!(
        again.step(Step::Claim, "e", "r2", 2).unwrap(),
        Outcome::Duplicate
    );
}

#[test]
fn foreign_rows_and_wrong_steps_are_typed_errors() {
    let claims = SqliteClaims::open(":memory:", ClaimRules::new(1_000)).unwrap();
    claims
        .lock()
        .execute(
            "INSERT INTO xborder_claims VALUES ('x', 'not ours', NULL)",
            [],
        )
        .unwrap();
    let e = claims.step(Step::Claim, "x", "r1", 0).unwrap_err();
    assert_eq!(e.code(), "STORE_UNAVAILABLE");
    let e = claims.step("Claim", "y", "r1", 0).unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("do")));
    let e = claims.step(Step::Claim, "y", "", 0).unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("token")));
    assert_eq!(rows(&claims.lock()).len(), 1, "nothing written");
    claims
        .lock()
        .execute_batch("DROP TABLE xborder_claims")
        .unwrap();
    let e = claims.step(Step::Claim, "z", "r1", 0).unwrap_err();
    assert_eq!(e.code(), "STORE_UNAVAILABLE");
    assert!(e.to_string().contains("sqlite"), "{e}");
}
