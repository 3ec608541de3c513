//! `slow-body`: a slow-body attacker, for the fault test and for trying a receiver by hand.
//!
//! Each connection sends a well-formed `POST` head (`Host`, `Content-Type`, a well-formed
//! `X-Webhook-Signature`, `Content-Length: B`), then trickles the body: one byte per write, with
//! `TCP_NODELAY`, so one byte per TCP segment, every `interval` ms. It reads at the same time and
//! records how the connection ended: an answer (its status: `408` for a body deadline, `413`
//! for a body over the limit, `503` for a connection over the cap, ...), closed or reset without
//! an answer, refused, or still open when the attack ends. With `reconnect` a connection that
//! ended is opened again (after one interval), so the attack holds its count of connections for
//! its whole duration.
//!
//! The body is spaces and the signature matches nothing: a receiver that got a whole one would
//! refuse it, so an attack never persists an event. Bounded: loopback targets only, at most
//! [`MAX_CONNECTIONS`] per target and [`MAX_TOTAL`] in all, at most [`MAX_FOR_MS`].

use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::args::{number, options, value};

/// Connections per target, at most.
pub const MAX_CONNECTIONS: usize = 2_000;
/// Connections over all targets, at most.
pub const MAX_TOTAL: usize = 8_000;
/// The longest attack, in ms (10 minutes).
pub const MAX_FOR_MS: u64 = 600_000;

/// Usage of `slow-body`.
pub const USAGE: &str = "\
xborder-simulator slow-body: trickled request bodies against a receiver (loopback only)

usage:
  xborder-simulator slow-body --target HOST:PORT [--target HOST:PORT ...] [options]

options:
  --target HOST:PORT    a loopback address (127.0.0.1, ::1, localhost); repeat for several
  --connections N       connections per target (default 100, at most 2000; 8000 in all)
  --bytes B             the Content-Length each declares (default 60000)
  --interval-ms I       one byte written every I ms on each connection (default 100)
  --for-ms T            the attack's length; connections still open then are closed
                        (default 15000, at most 600000)
  --reconnect           open a connection again when one ends, until --for-ms
  --path PATH           the request path (default /webhooks)
  --json PATH           write the report as JSON
  --quiet               no progress line

Each connection ends one way: an answer (its status), closed (closed or reset without an
answer), refused (no connection), or open at the end. The body is spaces and its signature
matches nothing: nothing an attack sends can be persisted.
";

/// What to attack, and how.
#[derive(Debug, Clone)]
pub struct SlowConfig {
    /// Loopback addresses.
    pub targets: Vec<SocketAddr>,
    /// Connections per target.
    pub connections: usize,
    /// The declared `Content-Length`.
    pub bytes: u64,
    /// Between two bytes of a connection.
    pub interval_ms: u64,
    /// The attack's length.
    pub for_ms: u64,
    /// Open a connection again when one ends.
    pub reconnect: bool,
    /// The request path.
    pub path: String,
    /// Where to write the report as JSON.
    pub json: Option<PathBuf>,
    /// A progress line every 2 s on stderr.
    pub progress: bool,
}

impl Default for SlowConfig {
    fn default() -> Self {
        SlowConfig {
            targets: Vec::new(),
            connections: 100,
            bytes: 60_000,
            interval_ms: 100,
            for_ms: 15_000,
            reconnect: false,
            path: "/webhooks".to_owned(),
            json: None,
            progress: true,
        }
    }
}

/// A loopback `HOST:PORT` (`localhost` resolves to loopback addresses only, or is refused).
pub fn parse_target(s: &str) -> Result<SocketAddr, String> {
    let addrs: Vec<SocketAddr> = s
        .to_socket_addrs()
        .map_err(|e| format!("--target {s}: {e} (give HOST:PORT)"))?
        .collect();
    let first = addrs
        .first()
        .copied()
        .ok_or_else(|| format!("--target {s}: no address"))?;
    if addrs.iter().any(|a| !a.ip().is_loopback()) {
        return Err(format!(
            "--target {s}: not a loopback address (slow-body attacks only this machine)"
        ));
    }
    Ok(first)
}

/// Parses the `slow-body` options (the subcommand name already removed).
pub fn parse(args: &[String]) -> Result<SlowConfig, String> {
    let mut cfg = SlowConfig::default();
    for (k, v) in options(args)? {
        match k.as_str() {
            "target" => {
                for t in value(&k, v)?.split(',').filter(|s| !s.is_empty()) {
                    cfg.targets.push(parse_target(t)?);
                }
            }
            "connections" => cfg.connections = number(&k, v)?,
            "bytes" => cfg.bytes = number(&k, v)?,
            "interval-ms" => cfg.interval_ms = number(&k, v)?,
            "for-ms" => cfg.for_ms = number(&k, v)?,
            "reconnect" => cfg.reconnect = true,
            "path" => cfg.path = value(&k, v)?,
            "json" => cfg.json = Some(PathBuf::from(value(&k, v)?)),
            "quiet" => cfg.progress = false,
            _ => return Err(format!("unknown option --{k}")),
        }
    }
    validate(&cfg)?;
    Ok(cfg)
}

/// Checks the bounds.
pub fn validate(cfg: &SlowConfig) -> Result<(), String> {
    if cfg.targets.is_empty() {
        return Err("give at least one --target HOST:PORT".into());
    }
    if cfg.targets.iter().any(|a| !a.ip().is_loopback()) {
        return Err("--target: loopback addresses only".into());
    }
    if !(1..=MAX_CONNECTIONS).contains(&cfg.connections) {
        return Err(format!("--connections is 1 to {MAX_CONNECTIONS}"));
    }
    if cfg.connections.saturating_mul(cfg.targets.len()) > MAX_TOTAL {
        return Err(format!("at most {MAX_TOTAL} connections in all"));
    }
    if cfg.bytes == 0 {
        return Err("--bytes must be at least 1".into());
    }
    if !(1..=60_000).contains(&cfg.interval_ms) {
        return Err("--interval-ms is 1 to 60000".into());
    }
    if !(1..=MAX_FOR_MS).contains(&cfg.for_ms) {
        return Err(format!("--for-ms is 1 to {MAX_FOR_MS}"));
    }
    if !cfg.path.starts_with('/') || cfg.path.bytes().any(|b| b.is_ascii_whitespace()) {
        return Err("--path starts with / and has no spaces".into());
    }
    Ok(())
}

/// How one connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// An answer came, with this status.
    Answered(u16),
    /// Closed or reset without an answer.
    Closed,
    /// No connection.
    Refused,
    /// Still open when the attack ended.
    OpenAtEnd,
}

impl Ending {
    /// The name the report counts it under.
    pub fn name(&self) -> String {
        match self {
            Ending::Answered(s) => s.to_string(),
            Ending::Closed => "closed".to_owned(),
            Ending::Refused => "refused".to_owned(),
            Ending::OpenAtEnd => "open at end".to_owned(),
        }
    }
}

/// The endings of one kind.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EndingStats {
    /// Connections that ended so.
    pub count: u64,
    /// Body bytes they had sent.
    pub bytes_sent: u64,
    /// Median time from the connection to its end.
    pub ms_p50: u64,
    /// Longest.
    pub ms_max: u64,
}

/// What an attack did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SlowReport {
    /// The targets.
    pub targets: Vec<String>,
    /// Connections per target.
    pub connections_per_target: usize,
    /// The declared `Content-Length`.
    pub bytes: u64,
    /// Between two bytes.
    pub interval_ms: u64,
    /// The attack's length.
    pub for_ms: u64,
    /// Whether ended connections were opened again.
    pub reconnect: bool,
    /// Connections attempted (refused ones included).
    pub opened: u64,
    /// Most connections open at once.
    pub open_max: usize,
    /// Body bytes sent in all.
    pub bytes_sent: u64,
    /// By ending (`"408"`, `"413"`, `"503"`, another status, `"closed"`, `"refused"`,
    /// `"open at end"`), over every target.
    pub endings: BTreeMap<String, EndingStats>,
    /// Per target: ending -> count.
    pub per_target: BTreeMap<String, BTreeMap<String, u64>>,
    /// Wall time.
    pub elapsed_s: f64,
}

impl SlowReport {
    /// The count of one ending (0 when none ended so).
    pub fn count(&self, ending: &str) -> u64 {
        self.endings.get(ending).map_or(0, |e| e.count)
    }

    /// The report as a table, for people.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let mut row = |k: &str, v: String| out.push_str(&format!("{k:<16} {v}\n"));
        row("targets", self.targets.join(", "));
        row(
            "attack",
            format!(
                "{} connections per target, Content-Length {}, one byte every {} ms, for {} ms{}",
                self.connections_per_target,
                self.bytes,
                self.interval_ms,
                self.for_ms,
                if self.reconnect { ", reconnecting" } else { "" }
            ),
        );
        row(
            "connections",
            format!(
                "{} opened, at most {} open at once, {} body bytes sent",
                self.opened, self.open_max, self.bytes_sent
            ),
        );
        for (k, e) in &self.endings {
            let label = match k.parse::<u16>() {
                Ok(_) => format!("answered {k}"),
                Err(_) => k.clone(),
            };
            row(
                &format!("  {label}"),
                format!(
                    "{} (body bytes sent {}, ended after {} ms median, {} ms at most)",
                    e.count, e.bytes_sent, e.ms_p50, e.ms_max
                ),
            );
        }
        for (t, m) in &self.per_target {
            let v: Vec<String> = m.iter().map(|(k, n)| format!("{k} {n}")).collect();
            row(&format!("  {t}"), v.join(", "));
        }
        row("elapsed", format!("{:.2} s", self.elapsed_s));
        out
    }
}

/// The status of an HTTP/1.x answer once its status line has arrived.
pub fn status_of(got: &[u8]) -> Option<u16> {
    let rest = got.strip_prefix(b"HTTP/1.")?;
    let code = rest.get(2..5)?;
    if rest.get(1) != Some(&b' ') || !code.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(code).ok()?.parse().ok()
}

/// The request head every connection sends.
pub fn head(cfg: &SlowConfig, target: SocketAddr) -> Vec<u8> {
    format!(
        "POST {} HTTP/1.1\r\nHost: {target}\r\nContent-Type: application/json\r\n\
         {}: {}\r\nContent-Length: {}\r\n\r\n",
        cfg.path,
        xborder_core::signature::SIGNATURE_HEADER,
        "0".repeat(64),
        cfg.bytes
    )
    .into_bytes()
}

struct Attack {
    cfg: SlowConfig,
    deadline: Instant,
    open: AtomicUsize,
    open_max: AtomicUsize,
    opened: AtomicUsize,
    /// (target, ending, body bytes sent, ms from connect to end).
    ended: Mutex<Vec<(usize, Ending, u64, u64)>>,
}

impl Attack {
    fn record(&self, target: usize, ending: Ending, sent: u64, ms: u64) {
        if let Ok(mut e) = self.ended.lock() {
            e.push((target, ending, sent, ms));
        }
    }

    /// One connection, to its end.
    async fn connection(&self, addr: SocketAddr, head: &[u8]) -> (Ending, u64, u64) {
        let t0 = Instant::now();
        let ms = move || u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.opened.fetch_add(1, Ordering::Relaxed);
        let stream = match tokio::time::timeout_at(self.deadline, TcpStream::connect(addr)).await {
            Ok(Ok(s)) => s,
            Ok(Err(_)) => return (Ending::Refused, 0, ms()),
            Err(_) => return (Ending::OpenAtEnd, 0, ms()),
        };
        let _ = stream.set_nodelay(true);
        let now = self.open.fetch_add(1, Ordering::Relaxed) + 1;
        self.open_max.fetch_max(now, Ordering::Relaxed);
        let (ending, sent) = self.trickle(stream, head).await;
        self.open.fetch_sub(1, Ordering::Relaxed);
        (ending, sent, ms())
    }

    async fn trickle(&self, stream: TcpStream, head: &[u8]) -> (Ending, u64) {
        let (mut rd, mut wr) = stream.into_split();
        let mut got: Vec<u8> = Vec::new();
        let mut buf = [0u8; 1024];
        if wr.write_all(head).await.is_err() {
            return (read_answer(&mut rd, &mut got).await, 0);
        }
        let every = Duration::from_millis(self.cfg.interval_ms);
        let mut tick = tokio::time::interval_at(Instant::now() + every, every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut sent = 0u64;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(self.deadline) => return (Ending::OpenAtEnd, sent),
                r = rd.read(&mut buf) => match r {
                    Ok(0) | Err(_) => {
                        return (status_of(&got).map_or(Ending::Closed, Ending::Answered), sent)
                    }
                    Ok(n) => {
                        got.extend_from_slice(buf.get(..n).unwrap_or(&[]));
                        if let Some(s) = status_of(&got) {
                            return (Ending::Answered(s), sent);
                        }
                        if got.len() > 64 {
                            return (Ending::Closed, sent); // not HTTP
                        }
                    }
                },
                _ = tick.tick(), if sent < self.cfg.bytes => {
                    if wr.write_all(b" ").await.is_err() {
                        return (read_answer(&mut rd, &mut got).await, sent);
                    }
                    sent += 1;
                }
            }
        }
    }

    /// One slot: a connection to `target`, opened again when it ends (with `reconnect`) until
    /// the deadline.
    async fn slot(self: Arc<Self>, target: usize, addr: SocketAddr, head: Arc<Vec<u8>>) {
        loop {
            let (ending, sent, ms) = self.connection(addr, &head).await;
            let last = ending == Ending::OpenAtEnd;
            self.record(target, ending, sent, ms);
            if last || !self.cfg.reconnect || Instant::now() >= self.deadline {
                return;
            }
            let pause = Instant::now() + Duration::from_millis(self.cfg.interval_ms);
            tokio::time::sleep_until(pause.min(self.deadline)).await;
            if Instant::now() >= self.deadline {
                return;
            }
        }
    }
}

/// After a failed write: what the peer had answered, if it did (100 ms at most).
async fn read_answer(rd: &mut tokio::net::tcp::OwnedReadHalf, got: &mut Vec<u8>) -> Ending {
    let mut buf = [0u8; 1024];
    let until = Instant::now() + Duration::from_millis(100);
    while status_of(got).is_none() && got.len() <= 64 {
        match tokio::time::timeout_at(until, rd.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => got.extend_from_slice(buf.get(..n).unwrap_or(&[])),
            _ => break,
        }
    }
    status_of(got).map_or(Ending::Closed, Ending::Answered)
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = ((sorted.len().saturating_sub(1)) as f64 * p).round() as usize;
    sorted.get(rank).copied().unwrap_or(0)
}

/// Runs the attack to its end and reports; writes `--json` when given.
pub async fn run(cfg: &SlowConfig) -> Result<SlowReport, String> {
    validate(cfg)?;
    let start = Instant::now();
    let attack = Arc::new(Attack {
        cfg: cfg.clone(),
        deadline: start + Duration::from_millis(cfg.for_ms),
        open: AtomicUsize::new(0),
        open_max: AtomicUsize::new(0),
        opened: AtomicUsize::new(0),
        ended: Mutex::new(Vec::new()),
    });
    let progress = cfg.progress.then(|| {
        let a = attack.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(2)).await;
                let ended = a.ended.lock().map(|e| e.len()).unwrap_or(0);
                eprintln!(
                    "[slow-body] {:.0} s: {} open, {} opened, {} ended",
                    start.elapsed().as_secs_f64(),
                    a.open.load(Ordering::Relaxed),
                    a.opened.load(Ordering::Relaxed),
                    ended
                );
            }
        })
    });
    let mut tasks = Vec::new();
    for (t, addr) in cfg.targets.iter().enumerate() {
        let head = Arc::new(head(cfg, *addr));
        for _ in 0..cfg.connections {
            tasks.push(tokio::spawn(attack.clone().slot(t, *addr, head.clone())));
        }
    }
    for t in tasks {
        t.await
            .map_err(|e| format!("a connection's task failed: {e}"))?;
    }
    if let Some(p) = progress {
        p.abort();
    }
    let ended = attack.ended.lock().map(|e| e.clone()).unwrap_or_default();
    let mut times: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut report = SlowReport {
        targets: cfg.targets.iter().map(ToString::to_string).collect(),
        connections_per_target: cfg.connections,
        bytes: cfg.bytes,
        interval_ms: cfg.interval_ms,
        for_ms: cfg.for_ms,
        reconnect: cfg.reconnect,
        opened: attack.opened.load(Ordering::Relaxed) as u64,
        open_max: attack.open_max.load(Ordering::Relaxed),
        elapsed_s: start.elapsed().as_secs_f64(),
        ..SlowReport::default()
    };
    for (t, ending, sent, ms) in &ended {
        let name = ending.name();
        report.bytes_sent += sent;
        let e = report.endings.entry(name.clone()).or_default();
        e.count += 1;
        e.bytes_sent += sent;
        times.entry(name.clone()).or_default().push(*ms);
        let target = cfg
            .targets
            .get(*t)
            .map_or("?".to_owned(), |a| a.to_string());
        *report
            .per_target
            .entry(target)
            .or_default()
            .entry(name)
            .or_default() += 1;
    }
    for (name, mut ms) in times {
        ms.sort_unstable();
        if let Some(e) = report.endings.get_mut(&name) {
            e.ms_p50 = percentile(&ms, 0.5);
            e.ms_max = ms.last().copied().unwrap_or(0);
        }
    }
    if let Some(path) = &cfg.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| format!("json: {e}"))?;
        std::fs::write(path, text + "\n").map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use tokio::net::TcpListener;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_and_bounds() {
        let c = parse(&args(
            "--target 127.0.0.1:9 --target=[::1]:9 --connections 200 --bytes 5 --interval-ms 10 \
             --for-ms 1000 --reconnect --quiet",
        ))
        .unwrap();
        assert_eq!(c.targets.len(), 2);
        assert_eq!(
            (c.connections, c.bytes, c.interval_ms, c.for_ms),
            (200, 5, 10, 1000)
        );
        assert!(c.reconnect && !c.progress);
        assert!(parse(&args("--target localhost:9")).is_ok());
        for bad in [
            "--target 10.1.2.3:80",
            "--target 127.0.0.1",
            "",
            "--target 127.0.0.1:9 --connections 0",
            "--target 127.0.0.1:9 --connections 2001",
            "--target 127.0.0.1:9 --for-ms 600001",
            "--target 127.0.0.1:9 --interval-ms 0",
            "--target 127.0.0.1:9 --bytes 0",
            "--target 127.0.0.1:9 --path x",
            "--target 127.0.0.1:9 --bogus 1",
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad}");
        }
        let many = "--target 127.0.0.1:9 ".repeat(5) + "--connections 2000";
        assert!(parse(&args(&many)).unwrap_err().contains("8000"));
    }

    #[test]
    fn status_lines() {
        assert_eq!(status_of(b"HTTP/1.1 408 Request Timeout\r\n"), Some(408));
        assert_eq!(status_of(b"HTTP/1.0 503"), Some(503));
        assert_eq!(status_of(b"HTTP/1.1 40"), None);
        assert_eq!(status_of(b"SSH-2.0"), None);
    }

    /// A server that answers 408 after reading 3 body bytes, one that closes after the head,
    /// and one that holds: each ending is counted, bytes arrive one per segment-sized read.
    #[tokio::test]
    async fn endings_are_counted() {
        async fn server(mode: u8) -> (SocketAddr, tokio::task::JoinHandle<Vec<usize>>) {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            let h = tokio::spawn(async move {
                let mut reads = Vec::new();
                let (mut s, _) = l.accept().await.unwrap();
                let mut buf = [0u8; 4096];
                let mut total = Vec::new();
                loop {
                    let n = s.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    reads.push(n);
                    total.extend_from_slice(&buf[..n]);
                    let body = total
                        .windows(4)
                        .position(|w| w == b"\r\n\r\n")
                        .map(|p| total.len() - p - 4);
                    match (mode, body) {
                        (0, Some(3..)) => {
                            let _ = s.write_all(b"HTTP/1.1 408 Request Timeout\r\n\r\n").await;
                            break;
                        }
                        (1, Some(_)) => break,
                        _ => {}
                    }
                }
                reads
            });
            (addr, h)
        }
        let (a408, h408) = server(0).await;
        let (aclose, _h) = server(1).await;
        let (ahold, _h2) = server(2).await;
        let cfg = SlowConfig {
            targets: vec![a408, aclose, ahold],
            connections: 1,
            bytes: 1000,
            interval_ms: 20,
            for_ms: 600,
            progress: false,
            ..SlowConfig::default()
        };
        let r = run(&cfg).await.unwrap();
        assert_eq!(r.count("408"), 1, "{}", r.table());
        assert_eq!(r.count("closed"), 1, "{}", r.table());
        assert_eq!(r.count("open at end"), 1, "{}", r.table());
        assert_eq!(r.opened, 3);
        let reads = h408.await.unwrap();
        // The head in one read, then the body a byte at a time.
        assert!(reads.iter().skip(1).all(|n| *n == 1), "{reads:?}");
        // Refused: nothing listens there any more, and reconnect tries again until the end.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let r = run(&SlowConfig {
            targets: vec![port],
            connections: 2,
            interval_ms: 50,
            for_ms: 300,
            reconnect: true,
            progress: false,
            ..SlowConfig::default()
        })
        .await
        .unwrap();
        assert!(r.count("refused") >= 4, "{}", r.table());
    }
}
