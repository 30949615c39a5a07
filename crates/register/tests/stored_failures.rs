//! Regression tests for the two register bugs the chaos simulation found, and for the
//! persisted events cursor — the real engine over the real mock PSP service (in
//! process, no socket), with the mock PSP's script mode injecting the faults.
//!
//! * A stored 500 on a capture / refund key: the PSP replays it for that key forever.
//!   The register must stop resending it, establish the truth at the PSP and continue
//!   under a fresh key committed first — never a second capture or refund.
//! * A refund past the dedup window: looked up by its metadata; found -> recorded;
//!   provably absent -> failed visibly (alarm), nothing refunded on either side.

use mock_psp::{Fault, FaultConfig, ManualClock, MockPsp};
use paydesk_ledger::{CheckoutOptions, Ledger, SeededKeys};
use paydesk_domain::{CaptureMethod, Currency, Money, RefundState};
use paydesk_register::clock::VirtualClock;
use paydesk_register::transport::Method;
use paydesk_test_kit::{advance_both, call, get_json, InProcess, Posts};
use paydesk_register::{Engine, EngineConfig, Notification, SeededRandom};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

const KEY: &str = "sk_test_a";
const START_MS: i64 = 1_800_000_000_000;

struct World {
    psp: MockPsp,
    clock: Arc<VirtualClock>,
    posts: Posts,
}

impl World {
    fn new(seed: u64) -> World {
        let psp_clock = Arc::new(ManualClock::new(START_MS));
        let psp = MockPsp::builder().memory().secret_key(KEY).seed(seed).faults(FaultConfig::none()).clock(psp_clock.clone()).build().unwrap();
        World { psp, clock: Arc::new(VirtualClock::new(START_MS)), posts: Default::default() }
    }
    fn engine(&self, ledger: Ledger, seed: u64) -> Engine {
        let mut t = InProcess::new(&self.psp, &self.clock, KEY);
        t.posts = Some(self.posts.clone());
        let t = Arc::new(t);
        Engine::new(ledger, t, self.clock.clone(), Arc::new(SeededRandom::new(seed)), EngineConfig::default())
    }
    /// Both clocks move together (the register's and the PSP's).
    fn advance(&self, d: Duration) {
        advance_both(&self.clock, &self.psp, d);
    }
    /// A GET through the PSP's real API.
    async fn get(&self, path: &str) -> Value {
        get_json(&self.psp, KEY, path).await
    }
    async fn post(&self, path: &str, key: &str) -> (u16, bool) {
        let (status, replayed, _) = call(&self.psp, KEY, Method::Post, path, Some(key)).await;
        (status, replayed)
    }
    async fn refunds_at_psp(&self, pi: &str) -> Vec<Value> {
        self.get(&format!("/v1/refunds?payment_intent={pi}&limit=100")).await["data"].as_array().unwrap().clone()
    }
    fn posts_to(&self, path: &str) -> Vec<String> {
        self.posts.lock().iter().filter(|(p, _)| p == path).map(|(_, k)| k.clone()).collect()
    }
}

fn ledger(seed: u64) -> Ledger {
    Ledger::open_in_memory(Box::new(SeededKeys::new(seed))).unwrap()
}

fn manual() -> CheckoutOptions {
    CheckoutOptions { capture_method: CaptureMethod::Manual, ..CheckoutOptions::card("pm_card_visa") }
}

fn alarms(rx: &mut tokio::sync::broadcast::Receiver<Notification>) -> Vec<String> {
    let mut out = vec![];
    while let Ok(n) = rx.try_recv() {
        if let Notification::Alarm { code, .. } = n {
            out.push(code.as_str().to_string());
        }
    }
    out
}

#[tokio::test(flavor = "current_thread")]
async fn stored_500_on_capture_continues_under_a_fresh_key_after_get_shows_no_capture() {
    let w = World::new(1);
    let e = w.engine(ledger(1), 1);
    let co = e.checkout_amount(Money::new(1200, Currency::Jpy), manual()).await.unwrap();
    assert_eq!(co.state.as_str(), "authorized");
    let pi = co.psp_payment_id.clone().unwrap();
    let path = format!("/v1/payment_intents/{pi}/capture");
    w.psp.script_fault(&path, Fault::InternalError, 1, None);

    let r = e.capture(&co.checkout_key).await.unwrap();
    assert_eq!(r.state.as_str(), "captured", "{r:?}");
    let root = format!("{}-capture", co.checkout_key);
    assert_eq!(w.posts_to(&path), vec![root.clone(), format!("{root}-1")], "the stored-500 key is sent once, then one fresh key");
    // The old key really is dead: the PSP replays its 500 byte for byte.
    assert_eq!(w.post(&path, &root).await, (500, true));
    // One capture at the PSP, ledger = PSP.
    let at_psp = w.get(&format!("/v1/payment_intents/{pi}")).await;
    assert_eq!(at_psp["status"], "succeeded");
    assert_eq!(at_psp["amount_received"], 1200);
    let stats = w.psp.stats();
    assert_eq!(stats["charges"].as_u64(), Some(1), "{stats}");
    // The fresh key was committed (with its reason) before it was sent.
    let view = e.payment_view(&co.checkout_key).unwrap();
    assert!(view.timeline.iter().any(|t| t.outcome.as_deref() == Some("new_key") && t.detail.contains(&format!("{root}-1"))), "{:#?}", view.timeline);
}

#[tokio::test(flavor = "current_thread")]
async fn capture_keys_are_bounded_then_the_payment_needs_attention() {
    let w = World::new(2);
    let e = w.engine(ledger(2), 2);
    let mut rx = e.subscribe();
    let co = e.checkout_amount(Money::new(700, Currency::Jpy), manual()).await.unwrap();
    let pi = co.psp_payment_id.clone().unwrap();
    let path = format!("/v1/payment_intents/{pi}/capture");
    w.psp.script_fault(&path, Fault::InternalError, 100, None);

    let r = e.capture(&co.checkout_key).await.unwrap();
    assert_eq!(r.state.as_str(), "capturing", "not captured, not pretended: {r:?}");
    assert!(r.message.as_deref().unwrap_or("").contains("Needs attention"), "{r:?}");
    assert!(alarms(&mut rx).contains(&"needs_attention".to_string()));
    let keys = w.posts_to(&path);
    assert_eq!(keys.len(), 1 + paydesk_register::engine::MAX_KEY_REISSUES as usize, "{keys:?}");
    assert_eq!(w.get(&format!("/v1/payment_intents/{pi}")).await["status"], "requires_capture");
    // Another pass does not mint more keys.
    let _ = e.capture(&co.checkout_key).await.unwrap();
    let again = w.posts_to(&path);
    let mut distinct = again.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), keys.len(), "{again:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn stored_500_on_refund_becomes_a_new_refund_under_a_fresh_key_one_refund_at_the_psp() {
    let w = World::new(3);
    let e = w.engine(ledger(3), 3);
    let co = e.checkout_amount(Money::new(5000, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    assert_eq!(co.state.as_str(), "captured");
    let pi = co.psp_payment_id.clone().unwrap();
    w.psp.script_fault("/v1/refunds", Fault::InternalError, 1, None);

    let r = e.refund(&co.checkout_key, Some(2000), None).await.unwrap();
    assert_eq!(r.state.as_str(), "succeeded", "{r:?}");
    let sent = w.posts_to("/v1/refunds");
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_ne!(sent[0], sent[1]);
    assert_eq!(r.refund_key, sent[1]);
    assert_eq!(w.post("/v1/refunds", &sent[0]).await.0, 400, "same key, different (empty) params: still remembered");
    // Ledger: the first refund failed (nothing refunded under it), the second succeeded.
    let view = e.payment_view(&co.checkout_key).unwrap();
    let states: Vec<_> = view.refunds.iter().map(|x| (x.idempotency_key.clone(), x.state)).collect();
    assert_eq!(states, vec![(sent[0].clone(), RefundState::Failed), (sent[1].clone(), RefundState::Succeeded)]);
    assert_eq!(view.payment.state.as_str(), "partially_refunded");
    assert_eq!(view.payment.refunded_minor, 2000);
    // PSP: exactly one refund, carrying the new key in its metadata.
    let at_psp = w.refunds_at_psp(&pi).await;
    assert_eq!(at_psp.len(), 1, "{at_psp:?}");
    assert_eq!(at_psp[0]["amount"], 2000);
    assert_eq!(at_psp[0]["metadata"]["refund_key"], sent[1].as_str());
    // The rest is still refundable, exactly.
    let rest = e.refund(&co.checkout_key, None, None).await.unwrap();
    assert_eq!((rest.state.as_str(), rest.amount), ("succeeded", 3000));
    assert_eq!(w.refunds_at_psp(&pi).await.len(), 2);
}

#[tokio::test(flavor = "current_thread")]
async fn refund_past_the_window_that_never_reached_the_psp_fails_visibly() {
    let w = World::new(4);
    let e = w.engine(ledger(4), 4);
    let mut rx = e.subscribe();
    let co = e.checkout_amount(Money::new(900, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    let pi = co.psp_payment_id.clone().unwrap();
    w.psp.set_offline(true, None);
    let r = e.refund(&co.checkout_key, None, None).await.unwrap();
    assert_eq!(r.state.as_str(), "in_flight", "{r:?}");
    w.psp.set_offline(false, None);
    // A day later (past retention minus margin): the key must never be sent again.
    w.advance(Duration::from_secs(24 * 3600));
    let sent_before = w.posts_to("/v1/refunds").len();
    let rep = e.recover().await.unwrap();
    assert_eq!((rep.refunds_resolved, rep.refunds_pending), (1, 0), "{rep:?}");
    assert_eq!(w.posts_to("/v1/refunds").len(), sent_before, "no resend past the window");
    let view = e.payment_view(&co.checkout_key).unwrap();
    assert_eq!(view.refunds[0].state, RefundState::Failed);
    assert_eq!(view.payment.state.as_str(), "captured", "the amount is refundable again");
    assert!(w.refunds_at_psp(&pi).await.is_empty());
    assert!(alarms(&mut rx).contains(&"refund_not_made".to_string()));
}

#[tokio::test(flavor = "current_thread")]
async fn refund_past_the_window_that_did_reach_the_psp_is_found_by_its_metadata() {
    let w = World::new(5);
    let e = w.engine(ledger(5), 5);
    let co = e.checkout_amount(Money::new(1500, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    let pi = co.psp_payment_id.clone().unwrap();
    // Executed and committed at the PSP, every answer lost.
    w.psp.script_fault("/v1/refunds", Fault::DropResponse, 100, None);
    let r = e.refund(&co.checkout_key, Some(600), None).await.unwrap();
    assert_eq!(r.state.as_str(), "in_flight", "{r:?}");
    w.psp.clear_script();
    w.advance(Duration::from_secs(24 * 3600));
    let sent_before = w.posts_to("/v1/refunds").len();
    let rep = e.recover().await.unwrap();
    assert_eq!(rep.refunds_resolved, 1, "{rep:?}");
    assert_eq!(w.posts_to("/v1/refunds").len(), sent_before, "found, never resent");
    let at_psp = w.refunds_at_psp(&pi).await;
    assert_eq!(at_psp.len(), 1);
    let view = e.payment_view(&co.checkout_key).unwrap();
    assert_eq!(view.refunds[0].state, RefundState::Succeeded);
    assert_eq!(view.refunds[0].psp_refund_id.as_deref(), at_psp[0]["id"].as_str());
    assert_eq!(view.payment.refunded_minor, 600);
}

#[tokio::test(flavor = "current_thread")]
async fn a_restarted_register_resumes_events_from_the_stored_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("register.db");
    let w = World::new(6);
    let e = w.engine(Ledger::open_with_keys(&path, Box::new(SeededKeys::new(6))).unwrap(), 6);
    for i in 0..3 {
        e.checkout_amount(Money::new(100 + i, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    }
    w.advance(Duration::from_secs(3600));
    e.checkout_amount(Money::new(200, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    let first = e.consume_events().await.unwrap();
    assert_eq!((first.fetched, first.applied), (4, 4), "{first:?}");
    let cursor = e.ledger_for_tests(|l| l.sync_log().event_cursor("default")).unwrap().expect("cursor stored");
    assert_eq!(cursor, START_MS / 1000 + 3600);
    drop(e);

    // An hour later, one more sale, then a restart: the poll starts at the stored
    // cursor minus the 5 min overlap — it re-reads the last sale (a duplicate, applied
    // once) but not the three an hour before it, nor the 30-day lookback.
    w.advance(Duration::from_secs(3600));
    let e = w.engine(Ledger::open_with_keys(&path, Box::new(SeededKeys::new(7))).unwrap(), 7);
    e.checkout_amount(Money::new(999, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    let second = e.consume_events().await.unwrap();
    assert_eq!((second.fetched, second.applied, second.duplicates), (2, 1, 1), "{second:?}");
    assert_eq!(e.ledger_for_tests(|l| l.sync_log().event_cursor("default")).unwrap(), Some(START_MS / 1000 + 7200));
    drop(e);

    // Control: without the stored cursor the same restart re-reads everything
    // (and applies nothing twice).
    {
        let l = Ledger::open(&path).unwrap();
        l.connection().execute("DELETE FROM event_cursors", []).unwrap();
    }
    let e = w.engine(Ledger::open_with_keys(&path, Box::new(SeededKeys::new(8))).unwrap(), 8);
    let third = e.consume_events().await.unwrap();
    assert_eq!((third.fetched, third.applied, third.duplicates), (5, 0, 5), "{third:?}");
}
