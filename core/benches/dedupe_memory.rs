//! Dedupe memory at 1,000,000 remembered ids: `MemoryWindow::approx_bytes() / len()` and the
//! claims' built-in store (`MemoryClaims`, done ids with their time), beside a hand-written
//! `HashSet<String>` of the same ids (its table plus the strings' heap blocks).
//!
//! Not a timing benchmark: it prints one JSON object and, when `XBORDER_BENCH_OUT` is set,
//! writes it there (`tests/bench/run.sh` reads it). `XBORDER_BENCH_IDS` changes the count.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::time::Instant;

use xborder_core::claims::{ClaimRules, Claims};
use xborder_core::delivery::{DedupeStore, MemoryWindow};

fn main() {
    // `cargo bench` passes `--bench`; a filter that excludes us means there is nothing to do.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if !args.is_empty() && !args.iter().any(|a| "dedupe_memory".contains(a.as_str())) {
        return;
    }
    let n: usize = std::env::var("XBORDER_BENCH_IDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let id = |i: usize| format!("evt_01JCG7Z4R8M2K9{i:010}");
    let id_len = id(0).len();

    let w = MemoryWindow::new(n);
    let start = Instant::now();
    for i in 0..n {
        w.commit(&id(i)).unwrap();
    }
    let commit_ns = start.elapsed().as_nanos() as f64 / n as f64;
    let start = Instant::now();
    let mut hits = 0usize;
    for i in 0..n {
        hits += usize::from(w.is_committed(&id(i)).unwrap());
    }
    let check_ns = start.elapsed().as_nanos() as f64 / n as f64;
    assert_eq!((w.len(), hits), (n, n));
    let bytes = w.approx_bytes();

    // The claims' store: each id claimed then completed (two steps), then claimed again (a
    // duplicate). Times grow, so the window (a day) evicts nothing here.
    let claims = Claims::in_memory(ClaimRules::new(30_000).with_window(86_400_000), n);
    let start = Instant::now();
    for i in 0..n {
        let (id, at) = (id(i), 1_700_000_000_000 + i as u64);
        claims.step("claim", &id, "r", at).unwrap();
        claims.step("complete", &id, "r", at).unwrap();
    }
    let claim_ns = start.elapsed().as_nanos() as f64 / n as f64;
    let mut dup = 0usize;
    for i in 0..n {
        let at = 1_700_000_000_000 + n as u64;
        dup += usize::from(claims.step("claim", &id(i), "r2", at).unwrap() == "duplicate");
    }
    assert_eq!((claims.store().len(), dup), (n, n));
    let claims_bytes = claims.store().approx_bytes();

    // The naive store: every id's text kept. Table: (String header + 1 control byte) per bucket,
    // buckets at 8/7 of capacity; each string's heap block rounded up to malloc's 16 bytes.
    let mut naive: HashSet<String> = HashSet::new();
    for i in 0..n {
        naive.insert(id(i));
    }
    let heap: usize = naive.iter().map(|s| s.capacity().div_ceil(16) * 16).sum();
    let naive_bytes = naive.capacity() * (std::mem::size_of::<String>() + 1) * 8 / 7 + heap;

    let out = format!(
        "{{\"ids\":{n},\"idBytes\":{id_len},\"approxBytes\":{bytes},\"bytesPerId\":{:.2},\
         \"commitNs\":{commit_ns:.1},\"checkNs\":{check_ns:.1},\
         \"claimsBytes\":{claims_bytes},\"claimsBytesPerId\":{:.2},\"claimCompleteNs\":{claim_ns:.1},\
         \"naiveBytes\":{naive_bytes},\"naiveBytesPerId\":{:.2}}}",
        bytes as f64 / n as f64,
        claims_bytes as f64 / n as f64,
        naive_bytes as f64 / n as f64,
    );
    println!("{out}");
    if let Ok(path) = std::env::var("XBORDER_BENCH_OUT") {
        std::fs::write(path, format!("{out}\n")).unwrap();
    }
}
