//! What the receiver's integration tests share: the receiver as a child process, a throwaway
//! redis-server, one-shot HTTP requests, the persisted ids.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use xborder_redis::testing::TestServer;
use xborder_simulator::{Config, Progress};

pub const SECRET: &str = "whsec_fleet_test";

/// A child process killed when dropped.
pub struct Proc {
    pub child: Child,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xborder-fleet-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn redis_server() -> (TestServer, String) {
    let server = TestServer::start().unwrap_or_else(|e| panic!("{e}"));
    let url = server.url();
    (server, url)
}

/// Starts `xborder-receiver` with `args`; returns it and the address it printed first.
pub fn receiver(dir: &std::path::Path, name: &str, args: &[&str]) -> (Proc, String) {
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_xborder-receiver"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--secret",
            SECRET,
            "--instance",
            name,
        ])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line.trim().to_owned();
    assert!(addr.starts_with("127.0.0.1:"), "first line: {line:?}");
    (Proc { child }, addr)
}

/// One HTTP/1.1 request, `Connection: close`: (status, headers in lower case, body).
pub fn http(
    addr: &str,
    method: &str,
    body: &[u8],
    signature: Option<&str>,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    let mut head = format!(
        "{method} /webhooks HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(sig) = signature {
        head.push_str(&format!("X-Webhook-Signature: {sig}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    // A body the server refuses unread (over the limit) may meet a connection it has closed
    // already: the answer is read all the same.
    let _ = s.write_all(body);
    // Read up to the end, or up to a reset that follows the answer.
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    let answer = String::from_utf8_lossy(&got).into_owned();
    assert!(!answer.is_empty(), "no answer");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

pub fn persisted_ids(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// The simulator's run against `urls`: `events` live events, 20 % duplicates, 5 % concurrent,
/// 2 % replays, 2 % bad signatures, 5 % unknown names, 16 in flight.
pub fn sim(urls: Vec<String>, dir: &std::path::Path, events: usize, seed: u64) -> Config {
    Config {
        urls,
        secret: SECRET.into(),
        events,
        duplicates: 0.2,
        concurrent: 0.05,
        replays: 0.02,
        bad_signatures: 0.02,
        unknown: 0.05,
        concurrency: 16,
        seed,
        // Five attempts over about 2 s: room for a loaded machine (CI runs tests in parallel).
        backoff_ms: 150,
        expect: Some(dir.join("expect.txt")),
        json: Some(dir.join("summary.json")),
        progress: Progress::Off,
        ..Config::default()
    }
}

/// A raw connection, reads bounded by `read_timeout`.
pub fn connect(addr: &str) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    s
}

/// One answer read from `s`: (status, head in lower case, body, whether the server then closed
/// the connection, within 5 s).
pub fn read_answer(s: &mut TcpStream) -> (u16, String, String, bool) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let (head, body_start, len) = loop {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "closed before answering ({} bytes read)", got.len());
        got.extend_from_slice(&buf[..n]);
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&got[..i]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| {
                    l.strip_prefix("content-length: ")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            break (head, i + 4, len);
        }
    };
    while got.len() < body_start + len {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "closed in the middle of the answer");
        got.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&got[body_start..body_start + len]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let closed = matches!(s.read(&mut buf), Ok(0) | Err(_));
    (status, head, body, closed)
}

/// A signed delivery of `id`, `Connection: close`: (status, head, body).
pub fn deliver(addr: &str, id: &str) -> (u16, String, String) {
    let (body, sig) = xborder_simulator::signed_event(SECRET, id, "order:created").unwrap();
    http(addr, "POST", &body, Some(&sig))
}

/// Sends `sig` (STOP, CONT, TERM...) to process `pid` with kill(1).
pub fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} {pid}");
}

/// The resident memory of process `pid`, in KiB (`VmRSS` in /proc/PID/status).
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// GET /stats as JSON.
pub fn stats(addr: &str) -> serde_json::Value {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap()
}

/// Waits (up to `within`) for the child to exit; its status.
pub fn wait_exit(p: &mut Proc, within: std::time::Duration) -> std::process::ExitStatus {
    let t = std::time::Instant::now();
    loop {
        if let Some(st) = p.child.try_wait().unwrap() {
            return st;
        }
        assert!(t.elapsed() < within, "still running after {within:?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
