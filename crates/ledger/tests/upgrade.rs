//! Schema v1 -> v2 (issue 4: the events cursor and reissued keys): an existing v1 file
//! with data is upgraded in place in ONE transaction, its data intact; a failed upgrade
//! leaves the v1 file as it was; a file newer than this build is refused untouched.
//! Plus the v2 accessors (cursor.rs, reissue.rs).

use std::path::Path;

use paydesk_ledger::reissue::ReissueOp;
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_domain::*;
use paydesk_ledger::*;

const V1_KEY: &str = "6f1d0c7e-1111-4aaa-8bbb-000000000001";
const V1_REFUND_KEY: &str = "6f1d0c7e-2222-4aaa-8bbb-000000000002";

/// A v1 ledger exactly as a v1 build left it: schema v1 and a captured payment with a
/// pending refund, an applied event and its journal row.
fn write_v1_file(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
    c.execute_batch(MIGRATIONS[0]).unwrap();
    c.execute_batch("PRAGMA user_version = 1").unwrap();
    let params = r#"[["amount","1200"],["currency","jpy"],["payment_method","pm_card_visa"],["confirm","true"],["capture_method","automatic"],["metadata[checkout_key]","6f1d0c7e-1111-4aaa-8bbb-000000000001"]]"#;
    c.execute(
        "INSERT INTO payments (id, idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method,
             request_params, created_at_ms, first_attempt_at_ms, updated_at_ms)
         VALUES (1, ?1, 'pi_v1', 1200, 'jpy', 'refunding', 'automatic', ?2, 10, 11, 12)",
        rusqlite::params![V1_KEY, params],
    )
    .unwrap();
    let rparams = r#"[["payment_intent","pi_v1"],["amount","500"],["metadata[refund_key]","6f1d0c7e-2222-4aaa-8bbb-000000000002"],["metadata[checkout_key]","6f1d0c7e-1111-4aaa-8bbb-000000000001"]]"#;
    c.execute(
        "INSERT INTO refunds (id, idempotency_key, payment_id, amount_minor, currency, state, request_params,
             created_at_ms, first_attempt_at_ms, updated_at_ms)
         VALUES (1, ?1, 1, 500, 'jpy', 'in_flight', ?2, 20, 21, 22)",
        rusqlite::params![V1_REFUND_KEY, rparams],
    )
    .unwrap();
    c.execute_batch(
        "INSERT INTO processed_events (event_id, event_type, payment_id, applied_at_ms, effect)
             VALUES ('evt_v1', 'payment_intent.succeeded', 1, 13, 'authorizing -> captured');
         INSERT INTO journal (event_id, payment_id, at_ms, account, amount_minor, currency, memo)
             VALUES ('evt_v1', 1, 13, 'sales', 1200, 'jpy', 'v1');",
    )
    .unwrap();
}

fn tables(c: &rusqlite::Connection) -> Vec<String> {
    let mut st = c.prepare("SELECT name FROM sqlite_schema WHERE type='table' ORDER BY name").unwrap();
    st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn a_v1_file_with_data_is_upgraded_to_v2_with_its_data_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    write_v1_file(&path);

    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let t = tables(l.connection());
    assert!(t.contains(&"event_cursors".to_string()) && t.contains(&"reissued_keys".to_string()), "{t:?}");
    let p = l.payments().by_key(V1_KEY).unwrap().unwrap();
    assert_eq!((p.amount, p.state, p.psp_payment_id.as_deref()), (Money::new(1200, Currency::Jpy), PaymentState::Refunding, Some("pi_v1")));
    assert_eq!(p.request_params.get("metadata[checkout_key]"), Some(V1_KEY));
    let r = l.refunds().by_key(V1_REFUND_KEY).unwrap().unwrap();
    assert_eq!((r.amount.amount_minor, r.state), (500, RefundState::InFlight));
    assert!(l.sync_log().is_event_processed("evt_v1").unwrap());
    assert_eq!(l.sync_log().journal_total(Currency::Jpy).unwrap(), 1200);
    assert_eq!(l.sync_log().event_cursor("default").unwrap(), None, "a v1 file has no cursor: the first poll reads the lookback");

    // v1 data works with the v2 features: the in-flight refund can be reissued.
    let next = l.refunds_mut().reissue(r.id, "test", 30).unwrap();
    assert_eq!(next.request_params.get("metadata[refund_key]"), Some(next.idempotency_key.as_str()));
    assert_eq!(l.refunds().by_key(V1_REFUND_KEY).unwrap().unwrap().state, RefundState::Failed);
    drop(l);

    // Reopening does not migrate again.
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(l.refunds().for_payment(p.id).unwrap().len(), 2);
}

#[test]
fn a_failing_upgrade_leaves_the_v1_file_as_it_was() {
    // A v1 file that (oddly) already holds a table named like one of v2's: the v2
    // migration fails half-way, and the single transaction rolls ALL of it back.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    write_v1_file(&path);
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE reissued_keys (x INTEGER)").unwrap();
    }
    let err = Ledger::open(&path).unwrap_err();
    assert!(err.to_string().contains("reissued_keys"), "{err}");
    let c = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).unwrap(), 1);
    assert!(!tables(&c).contains(&"event_cursors".to_string()), "the table created before the failure was rolled back");
    assert_eq!(c.query_row("SELECT state FROM refunds WHERE id = 1", [], |r| r.get::<_, String>(0)).unwrap(), "in_flight");
    c.execute_batch("DROP TABLE reissued_keys").unwrap();
    drop(c);
    assert_eq!(Ledger::open(&path).unwrap().schema_version().unwrap(), SCHEMA_VERSION, "fixed file upgrades");
}

/// v2 -> v3 (`payment_successors`): a v2 file's payments get successors after the upgrade.
#[test]
fn a_v2_file_is_upgraded_to_v3_and_its_payments_can_have_one_successor() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.db");
    write_v1_file(&path);
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(MIGRATIONS[1]).unwrap();
        c.execute_batch("UPDATE payments SET state = 'failed' WHERE id = 1; PRAGMA user_version = 2").unwrap();
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(tables(l.connection()).contains(&"payment_successors".to_string()));
    let p = l.payments().by_key(V1_KEY).unwrap().unwrap();
    let new = NewPayment { amount: p.amount, options: CheckoutOptions::card("pm_card_visa") };
    let s = l.payments_mut().payment_after(p.id, After::Amount(&new), 40).unwrap();
    assert!(s.is_new);
    assert_eq!(l.payments_mut().payment_after(p.id, After::Amount(&new), 41).unwrap().payment.id, s.payment.id);
}

#[test]
fn a_file_newer_than_v2_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v3.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        l.sync_log_mut().advance_event_cursor("http://psp#1", 1_700_000_000, 1).unwrap();
    }
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1)).unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        c.execute_batch("PRAGMA journal_mode = DELETE").unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let listing = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    };
    let files_before = listing(dir.path());
    match Ledger::open(&path) {
        Err(Error::NewerSchema { found, supported }) => assert_eq!((found, supported), (SCHEMA_VERSION + 1, SCHEMA_VERSION)),
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    assert!(std::fs::read(&path).unwrap() == before, "byte for byte untouched");
    assert_eq!(listing(dir.path()), files_before);
}

#[test]
fn the_events_cursor_only_moves_forward_per_psp() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(1))).unwrap();
    assert_eq!(l.sync_log().event_cursor("a").unwrap(), None);
    assert_eq!(l.sync_log_mut().advance_event_cursor("a", 100, 1).unwrap(), 100);
    assert_eq!(l.sync_log_mut().advance_event_cursor("a", 90, 2).unwrap(), 100, "never backwards");
    assert_eq!(l.sync_log_mut().advance_event_cursor("b", 50, 3).unwrap(), 50);
    assert_eq!((l.sync_log().event_cursor("a").unwrap(), l.sync_log().event_cursor("b").unwrap()), (Some(100), Some(50)));
    assert!(matches!(l.sync_log_mut().advance_event_cursor("", 1, 4), Err(Error::InvalidInput(_))));
    assert!(matches!(l.sync_log_mut().advance_event_cursor(&"x".repeat(513), 1, 4), Err(Error::InvalidInput(_))));
    assert!(matches!(l.sync_log_mut().advance_event_cursor("a", -1, 4), Err(Error::InvalidInput(_))));
}

#[test]
fn operation_keys_are_reissued_once_per_generation() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(2))).unwrap();
    let p = l
        .payments_mut().create(&NewPayment { amount: Money::new(100, Currency::Usd), options: CheckoutOptions::card("pm_card_visa") }, 1)
        .unwrap();
    let root = format!("{}-capture", p.idempotency_key);
    let cur = l.payments().current_operation_key(ReissueOp::Capture, &root).unwrap();
    assert_eq!((cur.key.as_str(), cur.generation), (root.as_str(), 0));
    let k1 = l.payments_mut().reissue_operation_key(p.id, ReissueOp::Capture, &root, 0, "stored 500", 2).unwrap();
    assert_eq!((k1.key.clone(), k1.generation), (format!("{root}-1"), 1));
    // A second caller that also saw generation 0 gets the same key, not another.
    assert_eq!(l.payments_mut().reissue_operation_key(p.id, ReissueOp::Capture, &root, 0, "stored 500", 3).unwrap(), k1);
    assert_eq!(l.payments().current_operation_key(ReissueOp::Capture, &root).unwrap(), k1);
    assert!(l.payments().timeline(p.id).unwrap().iter().any(|t| t.outcome.as_deref() == Some("new_key")));
    assert!(l.payments_mut().reissue_operation_key(p.id, ReissueOp::Refund, &root, 0, "x", 4).is_err());
}
