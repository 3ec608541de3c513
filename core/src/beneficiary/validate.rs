//! [`validate`] and [`BeneficiaryValidator`]: every issue of a draft at its dotted path:
//! documents that cannot be read, the fixed rules, the rules document's, the bank list, the
//! account details.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::account::{iban_shaped, is_digits};
use super::iban_registry::is_iban_country;
use super::{
    is_assigned_country, AccountDetail, AccountDetailError, BankList, FieldRule, Issue, IssueCode,
    UnreadableDocument, ValidationRules,
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

    /// The issues at one path. The issues borrow from the validation alone, not from `path`,
    /// so a function can return one found with a path it built.
    ///
    /// ```
    /// use xborder_core::beneficiary::{validate, Issue, Validation};
    /// let v = validate(&serde_json::json!({}), None, None);
    /// assert_eq!(v.at("country").count(), 1);
    /// fn first_at<'v>(v: &'v Validation, field: &str) -> Option<&'v Issue> {
    ///     let path = format!("{field}");
    ///     v.at(&path).next()
    /// }
    /// assert_eq!(first_at(&v, "country").map(|i| i.code.as_str()), Some("REQUIRED"));
    /// ```
    pub fn at<'v, 'p>(&'v self, path: &'p str) -> IssuesAt<'v, 'p> {
        IssuesAt {
            issues: self.issues.iter(),
            path,
        }
    }

    fn push(&mut self, path: impl Into<String>, code: IssueCode) {
        self.push_with(path, code, Cow::Borrowed(code.message()));
    }

    /// Adds an issue with its own message, unless one of that code is already at that path.
    fn push_with(&mut self, path: impl Into<String>, code: IssueCode, message: Cow<'static, str>) {
        self.push_labelled(path, code, message, None);
    }

    /// [`Validation::push_with`] with the label of the rule that found the issue, when it has
    /// one (the rest are looked up in the document at the end).
    fn push_labelled(
        &mut self,
        path: impl Into<String>,
        code: IssueCode,
        message: Cow<'static, str>,
        label: Option<&str>,
    ) {
        let path = path.into();
        if !self.issues.iter().any(|i| i.code == code && i.path == path) {
            let mut issue = Issue::new(path, code);
            issue.message = message;
            issue.label = label.map(str::to_owned);
            self.issues.push(issue);
        }
    }

    /// Adds the issue of an account detail at `path`: its code, message, reason and figures.
    fn push_detail(&mut self, path: String, e: &AccountDetailError) {
        let code = e.detail.issue_code();
        if !self.issues.iter().any(|i| i.code == code && i.path == path) {
            let mut issue = Issue::new(path, code);
            issue.message = Cow::Owned(e.to_string());
            issue.reason = Some(e.reason());
            issue.params = e.params();
            self.issues.push(issue);
        }
    }
}

/// The issues of a [`Validation`] at one path ([`Validation::at`]).
///
/// ```
/// let v = xborder_core::beneficiary::validate(&serde_json::json!({}), None, None);
/// let mut at: xborder_core::beneficiary::IssuesAt<'_, '_> = v.at("ownerType");
/// assert_eq!(at.next().map(|i| i.code.as_str()), Some("REQUIRED"));
/// ```
#[derive(Debug, Clone)]
pub struct IssuesAt<'v, 'p> {
    issues: std::slice::Iter<'v, Issue>,
    path: &'p str,
}

impl<'v> Iterator for IssuesAt<'v, '_> {
    type Item = &'v Issue;

    fn next(&mut self) -> Option<&'v Issue> {
        let path = self.path;
        self.issues.find(|i| i.path == path)
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

pub(super) fn is_missing(v: Option<&Value>) -> bool {
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
            out.push_with(
                join(parent, key),
                IssueCode::InvalidValue,
                Cow::Borrowed("this value must be a string"),
            );
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
    // An issue at the rule's own field carries its description; one at a parent segment is
    // labelled at the end, from whichever rule describes that path.
    let described = rule.description.as_deref().filter(|d| !d.is_empty());
    while let Some(seg) = segments.next() {
        push_segment(path, seg);
        let v = here.get(seg);
        let last = segments.peek().is_none();
        let label = described.filter(|_| last);
        if is_missing(v) {
            let code = IssueCode::Required;
            out.push_labelled(path.as_str(), code, Cow::Borrowed(code.message()), label);
            return;
        }
        if last && rule.children.is_empty() {
            return;
        }
        match v.and_then(Value::as_object) {
            Some(o) => here = o,
            None => {
                let code = IssueCode::InvalidValue;
                out.push_labelled(path.as_str(), code, Cow::Borrowed(code.message()), label);
                return;
            }
        }
    }
    for child in &rule.children {
        apply_rule_at(out, here, path, child);
    }
}

/// A rules document and a bank list read once (each optional, each as the server sent it), to
/// validate many drafts against: what a form that validates on every keystroke keeps. A
/// document that was given and cannot be read is kept as such: every validation reports it
/// (`RULES_UNREADABLE`, `BANKS_UNREADABLE` at path `""`) and applies none of its rules.
///
/// ```
/// use serde_json::json;
/// use xborder_core::beneficiary::BeneficiaryValidator;
/// let rules = r#"{"data": {"country": "CO", "ownerType": "individual",
///     "rules": {"requiredFields": [{"field": "firstName", "description": "First name"}]}}}"#;
/// let banks = json!({"data": [{"id": "bank_co_001", "name": "Bancolombia"}]});
/// let v = BeneficiaryValidator::from_documents(Some(&json!(rules)), Some("CO"), Some(&banks));
/// let draft = json!({"ownerType": "individual", "country": "CO", "paymentType": "bank_account",
///                    "paymentInfo": {"bankId": "bank_co_404"}});
/// let found = v.validate(&draft);
/// assert_eq!(found.issues.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
///            ["firstName: REQUIRED", "paymentInfo.bankId: UNKNOWN_BANK"]);
/// assert_eq!(found.issues[0].label.as_deref(), Some("First name"));
///
/// // The bare `data` array is not the bank list: reported, never read as "no list".
/// let unreadable = BeneficiaryValidator::from_documents(None, Some("CO"), Some(&json!([])));
/// assert_eq!(unreadable.validate(&draft).issues[0].code.as_str(), "BANKS_UNREADABLE");
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BeneficiaryValidator {
    rules: Option<Result<ValidationRules, UnreadableDocument>>,
    banks: Option<Result<BankList, UnreadableDocument>>,
}

impl BeneficiaryValidator {
    /// A validator over documents already read (`None`: not given).
    ///
    /// ```
    /// use xborder_core::beneficiary::{BankList, BeneficiaryValidator, ValidationRules};
    /// let v = BeneficiaryValidator::new(Some(ValidationRules::from_json("{}")), Some(BankList::from_json("CO", r#"{"data": []}"#)));
    /// assert_eq!(v.validate(&serde_json::json!({})).issues[0].code.as_str(), "RULES_UNREADABLE");
    /// ```
    pub fn new(
        rules: Option<Result<ValidationRules, UnreadableDocument>>,
        banks: Option<Result<BankList, UnreadableDocument>>,
    ) -> Self {
        BeneficiaryValidator { rules, banks }
    }

    /// Reads the documents as given: each parsed, or as its response text (a JSON string);
    /// absent or `null` is not given. `banks_country` is the country the bank list was asked
    /// for (a list without it is for no country: `BANKS_MISMATCH`).
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use xborder_core::beneficiary::BeneficiaryValidator;
    /// let none = BeneficiaryValidator::from_documents(Some(&Value::Null), None, None);
    /// assert_eq!(none, BeneficiaryValidator::default());
    /// ```
    pub fn from_documents(
        rules: Option<&Value>,
        banks_country: Option<&str>,
        banks: Option<&Value>,
    ) -> Self {
        BeneficiaryValidator {
            rules: given(rules).map(ValidationRules::from_value),
            banks: given(banks).map(|b| BankList::from_parts(banks_country, b)),
        }
    }

    /// The rules document as read: `None` when not given.
    ///
    /// ```
    /// use xborder_core::beneficiary::BeneficiaryValidator;
    /// assert!(BeneficiaryValidator::default().rules().is_none());
    /// ```
    pub fn rules(&self) -> Option<Result<&ValidationRules, &UnreadableDocument>> {
        self.rules.as_ref().map(Result::as_ref)
    }

    /// The bank list as read: `None` when not given.
    ///
    /// ```
    /// use xborder_core::beneficiary::BeneficiaryValidator;
    /// assert!(BeneficiaryValidator::default().banks().is_none());
    /// ```
    pub fn banks(&self) -> Option<Result<&BankList, &UnreadableDocument>> {
        self.banks.as_ref().map(Result::as_ref)
    }

    /// Every issue of one draft (the JSON payload of `POST /v1/beneficiaries`).
    ///
    /// ```
    /// let v = xborder_core::beneficiary::BeneficiaryValidator::default();
    /// assert_eq!(v.validate(&serde_json::json!({})).issues.len(), 4);
    /// ```
    pub fn validate(&self, draft: &Value) -> Validation {
        check(draft, self.rules(), self.banks())
    }
}

/// Validates a draft (the JSON payload of `POST /v1/beneficiaries`), with an optional rules
/// document and bank list already read. See the module docs for the rules;
/// [`BeneficiaryValidator`] takes the documents as the server sent them.
///
/// ```
/// use serde_json::json;
/// use xborder_core::beneficiary::{validate, BankList, IssueCode};
/// let banks = BankList::from_value("CO", &json!({"data": [{"id": "bank_co_001", "name": "Bancolombia"}]})).unwrap();
/// let draft = json!({"ownerType": "individual", "country": "CO", "paymentType": "bank_account",
///                    "paymentInfo": {"bankId": "bank_xx"}});
/// let v = validate(&draft, None, Some(&banks));
/// assert_eq!(v.issues[0].path, "paymentInfo.bankId");
/// assert_eq!(v.issues[0].code, IssueCode::UnknownBank);
/// ```
pub fn validate(
    draft: &Value,
    rules: Option<&ValidationRules>,
    banks: Option<&BankList>,
) -> Validation {
    check(draft, rules.map(Ok), banks.map(Ok))
}

/// A document is given when it is there and not `null`.
fn given(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

type Doc<'a, T> = Option<Result<&'a T, &'a UnreadableDocument>>;

fn check(draft: &Value, rules: Doc<'_, ValidationRules>, banks: Doc<'_, BankList>) -> Validation {
    let mut out = Validation::default();
    // Documents that cannot be read, whatever the draft: reported, none of their rules applied.
    let rules_err = rules.and_then(Result::err);
    for e in rules_err.into_iter().chain(banks.and_then(Result::err)) {
        out.push_with("", e.document.issue_code(), Cow::Owned(e.to_string()));
    }
    let (rules, banks) = (rules.and_then(Result::ok), banks.and_then(Result::ok));
    let Some(root) = draft.as_object() else {
        out.push_with(
            "",
            IssueCode::InvalidValue,
            Cow::Borrowed(
                "the draft must be a JSON object (the payload of POST /v1/beneficiaries)",
            ),
        );
        return out;
    };
    let owner = required_str(&mut out, root, "", "ownerType").filter(|o| {
        let ok = matches!(*o, "individual" | "business");
        if !ok {
            out.push_with(
                "ownerType",
                IssueCode::InvalidValue,
                Cow::Borrowed("the owner type must be individual or business"),
            );
        }
        ok
    });
    let country = required_str(&mut out, root, "", "country").filter(|c| {
        let ok = is_assigned_country(c);
        if !ok {
            out.push_with(
                "country",
                IssueCode::InvalidValue,
                Cow::Borrowed("the country must be an ISO 3166-1 alpha-2 code in upper case, such as US or CO"),
            );
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
            out.push_with(
                "paymentInfo",
                IssueCode::InvalidValue,
                Cow::Borrowed("the payment details must be an object"),
            );
        }
        pi
    };

    // The rules document, when it is for this draft.
    let mut applied = None;
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
            applied = Some(rules);
            for rule in &rules.required_fields {
                apply_rule(&mut out, root, "", rule);
            }
            if let Some(pt) = payment_type {
                let listed = rules.listed_payment_types();
                if !listed.is_empty() && !listed.contains(&pt) {
                    out.push("paymentType", IssueCode::UnsupportedPaymentType);
                }
                if let Some(pi) = payment_info {
                    for rule in rules.under_payment_info(pt) {
                        apply_rule(&mut out, pi, "paymentInfo", rule);
                    }
                }
            }
        }
    }

    // The fixed rules of the provider's API.
    if let Some(country) = country {
        let banks = banks.filter(|b| {
            let same = b.country == country;
            if !same {
                out.push("country", IssueCode::BanksMismatch);
            }
            same
        });
        if let (Some("bank_account"), Some(pi)) = (payment_type, payment_info) {
            if country == "US" {
                // Read as every account detail is: ASCII spaces and hyphens removed (`--` is
                // checked, and has no digit).
                if let Some(rn) = required_str(&mut out, pi, "paymentInfo", "routingNumber") {
                    if let Err(e) = AccountDetail::Aba.check(rn) {
                        out.push_detail("paymentInfo.routingNumber".to_owned(), &e);
                    }
                }
            } else if let Some(id) = required_str(&mut out, pi, "paymentInfo", "bankId") {
                if banks.is_some_and(|b| !b.contains(id)) {
                    out.push("paymentInfo.bankId", IssueCode::UnknownBank);
                }
            }
        }
    }

    if let (Some(pt), Some(pi)) = (payment_type, payment_info) {
        account_details(&mut out, pi, pt, country);
    }
    if let Some(rules) = applied {
        for issue in out.issues.iter_mut().filter(|i| i.label.is_none()) {
            issue.label = label(rules, payment_type, &issue.path).map(str::to_owned);
        }
    }
    out
}

/// The account-details table (the crate's front page): which fields of `paymentInfo` are checked as which detail.
fn account_details(
    out: &mut Validation,
    pi: &Map<String, Value>,
    payment_type: &str,
    country: Option<&str>,
) {
    for field in DETAIL_FIELDS {
        if checked_field(field, payment_type, country) {
            check_detail(out, pi, field, |v| {
                account_detail_of(field, v, payment_type, country)
            });
        }
    }
}

/// The fields of `paymentInfo` read as account details (the routing number aside: a fixed
/// rule), in the order their issues are reported.
const DETAIL_FIELDS: [&str; 7] = [
    "bankDocumentNumber",
    "bic",
    "ifscCode",
    "sortCode",
    "bsbNumber",
    "branchCode",
    "accountNumber",
];

/// Whether `field` of `paymentInfo` is read as an account detail for this payment type and
/// country (so a value that is not a string there is `INVALID_VALUE`): `accountNumber` for
/// `bank_account` (and `spei` to `MX`), the BIC for `bank_account` whatever the country, the
/// others for `bank_account` to their country.
fn checked_field(field: &str, payment_type: &str, country: Option<&str>) -> bool {
    let bank_account = payment_type == "bank_account";
    if field == "accountNumber" {
        return bank_account || (payment_type == "spei" && country == Some("MX"));
    }
    bank_account
        && AccountDetail::ALL
            .iter()
            .find(|d| d.field() == field)
            .is_some_and(|d| d.country().is_none_or(|c| country == Some(c)))
}

/// The detail a string `value` of `field` (of `paymentInfo`) is checked as, for a draft of this
/// payment type to `country` (`None`: invalid), or `None` when it is not checked. The routing
/// number is one of `bank_account` to `US`. `accountNumber` is read as whichever detail the
/// country and its shape make it, only where the country is valid: in Argentina a CBU at 22
/// digits, else an alias (not checked); in an IBAN country always an IBAN; elsewhere an IBAN
/// when it starts with two letters (dots and all), a CLABE of 18 digits in Mexico (for `spei`
/// too); one in another shape (a Colombian `123456`, a Mexican card number) is not checked.
pub(super) fn account_detail_of(
    field: &str,
    value: &str,
    payment_type: &str,
    country: Option<&str>,
) -> Option<AccountDetail> {
    let bank_account = payment_type == "bank_account";
    match field {
        "routingNumber" => (bank_account && country == Some("US")).then_some(AccountDetail::Aba),
        "accountNumber" => {
            let country = country?;
            if bank_account && country == "AR" {
                is_digits(value, 22).then_some(AccountDetail::Cbu)
            } else if bank_account && (is_iban_country(country) || iban_shaped(value)) {
                Some(AccountDetail::Iban)
            } else if country == "MX"
                && (bank_account || payment_type == "spei")
                && is_digits(value, 18)
            {
                Some(AccountDetail::Clabe)
            } else {
                None
            }
        }
        _ => checked_field(field, payment_type, country)
            .then(|| {
                AccountDetail::ALL
                    .iter()
                    .copied()
                    .find(|d| d.field() == field)
            })
            .flatten(),
    }
}

/// Checks one field of `paymentInfo` when present as a non-blank string (blank ones are left to
/// the `REQUIRED` rules; any other kind is `INVALID_VALUE`), at most one issue per field.
fn check_detail(
    out: &mut Validation,
    pi: &Map<String, Value>,
    field: &str,
    detail: impl FnOnce(&str) -> Option<AccountDetail>,
) {
    let Some(v) = pi.get(field).filter(|v| !is_missing(Some(v))) else {
        return;
    };
    let found = match v.as_str() {
        None => None,
        Some(s) => match detail(s).map(|d| d.check(s)) {
            Some(Err(e)) => Some(e),
            _ => return,
        },
    };
    // At most one issue per field: one the rules document found there stays the only one.
    let at_field = |i: &Issue| {
        i.path
            .strip_prefix("paymentInfo.")
            .is_some_and(|f| f == field)
    };
    if out.issues.iter().any(at_field) {
        return;
    }
    let path = format!("paymentInfo.{field}");
    match found {
        Some(e) => out.push_detail(path, &e),
        None => out.push_with(
            path,
            IssueCode::InvalidValue,
            Cow::Borrowed("this value must be a string"),
        ),
    }
}

/// The rules document's description of the field at `path`, where it has one.
fn label<'r>(
    rules: &'r ValidationRules,
    payment_type: Option<&str>,
    path: &str,
) -> Option<&'r str> {
    if let Some(d) = described(&rules.required_fields, path) {
        return Some(d);
    }
    let rest = path.strip_prefix("paymentInfo.")?;
    rules
        .under_payment_info(payment_type?)
        .find_map(|r| described(std::slice::from_ref(r), rest))
}

fn described<'r>(rules: &'r [FieldRule], path: &str) -> Option<&'r str> {
    rules.iter().find_map(|r| {
        let rest = strip_field(path, &r.field)?;
        if rest.is_empty() {
            r.description.as_deref().filter(|d| !d.is_empty())
        } else {
            described(&r.children, rest)
        }
    })
}

/// `path` after the segments of a rule's dotted `field` (empty segments skipped, as the rule
/// walk skips them): `""` when it is the whole path, `None` when `path` is elsewhere.
fn strip_field<'p>(path: &'p str, field: &str) -> Option<&'p str> {
    let mut rest = path;
    let mut any = false;
    for seg in field.split('.').filter(|s| !s.is_empty()) {
        if any {
            rest = rest.strip_prefix('.')?;
        }
        rest = rest.strip_prefix(seg)?;
        if !rest.is_empty() && !rest.starts_with('.') {
            return None;
        }
        any = true;
    }
    if !any {
        return None;
    }
    Some(rest.strip_prefix('.').unwrap_or(rest))
}
