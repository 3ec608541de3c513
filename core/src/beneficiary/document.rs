//! Documents that cannot be read: reported, never read as nothing.

use std::fmt;

use serde_json::Value;

use super::IssueCode;

/// Which server document could not be read.
///
/// ```
/// use xborder_core::beneficiary::Document;
/// assert_eq!(Document::Rules.issue_code().as_str(), "RULES_UNREADABLE");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Document {
    /// The validation-rules response (`GET /v1/validation-rules/beneficiaries`).
    Rules,
    /// The bank-list response (`GET /v1/beneficiaries/banks?countryCode=`).
    Banks,
}

impl Document {
    /// `RULES_UNREADABLE` or `BANKS_UNREADABLE`.
    ///
    /// ```
    /// use xborder_core::beneficiary::Document;
    /// assert_eq!(Document::Banks.issue_code().as_str(), "BANKS_UNREADABLE");
    /// ```
    pub fn issue_code(self) -> IssueCode {
        match self {
            Document::Rules => IssueCode::RulesUnreadable,
            Document::Banks => IssueCode::BanksUnreadable,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Document::Rules => {
                "the rules document (the response of GET /v1/validation-rules/beneficiaries)"
            }
            Document::Banks => "the bank list (the response of GET /v1/beneficiaries/banks)",
        }
    }

    fn shape(self) -> &'static str {
        match self {
            Document::Rules => {
                "{\"data\": {\"country\", \"ownerType\", \"rules\": {\"requiredFields\": [...], \"paymentTypes\": [...]}}}, or its data"
            }
            Document::Banks => "{\"data\": [{\"id\", \"name\"}, ...]}",
        }
    }
}

/// Why a document could not be read.
///
/// ```
/// use xborder_core::beneficiary::{BankList, Unreadable};
/// let e = BankList::from_value("CO", &serde_json::json!([{"id": "b1"}])).unwrap_err();
/// assert_eq!(e.reason, Unreadable::NotAnObject);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unreadable {
    /// Text that is not JSON.
    NotJson,
    /// JSON that is not an object (an array, a number, a string: a text encoded twice).
    NotAnObject,
    /// An error response (`{"error": {...}}`) instead of the document.
    ErrorBody,
    /// An object without the document's shape (`{}`, another endpoint's response, the
    /// rules unwrapped once too far, a bank list whose `data` is not an array).
    NotTheDocument,
    /// A key of the document that must be an array (`requiredFields`, `paymentTypes`) is not.
    NotAnArray(&'static str),
}

/// A document that was given and cannot be read: reported as an issue at path `""`
/// (`RULES_UNREADABLE`, `BANKS_UNREADABLE`), and none of its rules applied.
///
/// ```
/// use xborder_core::beneficiary::{Unreadable, ValidationRules};
/// let e = ValidationRules::from_json("{\"data\": {").unwrap_err();
/// assert_eq!((e.code(), e.reason), ("RULES_UNREADABLE", Unreadable::NotJson));
/// assert!(e.to_string().starts_with("the rules document"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct UnreadableDocument {
    /// Which document.
    pub document: Document,
    /// Why.
    pub reason: Unreadable,
}

impl UnreadableDocument {
    pub(super) fn new(document: Document, reason: Unreadable) -> Self {
        UnreadableDocument { document, reason }
    }

    /// `RULES_UNREADABLE` or `BANKS_UNREADABLE`.
    ///
    /// ```
    /// use xborder_core::beneficiary::BankList;
    /// assert_eq!(BankList::from_json("CO", "{}").unwrap_err().code(), "BANKS_UNREADABLE");
    /// ```
    pub fn code(&self) -> &'static str {
        self.document.issue_code().as_str()
    }
}

impl fmt::Display for UnreadableDocument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.reason {
            Unreadable::NotJson => "the text given is not JSON",
            Unreadable::NotAnObject => "it is not a JSON object (a text encoded twice, or a bare array?)",
            Unreadable::ErrorBody => "it is an error response, not the document",
            Unreadable::NotTheDocument => "it does not have the document's shape",
            Unreadable::NotAnArray(key) => {
                return write!(
                    f,
                    "{} cannot be read: its `{key}` is not an array; pass the response as received or parsed, shaped {}",
                    self.document.what(),
                    self.document.shape()
                )
            }
        };
        write!(
            f,
            "{} cannot be read: {why}; pass the response as received or parsed, shaped {}",
            self.document.what(),
            self.document.shape()
        )
    }
}

impl std::error::Error for UnreadableDocument {}

/// Reads a document as given: a JSON string is the response text, parsed once; anything else
/// is the parsed response. `read` sees the parsed object.
pub(super) fn read_value<T>(
    document: Document,
    given: &Value,
    read: impl FnOnce(&serde_json::Map<String, Value>) -> Result<T, Unreadable>,
) -> Result<T, UnreadableDocument> {
    match given {
        Value::String(text) => read_text(document, text.as_bytes(), read),
        v => read_parsed(document, v, read),
    }
}

/// Reads a document's response text (parsed once: a text whose JSON is a string is not the
/// document).
pub(super) fn read_text<T>(
    document: Document,
    text: &[u8],
    read: impl FnOnce(&serde_json::Map<String, Value>) -> Result<T, Unreadable>,
) -> Result<T, UnreadableDocument> {
    let v = crate::scan::to_value(text, crate::MAX_JSON_DEPTH)
        .map_err(|_| UnreadableDocument::new(document, Unreadable::NotJson))?;
    read_parsed(document, &v, read)
}

fn read_parsed<T>(
    document: Document,
    v: &Value,
    read: impl FnOnce(&serde_json::Map<String, Value>) -> Result<T, Unreadable>,
) -> Result<T, UnreadableDocument> {
    let obj = v
        .as_object()
        .ok_or(UnreadableDocument::new(document, Unreadable::NotAnObject))?;
    read(obj).map_err(|reason| {
        let reason = match reason {
            Unreadable::NotTheDocument if obj.contains_key("error") => Unreadable::ErrorBody,
            r => r,
        };
        UnreadableDocument::new(document, reason)
    })
}
