//! `Payments::payment_after`: at most one explicit new payment per predecessor (schema v3,
//! `payment_successors`), committed with its link in one transaction.
use crate::common;
use common::*;
use paydesk_domain::*;
use paydesk_ledger::*;

fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_second_payment_after_the_same_predecessor_returns_the_first_one() {
    let mut l = mem();
    let new = NewPayment { amount: usd(1200), options: CheckoutOptions::card("pm_card_chargeDeclined") };
    let k = l.payments_mut().create(&new, 1).unwrap();
    assert_eq!(l.payments().successor_of(k.id).unwrap(), None);
    let again = NewPayment { amount: usd(1200), options: CheckoutOptions::card("pm_card_visa") };
    let s = l.payments_mut().payment_after(k.id, After::Amount(&again), 2).unwrap();
    assert!(s.is_new);
    assert_eq!(l.payments().successor_of(k.id).unwrap().unwrap().id, s.payment.id);
    let rerun = l.payments_mut().payment_after(k.id, After::Amount(&again), 3).unwrap();
    assert!(!rerun.is_new, "re-run: the existing successor, nothing new");
    assert_eq!(rerun.payment.id, s.payment.id);
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 2);
    // The successor can have its own successor.
    let t = l.payments_mut().payment_after(s.payment.id, After::Amount(&again), 4).unwrap();
    assert!(t.is_new);
    assert_eq!(l.payments().successor_of(s.payment.id).unwrap().unwrap().id, t.payment.id);
    // The database itself refuses a second successor.
    let dup = l.connection().execute(
        "INSERT INTO payment_successors (previous_id, next_id, created_at_ms) VALUES (?1, ?2, 5)",
        [k.id.0, t.payment.id.0],
    );
    assert!(dup.is_err());
    // An unknown predecessor is an error, nothing written.
    assert!(l.payments_mut().payment_after(PaymentId(999), After::Amount(&again), 6).is_err());
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 3);
}

#[test]
fn a_cart_payment_after_a_declined_one_is_linked_once() {
    let mut l = mem();
    seed(&mut l);
    let cart = l.carts_mut().create(Currency::Usd, 0).unwrap();
    l.carts_mut().add(cart, "COF", 1, 0).unwrap();
    let opts = CheckoutOptions::card("pm_card_visa");
    let k = l.payments_mut().open_checkout(cart, &opts, 1).unwrap().payment;
    l.payments_mut().transition(k.id, PaymentState::Created, PaymentState::Authorizing, "sent", 2).unwrap();
    l.payments_mut().transition(k.id, PaymentState::Authorizing, PaymentState::Failed, "declined", 3).unwrap();
    let after = After::Cart { cart_id: cart, options: &opts, override_reason: None };
    let s = l.payments_mut().payment_after(k.id, after, 4).unwrap();
    assert!(s.is_new);
    assert_eq!(s.payment.cart_id, Some(cart));
    l.payments_mut().transition(s.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", 5).unwrap();
    l.payments_mut().transition(s.payment.id, PaymentState::Authorizing, PaymentState::Failed, "declined", 6).unwrap();
    // Without the link the cart (no open checkout) would get a third payment here.
    let rerun = l.payments_mut().payment_after(k.id, after, 7).unwrap();
    assert!(!rerun.is_new);
    assert_eq!(rerun.payment.id, s.payment.id);
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 2);
}
