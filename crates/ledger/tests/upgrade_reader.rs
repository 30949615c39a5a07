//! Card-present payments on a reader in the ledger (issue 27, schema v18): the upgrade
//! that rebuilds `payments` with the state `on_reader` keeps every row and reference, its
//! outbox triggers and foreign keys; and the reader attempt rules (committed before sent,
//! one attempt at a time, the next only on a person's request, the same intent).

use std::path::Path;

use paydesk_ledger::schema::MIGRATIONS;
use paydesk_domain::*;
use paydesk_ledger::*;

const KEY: &str = "7a2e0c7e-1111-4aaa-8bbb-000000000001";

/// How many migrations come before the reader one.
fn before_reader() -> usize {
    MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE payments_reader")).expect("the reader migration is in MIGRATIONS")
}

/// A ledger of the version before, with a sale paid by card, its timeline, a refund, an
/// applied event and the outbox rows the triggers wrote.
fn write_old_file(path: &Path) {
    let n = before_reader();
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
    for m in &MIGRATIONS[..n] {
        c.execute_batch(m).unwrap();
    }
    c.execute_batch(&format!("PRAGMA user_version = {n};")).unwrap();
    let params = format!(r#"[["amount","1200"],["currency","jpy"],["payment_method","pm_card_visa"],["confirm","true"],["capture_method","automatic"],["metadata[checkout_key]","{KEY}"]]"#);
    c.execute_batch("INSERT INTO carts (id, currency, state, created_at_ms, updated_at_ms) VALUES (1, 'jpy', 'paid', 1_700_000_000_000, 1_700_000_000_000);").unwrap();
    c.execute(
        "INSERT INTO payments (id, idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method,
             request_params, cart_id, created_at_ms, first_attempt_at_ms, updated_at_ms)
         VALUES (1, ?1, 'pi_old', 1200, 'jpy', 'captured', 'automatic', ?2, 1, 1700000000010, 1700000000011, 1700000000012)",
        rusqlite::params![KEY, params],
    )
    .unwrap();
    c.execute_batch(
        "INSERT INTO tenders (cart_id, seq, kind, amount_minor, currency, payment_id, created_at_ms)
             VALUES (1, 1, 'card', 1200, 'jpy', 1, 1700000000010);
         INSERT INTO payment_timeline (payment_id, at_ms, kind, detail) VALUES (1, 1700000000012, 'note', 'from before');
         INSERT INTO processed_events (event_id, event_type, payment_id, applied_at_ms, effect)
             VALUES ('evt_old', 'payment_intent.succeeded', 1, 1700000000013, 'authorizing -> captured');
         INSERT INTO journal (event_id, payment_id, at_ms, account, amount_minor, currency, memo)
             VALUES ('evt_old', 1, 1700000000013, 'sales', 1200, 'jpy', 'old');",
    )
    .unwrap();
    // The version before cannot hold the new state.
    let refused = c.execute("UPDATE payments SET state = 'on_reader' WHERE id = 1", []);
    assert!(refused.is_err(), "the old CHECK refuses on_reader");
}

#[test]
fn the_upgrade_keeps_every_payment_and_reference_and_accepts_on_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    write_old_file(&path);
    let outbox_before: i64 = {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.query_row("SELECT count(*) FROM outbox", [], |r| r.get(0)).unwrap()
    };

    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let p = l.payments().by_key(KEY).unwrap().unwrap();
    assert_eq!((p.id, p.state, p.psp_payment_id.as_deref(), p.amount.amount_minor), (PaymentId(1), PaymentState::Captured, Some("pi_old"), 1200));
    assert_eq!((p.created_at_ms, p.first_attempt_at_ms, p.updated_at_ms), (1_700_000_000_010, Some(1_700_000_000_011), 1_700_000_000_012));
    assert_eq!(l.payments().timeline(p.id).unwrap().len(), 1);
    let c = l.connection();
    let fk: i64 = c.query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
    assert_eq!(fk, 1, "foreign keys are back on after the upgrade");
    let broken: i64 = c.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0)).unwrap();
    assert_eq!(broken, 0, "every reference to payments still resolves");
    let outbox_after: i64 = c.query_row("SELECT count(*) FROM outbox", [], |r| r.get(0)).unwrap();
    assert_eq!(outbox_after, outbox_before, "the rebuild wrote no outbox row");
    for idx in ["payments_by_state", "payments_by_cart"] {
        let n: i64 = c.query_row("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1", [idx], |r| r.get(0)).unwrap();
        assert_eq!(n, 1, "{idx}");
    }

    // A reader payment after the upgrade: its creation and its move to on_reader go to
    // the outbox (the recreated triggers).
    let rp = l.card_readers_mut().create_payment(Money::new(800, Currency::Jpy), "tmr_front", CaptureMethod::Automatic, 1_700_000_001_000).unwrap();
    let begun = l.card_readers_mut().begin_attempt(rp.id, "pi_new", &[], false, 1_700_000_001_001).unwrap();
    assert!(matches!(begun, BeginAttempt::New(_)), "{begun:?}");
    assert_eq!(l.payments().by_id(rp.id).unwrap().state, PaymentState::OnReader);
    let facts: Vec<String> = l
        .connection()
        .prepare("SELECT fact FROM outbox WHERE seq > ?1 ORDER BY seq")
        .unwrap()
        .query_map([outbox_before], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(facts.iter().any(|f| f.contains("\"payment_created\"")), "{facts:?}");
    assert!(facts.iter().any(|f| f.contains("\"on_reader\"")), "{facts:?}");
}

fn fresh() -> (tempfile::TempDir, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let l = Ledger::open(dir.path().join("l.db")).unwrap();
    (dir, l)
}

#[test]
fn one_attempt_at_a_time_the_next_only_on_a_persons_request_on_the_same_intent() {
    let (_d, mut l) = fresh();
    let t = 1_700_000_000_000;
    let before = l.commit_count();
    let p = l.card_readers_mut().create_payment(Money::new(1500, Currency::Usd), "tmr_1", CaptureMethod::Automatic, t).unwrap();
    assert_eq!(p.state, PaymentState::Created);
    assert!(p.request_params.0.contains(&("payment_method_types[]".to_string(), "card_present".to_string())));
    assert!(!p.request_params.0.iter().any(|(k, _)| k == "confirm" || k == "payment_method"), "no confirm, no payment method");
    let BeginAttempt::New(a1) = l.card_readers_mut().begin_attempt(p.id, "pi_1", &[], false, t + 1).unwrap() else { panic!("attempt 1") };
    assert_eq!((a1.attempt_no, a1.idempotency_key.clone(), a1.outcome), (1, process_key(&p.idempotency_key, 1), ReaderAttemptOutcome::Sent));
    assert_eq!(l.commit_count() - before, 2, "the key, then the intent with attempt 1");
    // Pressed again while it may run: the same attempt, never a second one.
    assert!(matches!(l.card_readers_mut().begin_attempt(p.id, "pi_1", &[], true, t + 2).unwrap(), BeginAttempt::Running(a) if a.attempt_no == 1));
    // Another intent for this checkout is refused and writes nothing.
    let commits = l.commit_count();
    assert!(matches!(l.card_readers_mut().begin_attempt(p.id, "pi_other", &[], true, t + 3), Err(Error::ReaderIntentMismatch { .. })));
    assert_eq!(l.commit_count(), commits);

    // Declined: not charged, still on the reader; the next attempt needs a person.
    let declined = ReaderSettlement {
        to: None,
        attempt: Some((1, ReaderAttemptOutcome::Declined, Some("card_declined".into()), None)),
        details: None,
        note: "declined".into(),
    };
    assert_eq!(l.card_readers_mut().settle(p.id, &declined, t + 4).unwrap().state, PaymentState::OnReader);
    assert!(matches!(l.card_readers_mut().begin_attempt(p.id, "pi_1", &[], false, t + 5).unwrap(), BeginAttempt::NeedsPerson(_)));
    let BeginAttempt::New(a2) = l.card_readers_mut().begin_attempt(p.id, "pi_1", &[], true, t + 6).unwrap() else { panic!("attempt 2") };
    assert_eq!(a2.idempotency_key, process_key(&p.idempotency_key, 2));

    // Paid with the card's details; the details are stored once (first answer kept).
    let details = CardPresentDetails { brand: Some("visa".into()), last4: Some("4242".into()), dedicated_file_name: Some("A0000000031010".into()), ..Default::default() };
    let paid = ReaderSettlement { to: Some(PaymentState::Captured), attempt: Some((2, ReaderAttemptOutcome::Succeeded, None, None)), details: Some(details.clone()), note: "paid".into() };
    assert_eq!(l.card_readers_mut().settle(p.id, &paid, t + 7).unwrap().state, PaymentState::Captured);
    let mut other = details.clone();
    other.last4 = Some("0000".into());
    let again = ReaderSettlement { details: Some(other), ..paid };
    assert_eq!(l.card_readers_mut().settle(p.id, &again, t + 8).unwrap().state, PaymentState::Captured, "a repeat is a no-op");
    assert_eq!(l.card_readers().card_present_details(p.id).unwrap(), Some(details));
    let rp = l.card_readers().payment(p.id).unwrap().unwrap();
    let seen: Vec<(i64, ReaderAttemptOutcome)> = rp.attempts.iter().map(|a| (a.attempt_no, a.outcome)).collect();
    assert_eq!(seen, vec![(1, ReaderAttemptOutcome::Declined), (2, ReaderAttemptOutcome::Succeeded)]);
    assert!(matches!(l.card_readers_mut().begin_attempt(p.id, "pi_1", &[], true, t + 9).unwrap(), BeginAttempt::Succeeded(_)));
}

#[test]
fn a_reader_tender_is_pending_until_resolved_and_a_keyed_payment_is_not_a_reader_payment() {
    let (_d, mut l) = fresh();
    l.carts_mut().seed_catalog(&[NewProduct { sku: "TEA".into(), name: "Tea".into(), price: Money::new(350, Currency::Usd) }]).unwrap();
    let cart = l.carts_mut().create(Currency::Usd, 1).unwrap();
    l.carts_mut().add(cart, "TEA", 2, 1).unwrap();
    let ct = l.card_readers_mut().open_tender(cart, None, "tmr_1", CaptureMethod::Automatic, None, 2).unwrap();
    assert!(ct.is_new);
    assert_eq!(ct.tender.state, TenderState::Pending);
    // Pressed again: the same tender and key.
    let again = l.card_readers_mut().open_tender(cart, None, "tmr_1", CaptureMethod::Automatic, None, 3).unwrap();
    assert_eq!((again.is_new, again.payment.idempotency_key), (false, ct.payment.idempotency_key.clone()));
    // Another amount while it is unknown: refused without an override.
    assert!(matches!(l.card_readers_mut().open_tender(cart, Some(100), "tmr_1", CaptureMethod::Automatic, None, 4), Err(Error::TenderUnknownOutstanding { .. })));
    assert!(matches!(l.card_readers_mut().open_tender(cart, None, "bad id!", CaptureMethod::Automatic, None, 4), Err(Error::InvalidInput(_))));
    let keyed = l.payments_mut().create(&NewPayment { amount: Money::new(100, Currency::Usd), options: CheckoutOptions::card("pm_card_visa") }, 5).unwrap();
    assert_eq!(l.card_readers().payment(keyed.id).unwrap(), None);
    assert!(matches!(l.card_readers_mut().begin_attempt(keyed.id, "pi_9", &[], true, 6), Err(Error::NotAReaderPayment { .. })));
}
