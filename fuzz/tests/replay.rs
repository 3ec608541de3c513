//! Replays every file of `corpus/<target>/` and `regressions/<target>/` through the target's
//! check, on stable, without libFuzzer: `cargo test -p xborder-fuzz` (also run by
//! `cargo test --workspace`).
// A test: a missing corpus or target fails it loudly.
#![allow(clippy::panic)]

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn replay(name: &str) {
    let (_, check) = xborder_fuzz::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .copied()
        .unwrap_or_else(|| panic!("no target {name}"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = inputs(&root.join("corpus").join(name));
    assert!(!corpus.is_empty(), "corpus/{name} is empty");
    let mut failed = Vec::new();
    let files = corpus
        .iter()
        .chain(inputs(&root.join("regressions").join(name)).iter())
        .cloned()
        .collect::<Vec<_>>();
    for file in &files {
        let data = fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        if catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
            failed.push(file.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{name}: {} of {} inputs failed: {failed:#?}",
        failed.len(),
        files.len()
    );
}

macro_rules! replay_tests {
    ($($name:ident),* $(,)?) => {
        $(#[test]
        fn $name() {
            replay(stringify!($name));
        })*

        /// Every target has a test here, a libFuzzer bin and a corpus, and nothing else does.
        #[test]
        fn every_target_is_replayed() {
            let tested: Vec<&str> = vec![$(stringify!($name)),*];
            let listed: Vec<&str> = xborder_fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
            assert_eq!(tested, listed);
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            let mut bins: Vec<String> = inputs(&root.join("fuzz_targets"))
                .iter()
                .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
                .collect();
            bins.sort();
            let mut want: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
            want.sort();
            assert_eq!(bins, want, "fuzz_targets/*.rs vs TARGETS");
        }
    };
}

replay_tests!(
    envelope,
    signature,
    event_names,
    registration,
    rules,
    banks,
    account_check,
    page_info,
    list_params,
    receiver_model,
);
