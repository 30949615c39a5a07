//! The ratchet of issue #31: no UI module compares a value with a quoted word the Rust
//! side sends. Every word of every contract section is one the screen must take from
//! ui/contract.js (`OUTCOME_KIND.PAID`), so a literal compare with such a word (`===`,
//! `!==`, `==`, `!=`, `case`) fails here, named by file and line.
//!
//! Words that are not contract words (DOM keys, key names, view names, command names)
//! are left alone: the scan only knows the contract's words. Where the UI's own
//! vocabulary shares a word with the contract, the compare is exempted explicitly in
//! [`OWN_WORDS`], by file and by the value compared, with the reason.

use std::collections::HashSet;

use super::sections;
use super::tests::ui_modules;

/// Compares of the UI's own words that happen to be contract words too: (file, the
/// expression compared, why it is not a Rust value).
const OWN_WORDS: &[(&str, &str, &str)] = &[
    // The tender panel's mode (menu, cash, card, cancel, reader, done) is the screen's own
    // state, set by its keys and buttons; `cash` and `card` are also TENDER_KIND words.
    ("tender.js", "m", "the tender panel's own mode"),
    ("tender.js", "mode", "the tender panel's own mode"),
];

const OPERATORS: [&str; 4] = ["===", "!==", "==", "!="];

/// The quoted word at the start of `s` (after blanks), if any.
fn quoted_at_start(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &s[1..];
    rest.find(q).map(|end| &rest[..end])
}

/// The quoted word ending `s` (before blanks), if any.
fn quoted_at_end(s: &str) -> Option<&str> {
    let s = s.trim_end();
    let q = s.chars().next_back().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &s[..s.len() - 1];
    rest.rfind(q).map(|start| &rest[start + 1..])
}

/// The expression just before an operator (`v.outcome.kind`), to match [`OWN_WORDS`].
fn operand_before(s: &str) -> &str {
    let s = s.trim_end();
    let start = s.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')).map_or(0, |i| i + 1);
    &s[start..]
}

/// Every literal compare in `line` with a word of `words`: (the word, the expression
/// compared with it).
fn literal_compares<'a>(line: &'a str, words: &HashSet<&str>) -> Vec<(&'a str, &'a str)> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let rest = &line[i..];
        if let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) {
            let (before, after) = (&line[..i], &line[i + op.len()..]);
            if let Some(w) = quoted_at_start(after).filter(|w| words.contains(w)) {
                found.push((w, operand_before(before)));
            }
            if let Some(w) = quoted_at_end(before).filter(|w| words.contains(w)) {
                found.push((w, after.trim_start().split(|c: char| c.is_whitespace() || c == ')').next().unwrap_or_default()));
            }
            i += op.len();
            continue;
        }
        let at_word = i == 0 || !line.as_bytes()[i - 1].is_ascii_alphanumeric();
        if at_word && rest.starts_with("case ") {
            if let Some(w) = quoted_at_start(&rest[4..]).filter(|w| words.contains(w)) {
                found.push((w, "case"));
            }
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// `file:line: …` for every compare of a module's text with a contract word.
fn violations(file: &str, text: &str, words: &HashSet<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
            continue;
        }
        for (word, operand) in literal_compares(line, words) {
            if OWN_WORDS.iter().any(|(f, o, _)| *f == file && *o == operand) {
                continue;
            }
            out.push(format!("ui/{file}:{}: compares with '{word}': use the constant from contract.js: {}", n + 1, line.trim()));
        }
    }
    out
}

fn contract_words() -> HashSet<&'static str> {
    sections().into_iter().flat_map(|s| s.words).collect()
}

#[test]
fn ui_compares_rust_words_only_through_the_contract() {
    let words = contract_words();
    let mut all = Vec::new();
    for (file, text) in ui_modules() {
        all.extend(violations(&file, &text, &words));
    }
    assert!(all.is_empty(), "string-matched decisions on Rust's words (issue #31):\n{}", all.join("\n"));
}

/// The scan finds each form it claims to, and leaves the rest alone.
#[test]
fn the_scan_names_each_literal_compare() {
    let words = contract_words();
    let text = "if (v.outcome.kind === 'paid') a();\n\
                if ('canceled' !== s.state) b();\n\
                switch (k) { case \"z\": c(); }\n\
                // a comment === 'paid' is not code\n\
                if (e.key === 'Escape' || view === 'register') d();\n\
                if (m === 'cash') e();\n";
    let v = violations("tender.js", text, &words);
    assert_eq!(v.len(), 3, "{v:#?}");
    assert!(v[0].starts_with("ui/tender.js:1: compares with 'paid'"), "{}", v[0]);
    assert!(v[1].starts_with("ui/tender.js:2: compares with 'canceled'"), "{}", v[1]);
    assert!(v[2].starts_with("ui/tender.js:3: compares with 'z'"), "{}", v[2]);
    // The tender panel's own mode is exempt in tender.js only.
    assert_eq!(violations("reader.js", "if (m === 'cash') e();", &words).len(), 1);
}
