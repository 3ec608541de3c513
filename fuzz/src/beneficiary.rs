// rules / banks: beneficiary validation, the documents as given (parsed or as their text), and
// the account details.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use xborder_core::beneficiary::{
    self, is_assigned_country, AccountDetail, AccountProblem, BankList, BeneficiaryDraft,
    BeneficiaryValidator, CountryLetters, Document, FieldRule, FormError, FormInput, FormSource,
    IssueCode, Unreadable, UnreadableDocument, Validation, ValidationRules,
};

use crate::is_code;

/// The fields of `paymentInfo` read as account details (FORMAT.md's "Account details"): each
/// gets at most one issue.
const ACCOUNT_FIELDS: [&str; 7] = [
    "accountNumber",
    "bankDocumentNumber",
    "bic",
    "ifscCode",
    "sortCode",
    "bsbNumber",
    "branchCode",
];

/// The issue codes of the account-detail checks.
fn is_account_code(code: IssueCode) -> bool {
    AccountDetail::ALL.iter().any(|d| d.issue_code() == code)
}

fn account_path(path: &str) -> Option<&str> {
    path.strip_prefix("paymentInfo.")
        .filter(|f| ACCOUNT_FIELDS.contains(f))
}

fn issue_set(v: &Validation) -> BTreeSet<(String, IssueCode)> {
    v.issues.iter().map(|i| (i.path.clone(), i.code)).collect()
}

fn is_unreadable(code: IssueCode) -> bool {
    matches!(
        code,
        IssueCode::RulesUnreadable | IssueCode::BanksUnreadable
    )
}

/// What holds of every validation: `valid` iff no issue, each issue once, stable codes, a
/// message that says something, a label that is not empty, a path (empty only for a document
/// that cannot be read or a draft that is not an object), at most one issue per account-detail
/// field.
fn check_validation(draft: &Value, v: &Validation) {
    assert_eq!(v.valid(), v.issues.is_empty());
    assert_eq!(
        issue_set(v).len(),
        v.issues.len(),
        "an issue reported twice: {:?}",
        v.issues
    );
    for issue in &v.issues {
        assert!(is_code(issue.code.as_str()));
        assert!(
            !issue.message.trim().is_empty(),
            "an issue without a message: {issue:?}"
        );
        assert_ne!(
            issue.label.as_deref(),
            Some(""),
            "an empty label: {issue:?}"
        );
        if is_unreadable(issue.code) {
            assert_eq!(issue.path, "", "{issue:?}");
        } else if issue.path.is_empty() {
            assert!(
                !draft.is_object(),
                "empty path on an object draft: {:?}",
                v.issues
            );
        }
        assert_eq!(
            v.at(&issue.path).count(),
            v.issues.iter().filter(|i| i.path == issue.path).count()
        );
        if account_path(&issue.path).is_some() {
            assert_eq!(
                v.at(&issue.path).count(),
                1,
                "two issues at one account field: {:?}",
                v.issues
            );
        }
    }
    if !draft.is_object() {
        let mut want = BTreeSet::from([(String::new(), IssueCode::InvalidValue)]);
        want.extend(
            v.issues
                .iter()
                .filter(|i| is_unreadable(i.code))
                .map(|i| (i.path.clone(), i.code)),
        );
        assert_eq!(issue_set(v), want);
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The typed draft agrees with the raw one: it round-trips through its JSON and validates to the
/// same issues.
fn check_typed_draft(
    draft: &Value,
    rules: Option<&ValidationRules>,
    banks: Option<&BankList>,
    raw: &Validation,
) {
    let Ok(typed) = serde_json::from_value::<BeneficiaryDraft>(draft.clone()) else {
        return;
    };
    let back = BeneficiaryDraft::from_json(&typed.to_json()).expect("to_json parses");
    assert_eq!(back, typed, "BeneficiaryDraft does not round-trip");
    let v = typed.validate(rules, banks);
    assert_eq!(
        issue_set(&v),
        issue_set(raw),
        "typed and raw drafts validate differently"
    );
}

// ---------------------------------------------------------------------------------------------
// Documents: read as given, or reported.

/// FORMAT.md's "Documents": a string is the response text, parsed once; what is read must be an
/// object. `Err` is why not.
fn model_parsed(given: &Value) -> Result<Value, Unreadable> {
    let parsed = match given {
        Value::String(text) => serde_json::from_str(text).map_err(|_| Unreadable::NotJson)?,
        v => v.clone(),
    };
    if parsed.is_object() {
        Ok(parsed)
    } else {
        Err(Unreadable::NotAnObject)
    }
}

/// Without the document's shape: an error body when it has an `error` key.
fn not_the_document(obj: &Value) -> Unreadable {
    if obj.get("error").is_some() {
        Unreadable::ErrorBody
    } else {
        Unreadable::NotTheDocument
    }
}

/// A rules document is readable when its `data` is an object holding a `rules` object, or when
/// it has no `data` key and holds a `rules` object; `requiredFields` and `paymentTypes` each
/// absent, null or an array.
fn model_rules(given: &Value) -> Result<(), Unreadable> {
    let doc = model_parsed(given)?;
    let rules = match doc.get("data") {
        Some(data) => data.get("rules"),
        None => doc.get("rules"),
    }
    .and_then(Value::as_object)
    .ok_or_else(|| not_the_document(&doc))?;
    for key in ["requiredFields", "paymentTypes"] {
        if !matches!(rules.get(key), None | Some(Value::Null | Value::Array(_))) {
            return Err(Unreadable::NotAnArray(key));
        }
    }
    Ok(())
}

/// A bank list is readable when its `data` is an array: the items with a string `id`.
fn model_banks(given: &Value) -> Result<Vec<String>, Unreadable> {
    let doc = model_parsed(given)?;
    let items = doc
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| not_the_document(&doc))?;
    Ok(items
        .iter()
        .filter_map(|b| b.get("id")?.as_str().map(str::to_owned))
        .collect())
}

/// What holds of a document read from `given` (whose text in the input was `raw`): the reason
/// is the model's; `from_value` of a string, `from_json` of its text and `from_json` of the raw
/// input agree; a parsed document reads as its own text; a document encoded twice is not read.
fn check_reading<T: PartialEq + std::fmt::Debug>(
    document: Document,
    given: &Value,
    raw: &[u8],
    got: &Result<T, UnreadableDocument>,
    model: Result<(), Unreadable>,
    from_value: impl Fn(&Value) -> Result<T, UnreadableDocument>,
    from_json: impl Fn(&[u8]) -> Result<T, UnreadableDocument>,
) {
    assert_eq!(
        got.as_ref().err().map(|e| e.reason),
        model.err(),
        "read vs FORMAT.md's Documents for {given}"
    );
    if let Err(e) = got {
        assert_eq!(e.document, document);
        assert_eq!(e.code(), document.issue_code().as_str());
        assert!(is_code(e.code()));
        let text = e.to_string();
        assert!(text.contains("cannot be read"), "{text}");
    }
    let text = given.to_string();
    match given {
        Value::String(s) => {
            assert_eq!(&from_json(s.as_bytes()), got, "from_json vs from_value");
            // The text of a text is a JSON string: encoded twice, not the document.
            let twice = from_json(text.as_bytes()).expect_err("a document encoded twice");
            assert_eq!(twice.reason, Unreadable::NotAnObject);
        }
        _ => {
            assert_eq!(&from_json(text.as_bytes()), got, "from_json vs from_value");
            assert_eq!(&from_json(raw), got, "from_json of the input vs from_value");
            assert_eq!(
                &from_value(&Value::String(text)),
                got,
                "a document and its text read differently"
            );
        }
    }
}

/// What a validator over a document (`given`; `unreadable`: why it cannot be read, `None` when it
/// can) adds to the validation of the same draft with the document applied (`applied`, the
/// validation without any document when it cannot be read): a document that cannot be read is
/// exactly one issue first, at `""`, with its reason as the message, and nothing else changes;
/// `null` is no document.
fn check_validator(
    validator: &BeneficiaryValidator,
    draft: &Value,
    given: &Value,
    unreadable: Option<&UnreadableDocument>,
    applied: &Validation,
) {
    let v = validator.validate(draft);
    check_validation(draft, &v);
    assert_eq!(v, validator.validate(draft), "not deterministic");
    if given.is_null() {
        assert_eq!(validator, &BeneficiaryValidator::default());
        assert_eq!(&v, applied, "a null document changed the validation");
        return;
    }
    match unreadable {
        None => assert_eq!(&v, applied, "validator vs validate"),
        Some(e) => {
            let code = e.document.issue_code();
            let first = v.issues.first().expect("an unreadable document reported");
            assert_eq!((first.path.as_str(), first.code), ("", code));
            assert_eq!(first.message, e.to_string());
            assert_eq!(first.label, None);
            assert_eq!(v.issues.iter().filter(|i| i.code == code).count(), 1);
            assert_eq!(
                v.issues.get(1..).unwrap_or_default(),
                applied.issues.as_slice(),
                "an unreadable document changed the other issues"
            );
            assert!(!v.valid());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Account details.

/// ASCII spaces and hyphens removed, ASCII letters upper-cased: how every detail is read. One
/// byte per character (a Unicode scalar value: lengths count them), `0xFF` for one that is not
/// ASCII (no layout accepts it).
fn compact(value: &str) -> Vec<u8> {
    value
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .map(|c| {
            u8::try_from(c)
                .ok()
                .filter(u8::is_ascii)
                .map_or(0xFF, |b| b.to_ascii_uppercase())
        })
        .collect()
}

fn all_digits(b: &[u8]) -> bool {
    b.iter().all(u8::is_ascii_digit)
}

fn alnum(b: &[u8]) -> bool {
    b.iter()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

fn letters(b: &[u8]) -> bool {
    b.iter().all(u8::is_ascii_uppercase)
}

fn digit(b: &[u8], i: usize) -> u32 {
    u32::from(b[i] - b'0')
}

/// FORMAT.md's `(10 − Σ (dᵢ·wᵢ mod 10) mod 10) mod 10`.
fn weighted(b: &[u8], weights: &[u32]) -> u32 {
    let s: u32 = (0..weights.len())
        .map(|i| digit(b, i) * weights[i] % 10)
        .sum();
    (10 - s % 10) % 10
}

fn length(expected: u8, b: &[u8]) -> Result<(), AccountProblem> {
    if b.len() == usize::from(expected) {
        Ok(())
    } else {
        Err(AccountProblem::Length {
            expected,
            actual: b.len(),
        })
    }
}

fn digits_of(expected: u8, b: &[u8]) -> Result<(), AccountProblem> {
    length(expected, b)?;
    if all_digits(b) {
        Ok(())
    } else {
        Err(AccountProblem::Layout)
    }
}

fn check_digits(ok: bool) -> Result<(), AccountProblem> {
    if ok {
        Ok(())
    } else {
        Err(AccountProblem::CheckDigits)
    }
}

/// FORMAT.md's rules of every detail but the IBAN (whose registry is core's static data),
/// written again from the table: the verdict and the problem.
fn model_detail(kind: AccountDetail, value: &str) -> Option<Result<(), AccountProblem>> {
    let b = compact(value);
    Some(match kind {
        AccountDetail::Iban => return None,
        AccountDetail::SortCode | AccountDetail::Bsb => digits_of(6, &b),
        AccountDetail::BranchCode => digits_of(8, &b),
        AccountDetail::Clabe => digits_of(18, &b).and_then(|()| {
            check_digits(
                digit(&b, 17) == weighted(&b, &[3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7]),
            )
        }),
        AccountDetail::Cbu => digits_of(22, &b).and_then(|()| {
            let first = weighted(&b, &[7, 1, 3, 9, 7, 1, 3]);
            let second = weighted(&b[8..], &[3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3]);
            check_digits(digit(&b, 7) == first && digit(&b, 21) == second)
        }),
        AccountDetail::Cuit => digits_of(11, &b).and_then(|()| {
            let kind = digit(&b, 0) * 10 + digit(&b, 1);
            if ![20, 23, 24, 27, 30, 33, 34, 50, 51, 55].contains(&kind) {
                return Err(AccountProblem::UnknownType);
            }
            let s: u32 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]
                .iter()
                .enumerate()
                .map(|(i, w)| digit(&b, i) * w)
                .sum();
            let want = match s % 11 {
                0 => 0,
                1 => 9,
                r => 11 - r,
            };
            check_digits(digit(&b, 10) == want)
        }),
        AccountDetail::Bic => {
            if b.len() != 8 && b.len() != 11 {
                Err(AccountProblem::Length {
                    expected: 11,
                    actual: b.len(),
                })
            } else if !letters(&b[..6]) || !alnum(&b[6..]) {
                Err(AccountProblem::Layout)
            } else {
                let cc = std::str::from_utf8(&b[4..6]).expect("ASCII letters");
                if cc == "XK" || is_assigned_country(cc) {
                    Ok(())
                } else {
                    Err(AccountProblem::UnknownBicCountry {
                        country: CountryLetters::new(&b[4..6]).expect("ASCII letters"),
                    })
                }
            }
        }
        AccountDetail::Aba => digits_of(9, &b).and_then(|()| {
            let prefix = digit(&b, 0) * 10 + digit(&b, 1);
            if !matches!(prefix, 0..=12 | 21..=32 | 61..=72 | 80) || b.iter().all(|d| *d == b'0') {
                return Err(AccountProblem::UnknownType);
            }
            let s: u32 = [3, 7, 1, 3, 7, 1, 3, 7, 1]
                .iter()
                .enumerate()
                .map(|(i, w)| digit(&b, i) * w)
                .sum();
            check_digits(s % 10 == 0)
        }),
        AccountDetail::Ifsc => length(11, &b).and_then(|()| {
            if letters(&b[..4]) && b[4] == b'0' && alnum(&b[5..]) {
                Ok(())
            } else {
                Err(AccountProblem::Layout)
            }
        }),
        _ => return None,
    })
}

/// The IBAN check, where it does not depend on the registry: a valid IBAN has two letters,
/// two digits (never `00`, `01`, `99`), letters and digits, and is 1 mod 97 (letters as 10…35)
/// with its first four moved to the end; `CHECK_DIGITS` only for a number of that shape that is
/// not, or whose check digits are never issued; `LAYOUT` first when the first two characters
/// are not letters; a length problem counts the characters.
fn check_iban_model(value: &str, got: Result<(), AccountProblem>) {
    let b = compact(value);
    let shaped = b.len() >= 5 && letters(&b[..2]) && all_digits(&b[2..4]) && alnum(&b[4..]);
    let reserved = b.len() >= 4 && matches!(&b[2..4], b"00" | b"01" | b"99");
    let mod97 = || {
        b[4..].iter().chain(&b[..4]).fold(0u32, |rem, c| match c {
            b'0'..=b'9' => (rem * 10 + u32::from(c - b'0')) % 97,
            _ => (rem * 100 + u32::from(c - b'A') + 10) % 97,
        })
    };
    let country_letters = b.len() >= 2 && letters(&b[..2]);
    // The registry's shortest IBANs (Norway's) have 15 characters, its countries are letters.
    let registered = b.len() >= 15 && country_letters;
    match got {
        Ok(()) => assert!(
            registered && shaped && !reserved && mod97() == 1,
            "a valid IBAN {value:?}"
        ),
        Err(AccountProblem::CheckDigits) => assert!(
            registered && shaped && (reserved || mod97() != 1),
            "IBAN check digits of {value:?}"
        ),
        Err(AccountProblem::Length { expected, actual }) => {
            assert!(country_letters, "{value:?}");
            assert_eq!(actual, b.len(), "{value:?}");
            assert_ne!(usize::from(expected), actual, "{value:?}");
        }
        Err(AccountProblem::UnknownCountry { country }) => {
            assert!(country_letters, "{value:?}");
            assert_eq!(country.as_str().as_bytes(), &b[..2], "{value:?}")
        }
        Err(AccountProblem::Layout) => {
            assert!(!country_letters || registered, "IBAN layout of {value:?}")
        }
        Err(other) => panic!("IBAN {value:?}: {other:?}"),
    }
}

/// The same value as a form may send it: separators added or removed, letters in either case.
fn spellings(value: &str) -> [String; 5] {
    let plain: String = value.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    let spaced: String = value
        .chars()
        .enumerate()
        .flat_map(|(i, c)| {
            let sep = match i % 4 {
                0 => None,
                1 => Some(' '),
                2 => Some('-'),
                _ => Some(' '),
            };
            sep.into_iter().chain(std::iter::once(c))
        })
        .collect();
    let toggled: String = value
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i % 2 == 0 {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect();
    [
        plain,
        spaced,
        value.to_ascii_lowercase(),
        value.to_ascii_uppercase(),
        format!(" -{toggled}- "),
    ]
}

/// Every kind of detail on `value`: no panic, the model's verdict and problem, a message and
/// the kind's code on failure, and the same answer however the value is spaced or cased.
fn check_detail_text(value: &str) {
    for &kind in AccountDetail::ALL {
        let got = kind.check(value);
        if let Err(e) = &got {
            assert_eq!(e.detail, kind);
            assert_eq!(e.code(), kind.issue_code().as_str());
            assert!(!e.to_string().trim().is_empty(), "{kind:?} {value:?}");
        }
        let problem = got.map_err(|e| e.problem);
        match model_detail(kind, value) {
            Some(want) => assert_eq!(problem, want, "{kind:?} {value:?} vs FORMAT.md"),
            None => check_iban_model(value, problem),
        }
        for other in spellings(value) {
            assert_eq!(
                kind.check(&other),
                got,
                "{kind:?}: {value:?} and {other:?} read differently"
            );
        }
    }
}

/// Every string under the draft's `paymentInfo` (at most 16) is checked as each detail.
fn check_detail_texts(draft: &Value) {
    let Some(pi) = draft.get("paymentInfo").and_then(Value::as_object) else {
        return;
    };
    for s in pi.values().filter_map(Value::as_str).take(16) {
        check_detail_text(s);
    }
}

fn is_missing(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// What FORMAT.md's account-detail table says of `field` in `pi`, for a draft of `payment_type`
/// to `country` (a valid one, else `None`): `None` for no issue, else the code and, for a
/// detail that fails, its error's message.
fn expected_account_issue(
    pi: &Map<String, Value>,
    field: &str,
    payment_type: &str,
    country: Option<&str>,
) -> Option<(IssueCode, Option<String>)> {
    let bank_account = payment_type == "bank_account";
    let value = pi.get(field).filter(|v| !is_missing(v))?;
    let checked = if field == "accountNumber" {
        bank_account || (payment_type == "spei" && country == Some("MX"))
    } else {
        let kind = AccountDetail::ALL.iter().find(|d| d.field() == field)?;
        bank_account && kind.country().is_none_or(|c| Some(c) == country)
    };
    if !checked {
        return None;
    }
    let Some(s) = value.as_str() else {
        return Some((IssueCode::InvalidValue, None));
    };
    let kind = if field == "accountNumber" {
        let b = compact(s);
        // FORMAT.md v4: only where the country is valid; in AR a CBU at 22 digits, else an
        // alias; in the IBAN countries always an IBAN; elsewhere two ASCII letters first (a dot
        // exempts nothing).
        let country = country?;
        let iban_shaped = b.len() >= 2 && b[..2].iter().all(u8::is_ascii_alphabetic);
        const IBAN_COUNTRIES: &str = "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO CH MC SM VA AD";
        let iban_country = IBAN_COUNTRIES.split(' ').any(|c| c == country);
        if bank_account && country == "AR" {
            if b.len() == 22 && all_digits(&b) {
                AccountDetail::Cbu
            } else {
                return None;
            }
        } else if bank_account && (iban_country || iban_shaped) {
            AccountDetail::Iban
        } else if country == "MX" && b.len() == 18 && all_digits(&b) {
            AccountDetail::Clabe
        } else {
            return None;
        }
    } else {
        *AccountDetail::ALL.iter().find(|d| d.field() == field)?
    };
    let e = kind.check(s).err()?;
    Some((kind.issue_code(), Some(e.to_string())))
}

/// The validation of a draft with no document (`base`): at each account-detail field, exactly
/// the issue FORMAT.md's table gives (code and message), with or without the rest of the draft.
fn check_accounts(draft: &Value, base: &Validation) {
    check_detail_texts(draft);
    let root = draft.as_object();
    let payment_type = root
        .and_then(|r| r.get("paymentType"))
        .filter(|v| !is_missing(v))
        .and_then(Value::as_str);
    let pi = root
        .and_then(|r| r.get("paymentInfo"))
        .and_then(Value::as_object);
    let country = root
        .and_then(|r| r.get("country"))
        .and_then(Value::as_str)
        .filter(|c| is_assigned_country(c));
    for field in ACCOUNT_FIELDS {
        let path = format!("paymentInfo.{field}");
        let got: Vec<_> = base.at(&path).collect();
        let want = match (payment_type, pi) {
            (Some(pt), Some(pi)) => expected_account_issue(pi, field, pt, country),
            _ => None,
        };
        match (got.as_slice(), want) {
            ([], None) => {}
            ([issue], Some((code, message))) => {
                assert_eq!(issue.code, code, "{path} of {draft}");
                if let Some(m) = message {
                    assert_eq!(issue.message, m, "{path} of {draft}");
                }
            }
            (got, want) => panic!("{path} of {draft}: {got:?}, FORMAT.md says {want:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The form model and the payload to send (contract v4).

/// The refusal FORMAT.md's `beneficiary.form` gives, in its order: an invalid country, an empty
/// payment type, an owner type other than `individual`/`business` (each `INVALID_VALUE` with the
/// field), then a rules document that cannot be read, then one for another country or owner
/// type.
fn model_form_refusal(
    country: &str,
    payment_type: &str,
    owner_type: Option<&str>,
    rules: Option<Result<&ValidationRules, &UnreadableDocument>>,
) -> Option<(IssueCode, Option<&'static str>)> {
    let invalid = |field| Some((IssueCode::InvalidValue, Some(field)));
    if !is_assigned_country(country) {
        return invalid("country");
    }
    if payment_type.is_empty() {
        return invalid("paymentType");
    }
    if owner_type.is_some_and(|o| o != "individual" && o != "business") {
        return invalid("ownerType");
    }
    match rules {
        None => None,
        Some(Err(_)) => Some((IssueCode::RulesUnreadable, None)),
        Some(Ok(r)) => {
            let other_country = r.country.as_deref().is_some_and(|c| c != country);
            let other_owner =
                matches!((r.owner_type.as_deref(), owner_type), (Some(a), Some(b)) if a != b);
            (other_country || other_owner).then_some((IssueCode::RulesMismatch, None))
        }
    }
}

/// `BeneficiaryValidator::form` for the draft's country, payment type and owner type: refused
/// exactly as the model says; otherwise each path once, non-empty, parents before children (a
/// parent a group, a group a parent), `paymentInfo` and the fixed bank field required and
/// fixed, rules fields required, country fields not, options only on a choice, an account kind
/// only on its own `paymentInfo` field with the kind's length, a label that says something;
/// every field of the form without documents is there with the same account kind; a draft of
/// only the three choices gets `REQUIRED` only at those choices or at fields the form shows.
fn check_form(validator: &BeneficiaryValidator, draft: &Value) {
    let country = str_field(draft, "country");
    let payment_type = str_field(draft, "paymentType");
    let owner_type = draft.get("ownerType").and_then(Value::as_str);
    let got = validator.form(country, payment_type, owner_type);
    assert_eq!(
        got,
        validator.form(country, payment_type, owner_type),
        "form not deterministic"
    );
    let want = model_form_refusal(country, payment_type, owner_type, validator.rules());
    let fields = match got {
        Err(FormError { code, field, .. }) => {
            assert_eq!(Some((code, field)), want, "form refused for {draft}");
            return;
        }
        Ok(fields) => {
            assert_eq!(want, None, "form given for {draft}");
            fields
        }
    };
    let paths: Vec<&str> = fields.iter().map(|f| f.path.as_str()).collect();
    let unique: BTreeSet<&str> = paths.iter().copied().collect();
    assert_eq!(unique.len(), paths.len(), "a form field twice: {paths:?}");
    for (i, f) in fields.iter().enumerate() {
        assert!(
            !f.path.is_empty() && f.path.split('.').all(|s| !s.is_empty()),
            "{paths:?}"
        );
        if let Some((parent, _)) = f.path.rsplit_once('.') {
            let at = paths.iter().position(|p| *p == parent);
            assert!(
                at.is_some_and(|at| at < i),
                "{} before its parent: {paths:?}",
                f.path
            );
        }
        let parent_of_some = paths.iter().any(|p| {
            p.strip_prefix(f.path.as_str())
                .is_some_and(|r| r.starts_with('.'))
        });
        assert_eq!(
            f.input == FormInput::Group,
            parent_of_some,
            "{} in {paths:?}",
            f.path
        );
        assert_eq!(f.required, f.source != FormSource::Country, "{f:?}");
        if f.input != FormInput::Choice {
            assert!(f.options.is_empty(), "{f:?}");
        }
        if let Some(kind) = f.account {
            assert_eq!(f.path, format!("paymentInfo.{}", kind.field()), "{f:?}");
            assert_eq!(f.length(), Some(kind.length()));
        } else {
            assert_eq!(f.length(), None);
        }
        assert!(!f.label.is_empty(), "{f:?}");
    }
    let fixed = |path: &str| {
        let f = fields.iter().find(|f| f.path == path);
        assert!(
            f.is_some_and(|f| f.required),
            "{path} not in the form: {paths:?}"
        );
    };
    fixed("paymentInfo");
    if payment_type == "bank_account" {
        fixed(if country == "US" {
            "paymentInfo.routingNumber"
        } else {
            "paymentInfo.bankId"
        });
    }
    let plain = BeneficiaryValidator::default()
        .form(country, payment_type, owner_type)
        .expect("a form without documents for valid choices");
    for p in &plain {
        let f = fields.iter().find(|f| f.path == p.path);
        assert!(
            f.is_some_and(|f| f.account == p.account),
            "{} without documents only: {paths:?}",
            p.path
        );
    }
    let mut bare = Map::new();
    bare.insert("country".into(), country.into());
    bare.insert("paymentType".into(), payment_type.into());
    if let Some(o) = owner_type {
        bare.insert("ownerType".into(), o.into());
    }
    let v = validator.validate(&Value::Object(bare));
    // The form's own choices are its inputs, not fields (a draft without `ownerType` is told so).
    let choices = ["ownerType", "country", "paymentType"];
    for issue in v
        .issues
        .iter()
        .filter(|i| i.code == IssueCode::Required && !choices.contains(&i.path.as_str()))
    {
        assert!(
            unique.contains(issue.path.as_str()),
            "REQUIRED at {} not in the form {paths:?}",
            issue.path
        );
    }
}

/// `normalize`: idempotent; only strings of `paymentInfo` change, each to its electronic form
/// (ASCII spaces and hyphens removed, ASCII letters upper-cased), never to an empty one; and
/// the payload sent validates to the same issues as the draft.
fn check_normalize(draft: &Value, rules: Option<&ValidationRules>) {
    let sent = beneficiary::normalize(draft.clone());
    assert_eq!(
        beneficiary::normalize(sent.clone()),
        sent,
        "normalize twice of {draft}"
    );
    if sent != *draft {
        let (Some(a), Some(b)) = (draft.as_object(), sent.as_object()) else {
            panic!("normalize changed a draft that is not an object: {draft} → {sent}");
        };
        assert!(a.keys().eq(b.keys()), "{draft} → {sent}");
        for (key, before) in a {
            let after = &b[key.as_str()];
            if key != "paymentInfo" {
                assert_eq!(before, after, "{key} of {draft}");
                continue;
            }
            let (Some(a), Some(b)) = (before.as_object(), after.as_object()) else {
                panic!("paymentInfo of {draft} → {sent}");
            };
            assert!(a.keys().eq(b.keys()), "{draft} → {sent}");
            for (field, x) in a {
                let y = &b[field.as_str()];
                if x != y {
                    let (Some(x), Some(y)) = (x.as_str(), y.as_str()) else {
                        panic!("{field} of {draft} → {sent}");
                    };
                    let electronic: String = x
                        .chars()
                        .filter(|c| !matches!(c, ' ' | '-'))
                        .map(|c| c.to_ascii_uppercase())
                        .collect();
                    assert_eq!(y, electronic, "{field} of {draft}");
                    assert!(!y.is_empty(), "{field} of {draft} emptied");
                }
            }
        }
    }
    for (rules, banks) in [(None, None), (rules, None)] {
        assert_eq!(
            issue_set(&beneficiary::validate(draft, rules, banks)),
            issue_set(&beneficiary::validate(&sent, rules, banks)),
            "the payload sent validates unlike the draft: {draft} → {sent}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The targets.

/// The first `max` JSON values of the input, each with the bytes it was read from (leading
/// whitespace included): the text a caller received.
fn docs_with_text(data: &[u8], max: usize) -> Vec<(Value, &[u8])> {
    let mut out = Vec::new();
    let mut stream = serde_json::Deserializer::from_slice(data).into_iter::<Value>();
    let mut start = 0;
    while out.len() < max {
        let Some(Ok(v)) = stream.next() else { break };
        let end = stream.byte_offset();
        out.push((v, &data[start..end]));
        start = end;
    }
    out
}

fn descriptions<'r>(rules: &'r [FieldRule], out: &mut BTreeSet<&'r str>) {
    for r in rules {
        if let Some(d) = r.description.as_deref() {
            out.insert(d);
        }
        descriptions(&r.children, out);
    }
}

/// Rules document then draft, two JSON values in a row (one value: the draft alone); the
/// document as the server sent it: parsed, or its text as a JSON string.
/// The document is read as FORMAT.md's "Documents" says (`from_value`, `from_json` of its text
/// and of the input agree); a readable one, applied, reports every issue found without it
/// (fixed rules and account checks always apply; an account detail's issue gives way only to
/// the rules' `INVALID_VALUE` at that field) plus only rules-made codes, labels only from its
/// descriptions; an unreadable one is one `RULES_UNREADABLE` issue at `""` and changes nothing
/// else; a typed draft validates like the raw one; `required_fields` lists each path once, fixed
/// ones first; account details are checked as FORMAT.md's table says.
pub fn rules(data: &[u8]) {
    let docs = docs_with_text(data, 2);
    let (rules_doc, draft) = match docs.as_slice() {
        [(draft, _)] => (None, draft),
        [(rules, raw), (draft, _)] => (Some((rules, *raw)), draft),
        _ => return,
    };
    let base = beneficiary::validate(draft, None, None);
    check_validation(draft, &base);
    assert!(base.issues.iter().all(|i| i.label.is_none()));
    check_accounts(draft, &base);
    check_typed_draft(draft, None, None, &base);
    check_normalize(draft, None);
    let Some((rules_doc, raw)) = rules_doc else {
        check_form(&BeneficiaryValidator::default(), draft);
        return;
    };

    let read = ValidationRules::from_value(rules_doc);
    check_reading(
        Document::Rules,
        rules_doc,
        raw,
        &read,
        model_rules(rules_doc),
        ValidationRules::from_value,
        |t: &[u8]| ValidationRules::from_json(t),
    );
    let validator = BeneficiaryValidator::from_documents(Some(rules_doc), None, None);
    assert_eq!(
        validator,
        if rules_doc.is_null() {
            BeneficiaryValidator::default()
        } else {
            BeneficiaryValidator::new(Some(read.clone()), None)
        }
    );
    check_form(&validator, draft);
    let Ok(rules) = read else {
        check_validator(&validator, draft, rules_doc, read.as_ref().err(), &base);
        return;
    };
    check_normalize(draft, Some(&rules));
    let _ = rules.listed_payment_types();
    let with = beneficiary::validate(draft, Some(&rules), None);
    check_validation(draft, &with);
    check_validator(&validator, draft, rules_doc, None, &with);
    let (b, w) = (issue_set(&base), issue_set(&with));
    for (path, code) in b.difference(&w) {
        // The one way a rules document takes an issue away: a rule with sub-fields on an account
        // field holding a string reports `INVALID_VALUE` there, and the field gets no other.
        let replaced = account_path(path).is_some()
            && is_account_code(*code)
            && with.at(path).map(|i| i.code).eq([IssueCode::InvalidValue]);
        assert!(
            replaced,
            "a rules document removed {code:?} at {path}: {:?} → {:?}",
            base.issues, with.issues
        );
    }
    for (path, code) in w.difference(&b) {
        assert!(
            matches!(
                code,
                IssueCode::Required
                    | IssueCode::InvalidValue
                    | IssueCode::RulesMismatch
                    | IssueCode::UnsupportedPaymentType
            ),
            "rules made {code:?} at {path}"
        );
        if *code == IssueCode::RulesMismatch {
            assert!(
                path == "country" || path == "ownerType",
                "RULES_MISMATCH at {path}"
            );
        }
        if *code == IssueCode::UnsupportedPaymentType {
            assert_eq!(path, "paymentType");
        }
    }
    let mut described = BTreeSet::new();
    descriptions(&rules.required_fields, &mut described);
    for pt in &rules.payment_types {
        descriptions(&pt.required_fields, &mut described);
    }
    for issue in &with.issues {
        if let Some(label) = issue.label.as_deref() {
            assert!(
                described.contains(label),
                "label {label:?} of {issue:?} is no description of the rules"
            );
        }
    }
    check_typed_draft(draft, Some(&rules), None, &with);

    let fields = beneficiary::required_fields(
        Some(&rules),
        str_field(draft, "paymentType"),
        str_field(draft, "country"),
    );
    let paths: BTreeSet<&str> = fields.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths.len(), fields.len(), "a required field listed twice");
    let fixed: Vec<&str> = fields.iter().take(4).map(|f| f.path.as_str()).collect();
    assert_eq!(
        fixed,
        ["ownerType", "country", "paymentType", "paymentInfo"]
    );
}

/// `{"country", "response"}` then a draft, two JSON values in a row; the response parsed or as
/// its text (a JSON string), the country absent for a list of no country. The list is read as
/// FORMAT.md's "Documents" says and keeps exactly the string ids of its `data` array;
/// `validate` with it reports every issue found without it, plus only `UNKNOWN_BANK` (for a
/// bankId not in the list) and `BANKS_MISMATCH` (for a list of another country); an unreadable
/// one is one `BANKS_UNREADABLE` issue at `""` and changes nothing else; account details are
/// checked as FORMAT.md's table says.
pub fn banks(data: &[u8]) {
    let docs = docs_with_text(data, 2);
    let Some((first, raw)) = docs.first() else {
        return;
    };
    let country = first.get("country").and_then(Value::as_str);
    let (response, raw) = match first.get("response") {
        // The raw text of `response` is not at hand inside the object: its own text stands in.
        Some(r) => (r, None),
        None => (first, Some(*raw)),
    };
    let list = BankList::from_parts(country, response);
    assert_eq!(
        list,
        BankList::from_value(country.unwrap_or(""), response),
        "from_parts vs from_value"
    );
    let text = response.to_string();
    let from_value = |v: &Value| BankList::from_value(country.unwrap_or(""), v);
    let from_json = |t: &[u8]| BankList::from_json(country.unwrap_or(""), t);
    let model = model_banks(response);
    check_reading(
        Document::Banks,
        response,
        raw.unwrap_or(text.as_bytes()),
        &list,
        model.as_ref().map(|_| ()).map_err(|e| *e),
        from_value,
        from_json,
    );
    if let (Ok(list), Ok(ids)) = (&list, &model) {
        let kept: Vec<&str> = list.banks.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(kept, *ids, "bank ids kept");
        assert_eq!(list.country, country.unwrap_or(""));
        for id in ids {
            assert!(list.contains(id));
        }
    }
    let Some((draft, _)) = docs.get(1) else {
        return;
    };
    let base = beneficiary::validate(draft, None, None);
    check_validation(draft, &base);
    check_accounts(draft, &base);
    let with = beneficiary::validate(draft, None, list.as_ref().ok());
    check_validation(draft, &with);
    assert!(with.issues.iter().all(|i| i.label.is_none()));
    let validator = BeneficiaryValidator::from_documents(None, country, Some(response));
    check_validator(&validator, draft, response, list.as_ref().err(), &with);
    let (b, w) = (issue_set(&base), issue_set(&with));
    assert!(
        b.is_subset(&w),
        "a bank list removed issues: {:?} → {:?}",
        base.issues,
        with.issues
    );
    for (path, code) in w.difference(&b) {
        match code {
            IssueCode::UnknownBank => {
                assert_eq!(path, "paymentInfo.bankId");
                let id = draft
                    .get("paymentInfo")
                    .and_then(|p| p.get("bankId"))
                    .and_then(Value::as_str);
                let list = list.as_ref().expect("UNKNOWN_BANK without a list");
                assert!(
                    id.is_some_and(|id| !list.contains(id)),
                    "UNKNOWN_BANK for a listed id {id:?}"
                );
            }
            IssueCode::BanksMismatch => {
                assert_eq!(path, "country");
                assert_ne!(
                    Some(country.unwrap_or("")),
                    draft.get("country").and_then(Value::as_str)
                );
            }
            other => panic!("a bank list made {other:?} at {path}"),
        }
    }
    check_typed_draft(draft, None, list.as_ref().ok(), &with);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detail_models_agree_with_the_vectors_values() {
        for (kind, value) in [
            (AccountDetail::Clabe, "002010077777777771"),
            (AccountDetail::Cbu, "2850590940090418135201"),
            (AccountDetail::Cuit, "20-12345678-6"),
            (AccountDetail::Bic, "deutdeff500"),
            (AccountDetail::Ifsc, "HDFC0001234"),
            (AccountDetail::SortCode, "12-34-56"),
            (AccountDetail::Bsb, "062-000"),
            (AccountDetail::BranchCode, "00312345"),
        ] {
            assert_eq!(model_detail(kind, value), Some(Ok(())), "{kind:?}");
        }
        assert_eq!(
            model_detail(AccountDetail::Clabe, "002010077777777772"),
            Some(Err(AccountProblem::CheckDigits))
        );
        check_detail_text("DE89 3704 0044 0532 0130 00");
        check_detail_text("ÄÖ12-é");
    }

    #[test]
    fn an_account_issue_replaced_by_a_rule_is_allowed_and_only_that() {
        // A rule with sub-fields on `bic`: INVALID_VALUE there instead of INVALID_BIC.
        let rules = br#"{"data":{"country":"GB","rules":{"requiredFields":[{"field":"paymentInfo","fields":[{"field":"bic","fields":[{"field":"x"}]}]}]}}}"#;
        let draft = br#"{"ownerType":"business","country":"GB","paymentType":"bank_account","paymentInfo":{"bankId":"b","bic":"DEUTZZFF"}}"#;
        let mut input = rules.to_vec();
        input.push(b'\n');
        input.extend_from_slice(draft);
        super::rules(&input);
        let read = ValidationRules::from_json(rules).unwrap();
        let draft: Value = serde_json::from_slice(draft).unwrap();
        let base = beneficiary::validate(&draft, None, None);
        let with = beneficiary::validate(&draft, Some(&read), None);
        let codes = |v: &Validation| v.at("paymentInfo.bic").map(|i| i.code).collect::<Vec<_>>();
        assert_eq!(codes(&base), [IssueCode::InvalidBic]);
        assert_eq!(codes(&with), [IssueCode::InvalidValue]);
    }
}
