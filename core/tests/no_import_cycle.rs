//! Core's top-level modules import one another without a circle: every `crate::<module>` path in
//! a module's code (its `use` lines and paths written inline, its submodules included, its unit
//! tests left out) is an edge from that module to `<module>`, and the graph has no cycle.
//!
//! Issue 33 broke the circle `claims → delivery → window → delivery` (digests moved to
//! `digest.rs`, `StoreError` to the claims' store); this keeps it broken. It reads the sources
//! only, in well under a second.
#![allow(clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The top-level module a file of `src/` belongs to: `lib.rs` is the root (`crate`),
/// `foo.rs` and `foo/…` are `foo`.
fn module_of(rel: &Path) -> String {
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    match first.strip_suffix(".rs") {
        Some("lib") => "crate".to_owned(),
        Some(name) => name.to_owned(),
        None => first,
    }
}

/// The source without its unit tests: a `tests.rs` file is all tests, and a file's
/// `#[cfg(test)] mod tests` runs to its end.
fn code_of(rel: &Path, source: &str) -> String {
    if rel.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let mut out = String::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        let next = lines.peek().map(|l| l.trim_start()).unwrap_or("");
        if line.trim() == "#[cfg(test)]" && next.starts_with("mod tests") {
            break;
        }
        let code = line.trim_start();
        if code.starts_with("//") {
            continue; // comments and docs: a doc link is no import
        }
        out.push_str(line.split(" //").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The top-level modules a piece of code names: `crate::foo…` and each `foo` of
/// `crate::{foo…, bar…}`.
fn targets(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = code.get(at + "crate::".len()..).unwrap_or("");
        if let Some(group) = rest.strip_prefix('{') {
            // Names at depth 0 of the group, each up to its `::`, `,` or `}`.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    _ if start && !c.is_whitespace() => {
                        start = false;
                        out.insert(ident(group.get(i..).unwrap_or("")));
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("readable src dir")
        .map(|e| e.expect("readable entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The graph of core's top-level modules.
fn core_graph() -> Graph {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.strip_prefix(&src).ok())
        .map(module_of)
        .collect();
    let mut graph = Graph::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("a file under src");
        let from = module_of(rel);
        let source = fs::read_to_string(&file).expect("readable source");
        let edges = graph.entry(from.clone()).or_default();
        for to in targets(&code_of(rel, &source)) {
            // `crate::MalformedJson` and the like: an item of the crate's root.
            let to = if modules.contains(&to) {
                to
            } else {
                "crate".to_owned()
            };
            if to != from {
                edges.insert(to);
            }
        }
    }
    graph
}

/// A cycle of `graph` as the path `a → b → … → a`, if it has one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle: Vec<String> = path.iter().skip(at).cloned().collect();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut done, &mut Vec::new()))
}

#[test]
fn core_modules_import_without_a_circle() {
    let graph = core_graph();
    if let Some(cycle) = find_cycle(&graph) {
        panic!("an import circle in core: {}", cycle.join(" → "));
    }
    // The reading works: the edges issue 33 left are seen.
    for (from, to) in [
        ("delivery", "claims"),
        ("claims", "window"),
        ("window", "digest"),
        ("pagination", "digest"),
    ] {
        assert!(
            graph.get(from).is_some_and(|e| e.contains(to)),
            "{from} → {to} not seen: {graph:?}"
        );
    }
}

#[test]
fn the_check_finds_a_circle_where_there_is_one() {
    let code =
        "use crate::{window::{Packed, Window}, digest::digest};\nfn f() { crate::delivery::x(); }";
    let names: Vec<String> = targets(code).into_iter().collect();
    assert_eq!(names, ["delivery", "digest", "window"]);
    let mut graph = Graph::new();
    for (from, to) in [
        ("claims", "delivery"),
        ("delivery", "window"),
        ("window", "delivery"),
    ] {
        graph.entry(from.into()).or_default().insert(to.into());
    }
    assert_eq!(
        find_cycle(&graph).map(|c| c.join(" → ")),
        Some("delivery → window → delivery".to_owned())
    );
    graph.remove("window");
    assert_eq!(find_cycle(&graph), None);
}
