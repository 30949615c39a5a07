//! Copies of the ledger (records 0055 and 0116).
//!
//! Two kinds of copy live in `backups/` next to the ledger, both whole SQLite databases
//! written with `VACUUM INTO` through a read-only connection (a consistent snapshot that
//! includes what is still in the write-ahead log, taken while the register keeps
//! writing: a reader never blocks the writer in WAL mode):
//!
//! - [`migrate`]: the copy written just before a schema migration, named
//!   `<ledger>.<UTC time>.schema<from>-to-<to>.sqlite3`, the newest [`KEEP`] kept;
//! - [`crate::copies`]: the copies taken on a schedule or on request while the register runs,
//!   named `<ledger>.<UTC time>.copy-schema<N>.sqlite3`, the newest N (a setting) kept,
//!   each checked after it is written (it opens, SQLite's check passes, its audit chain
//!   is intact).
//!
//! Every copy is written under a `.partial` name, synced, then renamed, and the folder
//! synced: a copy under its final name is always whole, so a crash (or SIGKILL) in the
//! middle of a copy leaves the ledger and the copies made before exactly as they were,
//! plus a `.partial` file that the next copy removes. Names start with the time, of fixed
//! width, so they sort in the order the copies were made.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

mod migrate;
pub(crate) mod paced;

pub use migrate::{before_migrate, copy_at, list, KEEP};
pub use paced::Pace;
pub(crate) use migrate::prune;

/// The folder the copies of `ledger` are written to.
pub fn dir_of(ledger: &Path) -> PathBuf {
    ledger.parent().unwrap_or(Path::new(".")).join("backups")
}

/// The folder, made if missing, this user's only (the copies hold what the ledger holds).
pub(crate) fn private_dir(ledger: &Path) -> std::result::Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = dir_of(ledger);
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// The file name of `ledger`, the prefix of its copies' names.
pub(crate) fn ledger_name(ledger: &Path) -> String {
    ledger.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "ledger".into())
}

/// The copies of `ledger` whose name (after `<ledger>.` and before `.sqlite3`) passes
/// `kind`, oldest first.
pub(crate) fn copies_of(ledger: &Path, kind: fn(&str) -> bool) -> Vec<PathBuf> {
    let prefix = format!("{}.", ledger_name(ledger));
    let Ok(rd) = std::fs::read_dir(dir_of(ledger)) else {
        return Vec::new();
    };
    let mut found: Vec<(String, u32, PathBuf)> = rd
        .flatten()
        .map(|e| e.path())
        .filter_map(|p| {
            let n = p.file_name()?.to_string_lossy().into_owned();
            let rest = n.strip_prefix(&prefix)?.strip_suffix(".sqlite3")?;
            let (stamp, what) = rest.split_once('.')?;
            if !kind(what) {
                return None;
            }
            let (base, seq) = stamp.split_once('-').map_or((stamp, Some(0)), |(b, s)| (b, s.parse().ok()));
            (is_stamp(base) && seq.is_some()).then(|| (base.to_string(), seq.unwrap_or(0), p))
        })
        .collect();
    // By time, then by the `-N` of copies made in the same millisecond.
    found.sort();
    found.into_iter().map(|(_, _, p)| p).collect()
}

/// `20261201T185900123Z`.
fn is_stamp(s: &str) -> bool {
    s.len() == 19 && s.as_bytes()[8] == b'T' && s.as_bytes()[18] == b'Z' && s.bytes().take(18).enumerate().all(|(i, b)| i == 8 || b.is_ascii_digit())
}

/// Writes a copy of the database behind `src` to a new file in `dir` named
/// `<name>.<stamp>[-N].<what>.sqlite3` (`-N` when two copies are made in one millisecond)
/// and returns its path. The copy is whole or absent under that name (see the module
/// comment). With a `pacer`, the copy is written paced with the online backup API
/// ([`paced`], record 0154: a running copy, while checkouts commit); without, at once with
/// `VACUUM INTO` (the copy before a migration, when nothing else runs).
pub(crate) fn write_copy(src: &Connection, dir: &Path, name: &str, now_ms: i64, what: &str, pacer: Option<&mut paced::Pacer>) -> std::result::Result<PathBuf, paced::Fault> {
    use paced::Fault;
    let stamp = utc_stamp(now_ms);
    for n in 0..10 {
        let suffix = if n == 0 { String::new() } else { format!("-{n}") };
        let target = dir.join(format!("{name}.{stamp}{suffix}.{what}.sqlite3"));
        let partial = dir.join(format!("{name}.{stamp}{suffix}.{what}.sqlite3.partial"));
        if target.exists() || partial.exists() {
            continue;
        }
        let partial_str = partial.to_str().ok_or_else(|| Fault::Failed(format!("{} is not valid UTF-8", partial.display())))?;
        // Made empty and 0600 first (VACUUM INTO fills an empty file), so the copy is never
        // readable by others, not even while it is written.
        {
            use std::os::unix::fs::OpenOptionsExt;
            let made = std::fs::OpenOptions::new().write(true).create_new(true).mode(crate::open::PRIVATE_FILE_MODE).open(&partial);
            match made {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Fault::Failed(format!("{}: {e}", partial.display()))),
            }
        }
        let copied = match pacer {
            Some(pacer) => paced::backup_into(src, &partial, pacer),
            None => src.execute("VACUUM INTO ?1", [partial_str]).map(|_| ()).map_err(|e| Fault::Failed(crate::error::sqlite_words(&e))),
        };
        let written = copied.and_then(|_| rollback_journal(&partial).and_then(|_| durable_rename(&partial, &target, dir)).map_err(Fault::Failed));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        return Ok(target);
    }
    Err(Fault::Failed("ten copies were already made this millisecond".into()))
}

/// A copy is a single file: in rollback-journal mode, opening it read-only (to check it,
/// or with `sqlite3`) creates no `-wal`/`-shm` files beside it that pruning would leave.
fn rollback_journal(copy: &Path) -> std::result::Result<(), String> {
    let c = Connection::open(copy).map_err(|e| crate::error::sqlite_words(&e))?;
    let mode: String = c.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0)).map_err(|e| crate::error::sqlite_words(&e))?;
    if mode.eq_ignore_ascii_case("delete") {
        Ok(())
    } else {
        Err(format!("the copy's journal mode stayed {mode:?}"))
    }
}

/// fsync the written file, rename it to its final name, fsync the folder: after this
/// returns the copy survives a power cut under its final name.
pub(crate) fn durable_rename(partial: &Path, target: &Path, dir: &Path) -> std::result::Result<(), String> {
    let io = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
    std::fs::File::open(partial).and_then(|f| f.sync_all()).map_err(|e| io(partial, e))?;
    std::fs::rename(partial, target).map_err(|e| io(target, e))?;
    std::fs::File::open(dir).and_then(|f| f.sync_all()).map_err(|e| io(dir, e))
}

/// Removes the `.partial` files of `ledger`'s copies: each is what a crash in the middle
/// of a copy left. Called before a new copy is written, so at most one exists at a time.
pub(crate) fn remove_partials(ledger: &Path) {
    let prefix = format!("{}.", ledger_name(ledger));
    let Ok(rd) = std::fs::read_dir(dir_of(ledger)) else { return };
    for p in rd.flatten().map(|e| e.path()) {
        let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if n.starts_with(&prefix) && n.ends_with(".sqlite3.partial") {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// The wall clock in ms since the Unix epoch. It only names files: nothing the ledger
/// decides depends on it.
pub(crate) fn wall_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// `YYYYMMDDTHHMMSSmmmZ` in UTC.
fn utc_stamp(ms: i64) -> String {
    let ms = ms.max(0);
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    let (h, min, s, milli) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    format!("{y:04}{m:02}{d:02}T{h:02}{min:02}{s:02}{milli:03}Z")
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_utc_and_of_fixed_width() {
        assert_eq!(utc_stamp(0), "19700101T000000000Z");
        // 2026-12-01 18:59:00.123 UTC
        assert_eq!(utc_stamp(1_796_151_540_123), "20261201T185900123Z");
        // a leap day
        assert_eq!(utc_stamp(951_782_400_000), "20000229T000000000Z");
        assert!(is_stamp("20261201T185900123Z"));
        assert!(!is_stamp("20261201T185900123"));
        assert!(!is_stamp("whatever"));
    }
}
