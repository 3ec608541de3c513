//! `xborder-receiver` against stores that hang and clocks that disagree (issue 30): with a real
//! redis-server, then a real PostgreSQL, started here: claim times come from the store's clock
//! (`--clock-skew-ms 300000` makes this instance's clock 5 minutes ahead: the persisted
//! `claimed_at_ms` is within a second of the real time, the offset is in `/stats` and the
//! warning in the log); the store stopped (SIGSTOP, every process of it) → each delivery is
//! answered 503 `STORE_UNAVAILABLE` within about `--store-timeout-ms`; resumed (SIGCONT) →
//! deliveries are processed again. With PostgreSQL, the pool closes its idle connections after
//! `--pool-idle-ms`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use xborder_sql::testing::PgServer;

mod common;
use common::*;

const STORE_MS: u64 = 1000;
const SKEW_MS: i64 = 300_000;

fn real_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Processes stopped with SIGSTOP, resumed with SIGCONT when dropped (a failed assertion
/// included), in the reverse order.
struct Stopped(Vec<u32>);

impl Stopped {
    /// Stops each of `pids` that still runs: a backend may exit between the listing and the
    /// signal (the test's own client connection, just closed, under load); one that refuses
    /// the signal while it still exists fails the test (and those stopped before it are
    /// continued, as on any failure: left stopped, the server could not be shut down).
    fn stop(pids: Vec<u32>) -> Stopped {
        let mut stopped = Stopped(Vec::new());
        for p in pids {
            let sent = std::process::Command::new("kill")
                .args(["-STOP", &p.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if sent {
                stopped.0.push(p);
            } else {
                assert!(
                    !std::path::Path::new(&format!("/proc/{p}")).exists(),
                    "kill -STOP {p}"
                );
            }
        }
        stopped
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        for &p in self.0.iter().rev() {
            let _ = std::process::Command::new("kill")
                .args(["-CONT", &p.to_string()])
                .status();
        }
    }
}

/// While the store is stopped: each of 3 deliveries is answered 503 STORE_UNAVAILABLE with
/// `Retry-After: 1`, within 3 × the store timeout. Returns the slowest answer.
fn hung_store_answers_503(addr: &str, tag: &str) -> Duration {
    let mut slowest = Duration::ZERO;
    let threads: Vec<_> = (0..3)
        .map(|i| {
            let addr = addr.to_owned();
            let id = format!("evt_{tag}_hung_{i}");
            std::thread::spawn(move || {
                let t = Instant::now();
                let answer = deliver(&addr, &id);
                (answer, t.elapsed())
            })
        })
        .collect();
    for th in threads {
        let ((status, head, body), took) = th.join().unwrap();
        assert_eq!(status, 503, "{head}\n{body}");
        assert!(body.contains("STORE_UNAVAILABLE"), "{body}");
        assert!(head.contains("retry-after: 1"), "{head}");
        assert!(
            took < Duration::from_millis(3 * STORE_MS),
            "answered after {took:?} (store timeout {STORE_MS} ms)"
        );
        slowest = slowest.max(took);
    }
    slowest
}

/// After the store resumed: a new delivery is processed (retried while the store recovers).
fn processed_again(addr: &str, id: &str) -> Duration {
    let t = Instant::now();
    loop {
        let (status, _, body) = deliver(addr, id);
        if status == 200 {
            assert_eq!(body, r#"{"result":"processed"}"#);
            return t.elapsed();
        }
        assert!(t.elapsed() < Duration::from_secs(20), "{status} {body}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The clock offset in /stats corrects the skew, the warning is logged.
fn offset_corrects_the_skew(addr: &str, log: &std::path::Path) -> i64 {
    let st = stats(addr);
    let offset = st["clock_offset_ms"].as_i64().unwrap();
    assert!(
        (offset + SKEW_MS).abs() < 1_000,
        "offset {offset} ms for a skew of {SKEW_MS} ms"
    );
    let text = std::fs::read_to_string(log).unwrap();
    let warned: i64 = text
        .lines()
        .find_map(|l| l.split_once("clock: this host is ").map(|x| x.1))
        .and_then(|rest| rest.strip_suffix(" ms off the store's clock (corrected)"))
        .unwrap_or_else(|| panic!("no clock warning in {text}"))
        .parse()
        .unwrap();
    assert!((warned + SKEW_MS).abs() < 1_000, "{text}");
    offset
}

#[test]
fn redis_clock_and_a_hung_redis() {
    let dir = scratch("hung-redis");
    let (redis, url) = redis_server();
    let p = dir.join("rx.jsonl");
    let (_rx, addr) = receiver(
        &dir,
        "rx",
        &[
            "--redis",
            &url,
            "--persist",
            p.to_str().unwrap(),
            "--store-timeout-ms",
            &STORE_MS.to_string(),
            "--clock-skew-ms",
            &SKEW_MS.to_string(),
        ],
    );
    // The clock: this host 5 minutes ahead, the claim times the store's.
    let (status, _, _) = deliver(&addr, "evt_redis_clock");
    assert_eq!(status, 200);
    let now = real_ms();
    let line: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&p).unwrap().lines().next().unwrap()).unwrap();
    let claimed = line["claimed_at_ms"].as_i64().unwrap();
    assert!(
        (now - claimed).abs() < 1_000,
        "claimed_at_ms {claimed}, the store's clock {now}"
    );
    let offset = line["clock_offset_ms"].as_i64().unwrap();
    assert!((offset + SKEW_MS).abs() < 1_000, "{line}");
    offset_corrects_the_skew(&addr, &dir.join("rx.log"));

    // Redis hung.
    let slowest = {
        let _stopped = Stopped::stop(vec![redis.pid()]);
        hung_store_answers_503(&addr, "redis")
    };
    let back = processed_again(&addr, "evt_redis_after");
    println!(
        "redis: clock offset {offset} ms for a skew of +{SKEW_MS} ms (claimed_at_ms {} ms from the \
         store's clock); hung: 3 deliveries answered 503 in at most {:.2} s (store timeout \
         {STORE_MS} ms); resumed: processed again after {:.2} s",
        now - claimed,
        slowest.as_secs_f64(),
        back.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The postmaster and every process it started (its backends): a hung server.
fn postgres_pids(server: &PgServer) -> Vec<u32> {
    let pidfile = std::fs::read_to_string(server.dir().join("data/postmaster.pid")).unwrap();
    let main: u32 = pidfile.lines().next().unwrap().trim().parse().unwrap();
    let mut pids = vec![main];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: the fields after the last ')'.
        let after = stat.rsplit_once(')').map(|x| x.1).unwrap_or_default();
        let ppid: u32 = after
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if ppid == main {
            pids.push(pid);
        }
    }
    pids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_clock_pool_and_a_hung_postgres() {
    let dir = scratch("hung-postgres");
    let server = PgServer::start().unwrap_or_else(|e| panic!("{e}"));
    let url = server.url().to_owned();
    let (_rx, addr) = receiver(
        &dir,
        "rx",
        &[
            "--postgres",
            &url,
            "--pool",
            "2",
            "--pool-idle-ms",
            "500",
            "--store-timeout-ms",
            &STORE_MS.to_string(),
            "--clock-skew-ms",
            &SKEW_MS.to_string(),
        ],
    );
    let (status, _, _) = deliver(&addr, "evt_pg_clock");
    assert_eq!(status, 200);
    let now = real_ms();
    let client = server.connect().await.unwrap();
    let claimed: i64 = client
        .query_one(
            "SELECT claimed_at_ms FROM xborder_events WHERE id = 'evt_pg_clock'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert!(
        (now - claimed).abs() < 1_000,
        "claimed_at_ms {claimed}, the store's clock {now}"
    );
    let offset = offset_corrects_the_skew(&addr, &dir.join("rx.log"));

    // The pool: its connections closed once idle for --pool-idle-ms (this test's own
    // connection aside).
    let others = "SELECT count(*) FROM pg_stat_activity \
                  WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()";
    let t = Instant::now();
    let mut open: i64 = client.query_one(others, &[]).await.unwrap().get(0);
    let busy = open;
    while open > 0 {
        assert!(t.elapsed() < Duration::from_secs(10), "{open} still open");
        tokio::time::sleep(Duration::from_millis(100)).await;
        open = client.query_one(others, &[]).await.unwrap().get(0);
    }
    let closed_after = t.elapsed();
    drop(client);

    // PostgreSQL hung: the postmaster and its backends stopped.
    let a = addr.clone();
    let pids = postgres_pids(&server);
    let slowest = tokio::task::spawn_blocking(move || {
        let _stopped = Stopped::stop(pids);
        hung_store_answers_503(&a, "pg")
    })
    .await
    .unwrap();
    let a = addr.clone();
    let back = tokio::task::spawn_blocking(move || processed_again(&a, "evt_pg_after"))
        .await
        .unwrap();
    println!(
        "postgres: clock offset {offset} ms for a skew of +{SKEW_MS} ms (claimed_at_ms {} ms from \
         the store's clock); pool: {busy} connection(s) after a delivery, 0 after {:.2} s \
         (--pool-idle-ms 500); hung: 3 deliveries answered 503 in at most {:.2} s (store \
         timeout {STORE_MS} ms); resumed: processed again after {:.2} s",
        now - claimed,
        closed_after.as_secs_f64(),
        slowest.as_secs_f64(),
        back.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 30 follow-up A: a `complete` cut by a hung Redis still sticks. The claim is made, then
/// Redis stops (SIGSTOP) while the event is persisted (`--persist-delay-ms`), so `complete`
/// times out: the delivery is answered 200 (persisted) and the completion retried in the
/// background with the same token. Redis stays stopped past the lease, then resumes (SIGCONT):
/// the retry records the id done (core's `complete` on an expired entry, contract v3), and a
/// redelivery is answered `duplicate`, not processed a second time.
#[test]
fn a_completion_cut_by_a_hung_redis_is_retried_until_it_sticks() {
    let dir = scratch("cut-complete");
    let (redis, url) = redis_server();
    let p = dir.join("rx.jsonl");
    let (_rx, addr) = receiver(
        &dir,
        "rx",
        &[
            "--redis",
            &url,
            "--persist",
            p.to_str().unwrap(),
            "--persist-delay-ms",
            "3000",
            "--store-timeout-ms",
            &STORE_MS.to_string(),
            "--lease-ms",
            "2000",
        ],
    );
    let key = "xb:claims:evt_cut";
    let mut conn = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection_with_timeout(Duration::from_secs(5))
        .unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut get =
        move || -> Option<String> { redis::cmd("GET").arg(key).query(&mut conn).unwrap() };

    let a = addr.clone();
    let first = std::thread::spawn(move || deliver(&a, "evt_cut"));
    // Claimed (held in Redis); the persist takes 3 s from there.
    let t = Instant::now();
    loop {
        if let Some(v) = get() {
            assert!(v.starts_with("h:"), "{v}");
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "never claimed");
        std::thread::sleep(Duration::from_millis(10));
    }
    let (answer, retried) = {
        let _stopped = Stopped::stop(vec![redis.pid()]);
        // Persisted, `complete` timed out: answered 200 all the same.
        let answer = first.join().unwrap();
        let retried = stats(&addr)["completions_retried"].as_u64().unwrap();
        // Stopped past the lease (2 s): the held entry expires meanwhile.
        std::thread::sleep(Duration::from_millis(3000));
        let st = stats(&addr);
        assert_eq!(st["completions_recovered"].as_u64(), Some(0), "{st}");
        assert_eq!(st["completions_retry_pending"].as_u64(), Some(1), "{st}");
        (answer, retried)
    };
    let (status, head, body) = answer;
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"result":"processed"}"#),
        "{head}"
    );
    assert_eq!(retried, 1);

    // Resumed: the retry completes the claim.
    let t = Instant::now();
    loop {
        let st = stats(&addr);
        if st["completions_recovered"].as_u64() == Some(1) {
            assert_eq!(st["completions_retry_pending"].as_u64(), Some(0), "{st}");
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "not recovered: {st}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let recovered_after = t.elapsed();
    let entry = get().unwrap_or_default();
    assert!(entry.starts_with("d:"), "the entry is {entry:?}, not done");
    let (status, _, body) = deliver(&addr, "evt_cut");
    assert_eq!((status, body.as_str()), (200, r#"{"result":"duplicate"}"#));
    assert_eq!(persisted_ids(&p), ["evt_cut"]);
    let log = std::fs::read_to_string(dir.join("rx.log")).unwrap();
    assert!(log.contains("complete evt_cut: recovered"), "{log}");
    println!(
        "cut completion: answered 200 while Redis was stopped, retried in the background; done \
         in Redis {:.2} s after SIGCONT (entry {entry}), the redelivery answered duplicate",
        recovered_after.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
