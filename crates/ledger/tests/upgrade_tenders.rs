//! Schema v3 -> v4 (record 0028: tenders, cash movements, cash rounding, sale cancels):
//! a ledger written before the upgrade — carts paid by one card, a decline followed by
//! another card, an override that left an earlier payment behind, a payment queued
//! offline, a payment without a cart, a refund in flight — gets one card tender per cart
//! payment in the migration's own transaction, and stays readable and refundable.

use std::path::Path;

use paydesk_ledger::schema::MIGRATIONS;
use paydesk_domain::*;
use paydesk_ledger::*;

fn params_json(amount: i64, key: &str) -> String {
    format!(
        r#"[["amount","{amount}"],["currency","usd"],["payment_method","pm_card_visa"],["confirm","true"],["capture_method","automatic"],["metadata[checkout_key]","{key}"]]"#
    )
}

/// (id, key, cart, amount, state, PSP id, offline)
type Row = (i64, &'static str, Option<i64>, i64, &'static str, Option<&'static str>, i64);

/// A v3 file as a v3 build left it.
fn write_v3_file(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
    for m in &MIGRATIONS[..3] {
        c.execute_batch(m).unwrap();
    }
    c.execute_batch(
        "PRAGMA user_version = 3;
         INSERT INTO products (id, sku, name, price_minor, currency) VALUES (1, 'COF', 'Coffee', 500, 'usd');
         INSERT INTO carts (id, currency, state, created_at_ms, updated_at_ms) VALUES
             (1, 'usd', 'paid', 1, 1), (2, 'usd', 'paid', 1, 1), (3, 'usd', 'paid', 1, 1), (4, 'usd', 'paid', 1, 1),
             (5, 'usd', 'locked', 1, 1);
         INSERT INTO cart_lines (cart_id, product_id, quantity, unit_price_minor) VALUES
             (1, 1, 2, 500), (2, 1, 1, 500), (3, 1, 1, 500), (4, 1, 1, 500), (5, 1, 1, 500);",
    )
    .unwrap();
    let rows: [Row; 8] = [
        (1, "k1-paid-then-refunding", Some(1), 1000, "refunding", Some("pi_1"), 0),
        (2, "k2-declined", Some(2), 500, "failed", Some("pi_2"), 0),
        (3, "k3-after-decline", Some(2), 500, "captured", Some("pi_3"), 0),
        (4, "k4-left-behind", Some(3), 500, "authorizing", None, 0),
        (5, "k5-override", Some(3), 500, "captured", Some("pi_5"), 0),
        (6, "k6-offline", Some(4), 500, "queued_offline", None, 1),
        (7, "k7-no-cart", None, 700, "captured", Some("pi_7"), 0),
        (8, "k8-pending", Some(5), 500, "authorizing", None, 0),
    ];
    for (id, key, cart, amount, state, psp, offline) in rows {
        c.execute(
            "INSERT INTO payments (id, idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method,
                 request_params, cart_id, offline, created_at_ms, first_attempt_at_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, 'usd', ?5, 'automatic', ?6, ?7, ?8, ?1, ?1, ?1)",
            rusqlite::params![id, key, psp, amount, state, params_json(amount, key), cart, offline],
        )
        .unwrap();
    }
    c.execute(
        "INSERT INTO refunds (id, idempotency_key, payment_id, amount_minor, currency, state, request_params,
             created_at_ms, updated_at_ms)
         VALUES (1, 'r1', 1, 400, 'usd', 'in_flight', '[[\"payment_intent\",\"pi_1\"],[\"amount\",\"400\"]]', 20, 20)",
        [],
    )
    .unwrap();
    c.execute("INSERT INTO payment_successors (previous_id, next_id, created_at_ms) VALUES (2, 3, 3)", []).unwrap();
}

#[test]
fn a_v3_ledger_gets_one_card_tender_per_cart_payment_and_stays_refundable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v3.db");
    write_v3_file(&path);
    let mut l = Ledger::open_with_keys(&path, Box::new(SeededKeys::new(3))).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);

    let n: i64 = l.connection().query_row("SELECT count(*) FROM tenders", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 7, "one tender per payment with a cart, none for the cart-less one");

    // Paid by one card, with a refund in flight: paid, one settled tender for the total.
    let s1 = l.sales().by_cart(CartId(1)).unwrap();
    assert_eq!((s1.state, s1.totals.settled_minor, s1.totals.due_minor), (SaleState::Paid, 1000, 0));
    assert_eq!(s1.tenders.len(), 1);
    assert_eq!((s1.tenders[0].kind, s1.tenders[0].state, s1.tenders[0].seq), (TenderKind::Card, TenderState::Settled, 1));

    // Declined then paid by another card: two tenders, the first void.
    let s2 = l.sales().by_cart(CartId(2)).unwrap();
    let states: Vec<TenderState> = s2.tenders.iter().map(|t| t.state).collect();
    assert_eq!(states, [TenderState::Void, TenderState::Settled]);
    assert_eq!((s2.state, s2.totals.due_minor), (SaleState::Paid, 0));

    // An override left a payment in flight behind: superseded, never counted twice.
    let s3 = l.sales().by_cart(CartId(3)).unwrap();
    assert_eq!(s3.tenders[0].standing, TenderStanding::Superseded);
    assert_eq!(s3.tenders[0].state, TenderState::Superseded);
    assert_eq!((s3.state, s3.totals.settled_minor), (SaleState::Paid, 500));

    // Queued offline: counts as settled until forwarded.
    let s4 = l.sales().by_cart(CartId(4)).unwrap();
    assert_eq!((s4.state, s4.tenders[0].state), (SaleState::Paid, TenderState::Offline));
    // A card pending from before: its sale is partially paid and refuses a second tender.
    let s5 = l.sales().by_cart(CartId(5)).unwrap();
    assert_eq!((s5.state, s5.tenders[0].state), (SaleState::PartiallyPaid, TenderState::Pending));
    assert!(matches!(l.sales_mut().pay_cash(CartId(5), 500, None, 50), Err(Error::TenderUnknownOutstanding { .. })));

    // Still readable and refundable: the in-flight refund settles, then the rest refunds.
    let p1 = l.payments().by_key("k1-paid-then-refunding").unwrap().unwrap();
    l.refunds_mut().record_result(RefundId(1), "re_1", RefundState::Succeeded, 60).unwrap();
    assert_eq!(l.payments().by_id(p1.id).unwrap().state, PaymentState::PartiallyRefunded);
    let r = l.refunds_mut().create(p1.id, 600, None, 61).unwrap();
    assert_eq!(r.amount.amount_minor, 600);
    let p7 = l.payments().by_key("k7-no-cart").unwrap().unwrap();
    assert!(l.refunds_mut().create(p7.id, 700, None, 62).is_ok(), "a payment without a cart is refundable as before");
    assert_eq!(l.sales().by_cart(CartId(1)).unwrap().state, SaleState::Paid, "a refund is a return, the sale stays paid");

    // The offline one declined at forwarding reopens its sale's balance.
    let p6 = l.payments().by_key("k6-offline").unwrap().unwrap();
    l.payments_mut().transition(p6.id, PaymentState::QueuedOffline, PaymentState::Authorizing, "forwarded", 70).unwrap();
    assert_eq!(l.sales().by_cart(CartId(4)).unwrap().state, SaleState::Paid, "being forwarded still counts");
    l.payments_mut().transition(p6.id, PaymentState::Authorizing, PaymentState::Failed, "declined", 71).unwrap();
    let s4 = l.sales().by_cart(CartId(4)).unwrap();
    assert_eq!((s4.state, s4.totals.due_minor, s4.cart.state), (SaleState::UnpaidBalance, 500, CartState::Locked));
    let day = l.sales().tender_day(0).unwrap();
    assert_eq!(day.unpaid_balances.len(), 1);
    assert_eq!(day.unpaid_balances[0].cart_id, CartId(4));
    // ... and is collected in cash.
    let cash = l.sales_mut().pay_cash(CartId(4), 1000, None, 72).unwrap();
    assert_eq!((cash.split.change_minor, cash.sale.state), (500, SaleState::Paid));
}

#[test]
fn a_failed_v4_upgrade_leaves_the_v3_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v3.db");
    write_v3_file(&path);
    {
        // A table of the new version already there: the migration fails half way.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE sale_cancels (x INTEGER)").unwrap();
    }
    assert!(Ledger::open(&path).is_err());
    let c = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(v, 3);
    let t: i64 = c.query_row("SELECT count(*) FROM sqlite_schema WHERE name = 'tenders'", [], |r| r.get(0)).unwrap();
    assert_eq!(t, 0, "the tenders table made before the failure was rolled back");
}
