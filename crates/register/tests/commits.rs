//! The register adds at most two durable commits per checkout on the happy
//! path — #1 the key and parameters before any byte is sent (record 0003), #2 the
//! outcome (attempts, PSP id, state path) in one transaction. Counted exactly with the
//! ledger's SQLite commit hook, over real loopback HTTP to the mock PSP.

use paydesk_ledger::{CheckoutOptions, NewProduct};
use paydesk_domain::{Currency, Money};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{Engine, EngineConfig, OsRandom, SystemClock};
use std::sync::Arc;
use std::time::Duration;

async fn setup(dir: &tempfile::TempDir) -> (mock_psp::RunningServer, Engine) {
    let psp = paydesk_test_kit::psp_on_file(dir.path(), "sk_test_a", 11);
    let server = paydesk_test_kit::serve(&psp).await;
    let ledger = paydesk_test_kit::ledger_in(dir.path());
    let transport = Arc::new(HttpTransport::new(&server.url(), "sk_test_a", Duration::from_secs(2)).unwrap());
    let engine = Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default());
    (server, engine)
}

fn commits(e: &Engine) -> u64 {
    e.ledger_for_tests(|l| l.commit_count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paid_checkout_costs_at_most_two_durable_commits() {
    let dir = tempfile::tempdir().unwrap();
    let (server, engine) = setup(&dir).await;

    // Amount checkout (CLI `checkout --amount`).
    let before = commits(&engine);
    let r = engine.checkout_amount(Money::new(1200, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    let used = commits(&engine) - before;
    assert_eq!(r.state.as_str(), "captured", "{r:?}");
    assert_eq!(r.attempts, 1);
    assert!(r.psp_payment_id.is_some());
    assert!(used <= 2, "a paid checkout made {used} durable commits");
    assert!(used >= 1, "the commit hook counts: {used}");

    // Cart checkout (the cashier's Charge): the cart is locked then marked paid.
    engine
        .ledger_for_tests(|l| l.carts_mut().seed_catalog(&[NewProduct { sku: "tea".into(), name: "Tea".into(), price: Money::new(450, Currency::Jpy) }]))
        .unwrap();
    let cart = engine.ledger_for_tests(|l| l.carts_mut().create(Currency::Jpy, 1)).unwrap();
    engine.ledger_for_tests(|l| l.carts_mut().add(cart, "tea", 2, 1)).unwrap();
    let before = commits(&engine);
    let r = engine.charge_cart(cart, CheckoutOptions::card("pm_card_visa")).await.unwrap();
    let used = commits(&engine) - before;
    assert_eq!(r.state.as_str(), "captured", "{r:?}");
    assert_eq!(r.amount, 900);
    assert!(used <= 2, "a paid cart checkout made {used} durable commits");
    let p = engine.ledger_for_tests(|l| l.payments().by_key(&r.checkout_key)).unwrap().unwrap();
    assert!(p.first_attempt_at_ms.is_some());
    assert_eq!(engine.ledger_for_tests(|l| l.carts().by_id(cart)).unwrap().state.as_str(), "paid");
    // The timeline still tells the whole story: attempt, created -> authorizing -> captured.
    let tl = engine.ledger_for_tests(|l| l.payments().timeline(p.id)).unwrap();
    let kinds: Vec<&str> = tl.iter().map(|t| t.kind.as_str()).collect();
    assert!(kinds.contains(&paydesk_ledger::TimelineKind::Attempt.as_str()), "{kinds:?}");
    let moves: Vec<&str> = tl.iter().filter_map(|t| t.outcome.as_deref()).filter(|o| ["authorizing", "captured"].contains(o)).collect();
    assert!(moves.ends_with(&["authorizing", "captured"]), "{tl:?}");

    // A decline is settled the same way.
    let before = commits(&engine);
    let r = engine.checkout_amount(Money::new(300, Currency::Jpy), CheckoutOptions::card("pm_card_chargeDeclined")).await.unwrap();
    let used = commits(&engine) - before;
    assert_eq!(r.state.as_str(), "failed", "{r:?}");
    assert!(used <= 2, "a declined checkout made {used} durable commits");
    server.shutdown().await;
}
