//! Unit tests of the beneficiary module.

use super::*;
use crate::countries::ALPHA2;
use serde_json::json;
use serde_json::Value;

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
    for c in [
        "UK", "EU", "XX", "AA", "ZZ", "us", "USA", "", "U", "[A", "A[", "@A",
    ] {
        assert!(!is_assigned_country(c), "{c}");
    }
    // The bit table says exactly what the list says, for every pair of bytes A-Z and around.
    for a in b'@'..=b'[' {
        for b in b'@'..=b'[' {
            let code = String::from_utf8(vec![a, b]).unwrap();
            assert_eq!(
                is_assigned_country(&code),
                ALPHA2.contains(&code.as_str()),
                "{code}"
            );
        }
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
        {"field": ".address..city"}, {"field": "."}]}}}))
    .unwrap();
    let draft = json!({"ownerType": "individual", "country": "CO", "paymentType": "pix", "paymentInfo": {},
                       "address": {}});
    let v = validate(&draft, Some(&rules), None);
    assert_eq!(
        v.issues,
        vec![Issue::new("address.city", IssueCode::Required)]
    );
}

#[test]
fn only_parent_reported_when_parent_missing() {
    let rules = ValidationRules::from_value(&json!({"data": {"rules": {"requiredFields": [
        {"field": "address", "nestedFields": [{"field": "city"}]}]}}}))
    .unwrap();
    let draft = json!({"ownerType": "individual", "country": "CO", "paymentType": "pix", "paymentInfo": {}});
    let v = validate(&draft, Some(&rules), None);
    assert_eq!(v.issues, vec![Issue::new("address", IssueCode::Required)]);
}

proptest::proptest! {
    #[test]
    fn validate_never_panics(draft in arb_json(), rules in arb_json()) {
        let v = BeneficiaryValidator::from_documents(Some(&rules), Some("CO"), Some(&rules)).validate(&draft);
        proptest::prop_assert_eq!(v.valid(), v.issues.is_empty());
        for issue in &v.issues {
            proptest::prop_assert!(!issue.message.is_empty());
        }
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

#[test]
fn every_code_has_a_message_that_says_what_to_fix() {
    for code in IssueCode::ALL {
        let m = code.message();
        assert!(m.len() > 15, "{code}: {m}");
        assert!(
            m.chars().next().is_some_and(char::is_lowercase),
            "{code}: {m}"
        );
    }
}

#[test]
fn labels_come_from_the_applied_document_only() {
    let rules = json!({"data": {"country": "GB", "ownerType": "individual", "rules": {
        "requiredFields": [{"field": "address", "description": "Address", "nestedFields": [
            {"field": "city", "description": "Town or city"}, {"field": "street"}]}],
        "paymentTypes": [{"type": "bank_account", "requiredFields": [
            {"field": "paymentInfo", "fields": [{"field": "sortCode", "description": "Sort code"}]},
            {"field": "accountNumber", "description": "Account number (IBAN)"}]}]}}});
    let draft = json!({"ownerType": "individual", "country": "GB", "paymentType": "bank_account",
        "address": {}, "paymentInfo": {"bankId": "b1", "sortCode": "12-34-5", "accountNumber": "GB82 WEST 1234 5698 7654 31"}});
    let v = BeneficiaryValidator::from_documents(Some(&rules), None, None).validate(&draft);
    let got: Vec<(&str, &str, Option<&str>)> = v
        .issues
        .iter()
        .map(|i| (i.path.as_str(), i.code.as_str(), i.label.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("address.city", "REQUIRED", Some("Town or city")),
            ("address.street", "REQUIRED", None),
            (
                "paymentInfo.sortCode",
                "INVALID_SORT_CODE",
                Some("Sort code")
            ),
            (
                "paymentInfo.accountNumber",
                "INVALID_IBAN",
                Some("Account number (IBAN)")
            ),
        ]
    );
    assert_eq!(
        v.issues[2].message,
        "a sort code has 6 digits, this one has 5"
    );
    assert!(
        v.issues[3].message.contains("check digits"),
        "{}",
        v.issues[3].message
    );
    // The same document for another country is not applied: no labels from it.
    let other = BeneficiaryValidator::from_documents(Some(&rules), None, None).validate(
        &json!({"ownerType": "individual", "country": "IE", "paymentType": "bank_account",
                          "paymentInfo": {"bankId": "b1", "bic": "X"}}),
    );
    assert!(
        other.issues.iter().all(|i| i.label.is_none()),
        "{:?}",
        other.issues
    );
}

#[test]
fn unreadable_documents_are_reported_once_and_not_applied() {
    let draft = json!({"ownerType": "individual", "country": "CO", "paymentType": "bank_account",
                       "paymentInfo": {"bankId": "nope"}});
    for (rules, banks) in [
        (json!({}), json!([])),
        (json!("{"), json!({"error": {"CODE": "X"}})),
        (json!(r#""{\"data\": {}}""#), json!("[]")),
    ] {
        let v = BeneficiaryValidator::from_documents(Some(&rules), Some("CO"), Some(&banks))
            .validate(&draft);
        let codes: Vec<(&str, &str)> = v
            .issues
            .iter()
            .map(|i| (i.path.as_str(), i.code.as_str()))
            .collect();
        assert_eq!(
            codes,
            [("", "RULES_UNREADABLE"), ("", "BANKS_UNREADABLE")],
            "{rules} {banks}"
        );
        assert!(v.issues[0].message.starts_with("the rules document"));
        assert!(v.issues[1].message.starts_with("the bank list"));
    }
    // Text and parsed documents are read alike.
    let doc = json!({"data": [{"id": "b1"}]});
    assert_eq!(
        BeneficiaryValidator::from_documents(None, Some("CO"), Some(&doc)),
        BeneficiaryValidator::from_documents(None, Some("CO"), Some(&json!(doc.to_string())))
    );
}
