//! [`required_fields`]: the fields a form must ask for, fixed ones first.

use super::validate::join;
use super::{FieldRule, ValidationRules};

/// Where a required field comes from.
///
/// ```
/// assert_eq!(xborder_core::beneficiary::FieldSource::Fixed.as_str(), "fixed");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldSource {
    /// The fixed rules of the provider's API (the same for every country).
    Fixed,
    /// The server's rules document.
    Rules,
}

impl FieldSource {
    /// Every source (the bindings' enums are checked against it).
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::FieldSource::ALL.len(), 2);
    /// ```
    pub const ALL: &'static [FieldSource] = &[FieldSource::Fixed, FieldSource::Rules];

    /// `fixed` or `rules`.
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::FieldSource::Rules.as_str(), "rules");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            FieldSource::Fixed => "fixed",
            FieldSource::Rules => "rules",
        }
    }
}

/// A field a form must ask for.
///
/// ```
/// let f = &xborder_core::beneficiary::required_fields(None, "bank_account", "US")[4];
/// assert_eq!(f.path, "paymentInfo.routingNumber");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequiredField {
    /// Dotted payload path.
    pub path: String,
    /// What to show beside it.
    pub description: String,
    /// Where the requirement comes from.
    pub source: FieldSource,
}

fn collect_rule(out: &mut Vec<RequiredField>, parent: &str, rule: &FieldRule) {
    let path = join(parent, &rule.field);
    let description = rule
        .description
        .clone()
        .unwrap_or_else(|| rule.field.clone());
    if !out.iter().any(|f| f.path == path) {
        out.push(RequiredField {
            path: path.clone(),
            description,
            source: FieldSource::Rules,
        });
    }
    for child in &rule.children {
        collect_rule(out, &path, child);
    }
}

/// The fields a form must ask for, for a payment type and country: the fixed ones, then the
/// rules document's (when given, and for that country), each once, parents before children.
/// The lower-level list: a form renders [`BeneficiaryValidator::form`](super::BeneficiaryValidator::form)
/// (labels, inputs, bank options, account kinds, the order a form shows).
///
/// ```
/// use xborder_core::beneficiary::{required_fields, ValidationRules};
/// let rules = ValidationRules::from_value(&serde_json::json!({"data": {"country": "CO", "rules": {
///     "requiredFields": [{"field": "address", "description": "Address", "nestedFields": [{"field": "city", "description": "City"}]}],
///     "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber", "description": "Account number"}]}]}}})).unwrap();
/// let paths: Vec<String> = required_fields(Some(&rules), "bank_account", "CO").into_iter().map(|f| f.path).collect();
/// assert_eq!(paths, ["ownerType", "country", "paymentType", "paymentInfo", "paymentInfo.bankId",
///                    "address", "address.city", "paymentInfo.accountNumber"]);
/// ```
pub fn required_fields(
    rules: Option<&ValidationRules>,
    payment_type: &str,
    country: &str,
) -> Vec<RequiredField> {
    let fixed = |path: &str, description: &str| RequiredField {
        path: path.to_owned(),
        description: description.to_owned(),
        source: FieldSource::Fixed,
    };
    let mut out = vec![
        fixed("ownerType", "Owner type: individual or business"),
        fixed("country", "Country (ISO 3166-1 alpha-2)"),
        fixed("paymentType", "Payment type"),
        fixed("paymentInfo", "Payment details"),
    ];
    if payment_type == "bank_account" {
        if country == "US" {
            out.push(fixed(
                "paymentInfo.routingNumber",
                "ABA routing number (9 digits)",
            ));
        } else {
            out.push(fixed(
                "paymentInfo.bankId",
                "Bank, from the bank list of the country",
            ));
        }
    }
    let Some(rules) = rules.filter(|r| r.country.as_deref().is_none_or(|c| c == country)) else {
        return out;
    };
    for rule in &rules.required_fields {
        collect_rule(&mut out, "", rule);
    }
    for rule in rules.under_payment_info(payment_type) {
        collect_rule(&mut out, "paymentInfo", rule);
    }
    out
}
