//! [`Handling`]: one delivery from the receiver's [`Decision`] to the answer, as steps the host
//! drives (sans-IO): claim the event, persist it, complete the claim (or release it when the
//! persist failed), then answer. Core owns the order, the rule that a persisted event is answered
//! as done whatever `complete` says, and every reply; the host owns the IO (its claims store, its
//! database, its HTTP server) and the clock.
//!
//! ```
//! use xborder_core::claims::{ClaimRules, Claims, Step};
//! use xborder_core::delivery::Receiver;
//! use xborder_core::handling::{Act, Handling};
//! use xborder_core::signature::sign;
//!
//! let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o1","type":"order"}}"#;
//! let header = sign(b"whsec", body).unwrap();
//! let receiver = Receiver::new(&["whsec"], 100).unwrap();
//! let rules = ClaimRules::new(30_000);
//! let claims = Claims::in_memory(rules, 100);
//! let mut saved = Vec::new();
//!
//! let mut h = Handling::new(receiver.receive(body, Some(header.as_str())), rules, "req-1");
//! loop {
//!     match h.next() {
//!         Act::Claim { id, token } => {
//!             let (id, token) = (id.to_owned(), token.to_owned());
//!             h.claimed(claims.step(Step::Claim, &id, &token, 1_000)).unwrap();
//!         }
//!         Act::Persist(envelope) => {
//!             saved.push(envelope.id().to_owned()); // your INSERT, in your transaction
//!             h.persisted(true).unwrap();
//!         }
//!         Act::Complete { id, token } => {
//!             let (id, token) = (id.to_owned(), token.to_owned());
//!             h.completed(claims.step(Step::Complete, &id, &token, 1_010)).unwrap();
//!         }
//!         Act::Release { id, token } => {
//!             let (id, token) = (id.to_owned(), token.to_owned());
//!             h.released(claims.step(Step::Release, &id, &token, 1_010)).unwrap();
//!         }
//!         Act::Answer(answer) => {
//!             assert_eq!(answer.reply.status, 200);
//!             break;
//!         }
//!         _ => unreachable!("Act is non_exhaustive"),
//!     }
//! }
//! assert_eq!(saved, ["evt_1"]);
//! ```

use std::fmt;

use std::future::Future;

mod stepped;

pub use stepped::{Next, StoreSteps};

use crate::claims::{
    AsyncClaimStore, ClaimError, ClaimRules, ClaimStore, ClaimTask, Outcome, Reply, Step,
};
use crate::delivery::{Action, Decision};
use crate::envelope::Envelope;

/// The code of an answer after the host's persist failed: the claim was released, so the
/// provider's retry (or another instance) can take the event; answered 500. Listed in
/// [`codes::ERRORS`](crate::codes::ERRORS).
///
/// ```
/// assert_eq!(xborder_core::handling::PERSIST_FAILED, "PERSIST_FAILED");
/// ```
pub const PERSIST_FAILED: &str = "PERSIST_FAILED";

/// What the host must do next for a [`Handling`].
///
/// ```
/// use xborder_core::claims::ClaimRules;
/// use xborder_core::delivery::{Decision, ReceiveError};
/// use xborder_core::handling::{Act, Handling};
/// use xborder_core::signature::SignatureError;
/// let refused = Decision::Reject(ReceiveError::Signature(SignatureError::SignatureMismatch));
/// let h = Handling::new(refused, ClaimRules::default(), "r1");
/// assert!(matches!(h.next(), Act::Answer(a) if a.reply.status == 400));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Act<'h> {
    /// Run [`Step::Claim`] for the event `id` with `token` against the claims store (a
    /// [`ClaimTask`], [`Claims::step`](crate::claims::Claims::step)), then
    /// [`Handling::claimed`] with its result.
    Claim {
        /// The event id.
        id: &'h str,
        /// This request's token.
        token: &'h str,
    },
    /// Persist the event (the host's write, in its own transaction), then
    /// [`Handling::persisted`] with whether it succeeded.
    Persist(&'h Envelope),
    /// Run [`Step::Complete`], then [`Handling::completed`].
    Complete {
        /// The event id.
        id: &'h str,
        /// This request's token.
        token: &'h str,
    },
    /// Run [`Step::Release`] (the persist failed), then [`Handling::released`].
    Release {
        /// The event id.
        id: &'h str,
        /// This request's token.
        token: &'h str,
    },
    /// (A handling [`in_transaction`](Handling::in_transaction).) Commit the transaction that
    /// holds the event's write and the claim's completion, then [`Handling::committed`] with
    /// whether the commit succeeded.
    Commit {
        /// The event id.
        id: &'h str,
    },
    /// Answer the provider with this; the handling is over.
    Answer(&'h Answer),
}

impl Act<'_> {
    /// The act's name: `claim`, `persist`, `complete`, `commit`, `release` or `answer`.
    ///
    /// ```
    /// use xborder_core::{claims::ClaimRules, delivery::{Decision, ReceiveError}};
    /// use xborder_core::{handling::Handling, signature::SignatureError};
    /// let d = Decision::Reject(ReceiveError::Signature(SignatureError::EmptySecret));
    /// assert_eq!(Handling::new(d, ClaimRules::default(), "r").next().as_str(), "answer");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            Act::Claim { .. } => "claim",
            Act::Persist(_) => "persist",
            Act::Complete { .. } => "complete",
            Act::Release { .. } => "release",
            Act::Commit { .. } => "commit",
            Act::Answer(_) => "answer",
        }
    }
}

/// The end of a [`Handling`]: the reply to answer the provider with, and why.
///
/// ```
/// use xborder_core::{claims::{ClaimRules, Outcome}, delivery::{Decision, ReceiveError}};
/// use xborder_core::{handling::Handling, signature::SignatureError};
/// let d = Decision::Reject(ReceiveError::Signature(SignatureError::MissingSignature));
/// let h = Handling::new(d, ClaimRules::default(), "r");
/// let a = h.answer().unwrap();
/// assert_eq!((a.reply.status, a.code, a.outcome, a.persisted), (400, Some("MISSING_SIGNATURE"), None, false));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Answer {
    /// The status and `Retry-After` to answer with.
    pub reply: Reply,
    /// The outcome of the last claim step (`None`: no claim was made: the decision was not
    /// `process`).
    pub outcome: Option<Outcome>,
    /// Why the answer is not 2xx, or what went wrong on the way: the decision's error code, a
    /// claim step's error code, or [`PERSIST_FAILED`]. A `complete` that failed after the event
    /// was persisted leaves its code here with a 200 (the persisted record makes a retry
    /// harmless).
    pub code: Option<&'static str>,
    /// Whether the host persisted the event.
    pub persisted: bool,
}

/// A [`Handling`] method called when the handling needs another: the host's bug (`INVALID_STEP`,
/// `field` the act that was expected). The handling is unchanged.
///
/// ```
/// use xborder_core::claims::ClaimRules;
/// use xborder_core::delivery::{Decision, ReceiveError};
/// use xborder_core::handling::Handling;
/// use xborder_core::signature::SignatureError;
/// let d = Decision::Reject(ReceiveError::Signature(SignatureError::EmptySecret));
/// let mut h = Handling::new(d, ClaimRules::default(), "r");
/// let e = h.persisted(true).unwrap_err();
/// assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("answer")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfOrder {
    /// The act the handling was waiting for (`claim`, `persist`, `complete`, `release`, or
    /// `answer`: it is over).
    pub expected: &'static str,
    /// The act the call reported.
    pub got: &'static str,
}

impl OutOfOrder {
    /// Stable code: `INVALID_STEP`.
    ///
    /// ```
    /// let e = xborder_core::handling::OutOfOrder { expected: "claim", got: "persist" };
    /// assert_eq!(e.code(), "INVALID_STEP");
    /// ```
    pub fn code(&self) -> &'static str {
        "INVALID_STEP"
    }

    /// The act that was expected.
    ///
    /// ```
    /// let e = xborder_core::handling::OutOfOrder { expected: "claim", got: "persist" };
    /// assert_eq!(e.field(), Some("claim"));
    /// ```
    pub fn field(&self) -> Option<&'static str> {
        Some(self.expected)
    }
}

impl fmt::Display for OutOfOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: the handling waits for `{}`, and `{}` was reported",
            self.code(),
            self.expected,
            self.got
        )
    }
}

impl std::error::Error for OutOfOrder {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Claim,
    Persist,
    Complete,
    Commit,
    Release,
    Answered,
}

/// One delivery, from the receiver's decision to the answer (see the module's example). A
/// decision that is not `process` is answered at once (its own reply); a live event is claimed,
/// persisted by the host, completed, or released when the persist failed:
/// - a claim that is not `claimed` (a duplicate, another request holding it) or fails
///   (`STORE_UNAVAILABLE`) is answered with its reply (200; 503 with `Retry-After`);
/// - once persisted, the answer is 200 whatever `complete` gives (`stale` or an error): the
///   record makes a retry harmless, and a 5xx would only make the provider deliver it again;
/// - a failed persist releases the claim and answers 500 ([`PERSIST_FAILED`]), so the retry can
///   take the event.
#[derive(Debug, Clone)]
pub struct Handling {
    decision: Decision,
    rules: ClaimRules,
    token: String,
    state: State,
    answer: Option<Answer>,
    outcome: Option<Outcome>,
    persisted: bool,
    last: Option<(Step, Result<Outcome, &'static str>)>,
    transaction: bool,
    /// In a transaction: the complete step's reply and code, answered once committed.
    completed: Option<(Reply, Option<&'static str>)>,
}

impl Handling {
    /// The handling of `decision` (what [`Receiver::receive`](crate::delivery::Receiver::receive)
    /// decided), with the claims' `rules` (for the replies: a claim held by another request is
    /// answered 503 with its lease as `Retry-After`) and this request's `token` (unique per
    /// request: a UUID).
    ///
    /// ```
    /// use xborder_core::{claims::ClaimRules, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::{Act, Handling};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t");
    /// assert_eq!(h.next(), Act::Claim { id: "evt_1", token: "t" });
    /// ```
    pub fn new(decision: Decision, rules: ClaimRules, token: impl Into<String>) -> Handling {
        let process = decision.action() == Action::Process && decision.envelope().is_some();
        let answer = (!process).then(|| Answer {
            reply: decision.reply(),
            outcome: None,
            code: decision.error().map(|e| e.code()),
            persisted: false,
        });
        Handling {
            decision,
            rules,
            token: token.into(),
            state: if process {
                State::Claim
            } else {
                State::Answered
            },
            answer,
            outcome: None,
            persisted: false,
            last: None,
            transaction: false,
            completed: None,
        }
    }

    /// This handling with the event's write and the claim's completion in one transaction of the
    /// host's (a SQL store that completes on the transaction's connection): claim, persist (the
    /// write, not yet committed), complete (its store calls on the transaction), then
    /// [`Act::Commit`]; a failed write or commit releases the claim (outside the transaction)
    /// and answers 500 [`PERSIST_FAILED`]. A complete that is not `completed` inside the
    /// transaction (`stale`: another request took the event over after the lease; or an error)
    /// answers without a commit (503): the host rolls back a transaction still open when the
    /// handling answers, and before it runs a release. So the event's row and its completion
    /// commit together, once, or not at all.
    ///
    /// ```
    /// use xborder_core::{claims::{ClaimRules, Outcome}, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::{Act, Handling};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t")
    ///     .in_transaction();
    /// h.claimed(Ok(Outcome::Claimed)).unwrap();
    /// h.persisted(true).unwrap(); // INSERT, in the transaction
    /// assert_eq!(h.completed(Ok(Outcome::Completed)).unwrap(), Act::Commit { id: "evt_1" });
    /// assert_eq!(h.committed(false).unwrap().as_str(), "release"); // the COMMIT failed
    /// ```
    pub fn in_transaction(mut self) -> Handling {
        self.transaction = true;
        self
    }

    /// What the host must do next.
    ///
    /// ```
    /// use xborder_core::{claims::ClaimRules, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::{Act, Handling};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t");
    /// assert_eq!(h.next().as_str(), "claim");
    /// ```
    pub fn next(&self) -> Act<'_> {
        let (id, token) = (self.id(), self.token.as_str());
        match (self.state, &self.answer, self.decision.envelope()) {
            (State::Answered, Some(answer), _) => Act::Answer(answer),
            (State::Persist, _, Some(envelope)) => Act::Persist(envelope),
            (State::Complete, _, _) => Act::Complete { id, token },
            (State::Release, _, _) => Act::Release { id, token },
            (State::Commit, _, _) => Act::Commit { id },
            // The claim, and (never reached: `new` and every step keep the state and the
            // answer together) a state without what it needs.
            _ => Act::Claim { id, token },
        }
    }

    /// The answer, once the handling is over.
    ///
    /// ```
    /// use xborder_core::{claims::ClaimRules, delivery::{Decision, ReceiveError}};
    /// use xborder_core::{handling::Handling, signature::SignatureError};
    /// let d = Decision::Reject(ReceiveError::Signature(SignatureError::EmptySecret));
    /// assert_eq!(Handling::new(d, ClaimRules::default(), "r").answer().unwrap().reply.status, 500);
    /// ```
    pub fn answer(&self) -> Option<&Answer> {
        self.answer.as_ref()
    }

    /// The last claim step fed to the handling: its step and its outcome, or its error's code
    /// (what a host logs, and what the vectors record per step).
    ///
    /// ```
    /// use xborder_core::{claims::{ClaimRules, Outcome, Step}, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::Handling;
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t");
    /// assert_eq!(h.last_step(), None);
    /// h.claimed(Ok(Outcome::Claimed)).unwrap();
    /// assert_eq!(h.last_step(), Some((Step::Claim, Ok(Outcome::Claimed))));
    /// ```
    pub fn last_step(&self) -> Option<(Step, Result<Outcome, &'static str>)> {
        self.last
    }

    /// The receiver's decision this handling started from.
    ///
    /// ```
    /// use xborder_core::{claims::ClaimRules, delivery::{Action, Decision, ReceiveError}};
    /// use xborder_core::{handling::Handling, signature::SignatureError};
    /// let d = Decision::Reject(ReceiveError::Signature(SignatureError::EmptySecret));
    /// assert_eq!(Handling::new(d, ClaimRules::default(), "r").decision().action(), Action::Reject);
    /// ```
    pub fn decision(&self) -> &Decision {
        &self.decision
    }

    fn id(&self) -> &str {
        self.decision.envelope().map_or("", |e| e.id())
    }

    fn expect(&self, state: State, got: &'static str) -> Result<(), OutOfOrder> {
        if self.state == state {
            Ok(())
        } else {
            Err(OutOfOrder {
                expected: self.next().as_str(),
                got,
            })
        }
    }

    fn finish(&mut self, reply: Reply, code: Option<&'static str>) -> Act<'_> {
        self.state = State::Answered;
        self.answer = Some(Answer {
            reply,
            outcome: self.outcome,
            code,
            persisted: self.persisted,
        });
        self.next()
    }

    /// The claim step's result: `claimed` goes on to the persist; any other outcome, or an error,
    /// is answered with its reply.
    ///
    /// ```
    /// use xborder_core::{claims::{ClaimRules, Outcome}, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::{Act, Handling};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::new(2_000), "t");
    /// let Act::Answer(a) = h.claimed(Ok(Outcome::InProgress)).unwrap() else { panic!() };
    /// assert_eq!((a.reply.status, a.reply.retry_after_s), (503, Some(2)));
    /// ```
    pub fn claimed(&mut self, result: Result<Outcome, ClaimError>) -> Result<Act<'_>, OutOfOrder> {
        self.expect(State::Claim, "claim")?;
        self.last = Some((Step::Claim, result.as_ref().copied().map_err(|e| e.code())));
        Ok(match result {
            Err(e) => self.finish(e.reply(), Some(e.code())),
            Ok(outcome) => {
                self.outcome = Some(outcome);
                match self.rules.reply(Step::Claim, outcome) {
                    None => {
                        self.state = State::Persist;
                        self.next()
                    }
                    Some(reply) => self.finish(reply, None),
                }
            }
        })
    }

    /// Whether the host persisted the event (`false`: its write failed, or it would not): on to
    /// `complete`, or to `release`.
    ///
    /// ```
    /// use xborder_core::{claims::{ClaimRules, Outcome}, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::{Act, Handling};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t");
    /// h.claimed(Ok(Outcome::Claimed)).unwrap();
    /// assert_eq!(h.persisted(false).unwrap().as_str(), "release");
    /// ```
    pub fn persisted(&mut self, ok: bool) -> Result<Act<'_>, OutOfOrder> {
        self.expect(State::Persist, "persist")?;
        self.persisted = ok;
        self.state = if ok { State::Complete } else { State::Release };
        Ok(self.next())
    }

    /// The complete step's result: answered 200 whatever it is (the event is persisted), its
    /// outcome (`completed`, `stale`) or error code kept in the answer.
    ///
    /// ```
    /// use xborder_core::{claims::{ClaimError, ClaimRules, Outcome}, delivery::{Receiver, StoreError}};
    /// use xborder_core::{handling::{Act, Handling}, signature::sign};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t");
    /// h.claimed(Ok(Outcome::Claimed)).unwrap();
    /// h.persisted(true).unwrap();
    /// let down = ClaimError::Store(StoreError::new("redis: timeout"));
    /// let Act::Answer(a) = h.completed(Err(down)).unwrap() else { panic!() };
    /// assert_eq!((a.reply.status, a.code, a.persisted), (200, Some("STORE_UNAVAILABLE"), true));
    /// ```
    pub fn completed(
        &mut self,
        result: Result<Outcome, ClaimError>,
    ) -> Result<Act<'_>, OutOfOrder> {
        self.expect(State::Complete, "complete")?;
        self.last = Some((
            Step::Complete,
            result.as_ref().copied().map_err(|e| e.code()),
        ));
        if self.transaction {
            return Ok(self.completed_in_transaction(result));
        }
        let (outcome, code) = match result {
            Ok(Outcome::Stale) => (Outcome::Stale, None),
            Ok(_) => (Outcome::Completed, None),
            Err(e) => (Outcome::Completed, Some(e.code())),
        };
        self.outcome = Some(outcome);
        let reply = self
            .rules
            .reply(Step::Complete, outcome)
            .unwrap_or(Reply::OK);
        Ok(self.finish(reply, code))
    }

    /// The complete step's result inside the host's transaction: `completed` goes on to the
    /// commit; otherwise the write must not commit (the host rolls back the transaction it
    /// still holds when the handling answers): `stale` (another request took the event over
    /// after the lease and will persist it) is answered as a claim held by another, 503 with the
    /// lease as `Retry-After`; an error with its reply (`STORE_UNAVAILABLE`: 503, the claim
    /// left to its lease). Nothing is persisted either way, so each event's write commits once.
    fn completed_in_transaction(&mut self, result: Result<Outcome, ClaimError>) -> Act<'_> {
        self.persisted = false;
        match result {
            Ok(Outcome::Stale) => {
                self.outcome = Some(Outcome::Stale);
                let reply = self
                    .rules
                    .reply(Step::Claim, Outcome::InProgress)
                    .unwrap_or(Reply {
                        status: 503,
                        retry_after_s: None,
                    });
                self.finish(reply, None)
            }
            Ok(_) => {
                self.outcome = Some(Outcome::Completed);
                self.persisted = true;
                self.completed = Some((Reply::OK, None));
                self.state = State::Commit;
                self.next()
            }
            Err(e) => self.finish(e.reply(), Some(e.code())),
        }
    }

    /// (A handling [`in_transaction`](Handling::in_transaction).) Whether the host's commit of
    /// the event's write and the claim's completion succeeded: the answer the complete step
    /// gave (200), or, when it failed (nothing was written, the claim is still held), on to
    /// `release` and 500 [`PERSIST_FAILED`].
    ///
    /// ```
    /// use xborder_core::{claims::{ClaimRules, Outcome}, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::{Act, Handling};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t")
    ///     .in_transaction();
    /// h.claimed(Ok(Outcome::Claimed)).unwrap();
    /// h.persisted(true).unwrap();
    /// h.completed(Ok(Outcome::Completed)).unwrap();
    /// let Act::Answer(a) = h.committed(true).unwrap() else { panic!() };
    /// assert_eq!((a.reply.status, a.outcome, a.persisted), (200, Some(Outcome::Completed), true));
    /// ```
    pub fn committed(&mut self, ok: bool) -> Result<Act<'_>, OutOfOrder> {
        self.expect(State::Commit, "commit")?;
        match (ok, self.completed.take()) {
            (true, Some((reply, code))) => Ok(self.finish(reply, code)),
            _ => {
                self.persisted = false;
                self.state = State::Release;
                Ok(self.next())
            }
        }
    }

    /// The release step's result (after a failed persist): answered 500 with
    /// [`PERSIST_FAILED`], so the provider retries.
    ///
    /// ```
    /// use xborder_core::{claims::{ClaimRules, Outcome}, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::{Act, Handling};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t");
    /// h.claimed(Ok(Outcome::Claimed)).unwrap();
    /// h.persisted(false).unwrap();
    /// let Act::Answer(a) = h.released(Ok(Outcome::Released)).unwrap() else { panic!() };
    /// assert_eq!((a.reply.status, a.code), (500, Some("PERSIST_FAILED")));
    /// ```
    pub fn released(&mut self, result: Result<Outcome, ClaimError>) -> Result<Act<'_>, OutOfOrder> {
        self.expect(State::Release, "release")?;
        self.last = Some((
            Step::Release,
            result.as_ref().copied().map_err(|e| e.code()),
        ));
        let outcome = match result {
            Ok(o) => o,
            Err(_) => Outcome::Released,
        };
        self.outcome = Some(outcome);
        let reply = self
            .rules
            .reply(Step::Release, outcome)
            .filter(|r| !r.acknowledges())
            .unwrap_or(Reply {
                status: 500,
                retry_after_s: None,
            });
        Ok(self.finish(reply, Some(PERSIST_FAILED)))
    }

    /// Runs the handling to its answer against a synchronous claims store, `clock` giving the
    /// time of each step in milliseconds and `persist` the host's write: the answer, and the
    /// persist's error when it failed.
    ///
    /// ```
    /// use xborder_core::{claims::{ClaimRules, MemoryClaims}, delivery::Receiver, signature::sign};
    /// use xborder_core::handling::Handling;
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let store = MemoryClaims::new(100);
    /// let rules = ClaimRules::default();
    /// let h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), rules, "t1");
    /// let (answer, err) = h.run(&store, || 0, |_| Err::<(), _>("db down"));
    /// assert_eq!((answer.reply.status, answer.code, err), (500, Some("PERSIST_FAILED"), Some("db down")));
    /// let h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), rules, "t2");
    /// let (answer, err) = h.run(&store, || 1, |_| Ok::<(), &str>(()));
    /// assert_eq!((answer.reply.status, answer.persisted, err), (200, true, None));
    /// ```
    pub fn run<S, E>(
        mut self,
        store: &S,
        mut clock: impl FnMut() -> u64,
        persist: impl FnOnce(&Envelope) -> Result<(), E>,
    ) -> (Answer, Option<E>)
    where
        S: ClaimStore + ?Sized,
    {
        let mut persist = Some(persist);
        let mut failure = None;
        // Each act moves the state forward (claim → persist → complete (→ commit) or release →
        // answer), and none repeats: at most five rounds. `persist` commits its own write, so a
        // handling `in_transaction` has nothing left to commit here.
        for _ in 0..6 {
            if let Some(answer) = self.answer {
                return (answer, failure);
            }
            if self.state == State::Persist {
                let result = match (persist.take(), self.decision.envelope()) {
                    (Some(f), Some(envelope)) => f(envelope),
                    _ => Ok(()), // never: a persist is asked once, of the decision's envelope
                };
                self.after_persist(result, &mut failure);
            } else if self.state == State::Commit {
                // `persist` committed its own write: nothing is left to commit.
                let _ = self.committed(true);
            } else if let Some(step) = self.pending_step() {
                let result = self.task(step, clock()).and_then(|task| task.run(store));
                self.feed(step, result);
            }
        }
        (self.unfinished(), failure)
    }

    /// [`Handling::run`] against a claims store reached asynchronously, `persist` the host's
    /// async write (given the event's envelope): a future the host awaits on its own runtime
    /// (core runs no executor).
    ///
    /// ```
    /// # use std::future::Future;
    /// use xborder_core::claims::{AsyncClaimStore, ClaimRules, ClaimStore, Entry, MemoryClaims, StoreTime};
    /// # use xborder_core::delivery::StoreError;
    /// use xborder_core::{delivery::Receiver, handling::Handling, signature::sign};
    /// struct Remote(MemoryClaims); // stands for an async client
    /// impl AsyncClaimStore for Remote {
    ///     fn load(&self, id: &str, t: StoreTime) -> impl Future<Output = Result<Option<Entry>, StoreError>> + Send {
    ///         let a = self.0.load(id, t); async move { a }
    ///     }
    ///     fn compare_and_set(&self, id: &str, e: Option<&Entry>, n: Option<&Entry>, t: StoreTime)
    ///         -> impl Future<Output = Result<bool, StoreError>> + Send {
    ///         let a = self.0.compare_and_set(id, e, n, t); async move { a }
    ///     }
    /// }
    /// # fn block_on<F: Future>(f: F) -> F::Output {
    /// #     use std::{pin::pin, sync::Arc, task::{Context, Poll, Wake, Waker}};
    /// #     struct W; impl Wake for W { fn wake(self: Arc<Self>) {} }
    /// #     let waker = Waker::from(Arc::new(W)); let mut cx = Context::from_waker(&waker);
    /// #     let mut f = pin!(f); loop { if let Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let store = Remote(MemoryClaims::new(100));
    /// let h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t1");
    /// let handled = h.run_async(&store, || 0, |envelope| async move {
    ///     assert_eq!(envelope.id(), "evt_1"); // your INSERT, awaited
    ///     Ok::<(), String>(())
    /// });
    /// let (answer, failure) = block_on(handled); // `.await` in your handler
    /// assert_eq!((answer.reply.status, answer.persisted, failure), (200, true, None));
    /// ```
    pub async fn run_async<S, E, F, Fut>(
        mut self,
        store: &S,
        mut clock: impl FnMut() -> u64,
        persist: F,
    ) -> (Answer, Option<E>)
    where
        S: AsyncClaimStore + ?Sized,
        F: FnOnce(Envelope) -> Fut,
        Fut: Future<Output = Result<(), E>>,
    {
        let mut persist = Some(persist);
        let mut failure = None;
        for _ in 0..6 {
            if let Some(answer) = self.answer {
                return (answer, failure);
            }
            if self.state == State::Persist {
                let result = match (persist.take(), self.decision.envelope().cloned()) {
                    (Some(f), Some(envelope)) => f(envelope).await,
                    _ => Ok(()),
                };
                self.after_persist(result, &mut failure);
            } else if self.state == State::Commit {
                let _ = self.committed(true);
            } else if let Some(step) = self.pending_step() {
                let result = match self.task(step, clock()) {
                    Ok(task) => task.run_async(store).await,
                    Err(e) => Err(e),
                };
                self.feed(step, result);
            }
        }
        (self.unfinished(), failure)
    }

    /// The claim step the handling waits for, when it waits for one.
    fn pending_step(&self) -> Option<Step> {
        match self.state {
            State::Claim => Some(Step::Claim),
            State::Complete => Some(Step::Complete),
            State::Release => Some(Step::Release),
            State::Persist | State::Commit | State::Answered => None,
        }
    }

    /// The task of `step` for this delivery's event and token at `at`.
    fn task(&self, step: Step, at: u64) -> Result<ClaimTask, ClaimError> {
        ClaimTask::new(self.rules, step, self.id(), &self.token, at)
    }

    /// A claim step's result, fed to the method of its step (in order by construction).
    fn feed(&mut self, step: Step, result: Result<Outcome, ClaimError>) {
        let _ = match step {
            Step::Claim => self.claimed(result),
            Step::Complete => self.completed(result),
            Step::Release => self.released(result),
        };
    }

    /// The persist's result: on to complete, or (its error kept for the host) to release.
    fn after_persist<E>(&mut self, result: Result<(), E>, failure: &mut Option<E>) {
        let ok = match result {
            Ok(()) => true,
            Err(e) => {
                *failure = Some(e);
                false
            }
        };
        let _ = self.persisted(ok);
    }

    /// The answer of a drive that ended without one (never: every act moves the state on).
    fn unfinished(&self) -> Answer {
        self.answer.unwrap_or(Answer {
            reply: Reply {
                status: 500,
                retry_after_s: None,
            },
            outcome: self.outcome,
            code: Some("INVALID_STEP"),
            persisted: self.persisted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::{Claims, MemoryClaims};
    use crate::delivery::{Receiver, StoreError};
    use crate::signature::sign;

    const BODY: &[u8] =
        br#"{"id":"evt_1","event":"order:created","entity":{"id":"o1","type":"order"}}"#;

    fn process(token: &str) -> Handling {
        let rx = Receiver::new(&["k"], 10).unwrap();
        Handling::new(
            rx.receive(BODY, Some(sign(b"k", BODY).unwrap().as_str())),
            ClaimRules::new(30_000),
            token,
        )
    }

    #[test]
    fn in_a_transaction_a_failed_commit_releases_and_answers_500() {
        let mut h = process("t").in_transaction();
        h.claimed(Ok(Outcome::Claimed)).unwrap();
        assert_eq!(h.next().as_str(), "persist");
        h.persisted(true).unwrap();
        assert_eq!(h.next().as_str(), "complete");
        assert_eq!(
            h.completed(Ok(Outcome::Completed)).unwrap().as_str(),
            "commit"
        );
        assert!(h.persisted(true).is_err());
        assert_eq!(h.committed(false).unwrap().as_str(), "release");
        let Act::Answer(a) = h.released(Ok(Outcome::Released)).unwrap() else {
            panic!("no answer")
        };
        assert_eq!(
            (a.reply.status, a.code, a.persisted),
            (500, Some(PERSIST_FAILED), false)
        );
        // Stale inside the transaction (another request took the event over after the lease):
        // no commit (the host rolls back), answered as a claim held by another.
        let mut h = process("t").in_transaction();
        h.claimed(Ok(Outcome::Claimed)).unwrap();
        h.persisted(true).unwrap();
        let Act::Answer(a) = h.completed(Ok(Outcome::Stale)).unwrap() else {
            panic!("no answer")
        };
        assert_eq!(
            (
                a.reply.status,
                a.reply.retry_after_s,
                a.outcome,
                a.persisted
            ),
            (503, Some(30), Some(Outcome::Stale), false)
        );
        // A failed complete inside the transaction: its reply, nothing persisted.
        let mut h = process("t").in_transaction();
        h.claimed(Ok(Outcome::Claimed)).unwrap();
        h.persisted(true).unwrap();
        let down = ClaimError::Store(StoreError::new("pg: timeout"));
        let Act::Answer(a) = h.completed(Err(down)).unwrap() else {
            panic!("no answer")
        };
        assert_eq!(
            (a.reply.status, a.code, a.persisted),
            (503, Some("STORE_UNAVAILABLE"), false)
        );
        // Without a transaction there is no commit to report.
        let mut h = process("t");
        h.claimed(Ok(Outcome::Claimed)).unwrap();
        h.persisted(true).unwrap();
        h.completed(Ok(Outcome::Completed)).unwrap();
        assert_eq!(h.committed(true).unwrap_err().expected, "answer");
    }

    #[test]
    fn every_order_of_calls_but_the_right_one_is_refused_and_changes_nothing() {
        let mut h = process("t");
        assert_eq!(h.persisted(true).unwrap_err().expected, "claim");
        assert_eq!(
            h.completed(Ok(Outcome::Completed)).unwrap_err().got,
            "complete"
        );
        assert!(h.released(Ok(Outcome::Released)).is_err());
        assert_eq!(h.next().as_str(), "claim");
        h.claimed(Ok(Outcome::Claimed)).unwrap();
        assert!(h.claimed(Ok(Outcome::Claimed)).is_err());
        assert_eq!(h.next().as_str(), "persist");
        h.persisted(true).unwrap();
        assert!(h.released(Ok(Outcome::Released)).is_err());
        h.completed(Ok(Outcome::Completed)).unwrap();
        let e = h.claimed(Ok(Outcome::Claimed)).unwrap_err();
        assert_eq!(
            (e.expected, e.to_string().contains("answer")),
            ("answer", true)
        );
        let a = h.answer().unwrap();
        assert_eq!(
            (a.reply, a.outcome, a.code, a.persisted),
            (Reply::OK, Some(Outcome::Completed), None, true)
        );
    }

    #[test]
    fn claim_outcomes_and_errors_are_answered_with_their_replies() {
        for (outcome, status, retry) in [
            (Outcome::Duplicate, 200, None),
            (Outcome::InProgress, 503, Some(30)),
            (Outcome::Completed, 200, None),
            (Outcome::Stale, 500, None),
            (Outcome::Released, 500, None),
        ] {
            let mut h = process("t");
            let Act::Answer(a) = h.claimed(Ok(outcome)).unwrap() else {
                panic!("{outcome:?} is answered")
            };
            assert_eq!(
                (
                    a.reply.status,
                    a.reply.retry_after_s,
                    a.outcome,
                    a.persisted
                ),
                (status, retry, Some(outcome), false),
                "{outcome:?}"
            );
        }
        let mut h = process("t");
        let Act::Answer(a) = h
            .claimed(Err(ClaimError::Store(StoreError::new("down"))))
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (a.reply.status, a.reply.retry_after_s, a.code),
            (503, Some(1), Some("STORE_UNAVAILABLE"))
        );
    }

    #[test]
    fn once_persisted_the_answer_is_200_whatever_complete_says() {
        for result in [
            Ok(Outcome::Completed),
            Ok(Outcome::Stale),
            Err(ClaimError::Store(StoreError::new("down"))),
        ] {
            let mut h = process("t");
            h.claimed(Ok(Outcome::Claimed)).unwrap();
            h.persisted(true).unwrap();
            let Act::Answer(a) = h.completed(result.clone()).unwrap() else {
                panic!()
            };
            assert_eq!((a.reply.status, a.persisted), (200, true), "{result:?}");
        }
    }

    #[test]
    fn a_failed_persist_releases_and_answers_500_even_when_the_release_fails() {
        for result in [
            Ok(Outcome::Released),
            Ok(Outcome::Stale),
            Err(ClaimError::Store(StoreError::new("down"))),
        ] {
            let mut h = process("t");
            h.claimed(Ok(Outcome::Claimed)).unwrap();
            assert_eq!(h.persisted(false).unwrap().as_str(), "release");
            let Act::Answer(a) = h.released(result.clone()).unwrap() else {
                panic!()
            };
            assert_eq!(
                (a.reply.status, a.code, a.persisted),
                (500, Some(PERSIST_FAILED), false),
                "{result:?}"
            );
        }
    }

    #[test]
    fn decisions_that_are_not_process_are_answered_at_once() {
        let rx = Receiver::new(&["k"], 10).unwrap();
        let signed = sign(b"k", BODY).unwrap();
        rx.commit("evt_1").unwrap();
        let duplicate = Handling::new(
            rx.receive(BODY, Some(signed.as_str())),
            ClaimRules::default(),
            "t",
        );
        assert_eq!(duplicate.answer().unwrap().reply, Reply::OK);
        let unsigned = Handling::new(rx.receive(BODY, None), ClaimRules::default(), "t");
        assert_eq!(unsigned.answer().unwrap().code, Some("MISSING_SIGNATURE"));
    }

    #[test]
    fn run_drives_every_path_against_a_store() {
        let store = MemoryClaims::new(100);
        let claims = Claims::with_store(ClaimRules::new(30_000), &store);
        // Another request holds the event: 503, nothing persisted.
        claims.step(Step::Claim, "evt_1", "other", 0).unwrap();
        let mut writes = 0;
        let (a, e) = process("t1").run(
            &store,
            || 10,
            |_| {
                writes += 1;
                Ok::<(), ()>(())
            },
        );
        assert_eq!(
            (a.reply.status, a.outcome, writes, e),
            (503, Some(Outcome::InProgress), 0, None)
        );
        claims.step(Step::Release, "evt_1", "other", 20).unwrap();
        // A failed persist releases; the next delivery persists and completes; then a duplicate.
        let (a, e) = process("t2").run(&store, || 30, |_| Err("db"));
        assert_eq!(
            (a.reply.status, a.code, e),
            (500, Some(PERSIST_FAILED), Some("db"))
        );
        let (a, _) = process("t3").run(
            &store,
            || 40,
            |env| {
                assert_eq!(env.id(), "evt_1");
                writes += 1;
                Ok::<(), ()>(())
            },
        );
        assert_eq!(
            (a.reply.status, a.outcome, writes),
            (200, Some(Outcome::Completed), 1)
        );
        let (a, _) = process("t4").run(
            &store,
            || 50,
            |_| {
                writes += 1;
                Ok::<(), ()>(())
            },
        );
        assert_eq!(
            (a.reply.status, a.outcome, writes),
            (200, Some(Outcome::Duplicate), 1)
        );
        // An empty token is the host's bug: INVALID_STEP from the claim task, 500.
        let (a, _) = process("").run(&store, || 60, |_| Ok::<(), ()>(()));
        assert_eq!((a.reply.status, a.code), (500, Some("INVALID_STEP")));
    }

    /// An async client over the built-in store, for `run_async`.
    struct Remote<'a>(&'a MemoryClaims);

    impl AsyncClaimStore for Remote<'_> {
        fn load(
            &self,
            id: &str,
            time: crate::claims::StoreTime,
        ) -> impl Future<Output = Result<Option<crate::claims::Entry>, StoreError>> + Send {
            let answer = self.0.load(id, time);
            async move { answer }
        }
        fn compare_and_set(
            &self,
            id: &str,
            expected: Option<&crate::claims::Entry>,
            new: Option<&crate::claims::Entry>,
            time: crate::claims::StoreTime,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send {
            let answer = self.0.compare_and_set(id, expected, new, time);
            async move { answer }
        }
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        use std::sync::Arc;
        use std::task::{Context, Poll, Wake, Waker};
        struct Noop;
        impl Wake for Noop {
            fn wake(self: Arc<Self>) {}
        }
        let waker = Waker::from(Arc::new(Noop));
        let mut cx = Context::from_waker(&waker);
        let mut f = std::pin::pin!(f);
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    #[test]
    fn run_async_answers_as_run_does() {
        type Persist = fn(usize) -> Result<(), &'static str>;
        let script: [(&str, u64, Persist); 4] = [
            ("t1", 30, |_| Err("db")),
            ("t2", 40, |_| Ok(())),
            ("t3", 50, |_| Ok(())),
            ("", 60, |_| Ok(())),
        ];
        let (sync_store, async_store) = (MemoryClaims::new(100), MemoryClaims::new(100));
        for (token, at, persist) in script {
            let (a, e) = process(token).run(&sync_store, || at, |_| persist(0));
            let (b, f) = block_on(process(token).run_async(
                &Remote(&async_store),
                || at,
                |envelope| async move {
                    assert_eq!(envelope.id(), "evt_1");
                    persist(1)
                },
            ));
            assert_eq!((a, e), (b, f), "token {token:?}");
        }
        // The future a tokio handler awaits is Send.
        fn send<T: Send>(_: &T) {}
        let store = MemoryClaims::new(1);
        let remote = Remote(&store);
        let fut = process("t").run_async(&remote, || 0, |_| async { Ok::<(), ()>(()) });
        send(&fut);
    }
}
