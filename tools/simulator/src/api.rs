//! The `api` subcommand: the provider's `GET /v1/external-events` over HTTP, served from the
//! records file a `send --external-events PATH` wrote (read again for each request, so the
//! events of a send still running, or of a later one, are there).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::args::{options, value};
use crate::external::page;

/// Usage of the `api` subcommand.
pub const USAGE: &str = "\
xborder-simulator api: the provider's GET /v1/external-events, from a send's records

usage:
  xborder-simulator api --events PATH [--listen ADDR] [--addr-file PATH]

  --events PATH      the records a send wrote with --external-events PATH (one JSON line
                     each); read again for every request; a missing file is an empty list
  --listen ADDR      where to listen (default 127.0.0.1:0: a free port)
  --addr-file PATH   write the address listened on (HOST:PORT) there once listening

It answers GET /v1/external-events?page=&pageSize=&sortBy=createdAt&sortOrder=DESC|ASC with
{data, total, page, pageSize} (newest first unless ASC; page 0 and pageSize 10 unless given),
400 {\"error\": {\"CODE\": \"VALIDATION_FAILED\", ...}} for a parameter it cannot read, and 404
for any other path. It prints `listening on http://ADDR` and serves until killed.
";

/// What `api` serves.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// The records file.
    pub events: PathBuf,
    /// Where to listen.
    pub listen: SocketAddr,
    /// Where to write the address listened on.
    pub addr_file: Option<PathBuf>,
}

/// Parses the `api` options (the subcommand name already removed).
pub fn parse(args: &[String]) -> Result<ApiConfig, String> {
    let mut events = None;
    let mut listen = SocketAddr::from(([127, 0, 0, 1], 0));
    let mut addr_file = None;
    for (k, v) in options(args)? {
        match k.as_str() {
            "events" => events = Some(PathBuf::from(value(&k, v)?)),
            "listen" => {
                let v = value(&k, v)?;
                listen = v
                    .parse()
                    .map_err(|_| format!("--listen: {v} is not HOST:PORT"))?;
            }
            "addr-file" => addr_file = Some(PathBuf::from(value(&k, v)?)),
            _ => return Err(format!("unknown option --{k}")),
        }
    }
    Ok(ApiConfig {
        events: events.ok_or("give --events PATH (a send's --external-events file)")?,
        listen,
        addr_file,
    })
}

fn json(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

fn error(status: StatusCode, code: &str, message: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({"error": {"CODE": code, "MESSAGE": message}});
    json(status, body.to_string())
}

/// The answer to one request.
pub fn answer(cfg: &ApiConfig, method: &str, path: &str, query: &str) -> Response<Full<Bytes>> {
    if path != "/v1/external-events" {
        return error(StatusCode::NOT_FOUND, "NOT_FOUND", "no such endpoint");
    }
    if method != "GET" {
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
            "GET only",
        );
    }
    let text = match std::fs::read_to_string(&cfg.events) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "INTERNAL",
                &format!("{}: {e}", cfg.events.display()),
            )
        }
    };
    match page(&text, query) {
        Ok(v) => json(StatusCode::OK, v.to_string()),
        Err(m) => error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED", &m),
    }
}

/// Listens and serves until the process is killed.
pub async fn serve(cfg: ApiConfig) -> Result<(), String> {
    let listener = TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| format!("--listen {}: {e}", cfg.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    if let Some(path) = &cfg.addr_file {
        std::fs::write(path, addr.to_string())
            .map_err(|e| format!("--addr-file {}: {e}", path.display()))?;
    }
    println!("listening on http://{addr}");
    let cfg = std::sync::Arc::new(cfg);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("[simulator api] accept: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let cfg = cfg.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let r = answer(
                    &cfg,
                    req.method().as_str(),
                    req.uri().path(),
                    req.uri().query().unwrap_or(""),
                );
                async move { Ok::<_, Infallible>(r) }
            });
            if let Err(e) = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                eprintln!("[simulator api] connection: {e}");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn answers_the_list_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("xb-sim-api-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let events = dir.join("events.jsonl");
        let cfg = parse(&["--events".into(), events.display().to_string()]).unwrap();
        let r = answer(&cfg, "GET", "/v1/external-events", "");
        assert_eq!(
            r.status(),
            StatusCode::OK,
            "a missing file is an empty list"
        );
        let line = crate::external::record(
            br#"{"id":"e1","event":"ubo:created","entity":{"id":"u","type":"ubo","data":{}}}"#,
            0,
        )
        .unwrap();
        std::fs::write(&events, line + "\n").unwrap();
        assert_eq!(
            answer(&cfg, "GET", "/v1/external-events", "page=0").status(),
            StatusCode::OK
        );
        assert_eq!(
            answer(&cfg, "GET", "/v1/orders", "").status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            answer(&cfg, "POST", "/v1/external-events", "").status(),
            StatusCode::METHOD_NOT_ALLOWED
        );
        assert_eq!(
            answer(&cfg, "GET", "/v1/external-events", "pageSize=x").status(),
            StatusCode::BAD_REQUEST
        );
        assert!(parse(&[]).is_err());
        assert!(parse(&[
            "--events".into(),
            "x".into(),
            "--listen".into(),
            "nowhere".into()
        ])
        .is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
