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

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::error::{Error, Result};
use crate::schema::{self, MIGRATIONS, SCHEMA_VERSION};

/// Flags of the writer connection. No `SQLITE_OPEN_URI`: a path such as
/// `file:x.db?mode=memory` names a file, it does not configure SQLite.
pub(crate) fn write_flags() -> OpenFlags {
    OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX
}

/// Flags of a read-only connection (inspection before any write, readers).
pub(crate) fn read_flags() -> OpenFlags {
    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
}

fn cannot(path: &Path, reason: impl Into<String>) -> Error {
    Error::CannotOpen { path: path.display().to_string(), reason: reason.into() }
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

/// Turns an SQLite error met while opening `path` into what went wrong, in words.
pub(crate) fn open_error(path: &Path, e: rusqlite::Error) -> Error {
    let p = path.display().to_string();
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::NotADatabase { path: p },
        Some(ErrorCode::DatabaseCorrupt) => Error::Corrupt { path: p, detail: crate::error::sqlite_words(&e) },
        Some(ErrorCode::CannotOpen) => {
            cannot(path, "SQLite cannot open or create it (check that its directory exists and is writable)")
        }
        Some(ErrorCode::PermissionDenied) => cannot(path, "permission denied"),
        Some(ErrorCode::ReadOnly) => cannot(path, "it is read-only (the register must write to its ledger)"),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            cannot(path, "another program holds it locked; try again when it is done")
        }
        Some(ErrorCode::DiskFull) => cannot(path, "the disk is full"),
        Some(ErrorCode::SystemIoFailure) => cannot(path, "the disk reported an I/O error"),
        _ => Error::Sqlite(e),
    }
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
    // loss (design §3.1: the key is durable before the network is touched).
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;").map_err(|e| open_error(path, e))?;
    Ok(())
}

/// Names of the tables (not SQLite's own) in `conn`.
fn table_names(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")?;
    let names = st.query_map([], |r| r.get(0))?.collect();
    names
}

/// The tables a PayDesk ledger of schema `version` (1..=ours) has: the migrations
/// applied to an empty in-memory database, once per process (a simulation reopens its
/// ledger after every simulated crash).
fn tables_of_version(version: i64) -> Result<&'static [String]> {
    static BY_VERSION: std::sync::OnceLock<Vec<Vec<String>>> = std::sync::OnceLock::new();
    if let Some(all) = BY_VERSION.get() {
        return Ok(&all[version as usize - 1]);
    }
    let mut all = Vec::with_capacity(MIGRATIONS.len());
    let mem = Connection::open_in_memory()?;
    for sql in MIGRATIONS {
        mem.execute_batch(sql)?;
        all.push(table_names(&mem)?);
    }
    Ok(&BY_VERSION.get_or_init(|| all)[version as usize - 1])
}

/// Is the database at schema version `found` (at most ours) a PayDesk ledger or empty?
/// Version 0 must have no schema objects at all (a fresh or empty file); version
/// 1..=ours must have every table that version has. Used before any write and again
/// under the write lock by the migration.
pub(crate) fn check_ours(conn: &Connection, found: i64, path: &Path) -> Result<()> {
    let foreign = |detail: String| Error::ForeignDatabase { path: path.display().to_string(), detail };
    let objects: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'", [], |r| r.get(0))
        .map_err(|e| open_error(path, e))?;
    let present = table_names(conn).map_err(|e| open_error(path, e))?;
    let sample = |names: &[String]| {
        let mut s = names.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        if names.len() > 5 {
            s.push_str(", …");
        }
        s
    };
    if found < 0 {
        return Err(foreign(format!("its schema version is {found}")));
    }
    if found == 0 {
        if objects == 0 {
            return Ok(());
        }
        return Err(foreign(if present.is_empty() {
            "it has views, indexes or triggers and no PayDesk schema version".to_string()
        } else {
            format!("it has tables of its own ({}) and no PayDesk schema version", sample(&present))
        }));
    }
    let missing: Vec<String> = tables_of_version(found)?.iter().filter(|t| !present.contains(t)).cloned().collect();
    if !missing.is_empty() {
        return Err(foreign(format!(
            "its schema version says {found} but the ledger tables {} are missing",
            sample(&missing)
        )));
    }
    Ok(())
}
