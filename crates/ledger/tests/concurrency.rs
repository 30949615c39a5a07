//! Many connections racing on one key (record 0006, 0023 concurrency tests).

use std::sync::{Arc, Barrier};

use paydesk_domain::*;
use paydesk_ledger::*;

const THREADS: usize = 8;
const ROUNDS: usize = 200;

#[test]
fn eight_connections_racing_to_record_one_key_make_one_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.db");
    drop(Ledger::open(&path).unwrap());
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let path = path.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                // Each thread its own connection.
                let mut l = Ledger::open_with_keys(&path, Box::new(SeededKeys::new(t as u64))).unwrap();
                let mut outcomes = Vec::with_capacity(ROUNDS);
                for round in 0..ROUNDS {
                    let r = PspResult {
                        idempotency_key: format!("race-{round}"),
                        psp_payment_id: format!("pi_race_{round}"),
                        amount: Money::new(1000 + round as i64, Currency::Usd),
                        state_if_new: PaymentState::Captured,
                    };
                    barrier.wait();
                    outcomes.push(l.payments_mut().record_psp_result(&r, round as i64).unwrap());
                }
                outcomes
            })
        })
        .collect();
    let per_thread: Vec<Vec<RecordOutcome>> = handles.into_iter().map(|h| h.join().unwrap()).collect();

    let l = Ledger::open(&path).unwrap();
    for round in 0..ROUNDS {
        let recorded = per_thread.iter().filter(|o| matches!(o[round], RecordOutcome::Recorded(_))).count();
        let exists = per_thread.iter().filter(|o| matches!(o[round], RecordOutcome::Exists(_))).count();
        assert_eq!((recorded, exists), (1, THREADS - 1), "round {round}: {:?}", per_thread.iter().map(|o| &o[round]).collect::<Vec<_>>());
        let rows: i64 = l
            .connection()
            .query_row("SELECT count(*) FROM payments WHERE idempotency_key = ?1", [format!("race-{round}")], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1, "round {round}");
    }
    let total: i64 = l.connection().query_row("SELECT count(*) FROM payments", [], |r| r.get(0)).unwrap();
    assert_eq!(total, ROUNDS as i64);
}

#[test]
fn eight_connections_pressing_charge_on_one_cart_open_one_checkout() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("charge.db");
    let carts: Vec<CartId> = {
        let mut l = Ledger::open(&path).unwrap();
        l.carts_mut().seed_catalog(&[NewProduct { sku: "TEA".into(), name: "Tea".into(), price: Money::new(300, Currency::Jpy) }])
            .unwrap();
        (0..50)
            .map(|i| {
                let c = l.carts_mut().create(Currency::Jpy, i).unwrap();
                l.carts_mut().add(c, "TEA", 1 + i, i).unwrap();
                c
            })
            .collect()
    };
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (path, barrier, carts) = (path.clone(), barrier.clone(), carts.clone());
            std::thread::spawn(move || {
                let mut l = Ledger::open_with_keys(&path, Box::new(SeededKeys::new(100 + t as u64))).unwrap();
                carts
                    .iter()
                    .map(|&c| {
                        barrier.wait();
                        let co = l.payments_mut().open_checkout(c, &CheckoutOptions::card("pm_card_visa"), 1_000).unwrap();
                        (co.is_new, co.payment.idempotency_key)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let l = Ledger::open(&path).unwrap();
    for (i, c) in carts.iter().enumerate() {
        let new = results.iter().filter(|r| r[i].0).count();
        assert_eq!(new, 1, "cart {c}");
        let keys: std::collections::HashSet<_> = results.iter().map(|r| r[i].1.clone()).collect();
        assert_eq!(keys.len(), 1, "every press got the same key");
        let rows: i64 = l
            .connection()
            .query_row("SELECT count(*) FROM payments WHERE cart_id = ?1", [c.0], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1);
    }
}
