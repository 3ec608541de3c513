//! Claims on event ids (the full module only, feature `webhooks`): the `Claims` class with
//! core's in-memory store, and the claim task a store of the host's is driven through.

use wasm_bindgen::prelude::*;
use xborder_core::claims::{
    self, ClaimError, ClaimRules, ClaimTask, Claims, Entry, Need, StoreTime, DEFAULT_LEASE_MS,
};
use xborder_core::delivery::{StoreError, DEFAULT_WINDOW};

use crate::errors::{coded, type_error};
use crate::json::{count, js_object, js_str, js_u64};

fn claim_error(e: ClaimError) -> JsValue {
    coded(&e)
}

/// A time or duration in milliseconds, checked in JavaScript to be a non-negative safe integer
/// (exact as an `f64`).
pub(crate) fn millis(x: f64) -> u64 {
    x as u64
}

/// The rules of claims: `lease_ms` (core's default when absent) and `window_ms`.
pub(crate) fn claim_rules(lease_ms: Option<f64>, window_ms: Option<f64>) -> ClaimRules {
    let rules = ClaimRules::new(lease_ms.map_or(DEFAULT_LEASE_MS, millis));
    match window_ms {
        Some(w) => rules.with_window(millis(w)),
        None => rules,
    }
}

/// Claims on event ids with core's in-memory store (`claims::Claims`).
#[wasm_bindgen(js_name = Claims)]
pub struct WasmClaims {
    pub(crate) inner: Claims,
}

#[wasm_bindgen(js_class = Claims)]
impl WasmClaims {
    /// Claims held for `lease_ms`, done ids remembered for `window_ms` (absent: until the store
    /// forgets them), at most `capacity` done ids (10,000 by default).
    #[wasm_bindgen(constructor)]
    pub fn new(lease_ms: Option<f64>, window_ms: Option<f64>, capacity: Option<f64>) -> WasmClaims {
        let capacity = count(capacity).map_or(DEFAULT_WINDOW, |c| c as usize);
        WasmClaims {
            inner: Claims::in_memory(claim_rules(lease_ms, window_ms), capacity),
        }
    }

    /// One step (`claim`, `complete`, `release`): the outcome's text; throws `INVALID_STEP`
    /// (with `field`) or `STORE_UNAVAILABLE`.
    pub fn step(&self, step: &str, id: &str, token: &str, at_ms: f64) -> Result<JsValue, JsValue> {
        self.inner
            .step(step, id, token, millis(at_ms))
            .map(|o| js_str(o.as_str()))
            .map_err(claim_error)
    }
}

/// One step against a store of the host's (`claims::ClaimTask`): the glue does each load and
/// compare-and-set it asks for and hands the answer back, until it is done.
#[wasm_bindgen(js_name = ClaimTask)]
pub struct WasmClaimTask {
    inner: ClaimTask,
}

pub(crate) fn entry_text(e: Option<Entry>) -> JsValue {
    e.map_or(JsValue::NULL, |e| js_str(&e.encode()))
}

/// A store call's times, as core clamped them: `{nowMs, ttlMs, expiresAtMs}` (`null` for none).
fn time_js(t: StoreTime) -> JsValue {
    let or_null = |v: Option<u64>| v.map_or(JsValue::NULL, js_u64);
    js_object(&[
        ("nowMs", js_u64(t.now_ms)),
        ("ttlMs", or_null(t.ttl_ms)),
        ("expiresAtMs", or_null(t.expires_at_ms)),
    ])
}

/// A store call as the glue reads it, named under `key` (`op` for a claim task's need, `act`
/// for a handling's): `{[key]: 'load', id, time}` or `{[key]: 'cas', id, expected, next, ttlMs,
/// time}` (entry texts, `null` for none; `ttlMs` is `time.ttlMs`). `None` for another need.
pub(crate) fn store_call_js(key: &str, need: Need) -> Option<JsValue> {
    Some(match need {
        Need::Load { id, time } => js_object(&[
            (key, js_str("load")),
            ("id", js_str(&id)),
            ("time", time_js(time)),
        ]),
        Need::CompareAndSet {
            id,
            expected,
            new,
            time,
        } => js_object(&[
            (key, js_str("cas")),
            ("id", js_str(&id)),
            ("expected", entry_text(expected)),
            ("next", entry_text(new)),
            ("ttlMs", time.ttl_ms.map_or(JsValue::NULL, js_u64)),
            ("time", time_js(time)),
        ]),
        _ => return None,
    })
}

/// A store call (`store_call_js` under `op`) or `{op: 'done', outcome}`; `STORE_UNAVAILABLE` for
/// a need this binding does not know.
fn need_js(need: Need) -> Result<JsValue, JsValue> {
    if let Need::Done(outcome) = need {
        return Ok(js_object(&[
            ("op", js_str("done")),
            ("outcome", js_str(outcome.as_str())),
        ]));
    }
    store_call_js("op", need)
        .ok_or_else(|| store_unavailable("xborder-wasm does not know what the claim task needs"))
}

#[wasm_bindgen(js_class = ClaimTask)]
impl WasmClaimTask {
    /// A step by `token` on `id` at `at_ms`, under the rules `lease_ms` / `window_ms`; throws
    /// `INVALID_STEP` (with `field`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        lease_ms: Option<f64>,
        window_ms: Option<f64>,
        step: &str,
        id: &str,
        token: &str,
        at_ms: f64,
    ) -> Result<WasmClaimTask, JsValue> {
        ClaimTask::new(
            claim_rules(lease_ms, window_ms),
            step,
            id,
            token,
            millis(at_ms),
        )
        .map(|inner| WasmClaimTask { inner })
        .map_err(claim_error)
    }

    /// The first need: the load of the id's entry.
    pub fn start(&mut self) -> Result<JsValue, JsValue> {
        need_js(self.inner.start())
    }

    /// The loaded entry text (`null`: none); throws `STORE_UNAVAILABLE` for a text core did not
    /// write.
    pub fn loaded(&mut self, entry: Option<String>) -> Result<JsValue, JsValue> {
        let entry = match entry {
            Some(text) => Some(Entry::decode(&text).map_err(|e| claim_error(e.into()))?),
            None => None,
        };
        self.inner
            .loaded(entry)
            .map_err(claim_error)
            .and_then(need_js)
    }

    /// The compare-and-set's answer; throws `STORE_UNAVAILABLE` after too many conflicts.
    pub fn swapped(&mut self, applied: bool) -> Result<JsValue, JsValue> {
        self.inner
            .swapped(applied)
            .map_err(claim_error)
            .and_then(need_js)
    }
}

/// The `STORE_UNAVAILABLE` error of a store of the host's that threw or rejected (the glue keeps
/// the cause).
#[wasm_bindgen(js_name = __storeUnavailable)]
pub fn store_unavailable(message: &str) -> JsValue {
    claim_error(StoreError::new(message).into())
}

/// A reply as the glue reads it: `[status, retryAfter]`, `retryAfter` -1 when none goes with it.
fn reply_pair(r: claims::Reply) -> Vec<f64> {
    vec![
        f64::from(r.status),
        r.retry_after_s.map_or(-1.0, |s| s as f64),
    ]
}

/// What to answer the provider after `step` gave `outcome` (`claims::ClaimRules::reply`) under
/// a lease of `lease_ms`: a reply pair, empty after `claimed`. Throws `INVALID_STEP` (`do`) for a
/// step that is not one, a `TypeError` for an outcome that is not one.
#[wasm_bindgen(js_name = __claimReply)]
pub fn claim_reply(lease_ms: Option<f64>, step: &str, outcome: &str) -> Result<Vec<f64>, JsValue> {
    let step = claims::Step::parse(step)
        .ok_or_else(|| claim_error(ClaimError::InvalidStep { field: "do" }))?;
    let outcome = claims::Outcome::parse(outcome).ok_or_else(|| {
        type_error(&format!(
            "xborder: `outcome` must be a claim outcome (claimed, in_progress, duplicate, \
             completed, released or stale), not \"{outcome}\""
        ))
    })?;
    Ok(claim_rules(lease_ms, None)
        .reply(step, outcome)
        .map_or_else(Vec::new, reply_pair))
}

/// What to answer the provider when a claim step threw an error with `code`
/// (`claims::reply_to_code`): a reply pair.
#[wasm_bindgen(js_name = __claimErrorReply)]
pub fn claim_error_reply(code: &str) -> Vec<f64> {
    reply_pair(claims::reply_to_code(code))
}
