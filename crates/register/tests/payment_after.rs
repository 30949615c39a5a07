//! `new_payment_after(K)` (the CLI's `checkout --after K`, the app's "Try another card")
//! makes at most one new payment per predecessor: re-running it (after a crash or by
//! the operator) resumes or reports that payment, never a second charge. The real engine
//! over the real mock PSP service in process (no socket), virtual clocks.

use mock_psp::{Fault, FaultConfig, ManualClock, MockPsp};
use paydesk_ledger::{CheckoutOptions, Ledger, SeededKeys};
use paydesk_domain::{Currency, Money, PaymentState};
use paydesk_register::clock::VirtualClock;
use paydesk_register::{Attempted, CheckoutOutcome, Engine, EngineConfig, EngineError, SeededRandom};
use paydesk_test_kit::{InProcess, Posts};
use std::sync::Arc;

const KEY: &str = "sk_test_a";
const START_MS: i64 = 1_800_000_000_000;
const PI: &str = "/v1/payment_intents";

struct World {
    psp: MockPsp,
    engine: Engine,
    posts: Posts,
}

impl World {
    fn new() -> World {
        let psp = MockPsp::builder()
            .memory()
            .secret_key(KEY)
            .seed(5)
            .faults(FaultConfig::none())
            .clock(Arc::new(ManualClock::new(START_MS)))
            .build()
            .unwrap();
        let clock = Arc::new(VirtualClock::new(START_MS));
        let posts: Posts = Default::default();
        let mut t = InProcess::new(&psp, &clock, KEY);
        t.posts = Some(posts.clone());
        let t = Arc::new(t);
        let ledger = Ledger::open_in_memory(Box::new(SeededKeys::new(5))).unwrap();
        let engine = Engine::new(ledger, t, clock, Arc::new(SeededRandom::new(5)), EngineConfig::default());
        World { psp, engine, posts }
    }
    async fn declined(&self) -> String {
        let r = self.engine.checkout_amount(Money::new(900, Currency::Jpy), card("pm_card_chargeDeclined")).await.unwrap();
        assert_eq!(r.outcome, CheckoutOutcome::Declined);
        r.checkout_key
    }
    fn payments(&self) -> usize {
        self.engine.list_payments(100, 0).unwrap().len()
    }
    fn create_keys(&self) -> Vec<String> {
        self.posts.lock().iter().filter(|(p, _)| p == PI).map(|(_, k)| k.clone()).collect()
    }
}

fn card(pm: &str) -> CheckoutOptions {
    CheckoutOptions::card(pm)
}

#[tokio::test(flavor = "current_thread")]
async fn rerun_after_a_paid_successor_reports_it_and_charges_nothing_more() {
    let w = World::new();
    let k = w.declined().await;
    let s = w.engine.new_payment_after(&k, card("pm_card_visa"), None).await.unwrap();
    assert_eq!(s.outcome, CheckoutOutcome::Paid);
    assert_ne!(s.checkout_key, k);
    // The same command again (the operator re-runs it, or the first run's answer was lost).
    let again = w.engine.new_payment_after(&k, card("pm_card_visa"), None).await.unwrap();
    assert_eq!(again.checkout_key, s.checkout_key, "the existing successor, not a new payment");
    assert_eq!(again.outcome, CheckoutOutcome::Paid);
    assert_eq!(w.payments(), 2);
    assert_eq!(w.psp.stats()["charges"].as_u64(), Some(1), "charged once");
    assert_eq!(w.create_keys(), vec![k, s.checkout_key], "nothing more sent");
}

#[tokio::test(flavor = "current_thread")]
async fn a_declined_successor_refuses_another_payment_after_the_same_predecessor() {
    let w = World::new();
    let k = w.declined().await;
    let s = w.engine.new_payment_after(&k, card("pm_card_chargeDeclined"), None).await.unwrap();
    assert_eq!(s.outcome, CheckoutOutcome::Declined);
    let err = w.engine.new_payment_after(&k, card("pm_card_visa"), None).await.unwrap_err();
    assert!(
        matches!(&err, EngineError::LaterPaymentExists { key, later, state }
            if *key == k && *later == s.checkout_key && *state == PaymentState::Failed),
        "{err:?}"
    );
    assert_eq!(err.code(), "later_payment_exists");
    // Names the later payment; the flag to use is the CLI's to add (no flag here).
    assert!(err.to_string().contains(&s.checkout_key), "{err}");
    assert!(!err.to_string().contains("--"), "{err}");
    assert_eq!(w.payments(), 2, "nothing new");
    // After the later one, a new payment is fine.
    let t = w.engine.new_payment_after(&s.checkout_key, card("pm_card_visa"), None).await.unwrap();
    assert_eq!(t.outcome, CheckoutOutcome::Paid);
    assert_eq!(w.payments(), 3);
    assert_eq!(w.psp.stats()["charges"].as_u64(), Some(1));
}

#[tokio::test(flavor = "current_thread")]
async fn a_pending_successor_is_resumed_with_its_own_key() {
    let w = World::new();
    let k = w.declined().await;
    // The successor's outcome is unknown (the PSP answers a stored 500).
    w.psp.script_fault(PI, Fault::InternalError, 1, None);
    let s = w.engine.new_payment_after(&k, card("pm_card_visa"), None).await.unwrap();
    assert_eq!(s.outcome, CheckoutOutcome::Pending);
    let again = w.engine.new_payment_after(&k, card("pm_card_visa"), None).await.unwrap();
    assert_eq!(again.checkout_key, s.checkout_key, "resumed, not a new key");
    assert_eq!(again.outcome, CheckoutOutcome::Pending);
    assert_eq!(w.payments(), 2);
    assert_eq!(w.create_keys(), vec![k, s.checkout_key.clone(), s.checkout_key], "the same key resent");
    assert_eq!(w.psp.stats()["charges"].as_u64(), Some(0));
}

/// A refused capture, cancel or refund says which of them was refused (the app words
/// its message from that, not from the text).
#[tokio::test]
async fn wrong_state_names_the_operation_attempted() {
    let w = World::new();
    let k = w.declined().await;
    let attempted = |r: Result<_, EngineError>| match r {
        Err(EngineError::WrongState { state: PaymentState::Failed, attempted, .. }) => attempted,
        other => panic!("{other:?}"),
    };
    assert_eq!(attempted(w.engine.capture(&k).await.map(|_| ())), Attempted::Capture);
    assert_eq!(attempted(w.engine.cancel(&k).await.map(|_| ())), Attempted::Cancel);
    assert_eq!(attempted(w.engine.refund(&k, None, None).await.map(|_| ())), Attempted::Refund);
    assert_eq!(w.payments(), 1, "nothing new");
}
