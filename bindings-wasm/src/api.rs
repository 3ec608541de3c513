//! The API's error answers (`api.error`, core's `api::ApiError`): `readApiError`.

use serde_json::Value;
use wasm_bindgen::prelude::*;
use xborder_core::api::ApiError;

use crate::errors::type_error;
use crate::json::{js_array, js_object, js_str, js_u64, text_in};

/// A status as core takes it (the glue passes an integer number).
pub(crate) fn status_of(status: f64) -> Result<u16, JsValue> {
    if status.fract() == 0.0 && (0.0..=65_535.0).contains(&status) {
        Ok(status as u16)
    } else {
        Err(type_error(
            "xborder: `status` must be an HTTP status (an integer number)",
        ))
    }
}

/// Header pairs from the glue's flat list `[name, value, name, value, ...]`.
pub(crate) fn pairs(flat: &[String]) -> Vec<(&str, &str)> {
    flat.chunks_exact(2)
        .filter_map(|p| match p {
            [k, v] => Some((k.as_str(), v.as_str())),
            _ => None,
        })
        .collect()
}

/// `requestId` as sent: a string, a number (an integer within 2^53 − 1), else `null`.
fn request_id_js(id: Option<&Value>) -> JsValue {
    match id {
        Some(Value::String(s)) => js_str(s),
        Some(Value::Number(n)) => n.as_f64().map_or(JsValue::NULL, JsValue::from_f64),
        _ => JsValue::NULL,
    }
}

/// `{status, code, message, details, requestId, retry, afterMs}` (`null` for an absent one).
pub(crate) fn api_error_js(e: &ApiError) -> JsValue {
    let or_null = |s: Option<&str>| s.map_or(JsValue::NULL, js_str);
    js_object(&[
        ("status", JsValue::from_f64(f64::from(e.status))),
        ("code", or_null(e.code.as_deref())),
        ("message", or_null(e.message.as_deref())),
        (
            "details",
            e.details
                .as_ref()
                .map_or(JsValue::NULL, |d| js_array(d.iter().map(|s| js_str(s)))),
        ),
        ("requestId", request_id_js(e.request_id.as_ref())),
        ("retry", js_str(e.retry.as_str())),
        ("afterMs", e.retry.after_ms().map_or(JsValue::NULL, js_u64)),
    ])
}

/// `api.error`: the error answer of a request with `method`, read from its `status`, its
/// headers (the glue's flat list of names and values) and its body: `body` the response text,
/// or (`parsed`) the JSON text of the body the caller had parsed; none when absent.
#[wasm_bindgen(js_name = __readApiError)]
pub fn read_api_error(
    method: &str,
    status: f64,
    headers: Vec<String>,
    body: Option<String>,
    parsed: bool,
) -> Result<JsValue, JsValue> {
    let status = status_of(status)?;
    let headers = pairs(&headers);
    let e = match body {
        None => ApiError::read(method, status, &headers, None),
        Some(text) if parsed => ApiError::read(method, status, &headers, Some(&text_in(&text)?)),
        Some(text) => ApiError::read_text(method, status, &headers, &text),
    };
    Ok(api_error_js(&e))
}
