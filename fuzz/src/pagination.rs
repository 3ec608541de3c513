// page_info: a list response, then optionally the request `{page, pageSize}`.

use percent_encoding::percent_decode_str;
use serde_json::Value;
use xborder_core::pagination::{
    self, Drift, ListParams, PageWalker, PaginationError, MAX_SAFE_INTEGER,
};

/// The keys of a page's facts, read under `meta` when the top level has none of them.
const PAGE_KEYS: [&str; 4] = ["total", "page", "pageSize", "hasNext"];

use crate::{is_code, json_docs};

/// `page_info` on a response (and optional request): every figure is consistent (total pages,
/// 1-based first/last item within the page and the total, next page iff has next, all within
/// 2^53 − 1), the response's own `hasNext`/`page`/`pageSize` win, and `PageWalker::feed` agrees.
pub fn page_info(data: &[u8]) {
    let docs = json_docs(data, 2);
    let Some(response) = docs.first() else { return };
    let request = docs
        .get(1)
        .and_then(|r| Some((r.get("page")?.as_u64()?, r.get("pageSize")?.as_u64()?)));
    let got = pagination::page_info(response, request);
    assert_eq!(
        got,
        pagination::page_info(response, request),
        "not deterministic"
    );
    if request.is_none() {
        // Without a request, the request sent with no parameters: page 0 of 10.
        assert_eq!(got, pagination::page_info(response, Some((0, 10))));
    }
    let (req_page, req_size) = request.unwrap_or((0, 10));
    // The page facts: at the top level, or under `meta` when the top level has none of them.
    let facts = response
        .get("meta")
        .filter(|m| m.is_object() && !PAGE_KEYS.iter().any(|k| response.get(k).is_some()))
        .unwrap_or(response);
    match got {
        Ok(info) => {
            let len = response["data"].as_array().map_or(0, Vec::len) as u64;
            assert!(info.page_size >= 1);
            for n in [
                info.total,
                info.page,
                info.page_size,
                info.total_pages,
                info.last_item,
            ] {
                assert!(n <= MAX_SAFE_INTEGER, "{info:?}");
            }
            let end = (info.page + 1)
                .checked_mul(info.page_size)
                .expect("checked in core");
            assert!(end <= MAX_SAFE_INTEGER, "{info:?}");
            assert_eq!(info.total_pages, info.total.div_ceil(info.page_size));
            assert_eq!(info.has_previous, info.page > 0);
            assert_eq!(info.next_page, info.has_next.then_some(info.page + 1));
            assert_eq!(
                info.total,
                model_uint(&facts["total"]).expect("a total"),
                "{info:?}"
            );
            match facts.get("hasNext").and_then(Value::as_bool) {
                Some(h) => {
                    assert_eq!(info.has_next, h);
                    assert_eq!(info.has_next_conflict, h != (end < info.total));
                }
                None => {
                    assert_eq!(info.has_next, end < info.total);
                    assert!(!info.has_next_conflict);
                }
            }
            match facts.get("page").filter(|p| !p.is_null()) {
                Some(p) => assert_eq!(Some(info.page), model_uint(p)),
                None => assert_eq!(info.page, req_page),
            }
            match facts.get("pageSize").filter(|s| !s.is_null()) {
                Some(s) => assert_eq!(Some(info.page_size), model_uint(s)),
                None => assert_eq!(info.page_size, req_size),
            }
            if (info.first_item, info.last_item) != (0, 0) {
                assert_eq!(info.first_item, info.page * info.page_size + 1, "{info:?}");
                assert!(info.first_item <= info.last_item, "{info:?}");
                assert!(info.last_item <= info.total, "{info:?}");
                let count = info.last_item - info.first_item + 1;
                assert!(
                    count <= len.min(info.page_size),
                    "{info:?} for {len} records"
                );
            } else {
                assert!(
                    len == 0 || info.page * info.page_size >= info.total,
                    "{info:?}"
                );
            }
        }
        Err(e) => assert!(is_code(e.code()) && e.to_string().starts_with(e.code())),
    }

    let (page, page_size) = request.unwrap_or((0, 10));
    let mut walker = PageWalker::new(ListParams::default().page(page).page_size(page_size));
    let info = pagination::page_info(response, Some((page, page_size)));
    match (walker.feed(response), info) {
        (Ok(step), Ok(info)) => {
            assert_eq!(step.info, info);
            let len = response["data"].as_array().map_or(0, Vec::len);
            assert!(
                step.fresh.windows(2).all(|w| w[0] < w[1]) && step.fresh.iter().all(|i| *i < len)
            );
            assert_eq!(step.records(response).len(), step.fresh.len());
            assert_eq!(walker.is_done(), walker.next_request().is_none());
            if let Some(next) = walker.next_request() {
                assert_eq!(
                    next.page,
                    info.next_page.expect("a next request without a next page")
                );
            }
            for d in &step.drift {
                assert!(is_code(d.code()));
            }
        }
        (Err(e), Err(want)) => {
            assert_eq!(e, want);
            assert!(!walker.is_done(), "a failed feed ended the walk");
        }
        (got, want) => panic!("PageWalker::feed {got:?} vs page_info {want:?}"),
    }

    // Every walk ends: a server that answers this page whatever is asked ends it by the third
    // page (an empty page, the last one, or `STALLED` after two pages that brought nothing new).
    let mut walker = PageWalker::new(ListParams::default().page(page).page_size(page_size));
    for fed in 0..3 {
        let Ok(step) = walker.feed(response) else {
            return; // a later page number out of range: the walk is not over
        };
        let stalled = step.drift.contains(&Drift::Stalled);
        assert!(!stalled || fed == 2, "STALLED on page {fed}: {step:?}");
        assert!(!stalled || walker.is_done(), "STALLED and not done");
        if walker.is_done() {
            return;
        }
        assert_eq!(
            step.fresh.is_empty(),
            fed > 0 && has_ids(response),
            "{step:?}"
        );
    }
    panic!("three pages of {response} and the walk goes on");
}

/// Whether every record of the page has an `id` (the walker passes id-less records on each
/// time, but one seen before brings nothing new).
fn has_ids(response: &Value) -> bool {
    response["data"].as_array().is_some_and(|d| {
        d.iter().all(|r| {
            r.get("id")
                .is_some_and(|id| id.is_string() || id.is_number())
        })
    })
}

// ---------------------------------------------------------------------------------------------
// list_params: a JSON object of list parameters.

fn model_uint(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return (n <= MAX_SAFE_INTEGER).then_some(n);
    }
    let f = v.as_f64()?;
    (f.is_finite() && f.fract() == 0.0 && f >= 0.0 && f <= MAX_SAFE_INTEGER as f64)
        .then_some(f as u64)
}

/// FORMAT.md's pagination.query: unknown keys first (the first in byte order), then the fields
/// in the order they are listed, then the filters in byte order of key (DECISIONS.md).
fn model_params(v: &Value) -> Result<ListParams, PaginationError> {
    const KNOWN: [&str; 6] = [
        "page",
        "pageSize",
        "sortBy",
        "sortOrder",
        "search",
        "filters",
    ];
    let obj = match v {
        Value::Null => return Ok(ListParams::default()),
        Value::Object(o) => o,
        _ => {
            return Err(PaginationError::UnknownParameter {
                field: String::new(),
            })
        }
    };
    let mut unknown: Vec<&String> = obj
        .keys()
        .filter(|k| !KNOWN.contains(&k.as_str()))
        .collect();
    unknown.sort();
    if let Some(k) = unknown.first() {
        return Err(PaginationError::UnknownParameter {
            field: (*k).clone(),
        });
    }
    let get = |k: &str| obj.get(k).filter(|x| !x.is_null());
    let mut p = ListParams::default();
    if let Some(x) = get("page") {
        p.page = model_uint(x).ok_or(PaginationError::InvalidPage)?;
    }
    if let Some(x) = get("pageSize") {
        p.page_size = model_uint(x).ok_or(PaginationError::InvalidPageSize)?;
    }
    if let Some(x) = get("sortBy") {
        p.sort_by = x.as_str().ok_or(PaginationError::InvalidSortBy)?.to_owned();
    }
    if let Some(x) = get("sortOrder") {
        p.sort_order = match x.as_str().map(str::to_ascii_uppercase).as_deref() {
            Some("ASC") => pagination::SortOrder::Asc,
            Some("DESC") => pagination::SortOrder::Desc,
            _ => return Err(PaginationError::InvalidSortOrder),
        };
    }
    if let Some(x) = get("search") {
        p.search = Some(x.as_str().ok_or(PaginationError::InvalidSearch)?.to_owned());
    }
    if let Some(x) = get("filters") {
        let Some(filters) = x.as_object() else {
            return Err(PaginationError::InvalidFilter {
                field: "filters".to_owned(),
            });
        };
        let mut keys: Vec<&String> = filters.keys().collect();
        keys.sort();
        for k in keys {
            let bad = || PaginationError::InvalidFilter { field: k.clone() };
            if k.is_empty() || KNOWN[..5].contains(&k.as_str()) {
                return Err(bad());
            }
            let text = match &filters[k] {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                Value::Bool(b) => Some(if *b { "true" } else { "false" }.to_owned()),
                Value::Number(n) => {
                    if let Some(i) = n.as_i64() {
                        Some(i.to_string())
                    } else if let Some(u) = n.as_u64() {
                        Some(u.to_string())
                    } else {
                        let f = n.as_f64().ok_or_else(bad)?;
                        if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 {
                            Some((f as i64).to_string())
                        } else {
                            return Err(bad());
                        }
                    }
                }
                _ => return Err(bad()),
            };
            if let Some(t) = text.filter(|t| !t.is_empty()) {
                p = p.filter(k.clone(), t);
            }
        }
    }
    if p.page_size == 0 {
        return Err(PaginationError::InvalidPageSize);
    }
    if p.sort_by.is_empty() {
        return Err(PaginationError::InvalidSortBy);
    }
    Ok(p)
}

/// RFC 3986's unreserved characters stay; everything else is encoded.
const UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn percent_encoded(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, UNRESERVED).to_string()
}

fn decoded(value: &str) -> String {
    percent_decode_str(value)
        .decode_utf8()
        .expect("a percent-encoded UTF-8 value")
        .into_owned()
}

/// `ListParams::from_value` + `to_query`: the parameters agree with the model; the query uses
/// only unreserved characters, `%`, `&` and `=`, every `%` starts a two-digit upper-case escape,
/// keys come in the spec's order, and each value decodes back to the parameter.
pub fn list_params(data: &[u8]) {
    let Some(v) = json_docs(data, 1).pop() else {
        return;
    };
    let got = ListParams::from_value(&v);
    assert_eq!(got, model_params(&v), "from_value vs model for {v}");
    let Ok(p) = got else { return };
    assert_eq!(p.validate(), Ok(()));
    let q = p.to_query();
    assert!(
        q.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~%&=".contains(&b)),
        "query has a reserved character: {q:?}"
    );
    let bytes = q.as_bytes();
    for (i, _) in q.match_indices('%') {
        let esc = bytes
            .get(i + 1..i + 3)
            .expect("a % with two digits after it");
        assert!(
            esc.iter()
                .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b)),
            "bad escape in {q:?}"
        );
    }
    let pairs: Vec<(&str, &str)> = q
        .split('&')
        .map(|kv| kv.split_once('=').expect("key=value"))
        .collect();
    let keys: Vec<&str> = pairs.iter().map(|(k, _)| *k).collect();
    let search = p.search.as_deref().filter(|s| !s.is_empty());
    let mut want = vec![
        "page".to_owned(),
        "pageSize".into(),
        "sortBy".into(),
        "sortOrder".into(),
    ];
    if search.is_some() {
        want.push("search".into());
    }
    // Filters follow, in byte order of key, keys percent-encoded like values.
    let filter_keys: Vec<String> = p
        .filters()
        .iter()
        .map(|(k, _)| percent_encoded(k))
        .collect();
    want.extend(filter_keys);
    assert_eq!(keys, want, "{q:?}");
    let n = 4 + usize::from(search.is_some());
    for ((k, v), (_, sent)) in p.filters().iter().zip(&pairs[n..]) {
        assert_eq!(&decoded(sent), v, "filter {k:?} in {q:?}");
    }
    assert_eq!(pairs[0].1, p.page.to_string());
    assert_eq!(pairs[1].1, p.page_size.to_string());
    assert_eq!(decoded(pairs[2].1), p.sort_by);
    assert_eq!(pairs[3].1, p.sort_order.as_str());
    if let Some(s) = search {
        assert_eq!(decoded(pairs[4].1), s);
    }
    let again = serde_json::json!({
        "page": p.page, "pageSize": p.page_size, "sortBy": p.sort_by,
        "sortOrder": p.sort_order.as_str(), "search": p.search,
        "filters": p.filters().iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<serde_json::Map<String, Value>>(),
    });
    assert_eq!(
        ListParams::from_value(&again).as_ref(),
        Ok(&p),
        "parameters do not round-trip"
    );
}
