//! The ledger is this user's alone (issue 28, record 0054): the file is created 0600,
//! an older looser one is made 0600 at open, SQLite's `-wal` and `-shm` follow, and the
//! copy written before an upgrade is 0600 in a 0700 folder. Real files, the usual umask.

use paydesk_ledger::schema::MIGRATIONS;
use paydesk_ledger::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn sidecar(p: &Path, suffix: &str) -> std::path::PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(suffix);
    s.into()
}

#[test]
fn a_new_ledger_and_its_sidecars_are_owner_only() {
    // the umask most desktops have: files 0644 unless made otherwise
    unsafe { libc::umask(0o022) };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let l = Ledger::open(&path).unwrap();
    assert_eq!(mode(&path), 0o600);
    for s in ["-wal", "-shm"] {
        assert_eq!(mode(&sidecar(&path, s)), 0o600, "{s}");
    }
    drop(l);
}

#[test]
fn an_older_looser_ledger_is_made_owner_only_at_open_with_its_copy() {
    unsafe { libc::umask(0o022) };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    {
        // a v1 ledger as an older version left it, readable by everyone
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
        c.execute_batch(MIGRATIONS[0]).unwrap();
        c.execute_batch("PRAGMA user_version = 1").unwrap();
        std::mem::forget(c); // keep its -wal and -shm as they are
    }
    for p in [path.clone(), sidecar(&path, "-wal"), sidecar(&path, "-shm")] {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    for p in [path.clone(), sidecar(&path, "-wal"), sidecar(&path, "-shm")] {
        assert_eq!(mode(&p), 0o600, "{}", p.display());
    }
    let backups = dir.path().join("backups");
    assert_eq!(mode(&backups), 0o700);
    let copies: Vec<_> = std::fs::read_dir(&backups).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_eq!(mode(&copies[0]), 0o600, "{}", copies[0].display());
}
