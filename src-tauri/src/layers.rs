//! The app's layers (issue #31, decision 0106), checked: a module may import its own layer
//! or one below, never one above. The test-kit's `module_cycles` keeps the app free of
//! import circles; this keeps the order, so a feature's words never reach into its
//! commands and the errors never into the state.
//!
//! A new top-level module must be given a layer here (the test names one that is not), and
//! every Tauri command lives in the features layer: there is no catch-all commands module.

use std::collections::BTreeSet;
use std::path::Path;

/// Bottom first. Within a layer modules may import each other (without a circle).
const LAYERS: &[(&str, &[&str])] = &[
    // the words and the errors everything says: no app state at hand
    ("words", &["base", "i18n", "money", "wording", "error"]),
    // the machine: flags, the data folder's files, the keychain
    ("platform", &["config", "secrets", "settings_file", "settings_offline", "pin_locks", "window_size"]),
    // what the app holds while it runs, who acts, the operation gate, checked input
    ("core", &["state", "staff", "ops", "input"]),
    // what the screen is shown, and the contract written from it
    ("presentation", &["views", "contract"]),
    // one module per feature: its commands over the engine (every command lives here)
    (
        "features",
        &[
            "about", "backups", "sale", "checkout", "payments", "report", "status", "reader", "store", "shift", "backoffice",
            "language", "register_settings", "sign_in", "staff_admin", "customer",
        ],
    ),
];

/// Test-only modules: they may import anything.
const TEST_ONLY: &[&str] = &["i18n_coverage", "layers"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, ms)| ms.contains(&module))
}

/// The code of a file without comments and its unit-test module.
fn code_of(src: &str) -> String {
    let before_tests = src.split("#[cfg(test)]\nmod tests").next().unwrap_or(src);
    before_tests.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The top-level modules a file's code names (`crate::x`, `use crate::{x, y::z}`).
fn imports(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for part in code.split("crate::").skip(1) {
        if let Some(group) = part.strip_prefix('{') {
            let group = group.split('}').next().unwrap_or("");
            for item in group.split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                out.insert(name);
            }
        } else {
            out.insert(part.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    out.retain(|n| !n.is_empty() && n != "self");
    out
}

/// Every import of a module in a higher layer, as "from → to (file)"; and every
/// top-level module without a layer.
fn violations(files: &[(String, String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let tops: BTreeSet<&str> = files.iter().map(|(top, _, _)| top.as_str()).collect();
    for (top, file, src) in files {
        if TEST_ONLY.contains(&top.as_str()) || top == "lib" || top == "main" {
            continue;
        }
        let Some(from) = layer_of(top) else {
            out.push(format!("{top} has no layer in layers.rs"));
            continue;
        };
        for to in imports(&code_of(src)) {
            if to == *top || !tops.contains(to.as_str()) || TEST_ONLY.contains(&to.as_str()) {
                continue;
            }
            match layer_of(&to) {
                Some(l) if l <= from => {}
                Some(l) => out.push(format!("{top} ({}) imports {to} ({}) in {file}", LAYERS[from].0, LAYERS[l].0)),
                None => out.push(format!("{to} has no layer in layers.rs")),
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every file that declares a Tauri command outside the features layer: a command
/// lives in its feature's module (README "Where a new command goes").
fn commands_outside_features(files: &[(String, String, String)]) -> Vec<String> {
    let features = LAYERS.iter().position(|(name, _)| *name == "features");
    let mut out: Vec<String> = files
        .iter()
        .filter(|(top, _, _)| !TEST_ONLY.contains(&top.as_str()) && layer_of(top) != features)
        .filter(|(_, _, src)| code_of(src).contains("#[tauri::command]"))
        .map(|(_, file, _)| file.clone())
        .collect();
    out.sort();
    out
}

/// (top-level module, path, text) of every file under `dir`.
fn files_in(dir: &Path, root: &Path, out: &mut Vec<(String, String, String)>) {
    for entry in std::fs::read_dir(dir).expect("src-tauri/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files_in(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src").to_string_lossy().to_string();
            let top = rel.split(['/', '.']).next().unwrap_or("").to_string();
            // a module's own tests file is test code
            if rel.ends_with("/tests.rs") {
                continue;
            }
            out.push((top, rel, std::fs::read_to_string(&path).expect("a source file")));
        }
    }
}

#[test]
fn no_module_imports_one_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    files_in(&root, &root, &mut files);
    let found = violations(&files);
    assert!(found.is_empty(), "imports against the layers:\n{}", found.join("\n"));
}

#[test]
fn every_command_lives_in_a_feature_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    files_in(&root, &root, &mut files);
    assert!(files.iter().any(|(top, _, src)| top == "store" && src.contains("#[tauri::command]")), "commands not found");
    let found = commands_outside_features(&files);
    assert!(found.is_empty(), "commands outside a feature module:\n{}", found.join("\n"));
}

#[test]
fn a_planted_command_outside_the_features_is_named() {
    let file = |top: &str, src: &str| (top.to_string(), format!("{top}.rs"), src.to_string());
    let cmd = "#[tauri::command]\npub fn x() {}\n";
    let ok = [file("checkout", cmd), file("input", "// #[tauri::command] in a comment is none\n")];
    assert!(commands_outside_features(&ok).is_empty(), "{:?}", commands_outside_features(&ok));
    let planted = [file("checkout", cmd), file("views", cmd)];
    assert_eq!(commands_outside_features(&planted), vec!["views.rs".to_string()]);
}

#[test]
fn a_planted_upward_import_is_named() {
    let file = |top: &str, src: &str| (top.to_string(), format!("{top}.rs"), src.to_string());
    let ok = [file("error", "use crate::i18n::t;\n// crate::state in a comment is no import\n"), file("i18n", ""), file("state", "")];
    assert!(violations(&ok).is_empty(), "{:?}", violations(&ok));
    let planted = [file("error", "use crate::{i18n::t, state::AppState};"), file("i18n", ""), file("state", "")];
    assert_eq!(violations(&planted), vec!["error (words) imports state (core) in error.rs".to_string()]);
    let unknown = [file("gadget", "")];
    assert_eq!(violations(&unknown), vec!["gadget has no layer in layers.rs".to_string()]);
}
