//! Completions that stick (issue 25; contract v3): on a real Redis, with a 500 ms lease and a
//! 1 s persist, a claim's entry expires (two leases) before its holder completes it. The
//! completion must still be recorded: no `stale` where nobody took over, every id done in
//! Redis, and every redelivery sent after the first answer answered as a duplicate, never
//! processed again.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{Read, Write};
use std::net::TcpStream;

use xborder_simulator::check::{check, CheckConfig};
use xborder_simulator::{run, Config, Progress};

mod common;
use common::*;

const LEASE_MS: u64 = 500;
const PERSIST_MS: u64 = 1000;

fn stats(addr: &str) -> serde_json::Value {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_after_the_claim_expired_stick_and_redeliveries_are_duplicates() {
    let dir = scratch("sticky");
    let (_redis, url) = redis_server();
    let records = dir.join("records");
    let (p1, p2) = (dir.join("rx1.jsonl"), dir.join("rx2.jsonl"));
    let common = [
        "--redis",
        url.as_str(),
        "--lease-ms",
        "500",
        "--persist-delay-ms",
        "1000",
        "--records",
        records.to_str().unwrap(),
    ];
    let (_rx1, a1) = receiver(
        &dir,
        "rx1",
        &[&common[..], &["--persist", p1.to_str().unwrap()]].concat(),
    );
    let (_rx2, a2) = receiver(
        &dir,
        "rx2",
        &[&common[..], &["--persist", p2.to_str().unwrap()]].concat(),
    );
    let cfg = Config {
        urls: vec![
            format!("http://{a1}/webhooks"),
            format!("http://{a2}/webhooks"),
        ],
        secret: SECRET.into(),
        events: 160,
        // Redeliveries after the first answer: duplicates after the ack, replays after it.
        duplicates: 0.4,
        replays: 0.2,
        unknown: 0.05,
        concurrency: 64,
        seed: 25,
        backoff_ms: 150,
        lease_ms: Some(LEASE_MS),
        expect: Some(dir.join("expect.txt")),
        progress: Progress::Off,
        ..Config::default()
    };
    let s = run(&cfg).await.unwrap();
    println!("{}", s.table());
    assert!(s.ok, "{}", s.table());
    assert_eq!(s.dead_lettered, 0);
    let r = &s.redelivered;
    assert!(r.sent >= 80, "{}", s.table());
    assert_eq!(
        (r.duplicate, r.processed, r.other),
        (r.sent, 0, 0),
        "{}",
        s.table()
    );

    // What the instances counted: each live event processed once, no completion stale.
    let (st1, st2) = (stats(&a1), stats(&a2));
    let n = |k: &str| st1[k].as_u64().unwrap() + st2[k].as_u64().unwrap();
    let live = s.live_events as u64;
    assert_eq!(
        (n("processed"), n("stale"), n("store_errors")),
        (live, 0, 0),
        "{st1} {st2}"
    );

    // Every completion recorded in Redis: each live id's entry is done (`d:<at>`).
    let expect = std::fs::read_to_string(dir.join("expect.txt")).unwrap();
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let mut done = 0;
    for id in expect.lines() {
        let entry: Option<String> = redis::cmd("GET")
            .arg(format!("xb:claims:{id}"))
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(
            entry.as_deref().is_some_and(|e| e.starts_with("d:")),
            "{id}: {entry:?}"
        );
        done += 1;
    }

    let report = check(&CheckConfig {
        expect: dir.join("expect.txt"),
        persisted: vec![p1, p2],
        records: Some(records),
        ..CheckConfig::default()
    })
    .unwrap();
    assert!(report.ok, "{}", report.table());
    assert_eq!(
        (
            report.exactly_once,
            report.processed_again,
            report.duplicated
        ),
        (report.expected, 0, 0),
        "{}",
        report.table()
    );
    println!(
        "completions that stick (lease {LEASE_MS} ms, persist {PERSIST_MS} ms, Redis): {} live \
         events processed {} times, {} completions stale, {} of {} ids done in Redis; {} \
         redeliveries after the first answer: {} answered duplicate, {} processed again; check: \
         {} of {} persisted exactly once, {} processed again",
        live,
        n("processed"),
        n("stale"),
        done,
        report.expected,
        r.sent,
        r.duplicate,
        r.processed,
        report.exactly_once,
        report.expected,
        report.processed_again,
    );
    let _ = std::fs::remove_dir_all(&dir);
}
