//! The receiver as a process, against a real `redis-server` (started here on a free loopback
//! port, as `stores/redis/tests/redis.rs` does) and the simulator (`xborder-simulator`, in
//! process): two instances sharing Redis persist every event exactly once; persist failures
//! are released and retried; each decision gets its answer; and the naive `SET NX` receiver
//! loses an event that the claims keep when an instance dies mid-persist.
//! Without redis-server the Redis tests fail (they never pass by skipping).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use xborder_simulator::check::{check, CheckConfig};
use xborder_simulator::{run, signed_event, Config, Progress};

mod common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_sharing_redis_persist_every_event_exactly_once() {
    let dir = scratch("fleet");
    let (_redis, url) = redis_server();
    let (p1, p2) = (dir.join("rx1.jsonl"), dir.join("rx2.jsonl"));
    let common = ["--redis", &url, "--lease-ms", "5000"];
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
    let cfg = sim(
        vec![
            format!("http://{a1}/webhooks"),
            format!("http://{a2}/webhooks"),
        ],
        &dir,
        1500,
        7,
    );
    let s = run(&cfg).await.unwrap();
    println!("{}", s.table());
    assert_eq!(
        (s.dead_lettered, s.bad_signatures_accepted),
        (0, 0),
        "{}",
        s.table()
    );
    assert_eq!(s.bad_signatures_refused as usize, s.bad_signatures_sent);
    assert_eq!(s.acknowledged, s.sequences);
    assert!(s.duplicates_sent >= 290 && s.concurrent_sent == 75 && s.replays_sent == 30);
    assert!(s.ok);

    let report = check(&CheckConfig {
        expect: dir.join("expect.txt"),
        persisted: vec![p1.clone(), p2.clone()],
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
    // Both instances did part of the work.
    assert!(persisted_ids(&p1).len() > 300 && persisted_ids(&p2).len() > 300);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn persist_failures_are_released_and_the_retry_persists_them() {
    let dir = scratch("release");
    let p = dir.join("rx.jsonl");
    let (_rx, a) = receiver(
        &dir,
        "rx",
        &[
            "--persist",
            p.to_str().unwrap(),
            "--fail-persist-every",
            "4",
        ],
    );
    let s = run(&sim(vec![format!("http://{a}/")], &dir, 400, 7))
        .await
        .unwrap();
    println!("{}", s.table());
    assert!(s.ok, "{}", s.table());
    assert!(
        s.answers.s5xx >= 80,
        "every 4th persist fails: {}",
        s.table()
    );
    let report = check(&CheckConfig {
        expect: dir.join("expect.txt"),
        persisted: vec![p],
        ..CheckConfig::default()
    })
    .unwrap();
    assert!(report.ok, "{}", report.table());
    assert_eq!(report.exactly_once, report.expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn each_decision_gets_its_answer() {
    let dir = scratch("answers");
    let p = dir.join("rx.jsonl");
    let (_rx, a) = receiver(
        &dir,
        "rx",
        &[
            "--persist",
            p.to_str().unwrap(),
            "--persist-delay-ms",
            "400",
            "--lease-ms",
            "2500",
        ],
    );
    let (body, sig) = signed_event(SECRET, "evt_answers_1", "order:created").unwrap();

    let (status, _, text) = http(&a, "POST", &body, Some(&"0".repeat(64)));
    assert_eq!(
        (status, text.as_str()),
        (400, r#"{"error":"SIGNATURE_MISMATCH"}"#)
    );
    let (status, _, text) = http(&a, "POST", &body, None);
    assert_eq!(
        (status, text.as_str()),
        (400, r#"{"error":"MISSING_SIGNATURE"}"#)
    );
    let bad = br#"{"id":"e","event":"order:created","entity":{"id":"o","type":"sender"}}"#;
    let bad_sig = xborder_core::signature::sign(SECRET.as_bytes(), bad).unwrap();
    let (status, _, text) = http(&a, "POST", bad, Some(&bad_sig));
    assert_eq!(
        (status, text.as_str()),
        (400, r#"{"error":"ENTITY_MISMATCH","field":"entity.type"}"#)
    );

    // Over core's 1 MiB limit: core's status for BODY_TOO_LARGE.
    let big = vec![b' '; (1 << 20) + 16];
    let (status, _, text) = http(&a, "POST", &big, Some(&sig));
    assert_eq!(
        (status, text.as_str()),
        (413, r#"{"error":"BODY_TOO_LARGE"}"#)
    );

    let (unknown, usig) = signed_event(SECRET, "evt_answers_2", "order:teleported").unwrap();
    let (status, _, text) = http(&a, "POST", &unknown, Some(&usig));
    assert_eq!((status, text.as_str()), (200, r#"{"result":"ignore"}"#));

    // The same event twice at once: one processes it, the other is told to come back.
    let (b2, s2, a2) = (body.clone(), sig.clone(), a.clone());
    let first = std::thread::spawn(move || http(&a2, "POST", &b2, Some(&s2)));
    std::thread::sleep(Duration::from_millis(100));
    let (status, head, text) = http(&a, "POST", &body, Some(&sig));
    assert_eq!(
        (status, text.as_str()),
        (503, r#"{"result":"in_progress"}"#)
    );
    assert!(head.contains("retry-after: 3"), "{head}");
    let (status, _, text) = first.join().unwrap();
    assert_eq!((status, text.as_str()), (200, r#"{"result":"processed"}"#));
    let (status, _, text) = http(&a, "POST", &body, Some(&sig));
    assert_eq!((status, text.as_str()), (200, r#"{"result":"duplicate"}"#));

    assert_eq!(persisted_ids(&p), ["evt_answers_1"]);
    let (status, _, _) = http(&a, "GET", b"", None);
    assert_eq!(status, 405);
    let mut s = TcpStream::connect(&a).unwrap();
    s.write_all(b"GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut stats = String::new();
    s.read_to_string(&mut stats).unwrap();
    assert!(
        stats.contains(r#""processed":1,"duplicate":1,"in_progress":1,"ignored":1,"rejected":4"#),
        "{stats}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn naive_set_nx_loses_an_event_the_claims_keep_when_an_instance_dies_mid_persist() {
    let dir = scratch("naive");
    let (_redis, url) = redis_server();
    let p = dir.join("all.jsonl");
    let ps = p.to_str().unwrap();

    for (mode, id) in [("naive", "evt_crash_naive"), ("claims", "evt_crash_claims")] {
        let mut args = vec![
            "--redis",
            url.as_str(),
            "--persist",
            ps,
            "--lease-ms",
            "1000",
        ];
        if mode == "naive" {
            args.push("--naive");
        }
        let (body, sig) = signed_event(SECRET, id, "order:funds_received").unwrap();
        // A slow persist, and the instance is killed (SIGKILL) in the middle of it.
        let slow = [&args[..], &["--persist-delay-ms", "3000"]].concat();
        let (mut dying, a) = receiver(&dir, &format!("{mode}-dying"), &slow);
        let (b, s, a2) = (body.clone(), sig.clone(), a.clone());
        let inflight = std::thread::spawn(move || {
            let mut st = TcpStream::connect(&a2).unwrap();
            let head = format!(
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nX-Webhook-Signature: {s}\r\n\r\n",
                b.len()
            );
            st.write_all(head.as_bytes()).unwrap();
            st.write_all(&b).unwrap();
            let mut out = String::new();
            let _ = st.read_to_string(&mut out);
            out
        });
        std::thread::sleep(Duration::from_millis(400));
        dying.child.kill().unwrap();
        dying.child.wait().unwrap();
        assert_eq!(
            inflight.join().unwrap(),
            "",
            "no answer from a killed instance"
        );

        // The provider retries on another (or the restarted) instance.
        let (_rx, a) = receiver(&dir, &format!("{mode}-next"), &args);
        let (status, head, text) = http(&a, "POST", &body, Some(&sig));
        if mode == "naive" {
            // SET NX was done before the crash: the retry is a "duplicate", acknowledged,
            // and the provider stops delivering an event nobody persisted.
            assert_eq!((status, text.as_str()), (200, r#"{"result":"duplicate"}"#));
            assert!(!persisted_ids(&p).contains(&id.to_owned()), "lost");
        } else {
            // The dead instance's claim holds until its lease ends; then the retry takes it.
            assert_eq!(
                (status, text.as_str()),
                (503, r#"{"result":"in_progress"}"#)
            );
            assert!(head.contains("retry-after: 1"), "{head}");
            std::thread::sleep(Duration::from_millis(1100));
            let (status, _, text) = http(&a, "POST", &body, Some(&sig));
            assert_eq!((status, text.as_str()), (200, r#"{"result":"processed"}"#));
            assert_eq!(
                persisted_ids(&p).iter().filter(|i| *i == id).count(),
                1,
                "kept, once"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A lease longer than the provider's retries (issue 25, item 10): the twin of a delivery whose
/// processing holds the claim meets `503 in_progress` at each of its five attempts (0.75 s with
/// the simulator's default schedule) and is dead-lettered, counted as held by a claim; an
/// instance that dies holding a claim does this to all its events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_longer_than_the_retries_makes_dead_letters_held_by_a_claim() {
    let dir = scratch("held");
    let (_rx, a) = receiver(
        &dir,
        "rx",
        &["--lease-ms", "1500", "--persist-delay-ms", "1500"],
    );
    let cfg = Config {
        urls: vec![format!("http://{a}/")],
        secret: SECRET.into(),
        events: 2,
        concurrent: 1.0,
        lease_ms: Some(1500),
        progress: Progress::Off,
        ..Config::default()
    };
    let s = run(&cfg).await.unwrap();
    println!("{}", s.table());
    assert_eq!(xborder_simulator::retry_span_ms(&cfg), (750, 1125));
    assert_eq!(
        (s.dead_lettered, s.dead_lettered_held),
        (2, 2),
        "{}",
        s.table()
    );
    assert!(s
        .dead_letter
        .iter()
        .all(|d| d.last == "HTTP 503 in_progress" && d.attempts == 5));
    assert!(
        s.table().contains("NOT longer than the lease (1500 ms)"),
        "{}",
        s.table()
    );
    assert!(!s.ok);
    let _ = std::fs::remove_dir_all(&dir);
}
