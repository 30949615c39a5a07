//! Random sales (several lines at 8 % and 10 %, line and sale discounts, split between
//! cards and cash) and random sequences of returns and refunds by amount (record 0114):
//! the returned quantity of a line never passes what was sold, what went back through a
//! tender never passes what it paid, the returns never pass the sale (in total and per
//! rate), a return within what is left is refused only for want of money left after a
//! refund by amount, and returning everything left gives back exactly the sale.

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::{Discount, Returned};
use proptest::prelude::*;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

const SKUS: [&str; 6] = ["COF-001", "CRO-001", "SAN-001", "MUG-001", "GFT-025", "CHO-001"];

#[derive(Debug, Clone)]
enum Op {
    /// (line pick, quantity) pairs; lines are taken modulo the sale's count.
    Return(Vec<(usize, u32)>),
    RefundAmount(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => proptest::collection::vec((0usize..6, 1u32..4), 1..4).prop_map(Op::Return),
        1 => (1i64..3000).prop_map(Op::RefundAmount),
    ]
}

fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The invariants that hold after every step, whatever it did.
fn check(l: &Ledger, cart: CartId, sold: &[u32]) {
    let returned = l.returns().returned(cart).unwrap();
    assert!(returned.iter().zip(sold).all(|(r, s)| r <= s), "returned {returned:?} of sold {sold:?}");
    let over_card = count(
        l,
        &format!(
            "SELECT count(*) FROM tenders t JOIN payments p ON p.id = t.payment_id WHERE t.cart_id = {} AND
             (SELECT COALESCE(SUM(amount_minor), 0) FROM refunds WHERE payment_id = p.id AND state <> 'failed') > p.amount_minor",
            cart.0
        ),
    );
    let over_cash = count(
        l,
        &format!(
            "SELECT count(*) FROM tenders t WHERE t.cart_id = {} AND t.kind = 'cash' AND
             (SELECT COALESCE(-SUM(amount_minor), 0) FROM cash_movements WHERE tender_id = t.id AND kind = 'refund_out') > t.amount_minor",
            cart.0
        ),
    );
    assert_eq!((over_card, over_cash), (0, 0), "a tender gave back more than it paid");
    // Each link names the refund or movement it made, for the amount it made.
    let links_off = count(
        l,
        "SELECT count(*) FROM return_tenders rt LEFT JOIN refunds r ON r.id = rt.refund_id LEFT JOIN cash_movements m ON m.id = rt.movement_id
         WHERE COALESCE(r.amount_minor, -m.amount_minor) <> rt.amount_minor",
    );
    assert_eq!(links_off, 0);
    let sale = l.sales().by_cart(cart).unwrap();
    let all = l.returns().by_sale(cart).unwrap();
    assert!(all.iter().map(|r| r.total_minor).sum::<i64>() <= sale.cart.total.amount_minor);
    if let Some(tax) = &sale.cart.tax {
        for rate in &tax.rates {
            let back: i64 = all.iter().flat_map(|r| &r.rates).filter(|x| x.class == rate.class).map(|x| x.gross).sum();
            assert!(back <= rate.gross, "{:?}: {back} back of {}", rate.class, rate.gross);
        }
    }
}

fn settle_refunds(l: &mut Ledger, now: i64) {
    let open: Vec<i64> = {
        let mut st = l.connection().prepare("SELECT id FROM refunds WHERE state = 'pending'").unwrap();
        st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    for id in open {
        l.refunds_mut().record_result(RefundId(id), &format!("re_{id}"), RefundState::Succeeded, now).unwrap();
    }
}

#[test]
fn returns_never_pass_what_was_sold_or_paid_and_add_up_to_the_sale() {
    let reached = std::sync::atomic::AtomicU32::new(0);
    let sale_strategy = (
        proptest::sample::subsequence(SKUS.to_vec(), 1..=4),
        proptest::collection::vec(1i64..5, 4),
        proptest::option::of((0usize..4, prop_oneof![(1u32..5000).prop_map(|b| Discount::Percent { basis_points: b }), (1i64..120).prop_map(|a| Discount::Amount { amount: a })])),
        proptest::option::of(prop_oneof![(1u32..3000).prop_map(|b| Discount::Percent { basis_points: b }), (1i64..200).prop_map(|a| Discount::Amount { amount: a })]),
        proptest::collection::vec(1i64..2000, 0..3),
    );
    proptest!(ProptestConfig { cases: 64, ..ProptestConfig::default() }, |((skus, qtys, line_discount, sale_discount, cards) in sale_strategy, ops in proptest::collection::vec(op(), 1..8))| {
        let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
        for (sku, q) in skus.iter().zip(&qtys) {
            l.carts_mut().add(cart, sku, *q, AT).unwrap();
        }
        if let Some((i, d)) = line_discount {
            let sku = l.carts().by_id(cart).unwrap().lines[i % skus.len()].sku.clone();
            let _ = l.carts_mut().set_line_discount(cart, &sku, Some(d), AT);
        }
        if let Some(d) = sale_discount {
            let _ = l.carts_mut().set_sale_discount(cart, Some(d), AT);
        }
        let mut now = AT + 10;
        for amount in cards {
            now += 1;
            let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
            if due == 0 { break; }
            let t = l.sales_mut().open_card_tender(cart, Some(amount.min(due)), &CheckoutOptions::card("pm_card_visa"), None, now).unwrap();
            l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "", now).unwrap();
            l.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Captured, "", now).unwrap();
        }
        let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
        if due > 0 {
            l.sales_mut().pay_cash(cart, due, None, now + 1).unwrap();
        }
        let sale = l.sales().by_cart(cart).unwrap();
        prop_assume!(sale.state == SaleState::Paid);
        let sold: Vec<u32> = sale.cart.lines.iter().map(|x| x.quantity as u32).collect();
        let mut refunded_by_amount = false;
        for op in ops {
            now += 10;
            match op {
                Op::Return(picks) => {
                    let left: Vec<u32> = l.returns().returned(cart).unwrap().iter().zip(&sold).map(|(r, s)| s - r).collect();
                    let mut items: Vec<Returned> = Vec::new();
                    for (i, q) in picks {
                        let line = i % sold.len();
                        if !items.iter().any(|r| r.line == line) {
                            items.push(Returned { line, quantity: q });
                        }
                    }
                    let within = items.iter().all(|r| r.quantity <= left[r.line]);
                    match l.returns_mut().take_back(cart, &items, None, false, now) {
                        Ok(plan) => prop_assert!(within, "{items:?} of {left:?} accepted: {plan:?}"),
                        Err(Error::ReturnExceedsSold { line, requested, .. }) => prop_assert!(!within && requested > left[line]),
                        Err(Error::SaleRefundExceeds { .. }) => prop_assert!(within && refunded_by_amount),
                        Err(e) => prop_assert!(false, "{items:?}: {e:?}"),
                    }
                }
                Op::RefundAmount(a) => {
                    match l.sales_mut().plan_refund(cart, Some(a), None, now) {
                        Ok(_) => refunded_by_amount = true,
                        Err(Error::SaleRefundExceeds { .. }) => {}
                        Err(e) => prop_assert!(false, "refund {a}: {e:?}"),
                    }
                }
            }
            settle_refunds(&mut l, now + 1);
            check(&l, cart, &sold);
        }
        // Everything left comes back: exactly the sale, per rate, unless money already
        // went back by amount.
        let returned = l.returns().returned(cart).unwrap();
        let rest: Vec<Returned> = returned.iter().zip(&sold).enumerate().filter(|(_, (r, s))| r < s).map(|(line, (r, s))| Returned { line, quantity: s - r }).collect();
        if !rest.is_empty() {
            match l.returns_mut().take_back(cart, &rest, None, false, now + 100) {
                Ok(_) => {}
                Err(Error::SaleRefundExceeds { .. }) => prop_assert!(refunded_by_amount),
                Err(e) => prop_assert!(false, "the rest: {e:?}"),
            }
            settle_refunds(&mut l, now + 101);
            check(&l, cart, &sold);
        }
        if !refunded_by_amount {
            let all = l.returns().by_sale(cart).unwrap();
            prop_assert_eq!(all.iter().map(|r| r.total_minor).sum::<i64>(), sale.cart.total.amount_minor);
            if let Some(tax) = &sale.cart.tax {
                for rate in &tax.rates {
                    let back: i64 = all.iter().flat_map(|r| &r.rates).filter(|x| x.class == rate.class).map(|x| x.gross).sum();
                    prop_assert_eq!(back, rate.gross);
                }
            }
            prop_assert_eq!(l.sales().expected_drawer().unwrap().iter().map(|(_, v)| *v).sum::<i64>(), 0);
        }
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    assert!(reached.load(std::sync::atomic::Ordering::Relaxed) >= 32, "too few cases reached the end");
}
