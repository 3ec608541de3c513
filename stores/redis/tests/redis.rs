//! Against a real `redis-server` (started here on a free loopback port, stopped at the end):
//! every `delivery.claims` vector of the project and of `../shared/conformance`, and concurrent
//! claims of one id from many connections. `bash stores/redis/test.sh` installs redis-server
//! when it is missing; without it these tests fail (they never pass by skipping).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use xborder_core::claims::{ClaimRules, Outcome};
use xborder_redis::testing::TestServer;
use xborder_redis::{ConnectionManager, RedisClaims, Step};

async fn server() -> TestServer {
    TestServer::start().unwrap_or_else(|e| panic!("{e}"))
}

async fn connect(s: &TestServer) -> ConnectionManager {
    let client = redis::Client::open(s.url()).unwrap();
    ConnectionManager::new(client).await.unwrap()
}

fn vector_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs = vec![
        root.join("tests/vectors"),
        root.join("../shared/conformance"),
    ];
    if let Ok(extra) = std::env::var("XBORDER_VECTORS_DIR") {
        dirs.extend(
            extra
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        );
    }
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// How much longer than core's TTL Redis keeps an entry in the vector runs.
const VECTOR_TTL_MARGIN_MS: u64 = 600_000;

#[tokio::test]
async fn a_ttl_margin_keeps_the_entry_longer_in_redis_only() {
    let s = server().await;
    let mut conn = connect(&s).await;
    let claims = RedisClaims::new(conn.clone(), ClaimRules::new(0), "m:").with_ttl_margin(60_000);
    assert_eq!(
        claims.step("claim", "e", "r1", 0).await.unwrap().as_str(),
        "claimed"
    );
    let ttl: i64 = redis::cmd("PTTL")
        .arg("m:e")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(
        (59_000..=60_001).contains(&ttl),
        "core's 1 ms plus the margin: {ttl}"
    );
    // The zero lease's rules are unchanged: a retry takes it over, the first completion is stale.
    assert_eq!(
        claims.step("claim", "e", "r2", 0).await.unwrap().as_str(),
        "claimed"
    );
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    assert_eq!(
        claims
            .step("complete", "e", "r1", 0)
            .await
            .unwrap()
            .as_str(),
        "stale"
    );
    assert_eq!(
        claims
            .step("complete", "e", "r2", 0)
            .await
            .unwrap()
            .as_str(),
        "completed"
    );
}

#[tokio::test]
async fn delivery_claims_vectors_pass_against_redis() {
    let s = server().await;
    let conn = connect(&s).await;
    let (mut cases, mut failures) = (0, Vec::new());
    let mut folders = std::collections::HashSet::new(); // those that gave a case
    for (n, file) in vector_files().iter().enumerate() {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        for (m, case) in doc["cases"].as_array().into_iter().flatten().enumerate() {
            if case["op"] != "delivery.claims" {
                continue;
            }
            cases += 1;
            folders.insert(file.parent().unwrap().to_path_buf());
            let input = &case["input"];
            let rules = ClaimRules::new(input["leaseMs"].as_u64().unwrap());
            let rules = match input["windowMs"].as_u64() {
                Some(w) => rules.with_window(w),
                None => rules.without_window(), // FORMAT.md: no windowMs, duplicates for ever
            };
            // A fresh key space per case: the vectors reuse ids. The steps' times are the
            // vector's, not Redis's clock: a margin keeps Redis from dropping an entry (a 1 ms
            // TTL for a zero lease) while a slow machine runs the steps; core still reads an
            // entry past its TTL as none at the step's time.
            let claims = RedisClaims::new(conn.clone(), rules, format!("t:{n}:{m}:"))
                .with_ttl_margin(VECTOR_TTL_MARGIN_MS);
            let mut got = Vec::new();
            for st in input["steps"].as_array().unwrap() {
                let r = claims
                    .step(
                        st["do"].as_str().unwrap(),
                        st["id"].as_str().unwrap(),
                        st["token"].as_str().unwrap(),
                        st["at"].as_u64().unwrap(),
                    )
                    .await;
                got.push(Value::from(match r {
                    Ok(o) => o.as_str().to_owned(),
                    Err(e) => e.code().to_owned(),
                }));
            }
            if Value::from(got.clone()) != case["expect"]["results"] {
                failures.push(format!(
                    "{} :: {}: got {got:?}",
                    file.display(),
                    case["name"]
                ));
            }
        }
    }
    println!(
        "redis: {cases} delivery.claims cases, {} failed",
        failures.len()
    );
    // The project's folder, and shared/conformance when it is there, must each give cases.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for dir in [
        root.join("tests/vectors"),
        root.join("../shared/conformance"),
    ] {
        assert!(
            folders.contains(&dir) || (!dir.is_dir() && !dir.ends_with("tests/vectors")),
            "no delivery.claims case in {} ({cases} cases in all)",
            dir.display()
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_claim_wins_among_concurrent_requests_on_separate_connections() {
    let s = server().await;
    let rules = ClaimRules::new(30_000);
    for round in 0..20 {
        let mut tasks = Vec::new();
        for i in 0..16 {
            let claims = RedisClaims::new(connect(&s).await, rules, "c:");
            let id = format!("evt_{round}");
            tasks.push(tokio::spawn(async move {
                claims
                    .step(Step::Claim, &id, &format!("r{i}"), 1_000)
                    .await
                    .unwrap()
            }));
        }
        let mut outcomes = Vec::new();
        for t in tasks {
            outcomes.push(t.await.unwrap());
        }
        let claimed = outcomes.iter().filter(|o| **o == Outcome::Claimed).count();
        let in_progress = outcomes
            .iter()
            .filter(|o| **o == Outcome::InProgress)
            .count();
        assert_eq!(
            (claimed, in_progress),
            (1, 15),
            "round {round}: {outcomes:?}"
        );
    }
}

#[tokio::test]
async fn entries_live_their_ttl_at_least_a_minute_and_foreign_text_is_store_unavailable() {
    let s = server().await;
    let mut conn = connect(&s).await;
    let claims = RedisClaims::new(conn.clone(), ClaimRules::new(50).with_window(100), "e:");
    assert_eq!(
        claims.step(Step::Claim, "a", "r1", 0).await.unwrap(),
        Outcome::Claimed
    );
    let ttl: i64 = redis::cmd("PTTL")
        .arg("e:a")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(
        (59_000..=60_000).contains(&ttl),
        "a claim lives two leases in core, at least a minute in redis: {ttl}"
    );
    assert_eq!(
        claims.step(Step::Complete, "a", "r1", 1).await.unwrap(),
        Outcome::Completed
    );
    let ttl: i64 = redis::cmd("PTTL")
        .arg("e:a")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(
        (59_000..=60_000).contains(&ttl),
        "a done id lives the window in core, at least a minute in redis: {ttl}"
    );
    let _: () = redis::cmd("SET")
        .arg("e:b")
        .arg("not ours")
        .query_async(&mut conn)
        .await
        .unwrap();
    let e = claims.step(Step::Claim, "b", "r1", 0).await.unwrap_err();
    assert_eq!(e.code(), "STORE_UNAVAILABLE");
    drop(s);
    let e = claims.step(Step::Claim, "c", "r1", 0).await.unwrap_err();
    assert_eq!(e.code(), "STORE_UNAVAILABLE", "a stopped server");
}

/// A step's text is still accepted (the vectors above pass theirs); one that names no step is
/// refused before anything reaches Redis.
#[tokio::test]
async fn step_texts_are_accepted_and_a_wrong_one_sends_nothing() {
    let s = server().await;
    let mut conn = connect(&s).await;
    let claims = RedisClaims::new(conn.clone(), ClaimRules::new(1_000), "s:");
    let e = claims.step("Claim", "x", "r1", 0).await.unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("do")));
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("s:*")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(keys.is_empty(), "{keys:?}");
    assert_eq!(
        claims.step("claim", "x", "r1", 0).await.unwrap(),
        Outcome::Claimed
    );
    assert_eq!(
        claims
            .step(String::from("release"), "x", "r1", 1)
            .await
            .unwrap(),
        Outcome::Released
    );
    // The re-exported crate is the one the connections come from.
    let client = xborder_redis::redis::Client::open(s.url()).unwrap();
    let other = RedisClaims::new(
        ConnectionManager::new(client).await.unwrap(),
        ClaimRules::new(1_000),
        "s:",
    );
    assert_eq!(
        other.step(Step::Claim, "x", "r2", 2).await.unwrap(),
        Outcome::Claimed
    );
}

/// The script keeps an entry at least a minute (`MIN`): a 1 ms TTL from core (a lease of 0) is
/// still there 50 ms later, for the next step core's rules still count (CI flaked when Redis
/// dropped it between two steps of a vector); a TTL under 1 ms still removes the entry.
#[tokio::test]
async fn a_short_ttl_is_kept_a_minute_and_a_ttl_under_1_ms_removes() {
    let s = server().await;
    let mut conn = connect(&s).await;
    let script = redis::Script::new(xborder_core::claims::REDIS_COMPARE_AND_SET);
    let held = xborder_core::claims::Entry::held("r1", 0).encode();
    let applied: i64 = script
        .key("t:a")
        .arg("")
        .arg(&held)
        .arg("1")
        .invoke_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(applied, 1);
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let kept: Option<String> = redis::cmd("GET")
        .arg("t:a")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        kept.as_deref(),
        Some(held.as_str()),
        "a 1 ms TTL kept 50 ms on"
    );
    let ttl: i64 = redis::cmd("PTTL")
        .arg("t:a")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!((59_000..=60_000).contains(&ttl), "the floor: {ttl}");
    // A TTL over the floor is Redis's as given.
    let done = xborder_core::claims::Entry::done(1).encode();
    let applied: i64 = script
        .key("t:a")
        .arg(&held)
        .arg(&done)
        .arg("90000")
        .invoke_async(&mut conn)
        .await
        .unwrap();
    let ttl: i64 = redis::cmd("PTTL")
        .arg("t:a")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(applied == 1 && (89_000..=90_000).contains(&ttl), "{ttl}");
    // Under 1 ms: removed at once.
    let applied: i64 = script
        .key("t:a")
        .arg(&done)
        .arg(&held)
        .arg("0")
        .invoke_async(&mut conn)
        .await
        .unwrap();
    let gone: Option<String> = redis::cmd("GET")
        .arg("t:a")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!((applied, gone), (1, None));
    // Through the adapter: a zero lease's claim outlives real time passing between steps.
    let claims = RedisClaims::new(conn.clone(), ClaimRules::new(0), "z:");
    assert_eq!(
        claims.step(Step::Claim, "e", "r1", 0).await.unwrap(),
        Outcome::Claimed
    );
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert_eq!(
        claims.step(Step::Complete, "e", "r1", 0).await.unwrap(),
        Outcome::Completed
    );
}

/// The store gives Redis core's `time.ttl_ms` (plus the margin) for `PX`, as given: not a TTL of
/// its own from the step's time, the expiry, or the entry's text (here all three disagree with
/// it), and a load reads what Redis holds.
#[tokio::test]
async fn a_write_expires_after_the_ttl_core_gives() {
    use xborder_core::claims::{AsyncClaimStore, Entry, StoreTime, MAX_TIME_MS};
    let s = server().await;
    let mut conn = connect(&s).await;
    let pttl = |key: &'static str, mut conn: ConnectionManager| async move {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(key)
            .query_async(&mut conn)
            .await
            .unwrap();
        ttl
    };
    let claims = RedisClaims::new(conn.clone(), ClaimRules::new(1_000), "g:");
    let mut time = StoreTime::expiring(MAX_TIME_MS - 5, Some(120_000)); // an expiry past 2^48
    assert_eq!(time.expires_at_ms, Some(MAX_TIME_MS - 5 + 120_000));
    time.now_ms = 7; // a time the entry's text does not say either
    let held = Entry::held("r1", 0);
    assert!(claims
        .compare_and_set("a", None, Some(&held), time)
        .await
        .unwrap());
    let ttl = pttl("g:a", conn.clone()).await;
    assert!((119_000..=120_000).contains(&ttl), "time.ttl_ms: {ttl}");
    assert_eq!(
        claims.load("a", StoreTime::at(MAX_TIME_MS)).await.unwrap(),
        Some(held.clone())
    );
    let margin = claims.clone().with_ttl_margin(30_000);
    let done = Entry::done(1);
    assert!(margin
        .compare_and_set(
            "a",
            Some(&held),
            Some(&done),
            StoreTime::expiring(1, Some(90_000))
        )
        .await
        .unwrap());
    let ttl = pttl("g:a", conn.clone()).await;
    assert!((119_000..=120_000).contains(&ttl), "ttl_ms + margin: {ttl}");
    // No TTL: kept for ever.
    assert!(claims
        .compare_and_set("a", Some(&done), Some(&done), StoreTime::at(2))
        .await
        .unwrap());
    assert_eq!(pttl("g:a", conn.clone()).await, -1);
    let _: () = redis::cmd("DEL")
        .arg("g:a")
        .query_async(&mut conn)
        .await
        .unwrap();
}
