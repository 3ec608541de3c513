//! The receiver with `--postgres` (a real PostgreSQL started here by `tests/servers/postgres.sh`)
//! and `--sqlite`: two instances sharing PostgreSQL, and one on SQLite with failing persists,
//! each under the simulator; what they wrote is read back from `xborder_events` (one row per
//! processing) and every expected event is there exactly once.
//! Without PostgreSQL's server binaries the PostgreSQL test fails (it never passes by skipping).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use xborder_simulator::check::{check, CheckConfig};
use xborder_simulator::run;
use xborder_sql::testing::PgServer;

mod common;
use common::*;

/// The rows of `xborder_events` as the JSON lines `check` reads.
fn write_lines(path: &Path, rows: Vec<(String, String, i64, i64, i64)>) -> PathBuf {
    let mut out = String::new();
    for (id, instance, claimed_at_ms, lease_ms, at_ms) in rows {
        out.push_str(
            &serde_json::json!({
                "id": id, "instance": instance, "claimed_at_ms": claimed_at_ms,
                "lease_ms": lease_ms, "at_ms": at_ms,
            })
            .to_string(),
        );
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
    path.to_owned()
}

/// Checks that every expected event has exactly one row (none lost, none twice, none
/// unexpected); the number expected.
fn exactly_once(dir: &Path, rows: Vec<(String, String, i64, i64, i64)>) -> usize {
    let lines = write_lines(&dir.join("events.jsonl"), rows);
    let report = check(&CheckConfig {
        expect: dir.join("expect.txt"),
        persisted: vec![lines],
        ..CheckConfig::default()
    })
    .unwrap();
    println!("{}", report.table());
    assert!(report.ok, "{}", report.table());
    assert_eq!(report.exactly_once, report.expected);
    assert_eq!(
        (report.missing, report.duplicated, report.unexpected),
        (0, 0, 0)
    );
    report.expected
}

const ROWS: &str = "SELECT id, instance, claimed_at_ms, lease_ms, at_ms FROM xborder_events";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_postgres_persist_every_event_exactly_once() {
    let dir = scratch("postgres");
    let server = PgServer::start().unwrap_or_else(|e| panic!("{e}"));
    let url = server.url().to_owned();
    let common = ["--postgres", &url, "--lease-ms", "5000", "--pool", "4"];
    let (_rx1, a1) = receiver(&dir, "rx1", &common);
    let (_rx2, a2) = receiver(&dir, "rx2", &common);
    let s = run(&sim(
        vec![
            format!("http://{a1}/webhooks"),
            format!("http://{a2}/webhooks"),
        ],
        &dir,
        800,
        11,
    ))
    .await
    .unwrap();
    println!("{}", s.table());
    assert!(s.ok, "{}", s.table());
    assert_eq!((s.dead_lettered, s.bad_signatures_accepted), (0, 0));
    assert!(s.duplicates_sent >= 100 && s.concurrent_sent > 0);

    let client = server.connect().await.unwrap();
    let rows: Vec<_> = client
        .query(ROWS, &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    let by_instance = |name: &str| rows.iter().filter(|r| r.1 == name).count();
    assert!(by_instance("rx1") > 100 && by_instance("rx2") > 100);
    let expected = exactly_once(&dir, rows);
    // Every processed event's claim is done in the same table space.
    let done: i64 = client
        .query_one(
            "SELECT count(*) FROM xborder_claims WHERE entry LIKE 'd:%'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(done as usize, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_rolls_back_failed_persists_and_the_retry_persists_them() {
    let dir = scratch("sqlite");
    let db = dir.join("rx.db");
    let (_rx, a) = receiver(
        &dir,
        "rx",
        &[
            "--sqlite",
            db.to_str().unwrap(),
            "--fail-persist-every",
            "5",
        ],
    );
    let s = run(&sim(vec![format!("http://{a}/")], &dir, 300, 11))
        .await
        .unwrap();
    println!("{}", s.table());
    assert!(s.ok, "{}", s.table());
    assert!(
        s.answers.s5xx >= 40,
        "every 5th persist fails: {}",
        s.table()
    );
    exactly_once(&dir, sqlite_rows(&db));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rows of `xborder_events` in the SQLite file `db`.
fn sqlite_rows(db: &Path) -> Vec<(String, String, i64, i64, i64)> {
    let conn = xborder_sql::rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare(ROWS).unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows
}

/// Two deliveries of one event at once on an SQLite instance (a provider's concurrent twin),
/// the first slow to persist (`--persist-delay-ms`): the second waits for the first's answer
/// (one handling at a time on the connection, from its claim to its answer) and finds the
/// event done, 200 `duplicate`, never 503 `in_progress`. (A twin answered `in_progress` on its
/// last retry while the other ran its transaction was dead-lettered by the fault test's
/// `sqlite-kill` run.) One row per event.
#[test]
fn on_sqlite_a_concurrent_twin_waits_for_the_handling_and_finds_the_event_done() {
    let dir = scratch("sqlite-twins");
    let db = dir.join("rx.db");
    let (_rx, a) = receiver(
        &dir,
        "rx",
        &[
            "--sqlite",
            db.to_str().unwrap(),
            "--persist-delay-ms",
            "300",
        ],
    );
    let ids: Vec<String> = (0..3).map(|i| format!("evt_twin_{i}")).collect();
    for id in &ids {
        let twins: Vec<_> = (0..2)
            .map(|_| {
                let (a, id) = (a.clone(), id.clone());
                std::thread::spawn(move || deliver(&a, &id))
            })
            .collect();
        let mut said: Vec<(u16, String)> = twins
            .into_iter()
            .map(|t| {
                let (status, _, body) = t.join().unwrap();
                (status, body)
            })
            .collect();
        said.sort();
        assert_eq!(
            said,
            [
                (200, r#"{"result":"duplicate"}"#.to_owned()),
                (200, r#"{"result":"processed"}"#.to_owned()),
            ],
            "{id}"
        );
    }
    let mut rows: Vec<String> = sqlite_rows(&db).into_iter().map(|r| r.0).collect();
    rows.sort();
    assert_eq!(rows, ids);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The wait for the SQLite connection's turn is a store call like any other, bounded by
/// `--store-timeout-ms`: while one handling holds the turn (persisting slowly), another
/// event's delivery is answered 503 `STORE_UNAVAILABLE` with `Retry-After: 1` once the bound
/// passes, having claimed nothing: its retry after the first's answer processes it.
#[test]
fn on_sqlite_the_wait_for_the_connection_is_bounded_and_claims_nothing() {
    let dir = scratch("sqlite-turn");
    let db = dir.join("rx.db");
    let (_rx, a) = receiver(
        &dir,
        "rx",
        &[
            "--sqlite",
            db.to_str().unwrap(),
            "--persist-delay-ms",
            "1500",
            "--store-timeout-ms",
            "300",
        ],
    );
    let a1 = a.clone();
    let slow = std::thread::spawn(move || deliver(&a1, "evt_turn_slow"));
    std::thread::sleep(std::time::Duration::from_millis(200));
    let started = std::time::Instant::now();
    let (status, head, body) = deliver(&a, "evt_turn_waiting");
    let waited = started.elapsed();
    assert_eq!(
        (status, body.as_str()),
        (503, r#"{"error":"STORE_UNAVAILABLE"}"#)
    );
    assert!(head.contains("retry-after: 1"), "{head}");
    assert!(
        waited >= std::time::Duration::from_millis(250)
            && waited < std::time::Duration::from_millis(1200),
        "answered after {waited:?}, the bound is 300 ms"
    );
    let (status, _, body) = slow.join().unwrap();
    assert_eq!((status, body.as_str()), (200, r#"{"result":"processed"}"#));
    // Nothing was claimed by the request that waited: its retry processes the event.
    let (status, _, body) = deliver(&a, "evt_turn_waiting");
    assert_eq!((status, body.as_str()), (200, r#"{"result":"processed"}"#));
    let mut rows: Vec<String> = sqlite_rows(&db).into_iter().map(|r| r.0).collect();
    rows.sort();
    assert_eq!(rows, ["evt_turn_slow", "evt_turn_waiting"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// In PostgreSQL the complete step runs inside the event's transaction (core's
/// `Handling::in_transaction`): an instance whose persist outlasted the lease finds, on its
/// transaction, that another instance took the id over and completed it (`stale`); core answers
/// without a commit, 503 `{"result":"stale"}` with the lease as `Retry-After`, and the receiver
/// rolls the transaction back, so only the row of the instance that took over is kept.
#[test]
fn on_postgres_a_stale_complete_inside_the_transaction_is_rolled_back() {
    let dir = scratch("postgres-stale");
    let server = PgServer::start().unwrap_or_else(|e| panic!("{e}"));
    let url = server.url().to_owned();
    let common = ["--postgres", url.as_str(), "--lease-ms", "1000"];
    let slow_args = [&common[..], &["--persist-delay-ms", "2000"]].concat();
    let (_slow, a_slow) = receiver(&dir, "slow", &slow_args);
    let (_fast, a_fast) = receiver(&dir, "fast", &common);
    let a1 = a_slow.clone();
    let slow = std::thread::spawn(move || deliver(&a1, "evt_stale_tx"));
    // After the slow instance's lease: the fast one takes the id over and persists it.
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let (status, _, body) = deliver(&a_fast, "evt_stale_tx");
    assert_eq!((status, body.as_str()), (200, r#"{"result":"processed"}"#));
    let (status, head, body) = slow.join().unwrap();
    assert_eq!((status, body.as_str()), (503, r#"{"result":"stale"}"#));
    assert!(head.contains("retry-after: 1"), "{head}");
    assert_eq!(stats(&a_slow)["stale"], 1);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let rows: Vec<(String, String)> = rt.block_on(async {
        let client = server.connect().await.unwrap();
        client
            .query("SELECT id, instance FROM xborder_events", &[])
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect()
    });
    assert_eq!(rows, [("evt_stale_tx".to_owned(), "fast".to_owned())]);
    // A redelivery is a duplicate: the id is done.
    let (status, _, body) = deliver(&a_slow, "evt_stale_tx");
    assert_eq!((status, body.as_str()), (200, r#"{"result":"duplicate"}"#));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The outage the provider's retries do not cover (issue 34): a first run is processed; during a
/// second the endpoint answers nothing (every connection closed unanswered), so every event of it
/// is dead-lettered; the receiver comes back with `--catch-up` against the simulator's `GET
/// /v1/external-events` and recovers them: every live event of both runs has one row (none lost,
/// none twice: the first run's are duplicates to the catch-up), and a second catch-up from the
/// checkpoint finds nothing new. No timing is asserted: the test waits for the receiver's own
/// count of catch-ups.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sqlite_a_catch_up_recovers_what_an_outage_dead_lettered_exactly_once() {
    let dir = scratch("catch-up");
    let db = dir.join("rx.db");
    let records = dir.join("external-events.jsonl");
    let sqlite = ["--sqlite", db.to_str().unwrap()];

    // Up: the first run, processed.
    let (rx1, a) = receiver(&dir, "rx1", &sqlite);
    let mut up = sim(vec![format!("http://{a}/")], &dir, 60, 21);
    up.run_id = Some("up".into());
    up.external_events = Some(records.clone());
    up.expect = Some(dir.join("expect-up.txt"));
    let s = run(&up).await.unwrap();
    assert!(s.ok, "{}", s.table());
    drop(rx1);

    // Down: connections accepted and closed unanswered, past the provider's five attempts.
    let down = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let down_addr = down.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in down.incoming() {
            drop(conn);
        }
    });
    let mut out = sim(vec![format!("http://{down_addr}/")], &dir, 60, 22);
    out.run_id = Some("down".into());
    out.external_events = Some(records.clone());
    out.expect = Some(dir.join("expect-down.txt"));
    (
        out.duplicates,
        out.replays,
        out.bad_signatures,
        out.backoff_ms,
    ) = (0.0, 0.0, 0.0, 5);
    let s = run(&out).await.unwrap();
    assert_eq!(s.dead_lettered_events, 60, "{}", s.table());
    let lost: usize = std::fs::read_to_string(dir.join("expect-down.txt"))
        .unwrap()
        .lines()
        .count();
    assert!(lost > 40, "live events of the outage: {lost}");

    // The provider's list, and the receiver back with the catch-up.
    let api_addr = dir.join("api.addr");
    tokio::spawn(xborder_simulator::api::serve(
        xborder_simulator::api::ApiConfig {
            events: records.clone(),
            listen: "127.0.0.1:0".parse().unwrap(),
            addr_file: Some(api_addr.clone()),
        },
    ));
    let api = loop {
        match std::fs::read_to_string(&api_addr) {
            Ok(a) if !a.is_empty() => break a,
            _ => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    };
    let checkpoint = dir.join("checkpoint");
    let catch_up = format!("http://{api}");
    let mut args = sqlite.to_vec();
    args.extend([
        "--catch-up",
        &catch_up,
        "--catch-up-every-ms",
        "100",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
    ]);
    let (_rx2, b) = receiver(&dir, "rx2", &args);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let st = loop {
        let st = stats(&b);
        if st["catch_ups"].as_u64().unwrap() >= 2 {
            break st;
        }
        assert_eq!(st["catch_ups_failed"], 0, "{st}");
        assert!(
            std::time::Instant::now() < deadline,
            "no second catch-up: {st}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(st["recovered"].as_u64(), Some(lost as u64), "{st}");
    assert_eq!(st["catch_up_unhandled"], 0, "{st}");
    let newest = std::fs::read_to_string(&records)
        .unwrap()
        .lines()
        .last()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["createdAt"].clone())
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&checkpoint).unwrap(),
        newest.as_str().unwrap()
    );

    // Each run checked on its own (`check` reads the ids of one run, the other's are "other
    // runs"): every live event of each, one row.
    let mut n = 0;
    for run in ["up", "down"] {
        std::fs::copy(
            dir.join(format!("expect-{run}.txt")),
            dir.join("expect.txt"),
        )
        .unwrap();
        n += exactly_once(&dir, sqlite_rows(&db));
    }
    assert_eq!(
        sqlite_rows(&db).len(),
        n,
        "no row beside the live events of the two runs"
    );
    println!(
        "catch-up: {lost} live events dead-lettered by the outage, {} recovered; {n} live events, each one row",
        st["recovered"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
