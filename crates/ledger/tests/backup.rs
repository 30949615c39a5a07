//! The copy written before a schema migration (record 0055): made only when a migration
//! runs, holding the file as it was, the newest three kept, and a copy that cannot be
//! written stopping the migration with the file untouched.

use std::path::Path;

use paydesk_ledger::schema::MIGRATIONS;
use paydesk_ledger::{backup, Ledger, SCHEMA_VERSION};
use paydesk_domain::PaymentState;

const KEY: &str = "0b5e7a11-0000-4000-8000-00000000b001";

/// A schema-1 ledger as a build of schema 1 wrote it (migrations are append-only
/// history, so MIGRATIONS[0] is that build's schema), holding one captured payment.
fn schema_one_ledger(path: &Path, amount_minor: i64) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
    c.execute_batch(MIGRATIONS[0]).unwrap();
    c.execute(
        "INSERT INTO payments (idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method,
             request_params, created_at_ms, updated_at_ms)
         VALUES (?1, 'pi_backup', ?2, 'usd', 'captured', 'automatic', '[]', 1, 2)",
        rusqlite::params![KEY, amount_minor],
    )
    .unwrap();
    c.execute_batch("PRAGMA user_version = 1").unwrap();
}

fn version_and_amount(path: &Path) -> (i64, i64) {
    let c = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let v = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    let a = c.query_row("SELECT amount_minor FROM payments WHERE idempotency_key = ?1", [KEY], |r| r.get(0)).unwrap();
    (v, a)
}

#[test]
fn a_migration_is_preceded_by_a_copy_of_the_file_as_it_was_and_none_is_made_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    schema_one_ledger(&path, 4_250);

    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let p = l.payments().by_key(KEY).unwrap().expect("the payment survives the migration");
    assert_eq!((p.amount.amount_minor, p.state), (4_250, PaymentState::Captured));
    drop(l);

    let copies = backup::list(&path);
    assert_eq!(copies.len(), 1, "{copies:?}");
    let name = copies[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("ledger.db.") && name.ends_with(&format!(".schema1-to-{SCHEMA_VERSION}.sqlite3")), "{name}");
    assert_eq!(copies[0].parent().unwrap(), dir.path().join("backups"));
    assert_eq!(version_and_amount(&copies[0]), (1, 4_250), "the copy is the file before the migration");

    // Already at this build's schema: no migration, no copy.
    drop(Ledger::open(&path).unwrap());
    assert_eq!(backup::list(&path), copies);
    // A brand-new ledger has nothing to keep.
    drop(Ledger::open(dir.path().join("fresh.db")).unwrap());
    assert!(backup::list(&dir.path().join("fresh.db")).is_empty());
}

#[test]
fn the_newest_three_copies_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let mut made = Vec::new();
    for amount in [101, 102, 103, 104] {
        for f in ["ledger.db", "ledger.db-wal", "ledger.db-shm"] {
            let _ = std::fs::remove_file(dir.path().join(f));
        }
        schema_one_ledger(&path, amount);
        drop(Ledger::open(&path).unwrap());
        let now = backup::list(&path);
        made.push(now.last().unwrap().clone());
        assert_eq!(version_and_amount(now.last().unwrap()), (1, amount), "the newest copy sorts last");
    }
    assert_eq!(backup::KEEP, 3);
    assert_eq!(backup::list(&path), made[1..].to_vec(), "the oldest copy was removed");
    assert!(!made[0].exists());
}

#[test]
fn a_copy_that_cannot_be_written_stops_the_migration_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    schema_one_ledger(&path, 777);
    // `backups` is a file: the folder for the copies cannot be made.
    std::fs::write(dir.path().join("backups"), b"in the way").unwrap();
    let before = std::fs::read(&path).unwrap();

    let err = Ledger::open(&path).unwrap_err().to_string();
    assert!(err.contains("from version 1 to") && err.contains("nothing was changed"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "the ledger is byte-for-byte as it was");
    assert_eq!(version_and_amount(&path), (1, 777));

    std::fs::remove_file(dir.path().join("backups")).unwrap();
    assert_eq!(Ledger::open(&path).unwrap().schema_version().unwrap(), SCHEMA_VERSION, "migrates once it can copy");
    assert_eq!(backup::list(&path).len(), 1);
}

#[test]
fn copies_of_two_ledgers_in_one_folder_are_counted_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.db"), dir.path().join("a.db.old"));
    schema_one_ledger(&a, 1);
    schema_one_ledger(&b, 2);
    for p in [&a, &b] {
        drop(Ledger::open(p).unwrap());
    }
    assert_eq!(backup::list(&a).len(), 1);
    assert_eq!(backup::list(&b).len(), 1);
    assert_eq!(version_and_amount(&backup::list(&b)[0]), (1, 2));
}
