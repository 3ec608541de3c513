//! The bank list of a country (`GET /v1/beneficiaries/banks?countryCode=`) and ISO 3166-1
//! country codes.

use serde_json::{Map, Value};

use super::document::{read_text, read_value, Document, Unreadable, UnreadableDocument};
use super::rules::str_of;
use crate::countries::is_alpha2;

/// A bank of the bank list.
///
/// ```
/// let b = xborder_core::beneficiary::Bank::new("bank_co_001", Some("Bancolombia".into()));
/// assert_eq!(b.id, "bank_co_001");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Bank {
    /// The id to send as `paymentInfo.bankId`.
    pub id: String,
    /// Display name.
    pub name: Option<String>,
}

/// The bank list of one country (`GET /v1/beneficiaries/banks?countryCode=XX`). The response does
/// not repeat the country: the caller says which one it asked for.
///
/// ```
/// use xborder_core::beneficiary::BankList;
/// let banks = BankList::from_value("CO", &serde_json::json!({"data": [{"id": "b1", "name": "One"}, {"name": "no id"}]})).unwrap();
/// assert_eq!(banks.banks.len(), 1);
/// assert!(banks.contains("b1"));
/// assert_eq!(BankList::from_value("CO", &serde_json::json!({"banks": []})).unwrap_err().code(), "BANKS_UNREADABLE");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BankList {
    /// The country the list was requested for.
    pub country: String,
    /// The banks with a string id.
    pub banks: Vec<Bank>,
}

impl Bank {
    /// A bank with its id and, when known, its name.
    ///
    /// ```
    /// let b = xborder_core::beneficiary::Bank::new("b1", None);
    /// assert_eq!((b.id.as_str(), b.name), ("b1", None));
    /// ```
    pub fn new(id: impl Into<String>, name: Option<String>) -> Self {
        Bank {
            id: id.into(),
            name,
        }
    }
}

impl BankList {
    /// The bank list of `country`, built by hand (a response is read by
    /// [`from_value`](Self::from_value)).
    ///
    /// ```
    /// use xborder_core::beneficiary::{Bank, BankList};
    /// assert!(BankList::new("CO", vec![Bank::new("b1", None)]).contains("b1"));
    /// ```
    pub fn new(country: impl Into<String>, banks: Vec<Bank>) -> Self {
        BankList {
            country: country.into(),
            banks,
        }
    }

    /// Reads the response as given: parsed, or as its text (a JSON string is the response
    /// text, parsed once). A response whose `data` is not an array (the bare array, `{}`, an
    /// error body) is `BANKS_UNREADABLE`; items without a string `id` are skipped.
    ///
    /// ```
    /// use serde_json::json;
    /// use xborder_core::beneficiary::BankList;
    /// assert!(BankList::from_value("CO", &json!({"data": []})).is_ok());
    /// assert!(BankList::from_value("CO", &json!(r#"{"data": [{"id": "b1"}]}"#)).unwrap().contains("b1"));
    /// assert_eq!(BankList::from_value("CO", &json!([{"id": "b1"}])).unwrap_err().code(), "BANKS_UNREADABLE");
    /// ```
    pub fn from_value(country: &str, response: &Value) -> Result<Self, UnreadableDocument> {
        read_value(Document::Banks, response, |r| read_banks(country, r))
    }

    /// Parses the response text (bytes or a `str`) once and reads it.
    ///
    /// ```
    /// use xborder_core::beneficiary::BankList;
    /// assert!(BankList::from_json("CO", r#"{"data": [{"id": "b1"}], "requestId": 2}"#).unwrap().contains("b1"));
    /// ```
    pub fn from_json(country: &str, text: impl AsRef<[u8]>) -> Result<Self, UnreadableDocument> {
        read_text(Document::Banks, text.as_ref(), |r| read_banks(country, r))
    }

    /// Reads a bank-list response as a binding receives it: the country it was asked for, when
    /// the caller gave one, and the response. A list given without its country is a list for no
    /// country: validation reports it (`BANKS_MISMATCH` at `country`) and does not apply it.
    /// The one rule every binding follows (a bank list is given with the country it was asked for: `banks: {country, response}`).
    ///
    /// ```
    /// use serde_json::json;
    /// use xborder_core::beneficiary::{validate, BankList};
    /// let banks = BankList::from_parts(None, &json!({"data": [{"id": "b1"}]})).unwrap();
    /// let draft = json!({"ownerType": "business", "country": "CO", "paymentType": "bank_account",
    ///                    "paymentInfo": {"bankId": "b1"}});
    /// let v = validate(&draft, None, Some(&banks));
    /// assert_eq!(v.issues[0].code.as_str(), "BANKS_MISMATCH");
    /// ```
    pub fn from_parts(country: Option<&str>, response: &Value) -> Result<Self, UnreadableDocument> {
        Self::from_value(country.unwrap_or(""), response)
    }

    /// Whether `id` is one of the list's bank ids.
    ///
    /// ```
    /// use xborder_core::beneficiary::{Bank, BankList};
    /// let l = BankList::new("CO", vec![Bank::new("b2", None)]);
    /// assert!(!l.contains("b1"));
    /// ```
    pub fn contains(&self, id: &str) -> bool {
        self.banks.iter().any(|b| b.id == id)
    }
}

fn read_banks(country: &str, response: &Map<String, Value>) -> Result<BankList, Unreadable> {
    let data = response
        .get("data")
        .and_then(Value::as_array)
        .ok_or(Unreadable::NotTheDocument)?;
    let banks = data
        .iter()
        .filter_map(|b| {
            Some(Bank {
                id: b.get("id")?.as_str()?.to_owned(),
                name: str_of(b.get("name")),
            })
        })
        .collect();
    Ok(BankList {
        country: country.to_owned(),
        banks,
    })
}

/// Whether `code` is an officially assigned ISO 3166-1 alpha-2 code (upper case).
///
/// ```
/// use xborder_core::beneficiary::is_assigned_country;
/// assert!(is_assigned_country("GB"));
/// assert!(!is_assigned_country("UK"));
/// assert!(!is_assigned_country("us"));
/// ```
pub fn is_assigned_country(code: &str) -> bool {
    is_alpha2(code.as_bytes())
}
