//! Returns per item (issue #29, record 0114, schema v20): a return of some lines of a
//! split sale gives its worth back to the cards first and the rest in cash from the drawer,
//! in one transaction with its lines, rates and links; more than is left of a line is
//! refused with nothing written; returns of everything add up to the sale per rate; a
//! reduced-rate line carries its 8 % figures; the ryōshūsho must come back (record 0112's
//! insider route closed) for a return and for a refund by amount; SQLite itself refuses a
//! link past what a tender paid; and the upgrade from a v19 file with a paid sale.

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::{Returned, TaxClass};

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

/// Lines in SKU order: 0 COF-001 ×2 (reduced), 1 CRO-001 ×3 (reduced), 2 MUG-001 ×1
/// (standard), in a ja-JP demo store (tax included, 8 % / 10 %).
const COF: usize = 0;
const CRO: usize = 1;
const MUG: usize = 2;

fn store() -> Ledger {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

fn sale_of(l: &mut Ledger) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    for (sku, q) in [("COF-001", 2), ("CRO-001", 3), ("MUG-001", 1)] {
        l.carts_mut().add(cart, sku, q, AT).unwrap();
    }
    cart
}

/// The card tender's payment captured, as the engine would record the PSP's answer.
fn card(l: &mut Ledger, cart: CartId, amount: i64, now: i64) -> Payment {
    let t = l.sales_mut().open_card_tender(cart, Some(amount), &CheckoutOptions::card("pm_card_visa"), None, now).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", now).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Captured, "reply", now).unwrap();
    t.payment
}

/// A split sale: 1,000 by card, the rest in cash.
fn split_sale(l: &mut Ledger) -> (CartId, Payment) {
    let cart = sale_of(l);
    let p = card(l, cart, 1000, AT + 1);
    let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(cart, due, None, AT + 2).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid);
    (cart, p)
}

fn settle(l: &mut Ledger, plan: &ReturnPlan, now: i64) {
    for (_, r) in &plan.card_refunds {
        l.refunds_mut().record_result(r.id, &format!("re_{}", r.id.0), RefundState::Succeeded, now).unwrap();
    }
}

fn back(line: usize, quantity: u32) -> Returned {
    Returned { line, quantity }
}

fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_returned_line_goes_back_to_the_card_first_then_cash_from_the_drawer() {
    let mut l = store();
    let (cart, payment) = split_sale(&mut l);
    let sale = l.sales().by_cart(cart).unwrap();
    let total = sale.cart.total.amount_minor;
    assert_eq!(sale.cart.lines.iter().map(|x| x.sku.as_str()).collect::<Vec<_>>(), ["COF-001", "CRO-001", "MUG-001"]);
    let mug = sale.cart.lines[MUG].unit_price.amount_minor;
    let drawer = l.sales().expected_drawer().unwrap();

    let plan = l.returns_mut().take_back(cart, &[back(MUG, 1)], Some("chipped"), false, AT + 10).unwrap();
    let r = &plan.record;
    assert_eq!((r.seq, r.number.as_str(), r.total_minor, r.currency), (1, format!("{:06}-R1", cart.0).as_str(), mug, Currency::Jpy));
    // A tax-included standard line: 10/110 of it is tax, at one rate.
    assert_eq!(r.rates.len(), 1);
    assert_eq!((r.rates[0].class, r.rates[0].ppm, r.rates[0].gross, r.rates[0].tax), (TaxClass::Standard, 100_000, mug, mug * 10 / 110));
    assert_eq!(r.tax_minor, mug * 10 / 110);
    assert_eq!(r.lines.iter().map(|x| (x.line, x.sku.as_str(), x.quantity)).collect::<Vec<_>>(), [(MUG, "MUG-001", 1)]);

    // The card gets back what its payment has (1,000), the rest comes out of the drawer.
    assert_eq!(plan.card_refunds.len(), 1);
    let refund = &plan.card_refunds[0].1;
    assert_eq!((refund.payment_id, refund.amount.amount_minor, refund.state), (payment.id, 1000, RefundState::Pending));
    assert_eq!((plan.cash_out_minor, r.cash_out_minor), (mug - 1000, mug - 1000));
    assert_eq!(r.tenders.iter().map(|t| (t.amount_minor, t.refund_id.is_some(), t.movement_id.is_some())).collect::<Vec<_>>(), [(1000, true, false), (mug - 1000, false, true)]);
    let cash_in = drawer[0].1;
    assert_eq!(l.sales().expected_drawer().unwrap(), vec![(Currency::Jpy, cash_in - (mug - 1000))]);
    let out: i64 = count(&l, &format!("SELECT -SUM(amount_minor) FROM cash_movements WHERE kind = 'refund_out' AND cart_id = {}", cart.0));
    assert_eq!(out, mug - 1000);

    // Read back as written; the sale is still paid; the audit chain has it.
    assert_eq!(l.returns().by_sale(cart).unwrap(), vec![r.clone()]);
    assert_eq!(l.returns().by_id(r.id).unwrap(), *r);
    assert_eq!(l.returns().returned(cart).unwrap(), vec![0, 0, 1]);
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid);
    let audit = l.audit().log().unwrap();
    assert!(audit.iter().any(|e| e.action == "sale_return" && e.reason == "chipped"), "{audit:?}");
    assert!(l.audit().verify(None).unwrap().is_intact());
    assert!(total > mug);

    // While the card refund is open, no other money goes back on the sale.
    let e = l.returns_mut().take_back(cart, &[back(COF, 1)], None, false, AT + 11).unwrap_err();
    assert!(matches!(e, Error::RefundInProgress { .. }), "{e:?}");
    settle(&mut l, &plan, AT + 12);
    let next = l.returns_mut().take_back(cart, &[back(COF, 1)], None, false, AT + 13).unwrap();
    assert_eq!((next.record.seq, next.card_refunds.len(), next.cash_out_minor), (2, 0, next.record.total_minor), "the card has nothing left");
}

#[test]
fn more_than_is_left_of_a_line_is_refused_and_nothing_is_written() {
    let mut l = store();
    let cart = sale_of(&mut l);
    let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(cart, due, None, AT + 1).unwrap();
    l.returns_mut().take_back(cart, &[back(CRO, 2)], None, false, AT + 2).unwrap();
    let (commits, audit) = (l.commit_count(), l.audit().log().unwrap().len());
    let e = l.returns_mut().take_back(cart, &[back(CRO, 2)], None, false, AT + 3).unwrap_err();
    assert!(
        matches!(e, Error::ReturnExceedsSold { line: CRO, sold: 3, returned_before: 2, requested: 2, .. }),
        "{e:?}"
    );
    for (items, what) in [
        (vec![back(7, 1)], "unknown line"),
        (vec![back(COF, 0)], "zero"),
        (vec![back(COF, 1), back(COF, 1)], "twice"),
        (vec![], "nothing"),
    ] {
        let e = l.returns_mut().take_back(cart, &items, None, false, AT + 4).unwrap_err();
        let typed = match what {
            "unknown line" => matches!(e, Error::ReturnUnknownLine { line: 7, lines: 3, .. }),
            _ => matches!(e, Error::InvalidInput(_)),
        };
        assert!(typed, "{what}: {e:?}");
    }
    assert_eq!((l.commit_count(), l.audit().log().unwrap().len()), (commits, audit), "nothing written");
    // The last one left comes back.
    l.returns_mut().take_back(cart, &[back(CRO, 1)], None, false, AT + 5).unwrap();
    assert_eq!(l.returns().returned(cart).unwrap(), vec![0, 3, 0]);

    // A sale not paid gets no return.
    let open = sale_of(&mut l);
    let e = l.returns_mut().take_back(open, &[back(COF, 1)], None, false, AT + 6).unwrap_err();
    assert!(matches!(e, Error::SaleNotPaid { state: "open", .. }), "{e:?}");
}

#[test]
fn returns_of_everything_add_up_to_the_sale_per_rate_with_discounts() {
    let mut l = store();
    let cart = sale_of(&mut l);
    l.carts_mut().set_line_discount(cart, "CRO-001", Some(paydesk_tax::Discount::Amount { amount: 100 }), AT).unwrap();
    l.carts_mut().set_sale_discount(cart, Some(paydesk_tax::Discount::Percent { basis_points: 700 }), AT).unwrap();
    card(&mut l, cart, 700, AT + 1);
    let sale = l.sales().by_cart(cart).unwrap();
    l.sales_mut().pay_cash(cart, sale.totals.due_minor, None, AT + 2).unwrap();
    let tax = sale.cart.tax.clone().unwrap();

    let mut all: Vec<ReturnRecord> = Vec::new();
    for (i, items) in [vec![back(CRO, 1)], vec![back(MUG, 1), back(COF, 1)], vec![back(CRO, 2), back(COF, 1)]].into_iter().enumerate() {
        let plan = l.returns_mut().take_back(cart, &items, None, false, AT + 10 + i as i64).unwrap();
        settle(&mut l, &plan, AT + 20 + i as i64);
        all.push(plan.record);
    }
    assert_eq!(all.iter().map(|r| r.total_minor).sum::<i64>(), sale.cart.total.amount_minor, "everything back: exactly the sale");
    assert_eq!(all.iter().map(|r| r.tax_minor).sum::<i64>(), tax.tax_total);
    for rate in &tax.rates {
        let of = |f: fn(&paydesk_tax::RateReturn) -> i64| -> i64 { all.iter().flat_map(|r| &r.rates).filter(|x| x.class == rate.class).map(f).sum() };
        assert_eq!((of(|x| x.base), of(|x| x.tax), of(|x| x.gross)), (rate.base, rate.tax, rate.gross), "{:?}", rate.class);
    }
    // The money went back per tender exactly as paid: 700 to the card, the rest in cash.
    assert_eq!(count(&l, &format!("SELECT SUM(amount_minor) FROM refunds WHERE payment_id IN (SELECT payment_id FROM tenders WHERE cart_id = {})", cart.0)), 700);
    assert_eq!(l.sales().expected_drawer().unwrap(), vec![(Currency::Jpy, 0)]);
    let e = l.returns_mut().take_back(cart, &[back(COF, 1)], None, false, AT + 40).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { sold: 2, returned_before: 2, .. }), "{e:?}");
}

#[test]
fn a_reduced_rate_line_carries_its_8_percent_figures() {
    let mut l = store();
    let cart = sale_of(&mut l);
    let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(cart, due, None, AT + 1).unwrap();
    let coffee = l.sales().by_cart(cart).unwrap().cart.lines[COF].unit_price.amount_minor;
    let r = l.returns_mut().take_back(cart, &[back(COF, 2)], None, false, AT + 2).unwrap().record;
    assert_eq!(r.rates.len(), 1, "{r:?}");
    let rate = &r.rates[0];
    assert_eq!((rate.class, rate.ppm, rate.gross), (TaxClass::Reduced, 80_000, 2 * coffee));
    assert_eq!((rate.tax, rate.base), (2 * coffee * 8 / 108, 2 * coffee - 2 * coffee * 8 / 108));
    assert_eq!(r.lines[0].class, TaxClass::Reduced);
    assert_eq!(count(&l, &format!("SELECT ppm FROM return_rates WHERE return_id = {}", r.id)), 80_000);
}

fn ryoshusho<'a>(total: i64) -> RyoshushoIssue<'a> {
    RyoshushoIssue { addressee: "山田太郎", description: "お品代として", total_minor: total, cash_minor: total, stamp_duty_minor: None, issued_by: None }
}

#[test]
fn money_goes_back_on_a_sale_with_a_ryoshusho_only_when_it_comes_back() {
    let mut l = store();
    let cart = sale_of(&mut l);
    let total = l.sales().by_cart(cart).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(cart, total, None, AT + 1).unwrap();
    l.receipts_mut().issue_ryoshusho(cart, &ryoshusho(total), AT + 2).unwrap();
    let commits = l.commit_count();
    let e = l.returns_mut().take_back(cart, &[back(MUG, 1)], None, false, AT + 3).unwrap_err();
    assert!(matches!(&e, Error::RyoshushoNotTakenBack { number, .. } if *number == format!("{:06}-1", cart.0)), "{e:?}");
    assert_eq!(l.commit_count(), commits, "nothing written");

    let r = l.returns_mut().take_back(cart, &[back(MUG, 1)], None, true, AT + 4).unwrap().record;
    assert!(r.ryoshusho_taken_back);
    assert_eq!(l.receipts().ryoshusho_taken_back(cart).unwrap(), Some(AT + 4));
    assert_eq!(count(&l, &format!("SELECT return_id FROM ryoshusho_taken_back WHERE cart_id = {}", cart.0)), r.id);
    assert!(l.audit().log().unwrap().iter().any(|e| e.action == "ryoshusho_taken_back"));
    // No reprint of a document that is no longer valid.
    let e = l.receipts_mut().issue_ryoshusho(cart, &ryoshusho(total), AT + 5).unwrap_err();
    assert!(matches!(e, Error::RyoshushoTakenBack { .. }), "{e:?}");
    assert_eq!(l.receipts().ryoshusho(cart).unwrap().unwrap().print_count, 1);
    // It came back once: the next return needs nothing more.
    let second = l.returns_mut().take_back(cart, &[back(COF, 1)], None, false, AT + 6).unwrap().record;
    assert!(!second.ryoshusho_taken_back);

    // A refund by amount follows the same rule.
    let other = sale_of(&mut l);
    l.sales_mut().pay_cash(other, total, None, AT + 7).unwrap();
    l.receipts_mut().issue_ryoshusho(other, &ryoshusho(total), AT + 8).unwrap();
    let e = l.sales_mut().plan_refund(other, Some(100), None, AT + 9).unwrap_err();
    assert!(matches!(e, Error::RyoshushoNotTakenBack { .. }), "{e:?}");
    l.sales_mut().plan_refund_with(other, Some(100), None, true, AT + 10).unwrap();
    assert_eq!(l.receipts().ryoshusho_taken_back(other).unwrap(), Some(AT + 10));
    l.sales_mut().plan_refund(other, Some(100), None, AT + 11).unwrap();
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn sqlite_refuses_a_link_past_what_a_tender_paid_or_a_line_past_what_was_sold() {
    let mut l = store();
    let cart = sale_of(&mut l);
    let total = l.sales().by_cart(cart).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(cart, total, None, AT + 1).unwrap();
    let r = l.returns_mut().take_back(cart, &[back(MUG, 1)], None, false, AT + 2).unwrap().record;
    let tender = r.tenders[0].tender_id.0;
    let c = l.connection();
    let past = c.execute(
        "INSERT INTO return_tenders (return_id, tender_id, amount_minor, movement_id) VALUES (?1, ?2, ?3, NULL)",
        rusqlite::params![r.id, tender, total],
    );
    assert!(past.is_err(), "past what the tender paid");
    let mug: i64 = c.query_row("SELECT id FROM products WHERE sku = 'MUG-001'", [], |x| x.get(0)).unwrap();
    // The mug's line (place 2, number 3) sold one, and the return above took it.
    let line = c.execute(
        "INSERT INTO return_lines (return_id, line, line_no, product_id, quantity, class, net_minor) VALUES (?1, 2, 3, ?2, 1, 'standard', 0)",
        rusqlite::params![r.id, mug],
    );
    let e = line.unwrap_err().to_string();
    assert!(e.contains("more than the sale sold"), "{e}");
    // A line the sale does not have, and a place that is not its line's.
    for (place, no) in [(9, 9), (1, 3)] {
        let e = c
            .execute(
                "INSERT INTO return_lines (return_id, line, line_no, product_id, quantity, class, net_minor) VALUES (?1, ?2, ?3, ?4, 1, 'standard', 0)",
                rusqlite::params![r.id, place, no, mug],
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than the sale sold") || e.contains("place is not"), "{e}");
    }
}

#[test]
fn the_upgrade_from_v19_keeps_a_paid_sale_and_then_takes_a_line_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let cart = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        let (cart, _) = split_sale(&mut l);
        cart
    };
    const V20: [&str; 5] = ["returns", "return_rates", "return_lines", "return_tenders", "ryoshusho_taken_back"];
    let counts = |c: &rusqlite::Connection| -> Vec<(String, i64)> {
        let names: Vec<String> = c
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .filter(|n: &String| !V20.contains(&n.as_str()))
            .collect();
        names.into_iter().map(|n| { let k = c.query_row(&format!("SELECT count(*) FROM \"{n}\""), [], |r| r.get(0)).unwrap(); (n, k) }).collect()
    };
    // The v19 file: this build's file without the v20 tables, at version 19.
    let before = {
        let c = rusqlite::Connection::open(&path).unwrap();
        crate::common::undo_named_rates(&c);
        for t in V20.iter().rev() {
            c.execute_batch(&format!("DROP TABLE {t};")).unwrap();
        }
        c.execute_batch("PRAGMA user_version = 19;").unwrap();
        counts(&c)
    };
    assert!(before.iter().any(|(n, k)| n == "tenders" && *k == 2), "{before:?}");

    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(counts(l.connection()), before, "every row of every table kept");
    assert!(l.audit().verify(None).unwrap().is_intact());
    let plan = l.returns_mut().take_back(cart, &[back(CRO, 1)], None, false, AT + 10).unwrap();
    assert_eq!(plan.record.seq, 1);
    assert_eq!(plan.card_refunds.len(), 1, "the card first");
}
