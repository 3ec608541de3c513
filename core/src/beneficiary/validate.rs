//! [`validate`]: every issue of a draft at its dotted path, fixed rules first, then the rules
//! document's, then the bank list.

use serde_json::{Map, Value};

use super::{
    check_routing_number, is_assigned_country, BankList, FieldRule, Issue, IssueCode,
    ValidationRules,
};

/// The result of a validation: every issue, not just the first.
///
/// ```
/// let v = xborder_core::beneficiary::validate(&serde_json::json!({}), None, None);
/// assert!(!v.valid());
/// assert_eq!(v.issues.len(), 4); // ownerType, country, paymentType, paymentInfo
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
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

pub(super) fn join(parent: &str, field: &str) -> String {
    let mut path = String::with_capacity(parent.len() + 1 + field.len());
    path.push_str(parent);
    push_segment(&mut path, field);
    path
}

/// Appends `field` to the dotted `path` (no dot before the first segment).
fn push_segment(path: &mut String, field: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(field);
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
    apply_rule_at(out, obj, &mut parent.to_owned(), rule);
}

/// `apply_rule` with the path so far in `path`, one buffer for the whole walk: each segment is
/// appended on the way down and `path` is as it was when this returns.
fn apply_rule_at(
    out: &mut Validation,
    obj: &Map<String, Value>,
    path: &mut String,
    rule: &FieldRule,
) {
    let base = path.len();
    walk_rule(out, obj, path, rule);
    path.truncate(base);
}

/// The walk of `apply_rule_at`, which puts `path` back as it was wherever this returns.
fn walk_rule(out: &mut Validation, obj: &Map<String, Value>, path: &mut String, rule: &FieldRule) {
    let mut here = obj;
    // Empty segments (`.address.city`, `a..b`) carry no name: they are skipped, and a rule with
    // no name at all is ignored (found by the `rules` fuzz target).
    let mut segments = rule.field.split('.').filter(|s| !s.is_empty()).peekable();
    if segments.peek().is_none() {
        return;
    }
    while let Some(seg) = segments.next() {
        push_segment(path, seg);
        let v = here.get(seg);
        if is_missing(v) {
            out.push(path.as_str(), IssueCode::Required);
            return;
        }
        let last = segments.peek().is_none();
        if last && rule.children.is_empty() {
            return;
        }
        match v.and_then(Value::as_object) {
            Some(o) => here = o,
            None => {
                out.push(path.as_str(), IssueCode::InvalidValue);
                return;
            }
        }
    }
    for child in &rule.children {
        apply_rule_at(out, here, path, child);
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
