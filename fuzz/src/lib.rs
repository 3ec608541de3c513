//! The checks of every fuzz target of xborder-core, one function per untrusted input.
//!
//! Each `fuzz_targets/<name>.rs` is a one-line libFuzzer bin calling `xborder_fuzz::<name>`
//! (`receiver_scenario` for `receiver_model`, which takes the decoded `Scenario`);
//! `tests/replay.rs` feeds every file of `corpus/<name>/` (and `regressions/<name>/`) through the
//! same function on stable, so `cargo test --workspace` re-checks what the fuzzer found.
//!
//! A function returns quietly on input it cannot use and panics (an `assert!`) when xborder-core
//! breaks a property: libFuzzer records the input as a crash, the replay test fails naming it.
// A fuzz harness reports a broken property by panicking (libFuzzer records the input, the
// replay test names it): the workspace's no-panic lints are for the shipped crates, not this one.
#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

mod account;
mod beneficiary;
mod envelope;
mod events;
mod pagination;
mod receiver;
pub mod reference;
mod signature;

use serde_json::Value;

pub use account::account_check;
pub use beneficiary::{banks, rules};
pub use envelope::envelope;
pub use events::{event_names, registration};
pub use pagination::{list_params, page_info};
pub use receiver::{receiver_model, receiver_scenario, Delivery, Op, Scenario, Tamper};
pub use signature::signature;

/// A fuzz target: its name (the bin, the corpus folder) and its check.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, in the order `run.sh` runs them.
pub const TARGETS: &[Target] = &[
    ("envelope", envelope),
    ("signature", signature),
    ("event_names", event_names),
    ("registration", registration),
    ("rules", rules),
    ("banks", banks),
    ("account_check", account_check),
    ("page_info", page_info),
    ("list_params", list_params),
    ("receiver_model", receiver_model),
];

/// The first `max` JSON values of a whitespace-separated stream (`{..} {..}`); stops at the first
/// one that does not parse.
fn json_docs(data: &[u8], max: usize) -> Vec<Value> {
    serde_json::Deserializer::from_slice(data)
        .into_iter::<Value>()
        .take(max)
        .map_while(Result::ok)
        .collect()
}

fn is_code(code: &str) -> bool {
    !code.is_empty() && code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
}
