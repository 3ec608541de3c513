//! Beneficiary drafts checked before `POST /v1/beneficiaries`: every problem, at its field.
//!
//! The fixed rules of payments-api.md hold with or without a rules document: `bank_account` to
//! `US` needs `paymentInfo.routingNumber` (a valid ABA number); `bank_account` elsewhere needs
//! `paymentInfo.bankId`, one of that country's bank ids when a bank list is given. The server's
//! validation-rules document adds required fields (presence only). A rules document or bank list
//! for another country or owner type is reported and not applied.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::countries::ALPHA2;

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
/// let i = Issue { path: "paymentInfo.bankId".into(), code: IssueCode::Required };
/// assert_eq!(i.to_string(), "paymentInfo.bankId: REQUIRED");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Issue {
    /// Dotted path from the payload root (`""` for the root itself).
    pub path: String,
    /// What is wrong there.
    pub code: IssueCode,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.code)
    }
}

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

fn str_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

fn items(v: Option<&Value>) -> impl Iterator<Item = &Value> {
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

    fn payment_type(&self, name: &str) -> Option<&PaymentTypeRules> {
        self.payment_types
            .iter()
            .find(|p| p.payment_type.as_deref() == Some(name))
    }
}

/// A bank of the bank list.
///
/// ```
/// let b = xborder_core::beneficiary::Bank { id: "bank_co_001".into(), name: Some("Bancolombia".into()) };
/// assert_eq!(b.id, "bank_co_001");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
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
/// assert!(BankList::from_value("CO", &serde_json::json!({"banks": []})).is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankList {
    /// The country the list was requested for.
    pub country: String,
    /// The banks with a string id.
    pub banks: Vec<Bank>,
}

impl BankList {
    /// Reads a parsed response; `None` when it has no `data` array (nothing to apply).
    ///
    /// ```
    /// assert!(xborder_core::beneficiary::BankList::from_value("CO", &serde_json::json!({"data": []})).is_some());
    /// ```
    pub fn from_value(country: &str, response: &Value) -> Option<Self> {
        let data = response.get("data")?.as_array()?;
        let banks = data
            .iter()
            .filter_map(|b| {
                Some(Bank {
                    id: b.get("id")?.as_str()?.to_owned(),
                    name: str_of(b.get("name")),
                })
            })
            .collect();
        Some(BankList {
            country: country.to_owned(),
            banks,
        })
    }

    /// Whether `id` is one of the list's bank ids.
    ///
    /// ```
    /// let l = xborder_core::beneficiary::BankList { country: "CO".into(), banks: vec![] };
    /// assert!(!l.contains("b1"));
    /// ```
    pub fn contains(&self, id: &str) -> bool {
        self.banks.iter().any(|b| b.id == id)
    }
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
    ALPHA2.binary_search(&code).is_ok()
}

/// Why a routing number is not a valid ABA number.
///
/// ```
/// use xborder_core::beneficiary::{check_routing_number, RoutingNumberError};
/// assert_eq!(check_routing_number("021000021"), Ok(()));
/// assert_eq!(check_routing_number("021000022"), Err(RoutingNumberError::Checksum));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RoutingNumberError {
    /// Not exactly 9 ASCII digits.
    Format,
    /// All zeros.
    AllZeros,
    /// First two digits outside 00–12, 21–32, 61–72 and 80.
    Prefix,
    /// 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) is not a multiple of 10.
    Checksum,
}

/// Checks an ABA routing number: 9 ASCII digits, not all zeros, an assigned prefix, the checksum.
/// Nothing is trimmed.
///
/// ```
/// use xborder_core::beneficiary::{check_routing_number, RoutingNumberError};
/// assert_eq!(check_routing_number("011000015"), Ok(()));
/// assert_eq!(check_routing_number(" 011000015"), Err(RoutingNumberError::Format));
/// assert_eq!(check_routing_number("000000000"), Err(RoutingNumberError::AllZeros));
/// ```
pub fn check_routing_number(number: &str) -> Result<(), RoutingNumberError> {
    let bytes = number.as_bytes();
    if bytes.len() != 9 || !bytes.iter().all(u8::is_ascii_digit) {
        return Err(RoutingNumberError::Format);
    }
    let d: Vec<u32> = bytes.iter().map(|b| u32::from(b - b'0')).collect();
    if d.iter().all(|&x| x == 0) {
        return Err(RoutingNumberError::AllZeros);
    }
    let prefix = d.iter().take(2).fold(0, |acc, x| acc * 10 + x);
    if !matches!(prefix, 0..=12 | 21..=32 | 61..=72 | 80) {
        return Err(RoutingNumberError::Prefix);
    }
    let weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
    let sum: u32 = d.iter().zip(weights).map(|(x, w)| x * w).sum();
    if sum % 10 != 0 {
        return Err(RoutingNumberError::Checksum);
    }
    Ok(())
}

/// The result of a validation: every issue, not just the first.
///
/// ```
/// let v = xborder_core::beneficiary::validate(&serde_json::json!({}), None, None);
/// assert!(!v.valid());
/// assert_eq!(v.issues.len(), 4); // ownerType, country, paymentType, paymentInfo
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Validation {
    /// The issues, unique by (path, code), in the order found.
    pub issues: Vec<Issue>,
}

impl Validation {
    /// Whether there is no issue.
    ///
    /// ```
    /// assert!(xborder_core::beneficiary::Validation::default().valid());
    /// ```
    pub fn valid(&self) -> bool {
        self.issues.is_empty()
    }

    /// The issues at one path.
    ///
    /// ```
    /// let v = xborder_core::beneficiary::validate(&serde_json::json!({}), None, None);
    /// assert_eq!(v.at("country").count(), 1);
    /// ```
    pub fn at<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a Issue> + 'a {
        self.issues.iter().filter(move |i| i.path == path)
    }

    fn push(&mut self, path: impl Into<String>, code: IssueCode) {
        let issue = Issue {
            path: path.into(),
            code,
        };
        if !self.issues.contains(&issue) {
            self.issues.push(issue);
        }
    }
}

fn join(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_owned()
    } else {
        format!("{parent}.{field}")
    }
}

fn is_missing(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        Some(_) => false,
    }
}

/// A required string: reports `REQUIRED` or `INVALID_VALUE`, returns it when usable.
fn required_str<'a>(
    out: &mut Validation,
    obj: &'a Map<String, Value>,
    parent: &str,
    key: &str,
) -> Option<&'a str> {
    let v = obj.get(key);
    if is_missing(v) {
        out.push(join(parent, key), IssueCode::Required);
        return None;
    }
    match v.and_then(Value::as_str) {
        Some(s) => Some(s),
        None => {
            out.push(join(parent, key), IssueCode::InvalidValue);
            None
        }
    }
}

/// Applies one rule under `obj` (at `parent`). Dotted names walk through objects; where a
/// parent is absent or not an object only the parent is reported.
fn apply_rule(out: &mut Validation, obj: &Map<String, Value>, parent: &str, rule: &FieldRule) {
    let mut here = obj;
    let mut path = parent.to_owned();
    // Empty segments (`.address.city`, `a..b`) carry no name: they are skipped, and a rule with
    // no name at all is ignored (found by the `rules` fuzz target).
    let mut segments = rule.field.split('.').filter(|s| !s.is_empty()).peekable();
    if segments.peek().is_none() {
        return;
    }
    while let Some(seg) = segments.next() {
        path = join(&path, seg);
        let v = here.get(seg);
        if is_missing(v) {
            out.push(path, IssueCode::Required);
            return;
        }
        let last = segments.peek().is_none();
        if last && rule.children.is_empty() {
            return;
        }
        match v.and_then(Value::as_object) {
            Some(o) => here = o,
            None => {
                out.push(path, IssueCode::InvalidValue);
                return;
            }
        }
    }
    for child in &rule.children {
        apply_rule(out, here, &path, child);
    }
}

/// Validates a draft (the JSON payload of `POST /v1/beneficiaries`), with an optional rules
/// document and bank list. See the module docs for the rules.
///
/// ```
/// use serde_json::json;
/// use xborder_core::beneficiary::{validate, BankList, IssueCode};
/// let banks = BankList::from_value("CO", &json!({"data": [{"id": "bank_co_001", "name": "Bancolombia"}]}));
/// let draft = json!({"ownerType": "individual", "country": "CO", "paymentType": "bank_account",
///                    "paymentInfo": {"bankId": "bank_xx"}});
/// let v = validate(&draft, None, banks.as_ref());
/// assert_eq!(v.issues[0].path, "paymentInfo.bankId");
/// assert_eq!(v.issues[0].code, IssueCode::UnknownBank);
/// ```
pub fn validate(
    draft: &Value,
    rules: Option<&ValidationRules>,
    banks: Option<&BankList>,
) -> Validation {
    let mut out = Validation::default();
    let Some(root) = draft.as_object() else {
        out.push("", IssueCode::InvalidValue);
        return out;
    };
    let owner = required_str(&mut out, root, "", "ownerType").filter(|o| {
        let ok = matches!(*o, "individual" | "business");
        if !ok {
            out.push("ownerType", IssueCode::InvalidValue);
        }
        ok
    });
    let country = required_str(&mut out, root, "", "country").filter(|c| {
        let ok = is_assigned_country(c);
        if !ok {
            out.push("country", IssueCode::InvalidValue);
        }
        ok
    });
    let payment_type = required_str(&mut out, root, "", "paymentType");
    let payment_info = if is_missing(root.get("paymentInfo")) {
        out.push("paymentInfo", IssueCode::Required);
        None
    } else {
        let pi = root.get("paymentInfo").and_then(Value::as_object);
        if pi.is_none() {
            out.push("paymentInfo", IssueCode::InvalidValue);
        }
        pi
    };

    // The rules document, when it is for this draft.
    if let (Some(rules), Some(country), Some(owner)) = (rules, country, owner) {
        let mut matches = true;
        if rules.country.as_deref().is_some_and(|c| c != country) {
            out.push("country", IssueCode::RulesMismatch);
            matches = false;
        }
        if rules.owner_type.as_deref().is_some_and(|o| o != owner) {
            out.push("ownerType", IssueCode::RulesMismatch);
            matches = false;
        }
        if matches {
            for rule in &rules.required_fields {
                apply_rule(&mut out, root, "", rule);
            }
            if let Some(pt) = payment_type {
                let listed = rules.listed_payment_types();
                if !listed.is_empty() && !listed.contains(&pt) {
                    out.push("paymentType", IssueCode::UnsupportedPaymentType);
                }
                if let (Some(pt_rules), Some(pi)) = (rules.payment_type(pt), payment_info) {
                    for rule in &pt_rules.required_fields {
                        if rule.field == "paymentInfo" {
                            for child in &rule.children {
                                apply_rule(&mut out, pi, "paymentInfo", child);
                            }
                        } else {
                            apply_rule(&mut out, pi, "paymentInfo", rule);
                        }
                    }
                }
            }
        }
    }

    // The fixed rules of payments-api.md.
    let Some(country) = country else { return out };
    let banks = banks.filter(|b| {
        let same = b.country == country;
        if !same {
            out.push("country", IssueCode::BanksMismatch);
        }
        same
    });
    if let (Some("bank_account"), Some(pi)) = (payment_type, payment_info) {
        if country == "US" {
            if let Some(rn) = required_str(&mut out, pi, "paymentInfo", "routingNumber") {
                if check_routing_number(rn).is_err() {
                    out.push("paymentInfo.routingNumber", IssueCode::InvalidRoutingNumber);
                }
            }
        } else if let Some(id) = required_str(&mut out, pi, "paymentInfo", "bankId") {
            if banks.is_some_and(|b| !b.contains(id)) {
                out.push("paymentInfo.bankId", IssueCode::UnknownBank);
            }
        }
    }
    out
}

/// Where a required field comes from.
///
/// ```
/// assert_eq!(xborder_core::beneficiary::FieldSource::Fixed.as_str(), "fixed");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldSource {
    /// The fixed rules of payments-api.md.
    Fixed,
    /// The server's rules document.
    Rules,
}

impl FieldSource {
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
///
/// ```
/// use xborder_core::beneficiary::{required_fields, ValidationRules};
/// let rules = ValidationRules::from_value(&serde_json::json!({"data": {"country": "CO", "rules": {
///     "requiredFields": [{"field": "address", "description": "Address", "nestedFields": [{"field": "city", "description": "City"}]}],
///     "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber", "description": "Account number"}]}]}}}));
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
    if let Some(pt) = rules.payment_type(payment_type) {
        for rule in &pt.required_fields {
            if rule.field == "paymentInfo" {
                for child in &rule.children {
                    collect_rule(&mut out, "paymentInfo", child);
                }
            } else {
                collect_rule(&mut out, "paymentInfo", rule);
            }
        }
    }
    out
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn country_table_has_every_assigned_code_sorted() {
        assert_eq!(ALPHA2.len(), 249);
        assert!(ALPHA2.windows(2).all(|w| w[0] < w[1]));
        assert!(ALPHA2
            .iter()
            .all(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase())));
        for c in [
            "US", "CO", "GB", "PH", "MX", "BR", "AR", "IN", "AU", "CA", "XK",
        ] {
            assert_eq!(is_assigned_country(c), c != "XK", "{c}");
        }
        for c in ["UK", "EU", "XX", "AA", "ZZ", "us", "USA", ""] {
            assert!(!is_assigned_country(c), "{c}");
        }
    }

    #[test]
    fn routing_prefixes() {
        // Make every prefix's number valid by fixing the check digit, then see which pass.
        let mut ok = vec![];
        for p in 0..100u32 {
            let base = format!("{p:02}100000");
            let d: Vec<u32> = base.bytes().map(|b| u32::from(b - b'0')).collect();
            let w = [3, 7, 1, 3, 7, 1, 3, 7];
            let s: u32 = d.iter().zip(w).map(|(x, w)| x * w).sum();
            let n = format!("{base}{}", (10 - s % 10) % 10);
            if check_routing_number(&n).is_ok() {
                ok.push(p);
            }
        }
        let expected: Vec<u32> = (0..=12).chain(21..=32).chain(61..=72).chain([80]).collect();
        assert_eq!(ok, expected);
    }

    #[test]
    fn empty_path_segments_are_skipped() {
        let rules = ValidationRules::from_value(&json!({"data": {"rules": {"requiredFields": [
            {"field": ".address..city"}, {"field": "."}]}}}));
        let draft = json!({"ownerType": "individual", "country": "CO", "paymentType": "pix", "paymentInfo": {},
                           "address": {}});
        let v = validate(&draft, Some(&rules), None);
        assert_eq!(
            v.issues,
            vec![Issue {
                path: "address.city".into(),
                code: IssueCode::Required
            }]
        );
    }

    #[test]
    fn only_parent_reported_when_parent_missing() {
        let rules = ValidationRules::from_value(&json!({"data": {"rules": {"requiredFields": [
            {"field": "address", "nestedFields": [{"field": "city"}]}]}}}));
        let draft = json!({"ownerType": "individual", "country": "CO", "paymentType": "pix", "paymentInfo": {}});
        let v = validate(&draft, Some(&rules), None);
        assert_eq!(
            v.issues,
            vec![Issue {
                path: "address".into(),
                code: IssueCode::Required
            }]
        );
    }

    proptest::proptest! {
        #[test]
        fn validate_never_panics(draft in arb_json(), rules in arb_json()) {
            let r = ValidationRules::from_value(&rules);
            let b = BankList::from_value("CO", &rules);
            let v = validate(&draft, Some(&r), b.as_ref());
            proptest::prop_assert_eq!(v.valid(), v.issues.is_empty());
        }
    }

    fn arb_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            prop_oneof![
                Just("CO".to_owned()),
                Just("US".to_owned()),
                Just("bank_account".to_owned()),
                Just("individual".to_owned()),
                Just("021000021".to_owned()),
                Just(" ".to_owned()),
                Just("field".to_owned()),
                Just("data".to_owned()),
                "[a-zA-Z.]{0,6}"
            ]
            .prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            let keys = prop_oneof![
                Just("ownerType"),
                Just("country"),
                Just("paymentType"),
                Just("paymentInfo"),
                Just("bankId"),
                Just("routingNumber"),
                Just("data"),
                Just("rules"),
                Just("requiredFields"),
                Just("paymentTypes"),
                Just("field"),
                Just("nestedFields"),
                Just("fields"),
                Just("type"),
                Just("id"),
                Just("a.b")
            ]
            .prop_map(str::to_owned);
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(keys, inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
