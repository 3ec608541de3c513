//! # xborder-receiver
//!
//! A webhook receiver service over xborder-core, the way a consumer runs one (several
//! instances behind a load balancer, sharing Redis):
//!
//! 1. read the **raw** body and `X-Webhook-Signature`; core's
//!    [`Receiver`](xborder_core::delivery::Receiver) (window 0: the claims dedupe) verifies,
//!    decodes and classifies: `reject` → core's status (`Decision::reply`: 400 for the
//!    request's signature or envelope, 413 for a body over 1 MiB) with
//!    `{"error": CODE, "field": ...}`; unknown or planned names (`ignore`) → 200, nothing
//!    persisted;
//! 2. for a live event (`process`), **claim** its id with a token of this request
//!    (`<instance>-<boot ms>-<n>`) in Redis (`--redis`, [`xborder_redis::RedisClaims`]) or in
//!    memory (core's `Claims::in_memory`): `in_progress` → 503 with `Retry-After` (the lease,
//!    in seconds); `duplicate` → 200; the store unreachable → 503;
//! 3. **persist**: append one JSON line (`id`, `event`, `instance`, `token`, `at_ms`) to
//!    `--persist PATH` with one `write(2)` on an `O_APPEND` file (several processes may share
//!    it; each line lands whole), `fdatasync` too with `--fsync`. A failure → **release** and
//!    500: the retry processes it;
//! 4. **complete** the claim, then answer 200 (also when `complete` answers `stale` or the store
//!    fails: the event is persisted and its record makes a retry harmless).
//!
//! With `--postgres URL` or `--sqlite PATH` ([`xborder_sql`]), steps 3 and 4 are one
//! transaction: the event's row in `xborder_events` and the claim's completion commit together
//! or not at all (`stale`: rolled back, the request that took the id over persists it), so a
//! process killed at any point neither loses the event nor persists it twice.
//!
//! `--naive` replaces the claims with `SET key 1 NX` then persist, no lease: a process killed
//! between the two loses the event (its redelivery is a "duplicate"), and a concurrent
//! redelivery is answered 200 before the event is persisted. It exists to be compared with.
//!
//! Connections: a new one must send a whole request head within `--header-timeout-ms`; a
//! kept-alive one may stay silent `--idle-timeout-ms` after an answer; at most
//! `--max-connections` are open, and over the cap new ones wait in the listen backlog until one
//! closes (see `conn.rs`). A connection handling a request is never closed by the timeouts.
//!
//! The first line on stdout is the bound address (`--listen 127.0.0.1:0` picks a free port);
//! everything else goes to stderr. `GET /healthz` answers `ok`, `GET /stats` the counters.
#![forbid(unsafe_code)]

mod app;
mod conn;
// The simulator's option parser, one file for both binaries.
#[path = "../../simulator/src/args.rs"]
mod args;
mod opts;
mod sql;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", opts::USAGE);
        return ExitCode::SUCCESS;
    }
    let opts = match opts::Opts::parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("xborder-receiver: {e}\n(--help for usage)");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("xborder-receiver: runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match rt.block_on(serve(opts)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xborder-receiver: {e}");
            ExitCode::from(1)
        }
    }
}

async fn serve(opts: opts::Opts) -> Result<(), String> {
    let app = Arc::new(app::App::new(&opts).await?);
    let listener = TcpListener::bind(&opts.listen)
        .await
        .map_err(|e| format!("--listen {}: {e}", opts.listen))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("--listen {}: {e}", opts.listen))?;
    {
        // The first line on stdout, for whoever started us; nothing else goes there.
        let mut out = std::io::stdout().lock();
        writeln!(out, "{addr}")
            .and_then(|()| out.flush())
            .map_err(|e| format!("stdout: {e}"))?;
    }
    eprintln!(
        "[{}] listening on http://{addr}/ ({}; header timeout {} ms, idle timeout {} ms, at most {} connections)",
        app.instance(),
        app.describe(),
        opts.header_timeout_ms,
        opts.idle_timeout_ms,
        opts.max_connections
    );

    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| format!("signal: {e}"))?;
    // The cap on open connections: a connection is accepted only with a permit, so over the cap
    // new ones wait in the listen backlog (no descriptor, no task) until one closes; the
    // timeouts below close idle and stalled ones, so that wait is bounded.
    let slots = Arc::new(Semaphore::new(opts.max_connections));
    let header = Duration::from_millis(opts.header_timeout_ms);
    let idle = Duration::from_millis(opts.idle_timeout_ms);
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        };
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    let app = app.clone();
                    tokio::spawn(async move {
                        let _open = app.connection_opened(permit);
                        let watch = conn::Watch::new(header, idle);
                        let svc = {
                            let (app, watch) = (app.clone(), watch.clone());
                            service_fn(move |req| {
                                let in_flight = watch.request();
                                let app = app.clone();
                                async move {
                                    let answer = app::handle(app, req).await;
                                    drop(in_flight);
                                    answer
                                }
                            })
                        };
                        let io = TokioIo::new(conn::Watched::new(stream, watch.clone()));
                        let served = http1::Builder::new().serve_connection(io, svc);
                        tokio::select! {
                            // A client that goes away mid-request is its own business.
                            _ = served => {}
                            why = watch.expired() => app.connection_closed(why),
                        }
                    });
                }
                Err(e) => {
                    // Out of descriptors, most likely: wait a little rather than spin.
                    drop(permit);
                    app.log_error(&format!("accept: {e}"));
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        }
    }
    eprintln!("[{}] stopping: {}", app.instance(), app.stats_json());
    Ok(())
}
