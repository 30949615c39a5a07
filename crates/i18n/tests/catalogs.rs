//! The catalogs are complete (record 0070): every .ftl file parses, both languages have
//! the same message ids in the same areas, and every id the code uses exists — in the UI
//! (`t('id')`, `msgId('id')`, `data-i18n="id"`, `data-i18n-attr="attr:id"` in ui/) with a
//! pattern the UI can fill, and in Rust (`tr!(locale, "id")`, `id!("id")` in src-tauri/src
//! and crates/receipt/src). And no cashier-facing error in src-tauri/src is built from an
//! English sentence written in the code (`AppError::InvalidInput("Pick a card.")`): its
//! words come from the catalogs in the screen's language.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use paydesk_i18n::{area_ids, parse_errors, ui_patterns};
use paydesk_domain::Locale;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files_under(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in entries {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            files_under(&p, exts, out);
        } else if p.extension().and_then(|x| x.to_str()).is_some_and(|x| exts.contains(&x)) {
            out.push(p);
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// The ids after each `call` in `text` (`call` ends with its opening bracket): the id is
/// the first argument (JS, `id!`) or the second, after the locale (`tr!`), when it is a
/// string literal (a computed id is checked where its pieces are written).
fn ids_after(text: &str, call: &str, out: &mut Vec<String>) {
    let mut from = 0;
    while let Some(at) = text[from..].find(call) {
        let start = from + at;
        from = start + call.len();
        if text[..start].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let mut rest = &text[from..];
        if call == "tr!(" {
            let Some(comma) = rest.find(',') else { continue };
            rest = &rest[comma + 1..];
        }
        let rest = rest.trim_start();
        let Some(quote) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') else { continue };
        if let Some(end) = rest[1..].find(quote) {
            out.push(rest[1..1 + end].to_string());
        }
    }
}

/// `attr="value"` values in `text`.
fn attr_values(text: &str, attr: &str, out: &mut Vec<String>) {
    let needle = format!("{attr}=\"");
    let mut from = 0;
    while let Some(at) = text[from..].find(&needle) {
        let start = from + at + needle.len();
        let end = text[start..].find('"').map_or(text.len(), |e| start + e);
        out.push(text[start..end].to_string());
        from = end;
    }
}

/// (file, id) pairs the UI uses.
fn ui_ids() -> Vec<(String, String)> {
    let mut files = Vec::new();
    files_under(&repo().join("ui"), &["js", "html"], &mut files);
    files.sort();
    assert!(files.len() > 3, "ui/ not found");
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a UI file");
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        // i18n.js is the machinery: its comments show the forms, not ids.
        if name == "i18n.js" {
            continue;
        }
        let mut ids = Vec::new();
        ids_after(&text, "t(", &mut ids);
        ids_after(&text, "msgId(", &mut ids);
        attr_values(&text, "data-i18n", &mut ids);
        let mut attrs = Vec::new();
        attr_values(&text, "data-i18n-attr", &mut attrs);
        for a in attrs {
            for pair in a.split(';').filter(|p| !p.trim().is_empty()) {
                match pair.split_once(':') {
                    Some((_, id)) => ids.push(id.trim().to_string()),
                    None => ids.push(format!("<data-i18n-attr without attr:id: {pair}>")),
                }
            }
        }
        // Template literals build ids from pieces; those are checked where the pieces are.
        out.extend(ids.into_iter().filter(|id| !id.contains("${")).map(|id| (name.clone(), id)));
    }
    out
}

/// (file, id) pairs Rust code uses.
fn rust_ids() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for dir in ["src-tauri/src", "crates/receipt/src"] {
        files_under(&repo().join(dir), &["rs"], &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a source file");
        let mut ids = Vec::new();
        ids_after(&text, "tr!(", &mut ids);
        ids_after(&text, "id!(", &mut ids);
        let name = f.strip_prefix(repo()).unwrap_or(&f).display().to_string();
        out.extend(ids.into_iter().map(|id| (name.clone(), id)));
    }
    out
}

#[test]
fn every_file_parses_without_errors_or_duplicate_ids() {
    for l in Locale::ALL {
        assert_eq!(parse_errors(l), &[] as &[String], "{}", l.code());
    }
}

#[test]
fn both_languages_have_the_same_ids_in_the_same_areas() {
    let en: BTreeMap<_, _> = area_ids(Locale::En).collect();
    let ja: BTreeMap<_, _> = area_ids(Locale::Ja).collect();
    assert!(en.len() > 20, "the English catalog is nearly empty");
    let mut wrong = Vec::new();
    for (id, area) in &en {
        match ja.get(id) {
            None => wrong.push(format!("{id} ({area}.ftl) has no Japanese message")),
            Some(a) if a != area => wrong.push(format!("{id} is in en/{area}.ftl but ja/{a}.ftl")),
            Some(_) => {}
        }
    }
    for (id, area) in &ja {
        if !en.contains_key(id) {
            wrong.push(format!("{id} (ja/{area}.ftl) has no English message"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_id_the_ui_uses_has_a_message_it_can_fill() {
    let ids = ui_ids();
    println!("{} message ids found in ui/", ids.len());
    assert!(ids.len() > 20, "no ids found in ui/: the scan is broken");
    let mut wrong = BTreeSet::new();
    for (file, id) in &ids {
        for l in Locale::ALL {
            if !ui_patterns(l).contains_key(id) {
                let why = if paydesk_i18n::has(l, id) { "needs Fluent (a selector or a reference): format it in Rust" } else { "missing" };
                wrong.insert(format!("ui/{file}: {id} in {}: {why}", l.code()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.into_iter().collect::<Vec<_>>().join("\n"));
}

#[test]
fn every_id_rust_uses_has_a_message() {
    let ids = rust_ids();
    println!("{} message ids found in src-tauri/src and crates/receipt/src", ids.len());
    // About 400 today: a scan that finds none would pass whatever the catalogs hold.
    assert!(ids.len() > 200, "only {} ids found in Rust: the scan is broken", ids.len());
    let mut wrong = BTreeSet::new();
    for (file, id) in ids {
        for l in Locale::ALL {
            if !paydesk_i18n::has(l, &id) {
                wrong.insert(format!("{file}: {id} missing in {}", l.code()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.into_iter().collect::<Vec<_>>().join("\n"));
}

#[test]
fn the_scanners_find_what_they_should() {
    let mut ids = Vec::new();
    ids_after("x = t('a-b', { n }); alert('no'); t(name, { n: 'no' }); include_str!(\"f\")", "t(", &mut ids);
    ids_after("msgId(\"c\")", "msgId(", &mut ids);
    ids_after("tr!(locale, \"d\", n = 1); str!(\"x\")", "tr!(", &mut ids);
    attr_values("<p data-i18n=\"e\"> <i data-i18n-attr=\"title:f\">", "data-i18n", &mut ids);
    assert_eq!(ids, ["a-b", "c", "d", "e"]);
}

#[test]
fn messages_format_with_arguments_and_missing_ids_come_back_as_ids() {
    assert_eq!(paydesk_i18n::tr!(Locale::Ja, "start-failed", error = "x"), "PayDesk を起動できませんでした: x");
    assert_eq!(paydesk_i18n::message(Locale::En, "no-such-message"), "no-such-message");
    assert_eq!(ui_patterns(Locale::En).get("start-failed").map(String::as_str), Some("PayDesk could not start: {$error}"));
}

/// English words in a string literal, outside `{placeholders}`: three letters in a row.
fn has_words(literal: &str) -> bool {
    let mut depth = 0;
    let mut run = 0;
    for c in literal.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            c if depth == 0 && c.is_ascii_alphabetic() => {
                run += 1;
                if run >= 3 {
                    return true;
                }
                continue;
            }
            _ => {}
        }
        run = 0;
    }
    false
}

/// `AppError::Variant("words…"` or `AppError::Variant(format!("words…"`: (variant, literal).
fn english_errors(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("AppError::") {
        let start = from + at + "AppError::".len();
        from = start;
        let variant: String = text[start..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let rest = &text[start + variant.len()..];
        let Some(rest) = rest.strip_prefix('(') else { continue };
        let rest = rest.trim_start();
        let rest = rest.strip_prefix("format!(").unwrap_or(rest);
        let Some(rest) = rest.strip_prefix('"') else { continue };
        let literal: String = rest.chars().take_while(|c| *c != '"').collect();
        if has_words(&literal) {
            out.push((variant, literal));
        }
    }
    out
}

#[test]
fn no_cashier_facing_error_is_an_english_literal() {
    let mut files = Vec::new();
    files_under(&repo().join("src-tauri/src"), &["rs"], &mut files);
    files.sort();
    // 54 files today: an empty list would pass.
    assert!(files.len() > 20, "only {} source files found in src-tauri/src", files.len());
    let mut wrong = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a source file");
        for (variant, literal) in english_errors(&text) {
            wrong.push(format!("{}: AppError::{variant}(\"{literal}\"): use a message id (tr!)", f.strip_prefix(repo()).unwrap_or(&f).display()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_english_error_scanner_finds_literals_not_ids() {
    let src = r#"AppError::InvalidInput("Pick a card.".into()); AppError::Internal(format!("the {x} failed: {e}"));
        AppError::InvalidInput(tr!(active(), "input-pick-card")); AppError::BackOfficeRefused(format!("{} ({})", a, b));
        AppError::UnknownItem("X".into()); AppError::CartEmpty"#;
    let found: Vec<String> = english_errors(src).into_iter().map(|(v, _)| v).collect();
    assert_eq!(found, ["InvalidInput", "Internal"]);
}

/// The back office takes no goods back and gives no money back for a sale: its only
/// refunds are the ones reconciliation proposes for a charge the customer should not have
/// paid (record 0142). A message that sends a cashier there to return or refund something
/// would send them nowhere, and what the cashier is told must stay true. (The restored
/// returns' refusals did, until 2026-12-05.)
#[test]
fn no_message_sends_a_return_or_refund_to_the_back_office() {
    let mut wrong = Vec::new();
    for (lang, phrases) in [
        ("en", &["return it at the back office", "back at the back office", "refund it at the back office", "refund at the back office"][..]),
        ("ja", &["バックオフィスで返品", "バックオフィスで返金", "バックオフィスで返して", "バックオフィスで行って"][..]),
    ] {
        let mut files = Vec::new();
        files_under(&repo().join("crates/i18n/locales").join(lang), &["ftl"], &mut files);
        assert!(files.len() > 10, "only {} {lang} catalogs found", files.len());
        for f in files {
            let text = std::fs::read_to_string(&f).expect("a catalog");
            for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
                let lower = line.to_lowercase();
                if let Some(p) = phrases.iter().find(|p| lower.contains(*p)) {
                    wrong.push(format!("{}: {p:?} in {line}", f.strip_prefix(repo()).unwrap_or(&f).display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "the back office has no return or refund of a sale:\n{}", wrong.join("\n"));
}
