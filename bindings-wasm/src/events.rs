//! Event names: the `Catalog` class (the package's free functions `classifyEvent`,
//! `eventMatches`, and in the full module `checkRegistration` and `createWebhookBody`, are its
//! methods on a built-in catalog, `js/api/events.js`).

use wasm_bindgen::prelude::*;
#[cfg(feature = "webhooks")]
use xborder_core::events::RegistrationError;
use xborder_core::events::{Catalog, CatalogError, EventKind};

use crate::errors::coded;
#[cfg(feature = "webhooks")]
use crate::errors::xb_error;
#[cfg(feature = "webhooks")]
use crate::json::{count, js_array, js_object, js_str};

/// An event catalog: the built-in one plus the names the host added. The package's free
/// functions (`classifyEvent`, `checkRegistration`, `createWebhookBody`, `eventMatches`) are
/// these methods on a built-in catalog (`js/api/events.js`).
#[wasm_bindgen(js_name = Catalog)]
pub struct WasmCatalog {
    pub(crate) inner: Catalog,
}

impl Default for WasmCatalog {
    fn default() -> Self {
        WasmCatalog::new()
    }
}

#[wasm_bindgen(js_class = Catalog)]
impl WasmCatalog {
    /// A copy of the built-in catalog.
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmCatalog {
        WasmCatalog {
            inner: Catalog::builtin(),
        }
    }

    /// Adds a live name; throws `INVALID_EVENT_NAME`.
    #[wasm_bindgen(js_name = addLive)]
    pub fn add_live(&mut self, name: &str) -> Result<(), JsValue> {
        self.inner
            .add_live(name)
            .map_err(|e: CatalogError| coded(&e))
    }

    /// Adds a wildcard `<entity>:*`; throws `INVALID_EVENT_NAME`.
    #[wasm_bindgen(js_name = addWildcard)]
    pub fn add_wildcard(&mut self, name: &str) -> Result<(), JsValue> {
        self.inner
            .add_wildcard(name)
            .map_err(|e: CatalogError| coded(&e))
    }

    /// Whether `name` is live (built in or added).
    #[wasm_bindgen(js_name = isLive)]
    pub fn is_live(&self, name: &str) -> bool {
        self.inner.is_live(name)
    }

    /// `event.classify`, as one number the glue makes `{kind, entity?, action?}` of (one call,
    /// no object or string built across the boundary): the kind's index in `EventKind::ALL`
    /// (`__eventKinds`), plus 8 × (the entity's length + 1) when the name is well formed. Then it
    /// is `<entity>:<action>` in ASCII, so the glue slices both from the name it passed.
    #[wasm_bindgen(js_name = __classify)]
    pub fn classify(&self, name: &str) -> f64 {
        let c = self.inner.classify_name(name);
        // Core tests that ALL lists every kind; NaN (no kind) never happens.
        let kind = EventKind::ALL
            .iter()
            .position(|k| *k == c.kind)
            .map_or(f64::NAN, |i| i as f64);
        kind + c
            .parts
            .map_or(0.0, |p| 8.0 * (p.entity().len() as f64 + 1.0))
    }

    /// `event.matches`: whether a delivered event is covered by the subscriptions.
    pub fn matches(&self, subscriptions: Vec<String>, event: &str) -> bool {
        self.inner.matches(&subscriptions, event)
    }
}

#[cfg(feature = "webhooks")]
#[wasm_bindgen(js_class = Catalog)]
impl WasmCatalog {
    /// `event.check_registration`: `{ok: true, events}` or `{ok: false, code, rejected?}`.
    #[wasm_bindgen(js_name = checkRegistration)]
    pub fn check_registration(
        &self,
        events: Vec<String>,
        existing_webhooks: Option<f64>,
    ) -> JsValue {
        let existing = count(existing_webhooks).unwrap_or(0);
        match self.inner.check_registration(&events, existing) {
            Ok(reg) => js_object(&[
                ("ok", JsValue::TRUE),
                ("events", js_array(reg.events().iter().map(|e| js_str(e)))),
            ]),
            Err(e) => {
                let (ok, code) = (("ok", JsValue::FALSE), ("code", js_str(e.code())));
                match rejected_js(&e) {
                    Some(rejected) => js_object(&[ok, code, ("rejected", rejected)]),
                    None => js_object(&[ok, code]),
                }
            }
        }
    }

    /// The JSON body of `POST /v1/webhooks`; throws `VALIDATION_FAILED` (with `rejected`),
    /// `WEBHOOK_LIMIT_REACHED` or (the names accepted) `INVALID_URL`.
    #[wasm_bindgen(js_name = createWebhookBody)]
    pub fn create_webhook_body(
        &self,
        events: Vec<String>,
        url: &str,
        existing_webhooks: Option<f64>,
    ) -> Result<String, JsValue> {
        let existing = count(existing_webhooks).unwrap_or(0);
        self.inner
            .check_registration(&events, existing)
            .and_then(|reg| reg.create_webhook_body(url))
            .map_err(|e| {
                let rejected = rejected_js(&e).unwrap_or(JsValue::UNDEFINED);
                xb_error(e.code(), &e.to_string(), None, rejected)
            })
    }
}

/// The texts of `EventKind::ALL`, in order (the kinds `Catalog.__classify` gives by index).
#[doc(hidden)]
#[wasm_bindgen(js_name = __eventKinds)]
pub fn event_kinds() -> Vec<String> {
    EventKind::ALL
        .iter()
        .map(|k| k.as_str().to_owned())
        .collect()
}

/// The names a registration refused, as `[{event, reason}]`.
#[cfg(feature = "webhooks")]
fn rejected_js(e: &RegistrationError) -> Option<JsValue> {
    match e {
        RegistrationError::ValidationFailed { rejected } => {
            Some(js_array(rejected.iter().map(|r| {
                js_object(&[
                    ("event", js_str(&r.event)),
                    ("reason", js_str(r.reason.as_str())),
                ])
            })))
        }
        _ => None,
    }
}
