//! Exchanges (issue #29, record 0123, schema v25): goods of a paid sale come back and
//! their worth pays a new sale. The difference is one payment (the new sale's due) or one
//! refund (cards first); the credit comes out of the old sale's tenders and stays there,
//! so a later return of the new sale gives it back through the OLD card payment and the
//! old cash, never more than any tender paid; refusals write nothing; SQLite refuses a
//! credit past a tender; the upgrade from the file before v25 keeps a paid sale
//! exchangeable.

use paydesk_domain::*;
use paydesk_ledger::schema::SCHEMA_VERSION;
use paydesk_ledger::*;
use paydesk_tax::Returned;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC
/// Tax-included yen prices of the ja-JP demo store.
const COF_YEN: i64 = 250;
const CRO_YEN: i64 = 220;
const MUG_YEN: i64 = 1650;
/// Lines in SKU order of [`old_sale`].
const MUG: usize = 2;

fn store() -> Ledger {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(11))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

fn cart_of(l: &mut Ledger, lines: &[(&str, i64)]) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    for (sku, q) in lines {
        l.carts_mut().add(cart, sku, *q, AT).unwrap();
    }
    cart
}

fn card(l: &mut Ledger, cart: CartId, amount: i64, now: i64) -> Payment {
    let t = l.sales_mut().open_card_tender(cart, Some(amount), &CheckoutOptions::card("pm_card_visa"), None, now).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", now).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Captured, "reply", now).unwrap();
    t.payment
}

/// COF ×2, CRO ×3, MUG ×1 = 2,810 yen: 1,000 by card, 1,810 in cash.
fn old_sale(l: &mut Ledger) -> (CartId, Payment) {
    let cart = cart_of(l, &[("COF-001", 2), ("CRO-001", 3), ("MUG-001", 1)]);
    assert_eq!(l.sales().by_cart(cart).unwrap().cart.total.amount_minor, 2 * COF_YEN + 3 * CRO_YEN + MUG_YEN);
    let p = card(l, cart, 1000, AT + 1);
    l.sales_mut().pay_cash(cart, 2 * COF_YEN + 3 * CRO_YEN + MUG_YEN - 1000, None, AT + 2).unwrap();
    (cart, p)
}

fn settle(l: &mut Ledger, refunds: &[(TenderId, Refund)], now: i64) {
    for (_, r) in refunds {
        l.refunds_mut().record_result(r.id, &format!("re_{}", r.id.0), RefundState::Succeeded, now).unwrap();
    }
}

fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

fn drawer(l: &Ledger) -> i64 {
    l.sales().expected_drawer().unwrap().iter().map(|(_, a)| a).sum()
}

/// What went back to a card payment (every refund not failed).
fn refunded_to(l: &Ledger, p: &Payment) -> i64 {
    count(l, &format!("SELECT COALESCE(SUM(amount_minor), 0) FROM refunds WHERE payment_id = {} AND state != 'failed'", p.id.0))
}

fn credits(l: &Ledger, exchange: i64) -> Vec<(i64, i64)> {
    let mut s = l
        .connection()
        .prepare("SELECT tender_id, amount_minor FROM exchange_credits WHERE exchange_id = ?1 ORDER BY id")
        .unwrap();
    s.query_map([exchange], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn a_mug_exchanged_for_two_mugs_leaves_one_payment_of_the_difference() {
    let mut l = store();
    let (old, _) = old_sale(&mut l);
    let new = cart_of(&mut l, &[("MUG-001", 2)]);
    let cash = drawer(&l);

    let x = l.returns_mut().exchange(old, &[Returned { line: MUG, quantity: 1 }], new, Some("wants two"), false, AT + 10).unwrap();
    assert_eq!(x.credit_minor, MUG_YEN);
    assert_eq!((x.ret.record.total_minor, x.ret.card_refunds.len(), x.ret.cash_out_minor), (MUG_YEN, 0, 0), "nothing given back");
    assert!(x.ret.record.tenders.is_empty(), "{:?}", x.ret.record.tenders);
    assert_eq!(x.new_sale.state, SaleState::PartiallyPaid);
    assert_eq!(x.new_sale.totals.due_minor, 2 * MUG_YEN - MUG_YEN);
    let credit = x.new_sale.exchange_credit.clone().unwrap();
    assert_eq!((credit.old_cart_id, credit.amount_minor, credit.return_number.as_str()), (old, MUG_YEN, format!("{:06}-R1", old.0).as_str()));
    // Out of the old sale's card first (all 1,000 of it), the rest out of its cash.
    let old_tenders = l.sales().by_cart(old).unwrap().tenders;
    assert_eq!(credits(&l, x.exchange_id), vec![(old_tenders[0].id.0, 1000), (old_tenders[1].id.0, MUG_YEN - 1000)]);
    assert_eq!(drawer(&l), cash, "no money moved");
    assert_eq!(count(&l, "SELECT count(*) FROM refunds"), 0);

    // The difference is one card payment; the new sale is paid by it and the credit.
    let p = card(&mut l, new, MUG_YEN, AT + 11);
    let sale = l.sales().by_cart(new).unwrap();
    assert_eq!((sale.state, sale.totals.settled_minor, p.amount.amount_minor), (SaleState::Paid, 2 * MUG_YEN, MUG_YEN));
    let audit = l.audit().log().unwrap();
    assert!(audit.iter().any(|e| e.action == "sale_exchange"), "{audit:?}");
    assert!(audit.iter().any(|e| e.action == "sale_return" && e.reason == "wants two"));
    assert!(l.audit().verify(None).unwrap().is_intact());
    // The old sale has exactly what it did not credit left to give back: its cash less 650.
    let e = l.sales_mut().plan_refund(old, Some(2 * COF_YEN + 3 * CRO_YEN + 1), None, AT + 12).unwrap_err();
    assert!(matches!(e, Error::SaleRefundExceeds { refundable_minor, .. } if refundable_minor == 2 * COF_YEN + 3 * CRO_YEN), "{e:?}");
}

#[test]
fn goods_worth_more_than_the_new_sale_pay_it_and_the_rest_is_one_refund_to_the_card_first() {
    let mut l = store();
    let (old, old_card) = old_sale(&mut l);
    let new = cart_of(&mut l, &[("COF-001", 1)]);
    let cash = drawer(&l);

    let x = l.returns_mut().exchange(old, &[Returned { line: MUG, quantity: 1 }], new, None, false, AT + 10).unwrap();
    // 250 pays the coffee (out of the card); 1,400 goes back: the card's other 750, then 650 cash.
    assert_eq!(x.credit_minor, COF_YEN);
    assert_eq!(x.new_sale.state, SaleState::Paid, "paid by the credit alone");
    assert!(x.new_sale.tenders.is_empty());
    assert_eq!(x.ret.card_refunds.iter().map(|(_, r)| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(old_card.id, 750)]);
    assert_eq!(x.ret.cash_out_minor, MUG_YEN - COF_YEN - 750);
    assert_eq!(drawer(&l), cash - (MUG_YEN - COF_YEN - 750));
    let given: i64 = x.ret.record.tenders.iter().map(|t| t.amount_minor).sum();
    assert_eq!(given + x.credit_minor, x.ret.record.total_minor, "the return's worth = given back + credit");
    settle(&mut l, &x.ret.card_refunds, AT + 11);
    assert_eq!(refunded_to(&l, &old_card), 750);

    // The coffee comes back too: its 250 was the old card's, so it goes back to that card.
    let back = l.returns_mut().take_back(new, &[Returned { line: 0, quantity: 1 }], None, false, AT + 12).unwrap();
    assert_eq!(back.card_refunds.iter().map(|(_, r)| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(old_card.id, COF_YEN)]);
    assert_eq!(back.cash_out_minor, 0);
    settle(&mut l, &back.card_refunds, AT + 13);
    assert_eq!(refunded_to(&l, &old_card), 1000, "the old card got back exactly what it paid");
    let e = l.sales_mut().plan_refund(new, None, None, AT + 14).unwrap_err();
    assert!(matches!(e, Error::SaleRefundExceeds { refundable_minor: 0, .. }), "{e:?}");
}

#[test]
fn a_later_return_of_the_new_sale_gives_its_credit_back_to_the_old_card_and_cash_never_more() {
    let mut l = store();
    let (old, old_card) = old_sale(&mut l);
    let new = cart_of(&mut l, &[("MUG-001", 2)]);
    let x = l.returns_mut().exchange(old, &[Returned { line: MUG, quantity: 1 }], new, None, false, AT + 10).unwrap();
    let new_card = card(&mut l, new, MUG_YEN, AT + 11);
    let cash = drawer(&l);

    // Both mugs back: the new sale's own card first, then the credit, card before cash.
    let back = l.returns_mut().take_back(new, &[Returned { line: 0, quantity: 2 }], None, false, AT + 12).unwrap();
    let to: Vec<_> = back.card_refunds.iter().map(|(_, r)| (r.payment_id, r.amount.amount_minor)).collect();
    assert_eq!(to, [(new_card.id, MUG_YEN), (old_card.id, 1000)]);
    assert_eq!(back.cash_out_minor, MUG_YEN - 1000);
    assert_eq!(drawer(&l), cash - (MUG_YEN - 1000));
    let old_cash_tender = l.sales().by_cart(old).unwrap().tenders[1].id;
    let out_of_old: i64 = count(&l, &format!("SELECT -SUM(amount_minor) FROM cash_movements WHERE kind = 'refund_out' AND tender_id = {}", old_cash_tender.0));
    assert_eq!(out_of_old, MUG_YEN - 1000, "the cash goes out against the old sale's cash tender");
    assert_eq!(count(&l, &format!("SELECT SUM(x.amount_minor) FROM exchange_credit_returns x JOIN exchange_credits c ON c.id = x.credit_id WHERE c.exchange_id = {}", x.exchange_id)), MUG_YEN);
    settle(&mut l, &back.card_refunds, AT + 13);

    // The rest of the old sale comes back in its cash: exactly what its cash paid, in all.
    let rest = l.returns_mut().take_back(old, &[Returned { line: 0, quantity: 2 }, Returned { line: 1, quantity: 3 }], None, false, AT + 14).unwrap();
    assert_eq!((rest.card_refunds.len(), rest.cash_out_minor), (0, 2 * COF_YEN + 3 * CRO_YEN));
    let old_cash_out: i64 = count(&l, &format!("SELECT -SUM(amount_minor) FROM cash_movements WHERE kind = 'refund_out' AND cart_id = {}", old.0));
    assert_eq!(old_cash_out, 2 * COF_YEN + 3 * CRO_YEN + MUG_YEN - 1000, "the old cash tender paid 1,810 and gave back 1,810");
    assert_eq!((refunded_to(&l, &old_card), refunded_to(&l, &new_card)), (1000, MUG_YEN));
    assert_eq!(drawer(&l), cash - (2 * COF_YEN + 3 * CRO_YEN + MUG_YEN - 1000));
    // Nothing is left anywhere.
    for cart in [old, new] {
        let e = l.sales_mut().plan_refund(cart, Some(1), None, AT + 15).unwrap_err();
        assert!(matches!(e, Error::SaleRefundExceeds { refundable_minor: 0, .. }), "{e:?}");
    }
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn refusals_write_nothing() {
    let mut l = store();
    let (old, _) = old_sale(&mut l);
    let mug = [Returned { line: MUG, quantity: 1 }];
    let paid = cart_of(&mut l, &[("COF-001", 1)]);
    l.sales_mut().pay_cash(paid, COF_YEN, None, AT + 3).unwrap();
    let empty = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    let new = cart_of(&mut l, &[("MUG-001", 2)]);
    let (commits, audit) = (l.commit_count(), l.audit().log().unwrap().len());

    let e = l.returns_mut().exchange(old, &mug, paid, None, false, AT + 4).unwrap_err();
    assert!(matches!(e, Error::SaleComplete { .. }), "{e:?}");
    let e = l.returns_mut().exchange(old, &mug, empty, None, false, AT + 4).unwrap_err();
    assert!(matches!(e, Error::EmptyCart(_)), "{e:?}");
    let e = l.returns_mut().exchange(old, &mug, old, None, false, AT + 4).unwrap_err();
    assert!(matches!(e, Error::ExchangeNewSaleRefused { .. }), "{e:?}");
    let e = l.returns_mut().exchange(old, &[Returned { line: MUG, quantity: 2 }], new, None, false, AT + 4).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { .. }), "{e:?}");
    let e = l.returns_mut().exchange(new, &mug, old, None, false, AT + 4).unwrap_err();
    assert!(matches!(e, Error::SaleNotPaid { .. }), "{e:?}");
    assert_eq!((l.commit_count(), l.audit().log().unwrap().len()), (commits, audit), "nothing written");

    // One credit per new sale; and a sale holding one is not canceled (its goods' old
    // sale already took them back) until it is paid and returned.
    l.returns_mut().exchange(old, &mug, new, None, false, AT + 5).unwrap();
    let e = l.returns_mut().exchange(old, &[Returned { line: 0, quantity: 1 }], new, None, false, AT + 6).unwrap_err();
    assert!(matches!(e, Error::ExchangeNewSaleRefused { why: "it holds another exchange's credit", .. }), "{e:?}");
    let e = l.sales_mut().begin_cancel(new, "changed mind", AT + 7, &|_| true).unwrap_err();
    assert!(matches!(e, Error::ExchangeCreditHeld { .. }), "{e:?}");
    assert_eq!(l.sales().by_cart(new).unwrap().state, SaleState::PartiallyPaid);
    // The new sale's lines are locked under the credit: its total cannot fall below it.
    assert!(l.carts_mut().add(new, "COF-001", 1, AT + 8).is_err());
}

#[test]
fn sqlite_refuses_a_credit_past_what_a_tender_paid() {
    let mut l = store();
    let (old, _) = old_sale(&mut l);
    let new = cart_of(&mut l, &[("MUG-001", 2)]);
    let x = l.returns_mut().exchange(old, &[Returned { line: MUG, quantity: 1 }], new, None, false, AT + 10).unwrap();
    let card_tender = l.sales().by_cart(old).unwrap().tenders[0].id.0;
    let e = l
        .connection()
        .execute(
            "INSERT INTO exchange_credits (exchange_id, tender_id, amount_minor) SELECT ?1, id, 1 FROM tenders WHERE id = ?2",
            [x.exchange_id + 1000, card_tender],
        )
        .unwrap_err();
    assert!(e.to_string().contains("credits more than the tender paid"), "{e}");
    let credit: i64 = count(&l, &format!("SELECT id FROM exchange_credits WHERE exchange_id = {} ORDER BY id LIMIT 1", x.exchange_id));
    let e = l
        .connection()
        .execute(
            "INSERT INTO exchange_credit_returns (credit_id, amount_minor, movement_id) VALUES (?1, 1001, NULL)",
            [credit],
        )
        .unwrap_err();
    assert!(e.to_string().contains("CHECK") || e.to_string().contains("gives back more"), "{e}");
}

#[test]
fn the_upgrade_to_exchanges_keeps_a_paid_sale_exchangeable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let old = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        old_sale(&mut l).0
    };
    {
        // The file as the build before exchanges left it: no exchange tables, at the version
        // before their migration (found by its text, so a migration appended later, whose
        // objects are kept, does not move it).
        let before = paydesk_ledger::schema::MIGRATIONS
            .iter()
            .position(|m| m.contains("CREATE TABLE IF NOT EXISTS exchanges"))
            .unwrap();
        let c = rusqlite::Connection::open(&path).unwrap();
        crate::common::undo_named_rates(&c);
        c.execute_batch(&format!(
            "DROP TABLE exchange_credit_returns; DROP TABLE exchange_credits; DROP TABLE exchanges;
             PRAGMA user_version = {before};"
        ))
        .unwrap();
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(l.sales().by_cart(old).unwrap().state, SaleState::Paid);
    let new = cart_of(&mut l, &[("MUG-001", 1)]);
    let x = l.returns_mut().exchange(old, &[Returned { line: MUG, quantity: 1 }], new, None, false, AT + 10).unwrap();
    assert_eq!((x.credit_minor, x.new_sale.state), (MUG_YEN, SaleState::Paid), "an even exchange: nothing to pay, nothing back");
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn part_of_a_credit_given_back_goes_to_the_old_card_before_the_old_cash() {
    let mut l = store();
    let (old, old_card) = old_sale(&mut l);
    let new = cart_of(&mut l, &[("MUG-001", 2)]);
    l.returns_mut().exchange(old, &[Returned { line: MUG, quantity: 1 }], new, None, false, AT + 10).unwrap();
    let new_card = card(&mut l, new, MUG_YEN, AT + 11);
    let cash = drawer(&l);
    // 350 more than the new sale's own card: it comes out of the credit, card part first.
    let plan = l.sales_mut().plan_refund(new, Some(MUG_YEN + 350), None, AT + 12).unwrap();
    let to: Vec<_> = plan.card_refunds.iter().map(|(_, r)| (r.payment_id, r.amount.amount_minor)).collect();
    assert_eq!(to, [(new_card.id, MUG_YEN), (old_card.id, 350)]);
    assert_eq!((plan.cash_out_minor, drawer(&l)), (0, cash));
}

#[test]
fn a_credit_given_back_under_a_reissued_refund_key_is_given_back_once() {
    // A refund of the credit to the old card gets a stored 500 and is reissued under a new
    // key (the old row turns `failed`): the credit's give-back follows the new row, so the
    // credit does not count as held again and nothing is left to give back twice.
    let mut l = store();
    let (old, old_card) = old_sale(&mut l);
    let new = cart_of(&mut l, &[("MUG-001", 2)]);
    let x = l.returns_mut().exchange(old, &[Returned { line: MUG, quantity: 1 }], new, None, false, AT + 10).unwrap();
    card(&mut l, new, MUG_YEN, AT + 11);
    let back = l.returns_mut().take_back(new, &[Returned { line: 0, quantity: 2 }], None, false, AT + 12).unwrap();
    let (own, to_old) = (&back.card_refunds[0], &back.card_refunds[1]);
    assert_eq!(to_old.1.payment_id, old_card.id);
    let again = l.refunds_mut().reissue(to_old.1.id, "stored 500, not refunded", AT + 13).unwrap();
    settle(&mut l, &[own.clone(), (to_old.0, again)], AT + 14);
    assert_eq!(refunded_to(&l, &old_card), 1000);
    let held = format!(
        "SELECT COUNT(*) FROM exchange_credit_returns x JOIN exchange_credits c ON c.id = x.credit_id JOIN refunds r ON r.id = x.refund_id
         WHERE c.exchange_id = {} AND r.state = 'failed'",
        x.exchange_id
    );
    assert_eq!(count(&l, &held), 0, "no give-back is left on the failed row");
    // The new sale has nothing left to give back, and the old card nothing either (cards
    // come first: what is left of the old sale is its cash).
    let e = l.sales_mut().plan_refund(new, Some(1), None, AT + 15).unwrap_err();
    assert!(matches!(e, Error::SaleRefundExceeds { refundable_minor: 0, .. }), "{e:?}");
    let plan = l.sales_mut().plan_refund(old, Some(1), None, AT + 15).unwrap();
    assert!(plan.card_refunds.is_empty(), "the old card was refunded in full already: {plan:?}");
}
