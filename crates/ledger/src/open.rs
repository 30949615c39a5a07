//! What opening a ledger file refuses, before and while SQLite touches it.
//!
//! A register's ledger is a regular file holding a PayDesk schema, or an empty file /
//! an SQLite database with no tables at all (a new ledger). Everything else is refused
//! with a specific error and left as it was: a device (`/dev/null` would get a
//! `-journal` file next to it), a directory, an empty path or `:memory:` (a ledger that
//! vanishes with the process), another program's SQLite database (migrating it would
//! add our tables to someone else's data). Errors reaching a user name the problem,
//! never an SQL statement.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::error::{cannot, open_error, Error, Result};
use crate::schema::{self, check_ours, SCHEMA_VERSION};

/// Flags of the writer connection. No `SQLITE_OPEN_URI`: a path such as
/// `file:x.db?mode=memory` names a file, it does not configure SQLite.
pub(crate) fn write_flags() -> OpenFlags {
    OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX
}

/// Flags of a read-only connection (inspection before any write, readers).
pub(crate) fn read_flags() -> OpenFlags {
    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
}

/// Checks the path itself, before SQLite opens anything. Returns whether a non-empty
/// file is already there (to be inspected read-only first).
pub(crate) fn check_path(path: &Path) -> Result<bool> {
    if path.as_os_str().is_empty() {
        return Err(cannot(path, "the ledger path is empty; give the path of a file, e.g. register.sqlite3"));
    }
    if path.as_os_str() == ":memory:" {
        return Err(cannot(
            path,
            "an in-memory database is lost when the program ends; a register's ledger must be a file",
        ));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(cannot(path, "it is a directory; give the path of a file in it, e.g. register.sqlite3")),
        Ok(m) if !m.is_file() => Err(cannot(
            path,
            "it is a device, pipe or socket, not a regular file; a register's ledger must be a regular file",
        )),
        Ok(m) => Ok(m.len() > 0),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            match dir {
                Some(d) if !d.is_dir() => {
                    Err(cannot(path, format!("the directory {} does not exist", d.display())))
                }
                _ => Ok(false),
            }
        }
        Err(e) => Err(cannot(path, format!("it cannot be read ({e})"))),
    }
}

/// Read and write for the owner only: a ledger, its sidecars and its copies.
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Makes the ledger file at `path` private to this user: created 0600 when missing (so it
/// is never readable by others, not even for a moment), set to 0600 when it exists with
/// a looser mode (a ledger made by an older version, or copied in).
pub(crate) fn owner_only(path: &Path) -> Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let refuse = |e: std::io::Error| cannot(path, format!("it cannot be made private to this user ({e})"));
    match std::fs::OpenOptions::new().write(true).create_new(true).mode(PRIVATE_FILE_MODE).open(path) {
        Ok(_) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(refuse(e)),
    }
    let mode = std::fs::metadata(path).map_err(refuse)?.permissions().mode() & 0o777;
    if mode != PRIVATE_FILE_MODE {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(PRIVATE_FILE_MODE)).map_err(refuse)?;
    }
    Ok(())
}

/// The `-wal` and `-shm` files next to `path`, private too: SQLite creates them with the
/// ledger's mode, but ones left by an older version keep theirs.
pub(crate) fn sidecars_owner_only(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let side = std::path::PathBuf::from(name);
        match std::fs::metadata(&side) {
            Ok(m) if m.permissions().mode() & 0o777 != PRIVATE_FILE_MODE => {
                std::fs::set_permissions(&side, std::fs::Permissions::from_mode(PRIVATE_FILE_MODE))
                    .map_err(|e| cannot(path, format!("{} cannot be made private to this user ({e})", side.display())))?;
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(cannot(path, format!("{}: {e}", side.display()))),
        }
    }
    Ok(())
}

/// Inspects an existing file through a READ-ONLY connection, because even
/// `PRAGMA journal_mode=WAL` rewrites the header: a file that is refused (newer, not
/// ours, damaged) must stay byte-for-byte untouched. Returns the file's schema version.
pub(crate) fn inspect_read_only(path: &Path) -> Result<i64> {
    let ro = Connection::open_with_flags(path, read_flags()).map_err(|e| open_error(path, e))?;
    crate::busy::wait_for_locks(&ro).map_err(|e| open_error(path, e))?;
    // Reading the schema forces SQLite to parse the header and sqlite_schema:
    // NOTADB / CORRUPT surface here, before anything writes.
    let found = schema::user_version(&ro).map_err(|e| open_error(path, e))?;
    if found > SCHEMA_VERSION {
        return Err(Error::NewerSchema { found, supported: SCHEMA_VERSION });
    }
    check_ours(&ro, found, path)?;
    let check: String = ro.query_row("PRAGMA quick_check(1)", [], |r| r.get(0)).map_err(|e| open_error(path, e))?;
    if check != "ok" {
        return Err(Error::Corrupt { path: path.display().to_string(), detail: check });
    }
    Ok(found)
}

/// WAL, `synchronous=FULL`, foreign keys, busy timeout (see the ledger's durability rules).
pub(crate) fn configure(conn: &Connection, path: &Path) -> Result<()> {
    crate::busy::wait_for_locks(conn).map_err(|e| open_error(path, e))?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(|e| open_error(path, e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(cannot(path, format!("SQLite cannot keep a write-ahead log for it (journal mode stayed {mode:?})")));
    }
    // FULL: the WAL is fsynced on every commit, so a returned commit survives power
    // loss (record 0003: the key is durable before the network is touched).
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;").map_err(|e| open_error(path, e))?;
    // A reader that holds its snapshot for long (a running copy, record 0154) keeps every
    // checkpoint from passing it, so the WAL grows by what is committed meanwhile; SQLite
    // then keeps the file at that size for ever. With a limit, the first commit after the
    // WAL is checkpointed whole cuts the file back to it.
    conn.execute_batch(&format!("PRAGMA journal_size_limit = {WAL_KEEP_BYTES};")).map_err(|e| open_error(path, e))?;
    Ok(())
}

/// The most of its write-ahead log the ledger keeps on disk once the log is checkpointed
/// (`journal_size_limit`). Far above what a counter's commits fill between two automatic
/// checkpoints (1,000 pages, 4 MiB), so it cuts only what a long snapshot left behind.
pub const WAL_KEEP_BYTES: i64 = 64 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    /// A long snapshot (a copy running) lets the WAL grow past the limit; once it is let
    /// go, a checkpoint and the next commits bring the file back under the limit instead
    /// of leaving it at its largest for ever.
    #[test]
    fn the_wal_a_long_snapshot_grew_is_cut_back_once_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("l.db");
        let w = Connection::open(&db).unwrap();
        configure(&w, &db).unwrap();
        w.execute_batch("CREATE TABLE t (b BLOB)").unwrap();
        let wal = dir.path().join("l.db-wal");
        let reader = Connection::open_with_flags(&db, read_flags()).unwrap();
        let snapshot = reader.unchecked_transaction().unwrap();
        let _: i64 = snapshot.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
        // 80 MiB committed in 1 MiB transactions while the snapshot is held
        for _ in 0..80 {
            w.execute_batch("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 256) INSERT INTO t SELECT randomblob(4000) FROM n;")
                .unwrap();
        }
        let grown = std::fs::metadata(&wal).unwrap().len();
        assert!(grown > WAL_KEEP_BYTES as u64, "the WAL grew past the limit behind the snapshot ({grown} bytes)");
        drop(snapshot);
        // the first commit's automatic checkpoint passes every frame; the next ones start
        // the log again from its beginning and cut the file
        for _ in 0..3 {
            w.execute("INSERT INTO t VALUES (randomblob(10))", []).unwrap();
        }
        let after = std::fs::metadata(&wal).unwrap().len();
        assert!(after <= WAL_KEEP_BYTES as u64, "the WAL is back under the limit: {after} bytes (it had grown to {grown})");
    }
}
