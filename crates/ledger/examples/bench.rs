//! Ledger benchmark: ratios from ONE run on this machine (record 0023), not a timed test.
//!
//!     cargo run --release -p paydesk-ledger --example bench [-- N]
//!
//! Compares, each as one durable transaction per operation (WAL, synchronous=FULL):
//! a raw INSERT into a one-UNIQUE-column table, the ledger's idempotent
//! `record_psp_result` (claim + compare + timeline row), its replay (`Exists`, which
//! writes nothing and so costs no fsync), and `create_payment` (key before network).

use std::time::{Duration, Instant};

use paydesk_domain::*;
use paydesk_ledger::*;

fn per_op(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

fn main() -> Result<()> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let dir = tempfile::tempdir()?;

    // Raw baseline with the same durability settings.
    let raw = rusqlite::Connection::open(dir.path().join("raw.db"))?;
    raw.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
    raw.execute_batch(
        "PRAGMA synchronous = FULL;
         CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, amount_minor INTEGER NOT NULL);",
    )?;
    let mut l = Ledger::open_with_keys(dir.path().join("ledger.db"), Box::new(SeededKeys::new(1)))?;
    let results: Vec<PspResult> = (0..n)
        .map(|i| PspResult {
            idempotency_key: format!("key-{i}"),
            psp_payment_id: format!("pi_{i}"),
            amount: Money::new(1000, Currency::Usd),
            state_if_new: PaymentState::Captured,
        })
        .collect();
    let np = NewPayment { amount: Money::new(1200, Currency::Jpy), options: CheckoutOptions::card("pm_card_visa") };

    // Interleaved blocks, so disk warm-up and background load hit every variant alike.
    const BLOCKS: usize = 10;
    let (mut raw_d, mut record_d, mut replay_d, mut create_d) = (Duration::ZERO, Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for b in 0..BLOCKS {
        let range = b * n / BLOCKS..(b + 1) * n / BLOCKS;
        let t = Instant::now();
        for i in range.clone() {
            raw.execute("INSERT INTO t (k, amount_minor) VALUES (?1, ?2)", rusqlite::params![format!("key-{i}"), 1000])?;
        }
        raw_d += t.elapsed();
        let t = Instant::now();
        for r in &results[range.clone()] {
            assert!(matches!(l.payments_mut().record_psp_result(r, 1)?, RecordOutcome::Recorded(_)));
        }
        record_d += t.elapsed();
        let t = Instant::now();
        for r in &results[range.clone()] {
            assert!(matches!(l.payments_mut().record_psp_result(r, 2)?, RecordOutcome::Exists(_)));
        }
        replay_d += t.elapsed();
        let t = Instant::now();
        for i in range {
            l.payments_mut().create(&np, i as i64)?;
        }
        create_d += t.elapsed();
    }

    let raw_us = per_op(raw_d, n);
    println!("paydesk-ledger bench, n = {n} operations each, one transaction per operation, WAL + synchronous=FULL");
    println!("  raw durable INSERT (baseline)        {:>9.1} µs/op", raw_us);
    for (name, d) in [
        ("record_psp_result, new key (Recorded)", record_d),
        ("record_psp_result, replay (Exists)   ", replay_d),
        ("create_payment (key before network)  ", create_d),
    ] {
        let us = per_op(d, n);
        println!("  {name} {:>9.1} µs/op   {:>5.2}× raw", us, us / raw_us);
    }
    Ok(())
}
