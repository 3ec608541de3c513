//! [`BeneficiaryValidator::form`]: the fields a beneficiary form renders for a country, payment
//! type and owner type, in order, with their inputs, options, account kinds and labels.

use std::fmt;

use super::iban_registry::is_iban_country;
use super::validate::join;
use super::{
    is_assigned_country, AccountDetail, BankList, BeneficiaryValidator, FieldRule, IssueCode,
    ValidationRules,
};

/// Where a form field comes from.
///
/// ```
/// use xborder_core::beneficiary::FormSource;
/// assert_eq!(FormSource::Country.as_str(), "country");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormSource {
    /// A fixed rule of the provider's API (`paymentInfo`, `bankId`, `routingNumber`).
    Fixed,
    /// The rules document.
    Rules,
    /// The country's account fields, not required (the rules may not list them).
    Country,
}

impl FormSource {
    /// The wire name: `fixed`, `rules`, `country`.
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::FormSource::Rules.as_str(), "rules");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            FormSource::Fixed => "fixed",
            FormSource::Rules => "rules",
            FormSource::Country => "country",
        }
    }
}

/// The input a form renders for a field.
///
/// ```
/// use xborder_core::beneficiary::FormInput;
/// assert_eq!(FormInput::Choice.as_str(), "choice");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormInput {
    /// A field with sub-fields (`address`, `paymentInfo`).
    Group,
    /// A text input.
    Text,
    /// A choice among [`FormField::options`] (the bank, when a bank list is given).
    Choice,
}

impl FormInput {
    /// The wire name: `group`, `text`, `choice`.
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::FormInput::Group.as_str(), "group");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            FormInput::Group => "group",
            FormInput::Text => "text",
            FormInput::Choice => "choice",
        }
    }
}

/// One option of a choice: the value to send and the label to show.
///
/// ```
/// use xborder_core::beneficiary::FormOption;
/// let o = FormOption { value: "bank_de_1".into(), label: "Commerzbank".into() };
/// assert_eq!(o.value, "bank_de_1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FormOption {
    /// The value to send (a bank's `id`).
    pub value: String,
    /// What to show (a bank's `name`, else its `id`).
    pub label: String,
}

/// One field of the form.
///
/// ```
/// use xborder_core::beneficiary::{AccountDetail, BeneficiaryValidator};
/// let fields = BeneficiaryValidator::default().form("GB", "bank_account", None).unwrap();
/// let sort = &fields[2];
/// assert_eq!((sort.path.as_str(), sort.account, sort.label.as_str()),
///            ("paymentInfo.sortCode", Some(AccountDetail::SortCode), "Sort code"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FormField {
    /// The dotted payload path.
    pub path: String,
    /// Whether the draft needs it (fixed and rules fields).
    pub required: bool,
    /// Where it comes from.
    pub source: FormSource,
    /// The input to render.
    pub input: FormInput,
    /// The options of a choice (empty otherwise).
    pub options: Vec<FormOption>,
    /// The account kind the field holds in this country (for [`check_account`](super::check_account)).
    pub account: Option<AccountDetail>,
    /// What to show beside the input: the rules document's description, else an English label.
    pub label: String,
}

impl FormField {
    /// The count of characters of [`FormField::account`] in electronic form, `(min, max)`.
    ///
    /// ```
    /// use xborder_core::beneficiary::BeneficiaryValidator;
    /// let fields = BeneficiaryValidator::default().form("US", "bank_account", None).unwrap();
    /// assert_eq!(fields[1].length(), Some((9, 9)));
    /// ```
    pub fn length(&self) -> Option<(u8, u8)> {
        self.account.map(AccountDetail::length)
    }
}

/// Why a form is refused: the first of `INVALID_VALUE` (with the field), `RULES_UNREADABLE`,
/// `RULES_MISMATCH`, `BANKS_UNREADABLE`, `BANKS_MISMATCH`. A form built on the wrong document
/// is refused, never rendered.
///
/// ```
/// use xborder_core::beneficiary::BeneficiaryValidator;
/// let e = BeneficiaryValidator::default().form("de", "bank_account", None).unwrap_err();
/// assert_eq!((e.code.as_str(), e.field), ("INVALID_VALUE", Some("country")));
/// assert!(e.to_string().starts_with("INVALID_VALUE: `country` must be an assigned"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FormError {
    /// The code.
    pub code: IssueCode,
    /// The input concerned, for `INVALID_VALUE`: `country`, `paymentType` or `ownerType`.
    pub field: Option<&'static str>,
}

impl FormError {
    /// The stable code (`INVALID_VALUE`, `RULES_UNREADABLE`, `RULES_MISMATCH`,
    /// `BANKS_UNREADABLE`, `BANKS_MISMATCH`).
    ///
    /// ```
    /// use xborder_core::beneficiary::BeneficiaryValidator;
    /// let e = BeneficiaryValidator::default().form("DE", "", None).unwrap_err();
    /// assert_eq!((e.code(), e.field()), ("INVALID_VALUE", Some("paymentType")));
    /// ```
    pub fn code(&self) -> &'static str {
        self.code.as_str()
    }

    /// The input concerned (`country`, `paymentType`, `ownerType`), for `INVALID_VALUE`.
    ///
    /// ```
    /// use xborder_core::beneficiary::BeneficiaryValidator;
    /// let e = BeneficiaryValidator::default().form("DE", "bank_account", Some("person")).unwrap_err();
    /// assert_eq!(e.field(), Some("ownerType"));
    /// ```
    pub fn field(&self) -> Option<&'static str> {
        self.field
    }
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field {
            Some(field) => {
                let what = match field {
                    "country" => {
                        "an assigned upper-case ISO 3166-1 alpha-2 code (`DE`, `GB`, `US`)"
                    }
                    "paymentType" => {
                        "a payment type of the API (`bank_account`, `spei`, ...), not empty"
                    }
                    "ownerType" => "`individual` or `business` when given",
                    _ => "a valid value",
                };
                write!(f, "{}: `{field}` must be {what}", self.code)
            }
            None => write!(f, "{}: {}", self.code, self.code.message()),
        }
    }
}

impl std::error::Error for FormError {}

fn refuse(code: IssueCode) -> FormError {
    FormError { code, field: None }
}

/// The fields of the form, collected in order.
struct Collect {
    fields: Vec<(String, FormSource, Option<String>)>,
}

impl Collect {
    /// Adds `path` at its first place; a description met later labels it when it had none.
    fn add(&mut self, path: String, source: FormSource, description: Option<&str>) {
        let description = description.filter(|d| !d.is_empty());
        match self.fields.iter_mut().find(|(p, _, _)| *p == path) {
            Some((_, _, d)) => {
                if d.is_none() {
                    *d = description.map(str::to_owned);
                }
            }
            None => self
                .fields
                .push((path, source, description.map(str::to_owned))),
        }
    }

    /// A rule and its sub-fields, depth first, parents before children (a dotted name's
    /// segments each a field).
    fn rule(&mut self, parent: &str, rule: &FieldRule) {
        let mut path = parent.to_owned();
        let mut segments = rule.field.split('.').filter(|s| !s.is_empty()).peekable();
        if segments.peek().is_none() {
            return;
        }
        while let Some(seg) = segments.next() {
            path = join(&path, seg);
            let last = segments.peek().is_none();
            let description = rule.description.as_deref().filter(|_| last);
            self.add(path.clone(), FormSource::Rules, description);
        }
        for child in &rule.children {
            self.rule(&path, child);
        }
    }
}

/// The country's account fields (step 5), in order.
fn country_fields(country: &str, payment_type: &str) -> &'static [&'static str] {
    match (payment_type, country) {
        ("spei", "MX") => &["accountNumber"],
        ("bank_account", "GB") => &["sortCode", "accountNumber"],
        ("bank_account", "AR") => &["accountNumber", "bankDocumentNumber"],
        ("bank_account", "IN") => &["ifscCode", "accountNumber"],
        ("bank_account", "AU") => &["bsbNumber", "accountNumber"],
        ("bank_account", "CA") => &["branchCode", "accountNumber"],
        ("bank_account", c) if is_iban_country(c) => &["accountNumber", "bic"],
        ("bank_account", _) => &["accountNumber"],
        _ => &[],
    }
}

/// The account kind of a direct child of `paymentInfo`, for the payment type and country.
fn account_of(name: &str, country: &str, payment_type: &str) -> Option<AccountDetail> {
    use AccountDetail as D;
    if payment_type == "spei" {
        return (name == "accountNumber" && country == "MX").then_some(D::Clabe);
    }
    if payment_type != "bank_account" {
        return None;
    }
    match (name, country) {
        ("accountNumber", c) if is_iban_country(c) => Some(D::Iban),
        ("accountNumber", "MX") => Some(D::Clabe),
        ("accountNumber", "AR") => Some(D::Cbu),
        ("routingNumber", "US") => Some(D::Aba),
        ("bic", _) => Some(D::Bic),
        ("sortCode", "GB") => Some(D::SortCode),
        ("ifscCode", "IN") => Some(D::Ifsc),
        ("bsbNumber", "AU") => Some(D::Bsb),
        ("branchCode", "CA") => Some(D::BranchCode),
        ("bankDocumentNumber", "AR") => Some(D::Cuit),
        _ => None,
    }
}

/// An English label for a field without a description.
fn english_label(path: &str, account: Option<AccountDetail>) -> String {
    let name = path.rsplit('.').next().unwrap_or(path);
    let known = match (name, account) {
        (_, Some(AccountDetail::Iban)) => "IBAN",
        (_, Some(AccountDetail::Clabe)) => "CLABE",
        (_, Some(AccountDetail::Cbu)) => "CBU or alias",
        (_, Some(AccountDetail::Cuit)) => "CUIT or CUIL",
        (_, Some(AccountDetail::Bic)) => "BIC (SWIFT code)",
        (_, Some(AccountDetail::Ifsc)) => "IFSC",
        (_, Some(AccountDetail::SortCode)) => "Sort code",
        (_, Some(AccountDetail::Bsb)) => "BSB",
        (_, Some(AccountDetail::BranchCode)) => "Branch code (institution and transit)",
        (_, Some(AccountDetail::Aba)) => "Routing number",
        ("paymentInfo", _) => "Payment details",
        ("bankId", _) => "Bank",
        ("accountNumber", _) => "Account number",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_owned();
    }
    // `postalCode` as `Postal code`.
    let mut out = String::with_capacity(name.len() + 4);
    for (i, ch) in name.chars().enumerate() {
        if i == 0 {
            out.push(ch.to_ascii_uppercase());
        } else if ch.is_ascii_uppercase() {
            out.push(' ');
            out.push(ch.to_ascii_lowercase());
        } else if ch == '_' {
            out.push(' ');
        } else {
            out.push(ch);
        }
    }
    out
}

impl BeneficiaryValidator {
    /// The fields a beneficiary form renders for a country, payment type and (optionally) owner
    /// type, in the order a form shows them: the rules document's top-level fields (the form's
    /// own choices `ownerType`, `country`, `paymentType` and `paymentInfo` left out), then
    /// `paymentInfo`, the fixed bank field (`routingNumber` in the US, else `bankId`, a choice
    /// when a bank list is given), the payment type's fields, and the country's account fields
    /// not listed yet (not required). Each path once, at its first place. Documents that cannot
    /// be read or are for another country or owner type refuse the form ([`FormError`]).
    /// [`required_fields`](super::required_fields) stays the lower-level list.
    ///
    /// ```
    /// use serde_json::json;
    /// use xborder_core::beneficiary::{AccountDetail, BeneficiaryValidator, FormInput};
    /// let banks = json!({"data": [{"id": "bank_de_1", "name": "Commerzbank"}]});
    /// let v = BeneficiaryValidator::from_documents(None, Some("DE"), Some(&banks));
    /// let fields = v.form("DE", "bank_account", Some("individual")).unwrap();
    /// let paths: Vec<&str> = fields.iter().map(|f| f.path.as_str()).collect();
    /// assert_eq!(paths, ["paymentInfo", "paymentInfo.bankId", "paymentInfo.accountNumber", "paymentInfo.bic"]);
    /// assert_eq!(fields[1].input, FormInput::Choice);
    /// assert_eq!(fields[1].options[0].label, "Commerzbank");
    /// assert_eq!((fields[2].account, fields[2].label.as_str()), (Some(AccountDetail::Iban), "IBAN"));
    /// ```
    pub fn form(
        &self,
        country: &str,
        payment_type: &str,
        owner_type: Option<&str>,
    ) -> Result<Vec<FormField>, FormError> {
        let invalid = |field| FormError {
            code: IssueCode::InvalidValue,
            field: Some(field),
        };
        if !is_assigned_country(country) {
            return Err(invalid("country"));
        }
        if payment_type.is_empty() {
            return Err(invalid("paymentType"));
        }
        if owner_type.is_some_and(|o| !matches!(o, "individual" | "business")) {
            return Err(invalid("ownerType"));
        }
        let rules: Option<&ValidationRules> = match self.rules() {
            None => None,
            Some(Err(_)) => return Err(refuse(IssueCode::RulesUnreadable)),
            Some(Ok(r)) => {
                let other_country = r.country.as_deref().is_some_and(|c| c != country);
                let other_owner = r
                    .owner_type
                    .as_deref()
                    .is_some_and(|o| owner_type.is_some_and(|t| t != o));
                if other_country || other_owner {
                    return Err(refuse(IssueCode::RulesMismatch));
                }
                Some(r)
            }
        };
        let banks: Option<&BankList> = match self.banks() {
            None => None,
            Some(Err(_)) => return Err(refuse(IssueCode::BanksUnreadable)),
            Some(Ok(b)) if b.country != country => return Err(refuse(IssueCode::BanksMismatch)),
            Some(Ok(b)) => Some(b),
        };

        let mut c = Collect { fields: Vec::new() };
        // (1) The rules document's top-level fields, the form's own choices left out.
        let top = rules
            .map(|r| r.required_fields.as_slice())
            .unwrap_or_default();
        for rule in top {
            let name = rule.field.trim_matches('.');
            if !matches!(
                name,
                "ownerType" | "country" | "paymentType" | "paymentInfo"
            ) {
                c.rule("", rule);
            }
        }
        // (2), (3) The fixed fields.
        c.add("paymentInfo".to_owned(), FormSource::Fixed, None);
        if payment_type == "bank_account" {
            let bank = if country == "US" {
                "routingNumber"
            } else {
                "bankId"
            };
            c.add(join("paymentInfo", bank), FormSource::Fixed, None);
        }
        // (4) A top-level `paymentInfo` entry's sub-fields, then every entry of the payment type.
        for rule in top
            .iter()
            .filter(|r| r.field.trim_matches('.') == "paymentInfo")
        {
            c.add(
                "paymentInfo".to_owned(),
                FormSource::Fixed,
                rule.description.as_deref(),
            );
            for child in &rule.children {
                c.rule("paymentInfo", child);
            }
        }
        let entries = rules
            .into_iter()
            .flat_map(|r| &r.payment_types)
            .filter(|p| p.payment_type.as_deref() == Some(payment_type));
        for rule in entries.flat_map(|p| &p.required_fields) {
            if rule.field == "paymentInfo" {
                for child in &rule.children {
                    c.rule("paymentInfo", child);
                }
            } else {
                c.rule("paymentInfo", rule);
            }
        }
        // (5) The country's account fields not listed yet.
        for name in country_fields(country, payment_type) {
            c.add(join("paymentInfo", name), FormSource::Country, None);
        }

        let paths: Vec<&str> = c.fields.iter().map(|(p, _, _)| p.as_str()).collect();
        let has_children = |path: &str| {
            paths.iter().any(|p| {
                p.strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('.'))
            })
        };
        let mut out = Vec::with_capacity(c.fields.len());
        for (path, source, description) in &c.fields {
            let child = path
                .strip_prefix("paymentInfo.")
                .filter(|n| !n.contains('.'));
            let account = child.and_then(|n| account_of(n, country, payment_type));
            let (input, options) = if has_children(path) {
                (FormInput::Group, Vec::new())
            } else if let (Some(b), "paymentInfo.bankId") = (banks, path.as_str()) {
                let options = b
                    .banks
                    .iter()
                    .map(|bank| FormOption {
                        value: bank.id.clone(),
                        label: bank.name.clone().unwrap_or_else(|| bank.id.clone()),
                    })
                    .collect();
                (FormInput::Choice, options)
            } else {
                (FormInput::Text, Vec::new())
            };
            out.push(FormField {
                path: path.clone(),
                required: *source != FormSource::Country,
                source: *source,
                input,
                options,
                account,
                label: description
                    .clone()
                    .unwrap_or_else(|| english_label(path, account)),
            });
        }
        Ok(out)
    }
}
