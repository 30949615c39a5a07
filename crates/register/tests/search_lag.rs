//! Search is eventually consistent (Stripe: data normally searchable within about a
//! minute; never for read-after-write). Inside a key's window, "not found by search"
//! must not be taken as "never charged": the real engine over the real mock PSP service
//! (in process, no socket) with the PSP's search lag (`--search-lag-ms`), both clocks
//! virtual and moved by the test.

use mock_psp::{Fault, FaultConfig, ManualClock, MockPsp};
use paydesk_ledger::{CheckoutOptions, Ledger, SeededKeys};
use paydesk_domain::{Currency, Money};
use paydesk_register::clock::VirtualClock;
use paydesk_test_kit::{advance_both, get_json, InProcess};
use paydesk_register::{CheckoutOutcome, Engine, EngineConfig, OfflineLimits, SeededRandom};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

const KEY: &str = "sk_test_a";
const START_MS: i64 = 1_800_000_000_000;
const LAG_MS: u64 = 60_000;

struct World {
    psp: MockPsp,
    clock: Arc<VirtualClock>,
}

impl World {
    fn new() -> World {
        let psp_clock = Arc::new(ManualClock::new(START_MS));
        let faults = FaultConfig { search_lag_ms: LAG_MS, ..FaultConfig::none() };
        let psp = MockPsp::builder().memory().secret_key(KEY).seed(3).faults(faults).clock(psp_clock).build().unwrap();
        World { psp, clock: Arc::new(VirtualClock::new(START_MS)) }
    }
    fn engine(&self, cfg: EngineConfig, pull_cable_after_lost_answer: bool) -> Engine {
        let mut t = InProcess::new(&self.psp, &self.clock, KEY);
        t.pull_cable_after_lost_answer = pull_cable_after_lost_answer;
        let t = Arc::new(t);
        let ledger = Ledger::open_in_memory(Box::new(SeededKeys::new(3))).unwrap();
        Engine::new(ledger, t, self.clock.clone(), Arc::new(SeededRandom::new(3)), cfg)
    }
    /// Both clocks move together (the register's and the PSP's).
    fn advance(&self, d: Duration) {
        advance_both(&self.clock, &self.psp, d);
    }
    async fn get(&self, path: &str) -> Value {
        get_json(&self.psp, KEY, path).await
    }
    /// Every PaymentIntent through the list API (consistent, unlike search).
    async fn intents(&self) -> Vec<Value> {
        self.get("/v1/payment_intents?limit=100").await["data"].as_array().unwrap().clone()
    }
    async fn search(&self, checkout_key: &str) -> Vec<Value> {
        let q: String = form_urlencoded_query(&format!("metadata['checkout_key']:'{checkout_key}'"));
        self.get(&format!("/v1/payment_intents/search?query={q}")).await["data"].as_array().unwrap().clone()
    }
}

fn form_urlencoded_query(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

fn notes(e: &Engine, key: &str, outcome: &str) -> usize {
    e.payment_view(key).unwrap().timeline.iter().filter(|t| t.outcome.as_deref() == Some(outcome)).count()
}

/// Case (b): attempts that reached the PSP, then the cable was pulled and offline
/// acceptance refused. The PaymentIntent exists (captured) but search does not show it
/// yet: the payment stays pending, then the one charge is adopted once search shows it.
#[tokio::test(flavor = "current_thread")]
async fn refused_offline_payment_charged_at_the_psp_is_not_settled_never_charged_while_search_lags() {
    let w = World::new();
    let cfg = EngineConfig { offline: OfflineLimits { enabled: false, ..OfflineLimits::default() }, ..EngineConfig::default() };
    let e = w.engine(cfg, true);
    w.psp.script_fault("/v1/payment_intents", Fault::DropResponse, 1, None);
    // Not accepted offline, but the answer may have been lost after the charge: the
    // cashier is told "pending" with the key (record 0013), never "not accepted".
    let r = e.checkout_amount(Money::new(1500, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    assert_eq!((r.outcome, r.error_code.as_deref()), (CheckoutOutcome::Pending, Some("offline_refused")), "{r:?}");
    assert!(r.message.as_deref().unwrap_or("").contains("may have reached"), "{r:?}");
    let key = r.checkout_key;
    // The PSP did charge it (the answer was lost); its search does not show it yet.
    w.psp.set_offline(false, None);
    let pis = w.intents().await;
    assert_eq!(pis.len(), 1);
    assert_eq!(pis[0]["status"], "succeeded");
    let pi_id = pis[0]["id"].as_str().unwrap().to_string();
    assert!(w.search(&key).await.is_empty(), "search lags");

    let rep = e.recover().await.unwrap();
    assert_eq!((rep.examined, rep.resolved, rep.still_pending), (1, 0, 1), "{rep:?}");
    let r = e.status_of(&key).unwrap();
    assert_eq!(r.state.as_str(), "authorizing", "not settled as never charged: {r:?}");
    assert_eq!(r.outcome, CheckoutOutcome::Pending);
    assert_eq!(notes(&e, &key, "search_not_conclusive"), 1);
    // The background's next pass: same again while search still lags.
    w.advance(Duration::from_secs(30));
    assert_eq!(e.recover().await.unwrap().still_pending, 1);
    assert_eq!(e.status_of(&key).unwrap().state.as_str(), "authorizing");

    // The lag has passed: search finds it and the register adopts the one charge.
    w.advance(Duration::from_secs(31));
    let rep = e.recover().await.unwrap();
    assert_eq!((rep.resolved, rep.still_pending, rep.resolved_by_search), (1, 0, 1), "{rep:?}");
    let r = e.status_of(&key).unwrap();
    assert_eq!(r.state.as_str(), "captured", "{r:?}");
    assert_eq!(r.psp_payment_id.as_deref(), Some(pi_id.as_str()));
    assert_eq!(w.intents().await.len(), 1, "one charge, never resent");
    assert_eq!(w.psp.stats()["charges"].as_u64(), Some(1));
}

/// Case (c): a stored 500 for the create (nothing created at the PSP). "Not found" is
/// conclusive only `search_settle_ms` after the attempt that got the 500; the replayed
/// 500s of the later passes executed nothing and do not push that time back.
#[tokio::test(flavor = "current_thread")]
async fn stored_500_never_created_is_settled_never_charged_only_after_search_settle_ms() {
    let w = World::new();
    let e = w.engine(EngineConfig::default(), false);
    assert_eq!(e.config().search_settle_ms, 120_000);
    w.psp.script_fault("/v1/payment_intents", Fault::InternalError, 1, None);
    let r = e.checkout_amount(Money::new(800, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    assert_eq!(r.outcome, CheckoutOutcome::Pending, "unknown, not never charged: {r:?}");
    assert_eq!(r.state.as_str(), "authorizing");
    let key = r.checkout_key.clone();
    assert_eq!(notes(&e, &key, "search_not_conclusive"), 1);

    w.advance(Duration::from_secs(100));
    let rep = e.recover().await.unwrap();
    assert_eq!(rep.still_pending, 1, "{rep:?}");
    let r = e.status_of(&key).unwrap();
    assert_eq!(r.state.as_str(), "authorizing", "{r:?}");
    assert!(r.replayed, "the pass resent the key and got the stored 500 replayed");

    w.advance(Duration::from_secs(21)); // 121 s after the 500
    let rep = e.recover().await.unwrap();
    assert_eq!((rep.resolved, rep.still_pending), (1, 0), "{rep:?}");
    let r = e.status_of(&key).unwrap();
    assert_eq!(r.state.as_str(), "failed", "{r:?}");
    assert!(r.message.as_deref().unwrap_or("").contains("never charged"), "{r:?}");
    assert!(w.intents().await.is_empty(), "nothing at the PSP");
}
