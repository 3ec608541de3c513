//! Beneficiary drafts checked before `POST /v1/beneficiaries`: every problem, at its field.
//!
//! The fixed rules of payments-api.md hold with or without a rules document: `bank_account` to
//! `US` needs `paymentInfo.routingNumber` (a valid ABA number); `bank_account` elsewhere needs
//! `paymentInfo.bankId`, one of that country's bank ids when a bank list is given. The server's
//! validation-rules document adds required fields (presence only). A rules document or bank list
//! for another country or owner type is reported and not applied.

//!
//! The module by concern: [`rules`](ValidationRules) (the server's validation-rules document),
//! banks and countries ([`BankList`], [`is_assigned_country`]), routing numbers
//! ([`check_routing_number`]), validation ([`validate`]), the fields a form asks for
//! ([`required_fields`]) and typed drafts ([`BeneficiaryDraft`]).

use std::fmt;

mod banks;
mod draft;
mod fields;
mod routing;
mod rules;
mod validate;

/// Kept here for code written against earlier releases: it lives at the crate root now.
pub use crate::MalformedJson;
pub use banks::{is_assigned_country, Bank, BankList};
pub use draft::{BeneficiaryDraft, PaymentInfo};
pub use fields::{required_fields, FieldSource, RequiredField};
pub use routing::{check_routing_number, RoutingNumberError};
pub use rules::{FieldRule, PaymentTypeRules, ValidationRules};
pub use validate::{validate, Validation};

/// The kind of problem found at a path. Codes are FORMAT.md's.
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
}

impl IssueCode {
    /// Every issue code, in FORMAT.md's order (the bindings' enums are checked against it).
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
        }
    }
}

impl fmt::Display for IssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem: the dotted payload path and its code.
///
/// ```
/// use xborder_core::beneficiary::{Issue, IssueCode};
/// let i = Issue::new("paymentInfo.bankId", IssueCode::Required);
/// assert_eq!(i.to_string(), "paymentInfo.bankId: REQUIRED");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Issue {
    /// Dotted path from the payload root (`""` for the root itself).
    pub path: String,
    /// What is wrong there.
    pub code: IssueCode,
}

impl Issue {
    /// An issue at a dotted path.
    ///
    /// ```
    /// use xborder_core::beneficiary::{Issue, IssueCode};
    /// assert_eq!(Issue::new("country", IssueCode::Required).path, "country");
    /// ```
    pub fn new(path: impl Into<String>, code: IssueCode) -> Self {
        Issue {
            path: path.into(),
            code,
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
