//! Code cites the decision records by number (issue #31, "docs that stay true"): `record
//! 0048`, not a section of the former long design.md (`design §9.15`), whose numbers only
//! resolved through a table at the end of today's overview. This check reads every source
//! the workspace compiles or ships (Rust, JavaScript, SQL, TOML, HTML, CSS, shell and the
//! Makefile) and names each line that still cites a section, or a record whose file is not
//! in `docs/decisions/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Extensions of the files read (a Makefile is read by name).
const EXTENSIONS: [&str; 7] = ["rs", "js", "sql", "toml", "html", "css", "sh"];

/// Folders never read: build output, installed tools, git's own.
const SKIPPED_DIRS: [&str; 6] = ["target", "node_modules", ".git", ".tauri-cli", ".venv", "screenshots"];

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.filter_map(|e| e.ok()) {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str()) {
                source_files(&p, out);
            }
        } else if name == "Makefile" || p.extension().is_some_and(|x| EXTENSIONS.iter().any(|e| x == *e)) {
            out.push(p);
        }
    }
}

/// The record numbers that exist: `docs/decisions/NNNN-*.md`.
fn records(root: &Path) -> BTreeSet<String> {
    let dir = root.join("docs/decisions");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let num = name.get(..4)?;
            (num.bytes().all(|b| b.is_ascii_digit()) && name.ends_with(".md")).then(|| num.to_string())
        })
        .collect()
}

/// Every 4-digit number that follows `record ` / `records ` (and each further one listed
/// after it with `, ` `–` ` and `), with its byte position.
fn cited_records(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    for (start, _) in line.match_indices("record") {
        let mut i = start + "record".len();
        if bytes.get(i) == Some(&b's') {
            i += 1;
        }
        loop {
            let rest = &line[i..];
            let Some(after_sep) = [" ", ", ", "–", " and ", "-"].iter().find_map(|s| rest.strip_prefix(s)) else { break };
            let num: String = after_sep.chars().take_while(|c| c.is_ascii_digit()).collect();
            if num.len() != 4 {
                break;
            }
            out.push(num);
            i = line.len() - after_sep.len() + 4;
        }
    }
    out
}

/// `file:line: why` for each line citing a section of the former design.md or a record
/// that does not exist.
pub(crate) fn stale_citations(root: &Path, scan: &[PathBuf]) -> Vec<String> {
    let known = records(root);
    let mut files = Vec::new();
    for d in scan {
        source_files(d, &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for file in files {
        // This check's own source names what it looks for.
        if file.ends_with("crates/test-kit/src/records_cited.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
        for (n, line) in text.lines().enumerate() {
            if line.contains("design §") || line.contains("design.md §") || line.contains("Design §") {
                out.push(format!("{shown}:{}: cites a section of the former design.md (cite its record): {}", n + 1, line.trim()));
            }
            for r in cited_records(line) {
                if !known.contains(&r) {
                    out.push(format!("{shown}:{}: cites record {r}, which docs/decisions/ does not have: {}", n + 1, line.trim()));
                }
            }
        }
    }
    out
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

#[test]
fn code_cites_decision_records_that_exist() {
    let root = workspace_root();
    let scan: Vec<PathBuf> = ["crates", "src-tauri", "ui", "tests", "Makefile", ".ci"].iter().map(|d| root.join(d)).collect();
    let mut files = Vec::new();
    for d in &scan {
        source_files(d, &mut files);
    }
    assert!(files.len() > 300, "only {} source files found under {}", files.len(), root.display());
    let stale = stale_citations(&root, &scan);
    assert!(stale.is_empty(), "{} stale citations:\n{}", stale.len(), stale.join("\n"));
}

#[test]
fn a_section_citation_and_a_missing_record_are_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("docs/decisions")).unwrap();
    std::fs::write(dir.path().join("docs/decisions/0007-x.md"), "# 0007\n").unwrap();
    std::fs::write(dir.path().join("docs/decisions/0012-y.md"), "# 0012\n").unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("deep")).unwrap();
    std::fs::write(src.join("ok.rs"), "// the rule (record 0007, 0012); records 0007–0012\n").unwrap();
    std::fs::write(src.join("deep/old.js"), "// x\n// as design §3.7 says\n").unwrap();
    std::fs::write(src.join("deep/gone.sql"), "-- see record 0099\n").unwrap();
    std::fs::write(src.join("notes.txt"), "design §1\n").unwrap();
    let found = stale_citations(dir.path(), &[src]);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with("src/deep/gone.sql:1: cites record 0099"), "{found:#?}");
    assert!(found[1].starts_with("src/deep/old.js:2: cites a section"), "{found:#?}");
}
