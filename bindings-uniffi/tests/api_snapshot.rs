//! Snapshots of the public API the generated Kotlin and Swift bindings give apps: any change
//! to a name, a type, a field, a default or a thrown error shows up here for review
//! (`cargo insta review`, or `INSTA_UPDATE=always cargo test -p xborder-ffi` then read the diff).
//!
//! The bindings are generated from this crate's own cdylib, built by `cargo test` beside the
//! test binary, and reduced to declarations: bodies and uniffi's FFI plumbing are left out.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use camino::Utf8PathBuf;
use uniffi::{GenerateOptions, TargetLanguage};

fn cdylib() -> PathBuf {
    let name = format!(
        "{}xborder_ffi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    // The test binary is target/<profile>/deps/api_snapshot-<hash>; the library sits in deps/
    // and, uplifted, in target/<profile>/.
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps folder");
    [
        deps.join(&name),
        deps.parent().expect("profile folder").join(&name),
    ]
    .into_iter()
    .filter(|p| p.exists())
    .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
    .unwrap_or_else(|| panic!("no {name} beside {}", exe.display()))
}

fn generate(language: TargetLanguage, dir: &str) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    let _ = std::fs::remove_dir_all(&out);
    uniffi::generate(GenerateOptions {
        languages: vec![language],
        source: Utf8PathBuf::from_path_buf(cdylib()).expect("UTF-8 path"),
        out_dir: Utf8PathBuf::from_path_buf(out.clone()).expect("UTF-8 path"),
        config_override: None,
        format: false,
        crate_filter: Some("xborder_ffi".into()),
        metadata_no_deps: true,
    })
    .expect("uniffi-bindgen generate");
    out
}

/// Names of uniffi's plumbing, never part of what apps call.
const PLUMBING: &[&str] = &[
    "FfiConverter",
    "uniffi",
    "Uniffi",
    "RustBuffer",
    "RustCallStatus",
    "ForeignBytes",
    "NoHandle",
    "Handle",
    "InternalException",
    "Cleaner",
    "Disposable",
    "ErrorHandler",
    "companion",
    "private",
    "internal",
    "fileprivate",
    "protected",
    "Pointer",
];

struct Lang {
    /// A line that declares a type whose members are API too.
    is_type: fn(&str) -> bool,
    /// A line that declares an API item.
    is_decl: fn(&str, in_enum: bool) -> bool,
}

fn strip_kotlin_mods(t: &str) -> &str {
    strip_mods(
        t,
        &[
            "public ",
            "open ",
            "data ",
            "sealed ",
            "abstract ",
            "override ",
            "inline ",
            "operator ",
        ],
    )
}

fn strip_swift_mods(t: &str) -> &str {
    strip_mods(
        t,
        &[
            "public ",
            "open ",
            "final ",
            "required ",
            "convenience ",
            "static ",
            "indirect ",
        ],
    )
}

/// Strips leading modifiers, in any order, until none is left.
fn strip_mods<'a>(mut t: &'a str, mods: &[&str]) -> &'a str {
    loop {
        let before = t;
        for m in mods {
            t = t.strip_prefix(m).unwrap_or(t);
        }
        if t == before {
            return t;
        }
    }
}

const KOTLIN: Lang = Lang {
    is_type: |t| {
        let t = strip_kotlin_mods(t);
        ["class ", "interface ", "object ", "enum class "]
            .iter()
            .any(|k| t.starts_with(k))
    },
    is_decl: |t, in_enum| {
        let s = strip_kotlin_mods(t);
        [
            "class ",
            "interface ",
            "object ",
            "enum class ",
            "fun ",
            "val ",
            "var ",
            "constructor(",
        ]
        .iter()
        .any(|k| s.starts_with(k))
            || t.starts_with("@Throws")
            || (in_enum
                && t.trim_end_matches([',', ';'])
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && !t.trim_end_matches([',', ';']).is_empty())
    },
};

const SWIFT: Lang = Lang {
    is_type: |t| {
        let s = strip_swift_mods(t);
        (t.starts_with("public ") || t.starts_with("open ") || t.starts_with("extension "))
            && ["struct ", "enum ", "class ", "protocol ", "extension "]
                .iter()
                .any(|k| s.starts_with(k))
    },
    is_decl: |t, in_enum| {
        t.starts_with("public ")
            || t.starts_with("open ")
            || t.starts_with("required public ")
            || t.starts_with("extension ")
            || t.starts_with("func ")
            || (in_enum && t.starts_with("case "))
    },
};

/// The declarations of a generated file, one a line, indented by nesting, without bodies.
fn public_api(source: &str, lang: &Lang) -> String {
    // Each open brace: whether its contents are API (a kept type's body) and whether it is an enum.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut pending_type: Option<bool> = None;
    let mut out = String::new();
    let mut parens = 0usize;
    let mut carried = String::new();
    for line in source.lines() {
        // A lone modifier line (Swift's `public` before `enum XborderError`) joins the next.
        if line.trim() == "public" {
            carried = "public ".into();
            continue;
        }
        let joined = format!("{}{}", std::mem::take(&mut carried), line.trim());
        let mut t = joined.as_str();
        // `*/ fun x()`: a declaration right after the end of its doc comment.
        if let Some((_, rest)) = t.split_once("*/") {
            t = rest.trim();
        }
        let is_comment = t.starts_with("//") || t.starts_with('*') || t.starts_with("/*");
        if t.is_empty() || is_comment || t.starts_with('#') {
            continue;
        }
        let (api_context, in_enum) = stack.last().copied().unwrap_or((true, false));
        let head = t
            .split('{')
            .next()
            .unwrap_or(t)
            .split(": this(")
            .next()
            .unwrap_or(t)
            .split(" = Uniffi")
            .next()
            .unwrap_or(t);
        // A type is judged by its name, not by what it conforms to (`Receiver: Disposable`).
        let head = if (lang.is_type)(t) {
            head.split([':', '(', '{']).next().unwrap_or(head)
        } else {
            head
        };
        // Inside the parameter list of an emitted declaration every line is API.
        let emitted = (parens > 0 || (api_context && (lang.is_decl)(t, in_enum)))
            && !PLUMBING.iter().any(|p| head.contains(p));
        if emitted {
            let text = if (lang.is_type)(t) { t } else { head };
            let text = text.trim_end_matches('{').trim_end_matches("{}").trim_end();
            let text = text.trim_end_matches(" :").trim_end_matches(':');
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let depth = stack.iter().filter(|f| f.0).count() + usize::from(parens > 0);
            out.push_str(&"    ".repeat(depth));
            out.push_str(&text);
            out.push('\n');
        }
        // Fields of a multi-line primary constructor (`data class X (` ... `)`).
        let (open_p, close_p) = (t.matches('(').count(), t.matches(')').count());
        if emitted && parens == 0 && open_p > close_p {
            parens = open_p - close_p;
        } else if parens > 0 {
            parens = (parens + open_p).saturating_sub(close_p);
        }
        let is_type = emitted && (lang.is_type)(t);
        let opens = t.matches('{').count();
        let closes = t.matches('}').count();
        if opens > closes {
            let kept = is_type || (pending_type.is_some() && !emitted && t.starts_with('{'));
            let is_enum = if is_type {
                t.contains("enum ")
            } else {
                pending_type.unwrap_or(false)
            };
            stack.push((kept, kept && is_enum));
            for _ in 1..opens - closes {
                stack.push((false, false));
            }
        } else {
            for _ in 0..closes - opens {
                stack.pop();
            }
        }
        pending_type = if is_type && opens == closes {
            Some(t.contains("enum "))
        } else {
            None
        };
    }
    out
}

fn read_one(dir: &Path, ext: &str) -> String {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                pending.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                found.push(p);
            }
        }
    }
    assert_eq!(
        found.len(),
        1,
        "one .{ext} file expected in {}",
        dir.display()
    );
    std::fs::read_to_string(&found[0]).unwrap()
}

#[test]
fn kotlin_public_api() {
    let dir = generate(TargetLanguage::Kotlin, "kotlin-api");
    insta::assert_snapshot!(
        "kotlin_public_api",
        public_api(&read_one(&dir, "kt"), &KOTLIN)
    );
}

#[test]
fn swift_public_api() {
    let dir = generate(TargetLanguage::Swift, "swift-api");
    insta::assert_snapshot!(
        "swift_public_api",
        public_api(&read_one(&dir, "swift"), &SWIFT)
    );
}
