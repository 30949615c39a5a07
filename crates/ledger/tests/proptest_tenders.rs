//! Random tender sequences against the ledger (record 0029): settled never exceeds the
//! total, due is always total minus settled, every cash tender's change and rounding
//! balance, the drawer is the sum of its movements, and the sale is paid exactly when
//! settled equals the total.

use crate::common;
use common::*;
use paydesk_domain::*;
use paydesk_ledger::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Cash(i64),
    Card { amount: Option<i64>, outcome: u8 },
    Override(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0i64..3000).prop_map(Op::Cash),
        (proptest::option::of(1i64..2500), 0u8..4).prop_map(|(amount, outcome)| Op::Card { amount, outcome }),
        (1i64..3000).prop_map(Op::Override),
    ]
}

#[test]
fn tenders_keep_the_sale_arithmetic() {
    // Cases that got through every assertion (a case returned early, or rejected by
    // a filter, is not one): a property that checks nothing must not pass.
    let reached = std::sync::atomic::AtomicU32::new(0);
    proptest!(ProptestConfig { cases: 96, ..ProptestConfig::default() }, |(qty in 1i64..6, increment in prop_oneof![Just(1i64), Just(5), Just(10)], ops in proptest::collection::vec(op(), 1..14))| {
        let mut l = mem();
        l.carts_mut().seed_catalog(&[NewProduct { sku: "X".into(), name: "X".into(), price: Money::new(333, Currency::Eur) }]).unwrap();
        l.sales_mut().set_cash_rounding(Currency::Eur, increment).unwrap();
        let cart = l.carts_mut().create(Currency::Eur, 1).unwrap();
        l.carts_mut().add(cart, "X", qty, 1).unwrap();
        let total = 333 * qty;
        let mut now = 10;
        for op in ops {
            now += 10;
            match op {
                Op::Cash(t) => { let _ = l.sales_mut().pay_cash(cart, t, None, now); }
                Op::Override(t) => { let _ = l.sales_mut().pay_cash(cart, t, Some("override test"), now); }
                Op::Card { amount, outcome } => {
                    if let Ok(ct) = l.sales_mut().open_card_tender(cart, amount, &CheckoutOptions::card("pm_card_visa"), None, now) {
                        if ct.is_new {
                            let p = ct.payment;
                            match outcome {
                                0 => { l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "", now).unwrap();
                                       l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "", now).unwrap(); }
                                1 => { l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "", now).unwrap();
                                       l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Failed, "", now).unwrap(); }
                                2 => { l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::QueuedOffline, "", now).unwrap(); }
                                _ => {} // left pending
                            }
                        }
                    }
                }
            }
            let s = l.sales().by_cart(cart).unwrap();
            prop_assert!(s.totals.settled_minor <= total, "{s:?}");
            prop_assert_eq!(s.totals.due_minor, total - s.totals.settled_minor);
            prop_assert!(s.totals.settled_minor + s.totals.outstanding_minor <= total);
            prop_assert_eq!(s.state == SaleState::Paid, s.totals.settled_minor == total);
            prop_assert_eq!(s.cart.state == CartState::Paid, s.totals.settled_minor == total);
            let mut cash_net = 0;
            for t in s.tenders.iter().filter(|t| t.kind == TenderKind::Cash) {
                let (tendered, change, rounding) = (t.cash_tendered_minor.unwrap(), t.change_minor.unwrap(), t.rounding_minor.unwrap());
                prop_assert_eq!(tendered - change, t.amount.amount_minor + rounding);
                prop_assert!(change >= 0 && rounding.abs() * 2 <= increment);
                cash_net += tendered - change;
            }
            let drawer: i64 = l.sales().expected_drawer().unwrap().iter().map(|(_, v)| v).sum();
            prop_assert_eq!(drawer, cash_net);
        }
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let n = reached.into_inner();
    println!("tenders_keep_the_sale_arithmetic: {n} cases reached the assertions");
    assert!(n >= 96, "only {n} cases reached the assertions, at least 96 expected");
}
