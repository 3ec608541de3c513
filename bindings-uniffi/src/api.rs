//! The provider's error answers (contract v4 `api.error`, core's `api::ApiError`): what an
//! answer says (code, message, details, request id) and whether to send the request again.

use std::fmt;

use serde_json::Value;
use xborder_core::api;

use crate::errors::parse_json;
use crate::XborderError;

/// One header of an HTTP answer, as the host's client got it (any case of its name).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct HttpHeader {
    /// The header's name (`Retry-After`, `retry-after`: read without regard to case).
    pub name: String,
    /// Its value, as received.
    pub value: String,
}

/// The `(name, value)` pairs core takes.
pub(crate) fn pairs(headers: &[HttpHeader]) -> Vec<(&str, &str)> {
    headers
        .iter()
        .map(|h| (h.name.as_str(), h.value.as_str()))
        .collect()
}

/// What a client may do after an error answer (core's `api::Retry`; the API takes no
/// idempotency key). Its text (`Display`) is FORMAT.md's: `after`, `check_first`, `no`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum Retry {
    /// Send the same request again, after [`ApiErrorInfo::after_ms`] when it is given (else
    /// the client's own backoff): a 429, or a 408/5xx on `GET`, `HEAD`, `OPTIONS`, `PUT`,
    /// `DELETE`.
    After,
    /// A 408/5xx on a request that may have taken effect (a `POST`): look it up before sending
    /// it again, never retry it blind.
    CheckFirst,
    /// Do not send it again as it is (every other status).
    No,
}

impl Retry {
    /// Core's advice, and its delay when it says `after`.
    fn of(r: api::Retry) -> (Retry, Option<u64>) {
        match r {
            api::Retry::After { after_ms } => (Retry::After, after_ms),
            api::Retry::CheckFirst => (Retry::CheckFirst, None),
            // Non-exhaustive in core: an advice this binding does not know yet is `no` (never
            // a blind retry). `retry_keeps_core_text` checks every advice core gives.
            _ => (Retry::No, None),
        }
    }

    /// Core's advice this variant stands for.
    fn core(self) -> api::Retry {
        match self {
            Retry::After => api::Retry::After { after_ms: None },
            Retry::CheckFirst => api::Retry::CheckFirst,
            Retry::No => api::Retry::No,
        }
    }
}

impl fmt::Display for Retry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.core().as_str())
    }
}

/// The `requestId` of an error answer: a string or an integer, as the API sent it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum RequestId {
    /// A string id (`"req_9"`).
    Text {
        /// The id.
        value: String,
    },
    /// An integer id (`41`).
    Integer {
        /// The id.
        value: i64,
    },
}

impl RequestId {
    /// Core's request id (a string, or an integer core kept); an integer beyond `i64` (above
    /// 2^63 − 1) crosses as its decimal digits in `Text`, never rounded.
    fn of(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::Text { value: s.clone() }),
            Value::Number(n) => Some(match n.as_i64() {
                Some(i) => RequestId::Integer { value: i },
                None => RequestId::Text {
                    value: n.to_string(),
                },
            }),
            _ => None,
        }
    }
}

/// An error answer of the API as core reads it (FORMAT.md `api.error`): `{"error": {"CODE",
/// "MESSAGE", "DETAILS"}, "requestId"}` (lower-case keys too; the upper-case key wins), a
/// string `error` (the message), or anything else (every field absent).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ApiErrorInfo {
    /// The HTTP status.
    pub status: u16,
    /// The API's error code (`TOO_MANY_REQUESTS`, `VALIDATION_FAILED`), when a string.
    pub code: Option<String>,
    /// The API's message, when a string.
    pub message: Option<String>,
    /// The strings of a `DETAILS` list (other items left out); absent when not a list.
    pub details: Option<Vec<String>>,
    /// `requestId`: a string or an integer, else absent.
    pub request_id: Option<RequestId>,
    /// What a client may do.
    pub retry: Retry,
    /// With `After`: the delay the answer gave (`DETAILS.retryAfterMs`, else `Retry-After` in
    /// seconds times 1000); absent otherwise, or when it gave none.
    pub after_ms: Option<u64>,
}

impl From<&api::ApiError> for ApiErrorInfo {
    fn from(e: &api::ApiError) -> Self {
        let (retry, after_ms) = Retry::of(e.retry);
        ApiErrorInfo {
            status: e.status,
            code: e.code.clone(),
            message: e.message.clone(),
            details: e.details.clone(),
            request_id: e.request_id.as_ref().and_then(RequestId::of),
            retry,
            after_ms,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The exported functions

/// The error answer of a request with `method` (any case), read from its `status`, `headers`
/// and body: `body_json`, the body the host parsed, as JSON text (absent: no body). Throws
/// `MALFORMED_JSON` when `body_json` is not JSON (for the response text as received, take
/// [`read_api_error_text`]).
#[uniffi::export(default(headers = [], body_json = None))]
pub fn read_api_error(
    method: String,
    status: u16,
    headers: Vec<HttpHeader>,
    body_json: Option<String>,
) -> Result<ApiErrorInfo, XborderError> {
    let body = body_json
        .map(|text| parse_json(&text, "body_json"))
        .transpose()?;
    Ok(ApiErrorInfo::from(&api::ApiError::read(
        &method,
        status,
        &pairs(&headers),
        body.as_ref(),
    )))
}

/// [`read_api_error`] from the response `text` as received (before `headers`, which may be
/// left out): parsed once by core; a text that is not JSON (an HTML error page, nothing) reads
/// as no body.
#[uniffi::export(default(headers = []))]
pub fn read_api_error_text(
    method: String,
    status: u16,
    text: String,
    headers: Vec<HttpHeader>,
) -> ApiErrorInfo {
    ApiErrorInfo::from(&api::ApiError::read_text(
        &method,
        status,
        &pairs(&headers),
        &text,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, value: &str) -> HttpHeader {
        HttpHeader {
            name: name.into(),
            value: value.into(),
        }
    }

    /// Every advice core gives crosses with core's text, and `after` with its delay.
    #[test]
    fn retry_keeps_core_text() {
        for (core, ours, text) in [
            (
                api::Retry::After {
                    after_ms: Some(1_500),
                },
                (Retry::After, Some(1_500)),
                "after",
            ),
            (
                api::Retry::CheckFirst,
                (Retry::CheckFirst, None),
                "check_first",
            ),
            (api::Retry::No, (Retry::No, None), "no"),
        ] {
            assert_eq!(Retry::of(core), ours);
            assert_eq!(ours.0.to_string(), text);
            assert_eq!(core.as_str(), text);
        }
    }

    #[test]
    fn an_answer_is_read_as_core_reads_it() -> Result<(), XborderError> {
        let body = r#"{"error": {"CODE": "TOO_MANY_REQUESTS", "MESSAGE": "Slow down",
            "DETAILS": {"retryAfterMs": 1500}}, "requestId": 41}"#;
        let e = read_api_error("POST".into(), 429, vec![], Some(body.into()))?;
        assert_eq!(
            e,
            ApiErrorInfo {
                status: 429,
                code: Some("TOO_MANY_REQUESTS".into()),
                message: Some("Slow down".into()),
                details: None,
                request_id: Some(RequestId::Integer { value: 41 }),
                retry: Retry::After,
                after_ms: Some(1_500),
            }
        );
        let e = read_api_error_text(
            "get".into(),
            503,
            "<html>oops</html>".into(),
            vec![header("retry-AFTER", " 3 ")],
        );
        assert_eq!(
            (e.code, e.retry, e.after_ms, e.request_id),
            (None, Retry::After, Some(3_000), None)
        );
        let e = read_api_error_text(
            "POST".into(),
            400,
            r#"{"error": {"code": "X", "details": ["a", 3]}, "requestId": "req_9"}"#.into(),
            vec![],
        );
        assert_eq!(e.details, Some(vec!["a".to_owned()]));
        assert_eq!(
            e.request_id,
            Some(RequestId::Text {
                value: "req_9".into()
            })
        );
        assert_eq!(e.retry, Retry::No);
        let big = read_api_error_text(
            "GET".into(),
            404,
            r#"{"requestId": 18446744073709551615}"#.into(),
            vec![],
        );
        assert_eq!(
            big.request_id,
            Some(RequestId::Text {
                value: "18446744073709551615".into()
            })
        );
        let e = read_api_error("GET".into(), 500, vec![], Some("{".into())).unwrap_err();
        assert_eq!(e.error_code(), "MALFORMED_JSON");
        Ok(())
    }
}
