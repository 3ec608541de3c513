// rules / banks: beneficiary validation.

use std::collections::BTreeSet;

use serde_json::Value;
use xborder_core::beneficiary::{
    self, BankList, BeneficiaryDraft, IssueCode, Validation, ValidationRules,
};

use crate::{is_code, json_docs};

fn issue_set(v: &Validation) -> BTreeSet<(String, IssueCode)> {
    v.issues.iter().map(|i| (i.path.clone(), i.code)).collect()
}

/// What holds of every validation: `valid` iff no issue, each issue once, stable codes, a path
/// (empty only for a draft that is not an object).
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
        if issue.path.is_empty() {
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
    }
    if !draft.is_object() {
        assert_eq!(
            issue_set(v),
            BTreeSet::from([(String::new(), IssueCode::InvalidValue)])
        );
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

/// Rules document then draft, two JSON values in a row (one value: the draft alone).
/// `ValidationRules::from_value` and `from_json` agree; `validate` with the rules reports every
/// issue it reports without them (fixed rules always apply) plus only rules-made codes; a typed
/// draft validates like the raw one; `required_fields` lists each path once, fixed ones first.
pub fn rules(data: &[u8]) {
    let docs = json_docs(data, 2);
    let (rules_doc, draft) = match docs.as_slice() {
        [draft] => (None, draft),
        [rules, draft] => (Some(rules), draft),
        _ => return,
    };
    let base = beneficiary::validate(draft, None, None);
    check_validation(draft, &base);
    check_typed_draft(draft, None, None, &base);
    let Some(rules_doc) = rules_doc else { return };

    let rules = ValidationRules::from_value(rules_doc);
    assert_eq!(
        ValidationRules::from_json(&rules_doc.to_string()).ok(),
        Some(rules.clone())
    );
    let _ = rules.listed_payment_types();
    let with = beneficiary::validate(draft, Some(&rules), None);
    check_validation(draft, &with);
    let (b, w) = (issue_set(&base), issue_set(&with));
    assert!(
        b.is_subset(&w),
        "a rules document removed issues: {:?} → {:?}",
        base.issues,
        with.issues
    );
    for (path, code) in w.difference(&b) {
        assert!(
            !matches!(code, IssueCode::BanksMismatch | IssueCode::UnknownBank),
            "rules made {code:?} at {path}"
        );
        if *code == IssueCode::RulesMismatch {
            assert!(
                path == "country" || path == "ownerType",
                "RULES_MISMATCH at {path}"
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

/// `{"country", "response"}` then a draft, two JSON values in a row. `BankList::from_value` keeps
/// exactly the string ids of a `data` array (None without one); `validate` with the list reports
/// every issue it reports without it, plus only `UNKNOWN_BANK` (for a bankId not in the list) and
/// `BANKS_MISMATCH` (for a list of another country).
pub fn banks(data: &[u8]) {
    let docs = json_docs(data, 2);
    let Some(first) = docs.first() else { return };
    let country = first.get("country").and_then(Value::as_str).unwrap_or("CO");
    let response = first.get("response").unwrap_or(first);
    let list = BankList::from_value(country, response);
    let items = response.get("data").and_then(Value::as_array);
    assert_eq!(
        list.is_some(),
        items.is_some(),
        "a bank list without a data array"
    );
    if let (Some(list), Some(items)) = (&list, items) {
        let ids: Vec<&str> = items
            .iter()
            .filter_map(|b| b.get("id").and_then(Value::as_str))
            .collect();
        let kept: Vec<&str> = list.banks.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(kept, ids, "bank ids kept");
        assert_eq!(list.country, country);
        for id in &ids {
            assert!(list.contains(id));
        }
    }
    let Some(draft) = docs.get(1) else { return };
    let base = beneficiary::validate(draft, None, None);
    let with = beneficiary::validate(draft, None, list.as_ref());
    check_validation(draft, &with);
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
                assert_ne!(Some(country), draft.get("country").and_then(Value::as_str));
            }
            other => panic!("a bank list made {other:?} at {path}"),
        }
    }
    check_typed_draft(draft, None, list.as_ref(), &with);
}
