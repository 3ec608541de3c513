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
