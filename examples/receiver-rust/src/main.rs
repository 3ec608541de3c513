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
//! transaction (core's `Handling::in_transaction`: the persist begins it with the event's row
//! in `xborder_events`, the completion runs on it, core's commit act commits both), so they
//! commit together or not at all, and a process killed at any point neither loses the event
//! nor persists it twice. A failed commit is core's to answer: release, 500 `PERSIST_FAILED`.
//! A completion that finds the claim `stale` (the lease ran out and another request took the
//! id over, and persists it) or fails commits nothing: rolled back, answered as core says (503).
//! The receiver only runs each act (`app.rs`, `sql.rs`); the flow is core's. On SQLite (one
//! connection per instance) the requests take turns, one handling from its claim to its answer,
//! so a concurrent delivery of the same event waits and finds it done rather than meeting its
//! claim (`in_progress`).
//!
//! `--naive` replaces the claims with `SET key 1 NX` then persist, no lease: a process killed
//! between the two loses the event (its redelivery is a "duplicate"), and a concurrent
//! redelivery is answered 200 before the event is persisted. It exists to be compared with.
//!
//! Connections: a new one must send a whole request head within `--header-timeout-ms`; a
//! kept-alive one may stay silent `--idle-timeout-ms` after an answer; at most
//! `--max-connections` are open, and one over the cap is accepted, answered 503
//! (`TOO_MANY_CONNECTIONS`, `Retry-After: 1`) and closed (see `conn.rs`). A connection handling
//! a request is never closed by those timeouts. A body is copied into one buffer as it arrives
//! (`body.rs`): a declared length over `--max-body-bytes` is answered 413 unread, a body passing
//! it 413 as soon as it does, one not received whole within `--body-timeout-ms` 408; each
//! closes the connection.
//!
//! Every store call is bounded by `--store-timeout-ms` (503, core's `STORE_UNAVAILABLE`);
//! PostgreSQL connections are pooled (`--pool`, closed after `--pool-idle-ms` idle). Claim
//! times come from the store's clock (`clock.rs`, sampled every `--clock-sync-ms`). On SIGTERM
//! or SIGINT the listener is closed (the connections in its backlog taken and served first), the
//! open connections drain (`--drain-ms`: every answer with `Connection: close`, an idle one
//! closed once idle that long, so a request written meanwhile is answered, never reset), every
//! request in flight is answered (within `--grace-ms` in all), then the process exits 0.
//!
//! A `complete` that fails with a store error after the persist (Redis hung) is retried in the
//! background with the same token until the store answers, so the id is recorded done as soon
//! as it is back (`completions_retried`, `completions_recovered` in `/stats`).
//!
//! The first line on stdout is the bound address (`--listen 127.0.0.1:0` picks a free port);
//! everything else goes to stderr. `GET /healthz` answers `ok`, `GET /stats` the counters.
#![forbid(unsafe_code)]

mod app;
mod body;
mod catch_up;
mod clock;
mod conn;
// The simulator's option parser, one file for both binaries.
#[path = "../../../tools/simulator/src/args.rs"]
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
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;

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
        Ok(code) => code,
        Err(e) => {
            eprintln!("xborder-receiver: {e}");
            ExitCode::from(1)
        }
    }
}

async fn serve(opts: opts::Opts) -> Result<ExitCode, String> {
    let app = Arc::new(app::App::new(&opts).await?);
    // The store's clock, before the first request (a failure keeps offset 0, logged).
    if let Err(e) = app.sync_clock().await {
        eprintln!(
            "[{}] clock: sample failed ({e}); offset 0 until the next",
            app.instance()
        );
    }
    app.spawn_background(
        Duration::from_millis(opts.clock_sync_ms),
        Duration::from_millis(opts.pool_idle_ms),
    );
    if let Some(url) = &opts.catch_up {
        let cfg = catch_up::CatchUpCfg::new(url, opts.catch_up_every_ms, opts.checkpoint.clone())?;
        catch_up::spawn(&app, cfg);
    }
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
        "[{}] listening on http://{addr}/ ({}; header timeout {} ms, idle timeout {} ms, at most {} connections, body at most {} bytes in {} ms, store timeout {} ms, clock offset {} ms)",
        app.instance(),
        app.describe(),
        opts.header_timeout_ms,
        opts.idle_timeout_ms,
        opts.max_connections,
        opts.max_body_bytes,
        opts.body_timeout_ms,
        opts.store_timeout_ms,
        app.clock_offset_ms(),
    );

    let mut term = signal(SignalKind::terminate()).map_err(|e| format!("signal: {e}"))?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("signal: {e}"))?;
    // Set on SIGTERM/SIGINT: every connection drains, then shuts down gracefully.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let grace = Duration::from_millis(opts.grace_ms);
    let server = Server {
        app: app.clone(),
        // The cap on open connections. One over it is accepted, answered 503 (core's reply for
        // TOO_MANY_CONNECTIONS) and closed: never left in the listen backlog, where a client
        // waits without an answer. Refusing holds a descriptor for a moment (the answer
        // written, what the client sends read and dropped, half a second at most, so that
        // closing does not reset the connection under the answer): at most half the cap (64 at
        // least) are refused at once, beyond that the answer is written without waiting.
        slots: Arc::new(Semaphore::new(opts.max_connections)),
        refusing: Arc::new(Semaphore::new((opts.max_connections / 2).max(64))),
        refusal: app::too_many_connections().into(),
        header: Duration::from_millis(opts.header_timeout_ms),
        idle: Duration::from_millis(opts.idle_timeout_ms),
        drain: Duration::from_millis(opts.drain_ms).min(grace),
        stop: stop_rx,
    };
    let mut tasks = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
            _ = term.recv() => break,
            _ = int.recv() => break,
        };
        match accepted {
            Ok((stream, _)) => server.take(&mut tasks, stream),
            Err(e) => {
                // Out of descriptors, most likely: wait a little rather than spin.
                app.log_error(&format!("accept: {e}"));
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }

    // SIGTERM or SIGINT: the connections the kernel has accepted already (the listen backlog)
    // are taken and served, not reset by closing the listener under them; then the listener is
    // closed, and only then does every answer say `Connection: close` (a client told so
    // reconnects: refused now, never queued in a backlog about to be reset).
    let started = Instant::now();
    let mut backlog = 0u64;
    while let Some(accepted) = std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match listener.poll_accept(cx) {
            std::task::Poll::Ready(r) => Some(r),
            std::task::Poll::Pending => None,
        })
    })
    .await
    {
        match accepted {
            Ok((stream, _)) => {
                backlog += 1;
                server.take(&mut tasks, stream);
            }
            Err(_) => break,
        }
    }
    drop(listener);
    app.start_draining();
    let in_flight = app.in_flight();
    // The drain: each connection is served until it has been idle --drain-ms (a request a
    // client writes meanwhile is read and answered, with `Connection: close`), then closed;
    // the whole shutdown within --grace-ms.
    let _ = stop_tx.send(true);
    let deadline = started + grace;
    let drained = tokio::time::timeout_at(deadline, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    // Completions being retried (a store that failed them): given the rest of the grace.
    while app.pending_retries() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let retries = app.pending_retries();
    if retries > 0 {
        eprintln!(
            "[{}] shutdown: {retries} completion retries still pending (the store did not answer)",
            app.instance()
        );
    }
    let ms = started.elapsed().as_millis();
    eprintln!("[{}] stopping: {}", app.instance(), app.stats_json());
    if backlog > 0 {
        eprintln!(
            "[{}] shutdown: {backlog} connections taken from the listen backlog",
            app.instance()
        );
    }
    match drained {
        Ok(()) => {
            eprintln!("shutdown: {in_flight} in flight answered in {ms} ms");
            Ok(ExitCode::SUCCESS)
        }
        Err(_) => {
            let cut = app.in_flight();
            tasks.abort_all();
            eprintln!(
                "shutdown: {cut} of {in_flight} in flight cut after the grace of {} ms",
                opts.grace_ms
            );
            Ok(ExitCode::from(1))
        }
    }
}

/// What serving a connection needs.
struct Server {
    app: Arc<app::App>,
    slots: Arc<Semaphore>,
    refusing: Arc<Semaphore>,
    refusal: Arc<[u8]>,
    header: Duration,
    idle: Duration,
    drain: Duration,
    stop: tokio::sync::watch::Receiver<bool>,
}

impl Server {
    /// Serves an accepted connection in its own task (or refuses it, over the cap).
    fn take(&self, tasks: &mut JoinSet<()>, stream: tokio::net::TcpStream) {
        let _ = stream.set_nodelay(true);
        let app = self.app.clone();
        let Ok(permit) = self.slots.clone().try_acquire_owned() else {
            app.connection_refused();
            match self.refusing.clone().try_acquire_owned() {
                Ok(p) => {
                    let refusal = self.refusal.clone();
                    tasks.spawn(async move {
                        refuse(stream, &refusal).await;
                        drop(p);
                    });
                }
                Err(_) => {
                    let _ = stream.try_write(&self.refusal);
                    let mut sink = [0u8; 4096];
                    while matches!(stream.try_read(&mut sink), Ok(n) if n > 0) {}
                }
            }
            return;
        };
        let mut stop = self.stop.clone();
        let (header, idle, drain) = (self.header, self.idle, self.drain);
        tasks.spawn(async move {
            let _open = app.connection_opened(permit);
            let watch = conn::Watch::new(header, idle);
            let svc = {
                let (app, watch) = (app.clone(), watch.clone());
                service_fn(move |req| {
                    let in_flight = watch.request();
                    let counted = app.request_started();
                    let app = app.clone();
                    async move {
                        let answer = app::handle(app, req).await;
                        drop(in_flight);
                        drop(counted);
                        answer
                    }
                })
            };
            let io = TokioIo::new(conn::Watched::new(stream, watch.clone()));
            let served = http1::Builder::new().serve_connection(io, svc);
            let mut served = std::pin::pin!(served);
            tokio::select! {
                // A client that goes away mid-request is its own business.
                _ = served.as_mut() => return,
                why = watch.expired() => {
                    app.connection_closed(why);
                    return;
                }
                _ = stop.wait_for(|s| *s) => {}
            }
            // Shutting down: the connection is still served (each answer with `Connection:
            // close`, after which hyper closes it) until it has been idle for the drain period;
            // then closed. A request whose bytes came in is answered, never cut.
            watch.drain(drain);
            tokio::select! {
                _ = served.as_mut() => {}
                why = watch.expired() => {
                    app.connection_closed(why);
                    if why == conn::Closed::Drained {
                        // Idle: hyper closes it at once.
                        served.as_mut().graceful_shutdown();
                        let _ = served.as_mut().await;
                    }
                }
            }
        });
    }
}

/// Answers a connection over the cap and closes it: the answer, then the write side shut (the
/// client reads it whole, then end of file), then what the client sends read and dropped until
/// it closes (half a second at most), so that closing does not reset the connection under an
/// answer the client has not read yet.
async fn refuse(mut stream: tokio::net::TcpStream, answer: &[u8]) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let _ = tokio::time::timeout(Duration::from_millis(500), async {
        stream.write_all(answer).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
}
