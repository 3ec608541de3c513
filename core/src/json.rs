//! The one error every module reports for a JSON input that is not JSON at all.

use std::fmt;

/// The deepest nesting of arrays and objects a JSON document given to xborder may have:
/// serde_json's recursion limit, so a document reads alike as text (uniffi) and as a JS value
/// (WASM), which refuses one level more with `MALFORMED_JSON`.
///
/// ```
/// let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
/// assert!(serde_json::from_str::<serde_json::Value>(&nest(xborder_core::MAX_JSON_DEPTH)).is_ok());
/// assert!(serde_json::from_str::<serde_json::Value>(&nest(xborder_core::MAX_JSON_DEPTH + 1)).is_err());
/// ```
pub const MAX_JSON_DEPTH: usize = 127;

/// JSON text read into a document, with core's own parser: the answer serde_json's
/// `from_str::<Value>` gives (numbers included, objects as `serde_json::Map`s), `MalformedJson`
/// where it refuses the text (nesting deeper than [`MAX_JSON_DEPTH`] included). The one JSON
/// parser the WASM module carries: its bindings read every JS value from its JSON text with it.
///
/// ```
/// use serde_json::json;
/// let doc = xborder_core::parse_json(r#"{"country": "DE", "n": [1, -2.5e-3]}"#).unwrap();
/// assert_eq!(doc, json!({"country": "DE", "n": [1, -2.5e-3]}));
/// assert_eq!(xborder_core::parse_json("[1,]"), Err(xborder_core::MalformedJson));
/// assert_eq!(xborder_core::parse_json(r#""\ud800""#), Err(xborder_core::MalformedJson));
/// ```
pub fn parse_json(text: &str) -> Result<serde_json::Value, MalformedJson> {
    crate::scan::to_value(text.as_bytes(), MAX_JSON_DEPTH).map_err(|_| MalformedJson)
}

/// A JSON input that is not JSON at all.
///
/// ```
/// let err = xborder_core::MalformedJson;
/// assert_eq!(err.code(), "MALFORMED_JSON");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedJson;

impl MalformedJson {
    /// Stable code: `MALFORMED_JSON`.
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::MalformedJson.code(), "MALFORMED_JSON");
    /// ```
    pub fn code(&self) -> &'static str {
        "MALFORMED_JSON"
    }
}

impl fmt::Display for MalformedJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: the input is not JSON", self.code())
    }
}

impl std::error::Error for MalformedJson {}
