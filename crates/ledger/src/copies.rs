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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rusqlite::Connection;
use serde::Serialize;

use crate::backup::paced::{Fault, Pacer};
pub use crate::backup::Pace;
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
/// Paced as [`Pace::DEFAULT`] says (record 0154).
pub fn take(ledger: &Path, keep: usize, now_ms: i64) -> Result<CopyCheck> {
    take_paced(ledger, keep, now_ms, Pace::DEFAULT)
}

/// [`take`] at the pace `pace` (record 0154): the copy written with SQLite's online backup
/// API from one read transaction, in steps, its pages pushed to the disk every
/// `sync_every_bytes` and dropped from the page cache; then its check read at the same
/// pace. Past `pace.limit` the copy is abandoned and removed: [`Error::CopyTooSlow`].
pub fn take_paced(ledger: &Path, keep: usize, now_ms: i64, pace: Pace) -> Result<CopyCheck> {
    take_since(ledger, keep, now_ms, pace, Instant::now())
}

/// [`take_paced`] of a copy whose time began at `started` (its limit counts from there).
fn take_since(ledger: &Path, keep: usize, now_ms: i64, pace: Pace, started: Instant) -> Result<CopyCheck> {
    if !(1..=MAX_KEEP).contains(&keep) {
        return Err(Error::InvalidInput(format!("keep {keep} copies: between 1 and {MAX_KEEP}")));
    }
    pace.check().map_err(Error::InvalidInput)?;
    let not_written = |reason: String| Error::CopyNotWritten { path: crate::backup::dir_of(ledger).display().to_string(), reason };
    // Only the schema number is read from the live ledger: the whole-file check runs once,
    // on the copy (a damaged ledger gives a copy that fails it), not twice per copy.
    let src = Connection::open_with_flags(ledger, crate::open::read_flags()).map_err(|e| not_written(e.to_string()))?;
    src.busy_timeout(crate::busy::BUSY_TIMEOUT).map_err(|e| not_written(e.to_string()))?;
    let schema = crate::schema::user_version(&src).map_err(|e| not_written(crate::error::sqlite_words(&e)))?;
    let dir = private_dir(ledger).map_err(not_written)?;
    remove_partials(ledger);
    // the copy is written within the first half of the limit, checked within the rest
    let mut pacer = Pacer::new(pace, started, started + pace.limit / 2, 0);
    let written = write_copy(&src, &dir, &ledger_name(ledger), now_ms, &format!("copy-schema{schema}"), Some(&mut pacer));
    drop(src);
    let copy = match written {
        Ok(copy) => copy,
        Err(Fault::Failed(reason)) => return Err(not_written(reason)),
        Err(Fault::TooSlow { done, total }) => {
            return Err(Error::CopyTooSlow { path: dir.display().to_string(), limit_secs: pace.limit.as_secs(), done_bytes: done, total_bytes: total })
        }
    };
    let bytes = std::fs::metadata(&copy).map_or(0, |m| m.len());
    if started.elapsed() >= pace.limit {
        // written, but no time is left to check it: not a copy
        let _ = std::fs::remove_file(&copy);
        return Err(Error::CopyTooSlow { path: copy.display().to_string(), limit_secs: pace.limit.as_secs(), done_bytes: bytes, total_bytes: bytes });
    }
    match check(&copy, Some(Pacer::new(pace, started, started + pace.limit, bytes))) {
        Ok(check) => {
            prune(list(ledger), keep);
            Ok(check)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&copy);
            Err(match e {
                Checked::Bad(e) => e,
                Checked::TooSlow { done } => Error::CopyTooSlow { path: copy.display().to_string(), limit_secs: pace.limit.as_secs(), done_bytes: done, total_bytes: bytes },
            })
        }
    }
}

/// Checks the copy at `copy` without changing it: it opens as a PayDesk ledger of this
/// build's schema or an older one, SQLite's quick check passes, and (at this build's
/// schema) its audit chain verifies, including against the Z reports' heads it holds.
pub fn verify(copy: &Path) -> Result<CopyCheck> {
    check(copy, None).map_err(|e| match e {
        Checked::Bad(e) => e,
        // without a pacer there is no limit to pass
        Checked::TooSlow { done } => Error::CopyNotGood { path: copy.display().to_string(), reason: format!("its check was stopped after {done} bytes") },
    })
}

/// Why [`check`] did not pass a copy.
enum Checked {
    Bad(Error),
    /// the pacer's limit passed after `done` bytes were read
    TooSlow { done: u64 },
}

/// [`verify`], its reads paced by `pacer` if given: all of it on ONE read-only connection
/// (one quick check, then the audit chain), whose pages read are counted by SQLite's cache
/// misses; when it ends, the copy's pages are dropped from the page cache (they would push
/// the ledger's out).
fn check(copy: &Path, pacer: Option<Pacer>) -> std::result::Result<CopyCheck, Checked> {
    let bad = |reason: String| Checked::Bad(Error::CopyNotGood { path: copy.display().to_string(), reason });
    let bytes = std::fs::metadata(copy).map_err(|e| bad(e.to_string()))?.len();
    let conn = Connection::open_with_flags(copy, crate::open::read_flags()).map_err(|e| bad(e.to_string()))?;
    crate::busy::wait_for_locks(&conn).map_err(|e| bad(e.to_string()))?;
    conn.pragma_update(None, "query_only", true).map_err(|e| bad(e.to_string()))?;
    let gave_up = Arc::new(AtomicU64::new(0));
    if let Some(pacer) = pacer {
        let file = std::fs::File::open(copy).map_err(|e| bad(e.to_string()))?;
        let page_size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).map_err(|e| bad(e.to_string()))?;
        let mut read = ReadPace::new(&conn, page_size.max(512) as u64, bytes, pacer, file, gave_up.clone());
        conn.progress_handler(1000, Some(move || read.on_progress())).map_err(|e| bad(e.to_string()))?;
    }
    let stopped = |e: Checked| match gave_up.load(Ordering::Relaxed) {
        0 => e,
        done => Checked::TooSlow { done },
    };
    // the words a damaged file gets when a ledger is opened (not an SQLite database, ...)
    let schema = crate::schema::user_version(&conn).map_err(|e| stopped(bad(crate::error::open_error(copy, e).to_string())))?;
    if schema > SCHEMA_VERSION {
        return Err(bad(Error::NewerSchema { found: schema, supported: SCHEMA_VERSION }.to_string()));
    }
    crate::schema::check_ours(&conn, schema, copy).map_err(|e| stopped(bad(e.to_string())))?;
    let quick: String = conn.query_row("PRAGMA quick_check(1)", [], |r| r.get(0)).map_err(|e| stopped(bad(crate::error::open_error(copy, e).to_string())))?;
    if quick != "ok" {
        return Err(bad(Error::Corrupt { path: copy.display().to_string(), detail: quick }.to_string()));
    }
    let payments: i64 = conn.query_row("SELECT count(*) FROM payments", [], |r| r.get(0)).map_err(|e| stopped(bad(e.to_string())))?;
    let audit_rows_verified = if schema == SCHEMA_VERSION {
        let reader = Ledger::reader_on(conn, copy).map_err(|e| stopped(bad(e.to_string())))?;
        let verdict = reader.audit().verify(None).map_err(|e| stopped(bad(e.to_string())))?;
        if !verdict.is_intact() {
            return Err(bad(format!("its audit chain is broken ({} break(s), first: {:?})", verdict.breaks.len(), verdict.breaks.first())));
        }
        Some(verdict.rows_checked)
    } else {
        None
    };
    Ok(CopyCheck { path: copy.to_path_buf(), bytes, schema_version: schema, payments, audit_rows_verified })
}

/// The check's pace, kept from SQLite's progress handler: the pages the check's connection
/// has read from the copy (its cache misses) are the bytes done. Dropped with the check's
/// connection, it drops the copy's pages from the page cache.
struct ReadPace {
    db: Handle,
    page_size: u64,
    total: u64,
    pacer: Pacer,
    file: std::fs::File,
    counted: u64,
    gave_up: Arc<AtomicU64>,
}

/// The check connection's handle, read by its own progress handler.
struct Handle(*mut rusqlite::ffi::sqlite3);
// SAFETY: the handler that holds it is owned by the connection the handle belongs to and is
// only ever called by SQLite on that connection, on the thread running its statement.
unsafe impl Send for Handle {}

impl ReadPace {
    fn new(conn: &Connection, page_size: u64, total: u64, pacer: Pacer, file: std::fs::File, gave_up: Arc<AtomicU64>) -> ReadPace {
        // SAFETY: only used for sqlite3_db_status on this connection, from its own handler.
        let db = Handle(unsafe { conn.handle() });
        ReadPace { db, page_size, total, pacer, file, counted: 0, gave_up }
    }

    /// SQLite's progress handler: false to go on, true to interrupt the check (its limit
    /// passed). Sleeps as long as the pace asks.
    fn on_progress(&mut self) -> bool {
        let (mut misses, mut high) = (0, 0);
        // SAFETY: a valid handle (see `Handle`); out-pointers to locals.
        unsafe { rusqlite::ffi::sqlite3_db_status(self.db.0, rusqlite::ffi::SQLITE_DBSTATUS_CACHE_MISS, &mut misses, &mut high, 0) };
        let read = misses.max(0) as u64 * self.page_size;
        let bytes = read.saturating_sub(self.counted);
        if bytes == 0 {
            return false;
        }
        self.counted = read;
        if self.pacer.advance(bytes, self.total.saturating_sub(read)) {
            false
        } else {
            self.gave_up.store(read.max(1), Ordering::Relaxed);
            true
        }
    }
}

impl Drop for ReadPace {
    fn drop(&mut self) {
        crate::backup::paced::drop_cached(&self.file);
    }
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
    use std::time::Duration;

    const MIB: u64 = 1024 * 1024;

    /// Record 0154: a copy whose limit has passed is abandoned — a typed error, nothing
    /// under a copy's name or as `.partial`, the copy taken before still there and good.
    #[test]
    fn a_copy_past_its_limit_is_abandoned_and_the_last_good_copy_stays() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("ledger.db");
        drop(Ledger::open(&db).unwrap());
        let c = Connection::open(&db).unwrap();
        // a few MiB, so the copy takes many steps of one page
        c.execute_batch("CREATE TABLE filler (b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 800) INSERT INTO filler SELECT randomblob(4000) FROM n;").unwrap();
        drop(c);
        let good = take(&db, 3, 1_000).unwrap();
        let pace = Pace { step_bytes: 4096, bytes_per_second: MIB, sync_every_bytes: 64 * 1024, limit: Duration::from_secs(1) };
        // begun a limit ago: no time left
        let started = Instant::now().checked_sub(pace.limit).unwrap();
        let e = take_since(&db, 3, 2_000, pace, started).unwrap_err();
        assert!(matches!(e, Error::CopyTooSlow { limit_secs: 1, .. }), "{e:?}");
        assert_eq!(list(&db), vec![good.path.clone()], "the abandoned copy is not a copy");
        let left: Vec<_> = std::fs::read_dir(crate::backup::dir_of(&db)).unwrap().flatten().map(|e| e.path()).filter(|p| p != &good.path).collect();
        assert!(left.is_empty(), "nothing of the abandoned copy is left: {left:?}");
        assert_eq!(verify(&good.path).unwrap(), good);
    }

    #[test]
    fn running_copies_are_named_by_their_schema() {
        assert!(is_running("copy-schema19"));
        assert!(!is_running("schema2-to-3"));
        assert!(!is_running("copy-schemaX"));
    }
}
