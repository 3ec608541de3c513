//! The server's validation-rules document (`GET /v1/validation-rules/beneficiaries`): read when
//! it has the document's shape, reported ([`UnreadableDocument`]) when it does not; inside it,
//! keys and items this module does not name are ignored.

use serde_json::{Map, Value};

use super::document::{read_text, read_value, Document, Unreadable, UnreadableDocument};

/// A required field of the rules document, with its sub-fields (`nestedFields` and `fields`).
///
/// ```
/// use xborder_core::beneficiary::ValidationRules;
/// let rules = ValidationRules::from_value(&serde_json::json!({"data": {"rules": {"requiredFields": [
///     {"field": "address", "fields": [{"field": "city"}], "nestedFields": [{"field": "street"}]}]}}})).unwrap();
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
/// let rules = ValidationRules::from_value(&serde_json::json!({"data": {"rules": {"paymentTypes": [{}]}}})).unwrap();
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

/// The validation-rules document (`GET /v1/validation-rules/beneficiaries`): the response
/// `{"data": {"country", "ownerType", "rules": {"requiredFields": [...], "paymentTypes": [...]}}}`,
/// or its `data`. A document without that shape is [`UnreadableDocument`]; inside `rules`, items
/// without a non-empty string `field` (`type` for payment types) and unknown keys are ignored.
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

fn read_rules(response: &Map<String, Value>) -> Result<ValidationRules, Unreadable> {
    // `{"data": {..., "rules": {...}}}`, or the `data` itself (a `rules` object and no `data`).
    let (doc, rules) = match response.get("data") {
        Some(data) => (data, data.get("rules")),
        None => (&Value::Null, response.get("rules")),
    };
    let doc = if doc.is_null() {
        response
    } else {
        doc.as_object().ok_or(Unreadable::NotTheDocument)?
    };
    let rules = rules
        .and_then(Value::as_object)
        .ok_or(Unreadable::NotTheDocument)?;
    let array = |key: &'static str| match rules.get(key) {
        None | Some(Value::Null) | Some(Value::Array(_)) => Ok(rules.get(key)),
        Some(_) => Err(Unreadable::NotAnArray(key)),
    };
    let (required, types) = (array("requiredFields")?, array("paymentTypes")?);
    let payment_types = items(types)
        .filter(|p| p.is_object())
        .map(|p| PaymentTypeRules {
            payment_type: str_of(p.get("type")).filter(|t| !t.is_empty()),
            description: str_of(p.get("description")),
            required_fields: field_rules(p.get("requiredFields")),
        })
        .collect();
    Ok(ValidationRules {
        country: str_of(doc.get("country")),
        owner_type: str_of(doc.get("ownerType")),
        required_fields: field_rules(required),
        payment_types,
    })
}

impl ValidationRules {
    /// Reads the response as given: parsed, or as its text (a JSON string is the response
    /// text, parsed once). A document without the document's shape is `RULES_UNREADABLE`.
    ///
    /// ```
    /// use serde_json::json;
    /// use xborder_core::beneficiary::ValidationRules;
    /// let doc = json!({"data": {"country": "CO", "rules": {"requiredFields": [{"field": "firstName"}]}}});
    /// assert_eq!(ValidationRules::from_value(&doc).unwrap().country.as_deref(), Some("CO"));
    /// let text = json!(doc.to_string());
    /// assert_eq!(ValidationRules::from_value(&text), ValidationRules::from_value(&doc));
    /// for unreadable in [json!({}), json!([]), json!({"error": {"CODE": "UNAUTHORIZED"}}),
    ///                    json!({"requiredFields": []}), json!("{\"data\": {")] {
    ///     assert_eq!(ValidationRules::from_value(&unreadable).unwrap_err().code(), "RULES_UNREADABLE");
    /// }
    /// ```
    pub fn from_value(response: &Value) -> Result<Self, UnreadableDocument> {
        read_value(Document::Rules, response, read_rules)
    }

    /// Parses the response text (bytes or a `str`) once and reads it.
    ///
    /// ```
    /// use xborder_core::beneficiary::ValidationRules;
    /// assert!(ValidationRules::from_json(r#"{"data": {"rules": {}}}"#).is_ok());
    /// assert_eq!(ValidationRules::from_json("{}").unwrap_err().code(), "RULES_UNREADABLE");
    /// ```
    pub fn from_json(text: impl AsRef<[u8]>) -> Result<Self, UnreadableDocument> {
        read_text(Document::Rules, text.as_ref(), read_rules)
    }

    /// The payment types the document lists (empty: no restriction).
    ///
    /// ```
    /// let r = xborder_core::beneficiary::ValidationRules::from_value(&serde_json::json!(
    ///     {"data": {"rules": {"paymentTypes": [{"type": "pix"}, {}]}}})).unwrap();
    /// assert_eq!(r.listed_payment_types(), ["pix"]);
    /// ```
    pub fn listed_payment_types(&self) -> Vec<&str> {
        self.payment_types
            .iter()
            .filter_map(|p| p.payment_type.as_deref())
            .collect()
    }

    /// The rules of a payment type, each resolved under `paymentInfo`: an entry named
    /// `paymentInfo` itself stands for its sub-fields, every other entry for itself.
    /// The one reading of that rule, for validation, the form's fields and labels.
    pub(super) fn under_payment_info<'a>(
        &'a self,
        name: &str,
    ) -> impl Iterator<Item = &'a FieldRule> + 'a {
        self.payment_type(name)
            .into_iter()
            .flat_map(|p| &p.required_fields)
            .flat_map(|rule| {
                if rule.field == "paymentInfo" {
                    rule.children.iter()
                } else {
                    std::slice::from_ref(rule).iter()
                }
            })
    }

    pub(super) fn payment_type(&self, name: &str) -> Option<&PaymentTypeRules> {
        self.payment_types
            .iter()
            .find(|p| p.payment_type.as_deref() == Some(name))
    }
}
