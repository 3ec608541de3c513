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
    s.write_all(body).unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
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
