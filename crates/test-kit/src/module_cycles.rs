//! No import circles between the top-level modules of a crate (issue #31, decision 0105):
//! a module that imports one which imports it back cannot be read, tested or moved on its
//! own, and every circle grows. This reads each crate's `src/` as text, maps every file to
//! its top-level module (`src/a/b.rs` → `a`), and draws an edge for each `crate::x` path
//! outside comments and `#[cfg(test)] mod tests`. Circles are the strongly connected
//! components with more than one module (Tarjan's algorithm).
//!
//! No crate has a circle any more (the last six were broken in Dec 2026, decision 0110).
//! The ratchet stays: circles that must be lived with for a while are listed in
//! [`KNOWN_CIRCLES`], which may only shrink — a module joining a circle, or a new circle
//! anywhere, fails the test, and so does a listed module that has left its circle (update
//! the list, so the ratchet holds).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Crates checked: every workspace crate with a `src/` (the app's is `src-tauri`).
const CRATES: &[&str] = &[
    "crates/access",
    "crates/backoffice",
    "crates/cli",
    "crates/domain",
    "crates/i18n",
    "crates/ledger",
    "crates/mock-psp",
    "crates/receipt",
    "crates/register",
    "crates/sim",
    "crates/sync-client",
    "crates/sync-proto",
    "crates/tax",
    "crates/test-kit",
    "src-tauri",
];

/// Circles that exist today, as (crate, modules in its circles). Only ever shrinks, and is
/// empty: the ledger's four were broken in Dec 2026 (the drawer vocabulary and `ValueError`
/// moved down, the schema folder, the audit seal handed in); the app's (src-tauri) by issue
/// #31's layers (decision 0106); those of backoffice, cli, receipt, sim, sync-client and
/// tax by small moves of shared types and helpers (decision 0110).
const KNOWN_CIRCLES: &[(&str, &[&str])] = &[];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// The source with comments and the unit-test module removed (what is compiled into the
/// crate, roughly: enough to find its `crate::` paths).
fn code_of(src: &str) -> String {
    let before_tests = match src.find("#[cfg(test)]\nmod tests") {
        Some(i) => &src[..i],
        None => src,
    };
    before_tests
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `crate::x` paths, also inside `use crate::{x::.., y::..}` groups.
fn referenced_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find(';').unwrap_or(group.len());
            // top-level names in the group: those at brace depth 0
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group[..end].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                        out.insert(ident(&group[j..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

/// Names the crate root re-exports (`pub use error::{Error, Result};` in lib.rs) → the
/// module they come from, so `crate::Error` is an edge to `error`.
fn root_reexports(root_code: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for stmt in root_code.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ").or_else(|| stmt.trim().strip_prefix("use ")) else { continue };
        let Some((first, tail)) = rest.split_once("::") else { continue };
        if !modules.contains(first.trim()) {
            continue;
        }
        for name in tail.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|n| !n.is_empty() && *n != "self") {
            out.insert(name.to_string(), first.trim().to_string());
        }
    }
    out
}

/// Top-level module → top-level modules it names (directly, or through a name the crate
/// root re-exports).
fn module_graph(src: &Path) -> Graph {
    let files = crate::source_files::rs_files(src);
    let top_of = |p: &Path| -> String {
        let rel = p.strip_prefix(src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| top_of(p)).filter(|m| m != "lib" && m != "main").collect();
    let root_code: String = ["lib.rs", "main.rs"].iter().filter_map(|f| std::fs::read_to_string(src.join(f)).ok()).map(|s| code_of(&s)).collect();
    let reexports = root_reexports(&root_code, &modules);
    let mut g: Graph = modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for f in &files {
        let from = top_of(f);
        if from == "lib" || from == "main" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        for name in referenced_modules(&code) {
            let to = reexports.get(&name).cloned().unwrap_or(name);
            if to != from && modules.contains(&to) {
                g.get_mut(&from).unwrap().insert(to);
            }
        }
    }
    g
}

/// Strongly connected components with more than one module.
fn circles(g: &Graph) -> Vec<BTreeSet<String>> {
    struct Tarjan<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in &self.g[v] {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = BTreeSet::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(w);
                    comp.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = Tarjan { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), out: Vec::new() };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

/// What is wrong with one crate's circles against a known list (empty: fine). The list is
/// handed in (the test gives [`KNOWN_CIRCLES`]) so the self-test can plant its own and
/// keeps working whatever the real list holds, empty included.
fn problems(krate: &str, found: &[BTreeSet<String>], known_circles: &[(&str, &[&str])]) -> Vec<String> {
    let known: BTreeSet<String> = known_circles
        .iter()
        .filter(|(c, _)| *c == krate)
        .flat_map(|(_, ms)| ms.iter().map(|m| m.to_string()))
        .collect();
    let mut out = Vec::new();
    let mut in_circles = BTreeSet::new();
    for c in found {
        in_circles.extend(c.iter().cloned());
        let new: Vec<_> = c.difference(&known).cloned().collect();
        if !new.is_empty() {
            out.push(format!("{krate}: modules {c:?} import each other in a circle ({new:?} not in KNOWN_CIRCLES)"));
        }
    }
    let left: Vec<_> = known.difference(&in_circles).cloned().collect();
    if !left.is_empty() {
        out.push(format!("{krate}: {left:?} left the known circle: remove them from KNOWN_CIRCLES"));
    }
    out
}

#[test]
fn no_crate_has_an_import_circle_beyond_the_known_ones() {
    let root = workspace_root();
    let mut all = Vec::new();
    for krate in CRATES {
        let g = module_graph(&root.join(krate).join("src"));
        // One module is enough (i18n has only `catalog` since its `Locale` moved to the
        // domain crate): none at all means the path is wrong.
        assert!(!g.is_empty(), "{krate}: no modules found: is the path right?");
        all.extend(problems(krate, &circles(&g), KNOWN_CIRCLES));
    }
    assert!(all.is_empty(), "import circles:\n{}", all.join("\n"));
}

/// A planted circle is found and named; a chain is not a circle.
#[test]
fn a_planted_circle_is_found_and_a_chain_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("b")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a; mod b; mod c;\npub use c::{X as _, Y};").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::Thing;\n// crate::c in a comment is no edge\n").unwrap();
    std::fs::write(src.join("b/mod.rs"), "mod inner;").unwrap();
    std::fs::write(src.join("b/inner.rs"), "use crate::{c::{self, X}, a as _};").unwrap();
    std::fs::write(src.join("c.rs"), "pub struct X;\npub struct Y;\n#[cfg(test)]\nmod tests { use crate::a; }\n").unwrap();
    let g = module_graph(src);
    assert_eq!(g["a"], BTreeSet::from(["b".to_string()]));
    assert_eq!(g["b"], BTreeSet::from(["a".to_string(), "c".to_string()]));
    assert!(g["c"].is_empty(), "the test module's import is no edge: {g:?}");
    let found = circles(&g);
    assert_eq!(found, vec![BTreeSet::from(["a".to_string(), "b".to_string()])]);
    let p = problems("crates/planted", &found, &[]);
    assert!(p.len() == 1 && p[0].contains("\"a\", \"b\""), "{p:?}");
    // a chain a → b → c has no circle
    std::fs::write(src.join("b/inner.rs"), "use crate::c::X;").unwrap();
    assert!(circles(&module_graph(src)).is_empty());
    // ... until c names b through a name the crate root re-exports from b
    std::fs::write(src.join("lib.rs"), "mod a; mod b; mod c;\npub use b::Thing;").unwrap();
    std::fs::write(src.join("c.rs"), "fn f(_: crate::Thing) {}").unwrap();
    assert_eq!(circles(&module_graph(src)), vec![BTreeSet::from(["b".to_string(), "c".to_string()])]);
    // a known circle still there is no problem; one whose modules left it is reported,
    // so the list only shrinks (a planted list: the real one may be empty)
    let known: &[(&str, &[&str])] = &[("crates/planted", &["b", "c"])];
    let b_c = [BTreeSet::from(["b".to_string(), "c".to_string()])];
    assert!(problems("crates/planted", &b_c, known).is_empty());
    let p = problems("crates/planted", &[], known);
    assert!(p.len() == 1 && p[0].contains("left the known circle") && p[0].contains("\"b\", \"c\""), "{p:?}");
    // ... and a module joining a known circle is named
    let a_b_c = [BTreeSet::from(["a".to_string(), "b".to_string(), "c".to_string()])];
    let p = problems("crates/planted", &a_b_c, known);
    assert!(p.len() == 1 && p[0].contains("[\"a\"] not in KNOWN_CIRCLES"), "{p:?}");
}
