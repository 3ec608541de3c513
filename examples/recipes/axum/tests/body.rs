//! The recipe's body reader ([`read_body`], in the recipe's endpoint) against hostile bodies,
//! over real connections: a declared length over the limit is answered 413 before the body is
//! sent; a chunked body passing the limit 413 though it never ends; a body that stalls 408
//! after the body timeout; each with `Connection: close`. And four connections trickling 25,000
//! bytes one byte per write (TCP_NODELAY, 100 µs apart) grow this process's memory by at most
//! twice the body limit per connection: +0.5 MB here, where axum's `Bytes` extractor (which
//! collects the frames) took +496 MB for 4 x 50,000 bytes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use xborder_core::claims::{ClaimRules, Claims};
use xborder_core::envelope::Limits;
use xborder_recipe_axum::{router, App, Dedupe, Events};

const SECRET: &str = "whsec_recipe_body";

/// The recipe served on a runtime of its own (the test's threads are plain blocking clients).
fn serve(limit: usize, body_timeout: Duration) -> SocketAddr {
    let rules = ClaimRules::new(2_000);
    let claims = Dedupe::Memory(Claims::in_memory(rules, 1_000));
    let mut app = App::new(
        SECRET,
        Limits::new(limit, Limits::default().max_depth),
        claims,
        rules,
        Events::default(),
        "i1",
    )
    .unwrap();
    app.body_timeout = body_timeout;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, router(Arc::new(app))).await.unwrap();
        });
    });
    rx.recv().unwrap()
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s
}

/// The answer on `s`: (status, head in lower case, body), and whether the server then closed
/// the connection (within 5 s).
fn answer(s: &mut TcpStream) -> (u16, String, String, bool) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let (head, start, len) = loop {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "closed before answering");
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
    while got.len() < start + len {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0);
        got.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&got[start..start + len]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let closed = matches!(s.read(&mut buf), Ok(0) | Err(_));
    (status, head, body, closed)
}

fn code(body: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    v["error"]["code"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn too_large_declared_or_received_is_413_and_closed() {
    let addr = serve(1000, Duration::from_secs(60));
    // Declared: answered before a byte of the body is sent.
    let mut s = connect(addr);
    s.write_all(b"POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
        .unwrap();
    let (status, head, body, closed) = answer(&mut s);
    assert_eq!(
        (status, code(&body).as_str()),
        (413, "BODY_TOO_LARGE"),
        "{body}"
    );
    assert!(head.contains("connection: close"), "{head}");
    assert!(closed);
    // Chunked, never ending: answered as the bytes pass the limit.
    let mut s = connect(addr);
    s.write_all(b"POST /webhooks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    for _ in 0..11 {
        s.write_all(b"64\r\n").unwrap();
        s.write_all(&[b' '; 100]).unwrap();
        s.write_all(b"\r\n").unwrap();
    }
    let (status, head, body, closed) = answer(&mut s);
    assert_eq!(
        (status, code(&body).as_str()),
        (413, "BODY_TOO_LARGE"),
        "{body}"
    );
    assert!(head.contains("connection: close"), "{head}");
    assert!(closed);
}

#[test]
fn a_body_that_stalls_is_408_and_closed() {
    let addr = serve(1000, Duration::from_millis(600));
    let mut s = connect(addr);
    s.write_all(b"POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"id\"")
        .unwrap();
    let t = Instant::now();
    let (status, head, body, closed) = answer(&mut s);
    let took = t.elapsed();
    assert_eq!(
        (status, code(&body).as_str()),
        (408, "BODY_TIMEOUT"),
        "{body}"
    );
    assert!(head.contains("connection: close"), "{head}");
    assert!(closed);
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(8),
        "{took:?}"
    );
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn trickled_bodies_hold_what_they_received() {
    const CONNS: usize = 4;
    const BYTES: usize = 25_000;
    const LIMIT: usize = 1_048_576;
    let addr = serve(LIMIT, Duration::from_secs(120));
    // Warm up: one whole request, then the baseline.
    let mut s = connect(addr);
    s.write_all(b"POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        .unwrap();
    let _ = answer(&mut s);
    let before = rss_kib();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(rss_kib());
                std::thread::sleep(Duration::from_millis(20));
            }
            peak
        })
    };
    let t = Instant::now();
    let senders: Vec<_> = (0..CONNS)
        .map(|_| {
            std::thread::spawn(move || {
                let mut s = connect(addr);
                s.write_all(
                    format!(
                        "POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: {BYTES}\r\nX-Webhook-Signature: {}\r\n\r\n",
                        "0".repeat(64)
                    )
                    .as_bytes(),
                )
                .unwrap();
                // Paced, so that the server reads (nearly) every byte on its own, as from a
                // slow client: unpaced, loopback writes pile up and are read many at once.
                for i in 0..BYTES {
                    s.write_all(if i == 0 { b"{" } else { b" " }).unwrap();
                    std::thread::sleep(Duration::from_micros(100));
                }
                answer(&mut s).0
            })
        })
        .collect();
    for s in senders {
        // Read whole, then refused by core (the signature does not match): 400.
        assert_eq!(s.join().unwrap(), 400);
    }
    let took = t.elapsed();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let after = rss_kib();
    let bound = (2 * LIMIT * CONNS / 1024) as u64;
    println!(
        "recipe rss: {CONNS} connections x {BYTES} bytes, one byte per write, in {:.1} s: VmRSS \
         {before} KiB before, {peak} KiB at the peak (+{} KiB), {after} KiB after (+{} KiB); \
         bound +{bound} KiB",
        took.as_secs_f64(),
        peak.saturating_sub(before),
        after.saturating_sub(before)
    );
    assert!(
        peak.saturating_sub(before) <= bound,
        "peak {peak} KiB, before {before} KiB"
    );
    assert!(
        after.saturating_sub(before) <= bound,
        "after {after} KiB, before {before} KiB"
    );
}
