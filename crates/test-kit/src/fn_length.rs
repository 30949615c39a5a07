//! Money-path functions stay short and take few arguments (issue #31, TigerBeetle's style):
//! a function that fits on a screen can be read whole, so its invariants can be checked by
//! eye; a list of eight arguments is a struct that has not been named yet. This reads the
//! ledger's, the register's and the mock PSP's `src/` as text and fails on
//!
//! - a function longer than [`LIMIT`] lines (from its `fn` line to its closing brace),
//! - an `allow(clippy::too_many_arguments)` (group the arguments in a struct instead),
//!
//! outside `#[cfg(test)]` items (an inline `mod tests { .. }`, or a `mod tests;` file).
//! Comments, strings and char literals are blanked before braces are counted, so a `{` in
//! a message does not end a function early.
//!
//! Functions not split yet would be listed in [`KNOWN_LONG`] with their length (empty now:
//! all 26 that were over the limit are split). The list may only shrink and is kept exact:
//! a new long function fails, a listed one that grew fails, and a listed one that shrank or
//! is now short fails too (lower or remove its entry).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a function may be, in lines.
const LIMIT: usize = 70;

/// The source folders checked: the money paths (the ledger writes, the engine drives, the
/// PSP answers).
const ROOTS: &[&str] = &["crates/ledger/src", "crates/register/src", "crates/mock-psp/src"];

/// Functions over [`LIMIT`] not split yet, as (file, function, lines). Only ever
/// shrinks; a length is only ever lowered. Empty since every one was split (Dec 2026):
/// a new long function is split, not listed.
const KNOWN_LONG: &[(&str, &str, usize)] = &[];

/// One function over the limit: its file (relative to the scanned root's parent, with `/`),
/// its name (`name (2)` for a second long one of that name in the file) and its lines.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct LongFn {
    file: String,
    name: String,
    lines: usize,
}

/// What one scan found.
#[derive(Debug, Default)]
struct Findings {
    long: Vec<LongFn>,
    /// `file:line` of each `too_many_arguments` allowance.
    allowances: Vec<String>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// The source with comments, string and char literals replaced by spaces (newlines kept,
/// so line numbers and brace depth stay right).
fn blank_literals(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            // block comments nest in Rust
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r' && !prev_ident && matches!(c.get(i + 1), Some('"') | Some('#')) {
            // a raw string r"..", r#".."#: ends at a quote followed by as many hashes
            let mut j = i + 1;
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            out.push('r');
            i += 1;
            while i < c.len() {
                let end = c[i] == '"' && i > j && (1..=hashes).all(|k| c.get(i + k) == Some(&'#'));
                blank(&mut out, c[i]);
                i += 1;
                if end {
                    for _ in 0..hashes {
                        out.push(' ');
                        i += 1;
                    }
                    break;
                }
            }
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                let n = if c[i] == '\\' { 2 } else { 1 };
                for k in 0..n {
                    if let Some(&ch) = c.get(i + k) {
                        blank(&mut out, ch);
                    }
                }
                i += n;
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' && (c.get(i + 1) == Some(&'\\') || c.get(i + 2) == Some(&'\'')) {
            // a char literal ('{', '\n', '\u{7b}'); a lifetime ('a) has no closing quote
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '\'' {
                let n = if c[i] == '\\' { 2 } else { 1 };
                out.extend(std::iter::repeat_n(' ', n));
                i += n;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The byte index of the `}` closing the `{` at `open`.
fn matching_brace(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, b) in code.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    code.len() - 1
}

/// From `from`, the first `{` or `;` outside parentheses and brackets: where an item's
/// body starts, or where a body-less item (`mod x;`, a trait method) ends.
fn body_or_end(code: &[u8], from: usize) -> Option<(usize, u8)> {
    let mut depth = 0i32;
    for (i, &b) in code.iter().enumerate().skip(from) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' | b';' if depth == 0 => return Some((i, b)),
            _ => {}
        }
    }
    None
}

/// The code with every `#[cfg(test)]` item blanked (newlines kept); the names of the
/// `#[cfg(test)] mod x;` modules it declares, whose files are then not read.
fn without_test_items(code: &str) -> (String, Vec<String>) {
    const ATTR: &str = "#[cfg(test)]";
    let mut bytes = code.as_bytes().to_vec();
    let mut test_mods = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(ATTR).map(|i| i + from) {
        let item = at + ATTR.len();
        let Some((end, kind)) = body_or_end(&bytes, item) else { break };
        let end = if kind == b'{' { matching_brace(&bytes, end) } else { end };
        let head: Vec<&str> = code[item..end].split_whitespace().collect();
        if kind == b';' {
            if let Some(i) = head.iter().position(|w| *w == "mod") {
                test_mods.push(head[i + 1].trim_end_matches(';').to_string());
            }
        }
        for b in &mut bytes[at..=end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        from = end + 1;
    }
    (String::from_utf8(bytes).expect("blanking keeps UTF-8: only ASCII is replaced"), test_mods)
}

/// The files a `mod name;` in `file` stands for (`name.rs` or `name/mod.rs` beside a
/// `mod.rs`/`lib.rs`/`main.rs`, else under a folder named after the file).
fn module_files(file: &Path, name: &str) -> [PathBuf; 2] {
    let dir = file.parent().unwrap();
    let stem = file.file_stem().unwrap().to_string_lossy();
    let base = if matches!(stem.as_ref(), "mod" | "lib" | "main") { dir.to_path_buf() } else { dir.join(stem.as_ref()) };
    [base.join(format!("{name}.rs")), base.join(name).join("mod.rs")]
}

/// `fn name` items in the code, as (name, first line, last line), 1-based; nested
/// functions too. `fn(..)` pointer types and body-less declarations are skipped.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let line_of = |i: usize| bytes[..i].iter().filter(|b| **b == b'\n').count() + 1;
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn") {
        let before_ok = at == 0 || !ident(bytes[at - 1]);
        let after = &code[at + 2..];
        let name: String = after.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !before_ok || !after.starts_with(char::is_whitespace) || name.is_empty() {
            continue;
        }
        if let Some((open, b'{')) = body_or_end(bytes, at) {
            out.push((name, line_of(at), line_of(matching_brace(bytes, open))));
        }
    }
    out
}

/// Long functions and allowances under each root (paths relative to `base`).
fn scan(base: &Path, roots: &[&str]) -> Findings {
    let mut files = Vec::new();
    for root in roots {
        files.extend(crate::source_files::rs_files(&base.join(root)));
    }
    let mut code_of = BTreeMap::new();
    let mut test_files = BTreeSet::new();
    for f in &files {
        let (code, test_mods) = without_test_items(&blank_literals(&std::fs::read_to_string(f).unwrap()));
        for m in test_mods {
            test_files.extend(module_files(f, &m));
        }
        code_of.insert(f.clone(), code);
    }
    let mut found = Findings::default();
    for (f, code) in code_of.iter().filter(|(f, _)| !test_files.contains(*f)) {
        let rel = f.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
        for (i, line) in code.lines().enumerate() {
            if line.contains("too_many_arguments") {
                found.allowances.push(format!("{rel}:{}", i + 1));
            }
        }
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for (name, first, last) in functions(code) {
            let lines = last - first + 1;
            if lines > LIMIT {
                let n = seen.entry(name.clone()).or_default();
                *n += 1;
                let name = if *n == 1 { name } else { format!("{name} ({n})") };
                found.long.push(LongFn { file: rel.clone(), name, lines });
            }
        }
    }
    found
}

/// What is wrong with the findings against the known list (empty: fine).
fn problems(found: &Findings, known: &[(&str, &str, usize)]) -> Vec<String> {
    let mut out: Vec<String> = found
        .allowances
        .iter()
        .map(|at| format!("{at}: allow(clippy::too_many_arguments): group the arguments in a struct"))
        .collect();
    let listed: BTreeMap<(&str, &str), usize> = known.iter().map(|(f, n, l)| ((*f, *n), *l)).collect();
    for f in &found.long {
        match listed.get(&(f.file.as_str(), f.name.as_str())) {
            None => out.push(format!("{}: `{}` is {} lines (limit {LIMIT}): split it", f.file, f.name, f.lines)),
            Some(&was) if f.lines > was => {
                out.push(format!("{}: `{}` grew from {was} to {} lines (limit {LIMIT}): split it", f.file, f.name, f.lines))
            }
            Some(&was) if f.lines < was => {
                out.push(format!("{}: `{}` shrank from {was} to {} lines: lower its KNOWN_LONG entry", f.file, f.name, f.lines))
            }
            Some(_) => {}
        }
    }
    let long: BTreeSet<(&str, &str)> = found.long.iter().map(|f| (f.file.as_str(), f.name.as_str())).collect();
    for (file, name) in listed.keys().filter(|k| !long.contains(*k)) {
        out.push(format!("{file}: `{name}` is no longer over {LIMIT} lines (or gone): remove it from KNOWN_LONG"));
    }
    out
}

#[test]
fn money_path_functions_are_short_and_take_few_arguments() {
    let found = scan(&workspace_root(), ROOTS);
    let p = problems(&found, KNOWN_LONG);
    assert!(p.is_empty(), "function length / arguments (see crates/test-kit/src/fn_length.rs):\n{}", p.join("\n"));
}

/// A planted long function and allowance are named; a test module's long function, a
/// brace in a string and a short function are not; the known list holds both ways.
#[test]
fn a_planted_long_function_and_allowance_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    let body = |n: usize| "    let _x = 1;\n".repeat(n);
    let long = format!("pub fn too_long() {{\n{}    let _s = \"}} {{ }}\"; let _c = '}}';\n}}\n", body(LIMIT - 2));
    let short = format!("fn short_enough() {{\n{}}}\n", body(LIMIT - 2));
    let allowance = "#[allow(clippy::too_many_arguments)]\nfn many(_a: u8, _b: u8) {}\n";
    let in_tests = format!("#[cfg(test)]\nmod tests {{\n    fn long_test() {{\n{}    }}\n}}\n", body(LIMIT + 5));
    std::fs::write(src.join("lib.rs"), format!("mod a;\n{long}{short}{allowance}{in_tests}")).unwrap();
    std::fs::write(src.join("a/mod.rs"), "#[cfg(test)]\nmod tests;\n// fn not_code() { a comment }\n").unwrap();
    std::fs::write(src.join("a/tests.rs"), format!("fn long_in_test_file() {{\n{}}}\n", body(LIMIT + 5))).unwrap();

    let found = scan(dir.path(), &["src"]);
    assert_eq!(found.long, vec![LongFn { file: "src/lib.rs".into(), name: "too_long".into(), lines: LIMIT + 1 }]);
    assert_eq!(found.allowances, vec![format!("src/lib.rs:{}", 1 + (LIMIT + 1) + LIMIT + 1)]);
    let p = problems(&found, &[]);
    assert!(p.len() == 2 && p.iter().any(|l| l.contains("`too_long` is 71 lines")) && p.iter().any(|l| l.contains("too_many_arguments")), "{p:?}");
    // listed at its length: only the allowance is left
    assert_eq!(problems(&found, &[("src/lib.rs", "too_long", LIMIT + 1)]).len(), 1);
    // listed shorter (it grew), longer (it shrank), or a listed one now short: each named
    let grew = problems(&found, &[("src/lib.rs", "too_long", LIMIT)]);
    assert!(grew.iter().any(|l| l.contains("grew from 70 to 71")), "{grew:?}");
    let shrank = problems(&found, &[("src/lib.rs", "too_long", LIMIT + 9)]);
    assert!(shrank.iter().any(|l| l.contains("shrank from 79 to 71")), "{shrank:?}");
    let gone = problems(&found, &[("src/lib.rs", "too_long", LIMIT + 1), ("src/lib.rs", "short_enough", LIMIT + 3)]);
    assert!(gone.iter().any(|l| l.contains("`short_enough` is no longer over 70")), "{gone:?}");
}
