//! Delivering a plan: workers, the provider's retry rule, counters, progress and the summary.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use serde::Serialize;
use xborder_core::delivery::MAX_DELIVERY_ATTEMPTS;

use crate::attempts::{DeliveryAttempts, DeliveryState};
use crate::client::{Answer, NoAnswer, Pool, Target};
use crate::plan::{self, EventSpec, ForgedSpec, Job, Plan, Rng};

/// When to print the progress line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Updated in place on a terminal, a line every few seconds otherwise.
    Auto,
    /// Never.
    Off,
}

/// What to send, where, and how.
#[derive(Debug, Clone)]
pub struct Config {
    /// Endpoints; deliveries (attempts) are spread over them in turn.
    pub urls: Vec<String>,
    /// The webhook signature key.
    pub secret: String,
    /// Distinct good events (live and unknown).
    pub events: usize,
    /// Fraction of events delivered again after they were acknowledged.
    pub duplicates: f64,
    /// Fraction of events whose first delivery is two deliveries at once.
    pub concurrent: f64,
    /// Replays of old ids, as a fraction of the events, sent after every event was sent once.
    pub replays: f64,
    /// Forged deliveries (wrong key, tampered body, missing or malformed header), as a
    /// fraction of the events: each must be refused.
    pub bad_signatures: f64,
    /// Fraction of events with a name the catalog does not know: each must be acknowledged.
    pub unknown: f64,
    /// Jobs (an event's deliveries, a forged delivery, a replay) in flight at once.
    pub concurrency: usize,
    /// Seed of every choice (which events are duplicated, their names, the jitter).
    pub seed: u64,
    /// Prefix of this run's ids (`evt_<run>_<n>`); a fresh one by default, from the clock.
    pub run_id: Option<String>,
    /// Attempts per delivery before it is dead-lettered (the provider's: 5).
    pub max_attempts: u32,
    /// Delay before the first retry; doubled for each next one, plus up to half of it in jitter.
    pub backoff_ms: u64,
    /// The longest delay between two attempts.
    pub backoff_max_ms: u64,
    /// The receivers' claim lease, when known (`--lease-ms`): a run warns, and its summary
    /// says, when the retries end before it (see [`retry_span_ms`]).
    pub lease_ms: Option<u64>,
    /// Time allowed for one request (connect, send, answer); past it the attempt failed.
    pub timeout_ms: u64,
    /// Jobs started per second at most (0: as fast as the workers go).
    pub rate: f64,
    /// Where to write the summary as JSON.
    pub json: Option<PathBuf>,
    /// Where to write the ids a receiver must persist (live events), one per line.
    pub expect: Option<PathBuf>,
    /// Where to write every attempt of a live event (its id, when it was sent and when its
    /// answer or error came, wall clock ms), one JSON line each: `check --attempts` compares
    /// the receivers' claim times with them.
    pub attempts: Option<PathBuf>,
    /// Where to append every event generated (live and unknown) as the provider's record of
    /// `GET /v1/external-events` (what the `api` subcommand serves), one JSON line each.
    pub external_events: Option<PathBuf>,
    /// The progress line.
    pub progress: Progress,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            urls: Vec::new(),
            secret: String::new(),
            events: 1000,
            duplicates: 0.0,
            concurrent: 0.0,
            replays: 0.0,
            bad_signatures: 0.0,
            unknown: 0.0,
            concurrency: 16,
            seed: 1,
            run_id: None,
            max_attempts: MAX_DELIVERY_ATTEMPTS,
            backoff_ms: 50,
            backoff_max_ms: 5_000,
            lease_ms: None,
            timeout_ms: 10_000,
            rate: 0.0,
            json: None,
            expect: None,
            attempts: None,
            external_events: None,
            progress: Progress::Auto,
        }
    }
}

/// A delivery that was never acknowledged in `attempts`: the provider's dead-letter queue.
#[derive(Debug, Clone, Serialize)]
pub struct DeadLetter {
    /// The event id.
    pub id: String,
    /// The event name.
    pub event: String,
    /// Which delivery: `first`, `concurrent`, `duplicate` or `replay`.
    pub delivery: String,
    /// Attempts made.
    pub attempts: u32,
    /// The last answer: a status or the connection error.
    pub last: String,
}

/// A forged delivery that was answered 2xx: an error of the receiver.
#[derive(Debug, Clone, Serialize)]
pub struct Accepted {
    /// The forged event's id.
    pub id: String,
    /// How it was forged.
    pub kind: String,
    /// The status it got.
    pub status: u16,
}

/// Request latencies (answered requests only), in milliseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Latency {
    /// Median.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Slowest.
    pub max_ms: f64,
}

/// What a run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// The id prefix of this run (`evt_<run_id>_`).
    pub run_id: String,
    /// The endpoints.
    pub urls: Vec<String>,
    /// Distinct good events.
    pub events: usize,
    /// Of which live (a receiver persists them).
    pub live_events: usize,
    /// Of which unknown (acknowledged, not persisted).
    pub unknown_events: usize,
    /// Deliveries of good events (each up to `max_attempts` attempts): first deliveries,
    /// concurrent twins, duplicates after acknowledgement, replays of old ids.
    pub sequences: u64,
    /// Concurrent twins sent.
    pub concurrent_sent: u64,
    /// Duplicates sent after acknowledgement.
    pub duplicates_sent: u64,
    /// Replays of old ids sent.
    pub replays_sent: u64,
    /// HTTP requests (every attempt, forged ones included).
    pub deliveries: u64,
    /// Deliveries of good events that ended in a 2xx.
    pub acknowledged: u64,
    /// Attempts after the first of their delivery.
    pub retried: u64,
    /// Deliveries never acknowledged in `max_attempts` attempts.
    pub dead_lettered: u64,
    /// Distinct events among them.
    pub dead_lettered_events: usize,
    /// Of the dead-lettered deliveries, those whose last answer was `503 in_progress`: a claim
    /// held the event through every retry (an instance that died holding it, with a lease longer
    /// than the retries; or a processing slower than they are).
    pub dead_lettered_held: u64,
    /// The dead-letter list.
    pub dead_letter: Vec<DeadLetter>,
    /// From a delivery's first attempt to its last, at least (no jitter) and at most (full
    /// jitter), under this run's schedule.
    pub retry_span_ms: (u64, u64),
    /// The receivers' lease, when given (`--lease-ms`).
    pub lease_ms: Option<u64>,
    /// Redeliveries of live events sent after their first delivery was acknowledged (duplicates
    /// after the ack, replays), by what the final answer said.
    pub redelivered: Redelivered,
    /// Forged deliveries sent.
    pub bad_signatures_sent: usize,
    /// Of which refused (non-2xx): right.
    pub bad_signatures_refused: u64,
    /// Of which accepted (2xx): an error of the receiver.
    pub bad_signatures_accepted: u64,
    /// Of which never answered (no connection in `max_attempts` tries).
    pub bad_signatures_unanswered: u64,
    /// The accepted ones.
    pub accepted_bad_signatures: Vec<Accepted>,
    /// The first 20 requests written and never answered: when (ms into the run), where, and
    /// the error.
    pub unanswered_examples: Vec<String>,
    /// Answers by status class: `2xx`, `4xx`, `5xx` (503 counted apart), `other`, and
    /// `errors` (no answer: refused, reset, timeout).
    pub answers: Answers,
    /// Latency of answered requests.
    pub latency: Latency,
    /// Wall time of the run.
    pub elapsed_s: f64,
    /// HTTP requests per second.
    pub deliveries_per_s: f64,
    /// No dead letter, no forged delivery accepted.
    pub ok: bool,
}

/// Redeliveries of live events sent after the first delivery's 2xx, by their final answer.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Redelivered {
    /// Sent.
    pub sent: u64,
    /// Answered 2xx `{"result":"duplicate"}`: the completion stuck.
    pub duplicate: u64,
    /// Answered 2xx `{"result":"processed"}`: processed a second time.
    pub processed: u64,
    /// Anything else (another body, or no 2xx: dead-lettered).
    pub other: u64,
}

/// Answers by kind.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Answers {
    /// 2xx.
    pub s2xx: u64,
    /// 4xx.
    pub s4xx: u64,
    /// 503.
    pub s503: u64,
    /// Other 5xx.
    pub s5xx: u64,
    /// 1xx, 3xx.
    pub other: u64,
    /// No answer: `refused` + `unanswered`.
    pub errors: u64,
    /// Of which no request written (the connection refused, or closed before the request).
    pub refused: u64,
    /// Of which the request written and no answer (the connection closed or reset, or the
    /// timeout, after the request was sent): what a graceful shutdown must not leave.
    pub unanswered: u64,
}

#[derive(Default)]
struct Counters {
    jobs_done: AtomicUsize,
    sequences: AtomicU64,
    concurrent: AtomicU64,
    duplicates: AtomicU64,
    replays: AtomicU64,
    deliveries: AtomicU64,
    acknowledged: AtomicU64,
    retried: AtomicU64,
    dead: AtomicU64,
    refused: AtomicU64,
    accepted: AtomicU64,
    unanswered: AtomicU64,
    dead_held: AtomicU64,
    redelivered: AtomicU64,
    redelivered_duplicate: AtomicU64,
    redelivered_processed: AtomicU64,
    redelivered_other: AtomicU64,
    s2xx: AtomicU64,
    s4xx: AtomicU64,
    s503: AtomicU64,
    s5xx: AtomicU64,
    other: AtomicU64,
    errors: AtomicU64,
    refused_conn: AtomicU64,
    unanswered_req: AtomicU64,
}

fn inc(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

fn get(c: &AtomicU64) -> u64 {
    c.load(Ordering::Relaxed)
}

struct Shared {
    cfg: Config,
    plan: Plan,
    pool: Pool,
    next_job: AtomicUsize,
    c: Counters,
    dead: Mutex<Vec<DeadLetter>>,
    accepted: Mutex<Vec<Accepted>>,
    /// Every attempt of a live event, with `--attempts`: (event id, sent ms, ended ms,
    /// status or 0).
    attempts: Mutex<Vec<(String, u64, u64, u16)>>,
    unanswered: Mutex<Vec<String>>,
    /// Per event: how its first delivery ended (`PENDING`, `ACKED`, `NOT_ACKED`).
    first: Vec<AtomicU8>,
    start: Instant,
}

const PENDING: u8 = 0;
const ACKED: u8 = 1;
const NOT_ACKED: u8 = 2;

/// From a delivery's first attempt to its last when every attempt fails: at least (no jitter)
/// and at most (full jitter), in ms. A receiver whose claim outlasts the first figure may answer
/// every retry of an event `503 in_progress` when the instance that claimed it died: the event
/// is dead-lettered, though nothing is wrong with it. The claim lease must be shorter than the
/// provider's retries, by the time a retry takes.
pub fn retry_span_ms(cfg: &Config) -> (u64, u64) {
    let mut least = 0u64;
    for retry in 1..cfg.max_attempts {
        let shift = retry.saturating_sub(1).min(20);
        least = least.saturating_add(
            cfg.backoff_ms
                .saturating_mul(1u64 << shift)
                .min(cfg.backoff_max_ms),
        );
    }
    (least, least.saturating_add(least / 2))
}

/// The wall clock in ms since the Unix epoch (the receivers' `claimed_at_ms` is the same
/// clock, their store's).
fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

impl Shared {
    fn count(&self, r: &Result<Answer, NoAnswer>) {
        inc(&self.c.deliveries);
        let c = &self.c;
        if let Err(e) = r {
            if e.written {
                inc(&c.unanswered_req);
                if let Ok(mut u) = self.unanswered.lock() {
                    if u.len() < 20 {
                        u.push(format!(
                            "{} ms: {}",
                            self.start.elapsed().as_millis(),
                            e.error
                        ));
                    }
                }
            } else {
                inc(&c.refused_conn);
            }
        }
        inc(match r.as_ref().map(|a| a.status) {
            Ok(200..=299) => &c.s2xx,
            Ok(400..=499) => &c.s4xx,
            Ok(503) => &c.s503,
            Ok(500..=599) => &c.s5xx,
            Ok(_) => &c.other,
            Err(_) => &c.errors,
        });
    }

    fn backoff(&self, retry: u32, rng: &mut Rng) -> Duration {
        let shift = retry.saturating_sub(1).min(20);
        let d = self
            .cfg
            .backoff_ms
            .saturating_mul(1u64 << shift)
            .min(self.cfg.backoff_max_ms);
        let jitter = (d as f64 / 2.0 * rng.unit()) as u64;
        Duration::from_millis(d.saturating_add(jitter))
    }

    /// One delivery of a good event under the provider's rule: retried on a non-2xx or no
    /// answer, up to `max_attempts` attempts, then dead-lettered. The 2xx answer, when one came.
    async fn deliver(
        &self,
        ev: &EventSpec,
        delivery: &'static str,
        rng: &mut Rng,
        lat: &mut Vec<u32>,
    ) -> Option<Answer> {
        inc(&self.c.sequences);
        let mut attempts = DeliveryAttempts::with_max(self.cfg.max_attempts);
        loop {
            let target = self.pool.pick();
            let t = Instant::now();
            let sent_ms = wall_ms();
            let r = self.pool.post(target, &ev.body, Some(&ev.signature)).await;
            if r.is_ok() {
                lat.push(micros(t.elapsed()));
            }
            if self.cfg.attempts.is_some() && ev.live {
                let status = r.as_ref().map_or(0, |a| a.status);
                if let Ok(mut a) = self.attempts.lock() {
                    a.push((ev.id.clone(), sent_ms, wall_ms(), status));
                }
            }
            self.count(&r);
            let acked = matches!(
                r,
                Ok(Answer {
                    status: 200..=299,
                    ..
                })
            );
            match attempts.record(acked) {
                DeliveryState::Delivered { .. } => {
                    inc(&self.c.acknowledged);
                    return r.ok();
                }
                DeliveryState::Retry { next_attempt } => {
                    inc(&self.c.retried);
                    tokio::time::sleep(self.backoff(next_attempt.saturating_sub(1), rng)).await;
                }
                state => {
                    let attempts = match state {
                        DeliveryState::DeadLettered { attempts } => attempts,
                        _ => self.cfg.max_attempts,
                    };
                    inc(&self.c.dead);
                    let last = match r {
                        Ok(Answer { status, said }) => {
                            if status == 503 && said.as_deref() == Some("in_progress") {
                                inc(&self.c.dead_held);
                            }
                            match said {
                                Some(said) => format!("HTTP {status} {said}"),
                                None => format!("HTTP {status}"),
                            }
                        }
                        Err(e) => e.error,
                    };
                    if let Ok(mut d) = self.dead.lock() {
                        d.push(DeadLetter {
                            id: ev.id.clone(),
                            event: ev.name.to_owned(),
                            delivery: delivery.to_owned(),
                            attempts,
                            last,
                        });
                    }
                    return None;
                }
            }
        }
    }

    /// A redelivery of `ev` sent after its first delivery's 2xx: counted by what it was told.
    async fn redeliver(
        &self,
        ev: &EventSpec,
        delivery: &'static str,
        rng: &mut Rng,
        lat: &mut Vec<u32>,
    ) {
        let answer = self.deliver(ev, delivery, rng, lat).await;
        if !ev.live {
            return;
        }
        let c = &self.c;
        inc(&c.redelivered);
        inc(match answer.and_then(|a| a.said).as_deref() {
            Some("duplicate") => &c.redelivered_duplicate,
            Some("processed") => &c.redelivered_processed,
            _ => &c.redelivered_other,
        });
    }

    /// A forged delivery: sent until some answer comes (a connection error is tried again on
    /// the next target); a 2xx is an error of the receiver.
    async fn forge(&self, f: &ForgedSpec, rng: &mut Rng, lat: &mut Vec<u32>) {
        for attempt in 1..=self.cfg.max_attempts {
            let target = self.pool.pick();
            let t = Instant::now();
            let r = self.pool.post(target, &f.body, f.header.as_deref()).await;
            self.count(&r);
            match r {
                Ok(Answer { status, .. }) => {
                    lat.push(micros(t.elapsed()));
                    if (200..=299).contains(&status) {
                        inc(&self.c.accepted);
                        if let Ok(mut a) = self.accepted.lock() {
                            a.push(Accepted {
                                id: f.id.clone(),
                                kind: f.kind.to_owned(),
                                status,
                            });
                        }
                    } else {
                        inc(&self.c.refused);
                    }
                    return;
                }
                Err(_) if attempt < self.cfg.max_attempts => {
                    tokio::time::sleep(self.backoff(attempt, rng)).await;
                }
                Err(_) => {}
            }
        }
        inc(&self.c.unanswered);
    }

    async fn job(&self, job: Job, rng: &mut Rng, lat: &mut Vec<u32>) {
        match job {
            Job::Event(i) => {
                let Some(ev) = self.plan.events.get(i) else {
                    return;
                };
                let acked = if ev.concurrent {
                    inc(&self.c.concurrent);
                    let mut rng2 = Rng::new(rng.next_u64());
                    let mut lat2 = Vec::new();
                    let (a, b) = tokio::join!(
                        self.deliver(ev, "first", rng, lat),
                        self.deliver(ev, "concurrent", &mut rng2, &mut lat2)
                    );
                    lat.extend(lat2);
                    a.is_some() || b.is_some()
                } else {
                    self.deliver(ev, "first", rng, lat).await.is_some()
                };
                if let Some(f) = self.first.get(i) {
                    f.store(if acked { ACKED } else { NOT_ACKED }, Ordering::Release);
                }
                if ev.duplicate && acked {
                    inc(&self.c.duplicates);
                    self.redeliver(ev, "duplicate", rng, lat).await;
                }
            }
            Job::Replay(i) => {
                let (Some(ev), Some(first)) = (self.plan.events.get(i), self.first.get(i)) else {
                    return;
                };
                // After the first delivery's answer, as a replay from the provider's dashboard
                // comes: a worker took the event's job before this one, so it ends.
                let mut state = first.load(Ordering::Acquire);
                while state == PENDING {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    state = first.load(Ordering::Acquire);
                }
                inc(&self.c.replays);
                if state == ACKED {
                    self.redeliver(ev, "replay", rng, lat).await;
                } else {
                    self.deliver(ev, "replay", rng, lat).await;
                }
            }
            Job::Forged(k) => {
                if let Some(f) = self.plan.forged.get(k) {
                    self.forge(f, rng, lat).await;
                }
            }
        }
    }

    async fn worker(self: Arc<Self>, w: usize) -> Vec<u32> {
        let mut lat = Vec::new();
        let mut rng = Rng::new(self.cfg.seed.wrapping_mul(31).wrapping_add(w as u64 + 1));
        loop {
            let j = self.next_job.fetch_add(1, Ordering::Relaxed);
            let Some(job) = self.plan.jobs.get(j).copied() else {
                break;
            };
            if self.cfg.rate > 0.0 {
                let due = self.start + Duration::from_secs_f64(j as f64 / self.cfg.rate);
                tokio::time::sleep_until(due.into()).await;
            }
            self.job(job, &mut rng, &mut lat).await;
            self.c.jobs_done.fetch_add(1, Ordering::Relaxed);
        }
        lat
    }

    fn progress_line(&self) -> String {
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let c = &self.c;
        format!(
            "[simulator] {}/{} jobs  {} deliveries ({:.0}/s)  acked {}  retried {}  dead-lettered {}  bad signatures accepted {}",
            c.jobs_done.load(Ordering::Relaxed),
            self.plan.jobs.len(),
            get(&c.deliveries),
            get(&c.deliveries) as f64 / secs,
            get(&c.acknowledged),
            get(&c.retried),
            get(&c.dead),
            get(&c.accepted),
        )
    }
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted.get(rank).map_or(0.0, |us| f64::from(*us) / 1000.0)
}

fn fresh_run_id() -> String {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut n = ms ^ u128::from(std::process::id()) << 48;
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    while n > 0 {
        let d = usize::try_from(n % 36).unwrap_or(0);
        out.push(digits.get(d).copied().unwrap_or(b'0'));
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_else(|_| "run".to_owned())
}

/// Checks a configuration before anything is sent.
pub fn validate(cfg: &Config) -> Result<(), String> {
    if cfg.urls.is_empty() {
        return Err("give at least one --url".into());
    }
    if cfg.secret.is_empty() {
        return Err("give --secret (or XBORDER_SECRET)".into());
    }
    for (name, v) in [
        ("--duplicates", cfg.duplicates),
        ("--concurrent", cfg.concurrent),
        ("--replays", cfg.replays),
        ("--bad-signatures", cfg.bad_signatures),
        ("--unknown", cfg.unknown),
    ] {
        if !(0.0..=1.0).contains(&v) {
            return Err(format!("{name} is a fraction in [0, 1], not {v}"));
        }
    }
    if cfg.concurrency == 0 {
        return Err("--concurrency must be at least 1".into());
    }
    if cfg.max_attempts == 0 {
        return Err("--max-attempts must be at least 1".into());
    }
    if cfg.rate.is_nan() || cfg.rate < 0.0 {
        return Err("--rate must be 0 or more".into());
    }
    if let Some(r) = &cfg.run_id {
        if r.is_empty() || !r.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err("--run-id takes letters, digits and '-' only".into());
        }
    }
    Ok(())
}

/// Appends the record of every event of `plan` to `path`: the provider creates the events of a
/// run when it starts (each a millisecond after the last, from the wall clock), then delivers
/// them, so the list holds an event before its first delivery, as the provider's does.
fn append_records(path: &std::path::Path, plan: &plan::Plan) -> Result<(), String> {
    use std::io::Write as _;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let mut text = String::new();
    for (i, e) in plan.events.iter().enumerate() {
        let at = now.saturating_add(u64::try_from(i).unwrap_or(u64::MAX));
        let line = crate::external::record(&e.body, at)
            .ok_or_else(|| format!("event {} has no envelope", e.id))?;
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("--external-events {}: {e}", path.display()))
}

/// Sends the plan of `cfg` and returns what happened. Connects to every `--url` first (an
/// endpoint that is not there is an error before anything is sent), writes `--expect` before
/// sending and `--json` at the end. An error is a configuration or file error, not a receiver's failure
/// (those are in the summary: see [`Summary::ok`]).
pub async fn run(cfg: &Config) -> Result<Summary, String> {
    validate(cfg)?;
    let targets = cfg
        .urls
        .iter()
        .map(|u| Target::parse(u))
        .collect::<Result<Vec<_>, _>>()?;
    let pool = Pool::new(targets, Duration::from_millis(cfg.timeout_ms.max(1)));
    pool.probe().await?;
    let run_id = cfg.run_id.clone().unwrap_or_else(fresh_run_id);
    let plan = plan::build(cfg, &run_id)?;
    if let Some(path) = &cfg.expect {
        let mut text = String::new();
        for e in plan.events.iter().filter(|e| e.live) {
            text.push_str(&e.id);
            text.push('\n');
        }
        std::fs::write(path, text).map_err(|e| format!("--expect {}: {e}", path.display()))?;
    }
    if let Some(path) = &cfg.external_events {
        append_records(path, &plan)?;
    }
    let plan_events = plan.events.len();
    let span = retry_span_ms(cfg);
    if let Some(lease) = cfg.lease_ms {
        if lease >= span.0 {
            eprintln!(
                "[simulator] warning: the retries of a delivery end {} ms after its first attempt \
                 (without jitter), within the receivers' lease of {lease} ms: an event claimed by \
                 an instance that dies is answered 503 in_progress until its last retry and \
                 dead-lettered (raise --backoff-ms or --max-attempts, or lower the lease)",
                span.0
            );
        }
    }
    let shared = Arc::new(Shared {
        pool,
        cfg: cfg.clone(),
        plan,
        next_job: AtomicUsize::new(0),
        c: Counters::default(),
        dead: Mutex::new(Vec::new()),
        accepted: Mutex::new(Vec::new()),
        attempts: Mutex::new(Vec::new()),
        unanswered: Mutex::new(Vec::new()),
        first: (0..plan_events).map(|_| AtomicU8::new(PENDING)).collect(),
        start: Instant::now(),
    });

    let done = Arc::new(AtomicBool::new(false));
    let progress = (cfg.progress == Progress::Auto).then(|| {
        let (shared, done) = (shared.clone(), done.clone());
        tokio::spawn(async move {
            let tty = std::io::stderr().is_terminal();
            let every = Duration::from_millis(if tty { 200 } else { 2_000 });
            while !done.load(Ordering::Relaxed) {
                tokio::time::sleep(every).await;
                let line = shared.progress_line();
                let mut err = std::io::stderr().lock();
                let _ = if tty {
                    write!(err, "\r\x1b[K{line}")
                } else {
                    writeln!(err, "{line}")
                };
                let _ = err.flush();
            }
            if tty {
                let _ = writeln!(std::io::stderr().lock());
            }
        })
    });

    let workers: Vec<_> = (0..cfg.concurrency.min(shared.plan.jobs.len().max(1)))
        .map(|w| tokio::spawn(shared.clone().worker(w)))
        .collect();
    let mut lat = Vec::new();
    for w in workers {
        lat.extend(w.await.map_err(|e| format!("a worker failed: {e}"))?);
    }
    let elapsed = shared.start.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    if let Some(p) = progress {
        p.abort();
        if std::io::stderr().is_terminal() {
            let _ = writeln!(
                std::io::stderr().lock(),
                "\r\x1b[K{}",
                shared.progress_line()
            );
        }
    }
    lat.sort_unstable();

    let c = &shared.c;
    let dead_letter = shared.dead.lock().map(|d| d.clone()).unwrap_or_default();
    let mut dead_ids: Vec<&str> = dead_letter.iter().map(|d| d.id.as_str()).collect();
    dead_ids.sort_unstable();
    dead_ids.dedup();
    let live = shared.plan.events.iter().filter(|e| e.live).count();
    let summary = Summary {
        run_id: shared.plan.run_id.clone(),
        urls: shared
            .pool
            .targets()
            .iter()
            .map(|t| t.url.clone())
            .collect(),
        events: shared.plan.events.len(),
        live_events: live,
        unknown_events: shared.plan.events.len() - live,
        sequences: get(&c.sequences),
        concurrent_sent: get(&c.concurrent),
        duplicates_sent: get(&c.duplicates),
        replays_sent: get(&c.replays),
        deliveries: get(&c.deliveries),
        acknowledged: get(&c.acknowledged),
        retried: get(&c.retried),
        dead_lettered: get(&c.dead),
        dead_lettered_events: dead_ids.len(),
        dead_lettered_held: get(&c.dead_held),
        dead_letter,
        retry_span_ms: span,
        lease_ms: cfg.lease_ms,
        redelivered: Redelivered {
            sent: get(&c.redelivered),
            duplicate: get(&c.redelivered_duplicate),
            processed: get(&c.redelivered_processed),
            other: get(&c.redelivered_other),
        },
        bad_signatures_sent: shared.plan.forged.len(),
        bad_signatures_refused: get(&c.refused),
        bad_signatures_accepted: get(&c.accepted),
        bad_signatures_unanswered: get(&c.unanswered),
        accepted_bad_signatures: shared
            .accepted
            .lock()
            .map(|a| a.clone())
            .unwrap_or_default(),
        unanswered_examples: shared
            .unanswered
            .lock()
            .map(|u| u.clone())
            .unwrap_or_default(),
        answers: Answers {
            s2xx: get(&c.s2xx),
            s4xx: get(&c.s4xx),
            s503: get(&c.s503),
            s5xx: get(&c.s5xx),
            other: get(&c.other),
            errors: get(&c.errors),
            refused: get(&c.refused_conn),
            unanswered: get(&c.unanswered_req),
        },
        latency: Latency {
            p50_ms: percentile(&lat, 0.50),
            p90_ms: percentile(&lat, 0.90),
            p99_ms: percentile(&lat, 0.99),
            max_ms: percentile(&lat, 1.0),
        },
        elapsed_s: elapsed,
        deliveries_per_s: get(&c.deliveries) as f64 / elapsed.max(1e-9),
        ok: get(&c.dead) == 0 && get(&c.accepted) == 0,
    };
    if let Some(path) = &cfg.attempts {
        let mut text = String::new();
        let all = shared
            .attempts
            .lock()
            .map(|a| a.clone())
            .unwrap_or_default();
        for (id, sent, ended, status) in all {
            let line = serde_json::json!({
                "id": id, "sent_ms": sent, "ended_ms": ended, "status": status,
            });
            text.push_str(&line.to_string());
            text.push('\n');
        }
        std::fs::write(path, text).map_err(|e| format!("--attempts {}: {e}", path.display()))?;
    }
    if let Some(path) = &cfg.json {
        let text = serde_json::to_string_pretty(&summary).map_err(|e| format!("json: {e}"))?;
        std::fs::write(path, text + "\n").map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    Ok(summary)
}

impl Summary {
    /// The summary as a table, for people.
    pub fn table(&self) -> String {
        let a = &self.answers;
        let mut rows: Vec<(&str, String)> = vec![
            ("run", format!("{} -> {}", self.run_id, self.urls.join(", "))),
            (
                "events",
                format!(
                    "{} ({} live: persist; {} unknown: acknowledge only)",
                    self.events, self.live_events, self.unknown_events
                ),
            ),
            (
                "redeliveries",
                format!(
                    "{} duplicates after ack, {} concurrent, {} replays of old ids",
                    self.duplicates_sent, self.concurrent_sent, self.replays_sent
                ),
            ),
            (
                "deliveries",
                format!(
                    "{} HTTP requests: {} 2xx, {} 4xx, {} 503, {} other 5xx, {} other, {} no answer \
                     ({} refused, {} unanswered after the request was written)",
                    self.deliveries,
                    a.s2xx,
                    a.s4xx,
                    a.s503,
                    a.s5xx,
                    a.other,
                    a.errors,
                    a.refused,
                    a.unanswered
                ),
            ),
            (
                "acknowledged",
                format!("{} of {} deliveries of good events", self.acknowledged, self.sequences),
            ),
            (
                "after the ack",
                format!(
                    "{} redeliveries of live events: {} answered duplicate, {} processed again, {} other",
                    self.redelivered.sent,
                    self.redelivered.duplicate,
                    self.redelivered.processed,
                    self.redelivered.other
                ),
            ),
            ("retried", format!("{} attempts after a non-2xx or no answer", self.retried)),
            (
                "retry span",
                format!(
                    "{}-{} ms from a delivery's first attempt to its last{}",
                    self.retry_span_ms.0,
                    self.retry_span_ms.1,
                    match self.lease_ms {
                        Some(l) if l >= self.retry_span_ms.0 => format!(
                            ": NOT longer than the lease ({l} ms), so a crashed instance's claims outlast the retries"
                        ),
                        Some(l) => format!(": longer than the lease ({l} ms)"),
                        None => String::new(),
                    }
                ),
            ),
            (
                "dead-lettered",
                format!(
                    "{} deliveries ({} events), {} of them held by a claim (503 in_progress) to the last retry",
                    self.dead_lettered, self.dead_lettered_events, self.dead_lettered_held
                ),
            ),
            (
                "bad signatures",
                format!(
                    "{} sent: {} refused, {} accepted, {} unanswered",
                    self.bad_signatures_sent,
                    self.bad_signatures_refused,
                    self.bad_signatures_accepted,
                    self.bad_signatures_unanswered
                ),
            ),
            (
                "latency",
                format!(
                    "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                    self.latency.p50_ms,
                    self.latency.p90_ms,
                    self.latency.p99_ms,
                    self.latency.max_ms
                ),
            ),
            (
                "throughput",
                format!(
                    "{:.0} deliveries/s over {:.2} s",
                    self.deliveries_per_s, self.elapsed_s
                ),
            ),
        ];
        for d in self.dead_letter.iter().take(10) {
            rows.push((
                "  dead letter",
                format!(
                    "{} {} ({}, {} attempts, last: {})",
                    d.id, d.event, d.delivery, d.attempts, d.last
                ),
            ));
        }
        for u in self.unanswered_examples.iter().take(10) {
            rows.push(("  unanswered", u.clone()));
        }
        for b in self.accepted_bad_signatures.iter().take(10) {
            rows.push((
                "  accepted",
                format!("{} ({}) got {}", b.id, b.kind, b.status),
            ));
        }
        rows.push((
            "result",
            if self.ok {
                "ok: nothing dead-lettered, no bad signature accepted".to_owned()
            } else {
                "FAILED: see dead-lettered and bad signatures above".to_owned()
            },
        ));
        let mut out = String::new();
        for (k, v) in rows {
            out.push_str(&format!("{k:<16} {v}\n"));
        }
        out
    }
}

/// A payload for tests: the body and signature of a live event, as the simulator signs them.
pub fn signed_event(secret: &str, id: &str, name: &str) -> Result<(Bytes, String), String> {
    let mut rng = Rng::new(0);
    let body = plan::envelope(id, name, 0, &mut rng)?;
    let sig = xborder_core::signature::sign(secret.as_bytes(), &body)
        .map_err(|e| format!("--secret: {}", e.code()))?;
    Ok((Bytes::from(body), sig))
}
