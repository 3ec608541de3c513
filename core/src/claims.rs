//! Claims on event ids, shared by the instances of one consumer.
//!
//! The provider retries a delivery that was not answered 2xx, and it retries on a slow 2xx too,
//! so a delivery and its retry often arrive at two instances at once. Before processing, an
//! instance **claims** the event id with a token of its own request; it then persists the event
//! and **completes** the claim (or **releases** it when processing failed, so a retry can take
//! it). A second claim while the first is working is answered `in_progress` (answer non-2xx:
//! the provider retries later); a claim after completion is a `duplicate` (answer 2xx).
//!
//! The rules live here, once: [`ClaimRules::decide`] reads the stored [`Entry`] and says what to
//! write. A store only keeps entries and offers one atomic compare-and-set
//! ([`ClaimStore`]); [`MemoryClaims`] is the built-in one, a Redis or SQL store is a few lines
//! over [`Entry::encode`] / [`Entry::decode`]. [`Claims`] runs a step against a store
//! synchronously; a host whose store is asynchronous drives a [`ClaimTask`] instead (it asks for
//! one load or one compare-and-set at a time, and never blocks).
//!
//! ```
//! use xborder_core::claims::{ClaimRules, Claims, Outcome, Step};
//! let claims = Claims::in_memory(ClaimRules::new(30_000), 10_000);
//! assert_eq!(claims.step(Step::Claim, "evt_1", "req_a", 0).unwrap(), Outcome::Claimed);
//! assert_eq!(claims.step(Step::Claim, "evt_1", "req_b", 10).unwrap(), Outcome::InProgress);
//! assert_eq!(claims.step(Step::Complete, "evt_1", "req_a", 20).unwrap(), Outcome::Completed);
//! assert_eq!(claims.step(Step::Claim, "evt_1", "req_c", 900).unwrap(), Outcome::Duplicate);
//! ```

use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasherDefault;
use std::sync::{Mutex, MutexGuard};

use crate::delivery::StoreError;
use crate::digest::DigestHasher;
use crate::window::{Packed, Window};

/// How long a claim holds an id unless told otherwise: 30 s, well under the provider's retry
/// delay, well over a persist.
pub const DEFAULT_LEASE_MS: u64 = 30_000;

/// How long a done id is remembered unless told otherwise: 7 days, longer than the provider
/// retries a delivery, short enough that no store grows forever (a store drops a done id's entry
/// after it: the TTL of its compare-and-set).
pub const DEFAULT_WINDOW_MS: u64 = 7 * 86_400_000;

/// The latest time a step can carry, in milliseconds since the Unix epoch: 2^48 − 1 (the
/// year 10889). A later `at` is taken as this, by every store alike (the built-in one keeps
/// times in 48 bits).
pub const MAX_TIME_MS: u64 = (1 << 48) - 1;

/// How many times [`Claims::step`] (or a [`ClaimTask`]) re-reads an entry that another instance
/// changed between the load and the compare-and-set before it reports `STORE_UNAVAILABLE`.
pub const MAX_CONFLICTS: u32 = 16;

/// What a request does to an id's claim.
///
/// ```
/// use xborder_core::claims::Step;
/// assert_eq!(Step::parse("release"), Some(Step::Release));
/// assert_eq!(Step::parse("Release"), None);
/// assert_eq!(Step::Claim.as_str(), "claim");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Take the id before processing it.
    Claim,
    /// The event is persisted: the id is done.
    Complete,
    /// Processing failed: give the id back so that a retry processes it.
    Release,
}

impl Step {
    /// Every step.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Step::ALL.len(), 3);
    /// ```
    pub const ALL: &'static [Step] = &[Step::Claim, Step::Complete, Step::Release];

    /// The step named `text` (`claim`, `complete`, `release`; exact case).
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Step::parse("finish"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Step> {
        Step::ALL.iter().copied().find(|s| s.as_str() == text)
    }

    /// Its text, the same in every xborder runtime.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Step::Complete.as_str(), "complete");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Claim => "claim",
            Step::Complete => "complete",
            Step::Release => "release",
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Step {
    type Err = ClaimError;

    /// [`Step::parse`], with `INVALID_STEP` (field `do`) for a text that is not a step.
    ///
    /// ```
    /// use xborder_core::claims::Step;
    /// assert_eq!("claim".parse::<Step>().unwrap(), Step::Claim);
    /// assert_eq!("Claim".parse::<Step>().unwrap_err().code(), "INVALID_STEP");
    /// ```
    fn from_str(text: &str) -> Result<Step, ClaimError> {
        Step::parse(text).ok_or(ClaimError::InvalidStep { field: "do" })
    }
}

/// What [`Claims::step`], [`ClaimTask::new`] (and the `xborder-redis` crate's `step`) take as the
/// step: a [`Step`] (what Rust code passes), or its text (`"claim"`, `"complete"`, `"release"`,
/// as a host reads it from configuration or JSON, and as these methods took before `Step`),
/// refused with `INVALID_STEP` (field `do`) when it names no step.
///
/// ```
/// use xborder_core::claims::{IntoStep, Step};
/// assert_eq!(Step::Release.into_step().unwrap(), Step::Release);
/// assert_eq!("complete".into_step().unwrap(), Step::Complete);
/// assert_eq!(String::from("finish").into_step().unwrap_err().field(), Some("do"));
/// ```
pub trait IntoStep {
    /// The step, or `INVALID_STEP` (field `do`).
    ///
    /// ```
    /// use xborder_core::claims::IntoStep;
    /// assert_eq!("release".into_step().unwrap().as_str(), "release");
    /// ```
    fn into_step(self) -> Result<Step, ClaimError>;
}

impl IntoStep for Step {
    fn into_step(self) -> Result<Step, ClaimError> {
        Ok(self)
    }
}

impl IntoStep for &str {
    fn into_step(self) -> Result<Step, ClaimError> {
        self.parse()
    }
}

impl IntoStep for &String {
    fn into_step(self) -> Result<Step, ClaimError> {
        self.parse()
    }
}

impl IntoStep for String {
    fn into_step(self) -> Result<Step, ClaimError> {
        self.parse()
    }
}

/// The answer to one step (its text: [`Outcome::as_str`]).
///
/// ```
/// use xborder_core::claims::Outcome;
/// assert_eq!(Outcome::InProgress.as_str(), "in_progress");
/// assert!(!Outcome::InProgress.acknowledges());
/// assert!(Outcome::Duplicate.acknowledges());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// This token now holds the id: process the event, then complete (or release).
    Claimed,
    /// Another request holds the id and its lease runs: answer non-2xx (with `Retry-After`), the
    /// provider retries later.
    InProgress,
    /// The id is done: answer 2xx, do nothing.
    Duplicate,
    /// The id is done from now on: answer 2xx.
    Completed,
    /// The id is free again: answer non-2xx, the retry processes it.
    Released,
    /// This token no longer holds the id (its lease expired and another request took it over,
    /// or it was never claimed): nothing changed.
    Stale,
}

impl Outcome {
    /// Every outcome.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Outcome::ALL.len(), 6);
    /// ```
    pub const ALL: &'static [Outcome] = &[
        Outcome::Claimed,
        Outcome::InProgress,
        Outcome::Duplicate,
        Outcome::Completed,
        Outcome::Released,
        Outcome::Stale,
    ];

    /// The outcome of its text ([`Outcome::as_str`]), `None` for any other text.
    ///
    /// ```
    /// use xborder_core::claims::Outcome;
    /// assert_eq!(Outcome::parse("in_progress"), Some(Outcome::InProgress));
    /// assert_eq!(Outcome::parse("IN_PROGRESS"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Outcome> {
        Outcome::ALL.iter().copied().find(|o| o.as_str() == text)
    }

    /// Its text, the same in every xborder runtime.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Outcome::Stale.as_str(), "stale");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Claimed => "claimed",
            Outcome::InProgress => "in_progress",
            Outcome::Duplicate => "duplicate",
            Outcome::Completed => "completed",
            Outcome::Released => "released",
            Outcome::Stale => "stale",
        }
    }

    /// Whether the delivery this step belongs to is answered 2xx: `duplicate` and `completed`
    /// (`claimed` means "process first"; `in_progress` and `released` ask the provider to
    /// retry; after `stale`, another request owns the id, so a retry is safe).
    ///
    /// ```
    /// assert!(xborder_core::claims::Outcome::Completed.acknowledges());
    /// assert!(!xborder_core::claims::Outcome::Claimed.acknowledges());
    /// ```
    pub fn acknowledges(self) -> bool {
        matches!(self, Outcome::Duplicate | Outcome::Completed)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Outcome {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What a receiver answers the provider: an HTTP status and, when the provider should wait
/// before retrying, a `Retry-After` in seconds. Given by [`ClaimRules::reply`] for a step's
/// outcome and by [`ClaimError::reply`] for a step that failed, so every runtime's receiver
/// answers alike.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Outcome, Step};
/// let r = ClaimRules::new(2_500).reply(Step::Claim, Outcome::InProgress).unwrap();
/// assert_eq!((r.status, r.retry_after_s), (503, Some(3)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reply {
    /// The HTTP status: 200, 400, 413, 500 or 503.
    pub status: u16,
    /// Seconds for a `Retry-After` header, when one goes with the status.
    pub retry_after_s: Option<u64>,
}

impl Reply {
    /// 200, no `Retry-After`: what `process` (once persisted), `ignore` and `duplicate` answer.
    ///
    /// ```
    /// use xborder_core::claims::Reply;
    /// assert_eq!((Reply::OK.status, Reply::OK.retry_after_s), (200, None));
    /// ```
    pub const OK: Reply = Reply {
        status: 200,
        retry_after_s: None,
    };
    const RETRY: Reply = Reply {
        status: 500,
        retry_after_s: None,
    };

    /// Whether the provider takes the delivery as done (a 2xx status).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Outcome, Step};
    /// assert!(ClaimRules::default().reply(Step::Claim, Outcome::Duplicate).unwrap().acknowledges());
    /// ```
    pub fn acknowledges(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// What to answer the provider for a delivery refused, or a step failed, with the error `code`
/// (as a binding's exception or a rejected decision carries it). The provider retries every
/// answer that is not 2xx (five attempts, then a dead letter), so the status says whose the
/// fault is, for the logs of both sides:
/// - the request's: a signature that is missing, malformed or does not match, a body that is not
///   an envelope → 400; `BODY_TOO_LARGE` → 413; `BODY_TIMEOUT` (a body not in full within the
///   receiver's deadline) → 408;
/// - this service's: a secret that is empty or malformed (its configuration), `INVALID_STEP`
///   (the host's bug), any other code → 500;
/// - for a moment: `STORE_UNAVAILABLE` → 503 with `Retry-After: 1` ([`ClaimError::reply`]), and
///   `TOO_MANY_CONNECTIONS` (the receiver's connection cap) the same
///   ([`TransportError::reply`](crate::transport::TransportError::reply)).
///
/// ```
/// use xborder_core::claims::reply_to_code;
/// assert_eq!(reply_to_code("STORE_UNAVAILABLE").retry_after_s, Some(1));
/// assert_eq!(reply_to_code("SIGNATURE_MISMATCH").status, 400);
/// assert_eq!(reply_to_code("MISSING_FIELD").status, 400);
/// assert_eq!(reply_to_code("BODY_TOO_LARGE").status, 413);
/// assert_eq!(reply_to_code("BODY_TIMEOUT").status, 408);
/// assert_eq!(reply_to_code("TOO_MANY_CONNECTIONS").retry_after_s, Some(1));
/// assert_eq!(reply_to_code("MALFORMED_SECRET").status, 500);
/// assert_eq!(reply_to_code("INVALID_STEP").status, 500);
/// assert_eq!(reply_to_code("ANYTHING").status, 500);
/// ```
pub fn reply_to_code(code: &str) -> Reply {
    match code {
        "STORE_UNAVAILABLE" => ClaimError::Store(StoreError::new(code)).reply(),
        "MISSING_SIGNATURE"
        | "MALFORMED_SIGNATURE"
        | "SIGNATURE_MISMATCH"
        | "MALFORMED_JSON"
        | "NESTING_TOO_DEEP"
        | "MISSING_FIELD"
        | "INVALID_FIELD"
        | "ENTITY_MISMATCH" => Reply {
            status: 400,
            retry_after_s: None,
        },
        "BODY_TOO_LARGE" => Reply {
            status: 413,
            retry_after_s: None,
        },
        "BODY_TIMEOUT" => Reply {
            status: 408,
            retry_after_s: None,
        },
        "TOO_MANY_CONNECTIONS" => Reply {
            status: 503,
            retry_after_s: Some(1),
        },
        _ => Reply::RETRY,
    }
}

/// Why a step could not be carried out.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Claims};
/// let c = Claims::in_memory(ClaimRules::new(1_000), 10);
/// let e = c.step("finish", "evt_1", "r1", 0).unwrap_err();
/// assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("do")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimError {
    /// The step is not `claim`, `complete` or `release` (`do`), or its `id` or `token` is empty.
    InvalidStep {
        /// The input that is wrong: `do`, `id` or `token`.
        field: &'static str,
    },
    /// The store failed, holds an entry that is not one of ours, or kept changing under us.
    Store(StoreError),
}

impl ClaimError {
    /// Stable code: `INVALID_STEP` or `STORE_UNAVAILABLE`.
    ///
    /// ```
    /// use xborder_core::{claims::ClaimError, delivery::StoreError};
    /// assert_eq!(ClaimError::Store(StoreError::new("down")).code(), "STORE_UNAVAILABLE");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            ClaimError::InvalidStep { .. } => "INVALID_STEP",
            ClaimError::Store(e) => e.code(),
        }
    }

    /// What to answer the provider when a step failed: `STORE_UNAVAILABLE` → 503 with
    /// `Retry-After: 1` (the store may be back in a moment; nothing was processed), `INVALID_STEP`
    /// → 500 (a bug in the host; the provider retries on its own schedule).
    ///
    /// ```
    /// use xborder_core::{claims::ClaimError, delivery::StoreError};
    /// let r = ClaimError::Store(StoreError::new("down")).reply();
    /// assert_eq!((r.status, r.retry_after_s), (503, Some(1)));
    /// assert_eq!(ClaimError::InvalidStep { field: "id" }.reply().status, 500);
    /// ```
    pub fn reply(&self) -> Reply {
        match self {
            ClaimError::InvalidStep { .. } => Reply::RETRY,
            ClaimError::Store(_) => Reply {
                status: 503,
                retry_after_s: Some(1),
            },
        }
    }

    /// The input at fault, for `INVALID_STEP`.
    ///
    /// ```
    /// use xborder_core::claims::ClaimError;
    /// assert_eq!(ClaimError::InvalidStep { field: "token" }.field(), Some("token"));
    /// ```
    pub fn field(&self) -> Option<&'static str> {
        match self {
            ClaimError::InvalidStep { field } => Some(field),
            ClaimError::Store(_) => None,
        }
    }
}

impl fmt::Display for ClaimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimError::InvalidStep { field: "do" } => {
                f.write_str("INVALID_STEP: do must be claim, complete or release")
            }
            ClaimError::InvalidStep { field } => {
                write!(f, "INVALID_STEP: {field} must not be empty")
            }
            ClaimError::Store(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl std::error::Error for ClaimError {}

impl From<StoreError> for ClaimError {
    fn from(e: StoreError) -> Self {
        ClaimError::Store(e)
    }
}

/// What a store keeps for one id.
///
/// ```
/// use xborder_core::claims::Entry;
/// let e = Entry::held("req_a", 1_700);
/// assert_eq!(e.encode(), "h:1700:req_a");
/// assert_eq!(Entry::decode("h:1700:req_a").unwrap(), e);
/// assert_eq!(Entry::decode("d:5").unwrap(), Entry::done(5));
/// assert_eq!(Entry::decode("x").unwrap_err().code(), "STORE_UNAVAILABLE");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Entry {
    /// Claimed by `token` at `since` (host milliseconds).
    Held {
        /// The request that holds the id.
        token: String,
        /// When it claimed it.
        since: u64,
    },
    /// Completed at `at` (host milliseconds).
    Done {
        /// When it was completed.
        at: u64,
    },
}

impl Entry {
    /// A claim by `token` at `since`.
    ///
    /// ```
    /// assert!(matches!(xborder_core::claims::Entry::held("t", 1), xborder_core::claims::Entry::Held { .. }));
    /// ```
    pub fn held(token: impl Into<String>, since: u64) -> Entry {
        Entry::Held {
            token: token.into(),
            since,
        }
    }

    /// A completion at `at`.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Entry::done(3).encode(), "d:3");
    /// ```
    pub fn done(at: u64) -> Entry {
        Entry::Done { at }
    }

    /// The entry as a store keeps it: `h:<since>:<token>` or `d:<at>`. The text is canonical
    /// (one entry, one text), so a store compares texts for its compare-and-set.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Entry::held("a:b", 0).encode(), "h:0:a:b");
    /// ```
    pub fn encode(&self) -> String {
        match self {
            Entry::Held { token, since } => format!("h:{since}:{token}"),
            Entry::Done { at } => format!("d:{at}"),
        }
    }

    /// Reads a stored text back (`STORE_UNAVAILABLE` when it is not one [`Entry::encode`]
    /// writes).
    ///
    /// ```
    /// assert!(xborder_core::claims::Entry::decode("h:1:").is_err()); // a token is never empty
    /// ```
    pub fn decode(text: &str) -> Result<Entry, StoreError> {
        let bad = || StoreError::new("the store holds an entry xborder did not write");
        let number = |s: &str| {
            if s.is_empty()
                || !s.bytes().all(|b| b.is_ascii_digit())
                || (s.len() > 1 && s.starts_with('0'))
            {
                return Err(bad());
            }
            s.parse::<u64>().map_err(|_| bad())
        };
        match text.split_once(':') {
            Some(("d", at)) => Ok(Entry::done(number(at)?)),
            Some(("h", rest)) => {
                let (since, token) = rest.split_once(':').ok_or_else(bad)?;
                if token.is_empty() {
                    return Err(bad());
                }
                Ok(Entry::held(token, number(since)?))
            }
            _ => Err(bad()),
        }
    }
}

/// What a step writes: nothing, an entry, or the removal of the entry.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Step, Write};
/// let (_, w) = ClaimRules::new(10).decide(None, Step::Release, "r1", 0);
/// assert_eq!(w, Write::Keep);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Write {
    /// Leave the entry as it is.
    Keep,
    /// Replace the entry (or create it) with this one.
    Put(Entry),
    /// Remove the entry.
    Remove,
}

/// The rules of claims: the lease of a claim and how long a done id is remembered.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Entry, Outcome, Step, Write};
/// let rules = ClaimRules::new(30_000).with_window(60_000);
/// let done = Entry::done(0);
/// assert_eq!(rules.decide(Some(&done), Step::Claim, "r2", 59_999).0, Outcome::Duplicate);
/// let (outcome, write) = rules.decide(Some(&done), Step::Claim, "r3", 60_000);
/// assert_eq!((outcome, write), (Outcome::Claimed, Write::Put(Entry::held("r3", 60_000))));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimRules {
    lease_ms: u64,
    window_ms: Option<u64>,
}

impl Default for ClaimRules {
    fn default() -> Self {
        ClaimRules::new(DEFAULT_LEASE_MS)
    }
}

impl ClaimRules {
    /// Claims that hold for `lease_ms`; done ids remembered for [`DEFAULT_WINDOW_MS`] (7 days).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, DEFAULT_WINDOW_MS};
    /// assert_eq!(ClaimRules::new(5).lease_ms(), 5);
    /// assert_eq!(ClaimRules::new(5).window_ms(), Some(DEFAULT_WINDOW_MS));
    /// ```
    pub fn new(lease_ms: u64) -> Self {
        ClaimRules {
            lease_ms,
            window_ms: Some(DEFAULT_WINDOW_MS),
        }
    }

    /// Done ids remembered until the store forgets them (the claims contract's rules without
    /// `windowMs`): a store that never forgets grows with every id, so this is for a store
    /// that bounds itself (by capacity) or for tests.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::ClaimRules::new(5).without_window().window_ms(), None);
    /// ```
    pub fn without_window(mut self) -> Self {
        self.window_ms = None;
        self
    }

    /// Done ids count as duplicates for `window_ms` after completion, then are forgotten.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::ClaimRules::new(5).with_window(9).window_ms(), Some(9));
    /// ```
    pub fn with_window(mut self, window_ms: u64) -> Self {
        self.window_ms = Some(window_ms);
        self
    }

    /// The lease of a claim, in milliseconds.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::ClaimRules::default().lease_ms(), 30_000);
    /// ```
    pub fn lease_ms(&self) -> u64 {
        self.lease_ms
    }

    /// How long a done id is remembered, when bounded by time.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, DEFAULT_WINDOW_MS};
    /// assert_eq!(ClaimRules::default().window_ms(), Some(DEFAULT_WINDOW_MS));
    /// ```
    pub fn window_ms(&self) -> Option<u64> {
        self.window_ms
    }

    /// The rule of one step, given the id's current entry (`None`: no entry): its outcome and
    /// what to write. Pure; `at` is the host's clock in milliseconds.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Entry, Outcome, Step, Write};
    /// let rules = ClaimRules::new(30_000);
    /// let held = Entry::held("r1", 0);
    /// assert_eq!(rules.decide(Some(&held), Step::Claim, "r2", 10).0, Outcome::InProgress);
    /// assert_eq!(rules.decide(Some(&held), Step::Complete, "r2", 10).0, Outcome::Stale);
    /// assert_eq!(rules.decide(Some(&held), Step::Release, "r1", 10), (Outcome::Released, Write::Remove));
    /// // A completion that finds no entry (its claim expired and the store dropped it) sticks.
    /// assert_eq!(rules.decide(None, Step::Complete, "r1", 10), (Outcome::Completed, Write::Put(Entry::done(10))));
    /// assert_eq!(rules.decide(None, Step::Release, "r1", 10).0, Outcome::Stale);
    /// ```
    pub fn decide(
        &self,
        current: Option<&Entry>,
        step: Step,
        token: &str,
        at: u64,
    ) -> (Outcome, Write) {
        // An entry past the time its store keeps it (`ttl_ms`) is no entry, whether the store
        // has dropped it yet (Redis, the built-in store's window) or not (a plain table): every
        // store answers alike.
        let current = current.filter(|e| !self.outlived(e, at));
        let holds = matches!(current, Some(Entry::Held { token: t, .. }) if t == token);
        match step {
            Step::Claim => match current {
                Some(Entry::Done { at: done }) if self.remembers(*done, at) => {
                    (Outcome::Duplicate, Write::Keep)
                }
                Some(Entry::Held { since, .. }) if at < since.saturating_add(self.lease_ms) => {
                    (Outcome::InProgress, Write::Keep)
                }
                _ => (Outcome::Claimed, Write::Put(Entry::held(token, at))),
            },
            // No entry at all (a store dropped an expired claim, as Redis does after its TTL, or
            // never had one): nobody else holds the id, so it is done from `at` (contract v3).
            Step::Complete if holds || current.is_none() => {
                (Outcome::Completed, Write::Put(Entry::done(at)))
            }
            Step::Release if holds => (Outcome::Released, Write::Remove),
            Step::Complete | Step::Release => (Outcome::Stale, Write::Keep),
        }
    }

    /// What a receiver answers the provider after `step` gave `outcome` (`None` after
    /// `claimed`: persist the event first, then complete, or release if persisting failed):
    ///
    /// | step, outcome | reply |
    /// |---|---|
    /// | claim, `in_progress` | 503, `Retry-After` = the lease in whole seconds, rounded up, at least 1 |
    /// | claim, `duplicate` | 200 |
    /// | complete, `completed` or `stale` | 200: the event is persisted and a retry would only repeat it |
    /// | release, `released` or `stale` | 500: persisting failed, the provider's retry processes it |
    ///
    /// After persisting, answer `reply(Step::Complete, Outcome::Completed)` also when
    /// `complete` fails ([`ClaimError`]): the event is kept, and a consumer's unique key makes a
    /// retry harmless. After persisting failed, answer the release's reply whatever it gave.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Outcome, Step};
    /// let rules = ClaimRules::new(30_000);
    /// assert_eq!(rules.reply(Step::Claim, Outcome::Claimed), None);
    /// assert_eq!(rules.reply(Step::Claim, Outcome::InProgress).unwrap().retry_after_s, Some(30));
    /// assert_eq!(rules.reply(Step::Complete, Outcome::Stale).unwrap().status, 200);
    /// assert_eq!(rules.reply(Step::Release, Outcome::Stale).unwrap().status, 500);
    /// ```
    pub fn reply(&self, step: Step, outcome: Outcome) -> Option<Reply> {
        match outcome {
            Outcome::Claimed => None,
            Outcome::InProgress => Some(Reply {
                status: 503,
                retry_after_s: Some(self.lease_ms.div_ceil(1_000).max(1)),
            }),
            Outcome::Duplicate | Outcome::Completed => Some(Reply::OK),
            Outcome::Released => Some(Reply::RETRY),
            Outcome::Stale => Some(match step {
                Step::Complete => Reply::OK,
                Step::Claim | Step::Release => Reply::RETRY,
            }),
        }
    }

    fn remembers(&self, done: u64, at: u64) -> bool {
        self.window_ms.is_none_or(|w| at < done.saturating_add(w))
    }

    /// Whether `entry` is past its `ttl_ms` at `at` (a store may have dropped it).
    fn outlived(&self, entry: &Entry, at: u64) -> bool {
        let since = match entry {
            Entry::Done { at } => *at,
            Entry::Held { since, .. } => *since,
        };
        self.ttl_ms(entry)
            .is_some_and(|ttl| at >= since.saturating_add(ttl))
    }

    /// How long a store may keep `entry` before dropping it on its own (a TTL), `None` for no
    /// limit: a done entry for the window; a claim for two leases (an entry past it is no
    /// entry to [`ClaimRules::decide`], whether the store has dropped it or not).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Entry};
    /// let r = ClaimRules::new(10).with_window(100);
    /// assert_eq!(r.ttl_ms(&Entry::done(0)), Some(100));
    /// assert_eq!(r.ttl_ms(&Entry::held("t", 0)), Some(20));
    /// ```
    pub fn ttl_ms(&self, entry: &Entry) -> Option<u64> {
        match entry {
            Entry::Done { .. } => self.window_ms,
            Entry::Held { .. } => Some(self.lease_ms.saturating_mul(2).max(1)),
        }
    }
}

/// Where claims are kept, shared by the instances of one consumer. Implement it over Redis
/// (`WATCH`/`MULTI` or a Lua script), a SQL row (`UPDATE … WHERE value = $expected`), or
/// anything with an atomic compare-and-set. The store only keeps entries: the rules are
/// [`ClaimRules::decide`]'s. Methods take `&self`, so one store serves concurrent requests.
///
/// ```
/// use std::{collections::HashMap, sync::Mutex};
/// use xborder_core::claims::{ClaimRules, ClaimStore, Claims, Entry, Outcome, Step};
/// use xborder_core::delivery::StoreError;
/// #[derive(Default)]
/// struct Texts(Mutex<HashMap<String, String>>); // what a Redis adapter does, in memory
/// impl ClaimStore for Texts {
///     fn load(&self, id: &str) -> Result<Option<Entry>, StoreError> {
///         let map = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
///         map.get(id).map(|t| Entry::decode(t)).transpose()
///     }
///     fn compare_and_set(&self, id: &str, expected: Option<&Entry>, new: Option<&Entry>, _ttl_ms: Option<u64>) -> Result<bool, StoreError> {
///         let mut map = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
///         if map.get(id).map(String::as_str) != expected.map(Entry::encode).as_deref() { return Ok(false); }
///         match new { Some(e) => { map.insert(id.to_owned(), e.encode()); } None => { map.remove(id); } }
///         Ok(true)
///     }
/// }
/// let c = Claims::with_store(ClaimRules::new(1_000), Texts::default());
/// assert_eq!(c.step(Step::Claim, "evt_1", "r1", 0).unwrap(), Outcome::Claimed);
/// assert_eq!(c.step(Step::Claim, "evt_1", "r2", 1).unwrap(), Outcome::InProgress);
/// ```
pub trait ClaimStore {
    /// The entry of `id`, `None` when it has none. A failure ends the step with
    /// `STORE_UNAVAILABLE` (503: the provider retries).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimStore, Claims, Entry, MemoryClaims, Step};
    /// let store = MemoryClaims::new(10);
    /// assert_eq!(store.load("evt_1").unwrap(), None);
    /// let claims = Claims::with_store(ClaimRules::new(30_000), &store);
    /// claims.step(Step::Claim, "evt_1", "req_a", 5).unwrap();
    /// assert_eq!(store.load("evt_1").unwrap(), Some(Entry::held("req_a", 5)));
    /// ```
    fn load(&self, id: &str) -> Result<Option<Entry>, StoreError>;

    /// Atomically: when the entry of `id` is `expected` (`None`: no entry), makes it `new`
    /// (`None`: remove it), which the store may drop on its own after `ttl_ms`, and answers
    /// `true`; otherwise changes nothing and answers `false`.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimStore, Entry, MemoryClaims};
    /// let store = MemoryClaims::new(10);
    /// let held = Entry::held("req_a", 0);
    /// assert!(store.compare_and_set("evt_1", None, Some(&held), Some(60_000)).unwrap());
    /// // Another request saw no entry too: its write is refused, it loads again.
    /// assert!(!store.compare_and_set("evt_1", None, Some(&Entry::held("req_b", 1)), Some(60_000)).unwrap());
    /// assert!(store.compare_and_set("evt_1", Some(&held), Some(&Entry::done(9)), None).unwrap());
    /// assert_eq!(store.load("evt_1").unwrap(), Some(Entry::done(9)));
    /// ```
    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        ttl_ms: Option<u64>,
    ) -> Result<bool, StoreError>;
}

impl<S: ClaimStore + ?Sized> ClaimStore for &S {
    fn load(&self, id: &str) -> Result<Option<Entry>, StoreError> {
        (**self).load(id)
    }
    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        ttl_ms: Option<u64>,
    ) -> Result<bool, StoreError> {
        (**self).compare_and_set(id, expected, new, ttl_ms)
    }
}

/// The one Redis script every language's adapter runs for [`ClaimStore::compare_and_set`]
/// (`EVAL` / `EVALSHA` with one key, the id's key, and three arguments: the expected entry
/// text, the new entry text, the TTL in milliseconds; an empty argument means "no entry" or "no
/// TTL"; a TTL under 1 ms removes the entry). Entry texts are never empty, so the empty string is free to mean "none". Answers 1
/// when it applied the change, 0 when the entry was not the expected one. A load is a plain
/// `GET`.
///
/// ```
/// let s = xborder_core::claims::REDIS_COMPARE_AND_SET;
/// assert!(s.contains("redis.call('GET', KEYS[1])") && s.contains("'PX'"));
/// ```
pub const REDIS_COMPARE_AND_SET: &str = "\
local cur = redis.call('GET', KEYS[1])
if cur == false then cur = '' end
if cur ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
elseif ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
elseif tonumber(ARGV[3]) < 1 then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
";

/// What a [`ClaimTask`] needs next from the store.
///
/// ```
/// use xborder_core::claims::{ClaimRules, ClaimTask, Need};
/// let mut t = ClaimTask::new(ClaimRules::new(10), "claim", "evt_1", "r1", 0).unwrap();
/// assert_eq!(t.start(), Need::Load { id: "evt_1".into() });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Need {
    /// Load the entry of `id`, then call [`ClaimTask::loaded`].
    Load {
        /// The event id.
        id: String,
    },
    /// Compare-and-set the entry of `id` (as [`ClaimStore::compare_and_set`]), then call
    /// [`ClaimTask::swapped`] with its answer.
    CompareAndSet {
        /// The event id.
        id: String,
        /// The entry it must still have (`None`: no entry).
        expected: Option<Entry>,
        /// The entry to write (`None`: remove it).
        new: Option<Entry>,
        /// How long the store may keep `new`.
        ttl_ms: Option<u64>,
    },
    /// The step is over.
    Done(Outcome),
}

/// One step against a store the host reaches on its own terms (asynchronously, for
/// instance): the task says which load or compare-and-set it needs, the host does it and
/// hands the answer back, until [`Need::Done`]. All the deciding is the task's.
///
/// ```
/// use xborder_core::claims::{ClaimRules, ClaimTask, Entry, Need, Outcome};
/// let mut t = ClaimTask::new(ClaimRules::new(30_000), "complete", "evt_1", "r1", 40).unwrap();
/// let Need::Load { .. } = t.start() else { unreachable!() };
/// let need = t.loaded(Some(Entry::held("r1", 0))).unwrap();
/// assert!(matches!(need, Need::CompareAndSet { new: Some(Entry::Done { at: 40 }), .. }));
/// assert_eq!(t.swapped(true).unwrap(), Need::Done(Outcome::Completed));
/// ```
#[derive(Debug, Clone)]
pub struct ClaimTask {
    rules: ClaimRules,
    step: Step,
    id: String,
    token: String,
    at: u64,
    conflicts: u32,
    pending: Option<Outcome>,
}

impl ClaimTask {
    /// A step ([`Step::Claim`], [`Step::Complete`] or [`Step::Release`], or its text: see
    /// [`IntoStep`]) by `token` on `id` at `at` (host milliseconds, at most [`MAX_TIME_MS`]).
    /// `INVALID_STEP` names `do`, `id` or `token` when one is wrong.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, Step};
    /// let e = ClaimTask::new(ClaimRules::new(10), Step::Claim, "", "r1", 0).unwrap_err();
    /// assert_eq!(e.field(), Some("id"));
    /// let e = ClaimTask::new(ClaimRules::new(10), "finish", "evt_1", "r1", 0).unwrap_err();
    /// assert_eq!(e.field(), Some("do"));
    /// ```
    pub fn new(
        rules: ClaimRules,
        step: impl IntoStep,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<ClaimTask, ClaimError> {
        let step = step.into_step()?;
        if id.is_empty() {
            return Err(ClaimError::InvalidStep { field: "id" });
        }
        if token.is_empty() {
            return Err(ClaimError::InvalidStep { field: "token" });
        }
        Ok(ClaimTask {
            rules,
            step,
            id: id.to_owned(),
            token: token.to_owned(),
            at: at.min(MAX_TIME_MS),
            conflicts: 0,
            pending: None,
        })
    }

    /// The first need: always the load of the id's entry.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, Need};
    /// let mut t = ClaimTask::new(ClaimRules::new(10), "release", "e", "r", 0).unwrap();
    /// assert!(matches!(t.start(), Need::Load { .. }));
    /// ```
    pub fn start(&mut self) -> Need {
        self.pending = None;
        Need::Load {
            id: self.id.clone(),
        }
    }

    /// The loaded entry (`None`: no entry): the task decides, and needs either a
    /// compare-and-set or nothing more.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, Need, Outcome};
    /// let mut t = ClaimTask::new(ClaimRules::new(10), "release", "e", "r", 0).unwrap();
    /// t.start();
    /// assert_eq!(t.loaded(None).unwrap(), Need::Done(Outcome::Stale));
    /// ```
    pub fn loaded(&mut self, entry: Option<Entry>) -> Result<Need, ClaimError> {
        let (outcome, write) = self
            .rules
            .decide(entry.as_ref(), self.step, &self.token, self.at);
        let new = match write {
            Write::Keep => return Ok(Need::Done(outcome)),
            Write::Put(e) => Some(e),
            Write::Remove => None,
        };
        self.pending = Some(outcome);
        let ttl_ms = new.as_ref().and_then(|e| self.rules.ttl_ms(e));
        Ok(Need::CompareAndSet {
            id: self.id.clone(),
            expected: entry,
            new,
            ttl_ms,
        })
    }

    /// The compare-and-set's answer: done when it was applied; otherwise another request
    /// changed the entry meanwhile, and the task loads it again (`STORE_UNAVAILABLE` after
    /// [`MAX_CONFLICTS`] such rounds, or when no compare-and-set was asked).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, Need};
    /// let mut t = ClaimTask::new(ClaimRules::new(10), "claim", "e", "r", 0).unwrap();
    /// t.start();
    /// t.loaded(None).unwrap();
    /// assert!(matches!(t.swapped(false).unwrap(), Need::Load { .. }));
    /// ```
    pub fn swapped(&mut self, applied: bool) -> Result<Need, ClaimError> {
        let outcome = self.pending.take().ok_or_else(|| {
            ClaimError::Store(StoreError::new(
                "a compare-and-set answer without a request",
            ))
        })?;
        if applied {
            return Ok(Need::Done(outcome));
        }
        self.conflicts += 1;
        if self.conflicts >= MAX_CONFLICTS {
            return Err(ClaimError::Store(StoreError::new(
                "the entry kept changing under concurrent requests",
            )));
        }
        Ok(self.start())
    }

    /// The store call the task asked for failed (an IO error, a timeout): the step ends with
    /// this error, `STORE_UNAVAILABLE` with the host's message. Hosts that drive the task
    /// themselves report a failed call through this, so the code is core's.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask};
    /// let mut t = ClaimTask::new(ClaimRules::new(10), "claim", "e", "r", 0).unwrap();
    /// t.start();
    /// let e = t.failed("redis: connection refused");
    /// assert_eq!(e.code(), "STORE_UNAVAILABLE");
    /// assert!(e.to_string().contains("connection refused"));
    /// ```
    pub fn failed(&mut self, message: impl Into<String>) -> ClaimError {
        self.pending = None;
        ClaimError::Store(StoreError::new(message))
    }

    /// Runs the task to its end against a synchronous store.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, MemoryClaims, Outcome};
    /// let store = MemoryClaims::new(10);
    /// let t = ClaimTask::new(ClaimRules::new(10), "claim", "e", "r", 0).unwrap();
    /// assert_eq!(t.run(&store).unwrap(), Outcome::Claimed);
    /// ```
    pub fn run<S: ClaimStore + ?Sized>(mut self, store: &S) -> Result<Outcome, ClaimError> {
        let mut need = self.start();
        loop {
            need = match need {
                Need::Done(outcome) => return Ok(outcome),
                Need::Load { id } => self.loaded(store.load(&id)?)?,
                Need::CompareAndSet {
                    id,
                    expected,
                    new,
                    ttl_ms,
                } => {
                    let applied =
                        store.compare_and_set(&id, expected.as_ref(), new.as_ref(), ttl_ms)?;
                    self.swapped(applied)?
                }
            };
        }
    }
}

/// Claims against a store: the synchronous way to run steps.
///
/// Every method takes `&self`, and `Claims` is `Send + Sync` when its store is (the built-in
/// [`MemoryClaims`] is): share one between the handlers of an async server in an `Arc`. With
/// [`MemoryClaims`] a step never waits on IO, so call it directly from an async handler; with
/// a store that does IO, drive a [`ClaimTask`] against the store's async client instead (the
/// `xborder-redis` crate does this for Redis).
///
/// ```
/// use xborder_core::claims::{ClaimRules, Claims, Outcome, Step};
/// let c = Claims::in_memory(ClaimRules::new(30_000), 100);
/// assert_eq!(c.step(Step::Claim, "evt_1", "r1", 0).unwrap(), Outcome::Claimed);
/// assert_eq!(c.step(Step::Release, "evt_1", "r1", 5).unwrap(), Outcome::Released);
/// assert_eq!(c.step(Step::Claim, "evt_1", "r2", 6).unwrap(), Outcome::Claimed);
/// ```
#[derive(Debug)]
pub struct Claims<S = MemoryClaims> {
    rules: ClaimRules,
    store: S,
}

impl Claims<MemoryClaims> {
    /// Claims kept in this process, remembering at most `capacity` done ids.
    ///
    /// ```
    /// let c = xborder_core::claims::Claims::in_memory(Default::default(), 5);
    /// assert_eq!(c.store().capacity(), 5);
    /// ```
    pub fn in_memory(rules: ClaimRules, capacity: usize) -> Self {
        Claims {
            rules,
            store: MemoryClaims::new(capacity),
        }
    }
}

impl<S: ClaimStore> Claims<S> {
    /// Claims kept in the host's store.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Claims, MemoryClaims};
    /// let c = Claims::with_store(ClaimRules::new(1), MemoryClaims::new(1));
    /// assert_eq!(c.rules().lease_ms(), 1);
    /// ```
    pub fn with_store(rules: ClaimRules, store: S) -> Self {
        Claims { rules, store }
    }

    /// The rules in use.
    ///
    /// ```
    /// let c = xborder_core::claims::Claims::in_memory(xborder_core::claims::ClaimRules::new(7), 1);
    /// assert_eq!(c.rules().lease_ms(), 7);
    /// ```
    pub fn rules(&self) -> ClaimRules {
        self.rules
    }

    /// The store.
    ///
    /// ```
    /// assert!(xborder_core::claims::Claims::in_memory(Default::default(), 1).store().is_empty());
    /// ```
    pub fn store(&self) -> &S {
        &self.store
    }

    /// One step ([`Step`], or its text `claim`, `complete`, `release`: see [`IntoStep`]) by
    /// `token` on `id` at `at` (host milliseconds).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Claims, Step};
    /// let c = Claims::in_memory(ClaimRules::new(10), 1);
    /// assert_eq!(c.step(Step::Claim, "e", "r1", 0).unwrap(), "claimed");
    /// assert_eq!(c.step(Step::Complete, "e", "r2", 1).unwrap(), "stale"); // r1 holds it
    /// assert_eq!(c.step(Step::Complete, "e", "r1", 2).unwrap(), "completed");
    /// assert_eq!(c.step("claim", "e", "r3", 3).unwrap(), "duplicate"); // the text works too
    /// ```
    pub fn step(
        &self,
        step: impl IntoStep,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<Outcome, ClaimError> {
        ClaimTask::new(self.rules, step, id, token, at)?.run(&self.store)
    }
}

#[derive(Default)]
struct Memory {
    /// Done ids with their completion time.
    done: Window,
    /// Claims in progress, by id digest: (token, since, expires).
    held: HashMap<u128, (String, u64, u64), BuildHasherDefault<DigestHasher>>,
    /// How long done entries live (the last TTL asked for one), for the window eviction.
    done_ttl: Option<u64>,
}

/// Claims in process memory: the built-in store, for one instance (several instances share a
/// store of the host's, over [`ClaimStore`]).
///
/// `Send + Sync`: its maps are behind a [`Mutex`] held for one load or one compare-and-set (a
/// poisoned lock is taken over, never a panic).
///
/// Bounded: at most `capacity` done ids (oldest forgotten first), and done ids older than the
/// window are dropped as time passes; claims in progress at most `max(capacity, 1024)`
/// (expired ones are swept when that is reached; if none has expired, a new claim is refused
/// with `STORE_UNAVAILABLE`). A done id takes one `u128` in a ring and one in a hash set,
/// about 35 bytes when the set is full and 53 just after it grows, whatever the id's length
/// (ids are kept as an 80-bit digest: a false duplicate needs a collision, about 2⁻⁶⁰ per
/// delivery at a million ids). Each step is O(1).
///
/// ```
/// use xborder_core::claims::{ClaimRules, Claims, Outcome, Step};
/// let c = Claims::in_memory(ClaimRules::new(10), 2);
/// for id in ["a", "b", "c"] {
///     c.step(Step::Claim, id, "r", 0).unwrap();
///     c.step(Step::Complete, id, "r", 0).unwrap();
/// }
/// assert_eq!(c.store().len(), 2);
/// assert_eq!(c.step(Step::Claim, "a", "r2", 1).unwrap(), Outcome::Claimed); // forgotten
/// assert_eq!(c.step(Step::Claim, "c", "r2", 1).unwrap(), Outcome::Duplicate);
/// ```
pub struct MemoryClaims {
    inner: Mutex<Memory>,
}

impl fmt::Debug for MemoryClaims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MemoryClaims {{ capacity: {}, len: {} }}",
            self.capacity(),
            self.len()
        )
    }
}

impl MemoryClaims {
    /// A store that remembers at most `capacity` done ids.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::MemoryClaims::new(3).capacity(), 3);
    /// ```
    pub fn new(capacity: usize) -> Self {
        MemoryClaims {
            inner: Mutex::new(Memory {
                done: Window::new(capacity),
                ..Memory::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Memory> {
        // A panic while the lock is held cannot leave the maps half-written in a way that
        // breaks their invariants (each write is one insert or remove), so a poisoned lock is
        // taken over.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The most done ids it remembers.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::MemoryClaims::new(0).capacity(), 0);
    /// ```
    pub fn capacity(&self) -> usize {
        self.lock().done.capacity()
    }

    /// How many done ids it remembers now.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::MemoryClaims::new(3).len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.lock().done.len()
    }

    /// Whether it remembers nothing (no done id, no claim in progress).
    ///
    /// ```
    /// assert!(xborder_core::claims::MemoryClaims::new(3).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        let m = self.lock();
        m.done.len() == 0 && m.held.is_empty()
    }

    /// Bytes held for done ids now (ring and set), for budgets and benchmarks.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Claims, Step};
    /// let c = Claims::in_memory(ClaimRules::new(10), 1000);
    /// for i in 0..1000 {
    ///     let id = format!("evt_{i}");
    ///     c.step(Step::Claim, &id, "r", 0).unwrap();
    ///     c.step(Step::Complete, &id, "r", 0).unwrap();
    /// }
    /// assert!(c.store().approx_bytes() / 1000 <= 64);
    /// ```
    pub fn approx_bytes(&self) -> usize {
        self.lock().done.approx_bytes()
    }
}

impl Memory {
    fn entry(&self, probe: Packed) -> Option<Entry> {
        if let Some((token, since, _)) = self.held.get(&probe.key()) {
            return Some(Entry::held(token.clone(), *since));
        }
        self.done.get(probe).map(Entry::done)
    }

    fn hold(
        &mut self,
        key: u128,
        token: &str,
        since: u64,
        ttl: Option<u64>,
    ) -> Result<(), StoreError> {
        let limit = self.done.capacity().max(1024);
        if self.held.len() >= limit && !self.held.contains_key(&key) {
            self.held.retain(|_, (_, _, expires)| *expires > since);
            if self.held.len() >= limit {
                return Err(StoreError::new("too many claims in progress"));
            }
        }
        let expires = ttl.map_or(u64::MAX, |t| since.saturating_add(t));
        self.held.insert(key, (token.to_owned(), since, expires));
        Ok(())
    }
}

impl ClaimStore for MemoryClaims {
    fn load(&self, id: &str) -> Result<Option<Entry>, StoreError> {
        Ok(self.lock().entry(Packed::new(id, 0)))
    }

    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        ttl_ms: Option<u64>,
    ) -> Result<bool, StoreError> {
        let probe = Packed::new(id, 0);
        let mut m = self.lock();
        if m.entry(probe).as_ref() != expected {
            return Ok(false);
        }
        match new {
            Some(Entry::Held { token, since }) => {
                m.hold(probe.key(), token, *since, ttl_ms)?;
                m.done.remove(probe);
                let ttl = m.done_ttl;
                m.done.evict(*since, ttl);
            }
            Some(Entry::Done { at }) => {
                m.held.remove(&probe.key());
                m.done_ttl = ttl_ms;
                m.done.insert(probe, *at);
                m.done.evict(*at, ttl_ms);
            }
            None => {
                m.held.remove(&probe.key());
                m.done.remove(probe);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(c: &Claims<impl ClaimStore>, steps: &[(&str, &str, u64, &str)]) -> Vec<String> {
        steps
            .iter()
            .map(
                |(step, id, at, token)| match c.step(*step, id, token, *at) {
                    Ok(o) => o.as_str().to_owned(),
                    Err(e) => e.code().to_owned(),
                },
            )
            .collect()
    }

    #[test]
    fn late_complete_by_the_holder_counts_when_nobody_took_over() {
        let c = Claims::in_memory(ClaimRules::new(100), 10);
        let got = run(
            &c,
            &[
                ("claim", "e", 0, "r1"),
                ("complete", "e", 150, "r1"),
                ("claim", "e", 151, "r2"),
            ],
        );
        assert_eq!(got, ["claimed", "completed", "duplicate"]);
    }

    /// Without a window given, a done id is a duplicate for 7 days and claimable after: no store
    /// keeps it for ever (its compare-and-set carries the same TTL).
    #[test]
    fn the_default_window_is_seven_days() {
        let c = Claims::in_memory(ClaimRules::new(10), 10);
        let week = DEFAULT_WINDOW_MS;
        let got = run(
            &c,
            &[
                ("claim", "e", 0, "r1"),
                ("complete", "e", 5, "r1"),
                ("claim", "e", 5 + week - 1, "r2"),
                ("claim", "e", 5 + week, "r3"),
            ],
        );
        assert_eq!(got, ["claimed", "completed", "duplicate", "claimed"]);
        assert_eq!(ClaimRules::new(10).ttl_ms(&Entry::done(5)), Some(week));
    }

    #[test]
    fn window_evicts_done_ids_and_a_reclaimed_id_survives_its_old_ring_slot() {
        let c = Claims::in_memory(ClaimRules::new(10).with_window(100), 10);
        let got = run(
            &c,
            &[
                ("claim", "e", 0, "r1"),
                ("complete", "e", 0, "r1"),
                ("claim", "e", 100, "r2"),
                ("complete", "e", 101, "r2"),
                ("claim", "f", 150, "r3"),
                ("claim", "e", 200, "r4"),
            ],
        );
        assert_eq!(
            got,
            [
                "claimed",
                "completed",
                "claimed",
                "completed",
                "claimed",
                "duplicate"
            ]
        );
        assert_eq!(c.store().len(), 1);
    }

    #[test]
    fn capacity_zero_remembers_no_done_id_but_still_holds_claims() {
        let c = Claims::in_memory(ClaimRules::new(10), 0);
        let got = run(
            &c,
            &[
                ("claim", "e", 0, "r1"),
                ("claim", "e", 1, "r2"),
                ("complete", "e", 2, "r1"),
                ("claim", "e", 3, "r3"),
            ],
        );
        assert_eq!(got, ["claimed", "in_progress", "completed", "claimed"]);
    }

    #[test]
    fn claims_in_progress_are_bounded_and_expired_ones_swept() {
        let c = Claims::in_memory(ClaimRules::new(10), 0);
        for i in 0..1024 {
            assert_eq!(
                c.step("claim", &format!("e{i}"), "r", 0).unwrap(),
                Outcome::Claimed
            );
        }
        let e = c.step("claim", "x", "r", 5).unwrap_err();
        assert_eq!(e.code(), "STORE_UNAVAILABLE");
        // Two leases later the old claims may be dropped: a new claim gets through.
        assert_eq!(c.step("claim", "x", "r", 20).unwrap(), Outcome::Claimed);
    }

    #[test]
    fn replies_for_every_step_and_outcome() {
        let rules = ClaimRules::new(30_000);
        for &step in Step::ALL {
            for &outcome in Outcome::ALL {
                let got = rules
                    .reply(step, outcome)
                    .map(|r| (r.status, r.retry_after_s));
                let want = match (step, outcome) {
                    (_, Outcome::Claimed) => None,
                    (_, Outcome::InProgress) => Some((503, Some(30))),
                    (_, Outcome::Duplicate | Outcome::Completed) => Some((200, None)),
                    (Step::Complete, Outcome::Stale) => Some((200, None)),
                    (_, Outcome::Released | Outcome::Stale) => Some((500, None)),
                };
                assert_eq!(got, want, "{step:?} {outcome:?}");
                if let Some(r) = rules.reply(step, outcome) {
                    assert_eq!(r.acknowledges(), r.status == 200);
                }
            }
        }
        // Retry-After: the lease in whole seconds, rounded up, never 0.
        for (lease, secs) in [
            (0, 1),
            (1, 1),
            (1_000, 1),
            (1_001, 2),
            (u64::MAX, u64::MAX / 1_000 + 1),
        ] {
            let r = ClaimRules::new(lease)
                .reply(Step::Claim, Outcome::InProgress)
                .unwrap();
            assert_eq!(r.retry_after_s, Some(secs), "lease {lease}");
        }
        let down = ClaimError::Store(StoreError::new("down")).reply();
        assert_eq!((down.status, down.retry_after_s), (503, Some(1)));
        let bug = ClaimError::InvalidStep { field: "do" }.reply();
        assert_eq!((bug.status, bug.retry_after_s), (500, None));
    }

    #[test]
    fn entries_round_trip_and_refuse_foreign_text() {
        for e in [
            Entry::held("a:b c", 0),
            Entry::held("t", u64::MAX),
            Entry::done(0),
            Entry::done(42),
        ] {
            assert_eq!(Entry::decode(&e.encode()).unwrap(), e);
        }
        for bad in [
            "",
            "d:",
            "d:01",
            "d:-1",
            "d:1x",
            "h:1",
            "h:x:t",
            "q:1",
            "d:99999999999999999999",
        ] {
            assert!(Entry::decode(bad).is_err(), "{bad}");
        }
    }

    struct Flaky(MemoryClaims);
    impl ClaimStore for Flaky {
        fn load(&self, id: &str) -> Result<Option<Entry>, StoreError> {
            self.0.load(id)
        }
        fn compare_and_set(
            &self,
            _: &str,
            _: Option<&Entry>,
            _: Option<&Entry>,
            _: Option<u64>,
        ) -> Result<bool, StoreError> {
            Ok(false) // always somebody else first
        }
    }

    #[test]
    fn endless_conflicts_end_in_store_unavailable() {
        let c = Claims::with_store(ClaimRules::new(10), Flaky(MemoryClaims::new(1)));
        assert_eq!(
            c.step("claim", "e", "r", 0).unwrap_err().code(),
            "STORE_UNAVAILABLE"
        );
    }

    /// The plainest store there is: entry texts in a map, compared as text.
    #[derive(Default)]
    struct Texts(Mutex<HashMap<String, String>>);
    impl ClaimStore for Texts {
        fn load(&self, id: &str) -> Result<Option<Entry>, StoreError> {
            let m = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
            m.get(id).map(|t| Entry::decode(t)).transpose()
        }
        fn compare_and_set(
            &self,
            id: &str,
            expected: Option<&Entry>,
            new: Option<&Entry>,
            _: Option<u64>,
        ) -> Result<bool, StoreError> {
            let mut m = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
            if m.get(id).map(String::as_str) != expected.map(Entry::encode).as_deref() {
                return Ok(false);
            }
            match new {
                Some(e) => m.insert(id.to_owned(), e.encode()),
                None => m.remove(id),
            };
            Ok(true)
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The built-in store (digests, packed times, ring, eviction by window) answers every
        /// sequence of steps as the plain map does, as long as it forgets nothing by count.
        #[test]
        fn memory_store_answers_as_a_plain_map(
            lease in 0u64..50,
            window in proptest::option::of(0u64..80),
            steps in proptest::collection::vec((0usize..4, 0usize..3, 0u64..20, 0usize..3), 1..60),
        ) {
            let mut rules = ClaimRules::new(lease);
            if let Some(w) = window {
                rules = rules.with_window(w);
            }
            let mem = Claims::in_memory(rules, 1000);
            let map = Claims::with_store(rules, Texts::default());
            let mut at = 0;
            for (step, id, dt, token) in steps {
                at += dt;
                let step = ["claim", "complete", "release", "claim"][step];
                let id = ["evt_1", "evt_2", "evt_3"][id];
                let token = ["r1", "r2", "r3"][token];
                let a = mem.step(step, id, token, at).map_err(|e| e.code());
                let b = map.step(step, id, token, at).map_err(|e| e.code());
                proptest::prop_assert_eq!(a, b, "{} {} {} at {}", step, id, token, at);
            }
        }
    }
}
