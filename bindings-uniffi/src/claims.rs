//! Claims on event ids for consumers that run several instances: in memory, in a store the
//! host writes, or as a task the host drives.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use xborder_core::{claims, delivery};

use crate::XborderError;

/// The answer to one claim step. Its text form is FORMAT.md's: `claimed`, `in_progress`,
/// `duplicate`, `completed`, `released`, `stale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum ClaimOutcome {
    /// This request now holds the id: process the event, then `complete` (or `release`).
    Claimed,
    /// Another request holds the id and its lease runs: answer non-2xx (with `Retry-After`).
    InProgress,
    /// The id is done: answer 2xx, do nothing.
    Duplicate,
    /// The id is done from now on: answer 2xx.
    Completed,
    /// The id is free again: answer non-2xx, the retry processes it.
    Released,
    /// This request no longer holds the id (another took it over): nothing changed.
    Stale,
}

impl From<ClaimOutcome> for claims::Outcome {
    fn from(o: ClaimOutcome) -> Self {
        match o {
            ClaimOutcome::Claimed => claims::Outcome::Claimed,
            ClaimOutcome::InProgress => claims::Outcome::InProgress,
            ClaimOutcome::Duplicate => claims::Outcome::Duplicate,
            ClaimOutcome::Completed => claims::Outcome::Completed,
            ClaimOutcome::Released => claims::Outcome::Released,
            ClaimOutcome::Stale => claims::Outcome::Stale,
        }
    }
}

impl From<claims::Outcome> for ClaimOutcome {
    fn from(o: claims::Outcome) -> Self {
        match o {
            claims::Outcome::Claimed => ClaimOutcome::Claimed,
            claims::Outcome::InProgress => ClaimOutcome::InProgress,
            claims::Outcome::Duplicate => ClaimOutcome::Duplicate,
            claims::Outcome::Completed => ClaimOutcome::Completed,
            claims::Outcome::Released => ClaimOutcome::Released,
            claims::Outcome::Stale => ClaimOutcome::Stale,
            // Non-exhaustive in the core: an unknown outcome is not acted on (nothing changed
            // for this request). `claim_outcomes_round_trip` walks core's `Outcome::ALL`.
            _ => ClaimOutcome::Stale,
        }
    }
}

impl fmt::Display for ClaimOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(claims::Outcome::from(*self).as_str())
    }
}

#[uniffi::export]
impl ClaimOutcome {
    /// Whether the delivery is answered 2xx: `duplicate` and `completed` (core's rule).
    pub fn acknowledges(&self) -> bool {
        claims::Outcome::from(*self).acknowledges()
    }
}

/// What a receiver answers the provider (core's `claims::Reply`): an HTTP status and, when the
/// provider should wait before retrying, a `Retry-After` in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Record)]
pub struct ClaimReply {
    /// The HTTP status: 200, 500 or 503.
    pub status: u16,
    /// Seconds for a `Retry-After` header, absent when none goes with the status.
    pub retry_after_s: Option<u64>,
}

impl From<claims::Reply> for ClaimReply {
    fn from(r: claims::Reply) -> Self {
        ClaimReply {
            status: r.status,
            retry_after_s: r.retry_after_s,
        }
    }
}

/// The times of one store call, as core has clamped them (core's `claims::StoreTime`: `now_ms`
/// and `ttl_ms` at most 2^48 − 1, `expires_at_ms` their sum, below 2^49): the step's time, and for a write how long the store may keep the new entry.
/// A store writes and compares these numbers as they are; it never reads an entry's text for a
/// time, nor clamps one. A SQL store keeps `expires_at_ms` in a column and counts a row whose
/// expiry is at or before `now_ms` as no row; a Redis store gives `ttl_ms` to `PEXPIRE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Record)]
pub struct StoreTime {
    /// The step's time (the host's milliseconds).
    pub now_ms: u64,
    /// How long the store may keep the new entry, from `now_ms` (absent: as long as it likes;
    /// a load or a removal has none).
    pub ttl_ms: Option<u64>,
    /// `now_ms + ttl_ms`: when the store may drop the new entry (absent: never).
    pub expires_at_ms: Option<u64>,
}

impl From<claims::StoreTime> for StoreTime {
    fn from(t: claims::StoreTime) -> Self {
        StoreTime {
            now_ms: t.now_ms,
            ttl_ms: t.ttl_ms,
            expires_at_ms: t.expires_at_ms,
        }
    }
}

/// A store of claims the host writes in its own language (Redis, SQL, a map in memory), shared
/// by the instances of one consumer. It keeps entry *texts* only and never reads them: every
/// decision is core's. An entry text is never empty.
///
/// Throwing from either method (any exception, or an `XborderError`) makes the step fail with
/// `STORE_UNAVAILABLE`.
#[uniffi::export(foreign)]
pub trait ClaimStore: Send + Sync {
    /// The entry text of `id`, absent when it has none (or, in a store that keeps expiry, when
    /// its entry's expiry is at or before `time.now_ms`).
    fn load(&self, id: String, time: StoreTime) -> Result<Option<String>, XborderError>;

    /// Atomically: when the entry text of `id` is `expected` (absent: no entry, or only an
    /// entry expired at `time.now_ms`), makes it `new` (absent: remove the entry), which the
    /// store may drop on its own after `time.ttl_ms` milliseconds, at `time.expires_at_ms`
    /// (absent: keep it), and answers `true`; otherwise changes nothing and answers `false`.
    fn compare_and_set(
        &self,
        id: String,
        expected: Option<String>,
        new: Option<String>,
        time: StoreTime,
    ) -> Result<bool, XborderError>;
}

/// Core's store interface over a foreign [`ClaimStore`]: entries cross as their texts
/// ([`claims::Entry::encode`] / [`claims::Entry::decode`]), every failure is a store failure.
struct ForeignStore(Arc<dyn ClaimStore>);

fn store_failure(e: XborderError) -> delivery::StoreError {
    delivery::StoreError::new(format!("the store failed: {e}"))
}

impl claims::ClaimStore for ForeignStore {
    fn load(
        &self,
        id: &str,
        time: claims::StoreTime,
    ) -> Result<Option<claims::Entry>, delivery::StoreError> {
        let text = self
            .0
            .load(id.to_owned(), time.into())
            .map_err(store_failure)?;
        text.map(|t| claims::Entry::decode(&t)).transpose()
    }

    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&claims::Entry>,
        new: Option<&claims::Entry>,
        time: claims::StoreTime,
    ) -> Result<bool, delivery::StoreError> {
        self.0
            .compare_and_set(
                id.to_owned(),
                expected.map(claims::Entry::encode),
                new.map(claims::Entry::encode),
                time.into(),
            )
            .map_err(store_failure)
    }
}

pub(crate) fn claim_rules(lease_ms: u64, window_ms: Option<u64>) -> claims::ClaimRules {
    let rules = claims::ClaimRules::new(lease_ms);
    match window_ms {
        Some(w) => rules.with_window(w),
        None => rules,
    }
}

enum ClaimsIn {
    Memory(claims::Claims<claims::MemoryClaims>),
    Foreign(claims::Claims<ForeignStore>),
}

/// Claims on event ids, for consumers that run several instances: before processing a
/// delivery, `step("claim", id, token, now)`; after persisting, `step("complete", ...)`; when
/// processing failed, `step("release", ...)`. `token` names the request (each request makes
/// its own); `at_ms` is the host's clock in milliseconds (non-decreasing). Safe to share
/// between threads.
#[derive(uniffi::Object)]
pub struct Claims {
    inner: ClaimsIn,
}

impl fmt::Debug for Claims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            ClaimsIn::Memory(c) => write!(f, "Claims {{ {:?}, {:?} }}", c.rules(), c.store()),
            ClaimsIn::Foreign(c) => write!(f, "Claims {{ {:?}, foreign store }}", c.rules()),
        }
    }
}

impl Claims {
    /// Core's rules of these claims (for a handling's replies).
    pub(crate) fn rules(&self) -> claims::ClaimRules {
        match &self.inner {
            ClaimsIn::Memory(c) => c.rules(),
            ClaimsIn::Foreign(c) => c.rules(),
        }
    }

    /// A store need of a handling's step, answered by this object's store (in memory, or the
    /// host's sync store called on this thread): `Ok(None)` for a load that found nothing.
    pub(crate) fn answer_need(
        &self,
        need: &claims::Need,
    ) -> Result<NeedAnswer, delivery::StoreError> {
        fn answer<S: claims::ClaimStore>(
            store: &S,
            need: &claims::Need,
        ) -> Result<NeedAnswer, delivery::StoreError> {
            Ok(match need {
                claims::Need::Load { id, time } => NeedAnswer::Loaded(store.load(id, *time)?),
                claims::Need::CompareAndSet {
                    id,
                    expected,
                    new,
                    time,
                } => NeedAnswer::Swapped(store.compare_and_set(
                    id,
                    expected.as_ref(),
                    new.as_ref(),
                    *time,
                )?),
                _ => {
                    return Err(delivery::StoreError::new(
                        "a store need this binding does not know",
                    ))
                }
            })
        }
        match &self.inner {
            ClaimsIn::Memory(c) => answer(c.store(), need),
            ClaimsIn::Foreign(c) => answer(c.store(), need),
        }
    }
}

/// What a store answered to a need.
pub(crate) enum NeedAnswer {
    /// The entry a load found.
    Loaded(Option<claims::Entry>),
    /// Whether a compare-and-set applied.
    Swapped(bool),
}

#[uniffi::export]
impl Claims {
    /// Claims kept in this process (one instance): a claim holds an id for `lease_ms`
    /// (30 s by default), a done id is a duplicate for `window_ms` after completion (core's
    /// `DEFAULT_WINDOW_MS`, 7 days, when absent: no store grows forever), and at most `capacity`
    /// done ids are remembered (10,000 by default; oldest forgotten first).
    #[uniffi::constructor(default(lease_ms = 30000, window_ms = None, capacity = 10000))]
    pub fn new(lease_ms: u64, window_ms: Option<u64>, capacity: u64) -> Self {
        let capacity = usize::try_from(capacity).unwrap_or(usize::MAX);
        Claims {
            inner: ClaimsIn::Memory(claims::Claims::in_memory(
                claim_rules(lease_ms, window_ms),
                capacity,
            )),
        }
    }

    /// Claims kept in the host's `store`, shared by its instances; `lease_ms` and `window_ms`
    /// as for the in-memory constructor.
    #[uniffi::constructor(default(lease_ms = 30000, window_ms = None))]
    pub fn with_store(store: Arc<dyn ClaimStore>, lease_ms: u64, window_ms: Option<u64>) -> Self {
        Claims {
            inner: ClaimsIn::Foreign(claims::Claims::with_store(
                claim_rules(lease_ms, window_ms),
                ForeignStore(store),
            )),
        }
    }

    /// One step (`claim`, `complete` or `release`) by `token` on event `id` at `at_ms`. Throws
    /// `INVALID_STEP` (`field`: `do`, `id` or `token`) or `STORE_UNAVAILABLE`. With a store of
    /// the host's, its methods are called on this thread: an async host drives a [`ClaimTask`]
    /// instead.
    pub fn step(
        &self,
        step: String,
        id: String,
        token: String,
        at_ms: u64,
    ) -> Result<ClaimOutcome, XborderError> {
        let outcome = match &self.inner {
            ClaimsIn::Memory(c) => c.step(&step, &id, &token, at_ms),
            ClaimsIn::Foreign(c) => c.step(&step, &id, &token, at_ms),
        }?;
        Ok(outcome.into())
    }

    /// What a receiver answers the provider after `step` gave `outcome` (absent after `claimed`:
    /// persist first): `in_progress` → 503 with `Retry-After` (the lease in whole seconds);
    /// `duplicate`, `completed`, and `stale` on `complete` → 200; `released`, and `stale` on
    /// `release` → 500. After persisting, answer the reply of (`complete`, `completed`) even when
    /// `complete` throws; after persisting failed, the reply of the release. Throws
    /// `INVALID_STEP` (`field` `do`) for a step other than `claim`, `complete`, `release`.
    pub fn reply(
        &self,
        step: String,
        outcome: ClaimOutcome,
    ) -> Result<Option<ClaimReply>, XborderError> {
        let step =
            claims::Step::parse(&step).ok_or(claims::ClaimError::InvalidStep { field: "do" })?;
        let rules = match &self.inner {
            ClaimsIn::Memory(c) => c.rules(),
            ClaimsIn::Foreign(c) => c.rules(),
        };
        Ok(rules.reply(step, outcome.into()).map(ClaimReply::from))
    }
}

/// What a [`ClaimTask`] needs next from the host's store.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum ClaimNeed {
    /// Load the entry text of `id`, then call `loaded` with it (absent when there is none), as
    /// [`ClaimStore::load`].
    Load {
        /// The event id.
        id: String,
        /// The step's time (`now_ms`: a store that keeps expiry counts an entry expired at it
        /// as none).
        time: StoreTime,
    },
    /// Compare-and-set the entry text of `id` (as [`ClaimStore::compare_and_set`]), then call
    /// `swapped` with its answer.
    CompareAndSet {
        /// The event id.
        id: String,
        /// The entry text it must still have (absent: no entry).
        expected: Option<String>,
        /// The entry text to write (absent: remove the entry).
        new: Option<String>,
        /// The step's time, and how long the store may keep `new` (`ttl_ms`) and until when
        /// (`expires_at_ms`); absent: no limit.
        time: StoreTime,
    },
    /// The step is over.
    Done {
        /// Its outcome.
        outcome: ClaimOutcome,
    },
}

impl TryFrom<claims::Need> for ClaimNeed {
    type Error = XborderError;

    fn try_from(n: claims::Need) -> Result<Self, XborderError> {
        Ok(match n {
            claims::Need::Load { id, time } => ClaimNeed::Load {
                id,
                time: time.into(),
            },
            claims::Need::CompareAndSet {
                id,
                expected,
                new,
                time,
            } => ClaimNeed::CompareAndSet {
                id,
                expected: expected.as_ref().map(claims::Entry::encode),
                new: new.as_ref().map(claims::Entry::encode),
                time: time.into(),
            },
            claims::Need::Done(outcome) => ClaimNeed::Done {
                outcome: outcome.into(),
            },
            // Non-exhaustive in the core: a need this binding cannot express is not guessed at.
            _ => {
                return Err(delivery::StoreError::new(
                    "the claim needs a store operation this binding does not know",
                )
                .into())
            }
        })
    }
}

/// One claim step against a store the host reaches on its own terms (a coroutine, an `async`
/// function, an event loop): call `start()`, do what each [`ClaimNeed`] asks with your store
/// (awaiting it as you like), hand the answer back with `loaded` or `swapped`, until `Done`.
/// Nothing blocks; every decision is core's. Texts as for [`ClaimStore`].
#[derive(uniffi::Object)]
pub struct ClaimTask {
    inner: Mutex<claims::ClaimTask>,
}

impl fmt::Debug for ClaimTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.lock(), f)
    }
}

impl ClaimTask {
    fn lock(&self) -> MutexGuard<'_, claims::ClaimTask> {
        // The task's state is replaced whole by each call: a poisoned lock is taken over.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[uniffi::export]
impl ClaimTask {
    /// A step (`claim`, `complete` or `release`) by `token` on event `id` at `at_ms`, under a
    /// lease of `lease_ms` (30 s by default) and a done-window of `window_ms` (7 days by
    /// default). Throws `INVALID_STEP` (`field`: `do`, `id` or `token`).
    #[uniffi::constructor(default(lease_ms = 30000, window_ms = None))]
    pub fn new(
        step: String,
        id: String,
        token: String,
        at_ms: u64,
        lease_ms: u64,
        window_ms: Option<u64>,
    ) -> Result<Self, XborderError> {
        let task =
            claims::ClaimTask::new(claim_rules(lease_ms, window_ms), &step, &id, &token, at_ms)?;
        Ok(ClaimTask {
            inner: Mutex::new(task),
        })
    }

    /// The first need: the load of the id's entry (calling it again starts the step over).
    pub fn start(&self) -> Result<ClaimNeed, XborderError> {
        self.lock().start().try_into()
    }

    /// The entry text the load found (absent when none): the next need. Throws
    /// `STORE_UNAVAILABLE` when the text is not one xborder wrote.
    pub fn loaded(&self, entry: Option<String>) -> Result<ClaimNeed, XborderError> {
        let entry = entry
            .map(|t| claims::Entry::decode(&t))
            .transpose()
            .map_err(XborderError::from)?;
        self.lock().loaded(entry)?.try_into()
    }

    /// The compare-and-set's answer: the next need (`Done`, or a new `Load` when another
    /// request changed the entry meanwhile). Throws `STORE_UNAVAILABLE` when the entry kept
    /// changing, or when no compare-and-set was asked.
    pub fn swapped(&self, applied: bool) -> Result<ClaimNeed, XborderError> {
        self.lock().swapped(applied)?.try_into()
    }

    /// The store call the task asked for failed (an IO error, a timeout): always throws, and
    /// the step ends with core's `STORE_UNAVAILABLE` carrying `message` (report the host's
    /// own error through this rather than inventing a code).
    pub fn failed(&self, message: String) -> Result<(), XborderError> {
        Err(self.lock().failed(message).into())
    }
}

// ---------------------------------------------------------------------------------------------
// The exported functions

/// What to answer the provider when a claim step threw the error with `code` (its
/// `error_code()`), or for a refusal of the receiver's own (`BODY_TIMEOUT` → 408,
/// `TOO_MANY_CONNECTIONS` → 503 with `Retry-After: 1`, `BODY_TOO_LARGE` → 413):
/// `STORE_UNAVAILABLE` → 503 with `Retry-After: 1`; anything else → 500.
#[uniffi::export]
pub fn claim_error_reply(code: String) -> ClaimReply {
    xborder_core::claims::reply_to_code(&code).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claim_error_reply;

    // The lists come from core: a variant added there without its arm here maps through a
    // fallback arm onto another text, and these tests fail.

    #[test]
    fn claim_outcomes_round_trip() {
        for o in claims::Outcome::ALL {
            let ours = ClaimOutcome::from(*o);
            assert_eq!(ours.to_string(), o.as_str());
            assert_eq!(claims::Outcome::from(ours), *o);
            assert_eq!(ours.acknowledges(), o.acknowledges());
        }
    }

    /// Replies are core's for every step and outcome, with either store; a step that is not one
    /// is `INVALID_STEP`, and an error's reply is core's for its code.
    #[test]
    fn claim_replies_are_cores() {
        let rules = claims::ClaimRules::new(2_500);
        let c = Claims::new(2_500, None, 10);
        for step in claims::Step::ALL {
            for o in claims::Outcome::ALL {
                let got = c
                    .reply(step.as_str().to_owned(), ClaimOutcome::from(*o))
                    .unwrap();
                assert_eq!(
                    got,
                    rules.reply(*step, *o).map(ClaimReply::from),
                    "{step:?} {o:?}"
                );
            }
        }
        let held = c
            .reply("claim".into(), ClaimOutcome::InProgress)
            .unwrap()
            .unwrap();
        assert_eq!((held.status, held.retry_after_s), (503, Some(3)));
        let e = c.reply("finish".into(), ClaimOutcome::Stale).unwrap_err();
        assert_eq!(
            (e.error_code(), e.error_field()),
            ("INVALID_STEP".to_owned(), Some("do".to_owned()))
        );
        let down = claim_error_reply("STORE_UNAVAILABLE".into());
        assert_eq!((down.status, down.retry_after_s), (503, Some(1)));
        assert_eq!(claim_error_reply("INVALID_STEP".into()).status, 500);
    }

    /// The defaults written in the export attributes are core's, in every module of the crate.
    #[test]
    fn defaults_are_cores() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut src = String::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                src.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
        let lease = format!("lease_ms = {}", claims::DEFAULT_LEASE_MS);
        let window = format!("window = {}", delivery::DEFAULT_WINDOW);
        let capacity = format!("capacity = {}", delivery::DEFAULT_WINDOW);
        for attr in src.lines().filter(|l| {
            l.contains("#[uniffi::constructor(default(") || l.contains("#[uniffi::method(default(")
        }) {
            if attr.contains("lease_ms =") {
                assert!(attr.contains(&lease), "{attr}");
            }
            if attr.contains(" window =") || attr.contains("(window =") {
                assert!(attr.contains(&window), "{attr}");
            }
            if attr.contains("capacity =") {
                assert!(attr.contains(&capacity), "{attr}");
            }
        }
        assert_eq!(src.matches(&lease).count(), 5);
        assert_eq!(src.matches(&window).count(), 2);
    }

    /// A store as a host writes one: texts in a map. `fail` makes every call throw.
    #[derive(Default)]
    struct Texts {
        map: Mutex<std::collections::HashMap<String, String>>,
        /// The times of the compare-and-sets, in order.
        times: Mutex<Vec<StoreTime>>,
        fail: bool,
    }

    impl ClaimStore for Texts {
        fn load(&self, id: String, _time: StoreTime) -> Result<Option<String>, XborderError> {
            if self.fail {
                return Err(delivery::StoreError::new("down").into());
            }
            Ok(self.map.lock().unwrap().get(&id).cloned())
        }
        fn compare_and_set(
            &self,
            id: String,
            expected: Option<String>,
            new: Option<String>,
            time: StoreTime,
        ) -> Result<bool, XborderError> {
            self.times.lock().unwrap().push(time);
            let mut m = self.map.lock().unwrap();
            if m.get(&id) != expected.as_ref() {
                return Ok(false);
            }
            match new {
                Some(t) => m.insert(id, t),
                None => m.remove(&id),
            };
            Ok(true)
        }
    }

    #[test]
    fn claims_answer_alike_in_memory_in_a_foreign_store_and_as_a_task() -> Result<(), XborderError>
    {
        let memory = Claims::new(100, None, 10);
        let store = Arc::new(Texts::default());
        let foreign = Claims::with_store(store.clone(), 100, None);
        let tasks = Texts::default();
        let steps = [
            ("claim", "e", "r1", 0),
            ("claim", "e", "r2", 10),
            ("complete", "e", "r1", 20),
            ("claim", "e", "r3", 30),
            ("release", "f", "r1", 30),
        ];
        for (step, id, token, at) in steps {
            let a = memory.step(step.into(), id.into(), token.into(), at)?;
            let b = foreign.step(step.into(), id.into(), token.into(), at)?;
            let task = ClaimTask::new(step.into(), id.into(), token.into(), at, 100, None)?;
            let mut need = task.start()?;
            let c = loop {
                need = match need {
                    ClaimNeed::Load { id, time } => {
                        assert_eq!(time, StoreTime::from(claims::StoreTime::at(at)));
                        task.loaded(tasks.load(id, time)?)?
                    }
                    ClaimNeed::CompareAndSet {
                        id,
                        expected,
                        new,
                        time,
                    } => task.swapped(tasks.compare_and_set(id, expected, new, time)?)?,
                    ClaimNeed::Done { outcome } => break outcome,
                };
            };
            assert_eq!((a, b), (c, c), "{step} {id} {token} {at}");
        }
        assert_eq!(
            store.map.lock().unwrap().get("e").map(String::as_str),
            Some("d:20")
        );
        // The foreign store and the task's host were given core's times alike: the claim at 0
        // for two leases, the completion at 20 for the window.
        let times = store.times.lock().unwrap().clone();
        assert_eq!(times, tasks.times.lock().unwrap().clone());
        assert_eq!(
            (times[0].now_ms, times[0].ttl_ms, times[0].expires_at_ms),
            (0, Some(200), Some(200))
        );
        assert_eq!(times[1].now_ms, 20);
        assert_eq!(
            times[1].expires_at_ms,
            times[1].ttl_ms.map(|t| t + 20),
            "{times:?}"
        );
        let failing = Claims::with_store(
            Arc::new(Texts {
                fail: true,
                ..Texts::default()
            }),
            100,
            None,
        );
        let e = failing
            .step("claim".into(), "e".into(), "r".into(), 0)
            .unwrap_err();
        assert_eq!(e.error_code(), "STORE_UNAVAILABLE");
        let task = ClaimTask::new("claim".into(), "e".into(), "r".into(), 0, 100, None)?;
        task.start()?;
        assert_eq!(
            task.loaded(Some("not ours".into()))
                .unwrap_err()
                .error_code(),
            "STORE_UNAVAILABLE"
        );
        let task = ClaimTask::new("claim".into(), "e".into(), "r".into(), 0, 100, None)?;
        task.start()?;
        task.loaded(None)?;
        let e = task.failed("redis: connection refused".into()).unwrap_err();
        assert!(matches!(e, XborderError::Store { .. }));
        assert!(e.to_string().contains("connection refused"));
        // The compare-and-set it asked for is forgotten: a late answer is refused.
        assert_eq!(
            task.swapped(true).unwrap_err().error_code(),
            "STORE_UNAVAILABLE"
        );
        Ok(())
    }
}
