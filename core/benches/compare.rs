//! xborder against what an integrator would write instead, side by side in one run.
//!
//! Every group holds up to three functions over the same input:
//! - `xborder`: the core's public API, as the bindings call it;
//! - `naive`: the hand-written baseline (a `serde_json::Value` parse, a fresh HMAC per call,
//!   hex-encode and string compare, a `HashSet<String>` of seen ids);
//! - `floor`: the least any implementation must do (HMAC alone over the body, with the key
//!   schedule precomputed; parsing the input alone, into `serde::de::IgnoredAny` or a `Value`).
//!
//! Inputs are the files of `tests/bench/fixtures/` (written by `tests/bench/fixtures.py`), the
//! same bytes the Node and Kotlin benchmarks read. `tests/bench/run.sh` runs this with short
//! measurement times and reads `target/criterion/<group>/<function>/<input>/new/estimates.json`.
//! Times: `XBORDER_BENCH_WARMUP_MS`, `XBORDER_BENCH_MEASURE_MS`, `XBORDER_BENCH_SAMPLES`.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::collections::HashSet;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use xborder_core::beneficiary::{
    self, check_account, AccountDetail, AccountState, BankList, BeneficiaryValidator, FormSource,
    ValidationRules,
};
use xborder_core::delivery::{DedupeStore, Receiver};
use xborder_core::envelope::Envelope;
use xborder_core::events::{self, Catalog, EventKind, LIVE_EVENTS, PLANNED_EVENTS, WILDCARDS};
use xborder_core::pagination;
use xborder_core::signature::Verifier;

type HmacSha256 = Hmac<Sha256>;

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/bench/fixtures/",
            $name
        ))
    };
}

const SECRET: &[u8] = fixture!("secret.txt");
const BODIES: [(&str, &[u8], &[u8]); 2] = [
    (
        "1k7",
        fixture!("envelope-1k7.json"),
        fixture!("envelope-1k7.sig"),
    ),
    (
        "20k",
        fixture!("envelope-20k.json"),
        fixture!("envelope-20k.sig"),
    ),
];
const RULES: &[u8] = fixture!("rules.json");
const DRAFT: &[u8] = fixture!("draft.json");
const BANKS: &[u8] = fixture!("banks.json");
const PAGE: &[u8] = fixture!("page.json");

/// Ids already remembered by both dedupe stores (a busy receiver's window).
const REMEMBERED: usize = 10_000;

fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The naive baselines, written the way integration guides and forum answers write them.

/// A fresh HMAC per call, hex-encoded and compared as strings.
fn naive_verify(secret: &[u8], body: &[u8], header: &str) -> bool {
    let mut mac = HmacSha256::new_from_slice(secret).unwrap();
    mac.update(body);
    let expected = hex::encode(mac.finalize().into_bytes());
    expected == header.trim().to_lowercase()
}

struct NaiveEvent {
    id: String,
    event: String,
    entity_id: String,
    entity_type: String,
    data: Value,
}

/// `serde_json::Value`, then the fields picked out by hand.
fn naive_decode(body: &[u8]) -> Option<NaiveEvent> {
    let mut v: Value = serde_json::from_slice(body).ok()?;
    let id = v.get("id")?.as_str()?.to_owned();
    let event = v.get("event")?.as_str()?.to_owned();
    let entity = v.get_mut("entity")?;
    let entity_id = entity.get("id")?.as_str()?.to_owned();
    let entity_type = entity.get("type")?.as_str()?.to_owned();
    let data = entity
        .get_mut("data")
        .map(Value::take)
        .unwrap_or(Value::Null);
    Some(NaiveEvent {
        id,
        event,
        entity_id,
        entity_type,
        data,
    })
}

/// A hand-written classifier: the lists copied from the docs, scanned.
fn naive_classify(name: &str) -> &'static str {
    match name.split_once(':') {
        Some((e, a)) if !e.is_empty() && !a.is_empty() => {
            if LIVE_EVENTS.contains(&name) {
                "live"
            } else if PLANNED_EVENTS.contains(&name) {
                "planned"
            } else if WILDCARDS.contains(&name) {
                "wildcard"
            } else {
                "unknown"
            }
        }
        _ => "invalid",
    }
}

/// Verify, parse, classify and look the id up in a `HashSet<String>`.
fn naive_receive(secret: &[u8], seen: &HashSet<String>, body: &[u8], header: &str) -> &'static str {
    if !naive_verify(secret, body, header) {
        return "reject";
    }
    let Some(ev) = naive_decode(body) else {
        return "reject";
    };
    if ev.event.split(':').next() != Some(ev.entity_type.as_str()) {
        return "reject";
    }
    black_box((&ev.entity_id, &ev.data));
    if seen.contains(&ev.id) {
        "duplicate"
    } else if naive_classify(&ev.event) == "live" {
        "process"
    } else {
        "ignore"
    }
}

fn naive_missing(draft: &Value, rule: &Value, parent: &str, out: &mut Vec<String>) {
    let Some(field) = rule.get("field").and_then(Value::as_str) else {
        return;
    };
    let path = if parent.is_empty() {
        field.to_owned()
    } else {
        format!("{parent}.{field}")
    };
    let v = draft.get(field);
    let missing = match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        _ => false,
    };
    if missing {
        out.push(path);
        return;
    }
    for key in ["nestedFields", "fields"] {
        for child in rule
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            naive_missing(v.unwrap_or(&Value::Null), child, &path, out);
        }
    }
}

/// Required fields walked straight off the rules `Value`, the bank looked up by scanning.
fn naive_validate(draft: &Value, rules: &Value, banks: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["ownerType", "country", "paymentType"] {
        if draft
            .get(key)
            .and_then(Value::as_str)
            .is_none_or(|s| s.trim().is_empty())
        {
            out.push(key.to_owned());
        }
    }
    let doc = &rules["data"];
    for rule in doc["rules"]["requiredFields"]
        .as_array()
        .into_iter()
        .flatten()
    {
        naive_missing(draft, rule, "", &mut out);
    }
    let pt = draft["paymentType"].as_str().unwrap_or("");
    for p in doc["rules"]["paymentTypes"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if p["type"].as_str() == Some(pt) {
            for rule in p["requiredFields"].as_array().into_iter().flatten() {
                naive_missing(draft, rule, "", &mut out);
            }
        }
    }
    if let Some(id) = draft["paymentInfo"]["bankId"].as_str() {
        let known = banks["data"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|b| b["id"].as_str() == Some(id));
        if !known {
            out.push("paymentInfo.bankId".to_owned());
        }
    }
    out
}

/// Page facts picked out of the response by hand.
fn naive_page(v: &Value, page: u64, page_size: u64) -> (u64, u64, u64, u64, bool) {
    let total = v["total"].as_u64().unwrap_or(0);
    let page = v["page"].as_u64().unwrap_or(page);
    let size = v["pageSize"].as_u64().unwrap_or(page_size).max(1);
    let len = v["data"].as_array().map_or(0, Vec::len) as u64;
    let has_next = v["hasNext"].as_bool().unwrap_or((page + 1) * size < total);
    let first = if len > 0 { page * size + 1 } else { 0 };
    (
        total,
        total.div_ceil(size),
        first,
        first + len.saturating_sub(1),
        has_next,
    )
}

// ---------------------------------------------------------------------------------------------

fn ids(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| format!("evt_{i:026}"))
}

fn signatures(c: &mut Criterion) {
    let verifier = Verifier::new(&[SECRET]).unwrap();
    let keyed = HmacSha256::new_from_slice(SECRET).unwrap();
    let mut g = c.benchmark_group("verify");
    for (size, body, sig) in BODIES {
        let sig = text(sig);
        assert!(verifier.verify(body, Some(sig)).is_ok() && naive_verify(SECRET, body, sig));
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_with_input(BenchmarkId::new("xborder", size), body, |b, body| {
            b.iter(|| verifier.verify(black_box(body), Some(black_box(sig))))
        });
        g.bench_with_input(BenchmarkId::new("naive", size), body, |b, body| {
            b.iter(|| naive_verify(SECRET, black_box(body), black_box(sig)))
        });
        g.bench_with_input(BenchmarkId::new("floor", size), body, |b, body| {
            b.iter(|| {
                let mut mac = keyed.clone();
                mac.update(black_box(body));
                mac.finalize().into_bytes()
            })
        });
    }
    g.finish();
}

fn decoding(c: &mut Criterion) {
    let catalog = Catalog::builtin();
    let mut g = c.benchmark_group("decode");
    for (size, body, _) in BODIES {
        assert!(Envelope::decode(body).is_ok() && naive_decode(body).is_some());
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_with_input(BenchmarkId::new("xborder", size), body, |b, body| {
            b.iter(|| Envelope::decode_with(black_box(body), &catalog))
        });
        // The envelope and then entity.data as a Value: what a handler that reads every field pays.
        g.bench_with_input(BenchmarkId::new("xborder_data", size), body, |b, body| {
            b.iter(|| {
                let env = Envelope::decode_with(black_box(body), &catalog).unwrap();
                let data = env.data_value();
                (env, data)
            })
        });
        g.bench_with_input(BenchmarkId::new("naive", size), body, |b, body| {
            b.iter(|| naive_decode(black_box(body)))
        });
        g.bench_with_input(BenchmarkId::new("floor", size), body, |b, body| {
            b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(black_box(body)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("parse_value", size), body, |b, body| {
            b.iter(|| serde_json::from_slice::<Value>(black_box(body)).unwrap())
        });
    }
    g.finish();
}

fn receiving(c: &mut Criterion) {
    let rx = Receiver::new(&[SECRET], 2 * REMEMBERED).unwrap();
    let mut seen = HashSet::new();
    for id in ids(REMEMBERED) {
        rx.commit(&id).unwrap();
        seen.insert(id);
    }
    let keyed = HmacSha256::new_from_slice(SECRET).unwrap();
    let mut g = c.benchmark_group("receive");
    for (size, body, sig) in BODIES {
        let sig = text(sig);
        assert_eq!(rx.receive(body, Some(sig)).action(), "process");
        assert_eq!(naive_receive(SECRET, &seen, body, sig), "process");
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_with_input(BenchmarkId::new("xborder", size), body, |b, body| {
            b.iter(|| rx.receive(black_box(body), Some(black_box(sig))))
        });
        g.bench_with_input(BenchmarkId::new("naive", size), body, |b, body| {
            b.iter(|| naive_receive(SECRET, &seen, black_box(body), black_box(sig)))
        });
        g.bench_with_input(BenchmarkId::new("floor", size), body, |b, body| {
            b.iter(|| {
                let mut mac = keyed.clone();
                mac.update(black_box(body));
                mac.finalize().into_bytes()
            })
        });
    }
    g.finish();
    assert!(rx
        .store()
        .is_committed("evt_00000000000000000000000001")
        .unwrap());
}

fn classifying(c: &mut Criterion) {
    let catalog = Catalog::builtin();
    let set: HashSet<&str> = LIVE_EVENTS.iter().copied().collect();
    let mut g = c.benchmark_group("classify");
    for name in [
        "order:funds_received",
        "stablecoin_deposit:rejected",
        "order:refunded",
    ] {
        let label = name.replace(':', "_");
        assert_eq!(catalog.classify(name).as_str(), naive_classify(name));
        g.bench_with_input(BenchmarkId::new("xborder", &label), name, |b, n| {
            b.iter(|| catalog.classify(black_box(n)))
        });
        g.bench_with_input(BenchmarkId::new("naive", &label), name, |b, n| {
            b.iter(|| naive_classify(black_box(n)))
        });
        g.bench_with_input(BenchmarkId::new("floor", &label), name, |b, n| {
            b.iter(|| set.contains(black_box(n)))
        });
    }
    g.finish();
    black_box(events::classify("order:created") == EventKind::Live);
}

fn validating(c: &mut Criterion) {
    let (draft_t, rules_t, banks_t) = (text(DRAFT), text(RULES), text(BANKS));
    let draft: Value = serde_json::from_str(draft_t).unwrap();
    let rules_v: Value = serde_json::from_str(rules_t).unwrap();
    let banks_v: Value = serde_json::from_str(banks_t).unwrap();
    let rules = ValidationRules::from_value(&rules_v).unwrap();
    let banks = BankList::from_value("CO", &banks_v).unwrap();
    let found = beneficiary::validate(&draft, Some(&rules), Some(&banks));
    let naive = naive_validate(&draft, &rules_v, &banks_v);
    assert_eq!(found.issues.len(), 3, "{:?}", found.issues);
    assert_eq!(naive.len(), 3, "{naive:?}");

    let mut g = c.benchmark_group("validate");
    // Per draft, with the rules document and bank list read once (how a form uses it).
    g.bench_function(BenchmarkId::new("xborder", "rules30"), |b| {
        b.iter(|| beneficiary::validate(black_box(&draft), Some(&rules), Some(&banks)))
    });
    // Everything after parsing: reading the rules document and bank list, then validating.
    g.bench_function(BenchmarkId::new("xborder_cold", "rules30"), |b| {
        b.iter(|| {
            let rules = ValidationRules::from_value(black_box(&rules_v)).ok();
            let banks = BankList::from_value("CO", black_box(&banks_v)).ok();
            beneficiary::validate(black_box(&draft), rules.as_ref(), banks.as_ref())
        })
    });
    g.bench_function(BenchmarkId::new("naive", "rules30"), |b| {
        b.iter(|| naive_validate(black_box(&draft), &rules_v, &banks_v))
    });
    // Parsing the three inputs alone.
    g.bench_function(BenchmarkId::new("floor", "rules30"), |b| {
        b.iter(|| {
            let d: Value = serde_json::from_str(black_box(draft_t)).unwrap();
            let r: Value = serde_json::from_str(black_box(rules_t)).unwrap();
            let k: Value = serde_json::from_str(black_box(banks_t)).unwrap();
            (d, r, k)
        })
    });
    g.finish();
}

/// A hand-written IBAN check as integration guides write it: separators out, upper-cased, the
/// first four moved to the end, letters as 10..35, mod 97 (no registry, no length per country).
fn naive_iban(value: &str) -> bool {
    let s: String = value
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_uppercase();
    if s.len() < 15 || s.len() > 34 || !s.chars().all(|c| c.is_ascii_alphanumeric()) {
        return false;
    }
    let moved = format!("{}{}", &s[4..], &s[..4]);
    let mut rem = 0u32;
    for c in moved.chars() {
        let v = c.to_digit(36).unwrap();
        rem = if v < 10 {
            (rem * 10 + v) % 97
        } else {
            (rem * 100 + v) % 97
        };
    }
    rem == 1
}

/// Contract v4's form calls (issue 31): an account detail checked as the user types it, the
/// form model of the 30-rule document (rules and bank list read once), and the payload
/// normalized before the POST.
fn forms(c: &mut Criterion) {
    const IBAN: &str = "DE89370400440532013000";
    const IBAN_TYPED: &str = "de89 3704 0044 0532 0130 00";
    assert_eq!(IBAN.len(), 22);
    for v in [IBAN, IBAN_TYPED] {
        assert_eq!(
            check_account(AccountDetail::Iban, v).state,
            AccountState::Complete
        );
        assert!(naive_iban(v));
    }
    let mut g = c.benchmark_group("account");
    g.bench_function(BenchmarkId::new("xborder", "iban22"), |b| {
        b.iter(|| check_account(AccountDetail::Iban, black_box(IBAN)))
    });
    g.bench_function(BenchmarkId::new("xborder", "iban22_typed"), |b| {
        b.iter(|| check_account(AccountDetail::Iban, black_box(IBAN_TYPED)))
    });
    g.bench_function(BenchmarkId::new("naive", "iban22"), |b| {
        b.iter(|| naive_iban(black_box(IBAN)))
    });
    g.finish();

    let rules: Value = serde_json::from_slice(RULES).unwrap();
    let banks: Value = serde_json::from_slice(BANKS).unwrap();
    // Read once, as a form does: the validator keeps both documents.
    let validator = BeneficiaryValidator::from_documents(Some(&rules), Some("CO"), Some(&banks));
    let fields = validator
        .form("CO", "bank_account", Some("individual"))
        .unwrap();
    // The 30 field rules (top level, nested, per payment type) give 26 fields for bank_account
    // (the other payment types' rules are not asked for), plus `paymentInfo` and the bank choice.
    let from_rules = fields
        .iter()
        .filter(|f| f.source == FormSource::Rules)
        .count();
    assert_eq!((fields.len(), from_rules), (28, 26), "{fields:?}");
    assert!(
        fields.iter().any(|f| f.path == "address.city"),
        "nested fields"
    );
    let mut g = c.benchmark_group("form");
    g.bench_function(BenchmarkId::new("xborder", "rules30"), |b| {
        b.iter(|| {
            validator.form(
                black_box("CO"),
                black_box("bank_account"),
                Some("individual"),
            )
        })
    });
    g.finish();

    let draft: Value = serde_json::from_slice(DRAFT).unwrap();
    let sent = beneficiary::normalize(draft.clone());
    assert_eq!(
        sent["paymentInfo"]["accountNumber"],
        "DE89370400440532013000"
    );
    let mut g = c.benchmark_group("normalize");
    g.bench_function(BenchmarkId::new("xborder", "draft"), |b| {
        b.iter_batched(
            || draft.clone(),
            |d| beneficiary::normalize(black_box(d)),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn paging(c: &mut Criterion) {
    let page_t = text(PAGE);
    let page: Value = serde_json::from_str(page_t).unwrap();
    let info = pagination::page_info(&page, Some((2, 25))).unwrap();
    assert_eq!(
        (
            info.total,
            info.total_pages,
            info.first_item,
            info.last_item,
            info.has_next
        ),
        naive_page(&page, 2, 25)
    );
    let mut g = c.benchmark_group("page");
    g.bench_function(BenchmarkId::new("xborder", "25"), |b| {
        b.iter(|| pagination::page_info(black_box(&page), Some((2, 25))))
    });
    g.bench_function(BenchmarkId::new("naive", "25"), |b| {
        b.iter(|| naive_page(black_box(&page), 2, 25))
    });
    g.bench_function(BenchmarkId::new("floor", "25"), |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(page_t)).unwrap())
    });
    g.finish();
}

fn env_ms(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(env_ms(
            "XBORDER_BENCH_WARMUP_MS",
            300,
        )))
        .measurement_time(Duration::from_millis(env_ms(
            "XBORDER_BENCH_MEASURE_MS",
            1000,
        )))
        .sample_size(env_ms("XBORDER_BENCH_SAMPLES", 20) as usize)
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = signatures, decoding, receiving, classifying, validating, forms, paging
}
criterion_main!(benches);
