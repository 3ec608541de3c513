//! The public Rust surface of xborder-core, pinned: a change to it is a visible diff in
//! `tests/snapshots/public_api__public_api.snap` (review it with `cargo insta review`, or
//! `INSTA_UPDATE=always cargo test -p xborder-core --test public_api`).
//!
//! `cargo public-api` needs nightly rustdoc JSON; this reads the sources on stable instead:
//! every `pub` item of a public module (functions with their whole signature, structs with their
//! `pub` fields and attributes such as `#[non_exhaustive]`, enums with their variants, consts,
//! re-exports), and every `pub fn` of an `impl` with the impl's header. `pub(crate)` and
//! private modules (`countries`, `json`'s inside, `scan`) are left out; a private module's item
//! re-exported at a public path shows as that `pub use`.
#![allow(clippy::indexing_slicing, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

/// The modules whose `pub` items are reachable by users.
const PUBLIC: &[&str] = &[
    "lib.rs",
    "api/mod.rs",
    "api/error.rs",
    "api/retry.rs",
    "catch_up/mod.rs",
    "catch_up/answer.rs",
    "catch_up/drift.rs",
    "catch_up/error.rs",
    "catch_up/receive.rs",
    "catch_up/record.rs",
    "catch_up/recovery.rs",
    "catch_up/time.rs",
    "catch_up/walk.rs",
    "claims/mod.rs",
    "claims/entry.rs",
    "claims/error.rs",
    "claims/memory.rs",
    "claims/outcome.rs",
    "claims/redis_script.rs",
    "claims/reply.rs",
    "claims/rules.rs",
    "claims/runner.rs",
    "claims/step.rs",
    "claims/store.rs",
    "claims/task.rs",
    "claims/time.rs",
    "codes.rs",
    "delivery.rs",
    "envelope.rs",
    "events.rs",
    "handling/mod.rs",
    "handling/stepped.rs",
    "pagination/mod.rs",
    "pagination/drift.rs",
    "pagination/error.rs",
    "pagination/numbers.rs",
    "pagination/page.rs",
    "pagination/params.rs",
    "pagination/walker.rs",
    "signature.rs",
    "transport.rs",
    "json.rs",
    "beneficiary/mod.rs",
    "beneficiary/banks.rs",
    "beneficiary/draft.rs",
    "beneficiary/fields.rs",
    "beneficiary/routing.rs",
    "beneficiary/rules.rs",
    "beneficiary/validate.rs",
];

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A top-level declaration that may span lines: up to its body or its end (`{`, `}`, `;`).
fn declaration(lines: &[&str], mut i: usize) -> (String, usize) {
    let mut text = String::new();
    loop {
        let line = lines[i].split("//").next().unwrap_or("");
        text.push(' ');
        text.push_str(line);
        let end = line.trim_end();
        let last = i + 1 == lines.len();
        if end.ends_with('{') || end.ends_with('}') || end.ends_with(';') || last {
            break;
        }
        i += 1;
    }
    (cut(&text), i)
}

/// A declaration without its body, and a const's without its value.
fn cut(text: &str) -> String {
    let text = squash(text);
    let text = if text.contains("const ") || text.contains("static ") {
        text.split(" = ").next().unwrap_or("").to_owned()
    } else {
        text
    };
    let text = text.trim_end_matches([';', ',', ' ']);
    let text = text.strip_suffix("{}").unwrap_or(text);
    let text = text.strip_suffix('{').unwrap_or(text);
    text.trim_end_matches([';', ',', ' ']).to_owned()
}

/// A member (field, variant, method) at four spaces: a method or const up to its body or value,
/// a field or variant up to its `,` (a struct variant with its whole `{ ... }`).
fn member(lines: &[&str], mut i: usize) -> (String, usize) {
    let mut text = String::new();
    let mut depth = 0i32;
    loop {
        let line = lines[i].split("//").next().unwrap_or("");
        text.push(' ');
        text.push_str(line);
        let end = line.trim_end();
        let last = i + 1 == lines.len();
        if text.contains("fn ") || text.contains("const ") {
            if end.ends_with('{') || end.ends_with(';') || text.contains(" = ") || last {
                return (cut(&text), i);
            }
        } else {
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
            let closed = end.ends_with(',') || end.ends_with('}') || end.ends_with(';');
            if (depth <= 0 && closed) || last {
                return (cut(&text), i);
            }
        }
        i += 1;
    }
}

fn items(file: &Path, module: &str) -> Vec<String> {
    let source = fs::read_to_string(file).expect("readable source");
    // Tests are not API.
    let source = source.split("#[cfg(test)]").next().unwrap_or("").to_owned();
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    let mut attrs: Vec<String> = Vec::new();
    let mut context: Option<String> = None; // the impl, struct or enum whose body we are in
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        if trimmed.starts_with("#[") {
            if trimmed.contains("non_exhaustive") {
                attrs.push(squash(trimmed));
            }
            i += 1;
            continue;
        }
        if trimmed.starts_with("///") || trimmed.starts_with("//") || trimmed.is_empty() {
            i += 1;
            continue;
        }
        if !line.starts_with(' ') {
            context = None;
            if trimmed.starts_with("impl") || trimmed.starts_with("pub ") {
                let (decl, end) = declaration(&lines, i);
                let opens = lines[end].trim_end().ends_with('{');
                if !trimmed.starts_with("impl") {
                    out.push(format!(
                        "{module}: {}",
                        attrs
                            .iter()
                            .cloned()
                            .chain([decl.clone()])
                            .collect::<Vec<_>>()
                            .join(" ")
                    ));
                }
                if opens {
                    context = Some(decl);
                }
                attrs.clear();
                i = end + 1;
                continue;
            }
            attrs.clear();
            i += 1;
            continue;
        }
        if let Some(ctx) = &context {
            if line.starts_with("    ") && !line.starts_with("     ") {
                let public_ctx = ctx.starts_with("pub ");
                let variant =
                    ctx.contains("enum ") && trimmed.chars().next().is_some_and(char::is_uppercase);
                let field = public_ctx && ctx.contains("struct ") && trimmed.starts_with("pub ");
                let method = ctx.starts_with("impl") && trimmed.starts_with("pub ");
                let required = ctx.starts_with("pub trait") && trimmed.starts_with("fn ");
                if variant || field || method || required {
                    let (decl, end) = member(&lines, i);
                    out.push(format!(
                        "{module}: {ctx} :: {}",
                        attrs
                            .iter()
                            .cloned()
                            .chain([decl])
                            .collect::<Vec<_>>()
                            .join(" ")
                    ));
                    attrs.clear();
                    i = end + 1;
                    continue;
                }
            }
        }
        attrs.clear();
        i += 1;
    }
    out
}

#[test]
fn public_api() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    for rel in PUBLIC {
        let module = rel
            .trim_end_matches(".rs")
            .trim_end_matches("/mod")
            .replace('/', "::");
        all.extend(items(&src.join(rel), &module));
    }
    insta::assert_snapshot!(all.join("\n"));
}

/// A new `pub mod` must be scanned too: it is listed in [`PUBLIC`].
#[test]
fn every_public_module_is_scanned() {
    let lib = fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("readable lib.rs");
    for line in lib.lines() {
        if let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|l| l.strip_suffix(';'))
        {
            let file = format!("{name}.rs");
            let dir = format!("{name}/mod.rs");
            assert!(
                PUBLIC.contains(&file.as_str()) || PUBLIC.contains(&dir.as_str()),
                "pub mod {name} is not in PUBLIC"
            );
        }
    }
}
