//! The copy of the ledger written before its schema is migrated (record 0055).
//!
//! A migration runs in one transaction, so a crash cannot leave a half-upgraded file;
//! what the copy guards against is a migration that is wrong (it runs once per store,
//! on real payments, and cannot be taken back). The copy is made only when a migration
//! is about to run: opening a ledger already at this build's schema writes nothing.
//! Named `<ledger>.<UTC time>.schema<from>-to-<to>.sqlite3`; the newest [`KEEP`] kept.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::{copies_of, ledger_name, private_dir, remove_partials, write_copy};
use crate::error::{Error, Result};

/// How many copies made before a migration are kept, per ledger.
pub const KEEP: usize = 3;

/// The copies made before a migration of `ledger`, oldest first.
pub fn list(ledger: &Path) -> Vec<PathBuf> {
    copies_of(ledger, is_versions)
}

/// `schema2-to-3`.
fn is_versions(s: &str) -> bool {
    s.strip_prefix("schema")
        .and_then(|v| v.split_once("-to-"))
        .is_some_and(|(a, b)| a.parse::<i64>().is_ok() && b.parse::<i64>().is_ok())
}

/// Writes a copy of the ledger at `path` (schema `from`, about to be migrated to `to`)
/// and prunes the older copies to [`KEEP`]. A copy that cannot be written stops the
/// migration: the ledger is then left as it was, with the reason.
pub fn before_migrate(path: &Path, from: i64, to: i64) -> Result<PathBuf> {
    copy_at(path, from, to, super::wall_ms())
}

/// [`before_migrate`] at a given time (ms since the Unix epoch, UTC).
pub fn copy_at(path: &Path, from: i64, to: i64, now_ms: i64) -> Result<PathBuf> {
    let fail = |reason: String| Error::CannotOpen {
        path: path.display().to_string(),
        reason: format!(
            "its schema would be upgraded from version {from} to {to}, and the copy kept before an upgrade \
             could not be written ({reason}); nothing was changed"
        ),
    };
    let dir = private_dir(path).map_err(fail)?;
    remove_partials(path);
    let src = Connection::open_with_flags(path, crate::open::read_flags()).map_err(|e| fail(e.to_string()))?;
    src.busy_timeout(crate::busy::BUSY_TIMEOUT).map_err(|e| fail(e.to_string()))?;
    let target = write_copy(&src, &dir, &ledger_name(path), now_ms, &format!("schema{from}-to-{to}"), None).map_err(|f| fail(f.words()))?;
    prune(list(path), KEEP);
    Ok(target)
}

/// Removes all but the newest `keep` of `copies` (oldest first). A copy that cannot be
/// removed stays (one copy too many is harmless).
pub(crate) fn prune(copies: Vec<PathBuf>, keep: usize) {
    let extra = copies.len().saturating_sub(keep);
    for old in &copies[..extra] {
        let _ = std::fs::remove_file(old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migration_copies_are_named_by_their_versions() {
        assert!(is_versions("schema2-to-3"));
        assert!(!is_versions("notes"));
        assert!(!is_versions("copy-schema19"));
    }
}
