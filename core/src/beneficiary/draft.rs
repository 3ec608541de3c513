//! Typed drafts: the payload of `POST /v1/beneficiaries`, unknown fields kept.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{validate, BankList, Validation, ValidationRules};
use crate::MalformedJson;

/// The bank-account part of a draft. Fields xborder does not model are kept in `extra`.
///
/// ```
/// let pi: xborder_core::beneficiary::PaymentInfo = serde_json::from_str(r#"{"bankId":"b1","sortCode":"12-34-56"}"#).unwrap();
/// assert_eq!(pi.bank_id.as_deref(), Some("b1"));
/// assert_eq!(pi.extra["sortCode"], "12-34-56");
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentInfo {
    /// Bank id from the bank list (non-US bank accounts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_id: Option<String>,
    /// ABA routing number (US bank accounts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing_number: Option<String>,
    /// Account number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_number: Option<String>,
    /// Every other field, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A typed beneficiary draft, convertible to and from the JSON payload. Fields xborder does not
/// model (names, addresses, documents) are kept in `extra`.
///
/// ```
/// use xborder_core::beneficiary::{BeneficiaryDraft, PaymentInfo};
/// let draft = BeneficiaryDraft {
///     owner_type: Some("business".into()),
///     country: Some("US".into()),
///     payment_type: Some("bank_account".into()),
///     payment_info: Some(PaymentInfo { routing_number: Some("021000021".into()), ..Default::default() }),
///     ..Default::default()
/// };
/// assert!(draft.validate(None, None).valid());
/// let back = BeneficiaryDraft::from_json(&draft.to_json()).unwrap();
/// assert_eq!(back, draft);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BeneficiaryDraft {
    /// `individual` or `business`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_type: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// `bank_account`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_type: Option<String>,
    /// Payment details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_info: Option<PaymentInfo>,
    /// Every other field, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl BeneficiaryDraft {
    /// Reads a draft from JSON text.
    ///
    /// ```
    /// let d = xborder_core::beneficiary::BeneficiaryDraft::from_json(r#"{"country":"CO","firstName":"Ana"}"#).unwrap();
    /// assert_eq!(d.extra["firstName"], "Ana");
    /// ```
    pub fn from_json(text: &str) -> Result<Self, MalformedJson> {
        serde_json::from_str(text).map_err(|_| MalformedJson)
    }

    /// The JSON payload.
    ///
    /// ```
    /// let d = xborder_core::beneficiary::BeneficiaryDraft { country: Some("CO".into()), ..Default::default() };
    /// assert_eq!(d.to_json(), r#"{"country":"CO"}"#);
    /// ```
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// The JSON payload as a value.
    ///
    /// ```
    /// let d = xborder_core::beneficiary::BeneficiaryDraft::default();
    /// assert_eq!(d.to_value(), serde_json::json!({}));
    /// ```
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Validates the draft (see [`validate`]).
    ///
    /// ```
    /// let v = xborder_core::beneficiary::BeneficiaryDraft::default().validate(None, None);
    /// assert_eq!(v.issues.len(), 4);
    /// ```
    pub fn validate(
        &self,
        rules: Option<&ValidationRules>,
        banks: Option<&BankList>,
    ) -> Validation {
        validate(&self.to_value(), rules, banks)
    }
}
