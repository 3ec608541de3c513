//! One delivery from the receiver's decision to the answer (core's `handling::Handling`): the
//! host persists, core decides the order and every reply.

use std::sync::{Arc, Mutex};

use xborder_core::claims::Step;
use xborder_core::handling::{self, Act};

use crate::claims::{ClaimOutcome, ClaimReply, Claims};
use crate::delivery::Receiver;
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

/// What the host must do next for a [`DeliveryHandling`].
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum HandlingAct {
    /// Run the claim: `step(at_ms)`.
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
    /// Answer the provider with this; the handling is over.
    Answer {
        /// The answer.
        answer: HandlingAnswer,
    },
}

impl From<Act<'_>> for HandlingAct {
    fn from(act: Act<'_>) -> Self {
        match act {
            Act::Claim { id, .. } => HandlingAct::Claim { id: id.to_owned() },
            Act::Persist(e) => HandlingAct::Persist {
                envelope: Envelope::from(e),
            },
            Act::Complete { id, .. } => HandlingAct::Complete { id: id.to_owned() },
            Act::Release { id, .. } => HandlingAct::Release { id: id.to_owned() },
            Act::Answer(a) => HandlingAct::Answer {
                answer: HandlingAnswer::from(a),
            },
            // A newer core's act: answered as the handling's end (500) until this binding has it.
            _ => HandlingAct::Answer {
                answer: HandlingAnswer {
                    reply: ClaimReply {
                        status: 500,
                        retry_after_s: None,
                    },
                    outcome: None,
                    code: Some("INVALID_STEP".to_owned()),
                    persisted: false,
                },
            },
        }
    }
}

/// One delivery, from the receiver's decision to the answer: `next()` says what to do (claim,
/// persist, complete, release, answer); the claim steps run against `claims` with `step(at_ms)`,
/// the host's write is reported with `persisted(ok)`. Safe to share between threads.
#[derive(uniffi::Object)]
pub struct DeliveryHandling {
    inner: Mutex<handling::Handling>,
    claims: Arc<Claims>,
}

impl std::fmt::Debug for DeliveryHandling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeliveryHandling { .. }")
    }
}

impl DeliveryHandling {
    fn with<T>(&self, f: impl FnOnce(&mut handling::Handling) -> T) -> T {
        // A panic while the lock was held cannot leave a handling half-changed (each step
        // changes it in one assignment): the poisoned value is used as it is.
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }
}

#[uniffi::export]
impl DeliveryHandling {
    /// The handling of one delivery: the raw `body` and the `X-Webhook-Signature` header
    /// (`null` when absent) decided by `receiver`, the event claimed in `claims` with this
    /// request's `token` (unique per request: a UUID).
    #[uniffi::constructor]
    pub fn new(
        receiver: Arc<Receiver>,
        claims: Arc<Claims>,
        body: Vec<u8>,
        signature: Option<String>,
        token: String,
    ) -> Self {
        let decision = receiver.inner.receive(&body, signature.as_deref());
        DeliveryHandling {
            inner: Mutex::new(handling::Handling::new(decision, claims.rules(), token)),
            claims,
        }
    }

    /// What to do next.
    pub fn next(&self) -> HandlingAct {
        self.with(|h| HandlingAct::from(h.next()))
    }

    /// Runs the claim, complete or release step the handling waits for against its claims, at
    /// `at_ms` (the host's clock): the next act. Throws `INVALID_STEP` (`field` the act awaited)
    /// when it waits for a persist or is over.
    pub fn step(&self, at_ms: u64) -> Result<HandlingAct, XborderError> {
        self.with(|h| {
            let (step, id, token) = match h.next() {
                Act::Claim { id, token } => (Step::Claim, id.to_owned(), token.to_owned()),
                Act::Complete { id, token } => (Step::Complete, id.to_owned(), token.to_owned()),
                Act::Release { id, token } => (Step::Release, id.to_owned(), token.to_owned()),
                other => {
                    return Err(handling::OutOfOrder {
                        expected: other.as_str(),
                        got: "step",
                    }
                    .into())
                }
            };
            let result = self.claims.core_step(step, &id, &token, at_ms);
            let next = match step {
                Step::Claim => h.claimed(result),
                Step::Complete => h.completed(result),
                Step::Release => h.released(result),
            }?;
            Ok(HandlingAct::from(next))
        })
    }

    /// Whether the host persisted the event (`false`: its write failed): the next act. Throws
    /// `INVALID_STEP` when the handling does not wait for a persist.
    pub fn persisted(&self, ok: bool) -> Result<HandlingAct, XborderError> {
        self.with(|h| Ok(HandlingAct::from(h.persisted(ok)?)))
    }

    /// The answer, once the handling is over.
    pub fn answer(&self) -> Option<HandlingAnswer> {
        self.with(|h| h.answer().map(HandlingAnswer::from))
    }
}
