//! Opening the ledger: pragmas, migrations, and the files it must refuse.

use std::path::Path;

use paydesk_domain::*;
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
    // Waiting for the write lock is the ledger's own busy handler (src/busy.rs: its unit
    // tests hold the lock and see a writer wait, then write), which PRAGMA busy_timeout
    // does not report; tests/concurrency.rs has eight connections racing for it.
    assert_eq!(pragma::<i64>(&l, "busy_timeout"), 0, "SQLite's own sleeping handler is not the one in use");
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
        l.payments_mut().create(
            &NewPayment { amount: Money::new(1200, Currency::Jpy), options: CheckoutOptions::card("pm_card_visa") },
            5,
        )
        .unwrap()
        .idempotency_key
    };
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(l.payments().by_key(&key).unwrap().unwrap().amount, Money::new(1200, Currency::Jpy));
}

#[test]
fn an_sqlite_file_with_no_tables_becomes_a_ledger() {
    // A valid SQLite file (pages written) whose schema is empty: nothing to lose.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blank.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE scratch (x INTEGER); DROP TABLE scratch;").unwrap();
    }
    assert!(std::fs::metadata(&path).unwrap().len() > 0);
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
}

/// `path` is refused by `Ledger::open` with an error matching `is`, and neither it
/// nor its directory changed.
fn assert_refused_untouched(path: &Path, is: fn(&Error) -> bool, says: &str) -> Error {
    let before = std::fs::read(path).unwrap();
    let listing_before = list_dir(path.parent().unwrap());
    let err = Ledger::open(path).unwrap_err();
    assert!(is(&err), "{err:?}");
    assert!(err.to_string().contains(says), "{err}");
    assert!(std::fs::read(path).unwrap() == before, "a refused file is left byte-for-byte as it was");
    assert_eq!(list_dir(path.parent().unwrap()), listing_before, "no -wal/-shm/-journal left behind");
    err
}

#[test]
fn another_programs_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("customers.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
             INSERT INTO customers (name) VALUES ('Ada'), ('Grace');",
        )
        .unwrap();
    }
    let foreign = |e: &Error| matches!(e, Error::ForeignDatabase { .. });
    let err = assert_refused_untouched(&path, foreign, "not a PayDesk ledger");
    assert!(err.to_string().contains("customers"), "names what is there: {err}");
    // Also through the reader.
    assert!(matches!(Ledger::open_reader(&path), Err(Error::ForeignDatabase { .. })));

    // A schema version in our range is not enough: the tables of that version must be there.
    let path = dir.path().join("claims_v2.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE payments (id INTEGER PRIMARY KEY); PRAGMA user_version = 2;").unwrap();
    }
    let err = assert_refused_untouched(&path, foreign, "missing");
    assert!(err.to_string().contains("event_cursors"), "{err}");

    // Only views or indexes, no tables: still somebody's schema.
    let path = dir.path().join("view_only.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE VIEW answer AS SELECT 42 AS x;").unwrap();
    }
    assert_refused_untouched(&path, foreign, "not a PayDesk ledger");
}

#[test]
fn paths_that_cannot_hold_a_ledger_are_refused_before_sqlite_opens_them() {
    let cannot = |e: &Error| matches!(e, Error::CannotOpen { .. });
    let dir = tempfile::tempdir().unwrap();
    let listing = list_dir(dir.path());

    let err = Ledger::open(dir.path()).unwrap_err();
    assert!(cannot(&err) && err.to_string().contains("directory"), "{err:?}");

    let fifo = dir.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let null_link = dir.path().join("null.db");
    std::os::unix::fs::symlink("/dev/null", &null_link).unwrap();
    let listing = {
        let mut l = listing;
        l.extend(["null.db".to_string(), "pipe".to_string()]);
        l.sort();
        l
    };
    for device in [fifo.as_path(), null_link.as_path(), Path::new("/dev/null")] {
        let err = Ledger::open(device).unwrap_err();
        assert!(cannot(&err) && err.to_string().contains("not a regular file"), "{device:?}: {err:?}");
        assert!(matches!(Ledger::open_reader(device), Err(Error::CannotOpen { .. })), "{device:?}");
    }
    assert_eq!(list_dir(dir.path()), listing, "no -journal file next to a device");

    let err = Ledger::open("").unwrap_err();
    assert!(cannot(&err) && err.to_string().contains("empty"), "{err:?}");
    let err = Ledger::open(":memory:").unwrap_err();
    assert!(cannot(&err) && err.to_string().contains("in-memory"), "{err:?}");
    assert!(!Path::new(":memory:").exists());
    // The library's in-memory ledger stays available to tests and simulations.
    assert_eq!(Ledger::open_in_memory(Box::new(RandomKeys)).unwrap().schema_version().unwrap(), SCHEMA_VERSION);

    let err = Ledger::open(dir.path().join("no/such/dir/l.db")).unwrap_err();
    assert!(cannot(&err) && err.to_string().contains("does not exist"), "{err:?}");
    assert_eq!(list_dir(dir.path()), listing);
}

#[test]
fn a_database_error_shown_to_a_person_holds_no_sql() {
    let c = rusqlite::Connection::open_in_memory().unwrap();
    let e = c.prepare("SELECT secret_column FROM t WHERE x = = 1").unwrap_err();
    assert!(e.to_string().contains("secret_column"), "rusqlite's own text quotes the statement: {e}");
    let shown = Error::from(e).to_string();
    assert!(shown.contains("syntax error"), "{shown}");
    assert!(!shown.contains("secret_column") && !shown.contains("WHERE"), "{shown}");
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
        c.execute_batch("CREATE TABLE payments_v99 (id INTEGER PRIMARY KEY); PRAGMA user_version = 99;").unwrap();
    }
    assert_newer_refused_untouched(&path, 99);
}

#[test]
fn newer_schema_of_a_real_ledger_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        l.payments_mut().create(
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
            l.payments_mut().create(
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
        .payments_mut().create(&NewPayment { amount: Money::new(5, Currency::Gbp), options: CheckoutOptions::card("pm_card_visa") }, 1)
        .unwrap();
    assert_eq!(r.payments().by_key(&p.idempotency_key).unwrap().unwrap().id, p.id);
    let mut r = r;
    assert!(matches!(r.audit_mut().record_register_action("x", "y", None, 2), Err(Error::Sqlite(_))));
    assert!(w.audit().log().unwrap().is_empty());
}

/// A reader is never a second writer: each kind of write (carts, catalog, payments,
/// refunds, events, audit, the event cursor, reissued keys, a raw statement on its
/// connection) fails with SQLite's read-only error and the file is unchanged.
#[test]
fn every_write_on_a_reader_fails_read_only_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ro.db");
    let mut w = Ledger::open(&path).unwrap();
    let usd = |m| Money::new(m, Currency::Usd);
    w.carts_mut().seed_catalog(&[NewProduct { sku: "COF".into(), name: "Coffee".into(), price: usd(350) }]).unwrap();
    let cart = w.carts_mut().create(Currency::Usd, 1).unwrap();
    let p = w.payments_mut().create(&NewPayment { amount: usd(500), options: CheckoutOptions::card("pm_card_visa") }, 1).unwrap();
    let count = |l: &Ledger, table: &str| -> i64 {
        l.connection().query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap()
    };
    let tables = ["products", "carts", "cart_lines", "payments", "payment_timeline", "refunds", "processed_events",
        "journal", "audit_log", "event_cursors", "reissued_keys"];
    let before: Vec<i64> = tables.iter().map(|t| count(&w, t)).collect();
    let commits = w.commit_count();

    let mut r = Ledger::open_reader(&path).unwrap();
    let read_only = |what: &str, res: std::result::Result<(), Error>| match res {
        Err(Error::Sqlite(e)) => {
            assert_eq!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::ReadOnly), "{what}: {e}");
            let shown = Error::Sqlite(e).to_string();
            assert!(shown.contains("readonly"), "{what}: the error says why: {shown}");
        }
        other => panic!("{what}: a reader must refuse to write, got {other:?}"),
    };
    read_only("create_cart", r.carts_mut().create(Currency::Usd, 2).map(drop));
    read_only("add_to_cart", r.carts_mut().add(cart, "COF", 1, 2).map(drop));
    read_only(
        "seed_catalog",
        r.carts_mut().seed_catalog(&[NewProduct { sku: "TEA".into(), name: "Tea".into(), price: usd(300) }]).map(drop),
    );
    read_only(
        "create_payment",
        r.payments_mut().create(&NewPayment { amount: usd(700), options: CheckoutOptions::card("pm_card_visa") }, 2).map(drop),
    );
    read_only("set_last_error", r.payments_mut().set_last_error(p.id, Some("declined"), 2));
    read_only("transition", r.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "", 2).map(drop));
    read_only("append_timeline", r.payments_mut().append_timeline(p.id, &TimelineInput::default(), 2).map(drop));
    read_only("audit", r.audit_mut().record_register_action("x", "y", None, 2).map(drop));
    read_only("advance_event_cursor", r.sync_log_mut().advance_event_cursor("psp", 5, 2).map(drop));
    read_only(
        "reissue_operation_key",
        r.payments_mut().reissue_operation_key(p.id, reissue::ReissueOp::Capture, "k-capture", 0, "stored 500", 2).map(drop),
    );
    let event = PspEvent {
        event_id: "evt_1".into(),
        event_type: "payment_intent.succeeded".into(),
        kind: EventKind::PaymentSucceeded,
        psp_payment_id: None,
        checkout_key: Some(p.idempotency_key.clone()),
        psp_refund_id: None,
        refund_key: None,
        amount: Some(usd(500)),
    };
    read_only("apply_event", r.sync_log_mut().apply_event(&event, 2).map(drop));
    read_only("raw statement", r.connection().execute("DELETE FROM payments", []).map(drop).map_err(Error::Sqlite));

    let after: Vec<i64> = tables.iter().map(|t| count(&w, t)).collect();
    assert_eq!(before, after, "nothing written through the reader");
    assert_eq!(w.payments().by_id(p.id).unwrap().state, PaymentState::Created);
    assert_eq!(w.commit_count(), commits);
    assert_eq!(r.commit_count(), 0);
}
