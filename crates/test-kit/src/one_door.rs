//! The engine as the only door (issue #31): the app and the CLI reach the ledger through
//! the engine's operations and use cases (`engine.staff()`, `engine.catalog()`, …), so each
//! rule is written once. `Engine::with_ledger` / `with_reader` are crate-private; the
//! one way around them, `Engine::ledger_for_tests` / `reader_for_tests`, is for test
//! harnesses. This check makes a call to it from the app's or the CLI's own sources a
//! failing test (their `tests/` folders may use it to check results).

use std::path::{Path, PathBuf};

/// The escape hatches' names, as a call.
const HATCHES: [&str; 2] = ["ledger_for_tests(", "reader_for_tests("];

/// `file:line: text` for each call of an escape hatch in the sources under `src_dirs`.
pub(crate) fn hatch_calls(src_dirs: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for file in src_dirs.iter().flat_map(|d| crate::source_files::rs_files(d)) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if HATCHES.iter().any(|h| line.contains(h)) {
                out.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn the_app_and_the_cli_reach_the_ledger_only_through_the_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dirs = [root.join("src-tauri/src"), root.join("crates/cli/src")];
    for d in &dirs {
        assert!(crate::source_files::rs_files(d).len() > 10, "sources not found under {}", d.display());
    }
    let calls = hatch_calls(&dirs);
    assert!(calls.is_empty(), "the app or the CLI reaches around the engine (use or add a use case in paydesk-register):\n{}", calls.join("\n"));
}

#[test]
fn a_call_of_the_escape_hatch_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src/deep");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("ok.rs"), "fn f(e: &Engine) { e.catalog().list(); }\n").unwrap();
    std::fs::write(src.join("bad.rs"), "fn f(e: &Engine) {\n    e.ledger_for_tests(|l| l.catalog());\n}\n").unwrap();
    std::fs::write(src.join("notes.txt"), "e.reader_for_tests(|l| l.catalog())\n").unwrap();
    let found = hatch_calls(&[dir.path().join("src")]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("bad.rs:2: e.ledger_for_tests(|l| l.catalog());"), "{found:?}");
}
