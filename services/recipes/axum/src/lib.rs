//! # An axum webhook endpoint over xborder-core
//!
//! The recipe of xborder-core's front page, as code that compiles and runs (its test starts it
//! on a free port and sends it real deliveries). Copy [`webhook`] and [`router`]; replace
//! [`Events`] with your database.
//!
//! 1. The body as raw [`Bytes`] (the signature is over the bytes as sent: never a `Json`
//!    extractor) and the `X-Webhook-Signature` header.
//! 2. [`Receiver::receive`]: verify, decode, classify. A `reject`, an `ignore` or a `duplicate`
//!    is answered at once with [`Decision::reply`]'s status.
//! 3. A `process`: **claim** the id with a token of this request ([`Dedupe`]: in memory for one
//!    instance, [`RedisClaims`] for several), **persist** it (an `.await`: nothing is locked
//!    across it), **complete** the claim, answer core's status. Persisting failed: **release**,
//!    answer core's status for that (500), and the provider retries.
//!
//! The body limit is the receiver's own ([`Limits::max_body_bytes`], 1 MiB):
//! [`DefaultBodyLimit::max`] with the same number, and axum's refusal of a longer body is
//! answered as core's `BODY_TOO_LARGE` (413, the same JSON as every other refusal), so one limit
//! and one refusal format remain. Every answer is JSON: `{"action": ...}` for a 2xx,
//! `{"error": {"code", "message", "field"?}}` otherwise, with `Retry-After` where core gives one.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use xborder_core::claims::{reply_to_code, ClaimError, ClaimRules, Claims, Outcome, Reply, Step};
use xborder_core::delivery::{Decision, Receiver};
use xborder_core::envelope::{Envelope, Limits};
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

impl Dedupe {
    async fn step(&self, step: Step, id: &str, token: &str) -> Result<Outcome, ClaimError> {
        let at = now_ms();
        match self {
            // In memory: O(1) under a lock held for the step only, no IO: no await needed.
            Dedupe::Memory(c) => c.step(step, id, token, at),
            Dedupe::Redis(c) => c.step(step, id, token, at).await,
        }
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
            requests: AtomicU64::new(0),
        })
    }
}

/// The routes: `POST /webhooks`, with the body limit set to the receiver's.
pub fn router(app: Arc<App>) -> Router {
    let limit = app.receiver.limits().max_body_bytes;
    Router::new()
        .route("/webhooks", post(webhook))
        .layer(DefaultBodyLimit::max(limit))
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
pub async fn webhook(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match body {
        Ok(body) => body,
        // Over `DefaultBodyLimit`, the receiver's own limit: core's refusal, in core's format.
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            let code = "BODY_TOO_LARGE";
            let message = format!(
                "{code}: the body is over {} bytes",
                app.receiver.limits().max_body_bytes
            );
            return answer(
                reply_to_code(code),
                json!({"error": {"code": code, "message": message}}),
            );
        }
        Err(e) => return e.into_response(),
    };
    // The header's bytes as sent (a value that is not UTF-8 cannot verify: core says so).
    let signature = headers
        .get(SIGNATURE_HEADER)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let decision = app.receiver.receive(&body, signature.as_deref());
    let env = match &decision {
        Decision::Process(env) => env,
        Decision::Reject(e) => return answer(decision.reply(), json!({"error": e})),
        // `ignore` (a name this release does not know, or a planned one) and `duplicate`.
        other => return answer(other.reply(), json!({"action": other.action()})),
    };

    let n = app.requests.fetch_add(1, Ordering::Relaxed);
    let token = format!("{}-{n}", app.instance);
    match app.claims.step(Step::Claim, env.id(), &token).await {
        Err(e) => return answer(e.reply(), json!({"error": e})),
        Ok(outcome) => {
            // `duplicate` → 200, `in_progress` → 503 with Retry-After; `claimed` → go on.
            if let Some(reply) = app.rules.reply(Step::Claim, outcome) {
                return answer(reply, json!({"action": "duplicate", "claim": outcome}));
            }
        }
    }
    if let Err(why) = app.events.save(env).await {
        // Not persisted: give the id back so the provider's retry processes it.
        let released = app.claims.step(Step::Release, env.id(), &token).await;
        let reply = match &released {
            Ok(outcome) => app.rules.reply(Step::Release, *outcome),
            Err(e) => Some(e.reply()),
        }
        .unwrap_or(reply_to_code("INTERNAL_ERROR"));
        return answer(
            reply,
            json!({"error": {"code": "PERSIST_FAILED", "message": why}}),
        );
    }
    // Persisted: the answer is 200 whatever `complete` says (a store failure now only means a
    // redelivery is processed again, and the upsert makes that harmless).
    let completed = app.claims.step(Step::Complete, env.id(), &token).await;
    let reply = app
        .rules
        .reply(Step::Complete, Outcome::Completed)
        .unwrap_or(Reply::OK);
    answer(
        reply,
        json!({"action": "process", "complete": completed.map_or_else(|e| e.code().to_owned(), |o| o.to_string())}),
    )
}
