//! The back office's offline caps at the register (record 0139): the real engine over the
//! real mock PSP service (in process), the PSP unreachable. A register on its own default
//! caps ($65 per payment) refuses a $30 payment offline once its store published $20 per
//! payment and $50 in all — nothing charged, "take another form of payment" — and still
//! accepts $15 offline, then refuses what would take the stored total past $50.

use mock_psp::{FaultConfig, ManualClock, MockPsp};
use paydesk_domain::{Currency, Money};
use paydesk_ledger::{CheckoutOptions, Ledger, PublishedCaps, SeededKeys};
use paydesk_register::clock::VirtualClock;
use paydesk_register::{CheckoutOutcome, Engine, EngineConfig, EngineError, SeededRandom};
use paydesk_test_kit::{get_json, InProcess};
use std::sync::Arc;

const KEY: &str = "sk_test_caps";
const START_MS: i64 = 1_800_000_000_000;

fn usd(minor: i64) -> Money {
    Money::new(minor, Currency::Usd)
}

#[tokio::test(flavor = "current_thread")]
async fn the_stores_published_caps_bound_what_a_register_accepts_offline() {
    let psp = MockPsp::builder().memory().secret_key(KEY).seed(7).faults(FaultConfig::none()).clock(Arc::new(ManualClock::new(START_MS))).build().unwrap();
    let clock = Arc::new(VirtualClock::new(START_MS));
    let mut ledger = Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap();
    let caps = PublishedCaps { currency: Currency::Usd, per_payment_minor: 2_000, total_minor: 5_000 };
    assert!(ledger.catalog_mut().set_published_offline_caps(Some(caps), START_MS).unwrap());
    assert!(!ledger.catalog_mut().set_published_offline_caps(Some(caps), START_MS).unwrap(), "the same caps again write nothing");
    let e = Engine::new(ledger, Arc::new(InProcess::new(&psp, &clock, KEY)), clock.clone(), Arc::new(SeededRandom::new(7)), EngineConfig::default());
    psp.set_offline(true, None);

    // $30: within the register's own $65, above the store's $20. Refused, nothing sent.
    match e.checkout_amount(usd(3_000), CheckoutOptions::card("pm_card_visa")).await {
        Err(EngineError::OfflineRefused { reason, .. }) => assert!(reason.contains("3000 > 2000"), "{reason}"),
        other => panic!("expected an offline refusal at the store's cap, got {other:?}"),
    }
    // $15 and $20 are stored ($35); another $20 would make $55 > $50.
    for amount in [1_500, 2_000] {
        let r = e.checkout_amount(usd(amount), CheckoutOptions::card("pm_card_visa")).await.unwrap();
        assert_eq!(r.outcome, CheckoutOutcome::QueuedOffline, "{r:?}");
    }
    match e.checkout_amount(usd(2_000), CheckoutOptions::card("pm_card_visa")).await {
        Err(EngineError::OfflineRefused { reason, .. }) => assert!(reason.contains("5500 > 5000"), "{reason}"),
        other => panic!("expected an offline refusal at the store's total, got {other:?}"),
    }
    psp.set_offline(false, None);
    let intents = get_json(&psp, KEY, "/v1/payment_intents?limit=100").await;
    assert_eq!(intents["data"].as_array().unwrap().len(), 0, "nothing reached the PSP while it was unreachable: {intents}");
}
