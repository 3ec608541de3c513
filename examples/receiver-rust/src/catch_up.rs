//! The catch-up (`--catch-up URL`): events the provider dead-lettered (an outage longer than its
//! five attempts), recovered from its `GET /v1/external-events` and handled as their deliveries
//! are. Core walks the list (`xborder_core::catch_up::CatchUp`: newest first, down to the
//! checkpoint minus an overlap), decides each event (`Receiver::receive_recovered`) and says
//! what the checkpoint may become (`Recovery`); this file only fetches the pages, runs each
//! event through the app's handling, and keeps the checkpoint in its file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::Request;
use hyper_util::rt::TokioIo;
use xborder_core::catch_up::{CatchUp, Fetched, Tally};

use crate::app::App;

/// Where and how often to catch up.
#[derive(Debug, Clone)]
pub(crate) struct CatchUpCfg {
    /// `HOST:PORT` of the provider's API (plain http).
    authority: String,
    /// The path before `/v1/external-events` (`""` or `/prefix`).
    prefix: String,
    /// Between two catch-ups.
    pub(crate) every: Duration,
    /// The file that keeps the checkpoint (none: every catch-up walks everything).
    checkpoint: Option<PathBuf>,
    /// Time allowed for one page (connect, send, answer).
    timeout: Duration,
}

impl CatchUpCfg {
    /// From `--catch-up http://HOST:PORT[/prefix]`, `--catch-up-every-ms`, `--checkpoint`.
    pub(crate) fn new(
        url: &str,
        every_ms: u64,
        checkpoint: Option<PathBuf>,
    ) -> Result<CatchUpCfg, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("--catch-up {url}: http://HOST:PORT only"))?;
        let (authority, prefix) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        if authority.is_empty() || !authority.contains(':') {
            return Err(format!(
                "--catch-up {url}: give the port (http://HOST:PORT)"
            ));
        }
        let prefix = prefix.trim_end_matches('/');
        Ok(CatchUpCfg {
            authority: authority.to_owned(),
            prefix: if prefix.is_empty() {
                String::new()
            } else {
                format!("/{prefix}")
            },
            every: Duration::from_millis(every_ms.max(1)),
            checkpoint,
            timeout: Duration::from_secs(10),
        })
    }
}

/// The most a page's body may hold: a page of 100 records is far below it; a peer that sends
/// more is refused, not buffered.
const MAX_PAGE_BYTES: usize = 16 << 20;

/// One GET: the status, the headers and the body text (at most [`MAX_PAGE_BYTES`], all within
/// `cfg.timeout`, one connection at a time).
async fn get(cfg: &CatchUpCfg, path: &str) -> Result<(u16, Vec<(String, String)>, String), String> {
    let fetch = async {
        let stream = tokio::net::TcpStream::connect(&cfg.authority)
            .await
            .map_err(|e| format!("connect {}: {e}", cfg.authority))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        let req = Request::get(path)
            .header(hyper::header::HOST, &cfg.authority)
            .body(Empty::<Bytes>::new())
            .map_err(|e| e.to_string())?;
        let res = sender.send_request(req).await.map_err(|e| e.to_string())?;
        let status = res.status().as_u16();
        let headers = res
            .headers()
            .iter()
            .filter_map(|(k, v)| {
                v.to_str()
                    .ok()
                    .map(|v| (k.as_str().to_owned(), v.to_owned()))
            })
            .collect();
        let body = Limited::new(res.into_body(), MAX_PAGE_BYTES)
            .collect()
            .await
            .map_err(|e| format!("GET {path}: {e} (a page is read up to {MAX_PAGE_BYTES} bytes)"))?
            .to_bytes();
        Ok((status, headers, String::from_utf8_lossy(&body).into_owned()))
    };
    tokio::time::timeout(cfg.timeout, fetch)
        .await
        .map_err(|_| format!("GET {path}: no answer in {:?}", cfg.timeout))?
}

fn read_checkpoint(path: Option<&Path>) -> Result<Option<String>, String> {
    let Some(path) = path else { return Ok(None) };
    match std::fs::read_to_string(path) {
        Ok(t) if t.trim().is_empty() => Ok(None),
        Ok(t) => Ok(Some(t.trim().to_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("--checkpoint {}: {e}", path.display())),
    }
}

/// Written whole (a file beside it, renamed over it): a crash leaves the old or the new one.
fn write_checkpoint(path: Option<&Path>, checkpoint: Option<&str>) -> Result<(), String> {
    let (Some(path), Some(checkpoint)) = (path, checkpoint) else {
        return Ok(());
    };
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, checkpoint)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("--checkpoint {}: {e}", path.display()))
}

/// One catch-up: walks the list down to the checkpoint, handles every event found (oldest
/// first) as its delivery would be, and keeps the checkpoint core gives.
pub(crate) async fn run_once(app: &Arc<App>, cfg: &CatchUpCfg) -> Result<Tally, String> {
    let since = read_checkpoint(cfg.checkpoint.as_deref())?;
    let mut c = CatchUp::new(since.as_deref()).map_err(|e| e.to_string())?;
    // Core says whether an answer is a page, a wait before the same request (a 429 or a 5xx of
    // this GET, at most five tries) or the error that ends the catch-up.
    while let Some(q) = c.next_request() {
        let path = format!("{}/v1/external-events?{}", cfg.prefix, q.to_query());
        let (status, headers, text) = get(cfg, &path).await?;
        let pairs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        match c.answered(status, &pairs, &text) {
            // What drifted is said (a page at most once each), never dropped: MALFORMED_RECORD,
            // and the walk's own (STALLED, POSSIBLY_SKIPPED keep the checkpoint where it was).
            Ok(Fetched::Page { drifts }) => {
                for d in drifts {
                    eprintln!("[{}] catch-up: {} ({d:?})", app.instance(), d.code());
                }
            }
            Ok(Fetched::Wait { ms }) => tokio::time::sleep(Duration::from_millis(ms)).await,
            Ok(other) => {
                return Err(format!(
                    "GET {path}: an answer this receiver does not know ({other:?})"
                ))
            }
            Err(e) => return Err(format!("GET {path}: {e}")),
        }
    }
    let found = c.events().len();
    let mut r = c.recover();
    while let Some(event) = r.next_event() {
        let decision = app.receiver().receive_recovered(event);
        match app.handle_recovered(decision).await {
            Some(answer) => {
                r.handled(&answer);
            }
            None => break,
        }
    }
    let t = r.tally();
    write_checkpoint(cfg.checkpoint.as_deref(), r.checkpoint())?;
    eprintln!(
        "[{}] catch-up: {found} events found since {} ({} processed, {} already handled or ignored, {} rejected, {} not handled); checkpoint {}",
        app.instance(),
        since.as_deref().unwrap_or("the start"),
        t.processed,
        t.skipped,
        t.rejected,
        t.failed,
        r.checkpoint().unwrap_or("none"),
    );
    Ok(t)
}

/// Catches up at start, then every `cfg.every`, until the app is dropped.
pub(crate) fn spawn(app: &Arc<App>, cfg: CatchUpCfg) {
    let app = Arc::downgrade(app);
    tokio::spawn(async move {
        loop {
            let Some(a) = app.upgrade() else { return };
            let ended = run_once(&a, &cfg).await;
            a.count_catch_up(ended.as_ref().map_err(String::as_str));
            drop(a);
            tokio::time::sleep(cfg.every).await;
        }
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn urls_and_checkpoints() {
        let c = CatchUpCfg::new("http://127.0.0.1:9/api/", 5, None).unwrap();
        assert_eq!(
            (c.authority.as_str(), c.prefix.as_str()),
            ("127.0.0.1:9", "/api")
        );
        let c = CatchUpCfg::new("http://h:1", 5, None).unwrap();
        assert_eq!(c.prefix, "");
        assert!(CatchUpCfg::new("https://h:1", 5, None).is_err());
        assert!(CatchUpCfg::new("http://h", 5, None).is_err());
        let dir = std::env::temp_dir().join(format!("xb-rx-cp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("checkpoint");
        assert_eq!(read_checkpoint(Some(&f)).unwrap(), None);
        write_checkpoint(Some(&f), Some("2026-11-27T12:00:00.000Z")).unwrap();
        assert_eq!(
            read_checkpoint(Some(&f)).unwrap().as_deref(),
            Some("2026-11-27T12:00:00.000Z")
        );
        write_checkpoint(Some(&f), None).unwrap();
        assert!(
            read_checkpoint(Some(&f)).unwrap().is_some(),
            "none keeps the file"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
