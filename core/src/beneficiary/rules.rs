//! The server's validation-rules document (`GET /v1/validation-rules/beneficiaries`), read
//! leniently: what it has that this module does not name is ignored.

use serde_json::Value;

use crate::MalformedJson;

/// A required field of the rules document, with its sub-fields (`nestedFields` and `fields`).
///
/// ```
/// use xborder_core::beneficiary::ValidationRules;
/// let rules = ValidationRules::from_value(&serde_json::json!({"data": {"rules": {"requiredFields": [
///     {"field": "address", "fields": [{"field": "city"}], "nestedFields": [{"field": "street"}]}]}}}));
/// let address = &rules.required_fields[0];
/// assert_eq!(address.children.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(), ["street", "city"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct FieldRule {
    /// The field name (a dotted name is a path).
    pub field: String,
    /// The server's description, when it gave one.
    pub description: Option<String>,
    /// Sub-fields: the value must then be an object holding them.
    pub children: Vec<FieldRule>,
}

/// The rules of one payment type.
///
/// ```
/// use xborder_core::beneficiary::ValidationRules;
/// let rules = ValidationRules::from_value(&serde_json::json!({"data": {"rules": {"paymentTypes": [{}]}}}));
/// assert_eq!(rules.payment_types[0].payment_type, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PaymentTypeRules {
    /// `type` (`bank_account`, `pix`, ...), when given.
    pub payment_type: Option<String>,
    /// The server's description.
    pub description: Option<String>,
    /// Fields required for this type, resolved under `paymentInfo`.
    pub required_fields: Vec<FieldRule>,
}

/// The validation-rules document (`GET /v1/validation-rules/beneficiaries`), read tolerantly:
/// every key optional, unknown keys and items ignored.
///
/// ```
/// use xborder_core::beneficiary::ValidationRules;
/// let rules = ValidationRules::from_json(r#"{"data":{"country":"CO","ownerType":"individual",
///   "rules":{"requiredFields":[{"field":"firstName","minLength":1}]}},"requestId":1}"#).unwrap();
/// assert_eq!(rules.country.as_deref(), Some("CO"));
/// assert_eq!(rules.required_fields[0].field, "firstName");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ValidationRules {
    /// The country the document is for.
    pub country: Option<String>,
    /// The owner type the document is for.
    pub owner_type: Option<String>,
    /// Top-level required fields, resolved from the payload root.
    pub required_fields: Vec<FieldRule>,
    /// Payment types with their own required fields.
    pub payment_types: Vec<PaymentTypeRules>,
}

pub(super) fn str_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

pub(super) fn items(v: Option<&Value>) -> impl Iterator<Item = &Value> {
    v.and_then(Value::as_array).into_iter().flatten()
}

fn field_rules(v: Option<&Value>) -> Vec<FieldRule> {
    items(v)
        .filter_map(|item| {
            let field = item.get("field")?.as_str()?.to_owned();
            if field.is_empty() {
                return None;
            }
            let mut children = field_rules(item.get("nestedFields"));
            children.extend(field_rules(item.get("fields")));
            Some(FieldRule {
                field,
                description: str_of(item.get("description")),
                children,
            })
        })
        .collect()
}

impl ValidationRules {
    /// Reads a parsed response. Anything it cannot use is ignored.
    ///
    /// ```
    /// let r = xborder_core::beneficiary::ValidationRules::from_value(&serde_json::json!("nonsense"));
    /// assert!(r.required_fields.is_empty());
    /// ```
    pub fn from_value(response: &Value) -> Self {
        let doc = match response.get("data") {
            Some(d) if d.is_object() => d,
            _ => response,
        };
        let rules = doc.get("rules");
        let payment_types = items(rules.and_then(|r| r.get("paymentTypes")))
            .filter(|p| p.is_object())
            .map(|p| PaymentTypeRules {
                payment_type: str_of(p.get("type")),
                description: str_of(p.get("description")),
                required_fields: field_rules(p.get("requiredFields")),
            })
            .collect();
        ValidationRules {
            country: str_of(doc.get("country")),
            owner_type: str_of(doc.get("ownerType")),
            required_fields: field_rules(rules.and_then(|r| r.get("requiredFields"))),
            payment_types,
        }
    }

    /// Parses and reads a response body.
    ///
    /// ```
    /// assert!(xborder_core::beneficiary::ValidationRules::from_json("{}").is_ok());
    /// ```
    pub fn from_json(text: &str) -> Result<Self, MalformedJson> {
        serde_json::from_str::<Value>(text)
            .map(|v| Self::from_value(&v))
            .map_err(|_| MalformedJson)
    }

    /// The payment types the document lists (empty: no restriction).
    ///
    /// ```
    /// let r = xborder_core::beneficiary::ValidationRules::from_value(&serde_json::json!(
    ///     {"data": {"rules": {"paymentTypes": [{"type": "pix"}, {}]}}}));
    /// assert_eq!(r.listed_payment_types(), ["pix"]);
    /// ```
    pub fn listed_payment_types(&self) -> Vec<&str> {
        self.payment_types
            .iter()
            .filter_map(|p| p.payment_type.as_deref())
            .collect()
    }

    pub(super) fn payment_type(&self, name: &str) -> Option<&PaymentTypeRules> {
        self.payment_types
            .iter()
            .find(|p| p.payment_type.as_deref() == Some(name))
    }
}
