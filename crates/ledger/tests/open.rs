//! Opening the ledger: pragmas, migrations, and the files it must refuse.

use std::path::Path;

use paydesk_ledger::*;

fn pragma<T: rusqlite::types::FromSql>(l: &Ledger, name: &str) -> T {
    l.connection().query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
}

#[test]
fn fresh_file_gets_wal_full_fk_and_latest_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    let l = Ledger::open(&path).unwrap();
    assert_eq!(pragma::<String>(&l, "journal_mode"), "wal");
    assert_eq!(pragma::<i64>(&l, "synchronous"), 2, "FULL");
    assert_eq!(pragma::<i64>(&l, "foreign_keys"), 1);
    assert!(pragma::<i64>(&l, "busy_timeout") >= 1000);
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let tables: Vec<String> = {
        let mut st = l.connection().prepare("SELECT name FROM sqlite_schema WHERE type='table' ORDER BY name").unwrap();
        st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    for t in [
        "audit_log", "cart_lines", "carts", "journal", "payment_timeline", "payments", "processed_events",
        "products", "refunds",
    ] {
        assert!(tables.iter().any(|x| x == t), "missing table {t}: {tables:?}");
    }
}

#[test]
fn reopening_keeps_data_and_does_not_remigrate() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.db");
    let key = {
        let mut l = Ledger::open(&path).unwrap();
        l.create_payment(
            &NewPayment { amount: Money::new(1200, Currency::Jpy), options: CheckoutOptions::card("pm_card_visa") },
            5,
        )
        .unwrap()
        .idempotency_key
    };
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(l.payment_by_key(&key).unwrap().unwrap().amount, Money::new(1200, Currency::Jpy));
}

#[test]
fn an_older_schema_is_migrated_in_place() {
    // A version-0 file (valid SQLite, nothing of ours in it) is upgraded.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v0.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE unrelated (x INTEGER)").unwrap();
    }
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
}

fn assert_newer_refused_untouched(path: &Path, found: i64) {
    let before = std::fs::read(path).unwrap();
    let listing_before = list_dir(path.parent().unwrap());
    match Ledger::open(path) {
        Err(Error::NewerSchema { found: f, supported }) => {
            assert_eq!(f, found);
            assert_eq!(supported, SCHEMA_VERSION);
        }
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    let after = std::fs::read(path).unwrap();
    // assert! rather than assert_eq!: a failure should not print megabytes of bytes.
    assert!(after == before, "newer file must be left byte-for-byte untouched (first difference at byte {:?})",
        after.iter().zip(&before).position(|(a, b)| a != b));
    assert_eq!(list_dir(path.parent().unwrap()), listing_before, "no -wal/-shm/-journal left behind");
    // And the message says what happened.
    let msg = Ledger::open(path).unwrap_err().to_string();
    assert!(msg.contains("newer"), "{msg}");
}

fn list_dir(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn newer_schema_rollback_journal_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("future.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE payments_v9 (id INTEGER PRIMARY KEY); PRAGMA user_version = 9;").unwrap();
    }
    assert_newer_refused_untouched(&path, 9);
}

#[test]
fn newer_schema_of_a_real_ledger_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        l.create_payment(
            &NewPayment { amount: Money::new(100, Currency::Usd), options: CheckoutOptions::card("pm_card_visa") },
            1,
        )
        .unwrap();
    }
    {
        // A future build migrated it: bump the version and checkpoint everything into the
        // main file so the only state is the main file.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1)).unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        c.execute_batch("PRAGMA journal_mode = DELETE").unwrap();
    }
    assert_newer_refused_untouched(&path, SCHEMA_VERSION + 1);
}

#[test]
fn garbage_file_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("garbage.db");
    let bytes: Vec<u8> = (0..8192u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(Ledger::open(&path), Err(Error::NotADatabase { .. })), "{:?}", Ledger::open(&path));
    assert!(std::fs::read(&path).unwrap() == bytes, "a file that is not ours is not modified");

    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "this is a shopping list, not a ledger\n".repeat(100)).unwrap();
    let err = Ledger::open(&text).unwrap_err();
    assert!(matches!(err, Error::NotADatabase { .. }), "{err:?}");
    assert!(err.to_string().contains("not an SQLite database"), "{err}");
}

#[test]
fn damaged_ledger_pages_are_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        for i in 0..200 {
            l.create_payment(
                &NewPayment { amount: Money::new(100 + i, Currency::Usd), options: CheckoutOptions::card("pm_card_visa") },
                i,
            )
            .unwrap();
        }
        l.connection().query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    }
    let mut bytes = std::fs::read(&path).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    assert!(bytes.len() > page * 6);
    // Scribble over pages 3.. (b-tree pages of our tables), keep the header page intact.
    for b in &mut bytes[page * 2..page * 6] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let err = Ledger::open(&path).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
}

#[test]
fn empty_file_is_a_new_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    std::fs::write(&path, b"").unwrap();
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
}

#[test]
fn a_reader_sees_commits_and_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rw.db");
    assert!(Ledger::open_reader(&path).is_err(), "no file yet: the writer creates it");
    let mut w = Ledger::open(&path).unwrap();
    let r = Ledger::open_reader(&path).unwrap();
    let p = w
        .create_payment(&NewPayment { amount: Money::new(5, Currency::Gbp), options: CheckoutOptions::card("pm_card_visa") }, 1)
        .unwrap();
    assert_eq!(r.payment_by_key(&p.idempotency_key).unwrap().unwrap().id, p.id);
    let mut r = r;
    assert!(matches!(r.audit("x", "y", None, 2), Err(Error::Sqlite(_))));
    assert!(w.audit_log().unwrap().is_empty());
}
