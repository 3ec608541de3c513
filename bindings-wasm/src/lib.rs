//! # xborder-wasm
//!
//! The WebAssembly face of [`xborder_core`], published on npm as `xborder-wasm`. Conversion only:
//! every rule lives in the core; this crate turns JS values into core inputs and core results
//! into JS values, with JS naming (camelCase).
//!
//! - Bodies are `string | Uint8Array` (a string is taken as its UTF-8 bytes).
//! - JSON documents (drafts, rules, bank lists, list parameters, paginated responses) are JS
//!   values; they cross as JSON text (`JSON.stringify` → `serde_json`).
//! - Errors are `XborderError` instances (`name`, `code`, `field`, `rejected` where they
//!   apply); validation results are plain objects.
//! - A panic (none is expected) becomes an `XborderError` with code `INTERNAL_ERROR`, and the
//!   module is re-instantiated before the next call.

use std::fmt::Display;

use js_sys::{Array, Uint8Array, JSON};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use xborder_core::beneficiary::{self, BankList, ValidationRules};
use xborder_core::delivery::{self, DEFAULT_WINDOW};
use xborder_core::envelope::{Envelope, EnvelopeError};
use xborder_core::events::{Catalog, RegistrationError};
use xborder_core::pagination::{self, ListParams, PaginationError};
use xborder_core::signature::{self, SignatureError};

#[wasm_bindgen(module = "/js/glue.js")]
extern "C" {
    #[wasm_bindgen(js_name = xbError)]
    fn xb_error(code: &str, message: &str, field: Option<String>, rejected: JsValue) -> JsValue;

    #[wasm_bindgen(js_name = jsonText, catch)]
    fn json_text(value: &JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_name = makeEnvelope)]
    fn make_envelope(
        id: &str,
        event: &str,
        kind: &str,
        entity_id: &str,
        entity_type: &str,
        raw_data: Option<String>,
    ) -> JsValue;
}

// ---------------------------------------------------------------------------------------------
// Conversion helpers

fn error(code: &str, message: impl Display) -> JsValue {
    xb_error(code, &message.to_string(), None, JsValue::UNDEFINED)
}

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

fn signature_error(e: SignatureError) -> JsValue {
    error(e.code(), e)
}

fn envelope_error(e: &EnvelopeError) -> JsValue {
    xb_error(
        e.code(),
        &e.to_string(),
        e.field().map(str::to_owned),
        JsValue::UNDEFINED,
    )
}

fn pagination_error(e: PaginationError) -> JsValue {
    error(e.code(), e)
}

/// The raw bytes of a body: a string's UTF-8 encoding, or a `Uint8Array`'s bytes (a Node
/// `Buffer` is one).
fn body_bytes(body: &JsValue) -> Result<Vec<u8>, JsValue> {
    if let Some(s) = body.as_string() {
        return Ok(s.into_bytes());
    }
    if let Some(bytes) = body.dyn_ref::<Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    Err(type_error(
        "xborder: a body must be a string or a Uint8Array",
    ))
}

/// One secret or an array of them (a key rotation).
fn secret_list(secrets: &JsValue) -> Result<Vec<String>, JsValue> {
    if let Some(s) = secrets.as_string() {
        return Ok(vec![s]);
    }
    if Array::is_array(secrets) {
        return Array::from(secrets)
            .iter()
            .map(|s| {
                s.as_string()
                    .ok_or_else(|| type_error("xborder: every secret must be a string"))
            })
            .collect();
    }
    Err(type_error(
        "xborder: secrets must be a string or an array of strings",
    ))
}

fn is_absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// A JS value as a JSON document (`undefined` reads as `null`).
fn json_in(v: &JsValue) -> Result<Value, JsValue> {
    if v.is_undefined() {
        return Ok(Value::Null);
    }
    let code = beneficiary::MalformedJson.code();
    let text = json_text(v)
        .map_err(|_| error(code, format!("{code}: the value cannot be written as JSON")))?;
    match text.as_string() {
        None => Ok(Value::Null),
        Some(text) => serde_json::from_str(&text).map_err(|e| error(code, format!("{code}: {e}"))),
    }
}

/// A JSON document as a plain JS value.
fn json_out(v: &Value) -> JsValue {
    JSON::parse(&v.to_string()).unwrap_or(JsValue::NULL)
}

fn object(pairs: Map<String, Value>) -> JsValue {
    json_out(&Value::Object(pairs))
}

fn envelope_js(env: &Envelope) -> JsValue {
    make_envelope(
        env.id(),
        env.event(),
        env.kind().as_str(),
        env.entity_id(),
        env.entity_type(),
        env.raw_data().map(str::to_owned),
    )
}

/// A JSON object from `(key, value)` pairs. Built by hand rather than with `json!`, whose
/// `to_value(..).unwrap()` per field pulls serde's value serializer and a panic path into the
/// module.
fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut out = Map::new();
    for (k, v) in pairs {
        out.insert(k.to_owned(), v);
    }
    Value::Object(out)
}

fn rejected_js(e: &RegistrationError) -> Option<Value> {
    match e {
        RegistrationError::ValidationFailed { rejected } => Some(Value::Array(
            rejected
                .iter()
                .map(|r| {
                    obj(vec![
                        ("event", r.event.as_str().into()),
                        ("reason", r.reason.as_str().into()),
                    ])
                })
                .collect(),
        )),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Panics

#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        // The instance is left in an unknown state: the next call gets a fresh one.
        wasm_bindgen::handler::schedule_reinit();
        wasm_bindgen::throw_val(error(
            "INTERNAL_ERROR",
            format!("INTERNAL_ERROR: xborder-wasm hit a bug ({info}); the module was reset, objects created before (Receiver) must be created again"),
        ));
    }));
}

/// A call with no argument: after a panic, wasm-bindgen replaces the instance on the next call.
#[doc(hidden)]
#[wasm_bindgen(js_name = __xborderReset)]
pub fn reset() {}

/// For the package's own tests: panics, to show the hook turns it into an `XborderError`.
#[doc(hidden)]
#[wasm_bindgen(js_name = __panicForTests)]
#[allow(clippy::panic)]
pub fn panic_for_tests() {
    panic!("deliberate panic for the panic-recovery test");
}

// ---------------------------------------------------------------------------------------------
// Events

/// `event.classify`: `{kind, entity?, action?}` against the built-in catalog.
#[wasm_bindgen(js_name = classifyEvent)]
pub fn classify_event(name: &str) -> JsValue {
    let c = Catalog::builtin().classify_name(name);
    let mut out = Map::new();
    out.insert("kind".into(), c.kind.as_str().into());
    if let Some(parts) = c.parts {
        out.insert("entity".into(), parts.entity().into());
        out.insert("action".into(), parts.action().into());
    }
    object(out)
}

/// `event.check_registration`: `{ok: true, events}` or `{ok: false, code, rejected?}`.
#[wasm_bindgen(js_name = checkRegistration)]
pub fn check_registration(events: Vec<String>, existing_webhooks: Option<u32>) -> JsValue {
    let mut out = Map::new();
    match Catalog::builtin().check_registration(&events, existing_webhooks.unwrap_or(0)) {
        Ok(reg) => {
            out.insert("ok".into(), true.into());
            out.insert("events".into(), reg.events().into());
        }
        Err(e) => {
            out.insert("ok".into(), false.into());
            out.insert("code".into(), e.code().into());
            if let Some(rejected) = rejected_js(&e) {
                out.insert("rejected".into(), rejected);
            }
        }
    }
    object(out)
}

/// The JSON body of `POST /v1/webhooks`; throws `VALIDATION_FAILED` (with `rejected`) or
/// `WEBHOOK_LIMIT_REACHED`.
#[wasm_bindgen(js_name = createWebhookBody)]
pub fn create_webhook_body(
    events: Vec<String>,
    url: &str,
    existing_webhooks: Option<u32>,
) -> Result<String, JsValue> {
    Catalog::builtin()
        .check_registration(&events, existing_webhooks.unwrap_or(0))
        .map(|reg| reg.create_webhook_body(url))
        .map_err(|e| {
            let rejected = rejected_js(&e).map_or(JsValue::UNDEFINED, |r| json_out(&r));
            xb_error(e.code(), &e.to_string(), None, rejected)
        })
}

/// `event.matches`: whether a delivered event is covered by the subscriptions.
#[wasm_bindgen(js_name = eventMatches)]
pub fn event_matches(subscriptions: Vec<String>, event: &str) -> bool {
    Catalog::builtin().matches(&subscriptions, event)
}

// ---------------------------------------------------------------------------------------------
// Signatures and envelopes

/// `signature.sign`: lowercase hex HMAC-SHA256 of the body's bytes.
#[wasm_bindgen]
pub fn sign(secret: &str, body: JsValue) -> Result<String, JsValue> {
    signature::sign(secret.as_bytes(), &body_bytes(&body)?).map_err(signature_error)
}

/// `signature.verify`: returns when one of the secrets signed the body, throws otherwise.
#[wasm_bindgen]
pub fn verify(secrets: JsValue, body: JsValue, signature: Option<String>) -> Result<(), JsValue> {
    let secrets = secret_list(&secrets)?;
    let body = body_bytes(&body)?;
    signature::verify(&secrets, &body, signature.as_deref()).map_err(signature_error)
}

/// `envelope.decode`: the envelope, `data` parsed on first access; throws with `code`/`field`.
#[wasm_bindgen(js_name = decodeEnvelope)]
pub fn decode_envelope(body: JsValue) -> Result<JsValue, JsValue> {
    Envelope::decode(&body_bytes(&body)?)
        .map(|env| envelope_js(&env))
        .map_err(|e| envelope_error(&e))
}

/// Verifies, decodes, classifies and dedupes webhook deliveries, with an in-memory window of
/// committed ids.
#[wasm_bindgen(js_name = Receiver)]
pub struct WasmReceiver {
    inner: delivery::Receiver,
}

#[wasm_bindgen(js_class = Receiver)]
impl WasmReceiver {
    /// Keys the receiver (one secret, or several during a rotation); `window` committed ids are
    /// remembered (10,000 by default). Throws `EMPTY_SECRET`.
    #[wasm_bindgen(constructor)]
    pub fn new(secrets: JsValue, window: Option<u32>) -> Result<WasmReceiver, JsValue> {
        let secrets = secret_list(&secrets)?;
        let window = window.map_or(DEFAULT_WINDOW, |w| w as usize);
        delivery::Receiver::new(&secrets, window)
            .map(|inner| WasmReceiver { inner })
            .map_err(signature_error)
    }

    /// Decides one delivery: `{action, envelope?, error?}`. Remembers nothing: call `commit`
    /// after persisting a processed event.
    pub fn receive(&self, body: JsValue, signature: Option<String>) -> Result<JsValue, JsValue> {
        let body = body_bytes(&body)?;
        let decision = self.inner.receive(&body, signature.as_deref());
        let out = js_sys::Object::new();
        set(&out, "action", &decision.action().into())?;
        if let Some(env) = decision.envelope() {
            set(&out, "envelope", &envelope_js(env))?;
        }
        if let Some(e) = decision.error() {
            let err = xb_error(
                e.code(),
                &e.to_string(),
                e.field().map(str::to_owned),
                JsValue::UNDEFINED,
            );
            set(&out, "error", &err)?;
        }
        Ok(out.into())
    }

    /// Records an event id as processed (call it once the event is persisted).
    pub fn commit(&mut self, id: &str) -> Result<(), JsValue> {
        self.inner.commit(id).map_err(|e| error(e.code(), e))
    }
}

fn set(target: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(target, &key.into(), value).map(|_| ())
}

// ---------------------------------------------------------------------------------------------
// Beneficiaries

fn rules_in(rules: &JsValue) -> Result<Option<ValidationRules>, JsValue> {
    if is_absent(rules) {
        return Ok(None);
    }
    Ok(Some(ValidationRules::from_value(&json_in(rules)?)))
}

/// `beneficiary.validate`: `{valid, issues: [{path, code}]}`, every issue.
#[wasm_bindgen(js_name = validateBeneficiary)]
pub fn validate_beneficiary(
    draft: JsValue,
    rules: JsValue,
    banks: JsValue,
) -> Result<JsValue, JsValue> {
    let draft = json_in(&draft)?;
    let rules = rules_in(&rules)?;
    let banks = if is_absent(&banks) {
        None
    } else {
        let banks = json_in(&banks)?;
        let country = banks
            .get("country")
            .and_then(Value::as_str)
            .ok_or_else(|| type_error("xborder: banks must be {country: string, response}"))?;
        BankList::from_value(country, banks.get("response").unwrap_or(&Value::Null))
    };
    let v = beneficiary::validate(&draft, rules.as_ref(), banks.as_ref());
    let issues: Vec<Value> = v
        .issues
        .iter()
        .map(|i| {
            obj(vec![
                ("path", i.path.as_str().into()),
                ("code", i.code.as_str().into()),
            ])
        })
        .collect();
    Ok(json_out(&obj(vec![
        ("valid", v.valid().into()),
        ("issues", issues.into()),
    ])))
}

/// The fields a form must ask for: `[{path, description, source}]`, parents before children.
#[wasm_bindgen(js_name = requiredFields)]
pub fn required_fields(
    rules: JsValue,
    payment_type: &str,
    country: &str,
) -> Result<JsValue, JsValue> {
    let rules = rules_in(&rules)?;
    let fields: Vec<Value> = beneficiary::required_fields(rules.as_ref(), payment_type, country)
        .iter()
        .map(|f| {
            obj(vec![
                ("path", f.path.as_str().into()),
                ("description", f.description.as_str().into()),
                ("source", f.source.as_str().into()),
            ])
        })
        .collect();
    Ok(json_out(&Value::Array(fields)))
}

// ---------------------------------------------------------------------------------------------
// Pagination

/// `pagination.query`: the query string of a list call (without `?`); throws `INVALID_*`.
#[wasm_bindgen(js_name = listQuery)]
pub fn list_query(params: JsValue) -> Result<String, JsValue> {
    ListParams::from_value(&json_in(&params)?)
        .map(|p| p.to_query())
        .map_err(pagination_error)
}

/// `pagination.info`: the facts of one page; `request` (the list parameters sent) supplies
/// what a `{data, total, hasNext}` response leaves out. Throws `MALFORMED_RESPONSE`,
/// `INVALID_PAGE_SIZE`, `OUT_OF_RANGE` (or the request's `INVALID_*`).
#[wasm_bindgen(js_name = pageInfo)]
pub fn page_info(response: JsValue, request: JsValue) -> Result<JsValue, JsValue> {
    let request = if is_absent(&request) {
        None
    } else {
        let p = ListParams::from_value(&json_in(&request)?).map_err(pagination_error)?;
        Some((p.page, p.page_size))
    };
    let info = pagination::page_info(&json_in(&response)?, request).map_err(pagination_error)?;
    Ok(json_out(&obj(vec![
        ("total", info.total.into()),
        ("page", info.page.into()),
        ("pageSize", info.page_size.into()),
        ("totalPages", info.total_pages.into()),
        ("hasNext", info.has_next.into()),
        ("hasPrevious", info.has_previous.into()),
        ("firstItem", info.first_item.into()),
        ("lastItem", info.last_item.into()),
        ("nextPage", info.next_page.into()),
    ])))
}
