//! Unit tests of the pagination module.

use std::collections::HashSet;

use super::params::PARAMETERS;
use super::walker::record_key;
use super::*;
use proptest::prelude::*;
use serde_json::json;
use serde_json::Value;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn page_facts_partition_the_records(total in 0u64..500, size in 1u64..40) {
        let mut covered = 0;
        let pages = total.div_ceil(size);
        for page in 0..pages + 2 {
            let len = total.saturating_sub(page * size).min(size) as usize;
            let r = json!({"data": vec![json!({}); len], "total": total, "page": page, "pageSize": size});
            let info = page_info(&r, None).unwrap();
            prop_assert!(info.first_item <= info.last_item && info.last_item <= total);
            prop_assert_eq!(info.total_pages, pages);
            if info.last_item > 0 {
                prop_assert_eq!(info.first_item, covered + 1);
                covered = info.last_item;
            }
            prop_assert_eq!(info.has_next, page + 1 < pages);
        }
        prop_assert_eq!(covered, total);
    }

    #[test]
    fn facts_never_exceed_bounds(total: u64, page: u64, size: u64, len in 0usize..5) {
        let r = json!({"data": vec![json!({}); len], "total": total, "page": page, "pageSize": size});
        if let Ok(info) = page_info(&r, None) {
            prop_assert!(info.first_item <= info.last_item && info.last_item <= info.total);
            prop_assert!(info.total <= MAX_SAFE_INTEGER);
        }
    }

    #[test]
    fn facts_of_parts_equal_facts_of_the_response(
        total in prop_oneof![Just(json!(null)), (0u64..300).prop_map(|n| json!(n)), Just(json!(-1)), Just(json!("7")), Just(json!(1.5))],
        page in prop_oneof![Just(None), (0u64..40).prop_map(|n| Some(json!(n))), Just(Some(json!(null)))],
        size in prop_oneof![Just(None), (0u64..40).prop_map(|n| Some(json!(n))), Just(Some(json!(true)))],
        has_next in prop_oneof![Just(None), any::<bool>().prop_map(|b| Some(json!(b))), Just(Some(json!("yes")))],
        len in 0usize..30,
        request in proptest::option::of((0u64..40, 0u64..40)),
    ) {
        let mut fields = serde_json::Map::new();
        fields.insert("total".into(), total);
        for (k, v) in [("page", page), ("pageSize", size), ("hasNext", has_next)] {
            if let Some(v) = v {
                fields.insert(k.into(), v);
            }
        }
        let parts = Value::Object(fields.clone());
        fields.insert("data".into(), json!(vec![json!({}); len]));
        let full = Value::Object(fields);
        prop_assert_eq!(page_info_of(len as u64, &parts, request), page_info(&full, request));
    }

    #[test]
    fn query_parses_back(page in 0u64..=MAX_SAFE_INTEGER, size in 1u64..=MAX_SAFE_INTEGER,
                         sort_by in "\\PC{1,12}", asc: bool, search in proptest::option::of("\\PC{0,16}"),
                         filters in proptest::collection::btree_map("\\PC{1,8}", "\\PC{0,8}", 0..4)) {
        let mut p = ListParams { page, page_size: size, sort_by, sort_order: if asc { SortOrder::Asc } else { SortOrder::Desc }, search, filters: Vec::new() };
        for (k, v) in filters.into_iter().filter(|(k, _)| !PARAMETERS.contains(&k.as_str())) {
            p = p.filter(k, v);
        }
        prop_assert!(p.validate().is_ok());
        let q = p.to_query();
        let url = url::Url::parse(&format!("https://x.test/v1/orders?{q}")).unwrap();
        let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        prop_assert_eq!(&pairs[0], &("page".to_owned(), page.to_string()));
        prop_assert_eq!(&pairs[1], &("pageSize".to_owned(), size.to_string()));
        prop_assert_eq!(&pairs[2], &("sortBy".to_owned(), p.sort_by.clone()));
        prop_assert_eq!(&pairs[3].1, p.sort_order.as_str());
        let mut rest = &pairs[4..];
        if let Some(s) = p.search.as_deref().filter(|s| !s.is_empty()) {
            prop_assert_eq!(&rest[0], &("search".to_owned(), s.to_owned()));
            rest = &rest[1..];
        }
        let want: Vec<(String, String)> = p.filters.iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        prop_assert_eq!(rest, &want[..]);
        prop_assert!(q.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%&=".contains(&b)));
    }

    /// Whatever JSON document is given, `from_value` either refuses it or keeps every filter
    /// it was given with a non-empty value: nothing is dropped silently.
    #[test]
    fn filters_are_never_dropped(keys in proptest::collection::vec("[a-zA-Z]{0,6}", 0..5),
                                 values in proptest::collection::vec(0u8..7, 5)) {
        let mut filters = serde_json::Map::new();
        for (k, v) in keys.iter().zip(&values) {
            let v = match v {
                0 => json!(null), 1 => json!(""), 2 => json!("x y"), 3 => json!(-42),
                4 => json!(true), 5 => json!(1.5), _ => json!(["a"]),
            };
            filters.insert(k.clone(), v);
        }
        let doc = json!({"filters": filters.clone()});
        match ListParams::from_value(&doc) {
            Ok(p) => {
                for (k, v) in &filters {
                    let sent = !(v.is_null() || v == &json!(""));
                    prop_assert_eq!(p.filters().iter().any(|(f, _)| f == k), sent, "{}", k);
                }
            }
            Err(PaginationError::InvalidFilter { field }) => {
                let v = &filters[&field];
                prop_assert!(field.is_empty() || PARAMETERS.contains(&field.as_str()) || v.is_array() || v == &json!(1.5));
            }
            Err(e) => prop_assert!(false, "unexpected {e}"),
        }
    }
}

#[test]
fn has_next_conflict_keeps_the_servers_word_and_shows_it() {
    let info = |r: Value| page_info(&r, None).unwrap();
    let more = info(json!({"data": [{}], "total": 1, "page": 0, "pageSize": 10, "hasNext": true}));
    assert!(more.has_next && more.has_next_conflict);
    assert_eq!((more.total_pages, more.next_page), (1, Some(1)));
    let fewer =
        info(json!({"data": [{}], "total": 95, "page": 0, "pageSize": 10, "hasNext": false}));
    assert!(!fewer.has_next && fewer.has_next_conflict);
    assert_eq!((fewer.total_pages, fewer.next_page), (10, None));
    let agree =
        info(json!({"data": [{}], "total": 95, "page": 0, "pageSize": 10, "hasNext": true}));
    assert!(agree.has_next && !agree.has_next_conflict);
    let absent = info(json!({"data": [{}], "total": 95, "page": 0, "pageSize": 10}));
    assert!(absent.has_next && !absent.has_next_conflict);

    // The walker follows hasNext, says so, and flags what the short walk may have missed.
    let mut w = PageWalker::new(ListParams::default());
    let step = w
        .feed(&json!({"data": [{"id": 1}], "total": 1, "page": 0, "pageSize": 10, "hasNext": true}))
        .unwrap();
    assert_eq!(step.drift, vec![Drift::HasNextConflict { has_next: true }]);
    assert_eq!(w.next_request().map(|p| p.page), Some(1));
    let mut w = PageWalker::new(ListParams::default());
    let step = w
        .feed(
            &json!({"data": [{"id": 1}], "total": 30, "page": 0, "pageSize": 10, "hasNext": false}),
        )
        .unwrap();
    assert!(w.is_done());
    assert_eq!(
        step.drift,
        vec![
            Drift::HasNextConflict { has_next: false },
            Drift::PossiblySkipped { count: 29 }
        ]
    );
}

#[test]
fn walker_carries_filters() {
    let mut w = PageWalker::new(ListParams::default().filter("status", "success"));
    let first = w.next_request().unwrap();
    assert!(first.to_query().ends_with("&status=success"));
    w.feed(&json!({"data": [{"id": 1}], "total": 20, "page": 0, "pageSize": 10}))
        .unwrap();
    let second = w.next_request().unwrap();
    assert_eq!(second.page, 1);
    assert_eq!(
        second
            .filters()
            .iter()
            .find(|(k, _)| k == "status")
            .map(|(_, v)| v.as_str()),
        Some("success")
    );
}

#[test]
fn from_value_errors_name_the_key() {
    let e = |v: Value| ListParams::from_value(&v).unwrap_err();
    assert_eq!(
        e(json!({"status": "x"})),
        PaginationError::UnknownParameter {
            field: "status".into()
        }
    );
    assert_eq!(
        e(json!({"zeta": 1, "alpha": 1})),
        PaginationError::UnknownParameter {
            field: "alpha".into()
        }
    );
    assert_eq!(
        e(json!([1])),
        PaginationError::UnknownParameter {
            field: String::new()
        }
    );
    assert_eq!(
        e(json!("page=1")),
        PaginationError::UnknownParameter {
            field: String::new()
        }
    );
    assert_eq!(
        e(json!({"filters": "status=x"})),
        PaginationError::InvalidFilter {
            field: "filters".into()
        }
    );
    assert_eq!(
        e(json!({"filters": {"page": 1}})),
        PaginationError::InvalidFilter {
            field: "page".into()
        }
    );
    assert_eq!(
        e(json!({"filters": {"": "x"}})),
        PaginationError::InvalidFilter {
            field: String::new()
        }
    );
    assert_eq!(
        e(json!({"filters": {"b": {}, "a": [1]}})),
        PaginationError::InvalidFilter { field: "a".into() }
    );
    assert_eq!(
        e(json!({"filters": {"n": 1e300}})),
        PaginationError::InvalidFilter { field: "n".into() }
    );
    let ok = ListParams::from_value(
        &json!({"filters": {"n": 2.0, "m": -3, "big": 18446744073709551615u64}}),
    )
    .unwrap();
    assert!(ok
        .to_query()
        .ends_with("&big=18446744073709551615&m=-3&n=2"));
    assert_eq!(
        ListParams::from_value(&Value::Null).unwrap(),
        ListParams::default()
    );
    let typed = ListParams::default().filter("page", "2");
    assert_eq!(
        typed.validate(),
        Err(PaginationError::InvalidFilter {
            field: "page".into()
        })
    );
}

#[test]
fn walker_stops_and_dedupes() {
    let mut w = PageWalker::new(ListParams {
        page_size: 2,
        ..Default::default()
    });
    let pages = [
        json!([{"id": 1}, {"id": 2}]),
        json!([{"id": 3}, {"id": 4}]),
        json!([{"id": 5}]),
    ];
    let mut all = vec![];
    while let Some(req) = w.next_request() {
        let data = pages[req.page as usize].clone();
        let step = w
            .feed(&json!({"data": data, "total": 5, "page": req.page, "pageSize": 2}))
            .unwrap();
        assert!(step.drift.is_empty(), "{:?}", step.drift);
        all.extend(step.fresh.iter().map(|i| data[*i].clone()));
    }
    assert_eq!(all.len(), 5);
}

#[test]
fn walker_flags_skips_when_records_vanish() {
    let mut w = PageWalker::new(ListParams {
        page_size: 2,
        ..Default::default()
    });
    w.feed(&json!({"data": [{"id": 1}, {"id": 2}], "total": 5, "page": 0, "pageSize": 2}))
        .unwrap();
    // Record 1 was deleted: the rest moved up, page 1 now shows 4 and 5, and 3 was skipped.
    let step = w
        .feed(&json!({"data": [{"id": 4}, {"id": 5}], "total": 4, "page": 1, "pageSize": 2}))
        .unwrap();
    assert!(step.drift.contains(&Drift::TotalChanged { from: 5, to: 4 }));
    assert!(step.drift.contains(&Drift::PossiblySkipped { count: 1 }));
    assert!(w.is_done()); // positions 3-4 were the last
}

#[test]
fn record_ids_are_exact_by_kind_and_value() {
    let ids = [
        json!("1"),
        json!(1),
        json!(1.0),
        json!(-1),
        json!(9_007_199_254_740_992u64),
        json!(9_007_199_254_740_993u64), // the same double as the one before
        json!(u64::MAX),
        json!(i64::MIN),
        json!(""),
    ];
    let keys: HashSet<u128> = ids
        .iter()
        .filter_map(|id| record_key(&json!({ "id": id })))
        .collect();
    assert_eq!(keys.len(), ids.len());
    assert_eq!(record_key(&json!({"id": null})), None);
    assert_eq!(record_key(&json!({"id": [1]})), None);
    assert_eq!(
        record_key(&json!({"id": "a"})),
        record_key(&json!({"id": "a", "x": 1}))
    );
}

#[test]
fn walker_flags_a_short_walk() {
    let mut w = PageWalker::new(ListParams::default());
    let step = w
        .feed(&json!({"data": [{"id": 1}], "total": 3, "hasNext": false}))
        .unwrap();
    assert!(w.is_done());
    assert_eq!(step.drift, vec![Drift::PossiblySkipped { count: 2 }]);
}
