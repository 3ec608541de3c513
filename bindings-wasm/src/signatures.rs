//! Signatures and receiving (the full module only, feature `webhooks`): `sign`, `verify`,
//! `decodeEnvelope` and the `Receiver`.

use wasm_bindgen::prelude::*;
use xborder_core::delivery::{self, Decision, ReceiveError, DEFAULT_WINDOW};
use xborder_core::envelope::Envelope;
use xborder_core::signature::{self, SignatureError};

use crate::errors::coded;
use crate::events::WasmCatalog;
use crate::json::{count, js_object};

#[wasm_bindgen(module = "/js/imports/errors.js")]
extern "C" {
    /// The `XborderError` of a signature that does not match the body: core's code and message,
    /// and the glue's hint about the raw body (the usual cause in JS: a re-serialised body).
    #[wasm_bindgen(js_name = xbMismatch)]
    fn xb_mismatch(code: &str, message: &str) -> JsValue;
}

#[wasm_bindgen(module = "/js/imports/envelope.js")]
extern "C" {
    /// The envelope view (`Envelope`: `data` parsed from the raw text on first access).
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

fn signature_error(e: SignatureError) -> JsValue {
    match e {
        SignatureError::SignatureMismatch => xb_mismatch(e.code(), &e.to_string()),
        _ => coded(&e),
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

pub(crate) fn envelope_js(env: &Envelope) -> JsValue {
    make_envelope(
        env.id(),
        env.event(),
        env.kind().as_str(),
        env.entity_id(),
        env.entity_type(),
        env.raw_data().map(str::as_bytes),
    )
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
        .map_err(|e| coded(&e))
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
        decision_js(&self.decide(body, None, &signature, &values))
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
        decision_js(&self.decide(body, Some(tags), &signature, &values))
    }

    /// Records an event id as processed (call it once the event is persisted).
    pub fn commit(&self, id: &str) -> Result<(), JsValue> {
        self.inner.commit(id).map_err(|e| coded(&e))
    }
}

impl WasmReceiver {
    /// Core's receiver (the catch-up decides a recovered event with it).
    #[cfg(feature = "api")]
    pub(crate) fn inner(&self) -> &delivery::Receiver {
        &self.inner
    }

    /// Core's decision on one delivery: the header as `receive` takes it; `tags` the host's
    /// HMACs (`receive_with_tags`), or none (the module's own).
    pub(crate) fn decide(
        &self,
        body: &[u8],
        tags: Option<&[u8]>,
        signature: &Option<String>,
        values: &Option<Vec<String>>,
    ) -> Decision {
        match (header_of(signature, values), tags) {
            (Ok(header), Some(tags)) => self.inner.receive_with_tags(body, header, &tags_of(tags)),
            (Ok(header), None) => self.inner.receive(body, header),
            (Err(e), _) => Decision::Reject(ReceiveError::Signature(e)),
        }
    }
}

/// A decision's error as an `XborderError` (a mismatch with the glue's hint about the raw body).
pub(crate) fn receive_error_js(e: &ReceiveError) -> JsValue {
    match e {
        ReceiveError::Signature(e) => signature_error(*e),
        _ => coded(e),
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
        set(&out, "error", &receive_error_js(e))?;
    }
    // What to answer the provider (core's `Decision::reply`): `{status, retryAfter}`.
    let reply = decision.reply();
    let retry_after = reply
        .retry_after_s
        .map_or(JsValue::NULL, |s| JsValue::from_f64(s as f64));
    let reply = js_object(&[
        ("status", JsValue::from_f64(f64::from(reply.status))),
        ("retryAfter", retry_after),
    ]);
    set(&out, "reply", &reply)?;
    Ok(out.into())
}

fn set(target: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(target, &key.into(), value).map(|_| ())
}
