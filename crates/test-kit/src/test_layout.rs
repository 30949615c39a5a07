//! The workspace's test layout (docs/decisions/0103-one-test-binary-per-crate.md): each
//! package with a `tests/` folder builds ONE integration-test binary, `tests/main.rs`, whose
//! `mod` lines are the other files there. With `autotests = false` cargo no longer finds
//! a test file by itself, so a file without its `mod` line would silently never run: this
//! check makes that a failing test instead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What is wrong with one package's `tests/` folder, one line per problem (empty: fine).
pub(crate) fn problems(package_dir: &Path) -> Vec<String> {
    let tests = package_dir.join("tests");
    let files = top_level_rs_files(&tests);
    if files.is_empty() {
        return Vec::new();
    }
    let manifest = std::fs::read_to_string(package_dir.join("Cargo.toml")).unwrap_or_default();
    let mut out = Vec::new();
    if !manifest.lines().any(|l| l.trim() == "autotests = false") {
        out.push(format!("{}: tests/ without `autotests = false` (one binary per file)", package_dir.display()));
    }
    let main = std::fs::read_to_string(tests.join("main.rs")).unwrap_or_default();
    if main.is_empty() {
        out.push(format!("{}: no tests/main.rs", package_dir.display()));
    }
    let declared = declared_modules(&main);
    // Files that are their own [[test]] target (the root package's `package.rs`).
    let own_targets: BTreeSet<String> = manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("path = \"tests/"))
        .filter_map(|rest| rest.strip_suffix(".rs\""))
        .map(str::to_string)
        .collect();
    for file in files {
        if file != "main" && !declared.contains(&file) && !own_targets.contains(&file) {
            out.push(format!("{}: tests/{file}.rs is not compiled: add `mod {file};` to tests/main.rs", package_dir.display()));
        }
    }
    out
}

/// Names of `tests/*.rs` (not folders: those are shared helpers a file declares).
fn top_level_rs_files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rs"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// `mod NAME;` lines at the top level of a main.rs (a `#[path]` on the line before points
/// elsewhere, so that module does not account for tests/NAME.rs).
fn declared_modules(main_rs: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut previous = "";
    for line in main_rs.lines() {
        let line = line.trim();
        let name = line.strip_prefix("pub mod ").or_else(|| line.strip_prefix("mod ")).and_then(|r| r.strip_suffix(';'));
        if let Some(name) = name {
            if !previous.starts_with("#[path") {
                out.insert(name.trim().to_string());
            }
        }
        previous = line;
    }
    out
}

/// The workspace's packages: the root and its `members = [...]`.
fn workspace_packages(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("workspace Cargo.toml");
    let members = manifest.split("members = [").nth(1).and_then(|r| r.split(']').next()).expect("members = [...]");
    let mut out = vec![root.to_path_buf()];
    out.extend(members.split(',').map(|m| m.trim().trim_matches('"')).filter(|m| !m.is_empty()).map(|m| root.join(m)));
    out
}

#[test]
fn every_test_file_is_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let packages = workspace_packages(&root);
    assert!(packages.len() > 10, "members not read: {packages:?}");
    let with_tests = packages.iter().filter(|p| !top_level_rs_files(&p.join("tests")).is_empty()).count();
    assert!(with_tests >= 14, "only {with_tests} packages with tests/ found");
    let problems: Vec<String> = packages.iter().flat_map(|p| problems(p)).collect();
    assert!(problems.is_empty(), "test files that would not run:\n{}", problems.join("\n"));
}

#[test]
fn a_test_file_without_its_mod_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("tests/common")).unwrap();
    std::fs::write(p.join("Cargo.toml"), "[package]\nname = \"x\"\nautotests = false\n\n[[test]]\nname = \"integration\"\npath = \"tests/main.rs\"\n\n[[test]]\nname = \"alone\"\npath = \"tests/alone.rs\"\n").unwrap();
    std::fs::write(p.join("tests/main.rs"), "mod common;\n\nmod listed;\n#[path = \"common/x.rs\"]\nmod elsewhere;\n").unwrap();
    for f in ["listed", "alone", "elsewhere", "forgotten"] {
        std::fs::write(p.join(format!("tests/{f}.rs")), "").unwrap();
    }
    std::fs::write(p.join("tests/common/mod.rs"), "").unwrap();
    let found = problems(p);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].ends_with("tests/elsewhere.rs is not compiled: add `mod elsewhere;` to tests/main.rs"), "{found:?}");
    assert!(found[1].ends_with("tests/forgotten.rs is not compiled: add `mod forgotten;` to tests/main.rs"), "{found:?}");

    // per-file binaries again (autotests on, no main.rs): named too
    std::fs::write(p.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    std::fs::remove_file(p.join("tests/main.rs")).unwrap();
    let found = problems(p);
    assert!(found.iter().any(|l| l.contains("without `autotests = false`")), "{found:?}");
    assert!(found.iter().any(|l| l.contains("no tests/main.rs")), "{found:?}");
}
