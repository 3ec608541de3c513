//! A dudect-style constant-time check of `Verifier::verify` (a benchmark, not a CI test).
//!
//! ```text
//! cargo run --release -p xborder-conformance --bin timing -- 1000000
//! ```
//!
//! Three classes of header are verified against the same key and body, chosen at random for
//! every sample (interleaved, so drift in clock speed or load falls on all classes alike):
//! the correct signature, one whose first byte is wrong, one whose last byte is wrong. Each
//! call is timed; Welch's t statistic is computed for every pair of classes, on all samples and
//! on samples cropped at the pooled 99th and 90th percentiles (dudect's way of discarding
//! interrupts and other outliers). |t| < 4.5 for every pair and crop: no evidence of a timing
//! difference. A comparison that stopped at the first differing byte would show up as a large
//! |t| between "first byte wrong" and the other two.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use xborder_core::signature::{sign, Verifier};

const CLASSES: [&str; 3] = ["correct", "first byte wrong", "last byte wrong"];
/// dudect's threshold: above it, the classes' timings differ.
const THRESHOLD: f64 = 4.5;
const BODY: &[u8] = br#"{"id":"evt_timing","event":"order:funds_received","entity":{"id":"ord_1","type":"order","data":{"status":"funds_received","amount":"100.00","currency":"USD"}}}"#;
const SECRET: &[u8] = b"whsec_timing_harness";

/// xorshift64*: a fixed-seed generator for the class order (no dependency, reproducible).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Running mean and variance (Welford).
#[derive(Default, Clone, Copy)]
struct Stats {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Stats {
    fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    fn var(&self) -> f64 {
        if self.n > 1.0 {
            self.m2 / (self.n - 1.0)
        } else {
            0.0
        }
    }
}

/// Welch's t statistic of two samples.
fn welch(a: &Stats, b: &Stats) -> f64 {
    let se = (a.var() / a.n + b.var() / b.n).sqrt();
    if se > 0.0 {
        (a.mean - b.mean) / se
    } else {
        0.0
    }
}

/// A header with byte `index` of the correct signature changed.
fn with_byte_flipped(sig: &str, index: usize) -> Option<String> {
    let mut raw = hex::decode(sig).ok()?;
    *raw.get_mut(index)? ^= 0x01;
    Some(hex::encode(raw))
}

fn main() -> ExitCode {
    let samples: usize = match std::env::args().nth(1).map(|s| s.replace('_', "").parse()) {
        None => 1_000_000,
        Some(Ok(n)) if n >= 1_000 => n,
        _ => {
            eprintln!("usage: timing [SAMPLES >= 1000] (default 1000000)");
            return ExitCode::from(2);
        }
    };
    let (Ok(verifier), Ok(good)) = (Verifier::new(&[SECRET]), sign(SECRET, BODY)) else {
        eprintln!("timing: could not key the verifier");
        return ExitCode::FAILURE;
    };
    let (Some(first), Some(last)) = (with_byte_flipped(&good, 0), with_byte_flipped(&good, 31))
    else {
        eprintln!("timing: could not build the headers");
        return ExitCode::FAILURE;
    };
    let headers = [good, first, last];
    for (i, h) in headers.iter().enumerate() {
        let ok = verifier.verify(BODY, Some(h)).is_ok();
        if ok != (i == 0) {
            eprintln!("timing: class {:?} verified as {ok}", CLASSES.get(i));
            return ExitCode::FAILURE;
        }
    }

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let call = |class: usize| {
        let header = headers.get(class).map(String::as_str);
        let start = Instant::now();
        let r = verifier.verify(black_box(BODY), black_box(header));
        let ns = start.elapsed().as_nanos();
        black_box(r.is_ok());
        ns as f64
    };
    // Warm-up: caches, branch predictors, clock speed.
    for i in 0..(samples / 20).max(10_000) {
        black_box(call(i % 3));
    }
    let started = Instant::now();
    let mut timed: Vec<(usize, f64)> = Vec::with_capacity(samples);
    for _ in 0..samples {
        let class = (rng.next() % 3) as usize;
        timed.push((class, call(class)));
    }
    let wall = started.elapsed();

    let mut sorted: Vec<f64> = timed.iter().map(|&(_, t)| t).collect();
    sorted.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        let i = ((sorted.len() as f64 - 1.0) * p) as usize;
        sorted.get(i).copied().unwrap_or(f64::INFINITY)
    };
    let crops = [
        ("all samples", f64::INFINITY),
        ("below p99", pct(0.99)),
        ("below p90", pct(0.90)),
    ];

    println!(
        "timing: Verifier::verify, {samples} samples interleaved at random over {} classes, {:.2} s",
        CLASSES.len(),
        wall.as_secs_f64()
    );
    println!(
        "timing: body {} bytes, one key; median {:.0} ns, p90 {:.0} ns, p99 {:.0} ns",
        BODY.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99)
    );
    let mut worst = 0.0f64;
    for (crop, limit) in crops {
        let mut stats = [Stats::default(); 3];
        for &(class, t) in &timed {
            if t <= limit {
                if let Some(s) = stats.get_mut(class) {
                    s.push(t);
                }
            }
        }
        let means: Vec<String> = CLASSES
            .iter()
            .zip(&stats)
            .map(|(c, s)| format!("{c} {:.1} ns (n={})", s.mean, s.n))
            .collect();
        println!("{crop}: mean {}", means.join(", "));
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let (Some(sa), Some(sb)) = (stats.get(a), stats.get(b)) else {
                continue;
            };
            let t = welch(sa, sb);
            worst = worst.max(t.abs());
            println!(
                "  t({} vs {}) = {t:+.3}",
                CLASSES.get(a).unwrap_or(&"?"),
                CLASSES.get(b).unwrap_or(&"?")
            );
        }
    }
    if worst < THRESHOLD {
        println!("verdict: max |t| = {worst:.3} < {THRESHOLD}: no evidence of timing leakage");
    } else {
        println!("verdict: max |t| = {worst:.3} >= {THRESHOLD}: the classes' timings differ (possible leakage; rerun on a quiet machine to confirm)");
    }
    ExitCode::SUCCESS
}
