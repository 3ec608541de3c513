//! # xborder-wasm
//!
//! The WebAssembly face of [`xborder_core`], published on npm as `xborder-wasm`. Conversion only:
//! every rule lives in the core; this crate turns JS values into core inputs and core results
//! into JS values, with JS naming (camelCase).
//!
//! - Every parameter is checked by kind in JavaScript before the call (`js/glue.js`,
//!   `wrapApi`): a wrong kind is a `TypeError` naming the parameter, never coerced. What
//!   reaches Rust is already of its Rust type: secrets as a list of strings, bodies as bytes (a
//!   string's UTF-8 encoding), counts as non-negative integers.
//! - JSON documents (drafts, rules, bank lists, list parameters, paginated responses) are JS
//!   values. JavaScript makes them plain JSON data (`JSON.parse(JSON.stringify(v))`: `toJSON`
//!   is honoured, `undefined` dropped, non-finite numbers refused), walks it once into a tape
//!   (tags and numbers, and the text of its strings), and Rust reads the tape into a
//!   `serde_json::Value` equal to what serde_json would parse from the JSON text. The one JSON
//!   text parsed in the module is a server document given as its response text (a rules
//!   document, a bank list: a JS string), which core parses once, as every runtime does; the
//!   envelope is read by the core's scanner, and the only JSON written is the webhook
//!   registration body (strings).
//! - Errors are `XborderError` instances (`name`, `code`, `field`, `rejected` where they
//!   apply); validation results are plain objects.
//! - The signature header may be the host's header collection: the glue gathers its values,
//!   and core's `signature_header` picks the one to verify.
//! - A panic (none is expected) becomes an `XborderError` with code `INTERNAL_ERROR`, and the
//!   module is re-instantiated at once; the glue makes the objects made before again on their
//!   next call. The test hook that panics on purpose is in the `test-hooks` build only.

use std::fmt::Display;

use js_sys::{Array, Object, Reflect};
use serde_json::{Map, Number, Value};
use wasm_bindgen::prelude::*;
use xborder_core::beneficiary::{self, BeneficiaryValidator, Validation, ValidationRules};
use xborder_core::claims::{
    self, ClaimError, ClaimRules, ClaimTask, Claims, Entry, Need, DEFAULT_LEASE_MS,
};
use xborder_core::delivery::{self, Decision, ReceiveError, StoreError, DEFAULT_WINDOW};
use xborder_core::envelope::{Envelope, EnvelopeError};
use xborder_core::events::{Catalog, CatalogError, EventKind, RegistrationError};
use xborder_core::pagination::{self, Drift, ListParams, PageInfo, PageWalker, PaginationError};
use xborder_core::signature::{self, SignatureError};

#[wasm_bindgen(module = "/js/glue.js")]
extern "C" {
    #[wasm_bindgen(js_name = xbError)]
    fn xb_error(code: &str, message: &str, field: Option<String>, rejected: JsValue) -> JsValue;

    /// The `XborderError` of a signature that does not match the body: core's code and message,
    /// and the glue's hint about the raw body (the usual cause in JS: a re-serialised body).
    #[wasm_bindgen(js_name = xbMismatch)]
    fn xb_mismatch(code: &str, message: &str) -> JsValue;

    /// The tags and numbers of a JS value's JSON document (`JSON.parse(JSON.stringify(value))`,
    /// walked once), throwing on a non-finite number or what `JSON.stringify` refuses. Read by
    /// `Tape`, with the document's text (`json_tape_text`, asked right after).
    #[wasm_bindgen(js_name = jsonTape, catch)]
    fn json_tape(value: &JsValue) -> Result<Vec<f64>, JsValue>;

    /// Every string and key of the last `json_tape`'s document, one after the other.
    #[wasm_bindgen(js_name = jsonTapeText)]
    fn json_tape_text() -> String;

    /// `{total, page, pageSize, totalPages, hasNext, hasNextConflict, hasPrevious, firstItem,
    /// lastItem, nextPage}` (`nextPage` `null` when absent).
    #[wasm_bindgen(js_name = makePageInfo)]
    #[allow(clippy::too_many_arguments)]
    fn make_page_info(
        total: f64,
        page: f64,
        page_size: f64,
        total_pages: f64,
        has_next: bool,
        has_next_conflict: bool,
        has_previous: bool,
        first_item: f64,
        last_item: f64,
        next_page: Option<f64>,
    ) -> JsValue;

    /// `{valid, issues: [{path, code, message, label}]}` from every issue's texts written one
    /// after the other in `text`, `lengths` holding four numbers per issue (`validation_js`):
    /// one crossing for the whole answer.
    #[wasm_bindgen(js_name = makeValidation)]
    fn make_validation(valid: bool, text: &str, lengths: &[u32]) -> JsValue;

    /// Whether a JS string is well-formed UTF-16 (no lone surrogate).
    #[wasm_bindgen(js_name = isWellFormed)]
    fn is_well_formed(s: &JsValue) -> bool;

    #[wasm_bindgen(js_name = makeEnvelope)]
    fn make_envelope(
        id: &str,
        event: &str,
        kind: &str,
        entity_id: &str,
        entity_type: &str,
        raw_data: Option<&[u8]>,
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
    match e {
        SignatureError::SignatureMismatch => xb_mismatch(e.code(), &e.to_string()),
        _ => error(e.code(), e),
    }
}

/// The header value to verify: the one string the caller passed, or, when the glue gathered the
/// values of a header collection (Node's `IncomingHttpHeaders`, a Fetch `Headers`, a record),
/// the one core's `signature_header` picks from them (equal repeats collapse, different ones are
/// `MALFORMED_SIGNATURE`, only blanks are none).
fn header_of<'a>(
    signature: &'a Option<String>,
    values: &'a Option<Vec<String>>,
) -> Result<Option<&'a str>, SignatureError> {
    match values {
        Some(values) => signature::signature_header(values),
        None => Ok(signature.as_deref()),
    }
}

fn envelope_error(e: &EnvelopeError) -> JsValue {
    xb_error(
        e.code(),
        &e.to_string(),
        e.field().map(str::to_owned),
        JsValue::UNDEFINED,
    )
}

/// `field` is the parameter or filter key of `INVALID_FILTER` and `UNKNOWN_PARAMETER`.
fn pagination_error(e: &PaginationError) -> JsValue {
    xb_error(
        e.code(),
        &e.to_string(),
        e.field().map(str::to_owned),
        JsValue::UNDEFINED,
    )
}

/// A count (`existingWebhooks`, `window`, `capacity`), checked in JavaScript to be absent or a
/// non-negative integer number (never `+x`: not `'3'`, not `true`). Passed as an `f64`, not a
/// `u32` (wasm-bindgen would wrap 2^32 + 3 to 3): above `u32::MAX` it reads as `u32::MAX` (the
/// cast saturates), more than any limit either way.
fn count(v: Option<f64>) -> Option<u32> {
    v.map(|x| x as u32)
}

fn is_absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// A JS value as a JSON document (`undefined` reads as `null`). `MALFORMED_JSON` where the
/// text `JSON.stringify` writes would not parse in serde_json: a non-finite number, a cycle, a
/// lone surrogate, nesting over serde_json's recursion limit. The glue walks the value once into
/// a tape (`jsonTape`), read here in one pass: two calls across the boundary, whatever the size.
fn json_in(v: &JsValue) -> Result<Value, JsValue> {
    if v.is_undefined() {
        return Ok(Value::Null);
    }
    let code = beneficiary::MalformedJson.code();
    json_tape(v)
        .ok()
        .and_then(|codes| Tape::read(&codes, &json_tape_text(), js_digits))
        .ok_or_else(|| {
            error(
                code,
                format!("{code}: the value is not a JSON document the core can read (a non-finite number, a cycle, a lone surrogate, or nesting over {MAX_DEPTH} levels)"),
            )
        })
}

/// Core's limit (serde_json's recursion limit): the uniffi bindings read the same document from
/// its text with serde_json, which refuses an array or object nested deeper than this.
const MAX_DEPTH: usize = xborder_core::MAX_JSON_DEPTH;

/// A JSON document as the glue's `jsonTape` writes it, plain JSON data walked depth first:
/// `codes` holds a tag per value (0 `null`, 1 `false`, 2 `true`, 3 a number then its value, 4 a
/// string then its length in UTF-16 code units, 5 an array then its length, 6 an object then its
/// number of keys, each key a string before its value), after a first code that is 1 when a
/// string or key is not well-formed UTF-16; `text` holds every string and key, in order.
struct Tape<'a, D> {
    codes: std::slice::Iter<'a, f64>,
    text: &'a str,
    digits: D,
}

impl<'a, D: Fn(f64) -> Option<String>> Tape<'a, D> {
    /// The document; `None` for what serde_json would refuse in its text (a lone surrogate, a
    /// non-finite number, nesting over `MAX_DEPTH`), or a tape that is not one document.
    fn read(codes: &'a [f64], text: &'a str, digits: D) -> Option<Value> {
        let mut codes = codes.iter();
        if *codes.next()? != 0.0 {
            return None;
        }
        let mut tape = Tape {
            codes,
            text,
            digits,
        };
        let value = tape.value(0)?;
        (tape.codes.next().is_none() && tape.text.is_empty()).then_some(value)
    }

    fn code(&mut self) -> Option<f64> {
        self.codes.next().copied()
    }

    /// A count or length (a non-negative integer the glue wrote).
    fn len(&mut self) -> Option<usize> {
        Some(self.code()? as usize)
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        Some(match self.code()? as u8 {
            0 => Value::Null,
            1 => Value::Bool(false),
            2 => Value::Bool(true),
            3 => Value::Number(json_number(self.code()?, &self.digits)?),
            4 => Value::String(self.string()?),
            tag @ (5 | 6) if depth < MAX_DEPTH => {
                let n = self.len()?;
                if tag == 5 {
                    Value::Array(
                        (0..n)
                            .map(|_| self.value(depth + 1))
                            .collect::<Option<_>>()?,
                    )
                } else {
                    let mut map = Map::new();
                    for _ in 0..n {
                        let key = match self.code()? as u8 {
                            4 => self.string()?,
                            _ => return None,
                        };
                        map.insert(key, self.value(depth + 1)?);
                    }
                    Value::Object(map)
                }
            }
            _ => return None,
        })
    }

    /// The next string of `text`: as many characters as make its length in UTF-16 units.
    fn string(&mut self) -> Option<String> {
        let mut units = self.len()?;
        // ASCII (the usual case): one byte per unit.
        if let Some(s) = self.text.get(..units).filter(|s| s.is_ascii()) {
            self.text = self.text.get(units..)?;
            return Some(s.to_owned());
        }
        let mut end = 0;
        for c in self.text.chars() {
            if units == 0 {
                break;
            }
            units = units.checked_sub(c.len_utf16())?;
            end += c.len_utf8();
        }
        let (s, rest) = (self.text.get(..end)?, self.text.get(end..)?);
        self.text = rest;
        (units == 0).then(|| s.to_owned())
    }
}

/// The number serde_json parses from the text `JSON.stringify` writes for `x`. JavaScript writes
/// an integer below 1e21 in digits (`-0` as `0`), which serde_json reads as a `u64` or `i64`
/// where they fit; from 2^53 on those digits are the shortest that round-trip, padded with
/// zeros (2^63 is written `9223372036854776000`), so they are asked of JavaScript (`digits`).
/// Anything else is a double's shortest form, read back exactly (`float_roundtrip`). `None` for
/// a non-finite number.
fn json_number(x: f64, digits: impl Fn(f64) -> Option<String>) -> Option<Number> {
    const TWO_53: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() < 1e21 {
        if x.abs() < TWO_53 {
            return Some(if x >= 0.0 {
                Number::from(x as u64)
            } else {
                Number::from(x as i64)
            });
        }
        let digits = digits(x)?;
        if let Ok(n) = digits.parse::<u64>() {
            return Some(Number::from(n));
        }
        if let Ok(n) = digits.parse::<i64>() {
            return Some(Number::from(n));
        }
    }
    Number::from_f64(x)
}

/// The digits JavaScript writes for a number (`Number.prototype.toString`).
fn js_digits(x: f64) -> Option<String> {
    js_sys::Number::from(x)
        .to_string_with_radix(10)
        .ok()
        .map(String::from)
}

/// A JS object from `(key, value)` pairs.
fn js_object(pairs: &[(&str, JsValue)]) -> JsValue {
    let out = Object::new();
    for (k, v) in pairs {
        // Defining a property of a fresh plain object cannot fail.
        let _ = Reflect::set(&out, &JsValue::from_str(k), v);
    }
    out.into()
}

fn js_array(items: impl IntoIterator<Item = JsValue>) -> JsValue {
    items.into_iter().collect::<Array>().into()
}

fn js_str(s: &str) -> JsValue {
    JsValue::from_str(s)
}

/// A page number or count: the core keeps them at most 2^53 − 1, exact as a JS number.
fn js_u64(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}

fn envelope_js(env: &Envelope) -> JsValue {
    make_envelope(
        env.id(),
        env.event(),
        env.kind().as_str(),
        env.entity_id(),
        env.entity_type(),
        env.raw_data().map(str::as_bytes),
    )
}

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

// ---------------------------------------------------------------------------------------------
// Panics

#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        // The instance is left in an unknown state: the next call gets a fresh one.
        wasm_bindgen::handler::schedule_reinit();
        wasm_bindgen::throw_val(error(
            xborder_core::codes::INTERNAL_ERROR,
            format!("{}: xborder-wasm hit a bug ({info}); the module was reset, objects created before (Receiver) must be created again", xborder_core::codes::INTERNAL_ERROR),
        ));
    }));
}

/// A call with no argument: after a panic, wasm-bindgen replaces the instance on the next call.
#[doc(hidden)]
#[wasm_bindgen(js_name = __xborderReset)]
pub fn reset() {}

/// For the package's own tests, in the `test-hooks` build only (never in the published module):
/// panics, to show the hook turns it into an `XborderError` and the package recovers.
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
#[wasm_bindgen(js_name = __panicForTests)]
#[allow(clippy::panic)]
pub fn panic_for_tests() {
    panic!("deliberate panic for the panic-recovery test");
}

// ---------------------------------------------------------------------------------------------
// Events

/// An event catalog: the built-in one plus the names the host added. The package's free
/// functions (`classifyEvent`, `checkRegistration`, `createWebhookBody`, `eventMatches`) are
/// these methods on a built-in catalog (`js/glue.js`).
#[wasm_bindgen(js_name = Catalog)]
pub struct WasmCatalog {
    inner: Catalog,
}

impl Default for WasmCatalog {
    fn default() -> Self {
        WasmCatalog::new()
    }
}

fn catalog_error(e: CatalogError) -> JsValue {
    error(e.code(), e)
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
        self.inner.add_live(name).map_err(catalog_error)
    }

    /// Adds a wildcard `<entity>:*`; throws `INVALID_EVENT_NAME`.
    #[wasm_bindgen(js_name = addWildcard)]
    pub fn add_wildcard(&mut self, name: &str) -> Result<(), JsValue> {
        self.inner.add_wildcard(name).map_err(catalog_error)
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

    /// `event.matches`: whether a delivered event is covered by the subscriptions.
    pub fn matches(&self, subscriptions: Vec<String>, event: &str) -> bool {
        self.inner.matches(&subscriptions, event)
    }
}

// ---------------------------------------------------------------------------------------------
// Signatures and envelopes

/// The texts of `EventKind::ALL`, in order (the kinds `Catalog.__classify` gives by index).
#[doc(hidden)]
#[wasm_bindgen(js_name = __eventKinds)]
pub fn event_kinds() -> Vec<String> {
    EventKind::ALL
        .iter()
        .map(|k| k.as_str().to_owned())
        .collect()
}

/// `signature.sign`: lowercase hex HMAC-SHA256 of the body's bytes.
#[wasm_bindgen]
pub fn sign(secret: &str, body: &[u8]) -> Result<String, JsValue> {
    signature::sign(secret.as_bytes(), body).map_err(signature_error)
}

/// `signature.verify`: returns when one of the secrets signed the body, throws otherwise. The
/// JS side passes one secret as a list of one, and either the header's one value (`signature`)
/// or the values it gathered from a header collection (`values`). `EMPTY_SECRET` comes first.
#[wasm_bindgen]
pub fn verify(
    secrets: Vec<String>,
    body: &[u8],
    signature: Option<String>,
    values: Option<Vec<String>>,
) -> Result<(), JsValue> {
    let verifier = signature::Verifier::new(&secrets).map_err(signature_error)?;
    let header = header_of(&signature, &values).map_err(signature_error)?;
    verifier.verify(body, header).map_err(signature_error)
}

/// Checks the secrets as `verify` does (`EMPTY_SECRET`), for a glue that computes HMACs on the
/// host (node:crypto) and keeps the keys it checked.
#[doc(hidden)]
#[wasm_bindgen(js_name = __checkSecrets)]
pub fn check_secrets(secrets: Vec<String>) -> Result<(), JsValue> {
    signature::Verifier::new(&secrets)
        .map(|_| ())
        .map_err(signature_error)
}

/// The host's 32-byte HMAC-SHA256 tags, back to back, one per secret.
fn tags_of(tags: &[u8]) -> Vec<&[u8]> {
    tags.chunks(32).collect()
}

/// `signature.verify_tags`: `verify` with the HMACs computed by the host (`tags`, 32 bytes per
/// secret, in the secrets' order); the header as in `verify`.
#[doc(hidden)]
#[wasm_bindgen(js_name = __verifyTags)]
pub fn verify_tags(
    tags: &[u8],
    signature: Option<String>,
    values: Option<Vec<String>>,
) -> Result<(), JsValue> {
    let header = header_of(&signature, &values).map_err(signature_error)?;
    signature::verify_tags(&tags_of(tags), header).map_err(signature_error)
}

/// The name of the signature header (core's `SIGNATURE_HEADER`), for the glue to find it in a
/// header collection.
#[doc(hidden)]
#[wasm_bindgen(js_name = __signatureHeader)]
pub fn signature_header_name() -> String {
    signature::SIGNATURE_HEADER.to_owned()
}

/// `envelope.decode`: the envelope, `data` parsed on first access; throws with `code`/`field`.
#[wasm_bindgen(js_name = decodeEnvelope)]
pub fn decode_envelope(body: &[u8]) -> Result<JsValue, JsValue> {
    Envelope::decode(body)
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
    /// remembered (10,000 by default); names are classified against a copy of `catalog` (the
    /// glue passes its built-in catalog when the caller gives none). Throws `EMPTY_SECRET`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        secrets: Vec<String>,
        window: Option<f64>,
        catalog: &WasmCatalog,
    ) -> Result<WasmReceiver, JsValue> {
        let window = count(window).map_or(DEFAULT_WINDOW, |w| w as usize);
        delivery::Receiver::new(&secrets, window)
            .map(|rx| WasmReceiver {
                inner: rx.with_catalog(catalog.inner.clone()),
            })
            .map_err(signature_error)
    }

    /// Decides one delivery: `{action, envelope?, error?}`. Remembers nothing: call `commit`
    /// after persisting a processed event. The header as in `verify`: its one value, or the
    /// values gathered from a header collection (a repeat core refuses is a `reject`, as any
    /// signature error).
    pub fn receive(
        &self,
        body: &[u8],
        signature: Option<String>,
        values: Option<Vec<String>>,
    ) -> Result<JsValue, JsValue> {
        let decision = match header_of(&signature, &values) {
            Ok(header) => self.inner.receive(body, header),
            Err(e) => Decision::Reject(ReceiveError::Signature(e)),
        };
        decision_js(&decision)
    }

    /// `receive` with the HMACs computed by the host (`delivery::Receiver::receive_with_tags`):
    /// `tags` holds 32 bytes per secret, in the order the receiver was keyed with.
    #[wasm_bindgen(js_name = __receiveWithTags)]
    pub fn receive_with_tags(
        &self,
        body: &[u8],
        tags: &[u8],
        signature: Option<String>,
        values: Option<Vec<String>>,
    ) -> Result<JsValue, JsValue> {
        let decision = match header_of(&signature, &values) {
            Ok(header) => self.inner.receive_with_tags(body, header, &tags_of(tags)),
            Err(e) => Decision::Reject(ReceiveError::Signature(e)),
        };
        decision_js(&decision)
    }

    /// Records an event id as processed (call it once the event is persisted).
    pub fn commit(&mut self, id: &str) -> Result<(), JsValue> {
        self.inner.commit(id).map_err(|e| error(e.code(), e))
    }
}

/// A decision as the JS object `{action, envelope?, error?}`.
fn decision_js(decision: &Decision) -> Result<JsValue, JsValue> {
    let out = js_sys::Object::new();
    set(&out, "action", &decision.action().as_str().into())?;
    if let Some(env) = decision.envelope() {
        set(&out, "envelope", &envelope_js(env))?;
    }
    if let Some(e) = decision.error() {
        let err = match e {
            ReceiveError::Signature(e) => signature_error(*e),
            _ => xb_error(
                e.code(),
                &e.to_string(),
                e.field().map(str::to_owned),
                JsValue::UNDEFINED,
            ),
        };
        set(&out, "error", &err)?;
    }
    Ok(out.into())
}

fn set(target: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(target, &key.into(), value).map(|_| ())
}

// ---------------------------------------------------------------------------------------------
// Beneficiaries

/// A server document as the caller gave it (`rules`, `banks.response`): `None` when absent
/// (`undefined` or `null`); a JS string is the response text, handed to core as a JSON string,
/// which core parses once (`ValidationRules::from_value` / `BankList::from_value` read a
/// `Value::String` as the text); any other value is its JSON document. A string that is not
/// well-formed UTF-16 (a lone surrogate: no UTF-8 text has one) takes the tape, which refuses it
/// with `MALFORMED_JSON`, as in any other JS value.
fn document_in(v: &JsValue) -> Result<Option<Value>, JsValue> {
    if is_absent(v) {
        return Ok(None);
    }
    if let Some(text) = v.as_string().filter(|_| is_well_formed(v)) {
        return Ok(Some(Value::String(text)));
    }
    json_in(v).map(Some)
}

/// Core's validator over the documents as given (`BeneficiaryValidator::from_documents`):
/// `banks_country` and `banks` are the bank list's `country` and `response`, which the glue
/// checked by kind (`banks.country` a string when there).
fn validator_of(
    rules: &JsValue,
    banks_country: Option<String>,
    banks: &JsValue,
) -> Result<BeneficiaryValidator, JsValue> {
    let rules = document_in(rules)?;
    let banks = document_in(banks)?;
    Ok(BeneficiaryValidator::from_documents(
        rules.as_ref(),
        banks_country.as_deref(),
        banks.as_ref(),
    ))
}

/// `{valid, issues: [{path, code, message, label}]}`, made by the glue in one call
/// (`makeValidation`): each issue's path, code, message and label (when it has one) one after
/// the other in `text`; `lengths` holds four numbers per issue, the lengths in UTF-16 units of
/// the path, the code and the message, and the label's plus one (0: no label, `null`).
fn validation_js(v: &Validation) -> JsValue {
    let mut text = String::new();
    let mut lengths = Vec::with_capacity(4 * v.issues.len());
    for issue in &v.issues {
        let label = issue.label.as_deref();
        let texts = [
            Some(issue.path.as_str()),
            Some(issue.code.as_str()),
            Some(&issue.message),
            label,
        ];
        for (i, s) in texts.into_iter().enumerate() {
            let Some(s) = s else {
                lengths.push(0);
                continue;
            };
            text.push_str(s);
            let n = u32::try_from(utf16_len(s)).unwrap_or(u32::MAX);
            lengths.push(if i == 3 { n.saturating_add(1) } else { n });
        }
    }
    make_validation(v.valid(), &text, &lengths)
}

/// A text's length in UTF-16 code units (what JavaScript's `length` counts).
fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// `beneficiary.validate`: `{valid, issues}`, every issue. `rules` and `banks` (the bank list's
/// `response`, asked for `banks_country`) as `document_in` reads them; one that cannot be read
/// is an issue (`RULES_UNREADABLE`, `BANKS_UNREADABLE` at path `""`).
#[wasm_bindgen(js_name = validateBeneficiary)]
pub fn validate_beneficiary(
    draft: JsValue,
    rules: JsValue,
    banks_country: Option<String>,
    banks: JsValue,
) -> Result<JsValue, JsValue> {
    let draft = json_in(&draft)?;
    let validator = validator_of(&rules, banks_country, &banks)?;
    Ok(validation_js(&validator.validate(&draft)))
}

/// A rules document and a bank list read once (core's `BeneficiaryValidator`), to validate many
/// drafts against, only the draft crossing per call.
#[wasm_bindgen(js_name = BeneficiaryValidator)]
pub struct WasmBeneficiaryValidator {
    inner: BeneficiaryValidator,
}

#[wasm_bindgen(js_class = BeneficiaryValidator)]
impl WasmBeneficiaryValidator {
    /// Reads the rules document and the bank list (either may be absent), as
    /// `validateBeneficiary` does on every call.
    #[wasm_bindgen(constructor)]
    pub fn new(
        rules: JsValue,
        banks_country: Option<String>,
        banks: JsValue,
    ) -> Result<WasmBeneficiaryValidator, JsValue> {
        Ok(WasmBeneficiaryValidator {
            inner: validator_of(&rules, banks_country, &banks)?,
        })
    }

    /// `{valid, issues}` of one draft: the answer `validateBeneficiary(draft, rules, banks)`
    /// gives.
    pub fn validate(&self, draft: JsValue) -> Result<JsValue, JsValue> {
        let draft = json_in(&draft)?;
        Ok(validation_js(&self.inner.validate(&draft)))
    }
}

/// The fields a form must ask for: `[{path, description, source}]`, parents before children.
/// Throws `RULES_UNREADABLE` (core's sentence saying what to pass) when the rules document was
/// given and cannot be read: a form cannot be built from it.
#[wasm_bindgen(js_name = requiredFields)]
pub fn required_fields(
    rules: JsValue,
    payment_type: &str,
    country: &str,
) -> Result<JsValue, JsValue> {
    // A document whose JSON is `null` (a `toJSON` answering null) is not given, as in
    // `BeneficiaryValidator::from_documents`.
    let rules = match document_in(&rules)? {
        Some(v) if !v.is_null() => {
            Some(ValidationRules::from_value(&v).map_err(|e| error(e.code(), e))?)
        }
        _ => None,
    };
    let fields = beneficiary::required_fields(rules.as_ref(), payment_type, country);
    Ok(js_array(fields.iter().map(|f| {
        js_object(&[
            ("path", js_str(&f.path)),
            ("description", js_str(&f.description)),
            ("source", js_str(f.source.as_str())),
        ])
    })))
}

// ---------------------------------------------------------------------------------------------
// Pagination

/// `pagination.query`: the query string of a list call (without `?`); throws `INVALID_*`.
#[wasm_bindgen(js_name = listQuery)]
pub fn list_query(params: JsValue) -> Result<String, JsValue> {
    ListParams::from_value(&json_in(&params)?)
        .map(|p| p.to_query())
        .map_err(|e| pagination_error(&e))
}

/// `pagination.info`: the facts of one page, from any list envelope (`{data, total, page,
/// pageSize}`, `{data, total, hasNext}`, `{data, meta}`); `request` (the list parameters sent)
/// supplies what the response leaves out (core's defaults without it). Throws `MALFORMED_RESPONSE`,
/// `INVALID_PAGE_SIZE`, `OUT_OF_RANGE` (or the request's `INVALID_*`).
#[wasm_bindgen(js_name = pageInfo)]
pub fn page_info(response: JsValue, request: JsValue) -> Result<JsValue, JsValue> {
    let request = page_request(&request)?;
    pagination::page_info(&json_in(&response)?, request)
        .map(|info| info_js(&info))
        .map_err(|e| pagination_error(&e))
}

/// The `(page, pageSize)` of the list parameters sent, when given.
fn page_request(request: &JsValue) -> Result<Option<(u64, u64)>, JsValue> {
    if is_absent(request) {
        return Ok(None);
    }
    request_pair(&json_in(request)?)
}

fn request_pair(request: &Value) -> Result<Option<(u64, u64)>, JsValue> {
    let p = ListParams::from_value(request).map_err(|e| pagination_error(&e))?;
    Ok(Some((p.page, p.page_size)))
}

/// `pagination.info` of a response whose `data` array holds `records` items
/// (`pagination::page_info_of`): `both` is `[fields, request]` (the response's page fields,
/// `total`, `page`, `pageSize`, `hasNext` and `meta` where it has them, and the list parameters
/// sent, `null` when none), crossed in one walk. The glue's path for a plain object, so a page's
/// records never cross into the module; core reads the fields as it reads the whole response.
#[wasm_bindgen(js_name = __pageInfoOf)]
pub fn page_info_of(records: f64, both: JsValue) -> Result<JsValue, JsValue> {
    let both = json_in(&both)?;
    let (fields, request) = match both.as_array().map(Vec::as_slice) {
        Some([fields, request]) => (fields, request),
        _ => return Err(type_error("xborder: page fields and a request expected")),
    };
    let request = if request.is_null() {
        None
    } else {
        request_pair(request)?
    };
    pagination::page_info_of(records as u64, fields, request)
        .map(|info| info_js(&info))
        .map_err(|e| pagination_error(&e))
}

/// The page facts as a JS object, made by the glue in one call (numbers within 2^53 − 1).
fn info_js(info: &PageInfo) -> JsValue {
    make_page_info(
        info.total as f64,
        info.page as f64,
        info.page_size as f64,
        info.total_pages as f64,
        info.has_next,
        info.has_next_conflict,
        info.has_previous,
        info.first_item as f64,
        info.last_item as f64,
        info.next_page.map(|n| n as f64),
    )
}

fn drift_js(d: &Drift) -> JsValue {
    let code = ("code", js_str(d.code()));
    match *d {
        Drift::TotalChanged { from, to } => {
            js_object(&[code, ("from", js_u64(from)), ("to", js_u64(to))])
        }
        Drift::RepeatedRecords { count } | Drift::PossiblySkipped { count } => {
            js_object(&[code, ("count", js_u64(count))])
        }
        Drift::HasNextConflict { has_next } => {
            js_object(&[code, ("hasNext", JsValue::from_bool(has_next))])
        }
        _ => js_object(&[code]),
    }
}

/// Walks every page of a list (`pagination::PageWalker`): which query to send next, each
/// record once, the drift between pages.
#[wasm_bindgen(js_name = PageWalker)]
pub struct WasmPageWalker {
    inner: PageWalker,
}

#[wasm_bindgen(js_class = PageWalker)]
impl WasmPageWalker {
    /// Starts at `params.page` with the list parameters (filters included); throws `INVALID_*`.
    #[wasm_bindgen(constructor)]
    pub fn new(params: JsValue) -> Result<WasmPageWalker, JsValue> {
        ListParams::from_value(&json_in(&params)?)
            .map(|p| WasmPageWalker {
                inner: PageWalker::new(p),
            })
            .map_err(|e| pagination_error(&e))
    }

    /// The query string of the next request (without `?`), `null` when the walk is over.
    #[wasm_bindgen(js_name = nextQuery)]
    pub fn next_query(&self) -> Option<String> {
        self.inner.next_request().map(|p| p.to_query())
    }

    /// Whether the last page was fed.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// Feeds the response to the last query: `{fresh, info, drifts}`, `fresh` the indices in
    /// `response.data` of the records the walker passes on (the glue hands the caller its own
    /// objects at those indices).
    #[wasm_bindgen(js_name = __feed)]
    pub fn feed(&mut self, response: JsValue) -> Result<JsValue, JsValue> {
        let response = json_in(&response)?;
        let step = self
            .inner
            .feed(&response)
            .map_err(|e| pagination_error(&e))?;
        let fresh = step.fresh.iter().map(|i| JsValue::from_f64(*i as f64));
        Ok(js_object(&[
            ("fresh", js_array(fresh)),
            ("info", info_js(&step.info)),
            ("drifts", js_array(step.drift.iter().map(drift_js))),
        ]))
    }
}

// ---------------------------------------------------------------------------------------------
// Claims

fn claim_error(e: ClaimError) -> JsValue {
    xb_error(
        e.code(),
        &e.to_string(),
        e.field().map(str::to_owned),
        JsValue::UNDEFINED,
    )
}

/// A time or duration in milliseconds, checked in JavaScript to be a non-negative safe integer
/// (exact as an `f64`).
fn millis(x: f64) -> u64 {
    x as u64
}

/// The rules of claims: `lease_ms` (core's default when absent) and `window_ms`.
fn claim_rules(lease_ms: Option<f64>, window_ms: Option<f64>) -> ClaimRules {
    let rules = ClaimRules::new(lease_ms.map_or(DEFAULT_LEASE_MS, millis));
    match window_ms {
        Some(w) => rules.with_window(millis(w)),
        None => rules,
    }
}

/// Claims on event ids with core's in-memory store (`claims::Claims`).
#[wasm_bindgen(js_name = Claims)]
pub struct WasmClaims {
    inner: Claims,
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

fn entry_text(e: Option<Entry>) -> JsValue {
    e.map_or(JsValue::NULL, |e| js_str(&e.encode()))
}

/// `{op: 'load', id}`, `{op: 'cas', id, expected, next, ttlMs}` (entry texts, `null` for none)
/// or `{op: 'done', outcome}`; `STORE_UNAVAILABLE` for a need this binding does not know.
fn need_js(need: Need) -> Result<JsValue, JsValue> {
    Ok(match need {
        Need::Load { id } => js_object(&[("op", js_str("load")), ("id", js_str(&id))]),
        Need::CompareAndSet {
            id,
            expected,
            new,
            ttl_ms,
        } => js_object(&[
            ("op", js_str("cas")),
            ("id", js_str(&id)),
            ("expected", entry_text(expected)),
            ("next", entry_text(new)),
            ("ttlMs", ttl_ms.map_or(JsValue::NULL, js_u64)),
        ]),
        Need::Done(outcome) => js_object(&[
            ("op", js_str("done")),
            ("outcome", js_str(outcome.as_str())),
        ]),
        _ => {
            return Err(store_unavailable(
                "xborder-wasm does not know what the claim task needs",
            ))
        }
    })
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

/// talc instead of std's dlmalloc: about 7 KB smaller in the module (no threads in this build).
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(test)]
mod tests {
    use super::*;

    /// `json_number(x)` is the number serde_json parses from the text JavaScript writes for `x`.
    /// Rust's `{}` writes the same digits as `Number.prototype.toString` below 1e21 (the shortest
    /// that round-trip, padded with zeros); above, both forms read back as the same double.
    #[test]
    fn numbers_are_what_serde_json_reads_from_their_text() {
        let two53 = 9_007_199_254_740_992.0_f64;
        let two63 = 9_223_372_036_854_775_808.0_f64;
        let two64 = 18_446_744_073_709_551_616.0_f64;
        let mut xs = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            -0.1,
            1.5,
            5e-324,
            1e-7,
            123456.789,
            1e20,
            1e21,
            1e22,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            two53,
            -two53,
            two63,
            -two63,
            two64,
            -two64,
        ];
        for base in [two53, two63, two64, 1e21] {
            let mut up = base;
            let mut down = base;
            for _ in 0..4 {
                up = f64::from_bits(up.to_bits() + 1);
                down = f64::from_bits(down.to_bits() - 1);
                xs.extend([up, down, -up, -down]);
            }
        }
        for x in xs {
            let text = if x == 0.0 {
                "0".to_owned()
            } else {
                format!("{x}")
            };
            let want: Value = serde_json::from_str(&text).unwrap();
            let got = Value::Number(json_number(x, |x| Some(format!("{x}"))).unwrap());
            assert_eq!(got, want, "{x:e} written {text}");
        }
        assert_eq!(json_number(f64::NAN, |_| None), None);
        assert_eq!(json_number(f64::INFINITY, |_| None), None);
    }

    /// The SCREAMING_SNAKE string literals of the `.d.ts` type `name` (up to its `;`), following
    /// the other code types it names.
    fn dts_codes(dts: &str, name: &str) -> std::collections::BTreeSet<String> {
        let start = dts
            .find(&format!("export type {name} ="))
            .unwrap_or_else(|| panic!("index.d.ts has no type {name}"));
        let decl = &dts[start..];
        let decl = &decl[..decl.find(';').unwrap()];
        let mut out = std::collections::BTreeSet::new();
        for part in decl.split(['|', '=']).map(str::trim).skip(1) {
            if let Some(code) = part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
                out.insert(code.to_owned());
            } else if part.ends_with("Code") {
                out.extend(dts_codes(dts, part));
            }
        }
        out
    }

    /// The `.d.ts` code unions (`ErrorCode`, `IssueCode`, `DriftCode`) are core's lists: a code
    /// added to core fails this until the package declares it (or it is listed here as one JS
    /// cannot meet).
    #[test]
    fn dts_codes_are_cores() {
        let dts = include_str!("../npm/index.d.ts");
        // Codes the npm package reports as an issue, never as a thrown error.
        // BANKS_UNREADABLE: no function that throws takes a bank list (`requiredFields` throws
        // RULES_UNREADABLE); validation reports it as an issue.
        let not_thrown_in_js = ["INVALID_ROUTING_NUMBER", "BANKS_UNREADABLE"];
        let core: std::collections::BTreeSet<String> = xborder_core::codes::ERRORS
            .iter()
            .filter(|c| !not_thrown_in_js.contains(c))
            .map(|c| (*c).to_owned())
            .collect();
        assert_eq!(dts_codes(dts, "ErrorCode"), core);
        let issues: std::collections::BTreeSet<String> = xborder_core::codes::ISSUES
            .iter()
            .map(|c| (*c).to_owned())
            .collect();
        assert_eq!(dts_codes(dts, "IssueCode"), issues);
        let drifts: std::collections::BTreeSet<String> = xborder_core::codes::DRIFTS
            .iter()
            .map(|c| (*c).to_owned())
            .collect();
        assert_eq!(dts_codes(dts, "DriftCode"), drifts);
    }

    /// The codes the glue reports itself (the module cannot be asked: it is not loaded, or the
    /// object's memory is gone) are core's constants.
    #[test]
    fn glue_codes_are_cores() {
        let glue = include_str!("../js/glue.js");
        for (name, code) in [
            ("NOT_INITIALIZED", xborder_core::codes::NOT_INITIALIZED),
            ("FREED_CODE", xborder_core::codes::FREED),
        ] {
            assert!(
                glue.contains(&format!("const {name} = '{code}';")),
                "glue.js: {name}"
            );
            assert!(xborder_core::codes::ERRORS.contains(&code));
        }
    }

    /// `Tape` takes `MAX_DEPTH` nested arrays or objects and not one more, as serde_json does
    /// reading their text (the tarball test checks the walk at both depths in Node).
    #[test]
    fn max_depth_is_serde_json_recursion_limit() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(serde_json::from_str::<Value>(&nest(MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&nest(MAX_DEPTH + 1)).is_err());
        let objects = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
        assert!(serde_json::from_str::<Value>(&objects(MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&objects(MAX_DEPTH + 1)).is_err());
        let arrays = |n: usize| {
            let mut codes = vec![0.0];
            codes.extend(std::iter::repeat_n([5.0, 1.0], n).flatten());
            codes.push(0.0);
            codes
        };
        assert!(Tape::read(&arrays(MAX_DEPTH), "", no_digits).is_some());
        assert!(Tape::read(&arrays(MAX_DEPTH + 1), "", no_digits).is_none());
    }

    fn no_digits(_: f64) -> Option<String> {
        None
    }

    /// A tape reads as the document serde_json parses from the text of the same value; strings
    /// are cut from the text by their UTF-16 length (astral characters are two units).
    #[test]
    fn tape_is_the_document() {
        let codes = [
            0.0, 6.0, 3.0, // {..3 keys
            4.0, 4.0, 5.0, 4.0, // "data": [4 items
            0.0, 2.0, 1.0, 3.0, -1.5, // null, true, false, -1.5
            4.0, 5.0, 4.0, 3.0, // "total": "é😀"
            4.0, 2.0, 6.0, 0.0, // "😀": {}
        ];
        let text = "datatotalé😀😀";
        let want: Value =
            serde_json::from_str(r#"{"data":[null,true,false,-1.5],"total":"é😀","😀":{}}"#)
                .unwrap();
        assert_eq!(Tape::read(&codes, text, no_digits), Some(want));
        // A lone surrogate flagged, text left over or missing, a tape that is not one value.
        let mut flagged = codes;
        flagged[0] = 1.0;
        assert_eq!(Tape::read(&flagged, text, no_digits), None);
        assert_eq!(Tape::read(&codes, "datatotalé😀😀x", no_digits), None);
        assert_eq!(Tape::read(&codes, "datatotalé😀", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 0.0, 0.0], "", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 5.0, 2.0, 0.0], "", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 6.0, 1.0, 0.0, 0.0], "", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 3.0, f64::INFINITY], "", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 9.0], "", no_digits), None);
        assert_eq!(Tape::read(&[], "", no_digits), None);
    }

    /// Strings read back whole whatever their neighbours: ASCII ones (read by length in bytes)
    /// next to ones with characters of two, three and four bytes (read character by character).
    #[test]
    fn tape_strings_ascii_and_not() {
        let pool = [
            "a",
            "é",
            "aé",
            "éa",
            "x😀y",
            "",
            "Bogotá D.C.",
            "ab",
            "€",
            "😀",
        ];
        for i in 0..pool.len() {
            for j in 0..pool.len() {
                for k in 0..pool.len() {
                    let items = [pool[i], pool[j], pool[k]];
                    let mut codes = vec![0.0, 5.0, 3.0];
                    for s in items {
                        codes.extend([4.0, utf16_len(s) as f64]);
                    }
                    let text = items.concat();
                    let want = Value::Array(items.iter().map(|s| Value::from(*s)).collect());
                    assert_eq!(
                        Tape::read(&codes, &text, no_digits),
                        Some(want),
                        "{items:?}"
                    );
                    // One unit too many for the last string: the text runs out.
                    let last = codes.len() - 1;
                    codes[last] += 1.0;
                    assert_eq!(Tape::read(&codes, &text, no_digits), None, "{items:?}");
                }
            }
        }
    }
}
