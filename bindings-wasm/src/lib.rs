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
//!   is honoured, `undefined` dropped, non-finite numbers refused) and Rust walks that data into
//!   a `serde_json::Value` equal to what serde_json would parse from the JSON text. No JSON text
//!   is parsed in the module (the envelope is read by the core's scanner), and the only JSON it
//!   writes is the webhook registration body (strings): that keeps a JSON parser, number
//!   conversion and float formatting out of it (most of its size once).
//! - Errors are `XborderError` instances (`name`, `code`, `field`, `rejected` where they
//!   apply); validation results are plain objects.
//! - A panic (none is expected) becomes an `XborderError` with code `INTERNAL_ERROR`, and the
//!   module is re-instantiated before the next call.

use std::fmt::Display;

use js_sys::{Array, Object, Reflect};
use serde_json::{Map, Number, Value};
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

    /// `JSON.parse(JSON.stringify(value))`, throwing on a non-finite number.
    #[wasm_bindgen(js_name = plainJson, catch)]
    fn plain_json(value: &JsValue) -> Result<JsValue, JsValue>;

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

/// `field` is the parameter or filter key of `INVALID_FILTER` and `UNKNOWN_PARAMETER`.
fn pagination_error(e: &PaginationError) -> JsValue {
    xb_error(
        e.code(),
        &e.to_string(),
        e.field().map(str::to_owned),
        JsValue::UNDEFINED,
    )
}

/// A count (`existingWebhooks`, `window`), checked in JavaScript to be absent or a
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
/// lone surrogate, nesting over serde_json's recursion limit.
fn json_in(v: &JsValue) -> Result<Value, JsValue> {
    if v.is_undefined() {
        return Ok(Value::Null);
    }
    let code = beneficiary::MalformedJson.code();
    plain_json(v)
        .ok()
        .and_then(|plain| value_from_js(&plain, 0))
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

/// Plain JSON data (what `JSON.parse` returns) as a `Value`; `None` for what serde_json would
/// refuse in its text.
fn value_from_js(v: &JsValue, depth: usize) -> Option<Value> {
    if v.is_null() || v.is_undefined() {
        return Some(Value::Null);
    }
    if let Some(b) = v.as_bool() {
        return Some(Value::Bool(b));
    }
    if let Some(x) = v.as_f64() {
        return json_number(x, js_digits).map(Value::Number);
    }
    if v.is_string() {
        return js_string(v).map(Value::String);
    }
    if depth >= MAX_DEPTH {
        return None;
    }
    if Array::is_array(v) {
        return Array::from(v)
            .iter()
            .map(|item| value_from_js(&item, depth + 1))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array);
    }
    let object = v.dyn_ref::<Object>()?;
    let mut map = Map::new();
    for entry in Object::entries(object).iter() {
        let entry = Array::from(&entry);
        map.insert(
            js_string(&entry.get(0))?,
            value_from_js(&entry.get(1), depth + 1)?,
        );
    }
    Some(Value::Object(map))
}

/// A JS string as Rust text; `None` for a lone surrogate (serde_json refuses its escape).
fn js_string(v: &JsValue) -> Option<String> {
    if is_well_formed(v) {
        v.as_string()
    } else {
        None
    }
}

/// The number serde_json parses from the text `JSON.stringify` writes for `x`. JavaScript writes
/// an integer below 1e21 in digits (`-0` as `0`), which serde_json reads as a `u64` or `i64`
/// where they fit; from 2^53 on those digits are the shortest that round-trip, padded with
/// zeros (2^63 is written `9223372036854776000`), so they are asked of JavaScript (`digits`).
/// Anything else is a double's shortest form, read back exactly (`float_roundtrip`). `None` for
/// a non-finite number.
fn json_number(x: f64, digits: impl FnOnce(f64) -> Option<String>) -> Option<Number> {
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
        env.raw_data().map(str::to_owned),
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
    match c.parts {
        Some(parts) => js_object(&[
            ("kind", js_str(c.kind.as_str())),
            ("entity", js_str(parts.entity())),
            ("action", js_str(parts.action())),
        ]),
        None => js_object(&[("kind", js_str(c.kind.as_str()))]),
    }
}

/// `event.check_registration`: `{ok: true, events}` or `{ok: false, code, rejected?}`.
#[wasm_bindgen(js_name = checkRegistration)]
pub fn check_registration(events: Vec<String>, existing_webhooks: Option<f64>) -> JsValue {
    let existing = count(existing_webhooks).unwrap_or(0);
    match Catalog::builtin().check_registration(&events, existing) {
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

/// The JSON body of `POST /v1/webhooks`; throws `VALIDATION_FAILED` (with `rejected`) or
/// `WEBHOOK_LIMIT_REACHED`.
#[wasm_bindgen(js_name = createWebhookBody)]
pub fn create_webhook_body(
    events: Vec<String>,
    url: &str,
    existing_webhooks: Option<f64>,
) -> Result<String, JsValue> {
    let existing = count(existing_webhooks).unwrap_or(0);
    Catalog::builtin()
        .check_registration(&events, existing)
        .map(|reg| reg.create_webhook_body(url))
        .map_err(|e| {
            let rejected = rejected_js(&e).unwrap_or(JsValue::UNDEFINED);
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
pub fn sign(secret: &str, body: &[u8]) -> Result<String, JsValue> {
    signature::sign(secret.as_bytes(), body).map_err(signature_error)
}

/// `signature.verify`: returns when one of the secrets signed the body, throws otherwise. The
/// JS side passes one secret as a list of one.
#[wasm_bindgen]
pub fn verify(secrets: Vec<String>, body: &[u8], signature: Option<String>) -> Result<(), JsValue> {
    signature::verify(&secrets, body, signature.as_deref()).map_err(signature_error)
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
    /// remembered (10,000 by default). Throws `EMPTY_SECRET`.
    #[wasm_bindgen(constructor)]
    pub fn new(secrets: Vec<String>, window: Option<f64>) -> Result<WasmReceiver, JsValue> {
        let window = count(window).map_or(DEFAULT_WINDOW, |w| w as usize);
        delivery::Receiver::new(&secrets, window)
            .map(|inner| WasmReceiver { inner })
            .map_err(signature_error)
    }

    /// Decides one delivery: `{action, envelope?, error?}`. Remembers nothing: call `commit`
    /// after persisting a processed event.
    pub fn receive(&self, body: &[u8], signature: Option<String>) -> Result<JsValue, JsValue> {
        let decision = self.inner.receive(body, signature.as_deref());
        let out = js_sys::Object::new();
        set(&out, "action", &decision.action().as_str().into())?;
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
        // A country that is there but not a string is a wrong kind (TypeError); an absent one
        // is core's decision (a list for no country: BANKS_MISMATCH).
        let country = match banks.get("country") {
            None | Some(Value::Null) => None,
            Some(c) => Some(c.as_str().ok_or_else(|| {
                type_error("xborder: `banks.country` must be a string (the country the list was asked for)")
            })?),
        };
        BankList::from_parts(country, banks.get("response").unwrap_or(&Value::Null))
    };
    let v = beneficiary::validate(&draft, rules.as_ref(), banks.as_ref());
    let issues = js_array(
        v.issues
            .iter()
            .map(|i| js_object(&[("path", js_str(&i.path)), ("code", js_str(i.code.as_str()))])),
    );
    Ok(js_object(&[
        ("valid", JsValue::from_bool(v.valid())),
        ("issues", issues),
    ]))
}

/// The fields a form must ask for: `[{path, description, source}]`, parents before children.
#[wasm_bindgen(js_name = requiredFields)]
pub fn required_fields(
    rules: JsValue,
    payment_type: &str,
    country: &str,
) -> Result<JsValue, JsValue> {
    let rules = rules_in(&rules)?;
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

/// `pagination.info`: the facts of one page; `request` (the list parameters sent) supplies
/// what a `{data, total, hasNext}` response leaves out. Throws `MALFORMED_RESPONSE`,
/// `INVALID_PAGE_SIZE`, `OUT_OF_RANGE` (or the request's `INVALID_*`).
#[wasm_bindgen(js_name = pageInfo)]
pub fn page_info(response: JsValue, request: JsValue) -> Result<JsValue, JsValue> {
    let request = if is_absent(&request) {
        None
    } else {
        let p = ListParams::from_value(&json_in(&request)?).map_err(|e| pagination_error(&e))?;
        Some((p.page, p.page_size))
    };
    let info =
        pagination::page_info(&json_in(&response)?, request).map_err(|e| pagination_error(&e))?;
    Ok(js_object(&[
        ("total", js_u64(info.total)),
        ("page", js_u64(info.page)),
        ("pageSize", js_u64(info.page_size)),
        ("totalPages", js_u64(info.total_pages)),
        ("hasNext", JsValue::from_bool(info.has_next)),
        (
            "hasNextConflict",
            JsValue::from_bool(info.has_next_conflict),
        ),
        ("hasPrevious", JsValue::from_bool(info.has_previous)),
        ("firstItem", js_u64(info.first_item)),
        ("lastItem", js_u64(info.last_item)),
        ("nextPage", info.next_page.map_or(JsValue::NULL, js_u64)),
    ]))
}

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

    /// The `.d.ts` code unions are core's lists: a code added to core fails this until the
    /// package declares it (or it is listed here as one JS cannot meet).
    #[test]
    fn dts_codes_are_cores() {
        let dts = include_str!("../npm/index.d.ts");
        // Codes of core APIs the npm package does not expose yet (the catalog's own errors) or
        // reports as an issue, never as a thrown error (a routing number).
        let not_thrown_in_js = ["INVALID_EVENT_NAME", "INVALID_ROUTING_NUMBER"];
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
    }

    /// `value_from_js` takes `MAX_DEPTH` nested arrays or objects and not one more, as serde_json
    /// does reading their text (the tarball test checks the walker at both depths in Node).
    #[test]
    fn max_depth_is_serde_json_recursion_limit() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(serde_json::from_str::<Value>(&nest(MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&nest(MAX_DEPTH + 1)).is_err());
        let objects = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
        assert!(serde_json::from_str::<Value>(&objects(MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&objects(MAX_DEPTH + 1)).is_err());
    }
}
