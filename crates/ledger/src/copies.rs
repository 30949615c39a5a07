//! Copies taken while the register runs (record 0116; the shared naming and writing are
//! in [`crate::backup`], which this module uses and which must not use the ledger back): on the app's schedule or on
//! request from the CLI, without stopping the register, the newest N kept, each checked
//! after it is written; and the restore of a copy into a fresh data folder.
//!
//! Named `<ledger>.<UTC time>.copy-schema<N>.sqlite3`. A copy that fails its check right
//! after it was written is removed and reported, and the older copies are then kept
//! as they are: pruning happens only after a good copy exists, so the last good copy
//! is never pruned away in favour of a bad one.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde::Serialize;

use crate::backup::{copies_of, durable_rename, ledger_name, private_dir, prune, remove_partials, wall_ms, write_copy};
use crate::error::{Error, Result};
use crate::ledger::Ledger;
use crate::schema::SCHEMA_VERSION;

/// How many running copies are kept unless the store says otherwise.
pub const DEFAULT_KEEP: usize = 7;
/// The most a store may keep: each copy is the whole ledger.
pub const MAX_KEEP: usize = 100;

/// What checking a copy found. Every field was read from the copy itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopyCheck {
    pub path: PathBuf,
    pub bytes: u64,
    pub schema_version: i64,
    /// Payments in the copy.
    pub payments: i64,
    /// Audit rows whose chain was verified intact; `None` for a copy of an older schema
    /// (its chain is verified after a restore has upgraded it).
    pub audit_rows_verified: Option<u64>,
}

/// The running copies of `ledger`, oldest first.
pub fn list(ledger: &Path) -> Vec<PathBuf> {
    copies_of(ledger, is_running)
}

/// `copy-schema19`.
fn is_running(s: &str) -> bool {
    s.strip_prefix("copy-schema").is_some_and(|v| v.parse::<i64>().is_ok())
}

/// [`take`] named by the wall clock (which only names the file).
pub fn take_now(ledger: &Path, keep: usize) -> Result<CopyCheck> {
    take(ledger, keep, wall_ms())
}

/// Copies the ledger at `ledger` while it may be in use, checks the copy, then keeps the
/// newest `keep` (1 to [`MAX_KEEP`]). `now_ms` names the copy. The ledger is only read.
pub fn take(ledger: &Path, keep: usize, now_ms: i64) -> Result<CopyCheck> {
    if !(1..=MAX_KEEP).contains(&keep) {
        return Err(Error::InvalidInput(format!("keep {keep} copies: between 1 and {MAX_KEEP}")));
    }
    let not_written = |reason: String| Error::CopyNotWritten { path: crate::backup::dir_of(ledger).display().to_string(), reason };
    // Only the schema number is read from the live ledger: the whole-file check runs once,
    // on the copy (a damaged ledger gives a copy that fails it), not twice per copy.
    let src = Connection::open_with_flags(ledger, crate::open::read_flags()).map_err(|e| not_written(e.to_string()))?;
    src.busy_timeout(crate::busy::BUSY_TIMEOUT).map_err(|e| not_written(e.to_string()))?;
    let schema = crate::schema::user_version(&src).map_err(|e| not_written(crate::error::sqlite_words(&e)))?;
    let dir = private_dir(ledger).map_err(not_written)?;
    remove_partials(ledger);
    let copy = write_copy(&src, &dir, &ledger_name(ledger), now_ms, &format!("copy-schema{schema}")).map_err(not_written)?;
    drop(src);
    match verify(&copy) {
        Ok(check) => {
            prune(list(ledger), keep);
            Ok(check)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&copy);
            Err(e)
        }
    }
}

/// Checks the copy at `copy` without changing it: it opens as a PayDesk ledger of this
/// build's schema or an older one, SQLite's quick check passes, and (at this build's
/// schema) its audit chain verifies, including against the Z reports' heads it holds.
pub fn verify(copy: &Path) -> Result<CopyCheck> {
    let bad = |reason: String| Error::CopyNotGood { path: copy.display().to_string(), reason };
    let bytes = std::fs::metadata(copy).map_err(|e| bad(e.to_string()))?.len();
    let schema = crate::open::inspect_read_only(copy).map_err(|e| bad(e.to_string()))?;
    let conn = Connection::open_with_flags(copy, crate::open::read_flags()).map_err(|e| bad(e.to_string()))?;
    let payments: i64 = conn.query_row("SELECT count(*) FROM payments", [], |r| r.get(0)).map_err(|e| bad(e.to_string()))?;
    drop(conn);
    let audit_rows_verified = if schema == SCHEMA_VERSION {
        let reader = Ledger::open_reader(copy).map_err(|e| bad(e.to_string()))?;
        let verdict = reader.audit().verify(None).map_err(|e| bad(e.to_string()))?;
        if !verdict.is_intact() {
            return Err(bad(format!("its audit chain is broken ({} break(s), first: {:?})", verdict.breaks.len(), verdict.breaks.first())));
        }
        Some(verdict.rows_checked)
    } else {
        None
    };
    Ok(CopyCheck { path: copy.to_path_buf(), bytes, schema_version: schema, payments, audit_rows_verified })
}

/// Restores the copy at `copy` as the ledger `into`, which must not exist: the copy is
/// checked, written under a `.partial` name and renamed, then opened by the writer (which
/// upgrades a copy of an older schema, keeping its own copy first) and checked again.
/// The copy itself is never changed.
pub fn restore(copy: &Path, into: &Path) -> Result<CopyCheck> {
    for p in [into.to_path_buf(), side(into, "-wal"), side(into, "-journal")] {
        if p.exists() {
            return Err(Error::RestoreTargetExists { path: p.display().to_string() });
        }
    }
    let checked = verify(copy)?;
    let not_written = |reason: String| Error::CopyNotWritten { path: into.display().to_string(), reason };
    let dir = into.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| not_written(format!("{}: {e}", dir.display())))?;
    }
    let partial = side(into, ".partial");
    let _ = std::fs::remove_file(&partial);
    let src = Connection::open_with_flags(copy, crate::open::read_flags()).map_err(|e| not_written(e.to_string()))?;
    let partial_str = partial.to_str().ok_or_else(|| not_written(format!("{} is not valid UTF-8", partial.display())))?;
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(crate::open::PRIVATE_FILE_MODE)
            .open(&partial)
            .map_err(|e| not_written(format!("{}: {e}", partial.display())))?;
    }
    let written = src
        .execute("VACUUM INTO ?1", [partial_str])
        .map_err(|e| crate::error::sqlite_words(&e))
        .and_then(|_| durable_rename(&partial, into, dir));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(not_written(e));
    }
    drop(Ledger::open(into)?);
    let after = verify(into)?;
    if after.payments != checked.payments {
        return Err(Error::CopyNotGood {
            path: into.display().to_string(),
            reason: format!("restored {} payments from a copy holding {}", after.payments, checked.payments),
        });
    }
    Ok(after)
}

/// `ledger.db` + `-wal` → `ledger.db-wal`.
fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_copies_are_named_by_their_schema() {
        assert!(is_running("copy-schema19"));
        assert!(!is_running("schema2-to-3"));
        assert!(!is_running("copy-schemaX"));
    }
}
