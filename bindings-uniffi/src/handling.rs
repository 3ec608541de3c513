//! One delivery from the receiver's decision to the answer (core's `handling::Handling`): the
//! host persists, core decides the order and every reply.

use std::sync::{Arc, Mutex};

use xborder_core::handling::{self, Act, Next, StoreSteps};
use xborder_core::{claims, delivery};

use crate::claims::{
    claim_rules, ClaimNeed, ClaimOutcome, ClaimReply, Claims, NeedAnswer, StoreTime,
};
use crate::delivery::{Decision, Receiver};
use crate::envelope::Envelope;
use crate::errors::XborderError;

/// The end of a handling: what to answer the provider, and why.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct HandlingAnswer {
    /// The status and `Retry-After` to answer with.
    pub reply: ClaimReply,
    /// The last claim step's outcome (absent: no claim was made, the decision was not process).
    pub outcome: Option<ClaimOutcome>,
    /// Why it is not 2xx, or what went wrong on the way: the decision's or a claim step's error
    /// code, or `PERSIST_FAILED`.
    pub code: Option<String>,
    /// Whether the host persisted the event.
    pub persisted: bool,
}

impl From<&handling::Answer> for HandlingAnswer {
    fn from(a: &handling::Answer) -> Self {
        HandlingAnswer {
            reply: a.reply.into(),
            outcome: a.outcome.map(ClaimOutcome::from),
            code: a.code.map(str::to_owned),
            persisted: a.persisted,
        }
    }
}

/// The last claim step a [`DeliveryHandling`] ran: its step (`claim`, `complete`, `release`)
/// and its outcome, or its error's code (what a host logs per step).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct HandlingStep {
    /// `claim`, `complete` or `release`.
    pub step: String,
    /// The step's outcome (absent when it failed).
    pub outcome: Option<ClaimOutcome>,
    /// The step's error code (absent when it gave an outcome).
    pub code: Option<String>,
}

/// What the host must do next for a [`DeliveryHandling`].
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum HandlingAct {
    /// Run the claim step: `step(at_ms)`.
    Claim {
        /// The event id.
        id: String,
    },
    /// Persist the event (the host's write), then `persisted(ok)`.
    Persist {
        /// The event.
        envelope: Envelope,
    },
    /// Run the complete step: `step(at_ms)`.
    Complete {
        /// The event id.
        id: String,
    },
    /// Run the release step (the persist failed): `step(at_ms)`.
    Release {
        /// The event id.
        id: String,
    },
    /// (A handling over the host's own store.) Load the entry text of `id` from the store, then
    /// `loaded(text)` (absent: none); a failed call is `store_failed(message)`.
    Load {
        /// The event id.
        id: String,
        /// The step's time, as in `ClaimNeed::Load`.
        time: StoreTime,
    },
    /// (A handling over the host's own store.) Compare-and-set the entry text of `id`, as
    /// `ClaimStore.compare_and_set`, then `swapped(applied)`; a failed call is
    /// `store_failed(message)`.
    CompareAndSet {
        /// The event id.
        id: String,
        /// The entry text it must still have (absent: no entry).
        expected: Option<String>,
        /// The entry text to write (absent: remove the entry).
        new: Option<String>,
        /// The step's time and the new entry's expiry, as in `ClaimNeed::CompareAndSet`.
        time: StoreTime,
    },
    /// (A handling in a transaction.) Commit the transaction holding the event's write and the
    /// claim's completion, then `committed(ok)`.
    Commit {
        /// The event id.
        id: String,
    },
    /// Answer the provider with this; the handling is over.
    Answer {
        /// The answer.
        answer: HandlingAnswer,
    },
}

/// The act a newer core's act is shown as until this binding has it: the handling's end (500).
fn unknown_act() -> HandlingAct {
    HandlingAct::Answer {
        answer: HandlingAnswer {
            reply: ClaimReply {
                status: 500,
                retry_after_s: None,
            },
            outcome: None,
            code: Some("INVALID_STEP".to_owned()),
            persisted: false,
        },
    }
}

impl From<Next<'_>> for HandlingAct {
    fn from(next: Next<'_>) -> Self {
        match next {
            Next::Act(Act::Claim { id, .. }) => HandlingAct::Claim { id: id.to_owned() },
            Next::Act(Act::Persist(e)) => HandlingAct::Persist {
                envelope: Envelope::from(e),
            },
            Next::Act(Act::Complete { id, .. }) => HandlingAct::Complete { id: id.to_owned() },
            Next::Act(Act::Release { id, .. }) => HandlingAct::Release { id: id.to_owned() },
            Next::Act(Act::Commit { id }) => HandlingAct::Commit { id: id.to_owned() },
            Next::Act(Act::Answer(a)) => HandlingAct::Answer {
                answer: HandlingAnswer::from(a),
            },
            // A store need crosses as a task's does (one conversion: `ClaimNeed`'s).
            Next::Store(need) => match ClaimNeed::try_from(need) {
                Ok(ClaimNeed::Load { id, time }) => HandlingAct::Load { id, time },
                Ok(ClaimNeed::CompareAndSet {
                    id,
                    expected,
                    new,
                    time,
                }) => HandlingAct::CompareAndSet {
                    id,
                    expected,
                    new,
                    time,
                },
                Ok(ClaimNeed::Done { .. }) | Err(_) => unknown_act(),
            },
            _ => unknown_act(),
        }
    }
}

/// One delivery, from the receiver's decision to the answer: `next()` says what to do (claim,
/// persist, complete, release, answer). Over a [`Claims`] object (`new`), `step(at_ms)` runs
/// each claim step against it; over the host's own store (`with_store_steps`: an async client,
/// a coroutine), `step(at_ms)` starts the step and the store calls come back as `Load` and
/// `CompareAndSet` acts, answered with `loaded`, `swapped` or `store_failed`. The host's write
/// is reported with `persisted(ok)`. Core decides the order and every reply. Safe to share
/// between threads.
#[derive(uniffi::Object)]
pub struct DeliveryHandling {
    inner: Mutex<StoreSteps>,
    claims: Option<Arc<Claims>>,
}

impl std::fmt::Debug for DeliveryHandling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeliveryHandling { .. }")
    }
}

impl DeliveryHandling {
    fn with<T>(&self, f: impl FnOnce(&mut StoreSteps) -> T) -> T {
        // Each step changes the handling in one assignment: a poisoned lock is taken over.
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    /// The handling of a receiver's `decision` under `rules`, its steps run against `claims`
    /// (or, `None`, handed to the host as store acts): every constructor's one body, and the
    /// catch-up's for a recovered event (`Recovery.handling`).
    pub(crate) fn of(
        decision: delivery::Decision,
        rules: claims::ClaimRules,
        token: String,
        claims: Option<Arc<Claims>>,
        in_transaction: bool,
    ) -> Self {
        let h = transaction(
            handling::Handling::new(decision, rules, token),
            in_transaction,
        );
        DeliveryHandling {
            inner: Mutex::new(StoreSteps::new(h)),
            claims,
        }
    }

    /// Core's answer, once the handling is over.
    pub(crate) fn core_answer(&self) -> Option<handling::Answer> {
        self.with(|s| s.handling().answer().copied())
    }
}

/// `h`, in a transaction when asked.
fn transaction(h: handling::Handling, in_transaction: bool) -> handling::Handling {
    if in_transaction {
        h.in_transaction()
    } else {
        h
    }
}

/// Answers `steps`' store needs against `claims` until the handling's next act.
fn run_needs(steps: &mut StoreSteps, claims: &Claims) -> Result<(), handling::OutOfOrder> {
    // A step's needs end within core's conflict limit (16 compare-and-sets, a load each).
    for _ in 0..(2 * claims::MAX_CONFLICTS + 2) {
        let need = match steps.next() {
            Next::Store(need) => need,
            _ => return Ok(()),
        };
        match claims.answer_need(&need) {
            Ok(NeedAnswer::Loaded(entry)) => steps.loaded(entry)?,
            Ok(NeedAnswer::Swapped(applied)) => steps.swapped(applied)?,
            Err(e) => steps.store_failed(e.to_string())?,
        };
    }
    Ok(())
}

#[uniffi::export]
impl DeliveryHandling {
    /// The handling of one delivery: the raw `body` and the `X-Webhook-Signature` header
    /// (absent when the request had none) decided by `receiver`, the event claimed in `claims`
    /// (in memory, or a sync store of the host's) with this request's `token` (unique per
    /// request: a UUID). `in_transaction`: the event's write and the claim's completion are one
    /// transaction of the host's (a `Commit` act after the complete step; see core's
    /// `Handling::in_transaction`).
    #[uniffi::constructor(default(in_transaction = false))]
    pub fn new(
        receiver: Arc<Receiver>,
        claims: Arc<Claims>,
        body: Vec<u8>,
        signature: Option<String>,
        token: String,
        in_transaction: bool,
    ) -> Self {
        let decision = receiver.inner.receive(&body, signature.as_deref());
        let rules = claims.rules();
        DeliveryHandling::of(decision, rules, token, Some(claims), in_transaction)
    }

    /// The handling of one delivery whose claims live in a store the host calls itself (an
    /// async client): the claim steps come back as `Load` and `CompareAndSet` acts; `lease_ms`
    /// and `window_ms` as for `Claims` (30 s; absent: core's 7 days); `in_transaction` as for
    /// the other constructor (the complete step's `Load` and `CompareAndSet` then go to the
    /// transaction's connection).
    #[uniffi::constructor(default(lease_ms = 30000, window_ms = None, in_transaction = false))]
    pub fn with_store_steps(
        receiver: Arc<Receiver>,
        body: Vec<u8>,
        signature: Option<String>,
        token: String,
        lease_ms: u64,
        window_ms: Option<u64>,
        in_transaction: bool,
    ) -> Self {
        let decision = receiver.inner.receive(&body, signature.as_deref());
        let rules = claim_rules(lease_ms, window_ms);
        DeliveryHandling::of(decision, rules, token, None, in_transaction)
    }

    /// What to do next.
    pub fn next(&self) -> HandlingAct {
        self.with(|s| HandlingAct::from(s.next()))
    }

    /// Runs (over `Claims`) or starts (over the host's store: the `Load` act) the claim,
    /// complete or release step the handling waits for, at `at_ms` (the host's clock): the next
    /// act. Throws `INVALID_STEP` (`field`: the act awaited) when it waits for something else.
    pub fn step(&self, at_ms: u64) -> Result<HandlingAct, XborderError> {
        self.with(|s| {
            s.begin(at_ms)?;
            if let Some(claims) = &self.claims {
                run_needs(s, claims)?;
            }
            Ok(HandlingAct::from(s.next()))
        })
    }

    /// The entry text the store holds for the `Load` act's id (absent: none): the next act. A
    /// text xborder did not write fails the step (`STORE_UNAVAILABLE`, answered as core says).
    pub fn loaded(&self, entry: Option<String>) -> Result<HandlingAct, XborderError> {
        self.with(|s| {
            match entry.map(|t| claims::Entry::decode(&t)).transpose() {
                Ok(entry) => s.loaded(entry)?,
                Err(e) => s.store_failed(e.to_string())?,
            };
            Ok(HandlingAct::from(s.next()))
        })
    }

    /// Whether the store applied the `CompareAndSet` act: the next act.
    pub fn swapped(&self, applied: bool) -> Result<HandlingAct, XborderError> {
        self.with(|s| Ok(HandlingAct::from(s.swapped(applied)?)))
    }

    /// The store call asked (`Load`, `CompareAndSet`) failed: the step ends with
    /// `STORE_UNAVAILABLE` carrying `message`, and the handling goes on as core says.
    pub fn store_failed(&self, message: String) -> Result<HandlingAct, XborderError> {
        self.with(|s| Ok(HandlingAct::from(s.store_failed(message)?)))
    }

    /// Whether the host persisted the event (`false`: its write failed): the next act. Throws
    /// `INVALID_STEP` when the handling does not wait for a persist.
    pub fn persisted(&self, ok: bool) -> Result<HandlingAct, XborderError> {
        self.with(|s| Ok(HandlingAct::from(s.persisted(ok)?)))
    }

    /// The receiver's decision this handling started from (what `Receiver.receive` gives for
    /// the same body and signature; made once, by the constructor).
    pub fn decision(&self) -> Decision {
        self.with(|s| Decision::from(s.handling().decision()))
    }

    /// (In a transaction.) Whether the host's commit succeeded: the next act (the answer, or the
    /// release when it failed). Throws `INVALID_STEP` when no commit is awaited.
    pub fn committed(&self, ok: bool) -> Result<HandlingAct, XborderError> {
        self.with(|s| Ok(HandlingAct::from(s.committed(ok)?)))
    }

    /// The last claim step run (absent before the first).
    pub fn last_step(&self) -> Option<HandlingStep> {
        self.with(|s| {
            s.handling().last_step().map(|(step, result)| HandlingStep {
                step: step.as_str().to_owned(),
                outcome: result.ok().map(ClaimOutcome::from),
                code: result.err().map(str::to_owned),
            })
        })
    }

    /// The answer, once the handling is over.
    pub fn answer(&self) -> Option<HandlingAnswer> {
        self.with(|s| s.handling().answer().map(HandlingAnswer::from))
    }
}
