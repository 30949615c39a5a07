//! The outbox (record 0044): written by the same transaction as the change it
//! describes, numbered 1, 2, 3... with no gap and never reused, read in bounded batches,
//! dropped only up to an acknowledgement, back-filled at the v6 -> v7 upgrade.

use crate::common;
use common::outbox::OutboxShadow;
use common::*;
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_domain::*;
use paydesk_ledger::*;
use serde_json::{json, Value};

fn facts(l: &Ledger, after: u64) -> Vec<(u64, Value)> {
    l.sync_log().outbox_batch(after, MAX_OUTBOX_BATCH).unwrap().into_iter().map(|r| (r.seq, serde_json::from_str(&r.fact_json).unwrap())).collect()
}

#[test]
fn a_payment_and_its_refund_write_one_row_per_change_in_order() {
    let mut l = mem();
    let p = new_payment(&mut l, 1200, 10);
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", 11).unwrap();
    let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: "pi_1".into(), amount: usd(1200), state_if_new: PaymentState::Captured };
    l.payments_mut().record_psp_result(&rec, 12).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "reply", 13).unwrap();
    let r = l.refunds_mut().create(p.id, 200, Some("spilled"), 14).unwrap();
    l.refunds_mut().record_result(r.id, "re_1", RefundState::Succeeded, 15).unwrap();

    let k = &p.idempotency_key;
    let rk = &r.idempotency_key;
    let got = facts(&l, 0);
    let want = vec![
        json!({"kind": "payment_created", "checkout_key": k, "amount": 1200, "currency": "usd"}),
        json!({"kind": "payment_state", "checkout_key": k, "state": "authorizing", "psp_id": null}),
        json!({"kind": "payment_state", "checkout_key": k, "state": "authorizing", "psp_id": "pi_1"}),
        json!({"kind": "payment_state", "checkout_key": k, "state": "captured", "psp_id": "pi_1"}),
        json!({"kind": "refund_created", "refund_key": rk, "checkout_key": k, "amount": 200}),
        json!({"kind": "payment_state", "checkout_key": k, "state": "refunding", "psp_id": "pi_1"}),
        json!({"kind": "refund_state", "refund_key": rk, "state": "pending", "psp_refund_id": "re_1"}),
        json!({"kind": "refund_state", "refund_key": rk, "state": "in_flight", "psp_refund_id": "re_1"}),
        json!({"kind": "refund_state", "refund_key": rk, "state": "succeeded", "psp_refund_id": "re_1"}),
        json!({"kind": "payment_state", "checkout_key": k, "state": "partially_refunded", "psp_id": "pi_1"}),
    ];
    let seqs: Vec<u64> = got.iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, (1..=want.len() as u64).collect::<Vec<_>>());
    let got: Vec<Value> = got.into_iter().map(|(_, f)| f).collect();
    assert_eq!(got, want);
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "end");
    shadow.assert_matches(&l, "end");
}

#[test]
fn a_refused_write_leaves_no_row_and_no_gap() {
    let mut l = mem();
    let p = new_payment(&mut l, 500, 1);
    let high = l.sync_log().outbox_stats().unwrap().high_water;
    // Refused by the refund rules inside the transaction: nothing of it stays.
    assert!(l.refunds_mut().create(p.id, 100, None, 2).is_err());
    assert!(l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Refunded, "no", 3).is_err());
    assert_eq!(l.sync_log().outbox_stats().unwrap().high_water, high);
    let q = new_payment(&mut l, 700, 4);
    let rows = facts(&l, high);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, high + 1);
    assert_eq!(rows[0].1["checkout_key"], json!(q.idempotency_key));
}

#[test]
fn ack_drops_up_to_the_ack_and_seqs_are_never_reused() {
    let mut l = mem();
    for i in 0..5 {
        new_payment(&mut l, 100 + i, i);
    }
    let s = l.sync_log().outbox_stats().unwrap();
    assert_eq!((s.queued, s.high_water, s.acked_through, s.oldest_at_ms), (5, 5, 0, Some(0)));
    assert_eq!(l.sync_log_mut().outbox_ack(2).unwrap(), 2);
    assert_eq!(l.sync_log_mut().outbox_ack(2).unwrap(), 0, "a repeated ack drops nothing");
    assert_eq!(l.sync_log_mut().outbox_ack(1).unwrap(), 0, "an older ack drops nothing");
    let s = l.sync_log().outbox_stats().unwrap();
    assert_eq!((s.queued, s.high_water, s.acked_through, s.oldest_at_ms), (3, 5, 2, Some(2)));
    assert_eq!(facts(&l, 0).first().unwrap().0, 3);

    // An ack past what was written stops at the high-water mark.
    assert_eq!(l.sync_log_mut().outbox_ack(1_000).unwrap(), 3);
    let s = l.sync_log().outbox_stats().unwrap();
    assert_eq!((s.queued, s.high_water, s.acked_through, s.oldest_at_ms), (0, 5, 5, None));
    assert!(l.sync_log().outbox_batch(0, 10).unwrap().is_empty());
    assert!(l.sync_log_mut().outbox_ack(u64::MAX).is_err(), "out of SQLite's range: refused, not wrapped");

    // Everything was dropped, yet the next row is 6, not 1.
    new_payment(&mut l, 900, 9);
    assert_eq!(facts(&l, 0).iter().map(|(s, _)| *s).collect::<Vec<_>>(), vec![6]);
}

#[test]
fn one_read_is_bounded_whatever_the_queue() {
    let mut l = mem();
    for i in 0..(MAX_OUTBOX_BATCH as i64 + 20) {
        new_payment(&mut l, 100, i);
    }
    assert_eq!(l.sync_log().outbox_batch(0, usize::MAX).unwrap().len(), MAX_OUTBOX_BATCH);
    assert_eq!(l.sync_log().outbox_batch(MAX_OUTBOX_BATCH as u64, usize::MAX).unwrap().len(), 20);
    assert_eq!(l.sync_log().outbox_batch(0, 3).unwrap().len(), 3);
    assert_eq!(l.sync_log().outbox_stats().unwrap().queued, MAX_OUTBOX_BATCH as u64 + 20);
}

#[test]
fn the_outbox_cannot_be_edited_or_skipped_by_sql() {
    let l = mem();
    let c = l.connection();
    c.execute("INSERT INTO outbox (seq, at_ms, fact) VALUES (1, 0, '{}')", []).unwrap();
    let gap = c.execute("INSERT INTO outbox (seq, at_ms, fact) VALUES (3, 0, '{}')", []);
    assert!(gap.unwrap_err().to_string().contains("high-water"));
    let edit = c.execute("UPDATE outbox SET fact = '[]' WHERE seq = 1", []);
    assert!(edit.unwrap_err().to_string().contains("never changed"));
}

fn write_v6_file(path: &std::path::Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
    for m in &MIGRATIONS[..6] {
        c.execute_batch(m).unwrap();
    }
    c.execute_batch(
        r#"PRAGMA user_version = 6;
         INSERT INTO payments (id, idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method,
                               request_params, created_at_ms, updated_at_ms, refunded_minor) VALUES
             (1, 'ck-1', 'pi_1', 1000, 'usd', 'partially_refunded', 'automatic', '[]', 10, 40, 300),
             (2, 'ck-2', NULL, 500, 'jpy', 'created', 'automatic', '[]', 20, 20, 0),
             (3, 'ck-3', NULL, 800, 'usd', 'queued_offline', 'automatic', '[]', 30, 31, 0);
         INSERT INTO refunds (id, idempotency_key, payment_id, amount_minor, currency, state, psp_refund_id,
                              request_params, created_at_ms, updated_at_ms) VALUES
             (1, 'rf-1', 1, 300, 'usd', 'succeeded', 're_1', '[]', 35, 40),
             (2, 'rf-2', 1, 100, 'usd', 'pending', NULL, '[]', 45, 45);"#,
    )
    .unwrap();
}

#[test]
fn a_v6_ledger_is_back_filled_so_its_history_syncs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v6.db");
    write_v6_file(&path);
    let mut l = Ledger::open_with_keys(&path, Box::new(SeededKeys::new(6))).unwrap();
    assert!(l.schema_version().unwrap() >= 7);

    let got: Vec<(u64, Value)> = facts(&l, 0);
    let want = vec![
        json!({"kind": "payment_created", "checkout_key": "ck-1", "amount": 1000, "currency": "usd"}),
        json!({"kind": "payment_state", "checkout_key": "ck-1", "state": "partially_refunded", "psp_id": "pi_1"}),
        json!({"kind": "payment_created", "checkout_key": "ck-2", "amount": 500, "currency": "jpy"}),
        json!({"kind": "payment_created", "checkout_key": "ck-3", "amount": 800, "currency": "usd"}),
        json!({"kind": "payment_state", "checkout_key": "ck-3", "state": "queued_offline", "psp_id": null}),
        json!({"kind": "refund_created", "refund_key": "rf-1", "checkout_key": "ck-1", "amount": 300}),
        json!({"kind": "refund_state", "refund_key": "rf-1", "state": "succeeded", "psp_refund_id": "re_1"}),
        json!({"kind": "refund_created", "refund_key": "rf-2", "checkout_key": "ck-1", "amount": 100}),
    ];
    assert_eq!(got.iter().map(|(s, _)| *s).collect::<Vec<_>>(), (1..=8).collect::<Vec<_>>());
    assert_eq!(got.iter().map(|(_, f)| f.clone()).collect::<Vec<_>>(), want);
    assert_eq!(got[0].0, 1);
    let s = l.sync_log().outbox_stats().unwrap();
    assert_eq!((s.queued, s.high_water, s.acked_through, s.oldest_at_ms), (8, 8, 0, Some(10)));

    // After the upgrade the triggers continue the same sequence.
    let p = new_payment(&mut l, 250, 50);
    let next = facts(&l, 8);
    assert_eq!(next.len(), 1);
    assert_eq!((next[0].0, &next[0].1["checkout_key"]), (9, &json!(p.idempotency_key)));
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "upgraded");
    shadow.assert_matches(&l, "upgraded");
    drop(l);

    // A reader sees the same outbox (the sync loop reads through its own connection).
    let r = Ledger::open_reader(&path).unwrap();
    assert_eq!(r.sync_log().outbox_stats().unwrap().queued, 9);
}

/// A register at schema v8 with tenders (one superseded), paid in and out and a closed
/// shift: made by this code, then its v9 triggers and their outbox rows (and the v10
/// restore tables) taken away.
fn write_v8_file_with_books(path: &std::path::Path) {
    use paydesk_access::pin::Pin;
    use paydesk_access::Role;
    const T: i64 = 1_790_000_000_000;
    let mut l = Ledger::open(path).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let pin = Pin::parse("2468").unwrap();
    let mika = l.roster_mut().add("Mika", Role::Manager, &pin, None, T + 1).unwrap().id;
    l.roster_mut().sign_in("Mika", &pin, paydesk_access::lockout::LockoutPolicy::default(), T + 2).unwrap();
    let dc = |d, n| DenominationCount { denomination_minor: d, count: n };
    l.shifts_mut().open(Actor::alone(mika), &[dc(1_000, 5)], T + 10).unwrap();
    let cart = l.carts_mut().create(Currency::Jpy, T + 20).unwrap();
    l.carts_mut().add(cart, "MUG-001", 2, T + 20).unwrap();
    l.sales_mut().open_card_tender(cart, Some(1_000), &CheckoutOptions::card("pm_card_visa"), None, T + 21).unwrap();
    let p = l.sales_mut().open_card_tender(cart, Some(1_000), &CheckoutOptions::card("pm_card_visa"), Some("terminal froze"), T + 22).unwrap().payment;
    // declined: the sale holds nothing, so the shift may close
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", T + 23).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", T + 24).unwrap();
    l.shifts_mut().paid_in_out(Actor::alone(mika), PaidKind::PaidIn, 1_000, "change top-up", T + 30).unwrap();
    let cart = l.carts_mut().create(Currency::Jpy, T + 40).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, T + 40).unwrap();
    l.sales_mut().pay_cash(cart, 2_000, None, T + 41).unwrap();
    l.shifts_mut().close(Actor::alone(mika), &[dc(1_000, 7)], T + 50).unwrap();
    drop(l);
    let c = rusqlite::Connection::open(path).unwrap();
    crate::common::undo_named_rates(&c);
    c.execute_batch(
        "DROP TRIGGER outbox_shift_opened; DROP TRIGGER outbox_paid_in_out; DROP TRIGGER outbox_tender_added;
         DROP TRIGGER outbox_tender_superseded; DROP TRIGGER outbox_shift_closed; DROP TRIGGER outbox_no_update;
         DROP TABLE restored_history; DROP TABLE restore_sources;
         DROP TRIGGER outbox_item_added; DROP TRIGGER outbox_item_changed; DROP TRIGGER outbox_item_name_ja_added;
         DROP TRIGGER outbox_item_name_ja_changed; DROP TRIGGER outbox_item_name_ja_removed; DROP TRIGGER outbox_staff_added;
         DROP TRIGGER outbox_staff_changed; DROP TRIGGER outbox_tax_changed;
         DROP VIEW local_item_facts; DROP VIEW local_staff_facts; DROP VIEW local_tax_facts;
         DROP TRIGGER outbox_return_recorded; DROP TRIGGER outbox_cash_refunded; DROP VIEW return_recorded_facts; DROP TRIGGER outbox_store_refunded;
         DROP TRIGGER outbox_sale_completed; DROP TRIGGER outbox_sale_canceled; DROP TRIGGER outbox_sale_canceled_at_once;
         DROP VIEW sale_completed_facts; DROP TABLE sales_sent;
         DROP TABLE approval_pin_attempts; ALTER TABLE staff DROP COLUMN pin_locks; ALTER TABLE store_settings DROP COLUMN time_zone;
         ALTER TABLE products DROP COLUMN published_version; ALTER TABLE store_settings DROP COLUMN tax_published_version;
         ALTER TABLE staff DROP COLUMN published_version;
         CREATE TEMP TABLE kept AS SELECT row_number() OVER (ORDER BY seq) AS n, at_ms, fact FROM outbox
             WHERE json_extract(fact, '$.kind') IN ('payment_created', 'payment_state', 'refund_created', 'refund_state');
         DELETE FROM outbox;
         UPDATE outbox_seq SET high_water = 0, acked_through = 0;
         INSERT INTO outbox (seq, at_ms, fact) SELECT n, at_ms, fact FROM temp.kept ORDER BY n;
         CREATE TRIGGER outbox_no_update BEFORE UPDATE ON outbox BEGIN SELECT RAISE(ABORT, 'outbox rows are never changed'); END;
         PRAGMA user_version = 8;",
    )
    .unwrap();
}

#[test]
fn a_v8_ledger_is_back_filled_with_its_tenders_and_shifts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v8.db");
    write_v8_file_with_books(&path);
    let payments_only = rusqlite::Connection::open(&path).unwrap().query_row("SELECT count(*) FROM outbox", [], |r| r.get::<_, i64>(0)).unwrap() as u64;
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let added = facts(&l, payments_only);
    let mut kinds: Vec<&str> = added.iter().map(|(_, f)| f["kind"].as_str().unwrap()).collect();
    // then (v13, record 0052) the register's own items, its staff and its tax setup
    let local = kinds.split_off(8);
    assert_eq!(local.iter().filter(|k| **k == "staff_saved").count(), 1, "{local:?}");
    assert_eq!(local.last(), Some(&"tax_setup_changed"));
    assert!(local.iter().all(|k| ["item_saved", "staff_saved", "tax_setup_changed"].contains(k)), "{local:?}");
    // shifts opened, drawer moves, tenders (a superseded one followed by its supersede),
    // closes; then (v12, record 0051) the sale paid in cash
    assert_eq!(kinds, ["shift_opened", "paid_in_out", "tender_added", "tender_superseded", "tender_added", "tender_added", "shift_closed", "sale_completed"]);
    assert_eq!(added.iter().map(|(s, _)| *s).collect::<Vec<_>>(), (payments_only + 1..=payments_only + added.len() as u64).collect::<Vec<_>>());
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "upgraded to v9");
    shadow.assert_matches(&l, "upgraded to v9");
    // the triggers carry on after the back-fill
    let cart = l.carts_mut().create(Currency::Jpy, 1_790_000_000_100).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, 1_790_000_000_100).unwrap();
    let e = l.sales_mut().pay_cash(cart, 2_000, None, 1_790_000_000_101).unwrap_err();
    assert!(matches!(e, Error::NoOpenShift), "{e}");
    let mika = l.roster().by_name("Mika").unwrap().unwrap().id;
    l.shifts_mut().open(Actor::alone(mika), &[], 1_790_000_000_102).unwrap();
    l.sales_mut().pay_cash(cart, 2_000, None, 1_790_000_000_103).unwrap();
    shadow.catch_up(&l, "after the upgrade");
    shadow.assert_matches(&l, "after the upgrade");
}
