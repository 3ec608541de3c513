//! [`ApiError`]: an error answer of the provider's API, read into its parts.

use serde_json::Value;

use super::Retry;
use crate::pagination::MAX_SAFE_INTEGER;

/// An error answer of the provider's API: `{"error": {"CODE", "MESSAGE", "DETAILS"},
/// "requestId"}` (also with lower-case keys; the upper-case key wins when both are there), or
/// `{"error": "text"}`, read into its parts, with what a client may do next ([`Retry`]).
/// Anything else reads as no fields: reading never fails.
///
/// ```
/// use serde_json::json;
/// use xborder_core::api::{ApiError, Retry};
/// let body = json!({"error": {"CODE": "TOO_MANY_REQUESTS", "MESSAGE": "Slow down",
///     "DETAILS": {"retryAfterMs": 1500}}, "requestId": 41});
/// let e = ApiError::read("POST", 429, &[], Some(&body));
/// assert_eq!(e.code.as_deref(), Some("TOO_MANY_REQUESTS"));
/// assert_eq!(e.retry, Retry::After { after_ms: Some(1_500) });
/// assert_eq!(e.request_id, Some(json!(41)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// `error.CODE` (or `error.code`) when a string.
    pub code: Option<String>,
    /// `error.MESSAGE` (or `error.message`) when a string; the text of `{"error": "text"}`.
    pub message: Option<String>,
    /// The strings of an `error.DETAILS` list (other items left out); `None` when it is absent
    /// or not a list.
    pub details: Option<Vec<String>>,
    /// `requestId`, a string or an integer, as it was sent.
    pub request_id: Option<Value>,
    /// What the client may do.
    pub retry: Retry,
}

/// `error.KEY` or, when absent, `error.key`.
fn field<'a>(error: &'a Value, upper: &str) -> Option<&'a Value> {
    error
        .get(upper)
        .or_else(|| error.get(upper.to_ascii_lowercase()))
}

/// `Retry-After` as seconds: 1–9 ASCII digits, ASCII spaces around them allowed (an HTTP date
/// is not read).
fn retry_after_ms(value: &str) -> Option<u64> {
    let digits = value.trim_matches(' ');
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok().map(|s| s * 1_000)
}

impl ApiError {
    /// Reads an error answer: the request's `method`, the answer's `status`, its headers
    /// (name, value; names in any case) and its body parsed (`None`: no body).
    ///
    /// ```
    /// use serde_json::json;
    /// use xborder_core::api::{ApiError, Retry};
    /// let e = ApiError::read("GET", 503, &[("retry-after", "10")], None);
    /// assert_eq!((e.code, e.retry), (None, Retry::After { after_ms: Some(10_000) }));
    /// let e = ApiError::read("DELETE", 404, &[], Some(&json!({"error": "Not found"})));
    /// assert_eq!((e.message.as_deref(), e.retry), (Some("Not found"), Retry::No));
    /// ```
    pub fn read(
        method: &str,
        status: u16,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> ApiError {
        let error = body.and_then(|b| b.get("error"));
        let object = error.filter(|e| e.is_object());
        let text = |key: &str| {
            object
                .and_then(|e| field(e, key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let message = match error {
            Some(Value::String(s)) => Some(s.clone()),
            _ => text("MESSAGE"),
        };
        let details_value = object.and_then(|e| field(e, "DETAILS"));
        let details = details_value.and_then(Value::as_array).map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        });
        let request_id = body
            .filter(|b| b.is_object())
            .and_then(|b| b.get("requestId"))
            .filter(|r| r.is_string() || r.is_i64() || r.is_u64())
            .cloned();
        let from_body = details_value
            .and_then(|d| d.get("retryAfterMs"))
            .and_then(Value::as_f64)
            .filter(|ms| *ms >= 0.0 && ms.fract() == 0.0 && *ms <= MAX_SAFE_INTEGER as f64)
            .map(|ms| ms as u64);
        let from_header = headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("retry-after"))
            .and_then(|(_, value)| retry_after_ms(value));
        ApiError {
            status,
            code: text("CODE"),
            message,
            details,
            request_id,
            retry: Retry::advise(method, status, from_body.or(from_header)),
        }
    }

    /// [`ApiError::read`] of the response text: parsed once; text that is not JSON reads as no
    /// body (an HTML error page from a proxy).
    ///
    /// ```
    /// use xborder_core::api::{ApiError, Retry};
    /// let e = ApiError::read_text("PATCH", 500, &[], "<html>oops</html>");
    /// assert_eq!((e.code, e.retry), (None, Retry::CheckFirst));
    /// ```
    pub fn read_text(method: &str, status: u16, headers: &[(&str, &str)], text: &str) -> ApiError {
        let body = crate::parse_json(text).ok();
        ApiError::read(method, status, headers, body.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{ApiError, Retry};

    #[test]
    fn the_upper_case_key_wins_and_kinds_are_checked() {
        let body = json!({"error": {"CODE": "A", "code": "a", "message": "m", "MESSAGE": 5,
            "details": ["x", {"y": 1}, "z"]}, "requestId": 41.5});
        let e = ApiError::read("GET", 400, &[], Some(&body));
        assert_eq!(e.code.as_deref(), Some("A"));
        assert_eq!(e.message, None, "MESSAGE is there and not a string");
        assert_eq!(e.details, Some(vec!["x".to_owned(), "z".to_owned()]));
        assert_eq!(e.request_id, None);
        assert_eq!(e.retry, Retry::No);
    }

    #[test]
    fn retry_after_is_read_within_its_limits() {
        let after = |v: &str| {
            ApiError::read("GET", 503, &[("RETRY-AFTER", v)], None)
                .retry
                .after_ms()
        };
        assert_eq!(after("  7 "), Some(7_000));
        assert_eq!(after("999999999"), Some(999_999_999_000));
        assert_eq!(after("1000000000"), None, "ten digits");
        assert_eq!(after(""), None);
        assert_eq!(after("\t7"), None, "only ASCII spaces around");
        assert_eq!(after("-1"), None);
        assert_eq!(after("1.5"), None);
        let body = json!({"error": {"DETAILS": {"retryAfterMs": 1500.0}}});
        let e = ApiError::read("GET", 429, &[("Retry-After", "9")], Some(&body));
        assert_eq!(e.retry.after_ms(), Some(1_500), "the body's delay wins");
        let body = json!({"error": {"DETAILS": {"retryAfterMs": 1.5}}});
        let e = ApiError::read("GET", 429, &[("Retry-After", "9")], Some(&body));
        assert_eq!(e.retry.after_ms(), Some(9_000), "a fraction is not read");
    }

    #[test]
    fn text_that_is_not_an_error_body_reads_as_nothing() {
        for text in [
            "",
            "null",
            "42",
            "\"x\"",
            "[1]",
            "{\"error\": 5}",
            "{",
            "<html/>",
        ] {
            let e = ApiError::read_text("POST", 502, &[], text);
            assert_eq!(
                (e.code, e.message, e.details, e.request_id, e.retry),
                (None, None, None, None, Retry::CheckFirst),
                "{text}"
            );
        }
        let e = ApiError::read_text("post", 400, &[], r#"{"requestId": "r1"}"#);
        assert_eq!(e.request_id, Some(json!("r1")));
    }

    #[test]
    fn statuses_and_methods() {
        for m in ["GET", "head", "Options", "PUT", "delete"] {
            for s in [408, 500, 502, 503, 504, 429] {
                assert_eq!(Retry::advise(m, s, None).as_str(), "after", "{m} {s}");
            }
        }
        for m in ["POST", "PATCH", "CONNECT", ""] {
            for s in [408, 500, 502, 503, 504] {
                assert_eq!(Retry::advise(m, s, Some(1)), Retry::CheckFirst, "{m} {s}");
            }
            assert_eq!(Retry::advise(m, 429, Some(1)).after_ms(), Some(1));
        }
        for s in [200, 400, 401, 403, 404, 409, 422, 501, 505] {
            assert_eq!(Retry::advise("GET", s, Some(1)), Retry::No, "{s}");
        }
    }
}
