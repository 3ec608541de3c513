//! The `delivery.claims` vectors: tests/vectors (the project's), ../shared/conformance and its
//! v3 folder (the contract's), and any folder of `XBORDER_VECTORS_DIR` (`:`-separated).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use xborder_core::claims::ClaimRules;

/// One case: where it comes from, its rules, its steps (do, id, token, at), what it expects.
pub struct Case {
    pub name: String,
    pub rules: ClaimRules,
    pub steps: Vec<(String, String, String, u64)>,
    pub expect: Vec<String>,
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folders that must each give cases (shared/conformance when it is there).
pub fn required_dirs() -> Vec<PathBuf> {
    let r = root();
    let mut dirs = vec![r.join("tests/vectors")];
    for d in [
        r.join("../shared/conformance"),
        r.join("../shared/conformance/v3"),
    ] {
        if d.is_dir() {
            dirs.push(d);
        }
    }
    dirs
}

pub fn cases() -> Vec<Case> {
    let required = required_dirs();
    let mut dirs = required.clone();
    if let Ok(extra) = std::env::var("XBORDER_VECTORS_DIR") {
        dirs.extend(
            extra
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        );
    }
    let mut out = Vec::new();
    for dir in &dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        let before = out.len();
        for file in files {
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            for case in doc["cases"].as_array().into_iter().flatten() {
                if case["op"] != "delivery.claims" {
                    continue;
                }
                let input = &case["input"];
                let rules = ClaimRules::new(input["leaseMs"].as_u64().unwrap());
                let rules = match input["windowMs"].as_u64() {
                    Some(w) => rules.with_window(w),
                    None => rules.without_window(), // FORMAT.md: no windowMs, duplicates for ever
                };
                let s = |v: &Value| v.as_str().unwrap().to_owned();
                out.push(Case {
                    name: format!("{} :: {}", file.display(), case["name"]),
                    rules,
                    steps: input["steps"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|st| {
                            (
                                s(&st["do"]),
                                s(&st["id"]),
                                s(&st["token"]),
                                st["at"].as_u64().unwrap(),
                            )
                        })
                        .collect(),
                    expect: case["expect"]["results"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(s)
                        .collect(),
                });
            }
        }
        assert!(
            out.len() > before || !required.contains(dir),
            "no delivery.claims case in {}",
            dir.display()
        );
    }
    out
}
