//! Is a database file a PayDesk ledger (of some version up to ours), or empty? Asked
//! before any write (`open`) and again under the write lock by the migration.

use std::path::Path;

use rusqlite::Connection;

use super::MIGRATIONS;
use crate::error::{open_error, Error, Result};

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
