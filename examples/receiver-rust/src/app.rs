//! One delivery: raw body → core's decision → core's `Handling` (claim → persist → complete, or release) → answer.

use std::convert::Infallible;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONNECTION, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use serde::Serialize;
use xborder_core::claims::{
    self, ClaimError, ClaimRules, Claims, IntoStep, MemoryClaims, Outcome, Reply as ClaimReply,
};
use xborder_core::delivery::{Action, Decision, Receiver, StoreError};
use xborder_core::envelope::{Envelope, Limits};
use xborder_core::handling::{Act, Answer as HandlingAnswer, Handling};
use xborder_core::signature::SIGNATURE_HEADER;
use xborder_redis::RedisClaims;

use crate::body::{read_body, BodyError};
use crate::clock::Clock;
use crate::opts::Opts;
use crate::sql;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

enum Store {
    Memory(Claims<MemoryClaims>),
    Redis(RedisClaims),
    /// Claims and events in PostgreSQL: the event's row commits with the completion.
    Postgres(Box<sql::Postgres>),
    /// Claims and events in an SQLite file, likewise.
    Sqlite(sql::Sqlite),
    /// `SET key 1 NX` then persist: no lease, no release, no completion.
    Naive {
        conn: ConnectionManager,
        prefix: String,
        ttl_ms: u64,
    },
}

#[derive(Default)]
struct Stats {
    requests: AtomicU64,
    processed: AtomicU64,
    duplicate: AtomicU64,
    in_progress: AtomicU64,
    ignored: AtomicU64,
    /// Events a catch-up found and persisted (the webhook path had lost them).
    recovered: AtomicU64,
    /// Catch-ups that ended, and that failed (the API unreachable, a page unreadable).
    catch_ups: AtomicU64,
    catch_ups_failed: AtomicU64,
    /// Events catch-ups found and could not handle (the next catch-up finds them again).
    catch_up_unhandled: AtomicU64,
    rejected: AtomicU64,
    persist_failed: AtomicU64,
    store_errors: AtomicU64,
    stale: AtomicU64,
    connections_open: AtomicU64,
    connections_open_max: AtomicU64,
    connections: AtomicU64,
    closed_header_timeout: AtomicU64,
    closed_idle_timeout: AtomicU64,
    refused_connections: AtomicU64,
    body_too_large: AtomicU64,
    body_timeout: AtomicU64,
    closed_drained: AtomicU64,
    completions_retried: AtomicU64,
    completions_recovered: AtomicU64,
    completions_retry_stale: AtomicU64,
    completions_retry_given_up: AtomicU64,
    completions_retry_dropped: AtomicU64,
    completions_retry_pending: AtomicU64,
}

#[derive(Serialize)]
struct StatsView<'a> {
    instance: &'a str,
    requests: u64,
    processed: u64,
    duplicate: u64,
    in_progress: u64,
    ignored: u64,
    rejected: u64,
    persist_failed: u64,
    store_errors: u64,
    stale: u64,
    /// Connections open now.
    connections_open: u64,
    /// The most open at once (at most `--max-connections`).
    connections_open_max: u64,
    /// Connections accepted since the start.
    connections: u64,
    /// Closed for a request head not received in time (`--header-timeout-ms`).
    closed_header_timeout: u64,
    /// Closed for staying silent after an answer (`--idle-timeout-ms`).
    closed_idle_timeout: u64,
    /// Connections over `--max-connections`, answered 503 and closed.
    refused_connections: u64,
    /// Bodies refused over `--max-body-bytes` (413).
    body_too_large: u64,
    /// Bodies not received whole within `--body-timeout-ms` (408).
    body_timeout: u64,
    /// Idle connections closed at shutdown after the drain period (`--drain-ms`).
    closed_drained: u64,
    /// Completions that failed with a store error after the persist, retried in the
    /// background with the same token.
    completions_retried: u64,
    /// Of which the retry completed (the id is done in the store).
    completions_recovered: u64,
    /// Of which the retry found the claim no longer this token's (`stale`): stopped.
    completions_retry_stale: u64,
    /// Of which the store kept failing for the whole retry bound: given up.
    completions_retry_given_up: u64,
    /// Not retried: too many retries pending already.
    completions_retry_dropped: u64,
    /// Retries still going.
    completions_retry_pending: u64,
    /// The store's clock minus this host's, in ms (added to every time given to the claims).
    clock_offset_ms: i64,
    /// The catch-up (`--catch-up`): events found and persisted, catch-ups ended and failed,
    /// events found and not handled (found again next time).
    recovered: u64,
    catch_ups: u64,
    catch_ups_failed: u64,
    catch_up_unhandled: u64,
}

/// One persisted event.
#[derive(Serialize)]
struct Line<'a> {
    id: &'a str,
    event: &'a str,
    instance: &'a str,
    token: &'a str,
    /// When this request claimed the id (the `at` of its claim step), and the lease it got: a
    /// second processing of the id that claimed before this one's `at_ms` and a lease after
    /// its `claimed_at_ms` took over an expired lease (`xborder-simulator check` counts it so).
    claimed_at_ms: u64,
    lease_ms: u64,
    /// When the event was persisted.
    at_ms: u64,
    /// The store's clock minus this host's when it was persisted (both times above include it).
    clock_offset_ms: i64,
    /// The event's record existed already (`--records`): processed again, nothing new kept.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    again: bool,
}

/// The record file of an event id: its bytes in hex (an id may hold any character).
fn record_name(id: &str) -> String {
    let mut out = String::with_capacity(id.len() * 2 + 5);
    for b in id.bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out.push_str(".json");
    out
}

/// A small JSON answer.
#[derive(Serialize)]
struct Answer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

type Reply = Response<Full<Bytes>>;

fn reply(status: StatusCode, answer: &Answer<'_>) -> Reply {
    let body = serde_json::to_vec(answer).unwrap_or_else(|_| b"{}".to_vec());
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

fn result(status: StatusCode, text: &str) -> Reply {
    reply(
        status,
        &Answer {
            result: Some(text),
            error: None,
            field: None,
        },
    )
}

fn error(status: StatusCode, code: &str, field: Option<&str>) -> Reply {
    reply(
        status,
        &Answer {
            result: None,
            error: Some(code),
            field,
        },
    )
}

fn failure<'a>(code: &'a str, field: Option<&'a str>) -> Answer<'a> {
    Answer {
        result: None,
        error: Some(code),
        field,
    }
}

fn retry_after(mut r: Reply, seconds: u64) -> Reply {
    r.headers_mut().insert(RETRY_AFTER, seconds.into());
    r
}

/// Core's answer (status and `Retry-After`) with this body.
fn answered(how: ClaimReply, body: &Answer) -> Reply {
    let status = StatusCode::from_u16(how.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let r = reply(status, body);
    match how.retry_after_s {
        Some(s) => retry_after(r, s),
        None => r,
    }
}

/// The answer with `Connection: close`: hyper closes the connection once it is written.
fn closing(mut r: Reply) -> Reply {
    r.headers_mut()
        .insert(CONNECTION, hyper::header::HeaderValue::from_static("close"));
    r
}

/// The whole answer to a connection over `--max-connections`, written on the socket before any
/// request is read: core's reply for `TOO_MANY_CONNECTIONS` (503, `Retry-After: 1`),
/// `Connection: close`.
pub(crate) fn too_many_connections() -> Vec<u8> {
    let code = "TOO_MANY_CONNECTIONS";
    let how = claims::reply_to_code(code);
    let status = StatusCode::from_u16(how.status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
    let body = serde_json::to_vec(&failure(code, None)).unwrap_or_default();
    let mut head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    );
    if let Some(s) = how.retry_after_s {
        head.push_str(&format!("retry-after: {s}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(&body);
    out
}

/// A request being handled (counted in `App::in_flight`).
pub(crate) struct RequestGuard(Arc<App>);

impl Drop for RequestGuard {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

fn inc(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// An open connection: its slot under `--max-connections`, given back when dropped.
pub(crate) struct Connection {
    app: Arc<App>,
    _slot: tokio::sync::OwnedSemaphorePermit,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.app
            .stats
            .connections_open
            .fetch_sub(1, Ordering::Relaxed);
    }
}

pub(crate) struct App {
    receiver: Receiver,
    store: Store,
    file: Option<Arc<File>>,
    records: Option<std::path::PathBuf>,
    fsync: bool,
    instance: String,
    token_prefix: String,
    counter: AtomicU64,
    persists: AtomicU64,
    rules: ClaimRules,
    persist_delay: Duration,
    fail_every: u64,
    /// The events `--fail-persist-every` failed once already.
    failed: std::sync::Mutex<std::collections::HashSet<String>>,
    store_timeout: Duration,
    stats: Stats,
    last_log_ms: AtomicU64,
    described: String,
    /// This host's clock and its offset from the store's.
    clock: Clock,
    /// A connection to sample Redis's clock on (`TIME`).
    redis_clock: Option<ConnectionManager>,
    /// When the clock warning was last printed (Unix ms, 0: never).
    clock_warned_ms: AtomicU64,
    max_body_bytes: usize,
    body_timeout: Duration,
    /// Requests being handled now (all connections).
    in_flight: AtomicU64,
    /// Shutting down: every answer carries `Connection: close`.
    draining: std::sync::atomic::AtomicBool,
}

/// Completion retries pending at most; past that, a failed completion is logged and dropped.
const MAX_PENDING_RETRIES: u64 = 10_000;
/// How long a failed completion is retried before it is given up.
const RETRY_FOR: Duration = Duration::from_secs(120);
/// The first wait before a retry, doubled each time up to `RETRY_WAIT_MAX`.
const RETRY_WAIT: Duration = Duration::from_millis(250);
const RETRY_WAIT_MAX: Duration = Duration::from_secs(1);

impl App {
    pub(crate) async fn new(o: &Opts) -> Result<App, String> {
        // Window 0: the receiver verifies, decodes and classifies; the claims dedupe.
        let receiver = Receiver::new(&o.secrets, 0)
            .map_err(|e| format!("--secret: {e}"))?
            .with_limits(Limits::new(o.max_body_bytes, Limits::default().max_depth));
        let store_timeout = Duration::from_millis(o.store_timeout_ms.max(1));
        let mut redis_clock = None;
        let rules = ClaimRules::new(o.lease_ms);
        let rules = if o.window_ms > 0 {
            rules.with_window(o.window_ms)
        } else {
            rules.without_window()
        };
        let (store, store_text) = match (&o.redis, &o.postgres, &o.sqlite) {
            (_, Some(url), _) => {
                let pool = sql::PgPool::new(
                    url,
                    o.pool_size,
                    store_timeout,
                    Duration::from_millis(o.pool_idle_ms),
                )
                .map_err(|e| format!("--postgres {url}: {e}"))?;
                pool.migrate()
                    .await
                    .map_err(|e| format!("--postgres {url}: {e}"))?;
                (
                    Store::Postgres(Box::new(sql::Postgres {
                        claims: xborder_sql::PostgresClaims::new(rules),
                        pool,
                    })),
                    format!(
                        "claims and events in postgres {url} (one transaction each, pool {}, idle {} ms)",
                        o.pool_size, o.pool_idle_ms
                    ),
                )
            }
            (_, _, Some(path)) => (
                Store::Sqlite(
                    sql::Sqlite::open(path, rules, store_timeout)
                        .map_err(|e| format!("--sqlite {}: {e}", path.display()))?,
                ),
                format!(
                    "claims and events in sqlite {} (one transaction each)",
                    path.display()
                ),
            ),
            (None, _, _) => (
                Store::Memory(Claims::in_memory(rules, o.capacity)),
                format!("claims in memory, capacity {}", o.capacity),
            ),
            (Some(url), _, _) => {
                let client =
                    redis::Client::open(url.as_str()).map_err(|e| format!("--redis {url}: {e}"))?;
                // Fail fast while Redis is away (answer 503, the provider retries) rather than
                // hold requests through long reconnection backoffs.
                // Every command is bounded by --store-timeout-ms (the response timeout here, and
                // each step as a whole in `step_at`), the connect by the smaller of it and 500 ms.
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(store_timeout.min(Duration::from_millis(500)))
                    .set_response_timeout(store_timeout)
                    .set_number_of_retries(2)
                    .set_factor(2)
                    .set_max_delay(200);
                let conn = tokio::time::timeout(
                    store_timeout.max(Duration::from_secs(5)),
                    ConnectionManager::new_with_config(client, config),
                )
                .await
                .map_err(|_| format!("--redis {url}: connect timed out"))?
                .map_err(|e| format!("--redis {url}: {e}"))?;
                redis_clock = Some(conn.clone());
                if o.naive {
                    (
                        Store::Naive {
                            conn,
                            prefix: o.prefix.clone(),
                            ttl_ms: o.window_ms,
                        },
                        format!("NAIVE: SET NX in redis {url}, no lease"),
                    )
                } else {
                    (
                        Store::Redis(RedisClaims::new(conn, rules, o.prefix.clone())),
                        format!("claims in redis {url}"),
                    )
                }
            }
        };
        let file = match &o.persist {
            None => None,
            Some(path) => Some(Arc::new(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| format!("--persist {}: {e}", path.display()))?,
            )),
        };
        let described = format!(
            "{store_text}, lease {} ms, window {} ms, persist {}{}",
            o.lease_ms,
            o.window_ms,
            o.persist
                .as_ref()
                .map_or_else(|| "nowhere".to_owned(), |p| p.display().to_string()),
            if o.fsync { " (fsync)" } else { "" }
        );
        if let Some(dir) = &o.records {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("--records {}: {e}", dir.display()))?;
        }
        Ok(App {
            records: o.records.clone(),
            receiver,
            store,
            file,
            fsync: o.fsync,
            token_prefix: format!("{}-{}", o.instance, now_ms()),
            instance: o.instance.clone(),
            counter: AtomicU64::new(0),
            persists: AtomicU64::new(0),
            rules,
            persist_delay: Duration::from_millis(o.persist_delay_ms),
            fail_every: o.fail_persist_every,
            failed: std::sync::Mutex::new(std::collections::HashSet::new()),
            store_timeout,
            stats: Stats::default(),
            last_log_ms: AtomicU64::new(0),
            described,
            clock: Clock::new(o.clock_skew_ms),
            redis_clock,
            clock_warned_ms: AtomicU64::new(0),
            max_body_bytes: o.max_body_bytes,
            body_timeout: Duration::from_millis(o.body_timeout_ms),
            in_flight: AtomicU64::new(0),
            draining: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Samples the store's clock once (Redis `TIME`, PostgreSQL `clock_timestamp()`) and sets
    /// the offset; `Ok(None)` for a store on this host (SQLite, memory: offset 0). Logs the
    /// warning when the offset is over a tenth of the lease.
    pub(crate) async fn sync_clock(&self) -> Result<Option<i64>, String> {
        let t0 = self.clock.local_ms();
        let store_ms = match (&self.store, &self.redis_clock) {
            (_, Some(conn)) => {
                let mut conn = conn.clone();
                let cmd = redis::cmd("TIME");
                let time = cmd.query_async::<(String, String)>(&mut conn);
                let (s, us) = tokio::time::timeout(self.store_timeout, time)
                    .await
                    .map_err(|_| "redis TIME: timeout".to_owned())?
                    .map_err(|e| format!("redis TIME: {e}"))?;
                let num = |t: &str| {
                    t.parse::<i64>()
                        .map_err(|_| format!("redis TIME: {t:?} is not a number"))
                };
                num(&s)?
                    .saturating_mul(1000)
                    .saturating_add(num(&us)? / 1000)
            }
            (Store::Postgres(p), None) => {
                tokio::time::timeout(self.store_timeout, p.pool.clock_ms())
                    .await
                    .map_err(|_| "postgres clock: timeout".to_owned())??
            }
            _ => return Ok(None),
        };
        let t1 = self.clock.local_ms();
        let offset = self.clock.sampled(t0, store_ms, t1);
        let lease = i64::try_from(self.rules.lease_ms()).unwrap_or(i64::MAX);
        if offset.unsigned_abs() > lease.unsigned_abs() / 10 {
            // Once a minute at most while it lasts.
            let now = now_ms();
            let last = self.clock_warned_ms.load(Ordering::Relaxed);
            if last == 0 || now.saturating_sub(last) >= 60_000 {
                self.clock_warned_ms.store(now, Ordering::Relaxed);
                eprintln!(
                    "[{}] clock: this host is {offset} ms off the store's clock (corrected)",
                    self.instance
                );
            }
        }
        Ok(Some(offset))
    }

    /// The background work: the store's clock sampled every `--clock-sync-ms` (a failed sample
    /// keeps the last offset, and is logged), and the PostgreSQL pool's idle connections closed
    /// after `--pool-idle-ms`. Ends when the app is dropped.
    pub(crate) fn spawn_background(self: &Arc<Self>, clock_sync: Duration, pool_idle: Duration) {
        if self.redis_clock.is_some() || matches!(self.store, Store::Postgres(_)) {
            let app = Arc::downgrade(self);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(clock_sync).await;
                    let Some(app) = app.upgrade() else { return };
                    if let Err(e) = app.sync_clock().await {
                        eprintln!(
                            "[{}] clock: sample failed ({e}); keeping the offset {} ms",
                            app.instance,
                            app.clock.offset_ms()
                        );
                    }
                }
            });
        }
        if matches!(self.store, Store::Postgres(_)) {
            let app = Arc::downgrade(self);
            let every = (pool_idle / 4).clamp(Duration::from_millis(20), Duration::from_secs(1));
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let Some(app) = app.upgrade() else { return };
                    if let Store::Postgres(p) = &app.store {
                        p.pool.prune();
                    }
                }
            });
        }
    }

    /// The offset in use (store's clock minus this host's).
    pub(crate) fn clock_offset_ms(&self) -> i64 {
        self.clock.offset_ms()
    }

    /// Requests being handled now.
    pub(crate) fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// A request handed to the service: counted in flight until the guard is dropped.
    pub(crate) fn request_started(self: &Arc<Self>) -> RequestGuard {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        RequestGuard(self.clone())
    }

    /// A connection over `--max-connections`, refused.
    pub(crate) fn connection_refused(&self) {
        inc(&self.stats.refused_connections);
    }

    pub(crate) fn instance(&self) -> &str {
        &self.instance
    }

    pub(crate) fn describe(&self) -> &str {
        &self.described
    }

    /// Logs an error, at most one a second (a Redis restart would otherwise print thousands).
    pub(crate) fn log_error(&self, text: &str) {
        let now = now_ms();
        let last = self.last_log_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= 1_000
            && self
                .last_log_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            eprintln!("[{}] {text}", self.instance);
        }
    }

    /// Counts a connection open until the guard (which holds its slot) is dropped.
    pub(crate) fn connection_opened(
        self: &Arc<Self>,
        slot: tokio::sync::OwnedSemaphorePermit,
    ) -> Connection {
        inc(&self.stats.connections);
        let open = self.stats.connections_open.fetch_add(1, Ordering::Relaxed) + 1;
        self.stats
            .connections_open_max
            .fetch_max(open, Ordering::Relaxed);
        Connection {
            app: self.clone(),
            _slot: slot,
        }
    }

    /// Counts a connection the watchdog closed.
    pub(crate) fn connection_closed(&self, why: crate::conn::Closed) {
        inc(match why {
            crate::conn::Closed::Header => &self.stats.closed_header_timeout,
            crate::conn::Closed::Idle => &self.stats.closed_idle_timeout,
            crate::conn::Closed::Drained => &self.stats.closed_drained,
        });
    }

    /// Shutting down: every answer from now on carries `Connection: close`.
    pub(crate) fn start_draining(&self) {
        self.draining.store(true, Ordering::Release);
    }

    fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    /// Completion retries still going.
    pub(crate) fn pending_retries(&self) -> u64 {
        self.stats.completions_retry_pending.load(Ordering::Relaxed)
    }

    /// A `complete` after the persist failed with a store error (Redis hung or away): retried
    /// in the background with the same token and the store's time, every 250 ms doubling up to
    /// 1 s, until the store answers (`completed`: the id is done, logged; `stale`: the claim is
    /// no longer this token's, logged, stopped) or `RETRY_FOR` passes (given up, logged). Core's
    /// `complete` records the id done when it finds no entry, or one past its TTL (contract v3),
    /// so the retry sticks after the lease expired too. At most `MAX_PENDING_RETRIES` at once.
    fn retry_completion(self: &Arc<Self>, id: &str, token: &str) {
        let pending = self
            .stats
            .completions_retry_pending
            .fetch_add(1, Ordering::AcqRel);
        if pending >= MAX_PENDING_RETRIES {
            self.stats
                .completions_retry_pending
                .fetch_sub(1, Ordering::AcqRel);
            inc(&self.stats.completions_retry_dropped);
            self.log_error(&format!(
                "complete {id}: not retried ({MAX_PENDING_RETRIES} retries pending already)"
            ));
            return;
        }
        inc(&self.stats.completions_retried);
        let app = self.clone();
        let (id, token) = (id.to_owned(), token.to_owned());
        tokio::spawn(async move {
            let started = tokio::time::Instant::now();
            let mut wait = RETRY_WAIT;
            let mut tries = 0u64;
            loop {
                tokio::time::sleep(wait).await;
                tries += 1;
                let took = || started.elapsed().as_millis();
                match app.step("complete", &id, &token).await {
                    Ok(Outcome::Completed) => {
                        inc(&app.stats.completions_recovered);
                        eprintln!(
                            "[{}] complete {id}: recovered (done in the store after {tries} retries, {} ms)",
                            app.instance,
                            took()
                        );
                        break;
                    }
                    Ok(o) => {
                        inc(&app.stats.completions_retry_stale);
                        eprintln!(
                            "[{}] complete {id}: the retry answered {o} after {tries} retries ({} ms): stopped",
                            app.instance,
                            took()
                        );
                        break;
                    }
                    Err(ClaimError::Store(e)) if started.elapsed() < RETRY_FOR => {
                        app.log_error(&format!("complete {id}: retry {tries}: {e}"));
                    }
                    Err(e) => {
                        inc(&app.stats.completions_retry_given_up);
                        eprintln!(
                            "[{}] complete {id}: given up after {tries} retries ({} ms): {e}",
                            app.instance,
                            took()
                        );
                        break;
                    }
                }
                wait = (wait * 2).min(RETRY_WAIT_MAX);
            }
            app.stats
                .completions_retry_pending
                .fetch_sub(1, Ordering::AcqRel);
        });
    }

    pub(crate) fn stats_json(&self) -> String {
        let s = &self.stats;
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        serde_json::to_string(&StatsView {
            instance: &self.instance,
            requests: g(&s.requests),
            processed: g(&s.processed),
            duplicate: g(&s.duplicate),
            in_progress: g(&s.in_progress),
            ignored: g(&s.ignored),
            rejected: g(&s.rejected),
            persist_failed: g(&s.persist_failed),
            store_errors: g(&s.store_errors),
            stale: g(&s.stale),
            connections_open: g(&s.connections_open),
            connections_open_max: g(&s.connections_open_max),
            connections: g(&s.connections),
            closed_header_timeout: g(&s.closed_header_timeout),
            closed_idle_timeout: g(&s.closed_idle_timeout),
            refused_connections: g(&s.refused_connections),
            body_too_large: g(&s.body_too_large),
            body_timeout: g(&s.body_timeout),
            closed_drained: g(&s.closed_drained),
            completions_retried: g(&s.completions_retried),
            completions_recovered: g(&s.completions_recovered),
            completions_retry_stale: g(&s.completions_retry_stale),
            completions_retry_given_up: g(&s.completions_retry_given_up),
            completions_retry_dropped: g(&s.completions_retry_dropped),
            completions_retry_pending: g(&s.completions_retry_pending),
            clock_offset_ms: self.clock.offset_ms(),
            recovered: g(&s.recovered),
            catch_ups: g(&s.catch_ups),
            catch_ups_failed: g(&s.catch_ups_failed),
            catch_up_unhandled: g(&s.catch_up_unhandled),
        })
        .unwrap_or_else(|_| "{}".to_owned())
    }

    async fn step(&self, step: &str, id: &str, token: &str) -> Result<Outcome, ClaimError> {
        self.step_at(step, id, token, self.clock.now_ms()).await
    }

    async fn step_at(
        &self,
        step: &str,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<Outcome, ClaimError> {
        match &self.store {
            Store::Memory(c) => c.step(step, id, token, at),
            Store::Redis(c) => {
                match tokio::time::timeout(self.store_timeout, c.step(step, id, token, at)).await {
                    Ok(r) => r,
                    Err(_) => Err(ClaimError::Store(StoreError::new("redis: timeout"))),
                }
            }
            Store::Postgres(p) => {
                let step = step.into_step()?;
                match tokio::time::timeout(self.store_timeout, p.step(step, id, token, at)).await {
                    Ok(r) => r,
                    Err(_) => Err(ClaimError::Store(StoreError::new("postgres: timeout"))),
                }
            }
            Store::Sqlite(s) => {
                let step = step.into_step()?;
                match tokio::time::timeout(self.store_timeout, s.step(step, id, token, at)).await {
                    Ok(r) => r,
                    Err(_) => Err(ClaimError::Store(StoreError::new("sqlite: timeout"))),
                }
            }
            Store::Naive { .. } => Err(ClaimError::Store(StoreError::new(
                "the naive mode has no claims",
            ))),
        }
    }

    /// In SQLite, a handling's turn on the connection ([`sql::Sqlite::turn`]), waited for at
    /// most `--store-timeout-ms`; other stores: none needed.
    async fn sqlite_turn(&self) -> Result<Option<sql::Turn<'_>>, ClaimError> {
        match &self.store {
            Store::Sqlite(s) => tokio::time::timeout(self.store_timeout, s.turn())
                .await
                .map(Some)
                .map_err(|_| {
                    ClaimError::Store(StoreError::new(
                        "sqlite: timeout (waiting for the connection)",
                    ))
                }),
            _ => Ok(None),
        }
    }

    /// In PostgreSQL or SQLite, the persist act: the test knobs, then BEGIN and the event's
    /// row (`at`: its time), bounded by `--store-timeout-ms`.
    async fn begin(
        &self,
        env: &Envelope,
        token: &str,
        claimed_at: u64,
        at: u64,
    ) -> Result<sql::Tx<'_>, String> {
        self.before_persist(env.id()).await?;
        let row = sql::EventRow {
            id: env.id(),
            event: env.event(),
            instance: &self.instance,
            token,
            claimed_at_ms: claimed_at,
            lease_ms: self.rules.lease_ms(),
            at_ms: at,
        };
        let (begun, db) = match &self.store {
            Store::Postgres(p) => (
                tokio::time::timeout(self.store_timeout, p.begin(&row)).await,
                "postgres",
            ),
            Store::Sqlite(s) => (
                tokio::time::timeout(self.store_timeout, s.begin(&row)).await,
                "sqlite",
            ),
            _ => return Err("no transactions in this store".to_owned()),
        };
        begun.unwrap_or_else(|_| Err(format!("{db}: timeout")))
    }

    /// The complete step on the open transaction, bounded by `--store-timeout-ms` (cut, the
    /// transaction cannot commit).
    async fn complete_in(
        &self,
        tx: &mut sql::Tx<'_>,
        id: &str,
        token: &str,
    ) -> Result<Outcome, ClaimError> {
        let at = self.clock.now_ms();
        match tokio::time::timeout(self.store_timeout, tx.complete(id, token, at)).await {
            Ok(r) => r,
            Err(_) => {
                tx.fail();
                Err(ClaimError::Store(StoreError::new(self.db_timeout())))
            }
        }
    }

    /// The commit act, bounded by `--store-timeout-ms`.
    async fn commit(&self, tx: sql::Tx<'_>) -> Result<(), String> {
        tokio::time::timeout(self.store_timeout, tx.commit())
            .await
            .unwrap_or_else(|_| Err(self.db_timeout().to_owned()))
    }

    fn db_timeout(&self) -> &'static str {
        match self.store {
            Store::Sqlite(_) => "sqlite: timeout",
            _ => "postgres: timeout",
        }
    }

    /// The event's log line (`--persist`), after the commit (the table is what counts; the
    /// line may be lost to a kill between the two).
    async fn log_line(&self, env: &Envelope, token: &str, claimed_at: u64, at: u64) {
        let Some(file) = self.file.clone() else {
            return;
        };
        let line = serde_json::to_vec(&Line {
            id: env.id(),
            event: env.event(),
            instance: &self.instance,
            token,
            claimed_at_ms: claimed_at,
            lease_ms: self.rules.lease_ms(),
            at_ms: at,
            clock_offset_ms: self.clock.offset_ms(),
            again: false,
        });
        if let Ok(mut line) = line {
            line.push(b'\n');
            let _ = tokio::task::spawn_blocking(move || (&*file).write_all(&line)).await;
        }
    }

    /// The test knobs before a persist: `--persist-delay-ms`, then `--fail-persist-every`
    /// (every Nth persist fails, but an event fails at most once, so its retry persists it and
    /// a test never depends on how retries interleave with the count).
    /// The persist's number (unique in this process) when it may go on.
    async fn before_persist(&self, id: &str) -> Result<u64, String> {
        if !self.persist_delay.is_zero() {
            tokio::time::sleep(self.persist_delay).await;
        }
        let n = self.persists.fetch_add(1, Ordering::Relaxed) + 1;
        if self.fail_every > 0 && n.is_multiple_of(self.fail_every) {
            let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
            if failed.insert(id.to_owned()) {
                return Err("injected failure (--fail-persist-every)".into());
            }
        }
        Ok(n)
    }

    /// Appends the event's line: one `write(2)` on an `O_APPEND` file, then `fdatasync` when
    /// asked. Done off the async threads.
    async fn persist(&self, env: &Envelope, token: &str, claimed_at: u64) -> Result<(), String> {
        let n = self.before_persist(env.id()).await?;
        let line = |again: bool| {
            let mut line = serde_json::to_vec(&Line {
                id: env.id(),
                event: env.event(),
                instance: &self.instance,
                token,
                claimed_at_ms: claimed_at,
                lease_ms: self.rules.lease_ms(),
                at_ms: self.clock.now_ms(),
                clock_offset_ms: self.clock.offset_ms(),
                again,
            })
            .map_err(|e| e.to_string())?;
            line.push(b'\n');
            Ok::<_, String>(line)
        };
        let fsync = self.fsync;
        // The record first (the unique key), then the log line.
        let again = match &self.records {
            None => false,
            Some(dir) => {
                let name = record_name(env.id());
                let path = dir.join(&name);
                // Written whole under a temporary name, then linked to the event's name: link(2)
                // fails if the record exists (the unique key) and never shows a partial record,
                // so an instance killed mid-write leaves a stray temporary, not a torn record
                // that a redelivery would take for a persisted event.
                let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
                let record = line(false)?;
                tokio::task::spawn_blocking(move || {
                    let written = (|| -> std::io::Result<bool> {
                        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
                        f.write_all(&record)?;
                        if fsync {
                            f.sync_data()?;
                        }
                        match std::fs::hard_link(&tmp, &path) {
                            Ok(()) => Ok(false),
                            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(true),
                            Err(e) => Err(e),
                        }
                    })();
                    let _ = std::fs::remove_file(&tmp);
                    written
                })
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?
            }
        };
        let Some(file) = self.file.clone() else {
            return Ok(());
        };
        let line = line(again)?;
        tokio::task::spawn_blocking(move || {
            (&*file).write_all(&line)?;
            if fsync {
                file.sync_data()?;
            }
            Ok::<(), std::io::Error>(())
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
    }

    async fn webhook(self: &Arc<Self>, req: Request<Incoming>) -> Reply {
        inc(&self.stats.requests);
        // The header as sent; core parses it (a non-UTF-8 value cannot verify).
        let signature = req
            .headers()
            .get(SIGNATURE_HEADER)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        // The raw bytes, never a parsed body: the signature is over them. Copied into one
        // buffer as they arrive (`body.rs`), refused past --max-body-bytes (a declared length
        // at once, unread) or after --body-timeout-ms; the connection is then closed (what is
        // left of the body is never read).
        let deadline = tokio::time::Instant::now() + self.body_timeout;
        let body = match read_body(req.into_body(), self.max_body_bytes, deadline).await {
            Ok(b) => b,
            Err(e) => {
                inc(&self.stats.rejected);
                match e {
                    BodyError::TooLarge => inc(&self.stats.body_too_large),
                    BodyError::Timeout => inc(&self.stats.body_timeout),
                    BodyError::Unreadable => {}
                }
                let r = match e {
                    BodyError::Unreadable => error(StatusCode::BAD_REQUEST, e.code(), None),
                    _ => answered(claims::reply_to_code(e.code()), &failure(e.code(), None)),
                };
                return closing(r);
            }
        };
        let decision = self.receiver.receive(&body, signature.as_deref());
        match &decision {
            Decision::Process(_) => self.process(decision).await.0,
            Decision::Reject(e) => {
                // Core's status for the refusal (400 for the request's signature or envelope).
                inc(&self.stats.rejected);
                answered(decision.reply(), &failure(e.code(), e.field()))
            }
            d => {
                // `ignore` (unknown or planned name) and `duplicate`: acknowledge, keep nothing.
                inc(&self.stats.ignored);
                let text = d.action().as_str();
                answered(
                    decision.reply(),
                    &Answer {
                        result: Some(text),
                        error: None,
                        field: None,
                    },
                )
            }
        }
    }

    /// A `process` decision, through core's [`Handling`]: core says what comes next (claim,
    /// persist, complete, commit, or release after a failed persist or commit) and answers;
    /// this only runs each act against the store (each bounded by `--store-timeout-ms`), counts
    /// and logs it. In PostgreSQL and SQLite the handling is `in_transaction`: the persist is
    /// BEGIN and the event's row, the complete step runs on that transaction, and the commit
    /// act commits both (its result, `committed`, is core's to answer).
    ///
    /// Also gives core's answer (`None` where no handling answered: the naive store, or an act
    /// this receiver cannot carry out), which the catch-up hands to its `Recovery`.
    async fn process(self: &Arc<Self>, decision: Decision) -> (Reply, Option<HandlingAnswer>) {
        let token = format!(
            "{}-{}",
            self.token_prefix,
            self.counter.fetch_add(1, Ordering::Relaxed)
        );
        let Some(env) = decision.envelope().cloned() else {
            return (
                error(StatusCode::INTERNAL_SERVER_ERROR, "NOT_PROCESS", None),
                None,
            );
        };
        if let Store::Naive { .. } = self.store {
            return (self.naive(&env, &token).await, None);
        }
        let id = env.id();
        let in_transaction = matches!(self.store, Store::Postgres(_) | Store::Sqlite(_));
        let mut h = Handling::new(decision, self.rules, token.as_str());
        if in_transaction {
            h = h.in_transaction();
        }
        // SQLite: this handling's turn on the instance's connection, held from the claim to the
        // answer (`sql::Sqlite`), its wait bounded as a store call: not had in time, the claim
        // step fails with the store unreachable (nothing claimed).
        let turn = self.sqlite_turn().await;
        let mut claimed_at = 0;
        // The open transaction (PostgreSQL, SQLite), from the persist to the commit; when its
        // row was written; what `complete` gave on it (counted once committed).
        let mut tx: Option<sql::Tx<'_>> = None;
        let mut written_at = 0;
        let mut completed = None;
        // Acts: claim, persist, complete, commit, release, answer (a few more allowed; never
        // reached).
        for _ in 0..10 {
            let fed = match h.next() {
                Act::Answer(a) => {
                    // A transaction still open (a complete that was not `completed`): rolled
                    // back, nothing of it kept.
                    if let Some(t) = tx.take() {
                        t.rollback().await;
                    }
                    return (self.answered_handling(a), Some(*a));
                }
                Act::Claim { .. } => {
                    claimed_at = self.clock.now_ms();
                    let r = match &turn {
                        Ok(_) => self.step_at("claim", id, &token, claimed_at).await,
                        Err(e) => Err(e.clone()),
                    };
                    match &r {
                        Ok(Outcome::Claimed) => {}
                        Ok(Outcome::InProgress) => inc(&self.stats.in_progress),
                        Ok(_) => inc(&self.stats.duplicate),
                        Err(e) => {
                            inc(&self.stats.store_errors);
                            self.log_error(&format!("claim {id}: {e}"));
                        }
                    }
                    h.claimed(r).map(|_| ())
                }
                Act::Persist(_) => {
                    let written = if in_transaction {
                        written_at = self.clock.now_ms();
                        match self.begin(&env, &token, claimed_at, written_at).await {
                            Ok(t) => {
                                tx = Some(t);
                                Ok(())
                            }
                            // Rolled back: the release gives the id back for the retry.
                            Err(e) => Err(format!("persist and complete: {e}")),
                        }
                    } else {
                        self.persist(&env, &token, claimed_at)
                            .await
                            .map_err(|e| format!("persist: {e}"))
                    };
                    if let Err(why) = &written {
                        inc(&self.stats.persist_failed);
                        self.log_error(&format!("{id} {why}"));
                    }
                    h.persisted(written.is_ok()).map(|_| ())
                }
                Act::Complete { .. } => {
                    let r = match tx.as_mut() {
                        Some(t) => {
                            // `completed` is counted at the commit; `stale` (another request
                            // took the id over) and a failure roll back, at the answer.
                            let r = self.complete_in(t, id, &token).await;
                            match &r {
                                Ok(Outcome::Stale) => inc(&self.stats.stale),
                                Ok(o) => completed = Some(*o),
                                Err(e) => {
                                    inc(&self.stats.persist_failed);
                                    self.log_error(&format!("{id} persist and complete: {e}"));
                                }
                            }
                            r
                        }
                        None => {
                            let r = self.step("complete", id, &token).await;
                            self.count_completion(id, &token, &r);
                            r
                        }
                    };
                    h.completed(r).map(|_| ())
                }
                Act::Commit { .. } => {
                    let committed = match tx.take() {
                        Some(t) => self.commit(t).await,
                        None => Err("no transaction open".to_owned()),
                    };
                    match (&committed, completed) {
                        (Ok(()), Some(outcome)) => {
                            self.count_completion(id, &token, &Ok(outcome));
                            self.log_line(&env, &token, claimed_at, written_at).await;
                        }
                        // Rolled back (or unknown, when the connection broke during the
                        // commit): the retry processes it, or finds it done.
                        (Err(e), _) => {
                            inc(&self.stats.persist_failed);
                            self.log_error(&format!("{id} persist and complete: {e}"));
                        }
                        (Ok(()), None) => {}
                    }
                    h.committed(committed.is_ok()).map(|_| ())
                }
                Act::Release { .. } => {
                    // Never with a transaction open (the commit took it); rolled back if so.
                    if let Some(t) = tx.take() {
                        t.rollback().await;
                    }
                    // Gives the id back so the provider's retry processes it; answered as a
                    // failed persist whatever the release gave.
                    let r = self.step("release", id, &token).await;
                    if let Err(e) = &r {
                        self.log_error(&format!("release {id}: {e}"));
                    }
                    h.released(r).map(|_| ())
                }
                // `Act` may grow: an act this receiver does not know cannot be carried out.
                _ => break,
            };
            if fed.is_err() {
                break;
            }
        }
        (
            error(StatusCode::INTERNAL_SERVER_ERROR, "INVALID_STEP", None),
            None,
        )
    }

    /// An event a catch-up recovered (`Receiver::receive_recovered`'s decision), handled as a
    /// delivery of it is: a `process` through [`App::process`] (claim, persist, complete, in the
    /// same store and transaction), any other decision answered at once by core. Core's answer,
    /// for the catch-up's `Recovery`; `None` where no handling answered (an act this receiver
    /// cannot carry out: the catch-up stops there, its checkpoint before that event).
    pub(crate) async fn handle_recovered(
        self: &Arc<Self>,
        decision: Decision,
    ) -> Option<HandlingAnswer> {
        let action = decision.action();
        let answer = match action {
            Action::Process => self.process(decision).await.1,
            _ => Handling::new(decision, self.rules, "catch-up")
                .answer()
                .copied(),
        };
        match (action, &answer) {
            (Action::Process, Some(a)) if a.persisted => inc(&self.stats.recovered),
            (Action::Reject, _) => inc(&self.stats.rejected),
            (Action::Ignore | Action::Duplicate, _) => inc(&self.stats.ignored),
            _ => {}
        }
        answer
    }

    /// Counts a catch-up: one that ended (and what it found), or one that failed.
    pub(crate) fn count_catch_up(&self, ended: Result<&xborder_core::catch_up::Tally, &str>) {
        match ended {
            Ok(t) => {
                inc(&self.stats.catch_ups);
                self.stats
                    .catch_up_unhandled
                    .fetch_add(t.failed, Ordering::Relaxed);
            }
            Err(e) => {
                inc(&self.stats.catch_ups_failed);
                self.log_error(&format!("catch-up: {e}"));
            }
        }
    }

    /// The receiver (its catalog, limits and dedupe window decide a recovered event).
    pub(crate) fn receiver(&self) -> &Receiver {
        &self.receiver
    }

    /// Counts (and logs) the complete step: `stale` (the lease ran out and another request took
    /// the id over), a store error (the event is persisted: retried in the background),
    /// `processed`. (In SQL only a committed `completed` comes here.)
    fn count_completion(self: &Arc<Self>, id: &str, token: &str, r: &Result<Outcome, ClaimError>) {
        match r {
            Ok(Outcome::Stale) => {
                inc(&self.stats.stale);
                self.log_error(&format!(
                    "complete {id}: {} (persisting took longer than the lease)",
                    Outcome::Stale
                ));
            }
            Ok(_) => {}
            Err(e) => {
                inc(&self.stats.store_errors);
                self.log_error(&format!("complete {id}: {e} (retried in the background)"));
                if matches!(e, ClaimError::Store(_)) {
                    // The answer does not wait: the event is persisted.
                    self.retry_completion(id, token);
                }
            }
        }
        inc(&self.stats.processed);
    }

    /// Core's answer of a handling (its status and `Retry-After`), with this receiver's body:
    /// `{"result": ...}` (`processed`, or the claim's outcome) or `{"error": code}`.
    fn answered_handling(&self, a: &HandlingAnswer) -> Reply {
        fn said(text: &str) -> Answer<'_> {
            Answer {
                result: Some(text),
                error: None,
                field: None,
            }
        }
        let outcome = a.outcome.map_or("", Outcome::as_str);
        match (a.persisted, a.code) {
            (false, Some(code)) => answered(a.reply, &failure(code, None)),
            (false, None) => answered(a.reply, &said(outcome)),
            // Persisted: answered as completed whatever `complete` gave (the record, the unique
            // key, makes a retry harmless). In SQL, a complete not `completed` persisted nothing
            // (rolled back): answered above with its outcome (`stale`) or code.
            (true, _) => answered(a.reply, &said("processed")),
        }
    }

    /// The naive receiver: `SET key 1 NX`, then persist, then 200. No lease, no release.
    async fn naive(&self, env: &Envelope, token: &str) -> Reply {
        let Store::Naive {
            conn,
            prefix,
            ttl_ms,
        } = &self.store
        else {
            return error(StatusCode::INTERNAL_SERVER_ERROR, "NOT_NAIVE", None);
        };
        let mut conn = conn.clone();
        let mut cmd = redis::cmd("SET");
        cmd.arg(format!("{prefix}{}", env.id())).arg(1).arg("NX");
        if *ttl_ms > 0 {
            cmd.arg("PX").arg(*ttl_ms);
        }
        let set: Result<Result<Option<String>, redis::RedisError>, _> =
            tokio::time::timeout(self.store_timeout, cmd.query_async(&mut conn)).await;
        match set {
            Ok(Ok(Some(_))) => {}
            Ok(Ok(None)) => {
                // Someone set it: answered 200 even if that someone has not persisted yet.
                inc(&self.stats.duplicate);
                return result(StatusCode::OK, "duplicate");
            }
            Ok(Err(e)) => {
                inc(&self.stats.store_errors);
                self.log_error(&format!("SET NX {}: {e}", env.id()));
                return error(StatusCode::SERVICE_UNAVAILABLE, "STORE_UNAVAILABLE", None);
            }
            Err(_) => {
                inc(&self.stats.store_errors);
                return error(StatusCode::SERVICE_UNAVAILABLE, "STORE_UNAVAILABLE", None);
            }
        }
        match self.persist(env, token, self.clock.now_ms()).await {
            Ok(()) => {
                inc(&self.stats.processed);
                result(StatusCode::OK, "processed")
            }
            Err(e) => {
                // The key stays: every redelivery is now a "duplicate". The event is lost.
                inc(&self.stats.persist_failed);
                self.log_error(&format!("persist {}: {e}", env.id()));
                error(StatusCode::INTERNAL_SERVER_ERROR, "PERSIST_FAILED", None)
            }
        }
    }
}

/// The service: `POST` any path is a webhook delivery; `GET /healthz`, `GET /stats`.
pub(crate) async fn handle(app: Arc<App>, req: Request<Incoming>) -> Result<Reply, Infallible> {
    let answer = answer(&app, req).await;
    // Shutting down: the client must not send another request on this connection.
    Ok(if app.is_draining() {
        closing(answer)
    } else {
        answer
    })
}

async fn answer(app: &Arc<App>, req: Request<Incoming>) -> Reply {
    match (req.method(), req.uri().path()) {
        (&Method::POST, _) => app.webhook(req).await,
        (&Method::GET, "/healthz") => result(StatusCode::OK, "ok"),
        (&Method::GET, "/stats") => {
            let mut r = Response::new(Full::new(Bytes::from(app.stats_json())));
            r.headers_mut().insert(
                CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("application/json"),
            );
            r
        }
        _ => error(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", None),
    }
}
