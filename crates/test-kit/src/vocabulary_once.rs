//! The shared vocabulary is defined once (issue #31, decision 0107): `Currency`,
//! `TenderKind`, `Locale` and `Money` are declared (`enum X` / `struct X`) in
//! `crates/domain` and in no other crate. A twin elsewhere (the receipt's own `Currency`,
//! i18n's own `Locale`, as there were) needs a conversion at every border and drifts; this
//! reads every `.rs` file of the workspace's packages as text and names each twin.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The words that must have one declaration, and the crate that holds it.
const ONCE: &[&str] = &["Currency", "TenderKind", "Locale", "Money"];
const HOME: &str = "crates/domain";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// Every package folder: `crates/*`, the app, and the root package's `tests/`.
fn package_dirs(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| (format!("crates/{}", e.file_name().to_string_lossy()), e.path()))
        .collect();
    out.push(("src-tauri".into(), root.join("src-tauri")));
    out.push(("tests".into(), root.join("tests")));
    out.sort();
    out
}

/// The names `enum NAME` / `struct NAME` declares in `src`, comments left out.
fn declared(src: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in src.lines() {
        let code = line.find("//").map_or(line, |i| &line[..i]);
        let words: Vec<&str> = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        for pair in words.windows(2) {
            if pair[0] == "enum" || pair[0] == "struct" {
                out.insert(pair[1].to_string());
            }
        }
    }
    out
}

/// For each word of [`ONCE`], the packages that declare it.
fn declarations(packages: &[(String, PathBuf)]) -> BTreeMap<&'static str, BTreeSet<String>> {
    let mut out: BTreeMap<&'static str, BTreeSet<String>> = ONCE.iter().map(|w| (*w, BTreeSet::new())).collect();
    for (name, dir) in packages {
        let files = crate::source_files::rs_files(dir);
        for f in files {
            let names = declared(&std::fs::read_to_string(&f).unwrap_or_default());
            for w in ONCE {
                if names.contains(*w) {
                    out.get_mut(w).expect("listed").insert(name.clone());
                }
            }
        }
    }
    out
}

/// One line per word not declared in exactly [`HOME`].
fn problems(found: &BTreeMap<&'static str, BTreeSet<String>>) -> Vec<String> {
    found
        .iter()
        .filter(|(_, crates)| crates.len() != 1 || !crates.contains(HOME))
        .map(|(w, crates)| format!("`{w}` is declared in {crates:?}: declare it once, in {HOME}, and use paydesk_domain::{w}"))
        .collect()
}

#[test]
fn the_vocabulary_is_declared_once_in_the_domain_crate() {
    let found = declarations(&package_dirs(&workspace_root()));
    let p = problems(&found);
    assert!(p.is_empty(), "the shared vocabulary has twins:\n{}", p.join("\n"));
}

/// A planted twin is named with both crates; a comment, a longer name and the home crate's
/// own declaration are not twins.
#[test]
fn a_planted_twin_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    // The keywords are spliced in so this file's own text declares nothing.
    let (e, s) = ("enum", "struct");
    write("domain/src/money.rs", &format!("pub {e} Currency {{ Jpy }}\npub {s} Money {{ m: i64 }}\n"));
    write("domain/src/more.rs", &format!("pub {e} TenderKind {{ Cash }}\npub {e} Locale {{ En }}\n"));
    write(
        "receipt/src/document.rs",
        &format!("#[derive(Debug)]\npub(crate) {e} Currency {{\n    Jpy,\n}}\n// {e} Money in a comment\npub {e} DemoLocale {{ En }}\n"),
    );
    let packages = vec![
        (HOME.to_string(), dir.path().join("domain")),
        ("crates/receipt".to_string(), dir.path().join("receipt")),
    ];
    let p = problems(&declarations(&packages));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with("`Currency` is declared in {\"crates/domain\", \"crates/receipt\"}"), "{p:?}");
    // Declared nowhere is named too: the home crate must hold each word.
    let p = problems(&declarations(&packages[1..]));
    assert_eq!(p.len(), 4, "{p:?}");
}
