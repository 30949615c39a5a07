//! Card-present payments on a server-driven reader through the engine (issue 27, design
//! record 0070), against the real mock PSP over loopback with on-disk ledgers. The customer is
//! played through the PSP's own test helper (`present_payment_method`), faults through its
//! admin script, and every outcome is checked at the PSP: at most one successful charge per
//! intent and per checkout key, "not charged" never charged later.

use mock_psp::{FaultConfig, MockPsp};
use paydesk_ledger::{CartId, Ledger, NewProduct, ReaderAttemptOutcome, SaleState};
use paydesk_domain::{Currency, Money, PaymentState};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{
    Engine, EngineConfig, NotChargedWhy, OsRandom, ReaderConfig, ReaderOutcome, ReaderReport, RetryPolicy, SystemClock,
    UnavailableWhy,
};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const KEY: &str = "sk_test_reader";
const APPROVED: &str = "4242424242424242";
const DECLINED: &str = "4000000000000002";

fn config() -> EngineConfig {
    let quick = RetryPolicy {
        min_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(100),
        max_attempts: 3,
        phase_budget: Duration::from_secs(5),
        ..RetryPolicy::interactive()
    };
    EngineConfig {
        attempt_timeout: Duration::from_millis(1500),
        interactive: quick.clone(),
        background: quick,
        search_settle_ms: 0,
        // A charge hands the payment to the reader and reads once: the test plays the
        // customer afterwards, then waits with `wait_on_reader`.
        reader: ReaderConfig { poll_interval: Duration::from_millis(50), wait: Duration::ZERO, stuck_after: Duration::from_secs(120) },
        ..EngineConfig::default()
    }
}

fn engine_on(path: &Path, url: &str) -> Engine {
    let ledger = Ledger::open(path).unwrap();
    let transport = Arc::new(HttpTransport::new(url, KEY, Duration::from_secs(2)).unwrap());
    Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), config())
}

struct World {
    dir: tempfile::TempDir,
    _psp: MockPsp,
    server: mock_psp::RunningServer,
    engine: Engine,
    http: reqwest::Client,
    reader: String,
}

impl World {
    async fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let psp = MockPsp::builder().db(dir.path().join("psp.sqlite3")).secret_key(KEY).seed(27).faults(FaultConfig::none()).admin(true).build().unwrap();
        let server = paydesk_test_kit::serve(&psp).await;
        let engine = engine_on(&dir.path().join("register.sqlite3"), &server.url());
        engine
            .ledger_for_tests(|l| l.carts_mut().seed_catalog(&[NewProduct { sku: "TEA".into(), name: "Tea".into(), price: Money::new(350, Currency::Usd) }]))
            .unwrap();
        let loc = engine.create_reader_location("Front store", &[("line1", "1 Main St"), ("city", "Springfield"), ("country", "US")]).await.unwrap();
        let reg = engine.register_reader("simulated-wpe", "Front till", &loc).await.unwrap();
        assert_eq!(engine.readers().unwrap(), vec![reg.reader.clone()]);
        World { dir, _psp: psp, server, engine, http: reqwest::Client::new(), reader: reg.reader.id }
    }

    fn cart(&self, qty: i64) -> CartId {
        self.engine
            .ledger_for_tests(|l| {
                let c = l.carts_mut().create(Currency::Usd, 1)?;
                l.carts_mut().add(c, "TEA", qty, 1)?;
                Ok::<_, paydesk_ledger::Error>(c)
            })
            .unwrap()
    }

    async fn get(&self, path: &str) -> Value {
        let r = self.http.get(format!("{}{path}", self.server.url())).bearer_auth(KEY).send().await.unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        r.json().await.unwrap()
    }

    /// The customer presents `card` on the simulated reader (the PSP's test helper).
    async fn present(&self, card: &str) -> Value {
        present_at(&self.http, &self.server.url(), &self.reader, card).await
    }


    /// The customer taps whether or not the reader is collecting (the PSP refuses a tap
    /// on an idle reader): the answer's status.
    async fn try_present(&self, card: &str) -> u16 {
        let r = self
            .http
            .post(format!("{}/v1/test_helpers/terminal/readers/{}/present_payment_method", self.server.url(), self.reader))
            .bearer_auth(KEY)
            .header("Idempotency-Key", format!("customer-{}", uuid_like()))
            .form(&[("type", "card_present"), ("card_present[number]", card)])
            .send()
            .await
            .unwrap();
        r.status().as_u16()
    }

    /// The next process call gets `fault` (the PSP's admin script).
    async fn script(&self, fault: &str) {
        let r = self.http.post(format!("{}/__admin/faults/script", self.server.url())).form(&[("fault", fault), ("count", "1")]).send().await.unwrap();
        assert!(r.status().is_success(), "script {fault}: {}", r.status());
    }

    /// Every PaymentIntent the PSP holds for a checkout key: (id, status).
    async fn intents_for(&self, checkout_key: &str) -> Vec<(String, String)> {
        intents_at(&self.http, &self.server.url(), checkout_key).await
    }

    /// The invariant, checked at the PSP: one intent per checkout key, at most one success.
    async fn one_intent(&self, checkout_key: &str) -> (String, String) {
        let all = self.intents_for(checkout_key).await;
        assert_eq!(all.len(), 1, "exactly one intent for {checkout_key}: {all:?}");
        assert!(all.iter().filter(|(_, s)| s == "succeeded").count() <= 1);
        all[0].clone()
    }

    async fn paid(&self, key: &str) -> ReaderReport {
        let r = self.engine.wait_on_reader(key, Duration::from_secs(10)).await.unwrap();
        assert_eq!(r.outcome, ReaderOutcome::Paid, "{r:?}");
        r
    }
}

/// The customer presents `card` on `reader` through the PSP's test helper.
async fn present_at(http: &reqwest::Client, url: &str, reader: &str, card: &str) -> Value {
    let key = format!("customer-{}", uuid_like());
    let r = http
        .post(format!("{url}/v1/test_helpers/terminal/readers/{reader}/present_payment_method"))
        .bearer_auth(KEY)
        .header("Idempotency-Key", key)
        .form(&[("type", "card_present"), ("card_present[number]", card)])
        .send()
        .await
        .unwrap();
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert!(status.is_success(), "present: {status} {body}");
    body
}

/// Every PaymentIntent the PSP holds for a checkout key: (id, status).
async fn intents_at(http: &reqwest::Client, url: &str, checkout_key: &str) -> Vec<(String, String)> {
    let q = format!("metadata['checkout_key']:'{checkout_key}'");
    let r = http.get(format!("{url}/v1/payment_intents/search?query={}", urlencode(&q))).bearer_auth(KEY).send().await.unwrap();
    assert!(r.status().is_success(), "search: {}", r.status());
    let v: Value = r.json().await.unwrap();
    v["data"].as_array().unwrap().iter().map(|p| (p["id"].as_str().unwrap().to_string(), p["status"].as_str().unwrap().to_string())).collect()
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst))
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn commits(e: &Engine) -> u64 {
    e.ledger_for_tests(|l| l.commit_count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_card_is_paid_once_with_its_card_present_details() {
    let w = World::new().await;
    let cart = w.cart(2); // 7.00
    let before = commits(&w.engine);
    let r = w.engine.charge_reader_tender(cart, None, &w.reader, None).await.unwrap();
    let key = r.reader.checkout_key.clone();
    assert_eq!((r.reader.state, r.reader.outcome), (PaymentState::OnReader, ReaderOutcome::WaitingForCard), "{r:?}");
    assert_eq!(r.reader.process_key.as_deref(), Some(format!("{key}-process-1").as_str()));
    w.present(APPROVED).await;
    let paid = w.paid(&key).await;
    assert!(commits(&w.engine) - before <= 3, "the key, the attempt, the result: {} commits", commits(&w.engine) - before);
    assert_eq!(paid.state, PaymentState::Captured);
    let card = paid.card.clone().expect("card-present details stored for the receipt");
    assert_eq!((card.brand.as_deref(), card.last4.as_deref()), (Some("visa"), Some("4242")));
    assert!(card.dedicated_file_name.is_some() && card.application_preferred_name.is_some(), "{card:?}");
    let (pi, status) = w.one_intent(&key).await;
    assert_eq!((Some(pi.clone()), status.as_str()), (paid.intent_id.clone(), "succeeded"));
    let at_psp = w.get(&format!("/v1/payment_intents/{pi}")).await;
    assert_eq!(at_psp["payment_method_types"][0], "card_present");
    let sale = w.engine.ledger_for_tests(|l| l.sales().by_cart(cart)).unwrap();
    assert_eq!(sale.state, SaleState::Paid);
    // The reader's and the intent's events are applied once; a second poll re-reads them.
    let first = w.engine.consume_events().await.unwrap();
    assert!(first.applied >= 2, "{first:?}");
    let second = w.engine.consume_events().await.unwrap();
    assert_eq!(second.applied, 0, "{second:?}");
    assert_eq!(w.engine.reader_status(&key).unwrap().outcome, ReaderOutcome::Paid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decline_then_present_again_on_the_same_intent_is_paid_once() {
    let w = World::new().await;
    let r = w.engine.charge_on_reader(Money::new(1250, Currency::Usd), &w.reader).await.unwrap();
    let key = r.checkout_key.clone();
    w.present(DECLINED).await;
    let d = w.engine.wait_on_reader(&key, Duration::from_secs(10)).await.unwrap();
    assert_eq!(d.outcome, ReaderOutcome::NotCharged { why: NotChargedWhy::Declined }, "{d:?}");
    assert_eq!((d.state, d.failure_code.as_deref()), (PaymentState::OnReader, Some("card_declined")));
    let (pi, status) = w.one_intent(&key).await;
    assert_eq!(status, "requires_payment_method", "not charged at the PSP");
    // Recovery leaves a declined payment to the cashier: nothing is processed again.
    let rec = w.engine.recover().await.unwrap();
    assert_eq!(rec.examined, 0, "{rec:?}");
    // A person presents again: attempt 2, its own key, the SAME intent.
    let again = w.engine.present_again(&key).await.unwrap();
    assert_eq!((again.attempt_no, again.outcome), (Some(2), ReaderOutcome::WaitingForCard), "{again:?}");
    assert_eq!(again.process_key.as_deref(), Some(format!("{key}-process-2").as_str()));
    w.present(APPROVED).await;
    let paid = w.paid(&key).await;
    assert_eq!(paid.intent_id.as_deref(), Some(pi.as_str()));
    assert_eq!(w.one_intent(&key).await, (pi, "succeeded".to_string()));
    // Presenting again after it was paid processes nothing.
    let late = w.engine.present_again(&key).await.unwrap();
    assert_eq!((late.outcome, late.attempt_no), (ReaderOutcome::Paid, Some(2)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_reader_started_nothing_and_the_next_press_goes_through() {
    let w = World::new().await;
    w.script("reader_busy").await;
    let r = w.engine.charge_on_reader(Money::new(500, Currency::Usd), &w.reader).await.unwrap();
    assert_eq!(r.outcome, ReaderOutcome::ReaderBusy, "{r:?}");
    let key = r.checkout_key.clone();
    let attempts = w.engine.ledger_for_tests(|l| l.card_readers().payment(l.payments().by_key(&key)?.unwrap().id)).unwrap().unwrap().attempts;
    assert_eq!(attempts[0].outcome, ReaderAttemptOutcome::Canceled);
    assert_eq!(w.one_intent(&key).await.1, "requires_payment_method");
    let again = w.engine.present_again(&key).await.unwrap();
    assert_eq!(again.outcome, ReaderOutcome::WaitingForCard, "{again:?}");
    w.present(APPROVED).await;
    w.paid(&key).await;
    assert_eq!(w.one_intent(&key).await.1, "succeeded");
}

/// Before the card is asked for, the customer sees the sale on the reader: its lines when
/// the payment is the whole sale, one line with the amount for a part of it. A busy reader
/// refuses the process call, so the display is still what the reader shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reader_shows_the_sales_lines_before_the_card_is_asked_for() {
    let w = World::new().await;
    let shown = |r: Value| {
        assert_eq!(r["action"]["type"], "set_reader_display", "{r}");
        r["action"]["set_reader_display"]["cart"].clone()
    };
    w.script("reader_busy").await;
    let whole = w.cart(2); // 2 × 3.50
    let r = w.engine.charge_reader_tender(whole, None, &w.reader, None).await.unwrap();
    assert_eq!(r.reader.outcome, ReaderOutcome::ReaderBusy, "{r:?}");
    let cart = shown(w.get(&format!("/v1/terminal/readers/{}", w.reader)).await);
    assert_eq!(cart["line_items"], serde_json::json!([{"amount": 350, "description": "Tea", "quantity": 2}]), "{cart}");
    assert_eq!((cart["total"].as_i64(), cart["currency"].as_str()), (Some(700), Some("usd")), "{cart}");
    let _ = w.engine.abandon_reader_payment(&r.reader.checkout_key).await.unwrap();

    w.script("reader_busy").await;
    let split = w.cart(3); // 10.50, of which 4.00 on the card
    let r = w.engine.charge_reader_tender(split, Some(400), &w.reader, None).await.unwrap();
    assert_eq!(r.reader.outcome, ReaderOutcome::ReaderBusy, "{r:?}");
    let cart = shown(w.get(&format!("/v1/terminal/readers/{}", w.reader)).await);
    assert_eq!(cart["line_items"], serde_json::json!([{"amount": 400, "description": format!("Sale {}", split.0), "quantity": 1}]), "{cart}");
    assert_eq!(cart["total"].as_i64(), Some(400), "{cart}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_customer_cancels_then_the_cashier_abandons_and_it_is_never_charged() {
    let w = World::new().await;
    w.script("reader_customer_cancels").await;
    let cart = w.cart(1);
    let r = w.engine.charge_reader_tender(cart, None, &w.reader, None).await.unwrap();
    let key = r.reader.checkout_key.clone();
    w.present(APPROVED).await;
    let c = w.engine.wait_on_reader(&key, Duration::from_secs(10)).await.unwrap();
    assert_eq!(c.outcome, ReaderOutcome::NotCharged { why: NotChargedWhy::CustomerCanceled }, "{c:?}");
    let gone = w.engine.abandon_reader_payment(&key).await.unwrap();
    assert_eq!((gone.state, gone.outcome), (PaymentState::Canceled, ReaderOutcome::NotCharged { why: NotChargedWhy::IntentCanceled }));
    assert_eq!(w.one_intent(&key).await.1, "canceled", "not charged stays true forever");
    // The sale is open again for another tender.
    let sale = w.engine.ledger_for_tests(|l| l.sales().by_cart(cart)).unwrap();
    assert_eq!(sale.totals.open_minor(), 350);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tap_that_races_the_cancel_is_reported_paid_by_the_read_afterwards() {
    let w = World::new().await;
    let r = w.engine.charge_on_reader(Money::new(900, Currency::Usd), &w.reader).await.unwrap();
    let key = r.checkout_key.clone();
    // The customer taps just before the cashier abandons: the engine has not read yet.
    w.present(APPROVED).await;
    let after = w.engine.abandon_reader_payment(&key).await.unwrap();
    assert_eq!((after.outcome, after.state), (ReaderOutcome::Paid, PaymentState::Captured), "{after:?}");
    assert_eq!(w.one_intent(&key).await.1, "succeeded");
    // A cancel on the reader of a paid payment changes nothing.
    assert_eq!(w.engine.cancel_reader_action(&key).await.unwrap().outcome, ReaderOutcome::Paid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_timeout_that_still_started_is_pending_then_paid_once() {
    let w = World::new().await;
    w.script("reader_timeout_started").await;
    let r = w.engine.charge_on_reader(Money::new(700, Currency::Usd), &w.reader).await.unwrap();
    let key = r.checkout_key.clone();
    assert!(!r.outcome.is_resolved(), "a timeout is never a result: {r:?}");
    assert_eq!(r.state, PaymentState::OnReader);
    w.present(APPROVED).await;
    w.paid(&key).await;
    assert_eq!(w.one_intent(&key).await.1, "succeeded");
    let rp = w.engine.ledger_for_tests(|l| l.card_readers().payment(l.payments().by_key(&key)?.unwrap().id)).unwrap().unwrap();
    assert_eq!(rp.attempts.len(), 1, "resolved by reading, never a second process");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_timeout_that_started_nothing_is_not_charged_and_presenting_again_works() {
    let w = World::new().await;
    w.script("reader_timeout").await;
    let r = w.engine.charge_on_reader(Money::new(700, Currency::Usd), &w.reader).await.unwrap();
    let key = r.checkout_key.clone();
    assert!(matches!(r.outcome, ReaderOutcome::NotCharged { .. }), "the read shows no action and an unpaid intent: {r:?}");
    let again = w.engine.present_again(&key).await.unwrap();
    assert_eq!(again.outcome, ReaderOutcome::WaitingForCard);
    w.present(APPROVED).await;
    w.paid(&key).await;
    assert_eq!(w.one_intent(&key).await.1, "succeeded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_error_during_authorization_is_never_not_charged_and_ends_paid() {
    let w = World::new().await;
    w.script("reader_connection_error").await;
    let r = w.engine.charge_on_reader(Money::new(1100, Currency::Usd), &w.reader).await.unwrap();
    let key = r.checkout_key.clone();
    w.present(APPROVED).await;
    let reader = w.get(&format!("/v1/terminal/readers/{}", w.reader)).await;
    assert_eq!(reader["action"]["failure_code"], "connection_error", "{reader}");
    let after = w.engine.wait_on_reader(&key, Duration::from_secs(10)).await.unwrap();
    assert_eq!(after.outcome, ReaderOutcome::Paid, "the intent decides, not the failed action: {after:?}");
    assert_eq!(w.one_intent(&key).await.1, "succeeded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_psp_unreachable_the_reader_is_unavailable_and_nothing_is_queued() {
    let dir = tempfile::tempdir().unwrap();
    // A port nobody listens on: connections are refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let engine = engine_on(&dir.path().join("register.sqlite3"), &format!("http://127.0.0.1:{port}"));
    engine.ledger_for_tests(|l| l.carts_mut().seed_catalog(&[NewProduct { sku: "TEA".into(), name: "Tea".into(), price: Money::new(350, Currency::Usd) }])).unwrap();
    let cart = engine
        .ledger_for_tests(|l| {
            let c = l.carts_mut().create(Currency::Usd, 1)?;
            l.carts_mut().add(c, "TEA", 1, 1)?;
            Ok::<_, paydesk_ledger::Error>(c)
        })
        .unwrap();
    let r = engine.charge_reader_tender(cart, None, "tmr_somewhere", None).await.unwrap();
    assert_eq!(r.reader.outcome, ReaderOutcome::ReaderUnavailable { why: UnavailableWhy::PspUnreachable }, "{r:?}");
    assert_eq!(r.reader.state, PaymentState::Canceled, "proven never sent");
    assert!(engine.ledger_for_tests(|l| l.payments().offline_queue()).unwrap().is_empty(), "never accepted offline");
    assert_eq!(r.sale.open, 350, "the sale still needs its money: cash is offered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_after_the_process_call_is_resolved_by_recovery_without_a_second_intent() {
    let w = World::new().await;
    let r = w.engine.charge_on_reader(Money::new(1300, Currency::Usd), &w.reader).await.unwrap();
    let key = r.checkout_key.clone();
    assert_eq!(r.outcome, ReaderOutcome::WaitingForCard);
    let World { dir, _psp, server, engine, http, reader } = w;
    drop(engine); // the register dies with the payment on the reader
    // The customer pays while the register is down.
    present_at(&http, &server.url(), &reader, APPROVED).await;
    let engine = engine_on(&dir.path().join("register.sqlite3"), &server.url());
    assert_eq!(engine.reader_status(&key).unwrap().state, PaymentState::OnReader);
    let rec = engine.recover().await.unwrap();
    assert_eq!((rec.examined, rec.resolved), (1, 1), "{rec:?}");
    let after = engine.reader_status(&key).unwrap();
    assert_eq!((after.state, after.outcome), (PaymentState::Captured, ReaderOutcome::Paid));
    assert_eq!(after.card.and_then(|c| c.last4).as_deref(), Some("4242"));
    let all = intents_at(&http, &server.url(), &key).await;
    assert_eq!(all.len(), 1, "no second intent: {all:?}");
    assert_eq!(all[0].1, "succeeded");
    let rp = engine.ledger_for_tests(|l| l.card_readers().payment(l.payments().by_key(&key)?.unwrap().id)).unwrap().unwrap();
    assert_eq!(rp.attempts.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_before_anything_was_processed_ends_canceled_by_recovery() {
    let w = World::new().await;
    // The key and the reader committed, then the register died before the intent's create.
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let created = now_ms - 60_000;
    let p = w.engine.ledger_for_tests(|l| l.card_readers_mut().create_payment(Money::new(400, Currency::Usd), &w.reader, paydesk_domain::CaptureMethod::Automatic, created)).unwrap();
    // A payment just committed by a live call is left to that call.
    let fresh = w.engine.ledger_for_tests(|l| l.card_readers_mut().create_payment(Money::new(401, Currency::Usd), &w.reader, paydesk_domain::CaptureMethod::Automatic, now_ms)).unwrap();
    let rec = w.engine.recover().await.unwrap();
    assert_eq!(w.engine.reader_status(&fresh.idempotency_key).unwrap().state, PaymentState::Created);
    assert_eq!(rec.resolved, 1, "{rec:?}");
    assert_eq!(w.engine.reader_status(&p.idempotency_key).unwrap().state, PaymentState::Canceled);
    assert!(w.intents_for(&p.idempotency_key).await.iter().all(|(_, s)| s == "canceled"));
}

/// Found by the simulation (crates/sim, reader sales): the intent's cancel used one fixed
/// key, so a stored failure on it (a 500 the PSP's idempotency layer keeps) answered every
/// later press and the payment could never be abandoned. Each press now has its own key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_failure_on_the_intents_cancel_does_not_block_the_next_abandon() {
    let w = World::new().await;
    let r = w.engine.charge_on_reader(Money::new(820, Currency::Usd), &w.reader).await.unwrap();
    let key = r.checkout_key.clone();
    w.present(DECLINED).await;
    let d = w.engine.wait_on_reader(&key, Duration::from_secs(10)).await.unwrap();
    assert_eq!(d.outcome, ReaderOutcome::NotCharged { why: NotChargedWhy::Declined }, "{d:?}");
    let pi = d.intent_id.clone().unwrap();
    let path = format!("/v1/payment_intents/{pi}/cancel");
    let s = w.http.post(format!("{}/__admin/faults/script", w.server.url())).form(&[("fault", "internal_error"), ("path", path.as_str()), ("count", "1")]).send().await.unwrap();
    assert!(s.status().is_success());
    let first = w.engine.abandon_reader_payment(&key).await.unwrap();
    assert_eq!(first.state, PaymentState::OnReader, "the cancel failed: not abandoned yet: {first:?}");
    assert_eq!(w.one_intent(&key).await.1, "requires_payment_method");
    let second = w.engine.abandon_reader_payment(&key).await.unwrap();
    assert_eq!((second.state, second.outcome), (PaymentState::Canceled, ReaderOutcome::NotCharged { why: NotChargedWhy::IntentCanceled }), "{second:?}");
    assert_eq!(w.one_intent(&key).await, (pi, "canceled".to_string()));
}

/// Found while fixing the stored failure on the create (next test; the simulation arms this
/// crash): a crash right after the intent's create reached the PSP loses the attempt and
/// the intent's id; abandoning then took "no attempt recorded" for "no intent" and canceled
/// only the ledger's row, leaving the intent at the PSP. Abandon now searches the checkout
/// key and cancels the intent it finds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_intent_whose_create_answer_died_with_the_register_is_found_and_canceled_on_abandon() {
    let w = World::new().await;
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let p = w.engine.ledger_for_tests(|l| l.card_readers_mut().create_payment(Money::new(830, Currency::Usd), &w.reader, paydesk_domain::CaptureMethod::Automatic, now_ms)).unwrap();
    let key = p.idempotency_key.clone();
    // The create as the PSP received it, under the checkout key; its answer was never recorded.
    let form = [("amount", "830"), ("currency", "usd"), ("payment_method_types[]", "card_present"), ("capture_method", "automatic"), ("metadata[checkout_key]", key.as_str())];
    let created = w.http.post(format!("{}/v1/payment_intents", w.server.url())).bearer_auth(KEY).header("Idempotency-Key", key.as_str()).form(&form).send().await.unwrap();
    assert!(created.status().is_success(), "{}", created.status());
    assert_eq!(w.engine.reader_status(&key).unwrap().state, PaymentState::Created);
    let gone = w.engine.abandon_reader_payment(&key).await.unwrap();
    assert_eq!(gone.state, PaymentState::Canceled, "{gone:?}");
    let (pi, status) = w.one_intent(&key).await;
    assert_eq!(status, "canceled", "the intent the crash hid is canceled at the PSP, not left behind");
    assert_eq!(gone.intent_id, Some(pi), "the ledger knows the intent it canceled");
}

/// Found by the simulation: a stored failure on the intent's create (the key answers a
/// 500 for ever) left the reader payment `created` for good, since abandoning replayed the
/// create. Abandon now asks search: no intent under the key, so none will ever be made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_failure_on_the_intents_create_still_lets_the_cashier_abandon() {
    let w = World::new().await;
    let s = w.http.post(format!("{}/__admin/faults/script", w.server.url())).form(&[("fault", "internal_error"), ("path", "/v1/payment_intents"), ("count", "1")]).send().await.unwrap();
    assert!(s.status().is_success());
    let r = w.engine.charge_on_reader(Money::new(840, Currency::Usd), &w.reader).await.unwrap();
    let key = r.checkout_key.clone();
    assert_eq!(r.state, PaymentState::Created, "{r:?}");
    assert!(!r.outcome.is_resolved(), "{r:?}");
    let gone = w.engine.abandon_reader_payment(&key).await.unwrap();
    assert_eq!((gone.state, gone.outcome), (PaymentState::Canceled, ReaderOutcome::NotCharged { why: NotChargedWhy::IntentCanceled }), "{gone:?}");
    assert!(w.intents_for(&key).await.is_empty(), "no intent was ever made under this key");
}

/// The invariant under a seeded random walk of what a cashier and a customer can do
/// (approve, decline, customer cancels, present again, check status, cancel on the
/// reader, abandon, a crash and recovery): at the PSP at most one succeeded intent per
/// checkout key (and one intent per key); the ledger agrees with the PSP; a payment once
/// reported "not charged" by a canceled intent is never charged later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_random_walk_never_charges_twice_and_the_ledger_agrees_with_the_psp() {
    let mut w = World::new().await;
    let mut seed: u64 = 0x2702_2026;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut keys = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for round in 0..4 {
        let r = w.engine.charge_on_reader(Money::new(600 + round, Currency::Usd), &w.reader).await.unwrap();
        let key = r.checkout_key.clone();
        keys.push(key.clone());
        let mut final_not_charged = false;
        for _ in 0..10 {
            let step = next(12);
            let res = match step {
                0 | 9 | 10 => {
                    w.try_present(APPROVED).await;
                    w.engine.wait_on_reader(&key, Duration::from_secs(5)).await
                }
                1 => {
                    w.try_present(DECLINED).await;
                    w.engine.wait_on_reader(&key, Duration::from_secs(5)).await
                }
                2 => {
                    w.script("reader_customer_cancels").await;
                    w.engine.present_again(&key).await
                }
                3 | 4 => w.engine.present_again(&key).await,
                5 => w.engine.check_reader_status(&key).await,
                6 => w.engine.cancel_reader_action(&key).await,
                7 => w.engine.abandon_reader_payment(&key).await,
                8 => {
                    // The register dies and comes back: recovery resolves what it can.
                    let path = w.dir.path().join("register.sqlite3");
                    let url = w.server.url();
                    w.engine = engine_on(&path, &url);
                    w.engine.recover().await.map(|_| w.engine.reader_status(&key).unwrap())
                }
                _ => w.engine.check_reader_status(&key).await,
            };
            let r = res.unwrap();
            seen.insert(format!("{:?}", r.outcome));
            if r.outcome == (ReaderOutcome::NotCharged { why: NotChargedWhy::IntentCanceled }) {
                final_not_charged = true;
            }
            if final_not_charged {
                assert_ne!(r.outcome, ReaderOutcome::Paid, "{key}: not charged became paid");
            }
            let all = w.intents_for(&key).await;
            assert!(all.len() <= 1, "{key}: {all:?}");
            assert!(all.iter().filter(|(_, s)| s == "succeeded").count() <= 1);
        }
        // Whatever the walk did, the ledger and the PSP agree.
        let p = w.engine.ledger_for_tests(|l| l.payments().by_key(&key)).unwrap().unwrap();
        let at_psp = w.intents_for(&key).await;
        match p.state {
            PaymentState::Captured => assert_eq!(at_psp[0].1, "succeeded", "{key}"),
            PaymentState::Canceled => assert!(at_psp.iter().all(|(_, s)| s == "canceled"), "{key}: {at_psp:?}"),
            PaymentState::OnReader => assert!(at_psp.iter().all(|(_, s)| s != "succeeded" && s != "canceled") || {
                // a success not read yet: one check settles it
                let r = w.engine.check_reader_status(&key).await.unwrap();
                r.state == PaymentState::Captured
            }, "{key}: {at_psp:?}"),
            other => panic!("{key}: unexpected {other}"),
        }
        // Leave the reader free for the next payment.
        let _ = w.engine.abandon_reader_payment(&key).await.unwrap();
    }
    // The walk went through the outcomes that matter.
    for o in ["Paid", "WaitingForCard", "NotCharged { why: IntentCanceled }"] {
        assert!(seen.contains(o), "the walk never saw {o}: {seen:?}");
    }
    assert!(seen.iter().any(|o| o.starts_with("NotCharged") && !o.contains("IntentCanceled")), "a not-charged attempt: {seen:?}");
    // Every reader payment ends resolved: paid or canceled, and each agrees with the PSP.
    for key in &keys {
        let p = w.engine.ledger_for_tests(|l| l.payments().by_key(key)).unwrap().unwrap();
        let at_psp = w.intents_for(key).await;
        match p.state {
            PaymentState::Captured => assert_eq!(at_psp.iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>(), ["succeeded"]),
            PaymentState::Canceled => assert!(at_psp.iter().all(|(_, s)| s == "canceled")),
            other => panic!("{key} ended {other}"),
        }
    }
}
