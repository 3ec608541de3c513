//! # An axum webhook endpoint over xborder-core
//!
//! The recipe of xborder-core's front page, as code that compiles and runs (its test starts it
//! on a free port and sends it real deliveries). Copy [`webhook`] and [`router`]; replace
//! [`Events`] with your database.
//!
//! 1. The body as raw bytes, read by [`read_body`] (the signature is over the bytes as sent:
//!    never a `Json` extractor), and the `X-Webhook-Signature` header.
//! 2. [`Receiver::receive`]: verify, decode, classify. A `reject`, an `ignore` or a `duplicate`
//!    is answered at once with [`Decision::reply`]'s status.
//! 3. A `process`: core's one call, [`Handling::run_async`], over the claims store ([`Dedupe`]:
//!    in memory for one instance, [`RedisClaims`] for several) and your write: it **claims** the
//!    id with a token of this request, has your write **persist** it (an `.await`: nothing is
//!    locked across it), **completes** the claim and gives core's answer. Persisting failed: it
//!    **releases** the claim and answers 500 (`PERSIST_FAILED`), and the provider retries.
//!
//! ## The body: memory held is memory counted
//!
//! Not axum's `Bytes` extractor: it collects the body's frames, and each frame's `Bytes` keeps
//! alive the read buffer hyper cut it from, so a body trickled one byte per TCP segment holds
//! about 4 KB of memory per byte received (four such connections took a receiver to 806 MB for
//! 0.19 MiB of body), and its limit counts bytes, not memory. [`read_body`] copies each frame
//! into ONE buffer as it arrives and drops it, so a body holds what it received:
//!
//! - a declared `Content-Length` over the limit (the receiver's own,
//!   [`Limits::max_body_bytes`], 1 MiB) is refused at once, unread: core's `BODY_TOO_LARGE`
//!   (413);
//! - a chunked body is refused as soon as the bytes received pass the limit (413);
//! - the whole body must arrive within [`App::body_timeout`] (10 s) of the handler's start:
//!   otherwise core's `BODY_TIMEOUT` (408).
//!
//! Each refusal closes the connection (`Connection: close`: the rest of the body is never
//! read). Use it in your own handlers: take the body as [`axum::body::Body`] (the last
//! argument) and call `read_body(body, limit, deadline)`. axum does not limit the number of
//! open connections or the time to send a request head: put the server behind a proxy that
//! does, or serve with hyper's connection builder as `examples/receiver-rust` does.
//!
//! Every Redis call of a claim step is bounded by [`App::store_timeout`] (2 s): a store that hangs is answered
//! as one that failed, core's `STORE_UNAVAILABLE` (503, `Retry-After: 1`), not held until the
//! provider gives up. Every answer is JSON: `{"action": ...}` for a 2xx,
//! `{"error": {"code", "message", "field"?}}` otherwise, with `Retry-After` where core gives one.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use xborder_core::claims::{
    reply_to_code, AsyncClaimStore, ClaimRules, ClaimStore, Claims, Entry, Reply, StoreTime,
};
use xborder_core::delivery::{Decision, Receiver, StoreError};
use xborder_core::envelope::{Envelope, Limits};
use xborder_core::handling::{Handling, PERSIST_FAILED};
use xborder_core::transport::BodyBuffer;
use xborder_redis::RedisClaims;

/// The header the provider signs with (HTTP header names are case-insensitive).
pub const SIGNATURE_HEADER: &str = "x-webhook-signature";

/// Where claims are kept: this process's memory (one instance), or Redis (several instances
/// behind a load balancer).
pub enum Dedupe {
    /// One instance: core's built-in store.
    Memory(Claims),
    /// Several instances: one Redis for all.
    Redis(RedisClaims),
}

/// The claims store of one request, as core's [`Handling::run_async`] calls it: each call (a
/// load, a compare-and-set) bounded by `timeout` in Redis (a store that hangs is a store that
/// failed), the last failure kept for the answer's message.
struct Bounded<'a> {
    claims: &'a Dedupe,
    timeout: Duration,
    failed: std::sync::Mutex<Option<StoreError>>,
}

impl Bounded<'_> {
    /// `result`, its error kept.
    fn kept<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(e) = &result {
            if let Ok(mut failed) = self.failed.lock() {
                *failed = Some(e.clone());
            }
        }
        result
    }

    /// Redis's `call`, bounded.
    async fn bounded<T>(
        &self,
        call: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let result = tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| Err(StoreError::new("redis: timeout")));
        self.kept(result)
    }
}

impl AsyncClaimStore for Bounded<'_> {
    async fn load(&self, id: &str, time: StoreTime) -> Result<Option<Entry>, StoreError> {
        match self.claims {
            // In memory: O(1) under a lock held for the call only, no IO: no await needed.
            Dedupe::Memory(c) => self.kept(c.store().load(id, time)),
            Dedupe::Redis(c) => self.bounded(c.load(id, time)).await,
        }
    }

    async fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError> {
        match self.claims {
            Dedupe::Memory(c) => self.kept(c.store().compare_and_set(id, expected, new, time)),
            Dedupe::Redis(c) => {
                self.bounded(AsyncClaimStore::compare_and_set(c, id, expected, new, time))
                    .await
            }
        }
    }
}

/// Why [`read_body`] did not return the whole body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyError {
    /// The declared `Content-Length`, or the bytes received, passed the limit.
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The body had not arrived whole by the deadline.
    Timeout,
    /// The connection broke, or the chunked encoding was malformed.
    Unreadable,
}

impl BodyError {
    /// The code: `BODY_TOO_LARGE`, `BODY_TIMEOUT` (core's codes, answered with
    /// [`reply_to_code`]: 413, 408) or `BODY_UNREADABLE`.
    pub fn code(&self) -> &'static str {
        match self {
            BodyError::TooLarge { .. } => "BODY_TOO_LARGE",
            BodyError::Timeout => "BODY_TIMEOUT",
            BodyError::Unreadable => "BODY_UNREADABLE",
        }
    }
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::TooLarge { limit } => {
                write!(f, "BODY_TOO_LARGE: the body is over {limit} bytes")
            }
            BodyError::Timeout => write!(f, "BODY_TIMEOUT: the body did not arrive in time"),
            BodyError::Unreadable => write!(f, "BODY_UNREADABLE: the body could not be read"),
        }
    }
}

impl IntoResponse for BodyError {
    /// Core's reply for the code (413, 408; 400 for an unreadable body), in the recipe's JSON,
    /// with `Connection: close`: what is left of the body is never read.
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code(), "message": self.to_string()}});
        let mut response = match self {
            BodyError::Unreadable => (StatusCode::BAD_REQUEST, Json(body)).into_response(),
            _ => answer(reply_to_code(self.code()), body),
        };
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        response
    }
}

/// Reads a request body whole into ONE buffer, copying each frame as it arrives (and dropping
/// it, with its hold on hyper's read buffer): the memory a body holds is the bytes received.
/// A declared `Content-Length` over `limit` is refused before a byte is read; a body whose
/// bytes pass `limit` is refused as they do; a body not received whole by `deadline` is
/// [`BodyError::Timeout`]. The buffer never grows past `limit`.
///
/// ```
/// # async fn demo() {
/// use std::time::Duration;
/// use xborder_recipe_axum::{read_body, BodyError};
/// let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
/// let body = axum::body::Body::from("{}");
/// assert_eq!(read_body(body, 1024, deadline).await.unwrap(), b"{}");
/// let body = axum::body::Body::from("too long");
/// assert_eq!(read_body(body, 4, deadline).await, Err(BodyError::TooLarge { limit: 4 }));
/// # }
/// ```
pub async fn read_body(
    body: Body,
    limit: usize,
    deadline: tokio::time::Instant,
) -> Result<Vec<u8>, BodyError> {
    let mut body = body;
    let too_large = |_| BodyError::TooLarge { limit };
    // core's BodyBuffer: a declared length over the limit refused at once, one buffer that
    // never grows past the limit.
    let mut buf =
        BodyBuffer::new(http_body::Body::size_hint(&body).exact(), limit).map_err(too_large)?;
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return Err(BodyError::Timeout),
            Ok(None) => return Ok(buf.into_bytes()),
            Ok(Some(Err(_))) => return Err(BodyError::Unreadable),
            Ok(Some(Ok(frame))) => frame,
        };
        // Trailers carry nothing signed: skipped.
        let Ok(data) = frame.into_data() else {
            continue;
        };
        buf.push(&data).map_err(too_large)?;
        // `data` dropped here: hyper may reuse its read buffer.
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Your database: here a table of persisted events by id (an upsert, so a redelivery processed
/// again after a crash changes nothing), with a delay standing for its IO.
#[derive(Default)]
pub struct Events {
    rows: tokio::sync::Mutex<HashMap<String, String>>,
    /// How long a write takes.
    pub delay: Duration,
    /// Makes the next write fail (for the test of a failed persist).
    pub fail_next: AtomicBool,
}

impl Events {
    /// An empty table whose writes take `delay`.
    pub fn with_delay(delay: Duration) -> Events {
        Events {
            delay,
            ..Events::default()
        }
    }

    /// Saves the event (its id, its name and its `data` as sent).
    pub async fn save(&self, env: &Envelope) -> Result<(), String> {
        tokio::time::sleep(self.delay).await;
        if self.fail_next.swap(false, Ordering::SeqCst) {
            return Err("the database is down".into());
        }
        let row = json!({"event": env.event(), "data": env.raw_data()}).to_string();
        self.rows.lock().await.insert(env.id().to_owned(), row);
        Ok(())
    }

    /// How many events are persisted.
    pub async fn len(&self) -> usize {
        self.rows.lock().await.len()
    }

    /// Whether none is.
    pub async fn is_empty(&self) -> bool {
        self.rows.lock().await.is_empty()
    }
}

/// What every request shares: no lock of ours, the receiver and the claims take `&self`.
pub struct App {
    /// Window 0: the claims dedupe (a window would remember ids per instance only).
    pub receiver: Receiver,
    /// Where claims are kept.
    pub claims: Dedupe,
    /// The lease and window the claims run with (for the status of each outcome).
    pub rules: ClaimRules,
    /// Where events are persisted.
    pub events: Events,
    /// This instance's name, the prefix of its claim tokens.
    pub instance: String,
    /// The time a request's whole body has to arrive (default 10 s): then 408, `BODY_TIMEOUT`.
    pub body_timeout: Duration,
    /// The time one call to the claims store may take (default 2 s): then 503,
    /// `STORE_UNAVAILABLE`.
    pub store_timeout: Duration,
    requests: AtomicU64,
}

impl App {
    /// An app over `secret` (checked now: a secret pasted with its line end is
    /// `MALFORMED_SECRET` at start-up, not a refusal of every delivery), with `limits`.
    pub fn new(
        secret: &str,
        limits: Limits,
        claims: Dedupe,
        rules: ClaimRules,
        events: Events,
        instance: &str,
    ) -> Result<App, xborder_core::signature::SignatureError> {
        Ok(App {
            receiver: Receiver::new(&[secret], 0)?.with_limits(limits),
            claims,
            rules,
            events,
            instance: instance.to_owned(),
            body_timeout: Duration::from_secs(10),
            store_timeout: Duration::from_secs(2),
            requests: AtomicU64::new(0),
        })
    }
}

/// The routes: `POST /webhooks` (its body limit is the receiver's, applied by [`read_body`]).
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/webhooks", post(webhook))
        .with_state(app)
}

/// Core's status, `Retry-After` when it gives one, and a JSON body.
fn answer(reply: Reply, body: Value) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, Json(body)).into_response();
    if let Some(s) = reply.retry_after_s {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(s));
    }
    response
}

/// The endpoint: raw bytes and the header in, core's decision and status out.
pub async fn webhook(State(app): State<Arc<App>>, headers: HeaderMap, body: Body) -> Response {
    // The body, read into one buffer within the receiver's limit and the body timeout.
    let deadline = tokio::time::Instant::now() + app.body_timeout;
    let body = match read_body(body, app.receiver.limits().max_body_bytes, deadline).await {
        Ok(body) => body,
        Err(e) => return e.into_response(),
    };
    // The header's bytes as sent (a value that is not UTF-8 cannot verify: core says so).
    let signature = headers
        .get(SIGNATURE_HEADER)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let decision = app.receiver.receive(&body, signature.as_deref());
    let n = app.requests.fetch_add(1, Ordering::Relaxed);
    let handling = Handling::new(decision, app.rules, format!("{}-{n}", app.instance));
    if let Some(done) = handling.answer() {
        // Not a `process`: core's reply for the decision, at once.
        let body = match handling.decision() {
            Decision::Reject(e) => json!({"error": e}),
            // `ignore` (a name this release does not know, or a planned one) and `duplicate`.
            other => json!({"action": other.action()}),
        };
        return answer(done.reply, body);
    }
    // Core's flow: claim, persist (your write, awaited: nothing is locked across it),
    // complete, or release when the write failed; core's reply at the end.
    let store = Bounded {
        claims: &app.claims,
        timeout: app.store_timeout,
        failed: std::sync::Mutex::new(None),
    };
    let events = &app.events;
    let (done, failed_write) = handling
        .run_async(&store, now_ms, |env| async move { events.save(&env).await })
        .await;
    let body = match (failed_write, done.persisted, done.code) {
        // Not persisted: the claim was given back, so the provider's retry processes it.
        (Some(why), _, _) => json!({"error": {"code": PERSIST_FAILED, "message": why}}),
        // Persisted: 200 whatever `complete` said (a store failure now only means a redelivery
        // is processed again, and the upsert makes that harmless).
        (None, true, code) => {
            let complete = code.map_or_else(
                || done.outcome.map(|o| o.to_string()),
                |c| Some(c.to_owned()),
            );
            json!({"action": "process", "complete": complete})
        }
        // The claim failed (`STORE_UNAVAILABLE`: 503, Retry-After: 1).
        (None, false, Some(code)) => {
            let message = store
                .failed
                .lock()
                .ok()
                .and_then(|f| f.as_ref().map(ToString::to_string));
            let message = message.unwrap_or_else(|| code.to_owned());
            json!({"error": {"code": code, "message": message}})
        }
        // Claimed elsewhere: `duplicate` (200) or `in_progress` (503 with Retry-After).
        (None, false, None) => json!({"action": "duplicate", "claim": done.outcome}),
    };
    answer(done.reply, body)
}

/// The README's snippet, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
