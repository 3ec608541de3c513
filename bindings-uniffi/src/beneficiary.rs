//! Beneficiary drafts: validation against the server's documents, and the fields a form
//! asks for.

use std::fmt;

use xborder_core::beneficiary;

use crate::account::{AccountParams, Reason};
use crate::errors::parse_json;
use crate::XborderError;

/// The kind of problem found at a path. Its text form is FORMAT.md's code (`REQUIRED`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
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
    /// `accountNumber` starts with two letters and is not a valid IBAN.
    InvalidIban,
    /// `accountNumber` of 18 digits to `MX` is not a valid CLABE.
    InvalidClabe,
    /// `accountNumber` of 22 digits to `AR` is not a valid CBU.
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

impl From<IssueCode> for beneficiary::IssueCode {
    fn from(c: IssueCode) -> Self {
        use beneficiary::IssueCode as C;
        match c {
            IssueCode::Required => C::Required,
            IssueCode::InvalidValue => C::InvalidValue,
            IssueCode::InvalidRoutingNumber => C::InvalidRoutingNumber,
            IssueCode::UnknownBank => C::UnknownBank,
            IssueCode::RulesMismatch => C::RulesMismatch,
            IssueCode::BanksMismatch => C::BanksMismatch,
            IssueCode::UnsupportedPaymentType => C::UnsupportedPaymentType,
            IssueCode::RulesUnreadable => C::RulesUnreadable,
            IssueCode::BanksUnreadable => C::BanksUnreadable,
            IssueCode::InvalidIban => C::InvalidIban,
            IssueCode::InvalidClabe => C::InvalidClabe,
            IssueCode::InvalidCbu => C::InvalidCbu,
            IssueCode::InvalidCuit => C::InvalidCuit,
            IssueCode::InvalidBic => C::InvalidBic,
            IssueCode::InvalidIfsc => C::InvalidIfsc,
            IssueCode::InvalidSortCode => C::InvalidSortCode,
            IssueCode::InvalidBsb => C::InvalidBsb,
            IssueCode::InvalidBranchCode => C::InvalidBranchCode,
        }
    }
}

impl fmt::Display for IssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(beneficiary::IssueCode::from(*self).as_str())
    }
}

impl From<beneficiary::IssueCode> for IssueCode {
    fn from(c: beneficiary::IssueCode) -> Self {
        use beneficiary::IssueCode as C;
        match c {
            C::Required => IssueCode::Required,
            C::InvalidValue => IssueCode::InvalidValue,
            C::InvalidRoutingNumber => IssueCode::InvalidRoutingNumber,
            C::UnknownBank => IssueCode::UnknownBank,
            C::RulesMismatch => IssueCode::RulesMismatch,
            C::BanksMismatch => IssueCode::BanksMismatch,
            C::UnsupportedPaymentType => IssueCode::UnsupportedPaymentType,
            C::RulesUnreadable => IssueCode::RulesUnreadable,
            C::BanksUnreadable => IssueCode::BanksUnreadable,
            C::InvalidIban => IssueCode::InvalidIban,
            C::InvalidClabe => IssueCode::InvalidClabe,
            C::InvalidCbu => IssueCode::InvalidCbu,
            C::InvalidCuit => IssueCode::InvalidCuit,
            C::InvalidBic => IssueCode::InvalidBic,
            C::InvalidIfsc => IssueCode::InvalidIfsc,
            C::InvalidSortCode => IssueCode::InvalidSortCode,
            C::InvalidBsb => IssueCode::InvalidBsb,
            C::InvalidBranchCode => IssueCode::InvalidBranchCode,
            // Non-exhaustive in the core; `issue_codes_round_trip` names every one.
            _ => IssueCode::InvalidValue,
        }
    }
}

/// One problem: the dotted payload path (`paymentInfo.bankId`, `""` for the draft or a document
/// as a whole), its code, what to fix, and the field's label.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Issue {
    /// Dotted path from the payload root.
    pub path: String,
    /// What is wrong there.
    pub code: IssueCode,
    /// What to fix, in English, for the person filling the form.
    pub message: String,
    /// The rules document's description of the field, where it has one.
    pub label: Option<String>,
    /// Why an account detail fails (`INVALID_IBAN`, ..., `INVALID_ROUTING_NUMBER`); absent for
    /// the other codes.
    pub reason: Option<Reason>,
    /// The figures of `reason`, to write a message of one's own (all absent where it names none).
    pub params: AccountParams,
}

/// The result of a validation: every issue, not just the first.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct BeneficiaryValidation {
    /// Whether there is no issue.
    pub valid: bool,
    /// The issues, unique by (path, code), in the order found.
    pub issues: Vec<Issue>,
}

impl From<beneficiary::Validation> for BeneficiaryValidation {
    fn from(v: beneficiary::Validation) -> Self {
        BeneficiaryValidation {
            valid: v.valid(),
            issues: v
                .issues
                .into_iter()
                .map(|i| Issue {
                    path: i.path,
                    code: i.code.into(),
                    message: i.message.into_owned(),
                    label: i.label,
                    reason: i.reason.map(Reason::of),
                    params: i.params.into(),
                })
                .collect(),
        }
    }
}

/// The documents as the server sent them, each the response text: a rules document or bank
/// list that cannot be read is kept as such (core reports it on every validation).
pub(crate) fn documents(
    rules_json: Option<String>,
    banks_country: Option<String>,
    banks_json: Option<String>,
) -> beneficiary::BeneficiaryValidator {
    beneficiary::BeneficiaryValidator::new(
        rules_json.map(beneficiary::ValidationRules::from_json),
        banks_json
            .map(|t| beneficiary::BankList::from_json(banks_country.as_deref().unwrap_or(""), t)),
    )
}

/// A rules document and a bank list read once (each optional, each the response text as
/// received), to validate many drafts against: [`validate_beneficiary`] with the same
/// documents, only the draft crossing per call. Safe to share between threads.
#[derive(Debug, uniffi::Object)]
pub struct BeneficiaryValidator {
    inner: beneficiary::BeneficiaryValidator,
}

impl BeneficiaryValidator {
    /// Core's validator, for the form model (`form.rs`).
    pub(crate) fn core(&self) -> &beneficiary::BeneficiaryValidator {
        &self.inner
    }
}

#[uniffi::export]
impl BeneficiaryValidator {
    /// Reads the documents once (an unreadable one is reported by every validation).
    #[uniffi::constructor(default(rules_json = None, banks_country = None, banks_json = None))]
    pub fn new(
        rules_json: Option<String>,
        banks_country: Option<String>,
        banks_json: Option<String>,
    ) -> Self {
        BeneficiaryValidator {
            inner: documents(rules_json, banks_country, banks_json),
        }
    }

    /// Every issue of one draft (JSON text). Throws only `MALFORMED_JSON`.
    pub fn validate(&self, draft_json: String) -> Result<BeneficiaryValidation, XborderError> {
        let draft = parse_json(&draft_json, "draft_json")?;
        Ok(self.inner.validate(&draft).into())
    }
}

/// Where a required field comes from. Text form: `fixed` or `rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum FieldSource {
    /// The fixed rules of the payments API.
    Fixed,
    /// The server's rules document.
    Rules,
}

impl From<beneficiary::FieldSource> for FieldSource {
    fn from(s: beneficiary::FieldSource) -> Self {
        match s {
            beneficiary::FieldSource::Fixed => FieldSource::Fixed,
            // Non-exhaustive in the core: anything not fixed came from a document
            // (`field_sources_round_trip` walks core's `FieldSource::ALL`).
            _ => FieldSource::Rules,
        }
    }
}

impl fmt::Display for FieldSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let core = match self {
            FieldSource::Fixed => beneficiary::FieldSource::Fixed,
            FieldSource::Rules => beneficiary::FieldSource::Rules,
        };
        f.write_str(core.as_str())
    }
}

/// A field a form must ask for.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RequiredField {
    /// Dotted payload path.
    pub path: String,
    /// What to show beside it.
    pub description: String,
    /// Where the requirement comes from.
    pub source: FieldSource,
}

// ---------------------------------------------------------------------------------------------
// The exported functions

/// Validates a beneficiary draft (the JSON payload of `POST /v1/beneficiaries`) with the
/// optional validation-rules response and the optional bank-list response of `banks_country`,
/// each the response text as received (a bank list given without its country is for no
/// country: `BANKS_MISMATCH`). Issues are results, not errors: a document that cannot be read
/// is the issue `RULES_UNREADABLE` or `BANKS_UNREADABLE`; it throws only `MALFORMED_JSON` when
/// the draft is not JSON.
#[uniffi::export(default(rules_json = None, banks_country = None, banks_json = None))]
pub fn validate_beneficiary(
    draft_json: String,
    rules_json: Option<String>,
    banks_country: Option<String>,
    banks_json: Option<String>,
) -> Result<BeneficiaryValidation, XborderError> {
    let draft = parse_json(&draft_json, "draft_json")?;
    Ok(documents(rules_json, banks_country, banks_json)
        .validate(&draft)
        .into())
}

/// The fields a form must ask for, for a payment type and country: the fixed ones, then the
/// rules document's (when given, and for that country), each once, parents before children.
/// `rules_json` is the response text as received; throws `RULES_UNREADABLE` when it cannot be
/// read (never an empty list of its fields).
#[uniffi::export]
pub fn required_fields(
    rules_json: Option<String>,
    payment_type: String,
    country: String,
) -> Result<Vec<RequiredField>, XborderError> {
    let rules = rules_json
        .map(xborder_core::beneficiary::ValidationRules::from_json)
        .transpose()?;
    Ok(
        xborder_core::beneficiary::required_fields(rules.as_ref(), &payment_type, &country)
            .into_iter()
            .map(|f| RequiredField {
                source: f.source.into(),
                path: f.path,
                description: f.description,
            })
            .collect(),
    )
}

/// The payload to send: the draft (JSON text) with every account detail validation checks
/// (IBAN, sort code, routing number, ...) in electronic form (`de89 3704 …` → `DE893704…`,
/// `12-34-56` → `123456`), nothing else changed; JSON text back. Throws only `MALFORMED_JSON`.
#[uniffi::export]
pub fn normalize_beneficiary(draft_json: String) -> Result<String, XborderError> {
    let draft = parse_json(&draft_json, "draft_json")?;
    Ok(beneficiary::normalize(draft).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    // The lists come from core: a variant added there without its arm here maps through a
    // fallback arm onto another text, and these tests fail.

    #[test]
    fn issue_codes_round_trip() {
        for c in beneficiary::IssueCode::ALL {
            assert_eq!(IssueCode::from(*c).to_string(), c.as_str());
        }
        assert_eq!(
            beneficiary::IssueCode::ALL.len(),
            xborder_core::codes::ISSUES.len()
        );
    }

    #[test]
    fn issues_carry_reason_and_params() {
        let draft = r#"{"ownerType":"individual","country":"DE","paymentType":"bank_account",
            "paymentInfo":{"bankId":"b","accountNumber":"DE8937040044053201300"}}"#;
        let v = validate_beneficiary(draft.into(), None, None, None).unwrap();
        let iban = v
            .issues
            .iter()
            .find(|i| i.code == IssueCode::InvalidIban)
            .unwrap();
        assert_eq!(iban.reason, Some(Reason::Length));
        assert_eq!(
            (iban.params.expected, iban.params.actual),
            (Some(22), Some(21))
        );
        let out = normalize_beneficiary(draft.into()).unwrap();
        assert!(out.contains("\"DE8937040044053201300\""));
    }

    #[test]
    fn field_sources_round_trip() {
        for s in beneficiary::FieldSource::ALL {
            assert_eq!(FieldSource::from(*s).to_string(), s.as_str());
        }
    }
}
