//! Sales paid by several tenders through the engine (record 0028), over real loopback
//! HTTP to the mock PSP with on-disk ledgers; every money outcome is also checked at
//! the PSP through its own API.

use mock_psp::{Fault, FaultConfig, MockPsp};
use paydesk_ledger::{CartId, CheckoutOptions, Ledger, NewProduct, SaleState, TenderState};
use paydesk_domain::{Currency, Money};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{CheckoutOutcome, CrashPoint, Engine, EngineConfig, EngineError, OsRandom, RetryPolicy, SystemClock};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const KEY: &str = "sk_test_tenders";

struct World {
    _dir: tempfile::TempDir,
    psp: MockPsp,
    server: mock_psp::RunningServer,
    engine: Engine,
    http: reqwest::Client,
}

fn config() -> EngineConfig {
    let quick = RetryPolicy {
        min_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(100),
        max_attempts: 3,
        phase_budget: Duration::from_secs(5),
        ..RetryPolicy::interactive()
    };
    EngineConfig {
        attempt_timeout: Duration::from_millis(700),
        interactive: quick.clone(),
        background: quick,
        search_settle_ms: 0,
        ..EngineConfig::default()
    }
}

fn engine_on(path: &Path, url: &str, crash: Option<paydesk_register::CrashHook>) -> Engine {
    let ledger = Ledger::open(path).unwrap();
    let transport = Arc::new(HttpTransport::new(url, KEY, Duration::from_secs(2)).unwrap());
    let e = Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), config());
    match crash {
        Some(h) => e.with_crash_hook(h),
        None => e,
    }
}

impl World {
    async fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let psp = MockPsp::builder()
            .db(dir.path().join("psp.sqlite3"))
            .secret_key(KEY)
            .seed(15)
            .faults(FaultConfig::none())
            .build()
            .unwrap();
        let server = psp.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let engine = engine_on(&dir.path().join("register.sqlite3"), &server.url(), None);
        engine
            .ledger_for_tests(|l| {
                l.carts_mut().seed_catalog(&[
                    NewProduct { sku: "TEA".into(), name: "Tea".into(), price: Money::new(350, Currency::Usd) },
                    NewProduct { sku: "BUN".into(), name: "Bun".into(), price: Money::new(1003, Currency::Eur) },
                ])
            })
            .unwrap();
        World { _dir: dir, psp, server, engine, http: reqwest::Client::new() }
    }

    fn cart(&self, sku: &str, qty: i64) -> CartId {
        let currency = if sku == "BUN" { Currency::Eur } else { Currency::Usd };
        self.engine
            .ledger_for_tests(|l| {
                let c = l.carts_mut().create(currency, 1)?;
                l.carts_mut().add(c, sku, qty, 1)?;
                Ok::<_, paydesk_ledger::Error>(c)
            })
            .unwrap()
    }

    async fn get(&self, path: &str) -> serde_json::Value {
        let r = self.http.get(format!("{}{path}", self.server.url())).bearer_auth(KEY).send().await.unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        r.json().await.unwrap()
    }

    /// The PSP's own view of a PaymentIntent: (status, amount).
    async fn intent(&self, pi: &str) -> (String, i64) {
        let v = self.get(&format!("/v1/payment_intents/{pi}")).await;
        (v["status"].as_str().unwrap().to_string(), v["amount"].as_i64().unwrap())
    }

    /// Refunds the PSP holds for a PaymentIntent: (amount, status) each.
    async fn psp_refunds(&self, pi: &str) -> Vec<(i64, String)> {
        let v = self.get(&format!("/v1/refunds?payment_intent={pi}&limit=100")).await;
        v["data"].as_array().unwrap().iter().map(|r| (r["amount"].as_i64().unwrap(), r["status"].as_str().unwrap().to_string())).collect()
    }

    fn pi_of(&self, checkout_key: &str) -> String {
        self.engine.ledger_for_tests(|l| l.payments().by_key(checkout_key)).unwrap().unwrap().psp_payment_id.unwrap()
    }
}

fn card(pm: &str) -> CheckoutOptions {
    CheckoutOptions::card(pm)
}

fn commits(e: &Engine) -> u64 {
    e.ledger_for_tests(|l| l.commit_count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cash_with_change_is_one_commit_and_the_drawer_follows() {
    let w = World::new().await;
    let cart = w.cart("TEA", 2); // 7.00
    let before = commits(&w.engine);
    let r = w.engine.pay_cash(cart, 1000, None).unwrap();
    assert_eq!(commits(&w.engine) - before, 1, "a cash sale is one durable commit");
    assert_eq!((r.change, r.rounding, r.sale.state, r.sale.due), (300, 0, SaleState::Paid, 0));
    assert_eq!(w.engine.tender_day(0).unwrap().expected_drawer, Some(vec![(Currency::Usd, 700)]));

    // The store's cash rounding: 10.03 is 10.05 in cash.
    w.engine.set_cash_rounding(Currency::Eur, 5).unwrap();
    let eur = w.cart("BUN", 1);
    assert_eq!(w.engine.sale_view(eur).unwrap().cash_due, 1005);
    let r = w.engine.pay_cash(eur, 2000, None).unwrap();
    assert_eq!((r.change, r.rounding, r.sale.state), (995, 2, SaleState::Paid));
    w.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_then_cash_each_checked_at_the_psp() {
    let w = World::new().await;
    let cart = w.cart("TEA", 2); // 700
    let before = commits(&w.engine);
    let r = w.engine.charge_card_tender(cart, Some(400), card("pm_card_visa"), None).await.unwrap();
    assert!(commits(&w.engine) - before <= 2, "a card tender is at most two durable commits");
    assert_eq!((r.checkout.outcome, r.checkout.amount), (CheckoutOutcome::Paid, 400));
    assert_eq!((r.sale.state, r.sale.settled, r.sale.due), (SaleState::PartiallyPaid, 400, 300));
    let over = w.engine.charge_card_tender(cart, Some(301), card("pm_card_visa"), None).await;
    assert!(matches!(over, Err(EngineError::TenderExceedsDue { open: 300, .. })), "{over:?}");
    let cash = w.engine.pay_cash(cart, 500, None).unwrap();
    assert_eq!((cash.change, cash.sale.state, cash.sale.due), (200, SaleState::Paid, 0));
    assert_eq!(w.intent(&w.pi_of(&r.checkout.checkout_key)).await, ("succeeded".to_string(), 400));
    let again = w.engine.pay_cash(cart, 100, None);
    assert!(matches!(again, Err(EngineError::SaleComplete { .. })), "{again:?}");
    w.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_cards_the_second_declined_then_a_third() {
    let w = World::new().await;
    let cart = w.cart("TEA", 2); // 700
    let a = w.engine.charge_card_tender(cart, Some(300), card("pm_card_visa"), None).await.unwrap();
    assert_eq!(a.checkout.outcome, CheckoutOutcome::Paid);
    let b = w.engine.charge_card_tender(cart, None, card("pm_card_chargeDeclined"), None).await.unwrap();
    assert_eq!((b.checkout.outcome, b.checkout.amount), (CheckoutOutcome::Declined, 400));
    assert_eq!((b.sale.state, b.sale.settled, b.sale.due), (SaleState::PartiallyPaid, 300, 400), "the first card is kept");
    let c = w.engine.charge_card_tender(cart, None, card("pm_card_visa"), None).await.unwrap();
    assert_eq!((c.checkout.outcome, c.sale.state, c.sale.due), (CheckoutOutcome::Paid, SaleState::Paid, 0));
    let states: Vec<TenderState> = c.sale.tenders.iter().map(|t| t.state).collect();
    assert_eq!(states, [TenderState::Settled, TenderState::Void, TenderState::Settled]);
    assert_eq!(w.intent(&w.pi_of(&a.checkout.checkout_key)).await, ("succeeded".to_string(), 300));
    assert_eq!(w.intent(&w.pi_of(&c.checkout.checkout_key)).await, ("succeeded".to_string(), 400));
    let declined = w.engine.ledger_for_tests(|l| l.payments().by_key(&b.checkout.checkout_key)).unwrap().unwrap();
    if let Some(pi) = declined.psp_payment_id {
        assert_ne!(w.intent(&pi).await.0, "succeeded", "the declined card was never charged");
    }
    w.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_a_half_paid_sale_refunds_each_card_tender_once_at_the_psp() {
    let w = World::new().await;
    let cart = w.cart("TEA", 3); // 1050
    let a = w.engine.charge_card_tender(cart, Some(300), card("pm_card_visa"), None).await.unwrap();
    let b = w.engine.charge_card_tender(cart, Some(250), card("pm_card_visa"), None).await.unwrap();
    w.engine.pay_cash(cart, 200, None).unwrap();
    let r = w.engine.cancel_sale(cart, "customer left").await.unwrap();
    assert_eq!((r.state, r.cash_returned, r.refunds.len()), (SaleState::Canceled, 200, 2), "{r:?}");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    for (key, amount) in [(&a.checkout.checkout_key, 300), (&b.checkout.checkout_key, 250)] {
        assert_eq!(w.psp_refunds(&w.pi_of(key)).await, vec![(amount, "succeeded".to_string())]);
    }
    // Pressed again: nothing new at the PSP, no more cash out.
    let again = w.engine.cancel_sale(cart, "customer left").await.unwrap();
    assert_eq!((again.state, again.cash_returned), (SaleState::Canceled, 0));
    for key in [&a.checkout.checkout_key, &b.checkout.checkout_key] {
        assert_eq!(w.psp_refunds(&w.pi_of(key)).await.len(), 1, "exactly one refund per card tender");
    }
    assert_eq!(w.engine.tender_day(0).unwrap().expected_drawer, Some(vec![(Currency::Usd, 0)]));
    let refused = w.engine.pay_cash(cart, 100, None);
    assert!(matches!(refused, Err(EngineError::SaleCanceled { .. })), "{refused:?}");
    w.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_killed_after_its_refund_reached_the_psp_resumes_without_a_second_refund() {
    let w = World::new().await;
    let path = w._dir.path().join("register.sqlite3");
    let cart = w.cart("TEA", 2);
    let a = w.engine.charge_card_tender(cart, Some(500), card("pm_card_visa"), None).await.unwrap();
    let pi = w.pi_of(&a.checkout.checkout_key);
    // A second register process on the same file that dies right after the PSP
    // answered the refund, before recording it.
    let crashing = engine_on(
        &path,
        &w.server.url(),
        Some(Arc::new(|p: CrashPoint| {
            if p == CrashPoint::MidRefund {
                panic!("killed at mid_refund");
            }
        })),
    );
    let killed = tokio::spawn(async move { crashing.cancel_sale(cart, "wrong items").await }).await;
    assert!(killed.is_err(), "the cancel died mid refund");
    assert_eq!(w.psp_refunds(&pi).await.len(), 1, "the refund executed at the PSP");
    assert_eq!(w.engine.sale_view(cart).unwrap().state, SaleState::Canceling);

    // The next start's recovery resumes the cancel with the same refund key.
    let rep = w.engine.recover().await.unwrap();
    assert_eq!(rep.sale_cancels_resumed, 1, "{rep:?}");
    assert_eq!(w.engine.sale_view(cart).unwrap().state, SaleState::Canceled);
    assert_eq!(w.psp_refunds(&pi).await, vec![(500, "succeeded".to_string())], "exactly one refund at the PSP");
    // And the cashier pressing Cancel again changes nothing.
    let again = w.engine.cancel_sale(cart, "wrong items").await.unwrap();
    assert_eq!(again.state, SaleState::Canceled);
    assert_eq!(w.psp_refunds(&pi).await.len(), 1);
    w.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_card_tender_blocks_a_second_tender_without_an_override() {
    let w = World::new().await;
    let cart = w.cart("TEA", 2); // 700
    // The PSP never answers the create: the outcome is unknown.
    w.psp.script_fault("/v1/payment_intents", Fault::DropRequest, 10, None);
    let a = w.engine.charge_card_tender(cart, Some(300), card("pm_card_visa"), None).await.unwrap();
    assert_eq!(a.checkout.outcome, CheckoutOutcome::Pending, "{a:?}");
    assert_eq!(a.sale.unknown_tender.as_deref(), Some(a.checkout.checkout_key.as_str()));
    let cash = w.engine.pay_cash(cart, 400, None);
    assert!(matches!(cash, Err(EngineError::TenderUnknownOutstanding { .. })), "{cash:?}");
    let other = w.engine.charge_card_tender(cart, Some(400), card("pm_card_visa"), None).await;
    assert!(matches!(other, Err(EngineError::TenderUnknownOutstanding { .. })), "{other:?}");
    let cancel = w.engine.cancel_sale(cart, "give up").await;
    assert!(matches!(cancel, Err(EngineError::TenderUnknownOutstanding { .. })), "{cancel:?}");
    w.psp.clear_script();
    assert_eq!(w.get("/v1/payment_intents?limit=100").await["data"].as_array().unwrap().len(), 0, "the dropped one never ran; nothing else was sent");

    // The answers come back: the pending tender resolves with its own key, then the
    // rest is taken as usual.
    let rep = w.engine.recover().await.unwrap();
    assert!(rep.resolved >= 1 || w.engine.sale_view(cart).unwrap().settled == 300, "{rep:?}");
    let s = w.engine.sale_view(cart).unwrap();
    assert_eq!((s.settled, s.due, s.unknown_tender.clone()), (300, 400, None), "{s:?}");
    let cash = w.engine.pay_cash(cart, 400, None).unwrap();
    assert_eq!(cash.sale.state, SaleState::Paid);
    assert_eq!(w.get("/v1/payment_intents?limit=100").await["data"].as_array().unwrap().len(), 1, "one card payment in all");
    assert_eq!(w.intent(&w.pi_of(&a.checkout.checkout_key)).await, ("succeeded".to_string(), 300));
    w.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_override_takes_cash_while_a_card_is_unknown_and_audits_it() {
    let w = World::new().await;
    let cart = w.cart("TEA", 2);
    w.psp.script_fault("/v1/payment_intents", Fault::DropRequest, 10, None);
    let a = w.engine.charge_card_tender(cart, None, card("pm_card_visa"), None).await.unwrap();
    assert_eq!(a.checkout.outcome, CheckoutOutcome::Pending);
    let r = w.engine.pay_cash(cart, 700, Some("customer paid cash instead")).unwrap();
    assert_eq!(r.sale.state, SaleState::Paid);
    assert_eq!(r.sale.tenders[0].state, TenderState::Superseded);
    let audit = w.engine.ledger_for_tests(|l| l.audit().log()).unwrap();
    assert!(audit.iter().any(|e| e.action == "tender_override" && e.reason == "customer paid cash instead"), "{audit:?}");
    // The superseded card did go through at the PSP: End of day lists it as owed back.
    w.psp.clear_script();
    w.engine.recover().await.unwrap();
    assert_eq!(w.engine.tender_day(0).unwrap().superseded_charged, vec![a.checkout.checkout_key.clone()]);
    assert_eq!(w.engine.sale_view(cart).unwrap().settled, 700, "never more than the total");
    w.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offline_card_tender_declined_at_forwarding_reopens_the_sale() {
    let w = World::new().await;
    let cart = w.cart("TEA", 2); // 700
    w.engine.pay_cash(cart, 200, None).unwrap();
    w.psp.set_offline(true, None);
    let mut alarms = w.engine.subscribe();
    let r = w.engine.charge_card_tender(cart, None, card("pm_card_chargeDeclined"), None).await.unwrap();
    assert_eq!(r.checkout.outcome, CheckoutOutcome::QueuedOffline, "{r:?}");
    assert_eq!((r.sale.state, r.sale.due), (SaleState::Paid, 0), "accepted offline counts until forwarded");
    w.psp.set_offline(false, None);
    let rep = w.engine.recover().await.unwrap();
    assert_eq!(rep.declined_after_forward, 1, "{rep:?}");
    let s = w.engine.sale_view(cart).unwrap();
    assert_eq!((s.state, s.due, s.settled), (SaleState::UnpaidBalance, 500, 200));
    let day = w.engine.tender_day(0).unwrap();
    assert_eq!(day.unpaid_balances.len(), 1);
    assert_eq!((day.unpaid_balances[0].cart_id, day.unpaid_balances[0].due_minor), (cart, 500));
    let mut reopened = false;
    while let Ok(n) = alarms.try_recv() {
        if let paydesk_register::Notification::Alarm { code, .. } = n {
            reopened |= code == paydesk_register::AlarmCode::SaleBalanceReopened;
        }
    }
    assert!(reopened, "the reopened balance is raised loudly");
    // Collected another way.
    let c = w.engine.charge_card_tender(cart, None, card("pm_card_visa"), None).await.unwrap();
    assert_eq!((c.sale.state, c.sale.due), (SaleState::Paid, 0));
    w.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recovery_never_makes_a_new_refund_key_for_a_cancel_only_the_cashier_does() {
    let w = World::new().await;
    let cart = w.cart("TEA", 2);
    let a = w.engine.charge_card_tender(cart, Some(300), card("pm_card_visa"), None).await.unwrap();
    let pi = w.pi_of(&a.checkout.checkout_key);
    // The cancel is committed, then its refund ends failed before anything was sent
    // (as when the PSP refuses it): nothing refunded, the sale stays canceling.
    let plan = w.engine.ledger_for_tests(|l| l.sales_mut().begin_cancel(cart, "wrong order", 5, &|_| false)).unwrap();
    let [paydesk_ledger::CancelAction::Refund { refund_id, .. }] = plan.actions.as_slice() else { panic!("{plan:?}") };
    w.engine
        .ledger_for_tests(|l| l.refunds_mut().transition(*refund_id, paydesk_domain::RefundState::Pending, paydesk_domain::RefundState::Failed, 6))
        .unwrap();
    let payment = w.engine.ledger_for_tests(|l| l.payments().by_key(&a.checkout.checkout_key)).unwrap().unwrap();
    for _ in 0..2 {
        let rep = w.engine.recover().await.unwrap();
        assert_eq!((rep.sale_cancels_resumed, rep.sale_cancels_completed), (1, 0), "{rep:?}");
    }
    assert_eq!(w.engine.ledger_for_tests(|l| l.refunds().for_payment(payment.id)).unwrap().len(), 1, "recovery made no new refund");
    assert_eq!(w.engine.sale_view(cart).unwrap().state, SaleState::Canceling);
    assert!(w.psp_refunds(&pi).await.is_empty());
    // The cashier presses Cancel again: a new refund with its own key, once.
    let r = w.engine.cancel_sale(cart, "wrong order").await.unwrap();
    assert_eq!(r.state, SaleState::Canceled, "{r:?}");
    assert_eq!(w.psp_refunds(&pi).await, vec![(300, "succeeded".to_string())]);
    w.server.shutdown().await;
}
