//! A small HTTP/1.1 client over hyper: keep-alive connections pooled per target, plain `http://`
//! only, one timeout around each request.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::{Request, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// How long the run waits for a `--url` that refuses connections to start accepting them.
pub(crate) const START_WAIT: Duration = Duration::from_secs(10);
use xborder_core::signature::SIGNATURE_HEADER;

/// Idle connections kept per target, at most.
const MAX_IDLE: usize = 512;

#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) url: String,
    host: String,
    port: u16,
    authority: String,
    path: String,
}

impl Target {
    pub(crate) fn parse(url: &str) -> Result<Target, String> {
        let uri: Uri = url.parse().map_err(|e| format!("--url {url}: {e}"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some(other) => {
                return Err(format!(
                    "--url {url}: {other}:// is not supported, only http:// (run the simulator \
                     beside the endpoint, or behind a TLS-terminating proxy)"
                ))
            }
            None => {
                return Err(format!(
                    "--url {url}: give a full URL, http://host:port/path"
                ))
            }
        }
        let authority = uri
            .authority()
            .map(|a| a.as_str().to_owned())
            .ok_or_else(|| format!("--url {url}: no host"))?;
        let host = uri
            .host()
            .ok_or_else(|| format!("--url {url}: no host"))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        Ok(Target {
            url: url.to_owned(),
            port: uri.port_u16().unwrap_or(80),
            path: uri
                .path_and_query()
                .map_or_else(|| "/".to_owned(), |p| p.as_str().to_owned()),
            host,
            authority,
        })
    }
}

type Sender = SendRequest<Full<Bytes>>;

/// An answer: its status, and what its JSON body said when it said something (the `result`,
/// or else the `error`, of the receivers' `{"result": ...}` / `{"error": ...}` bodies).
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) said: Option<String>,
}

/// Why no answer came: `written` says whether the request had been handed to the connection
/// (then it was closed, reset or timed out before its answer: "unanswered") or not (the
/// connection was refused or closed first: "refused").
#[derive(Debug, Clone)]
pub(crate) struct NoAnswer {
    pub(crate) written: bool,
    pub(crate) error: String,
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.error)
    }
}

/// An error and its sources ("connection error: connection reset by peer").
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

fn refused(error: String) -> NoAnswer {
    NoAnswer {
        written: false,
        error,
    }
}

/// The `result` (else the `error`) of a JSON object body.
fn said(body: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    ["result", "error"]
        .iter()
        .find_map(|k| v.get(k).and_then(|s| s.as_str()).map(str::to_owned))
}

/// Connections to every target; deliveries are spread over the targets in turn.
pub(crate) struct Pool {
    targets: Vec<Target>,
    idle: Vec<Mutex<Vec<Sender>>>,
    next: AtomicUsize,
    timeout: Duration,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Pool {
    pub(crate) fn new(targets: Vec<Target>, timeout: Duration) -> Pool {
        Pool {
            idle: targets.iter().map(|_| Mutex::new(Vec::new())).collect(),
            targets,
            next: AtomicUsize::new(0),
            timeout,
        }
    }

    pub(crate) fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// Connects to every target before the run, so that a wrong `--url` is reported rather
    /// than as thousands of dead letters. A target that refuses is tried again every 100 ms for
    /// [`START_WAIT`]: a service started just before (in the background, as the README's fleet
    /// recipes do) may still be opening its store.
    pub(crate) async fn probe(&self) -> Result<(), String> {
        for t in &self.targets {
            let deadline = tokio::time::Instant::now() + START_WAIT;
            loop {
                match tokio::time::timeout(self.timeout, Self::connect(t)).await {
                    Ok(Ok(_)) => break,
                    Ok(Err(e)) => {
                        if tokio::time::Instant::now() >= deadline {
                            return Err(format!("{}: {e} (for {} s)", t.url, START_WAIT.as_secs()));
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    Err(_) => {
                        return Err(format!(
                            "{}: no connection in {} ms",
                            t.url,
                            self.timeout.as_millis()
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    /// The target of the next delivery (round robin).
    pub(crate) fn pick(&self) -> usize {
        self.next.fetch_add(1, Ordering::Relaxed) % self.targets.len().max(1)
    }

    /// POSTs `body` (with the signature header when given) to target `i`: the answer, or why
    /// no answer came (connection refused or reset, timeout).
    pub(crate) async fn post(
        &self,
        i: usize,
        body: &Bytes,
        signature: Option<&str>,
    ) -> Result<Answer, NoAnswer> {
        let target = self
            .targets
            .get(i)
            .ok_or_else(|| refused("no such target".to_owned()))?;
        let written = AtomicBool::new(false);
        match tokio::time::timeout(
            self.timeout,
            self.send(i, target, body, signature, &written),
        )
        .await
        {
            Ok(r) => r,
            Err(_) => Err(NoAnswer {
                written: written.load(Ordering::Relaxed),
                error: format!("timeout after {} ms", self.timeout.as_millis()),
            }),
        }
    }

    fn take_idle(&self, i: usize) -> Option<Sender> {
        let slot = self.idle.get(i)?;
        let mut idle = lock(slot);
        while let Some(s) = idle.pop() {
            if !s.is_closed() {
                return Some(s);
            }
        }
        None
    }

    fn put_idle(&self, i: usize, s: Sender) {
        if let Some(slot) = self.idle.get(i) {
            let mut idle = lock(slot);
            if idle.len() < MAX_IDLE {
                idle.push(s);
            }
        }
    }

    async fn connect(target: &Target) -> Result<Sender, String> {
        let stream = TcpStream::connect((target.host.as_str(), target.port))
            .await
            .map_err(|e| format!("connect {}: {e}", target.authority))?;
        // Latency over throughput: small requests go out at once.
        let _ = stream.set_nodelay(true);
        let (sender, conn) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("handshake {}: {e}", target.authority))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(sender)
    }

    async fn send(
        &self,
        i: usize,
        target: &Target,
        body: &Bytes,
        signature: Option<&str>,
        written: &AtomicBool,
    ) -> Result<Answer, NoAnswer> {
        let (mut sender, mut reused) = match self.take_idle(i) {
            Some(s) => (s, true),
            None => (Self::connect(target).await.map_err(refused)?, false),
        };
        loop {
            let mut req = Request::post(target.path.as_str())
                .header(HOST, target.authority.as_str())
                .header(CONTENT_TYPE, "application/json");
            if let Some(sig) = signature {
                req = req.header(SIGNATURE_HEADER, sig);
            }
            let req = req
                .body(Full::new(body.clone()))
                .map_err(|e| refused(format!("request: {e}")))?;
            if sender.ready().await.is_err() {
                if reused {
                    // An idle connection the server closed meanwhile: not a delivery attempt.
                    (sender, reused) = (Self::connect(target).await.map_err(refused)?, false);
                    continue;
                }
                return Err(refused(format!("{}: connection closed", target.authority)));
            }
            // From here the request is on its way (a timeout now is an unanswered request).
            written.store(true, Ordering::Relaxed);
            match sender.try_send_request(req).await {
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    // Read the answer to its end so the connection can carry the next request.
                    let said = match resp.into_body().collect().await {
                        Ok(b) => {
                            self.put_idle(i, sender);
                            said(&b.to_bytes())
                        }
                        Err(_) => None,
                    };
                    return Ok(Answer { status, said });
                }
                Err(mut e) => {
                    let unsent = e.take_message().is_some();
                    if reused && unsent {
                        // Not written at all: a stale idle connection, try a fresh one.
                        written.store(false, Ordering::Relaxed);
                        (sender, reused) = (Self::connect(target).await.map_err(refused)?, false);
                        continue;
                    }
                    return Err(NoAnswer {
                        written: !unsent,
                        error: format!("{}: {}", target.authority, chain(&e.into_error())),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn urls_are_plain_http_with_a_path() {
        let t = Target::parse("http://127.0.0.1:8080/webhooks?x=1").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("127.0.0.1", 8080, "/webhooks?x=1")
        );
        let t = Target::parse("http://[::1]/").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("::1", 80));
        assert!(Target::parse("https://example.test/").is_err());
        assert!(Target::parse("127.0.0.1:80").is_err());
    }

    #[tokio::test]
    async fn probe_waits_for_a_service_that_is_still_starting() {
        // A free port, closed again: the service binds it 600 ms after the probe starts.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let pool = Pool::new(
            vec![Target::parse(&format!("http://127.0.0.1:{port}/w")).unwrap()],
            Duration::from_millis(500),
        );
        let late = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(600)).await;
            let l = tokio::net::TcpListener::bind(("127.0.0.1", port))
                .await
                .unwrap();
            let _ = l.accept().await;
        });
        let started = std::time::Instant::now();
        pool.probe().await.unwrap();
        assert!(started.elapsed() >= Duration::from_millis(500));
        late.abort();
    }
}
