#![allow(dead_code)]
pub mod outbox;
use paydesk_domain::*;
use paydesk_ledger::*;

pub fn mem() -> Ledger {
    Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap()
}

pub fn usd(minor: i64) -> Money {
    Money::new(minor, Currency::Usd)
}

pub fn new_payment(l: &mut Ledger, minor: i64, now_ms: i64) -> Payment {
    l.payments_mut().create(&NewPayment { amount: usd(minor), options: CheckoutOptions::card("pm_card_visa") }, now_ms)
        .unwrap()
}

/// Forces a payment into any state by raw SQL (test set-up only; bypasses the table).
pub fn force_state(l: &Ledger, id: PaymentId, s: PaymentState) {
    l.connection()
        .execute("UPDATE payments SET state = ?2 WHERE id = ?1", rusqlite::params![id.0, s.as_str()])
        .unwrap();
}

pub fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

pub fn seed(l: &mut Ledger) {
    l.carts_mut().seed_catalog(&[
        NewProduct { sku: "COF".into(), name: "Coffee".into(), price: usd(350) },
        NewProduct { sku: "BAG".into(), name: "Bagel".into(), price: usd(225) },
        NewProduct { sku: "YEN".into(), name: "Onigiri".into(), price: Money::new(180, Currency::Jpy) },
    ])
    .unwrap();
}
