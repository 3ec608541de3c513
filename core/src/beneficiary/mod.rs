//! Beneficiary drafts checked before `POST /v1/beneficiaries`: every problem, at its field.
//!
//! The fixed rules of the provider's API hold with or without a rules document: `bank_account` to
//! `US` needs `paymentInfo.routingNumber` (a valid ABA number); `bank_account` elsewhere needs
//! `paymentInfo.bankId`, one of that country's bank ids when a bank list is given. The server's
//! validation-rules document adds required fields (presence only). A rules document or bank list
//! for another country or owner type is reported and not applied; one that cannot be read is
//! reported (`RULES_UNREADABLE`, `BANKS_UNREADABLE`) and not applied. Account details (IBAN,
//! BIC, CLABE, CBU, CUIT, IFSC, sort code, BSB, Canadian branch code) are checked as banks check
//! them ([`AccountDetail`]). Every issue carries an English message that says what to fix, and
//! the rules document's description of its field as a label where it has one.

//!
//! The module by concern: [`rules`](ValidationRules) (the server's validation-rules document),
//! banks and countries ([`BankList`], [`is_assigned_country`]), documents that cannot be read
//! ([`UnreadableDocument`]), routing numbers ([`check_routing_number`]), account details
//! ([`AccountDetail`], with the IBAN registry as static data; [`check_account`] as the user types; [`normalize`] before sending;
//! [`Reason`] and [`AccountParams`] for messages of one's own), validation ([`validate`],
//! [`BeneficiaryValidator`]), the fields a form asks for ([`BeneficiaryValidator::form`], and the lower-level [`required_fields`]) and typed drafts
//! ([`BeneficiaryDraft`]).
//!
//! ```
//! use serde_json::json;
//! use xborder_core::beneficiary::BeneficiaryValidator;
//! // The two documents as the server sends them (text or parsed: both are read alike).
//! let rules = json!({"data": {"country": "DE", "ownerType": "individual", "rules": {
//!     "requiredFields": [{"field": "firstName", "description": "First name"}],
//!     "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber", "description": "IBAN"}]}]}},
//!     "requestId": 1});
//! let banks = r#"{"data": [{"id": "bank_de_001", "name": "Deutsche Bank"}], "requestId": 2}"#;
//! let validator = BeneficiaryValidator::from_documents(Some(&rules), Some("DE"), Some(&json!(banks)));
//! let draft = json!({"ownerType": "individual", "country": "DE", "paymentType": "bank_account",
//!     "paymentInfo": {"bankId": "bank_de_001", "accountNumber": "DE89 3704 0044 0532 0130 01"}});
//! let v = validator.validate(&draft);
//! assert_eq!(v.issues.len(), 2);
//! assert_eq!((v.issues[0].path.as_str(), v.issues[0].code.as_str()), ("firstName", "REQUIRED"));
//! let iban = &v.issues[1];
//! assert_eq!((iban.path.as_str(), iban.code.as_str()), ("paymentInfo.accountNumber", "INVALID_IBAN"));
//! assert_eq!(iban.label.as_deref(), Some("IBAN"));
//! assert!(iban.message.contains("check digits"));
//! ```

use std::borrow::Cow;
use std::fmt;

mod account;
mod banks;
mod check;
mod document;
mod draft;
mod fields;
mod form;
mod iban_registry;
mod normalize;
mod reason;
mod routing;
mod rules;
mod validate;

/// Kept here for code written against earlier releases: it lives at the crate root now.
pub use crate::MalformedJson;
pub use account::{AccountDetail, AccountDetailError, AccountProblem, UnknownAccountKind};
pub use banks::{is_assigned_country, Bank, BankList};
pub use check::{check_account, AccountCheck, AccountState};
pub use document::{Document, Unreadable, UnreadableDocument};
pub use draft::{BeneficiaryDraft, PaymentInfo};
pub use fields::{required_fields, FieldSource, RequiredField};
pub use form::{FormError, FormField, FormInput, FormOption, FormSource};
pub use normalize::normalize;
pub use reason::{AccountParams, CountryLetters, Reason};
pub use routing::{check_routing_number, RoutingNumberError};
pub use rules::{FieldRule, PaymentTypeRules, ValidationRules};
pub use validate::{validate, BeneficiaryValidator, IssuesAt, Validation};

/// The kind of problem found at a path (each code's meaning: [`crate::codes`]).
///
/// ```
/// use xborder_core::beneficiary::IssueCode;
/// assert_eq!(IssueCode::UnknownBank.as_str(), "UNKNOWN_BANK");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum IssueCode {
    /// Absent, `null`, or a string that is empty after trimming.
    Required,
    /// Wrong type, or a value outside the allowed ones.
    InvalidValue,
    /// Not a valid ABA routing number.
    InvalidRoutingNumber,
    /// `bankId` is not among the ids of the bank list.
    UnknownBank,
    /// The rules document is for another country or owner type.
    RulesMismatch,
    /// The bank list is for another country.
    BanksMismatch,
    /// The rules list payment types and the draft's is not among them.
    UnsupportedPaymentType,
    /// The rules document was given and cannot be read (path `""`).
    RulesUnreadable,
    /// The bank list was given and cannot be read (path `""`).
    BanksUnreadable,
    /// `accountNumber` is an IBAN to check (it starts with two letters outside `AR`, or the
    /// country is an IBAN country) and is not a valid one.
    InvalidIban,
    /// `accountNumber` of 18 digits to `MX` is not a valid CLABE.
    InvalidClabe,
    /// `accountNumber` of 22 digits to `AR` is not a valid CBU (any other there is an alias).
    InvalidCbu,
    /// `bankDocumentNumber` to `AR` is not a valid CUIT/CUIL.
    InvalidCuit,
    /// `bic` is not a valid BIC (ISO 9362).
    InvalidBic,
    /// `ifscCode` to `IN` is not a valid IFSC.
    InvalidIfsc,
    /// `sortCode` to `GB` is not 6 digits.
    InvalidSortCode,
    /// `bsbNumber` to `AU` is not 6 digits.
    InvalidBsb,
    /// `branchCode` to `CA` is not 8 digits.
    InvalidBranchCode,
}

impl IssueCode {
    /// Every issue code, in the order of [`crate::codes::ISSUES`] (the bindings' enums are checked against it).
    ///
    /// ```
    /// use xborder_core::beneficiary::IssueCode;
    /// assert_eq!(IssueCode::ALL.len(), xborder_core::codes::ISSUES.len());
    /// ```
    pub const ALL: &'static [IssueCode] = &[
        IssueCode::Required,
        IssueCode::InvalidValue,
        IssueCode::InvalidRoutingNumber,
        IssueCode::UnknownBank,
        IssueCode::RulesMismatch,
        IssueCode::BanksMismatch,
        IssueCode::UnsupportedPaymentType,
        IssueCode::RulesUnreadable,
        IssueCode::BanksUnreadable,
        IssueCode::InvalidIban,
        IssueCode::InvalidClabe,
        IssueCode::InvalidCbu,
        IssueCode::InvalidCuit,
        IssueCode::InvalidBic,
        IssueCode::InvalidIfsc,
        IssueCode::InvalidSortCode,
        IssueCode::InvalidBsb,
        IssueCode::InvalidBranchCode,
    ];

    /// The stable SCREAMING_SNAKE code.
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::IssueCode::Required.as_str(), "REQUIRED");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            IssueCode::Required => "REQUIRED",
            IssueCode::InvalidValue => "INVALID_VALUE",
            IssueCode::InvalidRoutingNumber => "INVALID_ROUTING_NUMBER",
            IssueCode::UnknownBank => "UNKNOWN_BANK",
            IssueCode::RulesMismatch => "RULES_MISMATCH",
            IssueCode::BanksMismatch => "BANKS_MISMATCH",
            IssueCode::UnsupportedPaymentType => "UNSUPPORTED_PAYMENT_TYPE",
            IssueCode::RulesUnreadable => "RULES_UNREADABLE",
            IssueCode::BanksUnreadable => "BANKS_UNREADABLE",
            IssueCode::InvalidIban => "INVALID_IBAN",
            IssueCode::InvalidClabe => "INVALID_CLABE",
            IssueCode::InvalidCbu => "INVALID_CBU",
            IssueCode::InvalidCuit => "INVALID_CUIT",
            IssueCode::InvalidBic => "INVALID_BIC",
            IssueCode::InvalidIfsc => "INVALID_IFSC",
            IssueCode::InvalidSortCode => "INVALID_SORT_CODE",
            IssueCode::InvalidBsb => "INVALID_BSB",
            IssueCode::InvalidBranchCode => "INVALID_BRANCH_CODE",
        }
    }

    /// What a form tells its user when nothing more precise is known: the message an issue of
    /// this code carries unless validation found a more precise one.
    ///
    /// ```
    /// use xborder_core::beneficiary::IssueCode;
    /// assert_eq!(IssueCode::Required.message(), "this field is required: fill it in");
    /// ```
    pub fn message(self) -> &'static str {
        match self {
            IssueCode::Required => "this field is required: fill it in",
            IssueCode::InvalidValue => "this value has the wrong type or is not one of the values allowed here",
            IssueCode::InvalidRoutingNumber => "this is not a valid ABA routing number: look for a mistyped digit",
            IssueCode::UnknownBank => "this bank is not in the bank list of the beneficiary's country: choose one from the list",
            IssueCode::RulesMismatch => "the rules document is for another country or owner type: fetch the rules for this draft's country and owner type",
            IssueCode::BanksMismatch => "the bank list is for another country: fetch the bank list of this draft's country",
            IssueCode::UnsupportedPaymentType => "the rules for this country do not list this payment type: choose one they list",
            IssueCode::RulesUnreadable => "the rules document cannot be read: pass the response of GET /v1/validation-rules/beneficiaries as received or parsed",
            IssueCode::BanksUnreadable => "the bank list cannot be read: pass the response of GET /v1/beneficiaries/banks as received or parsed",
            IssueCode::InvalidIban => "this is not a valid IBAN: look for a mistyped or missing character",
            IssueCode::InvalidClabe => "this is not a valid CLABE: look for a mistyped digit",
            IssueCode::InvalidCbu => "this is not a valid CBU: look for a mistyped digit",
            IssueCode::InvalidCuit => "this is not a valid CUIT or CUIL: look for a mistyped digit",
            IssueCode::InvalidBic => "this is not a valid BIC: 8 or 11 letters and digits",
            IssueCode::InvalidIfsc => "this is not a valid IFSC: 4 letters, the digit 0, then 6 letters or digits",
            IssueCode::InvalidSortCode => "a sort code has 6 digits",
            IssueCode::InvalidBsb => "a BSB has 6 digits",
            IssueCode::InvalidBranchCode => "a Canadian branch code has 8 digits: the institution's 3 and the transit's 5",
        }
    }
}

impl fmt::Display for IssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem: the dotted payload path, its code, an English message that says what to fix,
/// the rules document's description of the field as a label, where it has one, and for an
/// account detail the reason and its figures (so an app can say it in its own language).
///
/// ```
/// use xborder_core::beneficiary::{Issue, IssueCode};
/// let i = Issue::new("paymentInfo.bankId", IssueCode::Required);
/// assert_eq!(i.to_string(), "paymentInfo.bankId: REQUIRED");
/// assert_eq!(i.message, "this field is required: fill it in");
/// assert_eq!(i.label, None);
/// assert_eq!(i.reason, None);
/// assert!(i.params.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Issue {
    /// Dotted path from the payload root (`""` for the draft or a document as a whole).
    pub path: String,
    /// What is wrong there.
    pub code: IssueCode,
    /// What to fix, in English, for the person filling the form.
    pub message: Cow<'static, str>,
    /// The rules document's `description` of the field at `path`, when it has one.
    pub label: Option<String>,
    /// Why an account detail fails (`INVALID_IBAN`, ..., `INVALID_ROUTING_NUMBER`): `None` for
    /// the other codes.
    pub reason: Option<Reason>,
    /// The figures of `reason` (empty where it names none, and for the other codes).
    pub params: AccountParams,
}

impl Issue {
    /// An issue at a dotted path, with its code's message and no label.
    ///
    /// ```
    /// use xborder_core::beneficiary::{Issue, IssueCode};
    /// assert_eq!(Issue::new("country", IssueCode::Required).path, "country");
    /// ```
    pub fn new(path: impl Into<String>, code: IssueCode) -> Self {
        Issue {
            path: path.into(),
            code,
            message: Cow::Borrowed(code.message()),
            label: None,
            reason: None,
            params: AccountParams::default(),
        }
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.code)
    }
}

#[cfg(test)]
mod tests;
