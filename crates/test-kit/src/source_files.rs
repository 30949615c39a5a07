//! The `.rs` files under a folder, for the checks that read the workspace's sources.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively, sorted; `target` and `node_modules` folders
/// are skipped. A folder that cannot be read fails the check that asked: a wrong path must
/// never pass as "no sources, so nothing wrong".
pub(crate) fn rs_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        let p = e.path();
        let skip = p.file_name().is_some_and(|n| n == "target" || n == "node_modules");
        if p.is_dir() && !skip {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
