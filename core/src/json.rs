//! The one error every module reports for a JSON input that is not JSON at all.

use std::fmt;

/// A JSON input that is not JSON at all.
///
/// ```
/// let err = xborder_core::beneficiary::ValidationRules::from_json("{").unwrap_err();
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
