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
