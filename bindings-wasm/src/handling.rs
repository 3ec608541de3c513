//! One delivery from the receiver's decision to the answer (the full module only, feature
//! `webhooks`): `DeliveryHandling` over core's `handling::StoreSteps`. Core decides the order
//! (claim, persist, complete or release) and every reply; the glue (`js/api/handling.js`) runs
//! the host's persist and, for a store of the host's, each load and compare-and-set core asks
//! for. Acts are plain JS objects: `{act: 'claim' | 'complete' | 'release', id}`,
//! `{act: 'persist', envelope}`, `{act: 'commit', id}` (a handling in a transaction),
//! `{act: 'load', id, time}`,
//! `{act: 'cas', id, expected, next, ttlMs, time}` (entry texts, `null` for none; `time`:
//! `{nowMs, ttlMs, expiresAtMs}`, core's `StoreTime`, the store writes and compares as given) and
//! `{act: 'answer', answer: {status, retryAfter, outcome, code, persisted}}`.

use wasm_bindgen::prelude::*;
use xborder_core::claims::{ClaimStore, Entry, Need, MAX_CONFLICTS};
use xborder_core::handling::{Act, Answer, Handling, Next, OutOfOrder, StoreSteps};

use crate::claims::{claim_rules, millis, store_call_js, WasmClaims};
use crate::errors::coded;
use crate::json::{js_object, js_str, js_u64};
use crate::signatures::{envelope_js, receive_error_js, WasmReceiver};

/// An answer as `{status, retryAfter, outcome, code, persisted}` (`null` for an absent one).
fn answer_js(a: &Answer) -> JsValue {
    let or_null = |s: Option<&str>| s.map_or(JsValue::NULL, js_str);
    js_object(&[
        ("status", JsValue::from_f64(f64::from(a.reply.status))),
        (
            "retryAfter",
            a.reply.retry_after_s.map_or(JsValue::NULL, js_u64),
        ),
        ("outcome", or_null(a.outcome.map(|o| o.as_str()))),
        ("code", or_null(a.code)),
        ("persisted", JsValue::from_bool(a.persisted)),
    ])
}

/// What the host does next, as a JS object (see the module's documentation).
fn next_js(next: Next<'_>) -> JsValue {
    let named = |act: &str, id: &str| js_object(&[("act", js_str(act)), ("id", js_str(id))]);
    match next {
        Next::Act(Act::Answer(a)) => {
            js_object(&[("act", js_str("answer")), ("answer", answer_js(a))])
        }
        Next::Act(Act::Persist(e)) => {
            js_object(&[("act", js_str("persist")), ("envelope", envelope_js(e))])
        }
        Next::Act(
            act @ (Act::Claim { id, .. }
            | Act::Complete { id, .. }
            | Act::Release { id, .. }
            | Act::Commit { id }),
        ) => named(act.as_str(), id),
        // Core's enums are non-exhaustive: an act (or a store call) this binding does not know
        // yet is named, so the glue stops on it (its loop accepts only the acts above).
        Next::Store(need) => store_call_js("act", need).unwrap_or_else(|| named("unknown", "")),
        _ => named("unknown", ""),
    }
}

fn step_error(e: OutOfOrder) -> JsValue {
    coded(&e)
}

/// One delivery's handling (`handling::StoreSteps`).
#[wasm_bindgen(js_name = DeliveryHandling)]
pub struct WasmDeliveryHandling {
    inner: StoreSteps,
}

impl WasmDeliveryHandling {
    /// The handling of `decision` (a recovered event's: `catch_up.rs`), as `new` makes one.
    #[cfg(feature = "api")]
    pub(crate) fn of(
        decision: xborder_core::delivery::Decision,
        token: &str,
        lease_ms: Option<f64>,
        window_ms: Option<f64>,
        in_transaction: bool,
    ) -> WasmDeliveryHandling {
        let mut h = Handling::new(decision, claim_rules(lease_ms, window_ms), token);
        if in_transaction {
            h = h.in_transaction();
        }
        WasmDeliveryHandling {
            inner: StoreSteps::new(h),
        }
    }

    /// Core's answer, once the handling is over.
    #[cfg(feature = "api")]
    pub(crate) fn answer_of(&self) -> Option<Answer> {
        self.inner.handling().answer().copied()
    }
}

#[wasm_bindgen(js_class = DeliveryHandling)]
impl WasmDeliveryHandling {
    /// The handling of `receiver`'s decision on `body` with the signature header (its value, or
    /// the values the glue gathered; `tags`: the host's HMACs, as `Receiver.__receiveWithTags`),
    /// for the request `token`, under the claim rules `lease_ms` / `window_ms`; `in_transaction`:
    /// the event's write and the claim's completion are one transaction of the host's (a
    /// `commit` act after the complete step: core's `Handling::in_transaction`).
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)] // the receiver's inputs, then the handling's
    pub fn new(
        receiver: &WasmReceiver,
        body: &[u8],
        tags: Option<Vec<u8>>,
        signature: Option<String>,
        values: Option<Vec<String>>,
        token: &str,
        lease_ms: Option<f64>,
        window_ms: Option<f64>,
        in_transaction: bool,
    ) -> WasmDeliveryHandling {
        let decision = receiver.decide(body, tags.as_deref(), &signature, &values);
        let mut h = Handling::new(decision, claim_rules(lease_ms, window_ms), token);
        if in_transaction {
            h = h.in_transaction();
        }
        WasmDeliveryHandling {
            inner: StoreSteps::new(h),
        }
    }

    /// What to do next.
    pub fn next(&self) -> JsValue {
        next_js(self.inner.next())
    }

    /// Starts the claim, complete or release step at `at_ms`: its first store call (a `load`
    /// act), or the act it led to. Throws `INVALID_STEP` (with `field`) out of order.
    pub fn begin(&mut self, at_ms: f64) -> Result<JsValue, JsValue> {
        self.inner
            .begin(millis(at_ms))
            .map(next_js)
            .map_err(step_error)
    }

    /// Runs the whole step at `at_ms` against the in-memory store of `claims` (its store calls
    /// answered here): the act it led to.
    #[wasm_bindgen(js_name = stepIn)]
    pub fn step_in(&mut self, claims: &WasmClaims, at_ms: f64) -> Result<JsValue, JsValue> {
        self.inner.begin(millis(at_ms)).map_err(step_error)?;
        let store = claims.inner.store();
        // A step's calls end within core's conflict limit (a load and a compare-and-set each).
        for _ in 0..(2 * MAX_CONFLICTS + 2) {
            let went = match self.inner.next() {
                Next::Store(Need::Load { id, time }) => match store.load(&id, time) {
                    Ok(entry) => self.inner.loaded(entry),
                    Err(e) => self.inner.store_failed(e.to_string()),
                },
                Next::Store(Need::CompareAndSet {
                    id,
                    expected,
                    new,
                    time,
                }) => match store.compare_and_set(&id, expected.as_ref(), new.as_ref(), time) {
                    Ok(applied) => self.inner.swapped(applied),
                    Err(e) => self.inner.store_failed(e.to_string()),
                },
                _ => break,
            };
            went.map_err(step_error)?;
        }
        Ok(self.next())
    }

    /// The entry text the `load` found (`null`/`undefined`: none): the next act. A text core did
    /// not write ends the step with `STORE_UNAVAILABLE`, as a failed store call.
    pub fn loaded(&mut self, entry: Option<String>) -> Result<JsValue, JsValue> {
        let went = match entry.map(|t| Entry::decode(&t)).transpose() {
            Ok(entry) => self.inner.loaded(entry),
            Err(e) => self.inner.store_failed(e.to_string()),
        };
        went.map(next_js).map_err(step_error)
    }

    /// Whether the store applied the `cas` asked: the next act.
    pub fn swapped(&mut self, applied: bool) -> Result<JsValue, JsValue> {
        self.inner.swapped(applied).map(next_js).map_err(step_error)
    }

    /// The store call asked threw or rejected (`message`: why): the step ends with core's
    /// `STORE_UNAVAILABLE`; the next act.
    #[wasm_bindgen(js_name = storeFailed)]
    pub fn store_failed(&mut self, message: &str) -> Result<JsValue, JsValue> {
        self.inner
            .store_failed(message)
            .map(next_js)
            .map_err(step_error)
    }

    /// Whether the host's persist succeeded (`commit` false), or (in a transaction) its commit
    /// (`commit` true): the next act (`complete`, `commit`, `answer` or `release`). One export
    /// for both reports (the module's size).
    pub fn persisted(&mut self, ok: bool, commit: bool) -> Result<JsValue, JsValue> {
        let next = if commit {
            self.inner.committed(ok)
        } else {
            self.inner.persisted(ok)
        };
        next.map(next_js).map_err(step_error)
    }

    /// The last claim step run: `{step: 'claim' | 'complete' | 'release', outcome, code}` (its
    /// outcome, or its error's code; the other `null`), or `null` before the first.
    #[wasm_bindgen(js_name = lastStep)]
    pub fn last_step(&self) -> JsValue {
        let or_null = |s: Option<&str>| s.map_or(JsValue::NULL, js_str);
        self.inner
            .handling()
            .last_step()
            .map_or(JsValue::NULL, |(step, result)| {
                js_object(&[
                    ("step", js_str(step.as_str())),
                    ("outcome", or_null(result.ok().map(|o| o.as_str()))),
                    ("code", or_null(result.err())),
                ])
            })
    }

    /// The receiver's decision: `process`, `ignore`, `duplicate` or `reject`.
    pub fn action(&self) -> String {
        self.inner
            .handling()
            .decision()
            .action()
            .as_str()
            .to_owned()
    }

    /// The event's envelope (`null`: the delivery was refused).
    pub fn envelope(&self) -> JsValue {
        self.inner
            .handling()
            .decision()
            .envelope()
            .map_or(JsValue::NULL, envelope_js)
    }

    /// Why the receiver refused the delivery (its `XborderError`: code, field, message), or
    /// `null` when it did not.
    pub fn refusal(&self) -> JsValue {
        self.inner
            .handling()
            .decision()
            .error()
            .map_or(JsValue::NULL, receive_error_js)
    }

    /// The answer once the handling is over (`null` before).
    pub fn answer(&self) -> JsValue {
        self.inner
            .handling()
            .answer()
            .map_or(JsValue::NULL, answer_js)
    }
}
