//! The crate graph written in docs/design.md ("The crates") is the graph Cargo builds.
//!
//! design.md holds the graph as a fenced block after the marker line
//! `<!-- crate-graph: checked by crates/test-kit/src/docs_crate_graph.rs -->`, one line per
//! workspace package: `package -> dep, dep` (`package ->` when it has none). Only NORMAL
//! dependencies on other workspace packages are compared (dev- and build-dependencies are
//! not: they do not ship, and tests may reach across the graph). The test runs
//! `cargo metadata --no-deps`, which reads the manifests and builds nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = "<!-- crate-graph: checked by crates/test-kit/src/docs_crate_graph.rs -->";

type Graph = BTreeMap<String, BTreeSet<String>>;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// The graph as documented, or a message saying what is malformed.
fn documented_graph(design: &str) -> Result<Graph, String> {
    let mut lines = design.lines().skip_while(|l| l.trim() != MARKER);
    if lines.next().is_none() {
        return Err(format!("design.md has no line `{MARKER}`"));
    }
    match lines.next() {
        Some(l) if l.trim() == "```text" => {}
        other => return Err(format!("the marker must be followed by ```text, found {other:?}")),
    }
    let mut graph = Graph::new();
    for line in lines {
        let line = line.trim();
        if line == "```" {
            return Ok(graph);
        }
        if line.is_empty() {
            continue;
        }
        let (name, deps) =
            line.split_once("->").ok_or_else(|| format!("line without `->`: {line:?}"))?;
        let deps: BTreeSet<String> = deps
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned)
            .collect();
        if graph.insert(name.trim().to_owned(), deps).is_some() {
            return Err(format!("package listed twice: {}", name.trim()));
        }
    }
    Err("the crate-graph block is not closed with ```".to_owned())
}

/// Every workspace package with its normal dependencies on other workspace packages.
fn cargo_graph(root: &Path) -> Graph {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let packages = meta["packages"].as_array().expect("packages array");
    let members: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().expect("package name").to_owned())
        .collect();
    let mut graph = Graph::new();
    for p in packages {
        let deps = p["dependencies"]
            .as_array()
            .expect("dependencies array")
            .iter()
            // kind is null for a normal dependency, "dev" or "build" otherwise.
            .filter(|d| d["kind"].is_null() && d.get("path").is_some())
            .map(|d| d["name"].as_str().expect("dependency name").to_owned())
            .filter(|name| members.contains(name))
            .collect();
        graph.insert(p["name"].as_str().expect("package name").to_owned(), deps);
    }
    graph
}

/// Each difference as one readable line; empty when the graphs agree.
fn differences(documented: &Graph, actual: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for (name, deps) in actual {
        match documented.get(name) {
            None => out.push(format!("{name}: in the workspace, missing from design.md")),
            Some(doc) => {
                for d in deps.difference(doc) {
                    out.push(format!("{name} -> {d}: in Cargo.toml, missing from design.md"));
                }
                for d in doc.difference(deps) {
                    out.push(format!("{name} -> {d}: in design.md, not in Cargo.toml"));
                }
            }
        }
    }
    for name in documented.keys().filter(|n| !actual.contains_key(*n)) {
        out.push(format!("{name}: in design.md, not a workspace package"));
    }
    out
}

#[test]
fn design_md_crate_graph_matches_cargo_metadata() {
    let root = workspace_root();
    let design = std::fs::read_to_string(root.join("docs/design.md")).expect("read design.md");
    let documented = documented_graph(&design).unwrap_or_else(|e| panic!("docs/design.md: {e}"));
    let actual = cargo_graph(&root);
    let diff = differences(&documented, &actual);
    assert!(
        diff.is_empty(),
        "docs/design.md's crate graph differs from `cargo metadata` (normal path dependencies):\n  {}",
        diff.join("\n  ")
    );
}

#[test]
fn a_changed_edge_is_named() {
    // The comparison itself can fail: one edge added and one removed are both reported.
    let actual: Graph = [("a", &["b"][..]), ("b", &[][..])]
        .iter()
        .map(|(n, d)| (n.to_string(), d.iter().map(|s| s.to_string()).collect()))
        .collect();
    let doc_text = format!("{MARKER}\n```text\na -> c\nb ->\n```\n");
    let documented = documented_graph(&doc_text).expect("parses");
    let diff = differences(&documented, &actual);
    assert_eq!(
        diff,
        vec![
            "a -> b: in Cargo.toml, missing from design.md".to_owned(),
            "a -> c: in design.md, not in Cargo.toml".to_owned(),
        ]
    );
    assert!(documented_graph("no marker here").is_err());
}
