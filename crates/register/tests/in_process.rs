//! The same engine code under virtual time, with an in-process transport to
//! the real mock PSP service (no socket): what the deterministic simulation
//! builds on. Two runs with the same seeds give the same history.

use mock_psp::{Fault, FaultConfig, MockPsp};
use paydesk_test_kit::InProcess;
use paydesk_ledger::{CheckoutOptions, Ledger, SeededKeys};
use paydesk_domain::{Currency, Money};
use paydesk_register::clock::{Clock, VirtualClock};
use paydesk_register::{Engine, EngineConfig, SeededRandom};
use std::sync::Arc;

const KEY: &str = "sk_test_a";

async fn history(seed: u64) -> (Vec<(String, String, Option<String>, u32)>, serde_json::Value, i64) {
    let psp = MockPsp::builder().memory().secret_key(KEY).seed(seed).faults(FaultConfig::none()).build().unwrap();
    let mut cfg = FaultConfig::none();
    cfg.set_rate(Fault::DropRequest, 0.2);
    cfg.set_rate(Fault::DropResponse, 0.2);
    cfg.set_rate(Fault::Transient503, 0.1);
    psp.set_faults(cfg);
    let clock = Arc::new(VirtualClock::new(1_800_000_000_000));
    let transport = Arc::new(InProcess::new(&psp, &clock, KEY));
    let ledger = Ledger::open_in_memory(Box::new(SeededKeys::new(seed))).unwrap();
    let engine = Engine::new(ledger, transport, clock.clone(), Arc::new(SeededRandom::new(seed)), EngineConfig::default());
    let mut out = vec![];
    for i in 0..30 {
        let card = if i % 7 == 3 { "pm_card_chargeDeclined" } else { "pm_card_visa" };
        let r = engine.checkout_amount(Money::new(100 + i, Currency::Jpy), CheckoutOptions::card(card)).await.unwrap();
        out.push((r.checkout_key, r.state.as_str().to_string(), r.psp_payment_id, r.attempts));
    }
    let rep = engine.recover().await.unwrap();
    assert_eq!(rep.still_pending + rep.still_queued, 0, "{rep:?}");
    // Final states after recovery.
    for row in out.iter_mut() {
        let r = engine.status_of(&row.0).unwrap();
        row.1 = r.state.to_string();
        row.2 = r.psp_payment_id;
    }
    let stats = psp.stats();
    (out, stats, clock.now_ms())
}

#[tokio::test(flavor = "current_thread")]
async fn engine_runs_in_virtual_time_in_process_and_replays_deterministically() {
    let (a, stats_a, t_a) = history(42).await;
    let (b, stats_b, t_b) = history(42).await;
    assert_eq!(a, b, "same seeds, same history");
    assert_eq!(t_a, t_b, "same virtual time");
    assert_eq!(stats_a["charges"], stats_b["charges"]);
    // Faults happened and were absorbed: retries, replays, one charge per key.
    assert!(a.iter().any(|(_, _, _, n)| *n > 1), "some checkouts needed retries");
    assert!(stats_a["replays"].as_u64().unwrap() > 0, "{stats_a}");
    let paid = a.iter().filter(|(_, s, _, _)| s == "captured").count() as u64;
    assert_eq!(stats_a["charges"].as_u64().unwrap(), paid, "one charge per paid checkout");
    let mut ids: Vec<_> = a.iter().filter_map(|(_, _, id, _)| id.clone()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n);
    // Virtual time moved (timeouts and backoff) without real waiting.
    assert!(t_a > 1_800_000_000_000);
    let (c, _, _) = history(43).await;
    assert_ne!(a, c, "another seed, another history");
}
