//! Against a real PostgreSQL (tests/servers/postgres.sh: initdb, a free loopback port, stopped
//! when the last test using it ends): every `delivery.claims` vector, one winner among claims
//! from many connections, expiry, purge, and completion inside the host's transaction. Without
//! PostgreSQL's server binaries these tests fail; they never pass by skipping.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use xborder_core::claims::{AsyncClaimStore, ClaimRules, Entry, Outcome, StoreTime, MAX_TIME_MS};
use xborder_sql::testing::PgServer;
use xborder_sql::tokio_postgres::Client;
use xborder_sql::{PostgresClaims, PostgresStore, Step};

/// One server for the tests that run at the same time; the last one to finish stops it.
fn server() -> Arc<PgServer> {
    static SHARED: Mutex<Weak<PgServer>> = Mutex::new(Weak::new());
    let mut shared = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = shared.upgrade() {
        return s;
    }
    let s = Arc::new(PgServer::start().unwrap_or_else(|e| panic!("PostgreSQL did not start: {e}")));
    *shared = Arc::downgrade(&s);
    s
}

async fn rows(c: &Client) -> Vec<(String, String, Option<i64>)> {
    c.query(
        "SELECT id, entry, expires_at FROM xborder_claims ORDER BY id",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .collect()
}

#[tokio::test]
async fn delivery_claims_vectors_pass_against_postgres() {
    let s = server();
    let (_, client) = s.fresh_schema().await.unwrap();
    let cases = common::cases();
    let mut failures = Vec::new();
    for case in &cases {
        client
            .batch_execute("DELETE FROM xborder_claims")
            .await
            .unwrap(); // the vectors reuse ids
        let claims = PostgresClaims::new(case.rules);
        let mut got = Vec::new();
        for (step, id, token, at) in &case.steps {
            got.push(
                match claims.step(&client, step.as_str(), id, token, *at).await {
                    Ok(o) => o.as_str().to_owned(),
                    Err(e) => e.code().to_owned(),
                },
            );
        }
        if got != case.expect {
            failures.push(format!(
                "{}: got {got:?}, expected {:?}",
                case.name, case.expect
            ));
        }
    }
    println!(
        "postgres: {} delivery.claims cases, {} failed",
        cases.len(),
        failures.len()
    );
    assert!(!cases.is_empty());
    assert!(failures.is_empty(), "{failures:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_claim_wins_among_concurrent_connections_also_over_an_expired_row() {
    let s = server();
    let (schema, _admin) = s.fresh_schema().await.unwrap();
    let mut conns = Vec::new();
    for _ in 0..12 {
        conns.push(Arc::new(s.connect_to(&schema).await.unwrap()));
    }
    let claims = PostgresClaims::new(ClaimRules::new(1_000));
    let started = Instant::now();
    for round in 0..20u64 {
        let id = format!("evt_{}", round / 2);
        // Odd rounds: the even round's claim has expired (two leases later): the winner takes
        // the expired row over (INSERT … ON CONFLICT DO UPDATE WHERE expired), once.
        let at = 10_000 * (round % 2) + 1;
        let mut tasks = Vec::new();
        for (i, conn) in conns.iter().enumerate() {
            let (conn, id) = (conn.clone(), id.clone());
            tasks.push(tokio::spawn(async move {
                claims
                    .step(&*conn, Step::Claim, &id, &format!("r{round}_{i}"), at)
                    .await
                    .unwrap()
            }));
        }
        let mut outcomes = Vec::new();
        for t in tasks {
            outcomes.push(t.await.unwrap());
        }
        let won = outcomes.iter().filter(|o| **o == Outcome::Claimed).count();
        let busy = outcomes
            .iter()
            .filter(|o| **o == Outcome::InProgress)
            .count();
        assert_eq!(
            (won, busy),
            (1, conns.len() - 1),
            "round {round}: {outcomes:?}"
        );
    }
    println!(
        "postgres: 20 rounds of {} concurrent claims in {:?}",
        conns.len(),
        started.elapsed()
    );
}

#[tokio::test]
async fn rows_expire_with_the_ttl_from_the_steps_time_and_expired_rows_are_no_rows() {
    let s = server();
    let (_, client) = s.fresh_schema().await.unwrap();
    let claims = PostgresClaims::new(ClaimRules::new(50).with_window(100));
    assert_eq!(
        claims
            .step(&client, Step::Claim, "a", "r1", 1_000)
            .await
            .unwrap(),
        Outcome::Claimed
    );
    assert_eq!(
        rows(&client).await,
        [("a".into(), "h:1000:r1".into(), Some(1_100))],
        "two leases"
    );
    assert_eq!(
        claims
            .step(&client, Step::Complete, "a", "r1", 1_010)
            .await
            .unwrap(),
        Outcome::Completed
    );
    assert_eq!(
        rows(&client).await,
        [("a".into(), "d:1010".into(), Some(1_110))],
        "the window"
    );
    assert_eq!(
        claims
            .step(&client, Step::Claim, "a", "r2", 1_109)
            .await
            .unwrap(),
        Outcome::Duplicate
    );
    // At 1110 the done row has expired: no row, so a claim takes it (the row is written over).
    assert_eq!(
        claims
            .step(&client, Step::Claim, "a", "r2", 1_110)
            .await
            .unwrap(),
        Outcome::Claimed
    );
    assert_eq!(
        rows(&client).await,
        [("a".into(), "h:1110:r2".into(), Some(1_210))]
    );
    // r2's claim expired unfinished: its release is stale, its completion sticks (contract v3).
    assert_eq!(
        claims
            .step(&client, Step::Release, "a", "r2", 1_210)
            .await
            .unwrap(),
        Outcome::Stale
    );
    assert_eq!(
        claims
            .step(&client, Step::Complete, "a", "r2", 1_300)
            .await
            .unwrap(),
        Outcome::Completed
    );
    assert_eq!(
        rows(&client).await,
        [("a".into(), "d:1300".into(), Some(1_400))]
    );
    // Without a window a done id never expires; a release removes the row.
    let forever = PostgresClaims::new(ClaimRules::new(50).without_window());
    forever
        .step(&client, Step::Claim, "b", "r1", 0)
        .await
        .unwrap();
    forever
        .step(&client, Step::Complete, "b", "r1", 1)
        .await
        .unwrap();
    forever
        .step(&client, Step::Claim, "c", "r1", 0)
        .await
        .unwrap();
    forever
        .step(&client, Step::Release, "c", "r1", 1)
        .await
        .unwrap();
    let all = rows(&client).await;
    assert_eq!(all[1], ("b".into(), "d:1".into(), None));
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(
        forever
            .step(&client, Step::Claim, "b", "r9", u64::MAX)
            .await
            .unwrap(),
        Outcome::Duplicate
    );
}

/// The store writes `time.expires_at_ms` and compares with `time.now_ms` as core gives them: a
/// store that computed an expiry of its own (now + ttl, or from the entry's text) or clamped a
/// time would write another number here. Also in a transaction, and its futures are `Send`.
#[tokio::test]
async fn a_row_expires_when_core_says_and_is_compared_with_the_time_given() {
    let s = server();
    let (_, mut client) = s.fresh_schema().await.unwrap();
    {
        let store = PostgresStore::on(&client);
        let mut time = StoreTime::expiring(1_000, Some(50));
        time.expires_at_ms = Some(7_777);
        let held = Entry::held("r1", 3);
        let write = store.compare_and_set("a", None, Some(&held), time);
        fn send<T: Send>(t: T) -> T {
            t
        }
        assert!(send(write).await.unwrap());
        assert_eq!(
            rows(&client).await,
            [("a".into(), "h:3:r1".into(), Some(7_777))]
        );
        assert_eq!(
            store.load("a", StoreTime::at(7_776)).await.unwrap(),
            Some(held.clone())
        );
        assert_eq!(store.load("a", StoreTime::at(7_777)).await.unwrap(), None);
        assert!(!store
            .compare_and_set("a", Some(&held), None, StoreTime::at(7_777))
            .await
            .unwrap());
        assert!(store
            .compare_and_set("a", Some(&held), None, StoreTime::at(7_776))
            .await
            .unwrap());
        // Near 2^48: core's expiry (clamped or not: core's rule), written as given.
        let late = StoreTime::expiring(MAX_TIME_MS - 1, Some(10));
        let late_expiry = late.expires_at_ms.map(|t| t as i64); // core clamps, or not
        assert!(late_expiry.is_some_and(|t| t >= MAX_TIME_MS as i64));
        assert!(store
            .compare_and_set("b", None, Some(&held), late)
            .await
            .unwrap());
        assert_eq!(
            rows(&client).await,
            [("b".into(), "h:3:r1".into(), late_expiry)]
        );
        let mut huge = StoreTime::expiring(0, Some(1));
        huge.expires_at_ms = Some(u64::MAX);
        let e = store
            .compare_and_set("c", None, Some(&held), huge)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "STORE_UNAVAILABLE");
        assert_eq!(rows(&client).await.len(), 1, "nothing written");
    }
    // Through a step at a time past 2^48: core's clamped times, in the text and in the row.
    let claims = PostgresClaims::new(ClaimRules::new(50));
    assert_eq!(
        claims
            .step(&client, Step::Claim, "d", "r1", u64::MAX)
            .await
            .unwrap(),
        Outcome::Claimed
    );
    assert_eq!(
        rows(&client).await[1],
        (
            "d".into(),
            format!("h:{MAX_TIME_MS}:r1"),
            StoreTime::expiring(u64::MAX, Some(100)) // two leases of 50
                .expires_at_ms
                .map(|t| t as i64)
        )
    );
    // In a transaction: rolled back with it.
    let tx = client.transaction().await.unwrap();
    let in_tx = PostgresStore::on(&tx);
    assert!(in_tx
        .compare_and_set("e", None, Some(&Entry::done(1)), StoreTime::at(1))
        .await
        .unwrap());
    assert_eq!(
        in_tx.load("e", StoreTime::at(MAX_TIME_MS)).await.unwrap(),
        Some(Entry::done(1)),
        "no expiry: never expires"
    );
    tx.rollback().await.unwrap();
    assert_eq!(rows(&client).await.len(), 2);
}

#[tokio::test]
async fn purge_deletes_the_expired_rows_only() {
    let s = server();
    let (_, client) = s.fresh_schema().await.unwrap();
    let claims = PostgresClaims::new(ClaimRules::new(10).with_window(1_000));
    for (i, at) in [0u64, 500, 2_000].iter().enumerate() {
        let id = format!("done_{i}");
        claims
            .step(&client, Step::Claim, &id, "r", *at)
            .await
            .unwrap();
        claims
            .step(&client, Step::Complete, &id, "r", *at)
            .await
            .unwrap(); // expires at + 1000
    }
    claims
        .step(&client, Step::Claim, "held", "r", 1_480)
        .await
        .unwrap(); // expires at 1500
    PostgresClaims::new(ClaimRules::new(10).without_window())
        .step(&client, Step::Complete, "kept", "r", 0)
        .await
        .unwrap(); // never expires
    assert_eq!(PostgresClaims::purge(&client, 999).await.unwrap(), 0);
    assert_eq!(PostgresClaims::purge(&client, 1_000).await.unwrap(), 1);
    assert_eq!(PostgresClaims::purge(&client, 1_500).await.unwrap(), 2);
    let left: Vec<String> = rows(&client).await.into_iter().map(|r| r.0).collect();
    assert_eq!(left, ["done_2", "kept"]);
    assert_eq!(PostgresClaims::purge(&client, u64::MAX).await.unwrap(), 1);
    assert_eq!(rows(&client).await.len(), 1, "a row without expiry stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_in_the_hosts_transaction_commits_or_rolls_back_with_it() {
    let s = server();
    let (schema, mut host) = s.fresh_schema().await.unwrap();
    let other = s.connect_to(&schema).await.unwrap(); // another instance
    host.batch_execute("CREATE TABLE events (id text PRIMARY KEY)")
        .await
        .unwrap();
    let claims = PostgresClaims::new(ClaimRules::new(1_000));

    // Rolled back after complete: no event, and the claim is as it was: held until the lease
    // ends (in_progress), then claimable again.
    assert_eq!(
        claims
            .step(&host, Step::Claim, "e1", "r1", 0)
            .await
            .unwrap(),
        Outcome::Claimed
    );
    let tx = host.transaction().await.unwrap();
    tx.execute("INSERT INTO events VALUES ($1)", &[&"e1"])
        .await
        .unwrap();
    assert_eq!(
        claims.complete_in(&tx, "e1", "r1", 10).await.unwrap(),
        Outcome::Completed
    );
    // Not committed yet: the other instance still sees the claim, without waiting.
    assert_eq!(
        claims
            .step(&other, Step::Claim, "e1", "r2", 20)
            .await
            .unwrap(),
        Outcome::InProgress
    );
    tx.rollback().await.unwrap();
    assert_eq!(count(&other, "e1").await, 0);
    assert_eq!(
        claims
            .step(&other, Step::Claim, "e1", "r2", 999)
            .await
            .unwrap(),
        Outcome::InProgress
    );
    assert_eq!(
        claims
            .step(&other, Step::Claim, "e1", "r2", 1_000)
            .await
            .unwrap(),
        Outcome::Claimed
    );

    // Committed: the event is there once and the id is a duplicate.
    assert_eq!(
        claims
            .step(&host, Step::Claim, "e2", "r1", 0)
            .await
            .unwrap(),
        Outcome::Claimed
    );
    let tx = host.transaction().await.unwrap();
    tx.execute("INSERT INTO events VALUES ($1)", &[&"e2"])
        .await
        .unwrap();
    assert_eq!(
        claims.complete_in(&tx, "e2", "r1", 10).await.unwrap(),
        Outcome::Completed
    );
    // A takeover after the lease waits on the row's lock for the transaction, then sees the
    // completion: a duplicate.
    let late = tokio::spawn({
        let other = s.connect_to(&schema).await.unwrap();
        async move {
            claims
                .step(&other, Step::Claim, "e2", "r3", 5_000)
                .await
                .unwrap()
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !late.is_finished(),
        "the takeover waits for the host's transaction"
    );
    tx.commit().await.unwrap();
    assert_eq!(late.await.unwrap(), Outcome::Duplicate);
    assert_eq!(count(&other, "e2").await, 1);
    assert_eq!(
        claims
            .step(&other, Step::Claim, "e2", "r4", 20)
            .await
            .unwrap(),
        Outcome::Duplicate
    );

    // A transaction whose claim was taken over meanwhile: complete_in says stale.
    assert_eq!(
        claims
            .step(&host, Step::Claim, "e3", "r1", 0)
            .await
            .unwrap(),
        Outcome::Claimed
    );
    assert_eq!(
        claims
            .step(&other, Step::Claim, "e3", "r2", 2_000)
            .await
            .unwrap(),
        Outcome::Claimed
    );
    let tx = host.transaction().await.unwrap();
    assert_eq!(
        claims.complete_in(&tx, "e3", "r1", 2_001).await.unwrap(),
        Outcome::Stale
    );
    tx.rollback().await.unwrap();
}

async fn count(c: &Client, id: &str) -> i64 {
    c.query_one("SELECT count(*) FROM events WHERE id = $1", &[&id])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn foreign_rows_wrong_steps_and_a_dead_connection_are_typed_errors() {
    let s = server();
    let (schema, client) = s.fresh_schema().await.unwrap();
    let claims = PostgresClaims::new(ClaimRules::new(1_000));
    client
        .batch_execute("INSERT INTO xborder_claims VALUES ('x', 'not ours', NULL)")
        .await
        .unwrap();
    let e = claims
        .step(&client, Step::Claim, "x", "r1", 0)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "STORE_UNAVAILABLE");
    let e = claims
        .step(&client, "Claim", "y", "r1", 0)
        .await
        .unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("do")));
    let e = claims
        .step(&client, Step::Claim, "", "r1", 0)
        .await
        .unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("id")));
    assert_eq!(rows(&client).await.len(), 1, "nothing written");
    let doomed = s.connect_to(&schema).await.unwrap();
    let _ = doomed
        .batch_execute("SELECT pg_terminate_backend(pg_backend_pid())")
        .await;
    let e = claims
        .step(&doomed, Step::Claim, "z", "r1", 0)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "STORE_UNAVAILABLE");
    assert!(e.to_string().contains("postgres"), "{e}");
}

#[test]
fn the_migration_holds_the_purge_statement() {
    let purge = xborder_sql::postgres::PURGE;
    assert!(
        xborder_sql::postgres::MIGRATION.contains(&format!("{purge};")),
        "{purge}"
    );
    let purge = xborder_sql::sqlite::PURGE;
    assert!(
        xborder_sql::sqlite::MIGRATION.contains(&format!("{purge};")),
        "{purge}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn instances_that_start_together_migrate_one_after_the_other() {
    let s = server();
    for round in 0..5 {
        // A schema of its own with no table yet: eight connections migrate it at once.
        let admin = s.connect().await.unwrap();
        let schema = format!("m{round}_{}", std::process::id());
        admin
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .await
            .unwrap();
        let mut runs = tokio::task::JoinSet::new();
        for _ in 0..8 {
            let c = s.connect_to(&schema).await.unwrap();
            runs.spawn(async move { PostgresClaims::migrate(&c).await.map_err(|e| e.to_string()) });
        }
        let mut failed = Vec::new();
        while let Some(r) = runs.join_next().await {
            if let Err(e) = r.unwrap() {
                failed.push(e);
            }
        }
        assert!(failed.is_empty(), "round {round}: {failed:?}");
        let c = s.connect_to(&schema).await.unwrap();
        assert!(rows(&c).await.is_empty());
    }
}
