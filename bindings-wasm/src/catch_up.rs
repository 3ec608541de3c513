//! The catch-up (`events.catch_up`, core's `catch_up`): the `CatchUp` class, the walk of
//! `GET /v1/external-events` down to the checkpoint, and (with `webhooks`) the `Recovery` of what
//! it found, each event handled as its delivery would be (a `DeliveryHandling` of core's
//! `Receiver::receive_recovered` decision). The glue (`js/api/catchup.js`) runs the host's GETs
//! and waits; core decides every page, retry and checkpoint.

use wasm_bindgen::prelude::*;
use xborder_core::catch_up::{CatchUp, CatchUpDrift, CatchUpError, ExternalEvent, Fetched};

use crate::api::{api_error_js, pairs, status_of};
use crate::errors::{coded, error};
use crate::json::{js_array, js_object, js_str, js_u64};
use crate::pagination::drift_js;

/// A catch-up error as an `XborderError`; `API_ERROR` also carries the API's answer read
/// (`error.api`: `{status, code, message, details, requestId, retry, afterMs}`).
fn catch_up_error(e: &CatchUpError) -> JsValue {
    let error = coded(e);
    if let CatchUpError::Api(api) = e {
        let _ = js_sys::Reflect::set(&error, &js_str("api"), &api_error_js(api));
    }
    error
}

fn drift(d: &CatchUpDrift) -> JsValue {
    match d {
        CatchUpDrift::Page(d) => drift_js(d),
        CatchUpDrift::MalformedRecord { count } => {
            js_object(&[("code", js_str(d.code())), ("count", js_u64(*count))])
        }
        _ => js_object(&[("code", js_str(d.code()))]),
    }
}

fn drifts<'a>(ds: impl IntoIterator<Item = &'a CatchUpDrift>) -> JsValue {
    js_array(ds.into_iter().map(drift))
}

/// A number that is a non-negative integer, as core's `u64` (above it: `u64::MAX`, which core
/// refuses as above 2^53 − 1); `None` for a fraction, a negative number or NaN.
fn whole(x: f64) -> Option<u64> {
    (x.fract() == 0.0 && x >= 0.0).then_some(x as u64)
}

/// `{id, event, entityId, entityType, createdAt}` of an event found.
fn event_js(e: &ExternalEvent) -> JsValue {
    js_object(&[
        ("id", js_str(e.id())),
        ("event", js_str(e.event())),
        ("entityId", js_str(e.entity_id())),
        ("entityType", js_str(e.entity_type())),
        ("createdAt", js_str(e.created_at())),
    ])
}

/// The walk of `GET /v1/external-events` (`catch_up::CatchUp`).
#[wasm_bindgen(js_name = CatchUp)]
pub struct WasmCatchUp {
    inner: CatchUp,
}

#[wasm_bindgen(js_class = CatchUp)]
impl WasmCatchUp {
    /// A catch-up from `since` (none: everything kept), with the overlap and page size when
    /// given (the glue passes non-negative integer numbers). Throws `INVALID_SINCE`,
    /// `INVALID_OVERLAP`, `INVALID_PAGE_SIZE`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        since: Option<String>,
        overlap_ms: Option<f64>,
        page_size: Option<f64>,
    ) -> Result<WasmCatchUp, JsValue> {
        let err = |e: CatchUpError| catch_up_error(&e);
        let mut c = CatchUp::new(since.as_deref()).map_err(err)?;
        if let Some(o) = overlap_ms {
            c = whole(o)
                .ok_or(CatchUpError::InvalidOverlap)
                .and_then(|o| c.overlap_ms(o))
                .map_err(err)?;
        }
        if let Some(p) = page_size {
            // Not a whole number: refused as the size 0 is (INVALID_PAGE_SIZE).
            c = c.page_size(whole(p).unwrap_or(0)).map_err(err)?;
        }
        Ok(WasmCatchUp { inner: c })
    }

    /// The query of the next page (without `?`), `null` when the walk is over.
    #[wasm_bindgen(js_name = nextQuery)]
    pub fn next_query(&self) -> Option<String> {
        self.inner.next_request().map(|p| p.to_query())
    }

    /// Whether the walk is over.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// Feeds a page (its JSON text): its drift. Throws `MALFORMED_RESPONSE`.
    pub fn feed(&mut self, page: &str) -> Result<JsValue, JsValue> {
        let d = self.inner.feed_text(page).map_err(|e| catch_up_error(&e))?;
        Ok(drifts(&d))
    }

    /// The answer to the next query as the host's HTTP client got it (status, headers as a flat
    /// list of names and values, body text): `{drifts}` (the page was fed) or `{waitMs}` (send
    /// the same query again after it). Throws `API_ERROR` (with `api`), `MALFORMED_RESPONSE`.
    pub fn answered(
        &mut self,
        status: f64,
        headers: Vec<String>,
        text: &str,
    ) -> Result<JsValue, JsValue> {
        let status = status_of(status)?;
        match self.inner.answered(status, &pairs(&headers), text) {
            Ok(Fetched::Page { drifts: d }) => Ok(js_object(&[("drifts", drifts(&d))])),
            Ok(Fetched::Wait { ms }) => Ok(js_object(&[("waitMs", js_u64(ms))])),
            // Core's answers are non-exhaustive: one this binding does not know ends the walk
            // (never a loop asking the same page again).
            Ok(_) => Err(error(
                xborder_core::codes::INTERNAL_ERROR,
                "INTERNAL_ERROR: xborder-wasm does not know this answer of the catch-up (a newer xborder-core)",
            )),
            Err(e) => Err(catch_up_error(&e)),
        }
    }

    /// The events found so far, oldest first.
    pub fn events(&self) -> JsValue {
        js_array(self.inner.events().map(event_js))
    }

    /// Every drift so far.
    pub fn drifts(&self) -> JsValue {
        drifts(self.inner.drifts())
    }

    /// The checkpoint once every event found is handled (`null`: none yet).
    pub fn checkpoint(&self) -> Option<String> {
        self.inner.checkpoint().map(str::to_owned)
    }

    /// The handling of the events found (a copy of the walk's; the walk stays as it is).
    #[cfg(feature = "webhooks")]
    #[wasm_bindgen(js_name = __recover)]
    pub fn recover(&self) -> recovery::WasmRecovery {
        recovery::WasmRecovery::new(self.inner.clone().recover())
    }
}

#[cfg(feature = "webhooks")]
pub(crate) mod recovery {
    use wasm_bindgen::prelude::*;
    use xborder_core::catch_up::Recovery;

    use super::event_js;
    use crate::handling::WasmDeliveryHandling;
    use crate::json::{js_object, js_u64};
    use crate::signatures::WasmReceiver;

    /// The events a catch-up found, handled one by one (`catch_up::Recovery`).
    #[wasm_bindgen(js_name = Recovery)]
    pub struct WasmRecovery {
        inner: Recovery,
    }

    impl WasmRecovery {
        pub(super) fn new(inner: Recovery) -> Self {
            WasmRecovery { inner }
        }
    }

    #[wasm_bindgen(js_class = Recovery)]
    impl WasmRecovery {
        /// The event to handle next, `null` when every one was.
        #[wasm_bindgen(js_name = nextEvent)]
        pub fn next_event(&self) -> JsValue {
            self.inner.next_event().map_or(JsValue::NULL, event_js)
        }

        /// The handling of the next event as its delivery would be (`receive_recovered`), for
        /// the request `token` under the claim rules; `null` when every event was handled.
        #[wasm_bindgen(js_name = __handling)]
        pub fn handling(
            &self,
            receiver: &WasmReceiver,
            token: &str,
            lease_ms: Option<f64>,
            window_ms: Option<f64>,
            in_transaction: bool,
        ) -> Option<WasmDeliveryHandling> {
            let event = self.inner.next_event()?;
            let decision = receiver.inner().receive_recovered(event);
            Some(WasmDeliveryHandling::of(
                decision,
                token,
                lease_ms,
                window_ms,
                in_transaction,
            ))
        }

        /// Records the answer of the next event's handling `h` (over): whether one was recorded.
        #[wasm_bindgen(js_name = __handled)]
        pub fn handled(&mut self, h: &WasmDeliveryHandling) -> bool {
            match h.answer_of() {
                Some(answer) => self.inner.handled(&answer),
                None => false,
            }
        }

        /// `{processed, skipped, rejected, failed}` so far.
        pub fn tally(&self) -> JsValue {
            let t = self.inner.tally();
            js_object(&[
                ("processed", js_u64(t.processed)),
                ("skipped", js_u64(t.skipped)),
                ("rejected", js_u64(t.rejected)),
                ("failed", js_u64(t.failed)),
            ])
        }

        /// The `since` of the next catch-up (`null`: walk everything again).
        pub fn checkpoint(&self) -> Option<String> {
            self.inner.checkpoint().map(str::to_owned)
        }
    }
}
