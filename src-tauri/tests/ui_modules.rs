//! The screen's ES modules link: one malformed `import` line, or a name imported that its
//! module does not export, stops the whole module graph before `main.js` runs — no error
//! anywhere a cashier or a window test sees, only a screen that never becomes ready. This
//! checks every `ui/*.js` file without a browser: each line that starts with `import` is
//! `import { a, b } from './file.js';`, the file exists, and it exports each name.

use std::collections::BTreeMap;
use std::path::PathBuf;

fn ui_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ui")
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// `import { a, b } from './file.js';` as (names, file), or None when the line is not one.
fn parse_import(line: &str) -> Option<(Vec<String>, String)> {
    let rest = line.strip_prefix("import { ")?;
    let (names, rest) = rest.split_once(" } from '")?;
    let file = rest.strip_suffix("';")?.strip_prefix("./")?;
    let names: Vec<String> = names.split(',').map(|n| n.trim().to_string()).collect();
    (names.iter().all(|n| is_name(n)) && file.ends_with(".js") && !file.contains('/')).then(|| (names, file.to_string()))
}

/// The names a module exports (`export function|async function|const|let|class NAME`).
fn exports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("export ") else { continue };
        let rest = rest.strip_prefix("async ").unwrap_or(rest);
        for kw in ["function ", "const ", "let ", "class "] {
            if let Some(r) = rest.strip_prefix(kw) {
                let name: String = r.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$').collect();
                out.push(name);
            }
        }
    }
    out
}

fn modules() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(ui_dir()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.ends_with(".js") {
            out.insert(name, std::fs::read_to_string(e.path()).unwrap());
        }
    }
    out
}

fn problems(modules: &BTreeMap<String, String>) -> Vec<String> {
    let mut bad = Vec::new();
    for (file, text) in modules {
        for (i, line) in text.lines().enumerate() {
            if !line.starts_with("import") {
                continue;
            }
            let Some((names, from)) = parse_import(line) else {
                bad.push(format!("ui/{file}:{}: not an import this screen links: {line}", i + 1));
                continue;
            };
            let Some(target) = modules.get(&from) else {
                bad.push(format!("ui/{file}:{}: ui/{from} does not exist", i + 1));
                continue;
            };
            let exported = exports(target);
            for n in names.iter().filter(|n| !exported.contains(n)) {
                bad.push(format!("ui/{file}:{}: ui/{from} does not export {n}", i + 1));
            }
        }
    }
    bad
}

#[test]
fn every_ui_module_imports_only_what_exists() {
    let all = modules();
    assert!(all.contains_key("main.js") && all.len() > 10, "ui/*.js not found: {:?}", all.keys());
    let bad = problems(&all);
    assert!(bad.is_empty(), "the screen would never start:\n{}", bad.join("\n"));
}

/// The check finds the two ways a module graph fails to link.
#[test]
fn the_check_finds_a_broken_line_and_a_missing_export() {
    let mut m = BTreeMap::new();
    m.insert("a.js".to_string(), "export function f() {}\nexport const g = 1;\n".to_string());
    m.insert("b.js".to_string(), "// CSV import { f } from './a.js';\nimport (a file\nimport { f, g } from './a.js';\n".to_string());
    m.insert("c.js".to_string(), "import { h } from './a.js';\nimport { f } from './z.js';\n".to_string());
    let bad = problems(&m);
    assert_eq!(bad.len(), 3, "{bad:#?}");
    assert!(bad[0].contains("ui/b.js:2: not an import"), "{bad:#?}");
    assert!(bad[1].contains("does not export h") && bad[2].contains("ui/z.js does not exist"), "{bad:#?}");
}
