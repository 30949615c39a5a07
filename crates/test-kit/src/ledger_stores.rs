//! The ledger as per-aggregate stores (issue #31, decision 0111): `Ledger` holds the
//! connection's life cycle and one accessor per store, nothing else. Reading the ledger's
//! sources as text, this fails when an `impl Ledger` block appears outside
//! `src/ledger/mod.rs` (its methods belong on a store, next to their SQL), or when
//! `Ledger` grows a public method that is not a store accessor.

use std::path::{Path, PathBuf};

/// The one file allowed an `impl Ledger` block, relative to the crate's `src/`.
const HOME: &str = "ledger/mod.rs";

/// `Ledger`'s public methods besides the store accessors: open / open_with_keys /
/// open_reader / open_in_memory / commit_count / path / schema_version / connection /
/// new_key. A ratchet: a new one needs a reason to stay off every store (and this raised).
const MAX_OWN_METHODS: usize = 9;

/// The line without its `//` comment, trimmed.
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i]).trim()
}

/// Whether a line opens an inherent `impl` block of `Ledger` (`impl Ledger {`,
/// `impl crate::Ledger {`, `impl<'a> super::Ledger {` …), not of a trait for it.
fn opens_impl_ledger(line: &str) -> bool {
    let Some(rest) = code(line).strip_prefix("impl") else { return false };
    let rest = match rest.strip_prefix('<') {
        Some(generics) => generics.split_once('>').map_or("", |(_, r)| r),
        None => rest,
    };
    let ty = rest.trim().trim_end_matches('{').trim();
    ty.rsplit("::").next() == Some("Ledger") && !ty.contains(" for ")
}

/// `file:line` of every `impl Ledger` block outside [`HOME`], under `src`.
fn stray_impls(src: &Path) -> Vec<String> {
    let files = crate::source_files::rs_files(src);
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.strip_prefix(src).unwrap() != Path::new(HOME)) {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| opens_impl_ledger(l)) {
            out.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
        }
    }
    out
}

/// Names of the public methods in [`HOME`]'s `impl Ledger` blocks that are not store
/// accessors (an accessor answers a store over the ledger: `-> Payments<&Ledger>` or
/// `-> Payments<&mut Ledger>`).
fn own_methods(home_text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in home_text.lines() {
        if opens_impl_ledger(line) {
            inside = true;
        } else if line.starts_with('}') {
            inside = false;
        }
        let Some(sig) = code(line).strip_prefix("pub fn ").filter(|_| inside) else { continue };
        let accessor = sig.contains("<&Ledger>") || sig.contains("<&mut Ledger>");
        if !accessor {
            out.push(sig.split(['(', '<']).next().unwrap_or(sig).to_string());
        }
    }
    out
}

fn ledger_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ledger/src").canonicalize().expect("ledger src")
}

#[test]
fn impl_ledger_blocks_live_only_in_ledger_mod_rs() {
    let stray = stray_impls(&ledger_src());
    assert!(stray.is_empty(), "`impl Ledger` outside {HOME} (put the methods on a store):\n{}", stray.join("\n"));
}

#[test]
fn ledger_has_only_its_life_cycle_besides_the_store_accessors() {
    let text = std::fs::read_to_string(ledger_src().join(HOME)).unwrap();
    let own = own_methods(&text);
    assert!(own.len() >= 5, "found only {own:?}: is the parser still reading {HOME}?");
    assert!(
        own.len() <= MAX_OWN_METHODS,
        "Ledger has {} public methods besides the store accessors, at most {MAX_OWN_METHODS}: {own:?}",
        own.len()
    );
}

/// A planted block in another file is named; a trait impl and a store's impl are not; a
/// planted non-accessor method is counted and an accessor is not.
#[test]
fn a_planted_impl_ledger_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("ledger")).unwrap();
    std::fs::write(src.join(HOME), "impl Ledger {\n    pub fn open() {}\n}\n").unwrap();
    std::fs::write(
        src.join("ledger/payments.rs"),
        "impl Payments<&mut Ledger> {}\nimpl std::fmt::Debug for Ledger {}\n// impl Ledger { in a comment }\n",
    )
    .unwrap();
    assert!(stray_impls(src).is_empty(), "{:?}", stray_impls(src));
    std::fs::write(src.join("cursor.rs"), "use x;\n\nimpl crate::Ledger {\n    pub fn x() {}\n}\n").unwrap();
    let stray = stray_impls(src);
    assert!(stray.len() == 1 && stray[0].contains("cursor.rs:3: impl crate::Ledger {"), "{stray:?}");
    let home = "impl Ledger {\n    pub fn open() {}\n    pub fn payments(&self) -> Payments<&Ledger> {}\n    \
                pub fn payments_mut(&mut self) -> Payments<&mut Ledger> {}\n    pub fn payment_by_id(&self) {}\n    \
                fn private() {}\n}\n\nfn outside() {}\n";
    assert_eq!(own_methods(home), ["open", "payment_by_id"]);
}
