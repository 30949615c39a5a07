//! Exchanges of a sale itself paid by an exchange credit (issue #29, record 0155, schema
//! v41). A mug paid by card is exchanged for two croissants: the croissants' worth is a
//! credit held by the mug's card payment, the rest refunded to it. One croissant is then
//! exchanged for a coffee: the croissants' sale has no tender of its own, so the new credit
//! is CARRIED ON from the first credit (`exchange_credit_carries`): the same yen, held now
//! by the second credit, still on the mug's card payment. Nothing is refunded twice; a
//! later return gives everything back to the FIRST sale's card payment, each refund under
//! its own key, never past what the payment took; a crash inside or after the second
//! exchange leaves one refund with its key and no second.

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::Returned;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC
/// Tax-included yen prices of the ja-JP demo store.
const COF_YEN: i64 = 250;
const CRO_YEN: i64 = 220;
const MUG_YEN: i64 = 1650;

fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

fn cart_of(l: &mut Ledger, sku: &str, q: i64, now: i64) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, now).unwrap();
    l.carts_mut().add(cart, sku, q, now).unwrap();
    cart
}

fn settle(l: &mut Ledger, refunds: &[(TenderId, Refund)], now: i64) {
    for (_, r) in refunds {
        l.refunds_mut().record_result(r.id, &format!("re_{}", r.id.0), RefundState::Succeeded, now).unwrap();
    }
}

/// What went back to a card payment (every refund not failed).
fn refunded_to(l: &Ledger, p: &Payment) -> i64 {
    count(l, &format!("SELECT COALESCE(SUM(amount_minor), 0) FROM refunds WHERE payment_id = {} AND state != 'failed'", p.id.0))
}

fn drawer(l: &Ledger) -> i64 {
    l.sales().expected_drawer().unwrap().iter().map(|(_, a)| a).sum()
}

fn back(line: usize, quantity: u32) -> Returned {
    Returned { line, quantity }
}

/// A mug paid by card, exchanged for two croissants: answers (mug sale, its payment,
/// croissants sale). The croissants are paid wholly by the credit; the rest of the mug's
/// worth is refunded to its card (settled).
fn mug_then_croissants(l: &mut Ledger) -> (CartId, Payment, CartId) {
    let mug = cart_of(l, "MUG-001", 1, AT);
    let t = l.sales_mut().open_card_tender(mug, None, &CheckoutOptions::card("pm_card_visa"), None, AT + 1).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", AT + 1).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Captured, "reply", AT + 1).unwrap();
    assert_eq!(l.sales().by_cart(mug).unwrap().state, SaleState::Paid);
    let cro = cart_of(l, "CRO-001", 2, AT + 10);
    let x = l.returns_mut().exchange(mug, &[back(0, 1)], cro, None, false, AT + 11).unwrap();
    assert_eq!(x.credit_minor, 2 * CRO_YEN);
    assert_eq!(x.new_sale.state, SaleState::Paid);
    assert_eq!(x.ret.card_refunds.len(), 1);
    assert_eq!(x.ret.card_refunds[0].1.amount.amount_minor, MUG_YEN - 2 * CRO_YEN);
    settle(l, &x.ret.card_refunds, AT + 12);
    (mug, t.payment, cro)
}

/// (1) and (2): the credit carries, nothing is refunded twice; then everything left comes
/// back, every yen to the mug's card payment, each refund under its own key, never past it.
#[test]
fn a_credit_paid_sale_exchanged_again_carries_its_credit_and_everything_goes_back_to_the_first_card_once() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(41))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let (mug, pay, cro) = mug_then_croissants(&mut l);
    let before = count(&l, "SELECT count(*) FROM refunds");

    // One croissant for a coffee: 220 of credit carried on, 30 paid in cash.
    let cof = cart_of(&mut l, "COF-001", 1, AT + 20);
    let x = l.returns_mut().exchange(cro, &[back(0, 1)], cof, None, false, AT + 21).unwrap();
    assert_eq!(x.credit_minor, CRO_YEN);
    assert!(x.ret.card_refunds.is_empty(), "nothing is given back: all of it pays the coffee");
    assert_eq!(x.ret.cash_out_minor, 0);
    assert_eq!(count(&l, "SELECT count(*) FROM refunds"), before, "no refund made by the carry");
    assert_eq!(x.new_sale.totals.due_minor, COF_YEN - CRO_YEN);
    l.sales_mut().pay_cash(cof, COF_YEN - CRO_YEN, None, AT + 22).unwrap();
    assert_eq!(l.sales().by_cart(cof).unwrap().state, SaleState::Paid);
    // The carry: from the first credit, to the second exchange, on the mug's card tender.
    let mug_card = l.sales().by_cart(mug).unwrap().tenders[0].id.0;
    assert_eq!(count(&l, "SELECT amount_minor FROM exchange_credit_carries"), CRO_YEN);
    assert_eq!(count(&l, &format!("SELECT tender_id FROM exchange_credits WHERE exchange_id = {}", x.exchange_id)), mug_card);
    // Held once: the card's refunds plus what its credits still hold is what it paid.
    assert_eq!(refunded_to(&l, &pay) + 2 * CRO_YEN, MUG_YEN);
    // A refund by hand of the mug's payment (Payments → Refund) leaves what the credits hold:
    // that money pays the croissant and the coffee now (record 0158). Nothing is written.
    let e = l.refunds_mut().create(pay.id, 1, None, AT + 23).unwrap_err();
    assert!(matches!(e, Error::RefundExceedsCaptured { refundable_minor: 0, .. }), "{e:?}");
    assert_eq!(count(&l, "SELECT count(*) FROM refunds"), before, "no refund written");
    // ...and the room the Payments screen shows says so before anything is pressed (record 0160).
    let room = l.refunds().room(pay.id).unwrap();
    assert_eq!((room.refundable_minor, room.held_minor), (0, 2 * CRO_YEN));
    // The croissants' sale has 220 left to give back (its first credit, less the carry).
    let e = l.sales_mut().plan_refund(cro, Some(CRO_YEN + 1), None, AT + 23).unwrap_err();
    assert!(matches!(e, Error::SaleRefundExceeds { refundable_minor: CRO_YEN, .. }), "{e:?}");
    // The mug is back already: nothing more of it may go back.
    let e = l.sales_mut().plan_refund(mug, Some(1), None, AT + 23).unwrap_err();
    assert!(matches!(e, Error::SaleRefundExceeds { refundable_minor: 0, .. } | Error::SaleNotPaid { .. }), "{e:?}");

    // (2) The rest comes back: the other croissant (through the first credit), then the
    // coffee (its own 30 in cash, then through the carried credit): both card refunds on
    // the mug's payment, each with its own key, 1,650 in all.
    let r1 = l.returns_mut().take_back(cro, &[back(0, 1)], None, false, AT + 30).unwrap();
    assert_eq!(r1.card_refunds.iter().map(|(_, r)| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(pay.id, CRO_YEN)]);
    settle(&mut l, &r1.card_refunds, AT + 31);
    let r2 = l.returns_mut().take_back(cof, &[back(0, 1)], None, false, AT + 32).unwrap();
    assert_eq!(r2.cash_out_minor, COF_YEN - CRO_YEN);
    assert_eq!(r2.card_refunds.iter().map(|(_, r)| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(pay.id, CRO_YEN)]);
    settle(&mut l, &r2.card_refunds, AT + 33);
    assert_eq!(refunded_to(&l, &pay), MUG_YEN, "the card got back exactly what it paid");
    let keys = count(&l, &format!("SELECT count(DISTINCT idempotency_key) FROM refunds WHERE payment_id = {}", pay.id.0));
    assert_eq!(keys, 3, "three refunds, three keys");
    assert_eq!(drawer(&l), 0, "the drawer moved by the coffee's 30 in and out");
    // Nothing is left anywhere: every further give-back is refused.
    for c in [mug, cro, cof] {
        assert!(l.sales_mut().plan_refund(c, Some(1), None, AT + 40).is_err());
    }
    assert_eq!(refunded_to(&l, &pay), MUG_YEN);
}

/// A third level carries on the same way: the coffee exchanged for a chocolate, its credit
/// carried from the second credit, still on the mug's card.
#[test]
fn a_third_exchange_carries_the_carried_credit_on_again() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(43))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let (_mug, pay, cro) = mug_then_croissants(&mut l);
    let cof = cart_of(&mut l, "COF-001", 1, AT + 20);
    l.returns_mut().exchange(cro, &[back(0, 2)], cof, None, false, AT + 21).map(|x| settle(&mut l, &x.ret.card_refunds, AT + 22)).unwrap();
    assert_eq!(refunded_to(&l, &pay), MUG_YEN - COF_YEN, "the croissants' 190 over the coffee went back to the card");
    let mug2 = cart_of(&mut l, "MUG-001", 1, AT + 30);
    let x = l.returns_mut().exchange(cof, &[back(0, 1)], mug2, None, false, AT + 31).unwrap();
    assert_eq!(x.credit_minor, COF_YEN);
    assert_eq!(count(&l, "SELECT count(*) FROM exchange_credit_carries"), 2);
    l.sales_mut().pay_cash(mug2, MUG_YEN - COF_YEN, None, AT + 32).unwrap();
    let r = l.returns_mut().take_back(mug2, &[back(0, 1)], None, false, AT + 40).unwrap();
    assert_eq!(r.cash_out_minor, MUG_YEN - COF_YEN);
    assert_eq!(r.card_refunds.iter().map(|(_, r)| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(pay.id, COF_YEN)]);
    settle(&mut l, &r.card_refunds, AT + 41);
    assert_eq!(refunded_to(&l, &pay), MUG_YEN);
    assert_eq!(drawer(&l), 0);
}

/// (3) A failure inside the second exchange's transaction (SQLite aborts its last write)
/// leaves nothing of it: no carry, no credit, no refund. A crash right after its commit,
/// before its card refund was sent, leaves that refund on file once with its key, to be
/// recovered under it; the exchange retried is refused; never a second refund.
#[test]
fn a_crash_inside_or_after_the_second_exchange_leaves_one_refund_with_its_key_and_no_second() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.db");
    let (pay, cro, cof, key) = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        let (_mug, pay, cro) = mug_then_croissants(&mut l);
        let cof = cart_of(&mut l, "COF-001", 1, AT + 20);
        // Inside: the exchange's last write (its fact's link) fails.
        l.connection()
            .execute_batch("CREATE TEMP TRIGGER die BEFORE INSERT ON exchanges_sent BEGIN SELECT RAISE(ABORT, 'power cut'); END;")
            .unwrap();
        let before = count(&l, "SELECT count(*) FROM refunds");
        assert!(l.returns_mut().exchange(cro, &[back(0, 2)], cof, None, false, AT + 21).is_err());
        assert_eq!(count(&l, "SELECT count(*) FROM refunds"), before);
        assert_eq!(count(&l, "SELECT count(*) FROM exchange_credit_carries"), 0);
        assert_eq!(count(&l, "SELECT count(*) FROM exchanges"), 1);
        assert!(l.sales().by_cart(cof).unwrap().exchange_credit.is_none());
        l.connection().execute_batch("DROP TRIGGER temp.die;").unwrap();
        // After: committed, then the process dies before the refund is requested.
        let x = l.returns_mut().exchange(cro, &[back(0, 2)], cof, None, false, AT + 22).unwrap();
        assert_eq!(x.ret.card_refunds.len(), 1);
        assert_eq!(x.ret.card_refunds[0].1.payment_id, pay.id, "the difference goes to the FIRST sale's card");
        assert_eq!(x.ret.card_refunds[0].1.amount.amount_minor, 2 * CRO_YEN - COF_YEN);
        (pay, cro, cof, x.ret.card_refunds[0].1.idempotency_key.clone())
    };
    let mut l = Ledger::open(&path).unwrap();
    let keys: Vec<String> = l.refunds().for_payment(pay.id).unwrap().into_iter().map(|r| r.idempotency_key).collect();
    assert_eq!(keys.len(), 2, "the first exchange's refund and this one: {keys:?}");
    assert_eq!(keys.iter().filter(|k| **k == key).count(), 1);
    assert!(l.refunds().needing_recovery().unwrap().iter().any(|r| r.idempotency_key == key), "recovery resolves it under its key");
    let again = l.returns_mut().exchange(cro, &[back(0, 2)], cof, None, false, AT + 30).unwrap_err();
    assert!(matches!(again, Error::ReturnExceedsSold { .. } | Error::ExchangeNewSaleRefused { .. }), "{again:?}");
    assert_eq!(l.refunds().for_payment(pay.id).unwrap().len(), 2, "never a second refund");
    // The unsure refund holds the card: the coffee back waits for it; once it is resolved
    // the coffee gives the carried 250 back, and the payment never gives back past 1,650.
    let busy = l.returns_mut().take_back(cof, &[back(0, 1)], None, false, AT + 35).unwrap_err();
    assert!(matches!(busy, Error::RefundInProgress { .. }), "{busy:?}");
    let unsure = l.refunds().by_key(&key).unwrap().unwrap();
    l.refunds_mut().record_result(unsure.id, "re_unsure", RefundState::Succeeded, AT + 36).unwrap();
    let r = l.returns_mut().take_back(cof, &[back(0, 1)], None, false, AT + 40).unwrap();
    assert_eq!(r.card_refunds.iter().map(|(_, r)| r.amount.amount_minor).sum::<i64>(), COF_YEN);
    assert_eq!(refunded_to(&l, &pay), MUG_YEN);
}

/// SQLite is the last word: a carry past what its credit holds, a carry to an exchange of
/// another sale, and a credit on another sale's tender without a carry are refused.
#[test]
fn sqlite_refuses_a_carry_past_its_credit_or_astray_and_an_uncarried_foreign_credit() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(47))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let (_mug, _pay, cro) = mug_then_croissants(&mut l);
    let cof = cart_of(&mut l, "COF-001", 1, AT + 20);
    let x = l.returns_mut().exchange(cro, &[back(0, 1)], cof, None, false, AT + 21).unwrap();
    l.sales_mut().pay_cash(cof, COF_YEN - CRO_YEN, None, AT + 22).unwrap();
    let cof_cash = l.sales().by_cart(cof).unwrap().tenders[0].id.0;
    let c = l.connection();
    let first: i64 = c.query_row("SELECT min(id) FROM exchange_credits", [], |r| r.get(0)).unwrap();
    // The first credit holds 440 - 220 = 220 now.
    let past = c.execute(
        "INSERT INTO exchange_credit_carries (from_credit, to_exchange_id, amount_minor) VALUES (?1, ?2, 221)",
        rusqlite::params![first, x.exchange_id],
    );
    assert!(past.unwrap_err().to_string().contains("carries more than it holds"));
    let first_exchange: i64 = c.query_row("SELECT min(id) FROM exchanges", [], |r| r.get(0)).unwrap();
    let astray = c.execute(
        "INSERT INTO exchange_credit_carries (from_credit, to_exchange_id, amount_minor) VALUES (?1, ?2, 1)",
        rusqlite::params![first, first_exchange],
    );
    assert!(astray.is_err());
    // The second exchange's old sale is the croissants': the coffee's cash is another sale's.
    let uncarried = c.execute(
        "INSERT INTO exchange_credits (exchange_id, tender_id, amount_minor) VALUES (?1, ?2, 1)",
        rusqlite::params![x.exchange_id, cof_cash],
    );
    assert!(uncarried.unwrap_err().to_string().contains("beyond what was carried"));
    // A give-back past what the first credit holds after its carry.
    let refund: i64 = c.query_row("SELECT max(id) FROM refunds", [], |r| r.get(0)).unwrap();
    let over = c.execute(
        "INSERT INTO exchange_credit_returns (credit_id, amount_minor, refund_id) VALUES (?1, 221, ?2)",
        rusqlite::params![first, refund],
    );
    assert!(over.unwrap_err().to_string().contains("gives back more than it holds"));
}

/// Schema v41: a v40 file holding an exchange (the mug for the croissants, its credit on the
/// mug's card) is upgraded in place in one step; the croissants can then be exchanged again,
/// the credit carried on; and the new triggers stand.
#[test]
fn the_upgrade_from_v40_keeps_an_exchange_and_carries_its_credit_on() {
    let v41 = paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("CREATE TABLE IF NOT EXISTS exchange_credit_carries"))
        .expect("the carries migration");
    let v25 = paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("CREATE TABLE IF NOT EXISTS exchange_credits"))
        .expect("the exchanges migration");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v40.db");
    let (pay, cro) = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        let (_mug, pay, cro) = mug_then_croissants(&mut l);
        (pay, cro)
    };
    {
        // Rolled back to v40: the table and triggers of v41 gone, v25's triggers as they were.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "DROP TRIGGER exchange_credit_carries_within_credit; DROP TRIGGER exchange_credits_carried;
             DROP TRIGGER exchange_credits_within_paid; DROP TRIGGER exchange_credit_returns_within_credit;
             DROP TABLE exchange_credit_carries;",
        )
        .unwrap();
        c.execute_batch(paydesk_ledger::schema::MIGRATIONS[v25]).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {v41};")).unwrap();
        let old: String =
            c.query_row("SELECT sql FROM sqlite_schema WHERE name = 'exchange_credits_within_paid'", [], |r| r.get(0)).unwrap();
        assert!(!old.contains("exchange_credit_carries"));
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    assert_eq!(count(&l, "SELECT count(*) FROM exchanges"), 1);
    for trigger in ["exchange_credits_within_paid", "exchange_credit_returns_within_credit"] {
        let sql: String =
            l.connection().query_row("SELECT sql FROM sqlite_schema WHERE name = ?1", [trigger], |r| r.get(0)).unwrap();
        assert!(sql.contains("exchange_credit_carries"), "{trigger} counts carries");
    }
    let cof = cart_of(&mut l, "COF-001", 1, AT + 20);
    let x = l.returns_mut().exchange(cro, &[back(0, 2)], cof, None, false, AT + 21).unwrap();
    assert_eq!(x.credit_minor, COF_YEN);
    assert_eq!(count(&l, "SELECT count(*) FROM exchange_credit_carries"), 1);
    settle(&mut l, &x.ret.card_refunds, AT + 22);
    let r = l.returns_mut().take_back(cof, &[back(0, 1)], None, false, AT + 30).unwrap();
    settle(&mut l, &r.card_refunds, AT + 31);
    assert_eq!(refunded_to(&l, &pay), MUG_YEN);
}
