//! The store's schema, versioned by `PRAGMA user_version` (the number of migrations
//! applied) and marked as a mock-psp store by `PRAGMA application_id`, following the
//! ledger's pattern (`crates/ledger/src/schema/mod.rs`): migrations are append-only, and
//! every pending one is applied in ONE `BEGIN IMMEDIATE` transaction with the version
//! bump, so a crash mid-upgrade leaves the old schema intact.
//!
//! Before anything is written, [`check`] inspects an existing file through a read-only
//! connection: a file that is not a SQLite database, a SQLite file of another program
//! (a PayDesk ledger, say), or a store of a newer mock-psp is refused byte for byte
//! untouched (even setting the journal mode rewrites the header). So is a path that
//! cannot be a database file: empty, a directory, a device.
use super::{DbLocation, StoreError};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::Path;

/// `PRAGMA application_id` of a mock-psp store: "MPSP".
pub const APPLICATION_ID: i64 = 0x4D50_5350;

/// Highest schema version this build understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The tables of a mock-psp store. A file from before versioning (`user_version` 0, no
/// application id) is taken for one only if it has `meta` and `idem` and nothing else
/// but these.
const OUR_TABLES: &[&str] = &["meta", "idem", "payment_intents", "pi_metadata", "charges", "refunds", "events", "terminal_locations", "terminal_readers"];

/// `MIGRATIONS[i]` moves the schema from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // v1: the schema as it stood before versioning. `IF NOT EXISTS` throughout: a store
    // written before versioning (version 0, these tables present) is adopted as it is.
    r#"
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS idem (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account TEXT NOT NULL,
    key TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    params TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    lock_until_ms INTEGER NOT NULL,
    status INTEGER,
    body BLOB,
    finished_ms INTEGER,
    UNIQUE(account, key)
);
CREATE INDEX IF NOT EXISTS idem_created ON idem(created_ms);
CREATE TABLE IF NOT EXISTS payment_intents (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    claim_id INTEGER UNIQUE,
    created INTEGER NOT NULL,
    obj TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS pi_account ON payment_intents(account, seq);
CREATE TABLE IF NOT EXISTS pi_metadata (
    account TEXT NOT NULL,
    k TEXT NOT NULL,
    v TEXT NOT NULL,
    pi_seq INTEGER NOT NULL,
    PRIMARY KEY (account, k, v, pi_seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS charges (
    id TEXT PRIMARY KEY,
    account TEXT NOT NULL,
    obj TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refunds (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    claim_id INTEGER UNIQUE,
    obj TEXT NOT NULL
);
-- GET /v1/refunds?payment_intent=…: an expression index, so files written before the
-- list endpoint existed need no new column.
CREATE INDEX IF NOT EXISTS refunds_pi ON refunds(account, json_extract(obj, '$.payment_intent'), seq);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    created INTEGER NOT NULL,
    type TEXT NOT NULL,
    obj TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_account ON events(account, seq);
-- Lower bound of a `created[gte]` events page (see api::list): the rowid (seq) rides along.
CREATE INDEX IF NOT EXISTS events_created ON events(account, created);
INSERT OR IGNORE INTO meta (k, v) VALUES ('id_seq', 0);
"#,
    // v2: updating an intent's metadata replaces its search-index rows, found by intent.
    r#"
CREATE INDEX IF NOT EXISTS pi_metadata_seq ON pi_metadata(pi_seq);
"#,
    // v3: card readers (issue #27). Objects as stored JSON like the others; a reader's
    // `sim` is the simulation state Stripe does not show (offline until, the fault armed
    // on its action, a presentation under way), kept beside it so a restarted PSP on
    // the same file carries on where it was.
    r#"
CREATE TABLE IF NOT EXISTS terminal_locations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    claim_id INTEGER UNIQUE,
    created INTEGER NOT NULL,
    obj TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS terminal_locations_account ON terminal_locations(account, seq);
CREATE TABLE IF NOT EXISTS terminal_readers (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    claim_id INTEGER UNIQUE,
    created INTEGER NOT NULL,
    obj TEXT NOT NULL,
    sim TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS terminal_readers_account ON terminal_readers(account, seq);
"#,
];

fn user_version(c: &Connection) -> rusqlite::Result<i64> {
    c.query_row("PRAGMA user_version", [], |r| r.get(0))
}

fn application_id(c: &Connection) -> rusqlite::Result<i64> {
    c.query_row("PRAGMA application_id", [], |r| r.get(0))
}

/// The user tables of a database, sorted.
fn tables(c: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut st = c.prepare("SELECT name FROM sqlite_schema WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")?;
    let names = st.query_map([], |r| r.get(0))?.collect();
    names
}

/// What an existing database holds, as far as opening it goes.
#[derive(Debug, PartialEq, Eq)]
enum Found {
    /// No tables at all: ours to set up.
    Empty,
    /// A mock-psp store at this schema version (0: from before versioning).
    Ours(i64),
    /// A mock-psp store written by a newer build.
    Newer(i64),
    /// Another program's database: its tables.
    Foreign(Vec<String>),
}

fn classify(c: &Connection) -> rusqlite::Result<Found> {
    let (app, version, tables) = (application_id(c)?, user_version(c)?, tables(c)?);
    Ok(match app {
        APPLICATION_ID if version > SCHEMA_VERSION => Found::Newer(version),
        APPLICATION_ID => Found::Ours(version),
        0 if tables.is_empty() && version == 0 => Found::Empty,
        0 if version == 0 && ["meta", "idem"].iter().all(|t| tables.iter().any(|n| n == t)) && tables.iter().all(|n| OUR_TABLES.contains(&n.as_str())) => Found::Ours(0),
        _ => Found::Foreign(tables),
    })
}

fn refusal(path: &Path, found: &Found) -> Option<StoreError> {
    let p = path.display();
    match found {
        Found::Empty | Found::Ours(_) => None,
        Found::Newer(v) => Some(StoreError(format!("{p} is a mock-psp store of a newer version (schema {v}; this build knows up to {SCHEMA_VERSION}): refusing to open it, left untouched. Use a newer mock-psp or another --db file."))),
        Found::Foreign(t) => {
            let mut shown: Vec<&str> = t.iter().take(5).map(String::as_str).collect();
            if t.len() > 5 {
                shown.push("…");
            }
            let what = if t.is_empty() { "no tables but another program's markings (application_id or user_version)".to_string() } else { format!("other tables ({})", shown.join(", ")) };
            Some(StoreError(format!("{p} is a SQLite database of another program, not a mock-psp store: it holds {what}. Refusing to touch it; give --db a new file, or a mock-psp store.")))
        }
    }
}

/// Refuses, without writing anything, a location that is not (and cannot become) a
/// mock-psp store. A missing file is fine (it is created), as is an empty one.
pub(crate) fn check(loc: &DbLocation) -> Result<(), StoreError> {
    let DbLocation::File(path) = loc else { return Ok(()) };
    if path.as_os_str().is_empty() {
        return Err(StoreError("the database path is empty: give --db a file path, or :memory:".into()));
    }
    let p = path.display();
    if path.to_str().is_some_and(|s| s.starts_with("file:")) {
        // A URI: SQLite resolves it; inspect what it names, if anything yet.
        return match Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI) {
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::CannotOpen) => Ok(()),
            Err(e) => Err(StoreError(format!("cannot open {p} to inspect it: {e}"))),
            Ok(ro) => inspect(&ro, path),
        };
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match path.parent().filter(|d| !d.as_os_str().is_empty()) {
                Some(dir) if !dir.is_dir() => Err(StoreError(format!("cannot create {p}: the directory {} does not exist", dir.display()))),
                _ => Ok(()),
            };
        }
        Err(e) => return Err(StoreError(format!("cannot inspect {p}: {e}"))),
    };
    if meta.is_dir() {
        return Err(StoreError(format!("{p} is a directory: give --db the path of a database file")));
    }
    if !meta.is_file() {
        return Err(StoreError(format!("{p} is not a regular file (a device, FIFO or socket): give --db the path of a database file")));
    }
    if meta.len() == 0 {
        return Ok(());
    }
    // Without a write-ahead log holding data the file itself is the whole database: it
    // is read as immutable, which creates no -wal or -shm file beside it and takes no
    // lock (a plain read-only connection leaves both behind). With one (a process has
    // it open, or crashed), the log must be read too, through its existing files.
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let wal_has_data = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
    let ro = if wal_has_data {
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
    } else {
        Connection::open_with_flags(immutable_uri(path), OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI)
    }
    .map_err(|e| StoreError(format!("cannot open {p} to inspect it: {e}")))?;
    inspect(&ro, path)
}

/// `file:PATH?immutable=1`, the path percent-encoded.
fn immutable_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

fn inspect(ro: &Connection, path: &Path) -> Result<(), StoreError> {
    let p = path.display();
    ro.busy_timeout(std::time::Duration::from_secs(10))?;
    let found = classify(ro).map_err(|e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => StoreError(format!("{p} is not a SQLite database: refusing to touch it; give --db a new file, or a mock-psp store")),
        _ => StoreError(format!("cannot read {p}: {e}")),
    })?;
    refusal(path, &found).map_or(Ok(()), Err)
}

/// Applies every pending migration in one transaction. Re-checks what the file holds
/// under the write lock, so a file changed since [`check`] is still refused without a
/// write of ours, and two processes opening a new file migrate it once.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let path = conn.path().map(std::path::PathBuf::from).unwrap_or_default();
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = classify(&tx)?;
    if let Some(e) = refusal(&path, &found) {
        // Dropping `tx` rolls back; nothing was written.
        return Err(e);
    }
    let from = match found {
        Found::Ours(v) => v,
        _ => 0,
    };
    if from < 0 {
        return Err(StoreError(format!("{} has a negative schema version {from}", path.display())));
    }
    for sql in &MIGRATIONS[from as usize..] {
        tx.execute_batch(sql)?;
    }
    if from < SCHEMA_VERSION || application_id(&tx)? != APPLICATION_ID {
        // PRAGMA takes no bound parameter; both values are compile-time integers.
        tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}; PRAGMA application_id = {APPLICATION_ID};"))?;
    }
    tx.commit()?;
    Ok(())
}
