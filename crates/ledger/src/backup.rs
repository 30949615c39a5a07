//! A copy of the ledger written before its schema is migrated (record 0055).
//!
//! A migration runs in one transaction, so a crash cannot leave a half-upgraded file;
//! what the copy guards against is a migration that is wrong (it runs once per store,
//! on real payments, and cannot be taken back). The copy is made only when a migration
//! is about to run: opening a ledger already at this build's schema writes nothing.
//!
//! Copies live in `backups/` next to the ledger, named
//! `<ledger file name>.<UTC time>.schema<from>-to-<to>.sqlite3` (the time first and of
//! fixed width, so the names sort in the order the copies were made); the newest
//! [`KEEP`] of one ledger are kept. A copy is a whole SQLite database (`VACUUM INTO`
//! through a read-only connection: a consistent snapshot including what is still in
//! the write-ahead log), openable with `sqlite3` or `Ledger::open`.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::{Error, Result};

/// How many copies of one ledger are kept.
pub const KEEP: usize = 3;

/// The folder the copies of `ledger` are written to.
pub fn dir_of(ledger: &Path) -> PathBuf {
    ledger.parent().unwrap_or(Path::new(".")).join("backups")
}

/// The copies of `ledger` present, oldest first.
pub fn list(ledger: &Path) -> Vec<PathBuf> {
    let Some(prefix) = ledger.file_name().map(|n| format!("{}.", n.to_string_lossy())) else {
        return Vec::new();
    };
    let Ok(rd) = std::fs::read_dir(dir_of(ledger)) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().map(|n| n.to_string_lossy().into_owned()).is_some_and(|n| {
                n.strip_prefix(&prefix).and_then(|rest| rest.strip_suffix(".sqlite3")).is_some_and(is_stamp_and_versions)
            })
        })
        .collect();
    // By time, then by the `-N` of copies made in the same millisecond.
    found.sort_by_key(|p| {
        let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let stamp = n[prefix.len()..].split('.').next().unwrap_or("").to_string();
        let (base, seq) = stamp.split_once('-').map_or((stamp.clone(), 0), |(b, s)| (b.to_string(), s.parse().unwrap_or(0)));
        (base, seq)
    });
    found
}

/// `20261201T185900123Z.schema2-to-3` (with an optional `-N` after the time when two
/// copies were made in the same millisecond).
fn is_stamp_and_versions(s: &str) -> bool {
    let Some((stamp, versions)) = s.split_once('.') else { return false };
    let stamp_ok = stamp.len() >= 19
        && stamp.as_bytes()[8] == b'T'
        && stamp.as_bytes()[18] == b'Z'
        && stamp.bytes().take(18).enumerate().all(|(i, b)| i == 8 || b.is_ascii_digit());
    let versions_ok = versions
        .strip_prefix("schema")
        .and_then(|v| v.split_once("-to-"))
        .is_some_and(|(a, b)| a.parse::<i64>().is_ok() && b.parse::<i64>().is_ok());
    stamp_ok && versions_ok
}

/// Writes a copy of the ledger at `path` (schema `from`, about to be migrated to `to`)
/// and prunes the older copies to [`KEEP`]. A copy that cannot be written stops the
/// migration: the ledger is then left as it was, with the reason.
///
/// The crate's one read of the wall clock, and it only names a file: nothing the
/// ledger decides depends on it (simulations never migrate, so never get here).
pub fn before_migrate(path: &Path, from: i64, to: i64) -> Result<PathBuf> {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    copy_at(path, from, to, now_ms)
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
    let dir = dir_of(path);
    {
        use std::os::unix::fs::DirBuilderExt;
        // The copies hold what the ledger holds: the folder and each copy are this user's.
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "ledger".into());
    let stamp = utc_stamp(now_ms);
    let src = Connection::open_with_flags(path, crate::open::read_flags()).map_err(|e| fail(e.to_string()))?;
    src.busy_timeout(crate::busy::BUSY_TIMEOUT).map_err(|e| fail(e.to_string()))?;
    // Two copies in one millisecond (two registers opening one file) get distinct names.
    for n in 0..10 {
        let suffix = if n == 0 { String::new() } else { format!("-{n}") };
        let target = dir.join(format!("{name}.{stamp}{suffix}.schema{from}-to-{to}.sqlite3"));
        if target.exists() {
            continue;
        }
        let target_str = target.to_str().ok_or_else(|| fail(format!("{} is not valid UTF-8", target.display())))?;
        // Made empty and 0600 first (VACUUM INTO fills an empty file), so the copy is never
        // readable by others, not even while it is written.
        {
            use std::os::unix::fs::OpenOptionsExt;
            let made = std::fs::OpenOptions::new().write(true).create_new(true).mode(crate::open::PRIVATE_FILE_MODE).open(&target);
            match made {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(fail(format!("{}: {e}", target.display()))),
            }
        }
        if let Err(e) = src.execute("VACUUM INTO ?1", [target_str]) {
            let _ = std::fs::remove_file(&target);
            return Err(fail(crate::error::sqlite_words(&e)));
        }
        prune(path);
        return Ok(target);
    }
    Err(fail("ten copies were already made this millisecond".into()))
}

/// Removes all but the newest [`KEEP`] copies of `ledger`. A copy that cannot be removed
/// stays (one copy too many is harmless).
fn prune(ledger: &Path) {
    let all = list(ledger);
    let extra = all.len().saturating_sub(KEEP);
    for old in &all[..extra] {
        let _ = std::fs::remove_file(old);
    }
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
        assert!(is_stamp_and_versions("20261201T185900123Z.schema2-to-3"));
        assert!(is_stamp_and_versions("20261201T185900123Z-1.schema2-to-3"));
        assert!(!is_stamp_and_versions("20261201T185900123Z.notes"));
        assert!(!is_stamp_and_versions("whatever.schema2-to-3"));
    }
}
