//! record 0026: one writer, separate readers. The UI's lists and the End-of-day report read
//! on reader connections, so they answer while the writer is busy (a long commit, a
//! checkout in progress) and never hold it up. Real file ledger, real loopback HTTP.

use paydesk_ledger::{CheckoutOptions, Ledger, RandomKeys};
use paydesk_domain::{Currency, Money};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{Engine, EngineConfig, OsRandom, SystemClock};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// Generous: a reader that waited for the writer would wait for the whole hold below.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);
const WRITER_HOLD_MAX: Duration = Duration::from_secs(90);

async fn engine_over(ledger: Ledger, dir: &tempfile::TempDir) -> (mock_psp::RunningServer, Engine) {
    let psp = paydesk_test_kit::psp_on_file(dir.path(), "sk_test_a", 5);
    let server = paydesk_test_kit::serve(&psp).await;
    let transport = Arc::new(HttpTransport::new(&server.url(), "sk_test_a", Duration::from_secs(2)).unwrap());
    let engine = Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default());
    (server, engine)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_and_payment_details_answer_while_the_writer_is_held() {
    let temp = paydesk_test_kit::TempLedger::new();
    let (_server, engine) = engine_over(temp.open(), &temp.dir).await;
    assert_eq!(engine.reader_count(), 2);
    let paid = engine.checkout_amount(Money::new(1500, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    assert_eq!(paid.state.as_str(), "captured", "{paid:?}");

    // Hold the writer (as a long transaction would) until the reads below have answered.
    let (held_tx, held_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let holder = {
        let e = engine.clone();
        std::thread::spawn(move || {
            e.ledger_for_tests(|_| {
                held_tx.send(()).unwrap();
                let _ = release_rx.recv_timeout(WRITER_HOLD_MAX);
            })
        })
    };
    held_rx.recv_timeout(ANSWER_WITHIN).expect("the writer is held");

    let (answer_tx, answer_rx) = mpsc::channel();
    let reader = {
        let (e, key) = (engine.clone(), paid.checkout_key.clone());
        std::thread::spawn(move || {
            let list = e.list_payments(10, 0).map(|v| v.into_iter().map(|p| p.idempotency_key).collect::<Vec<_>>());
            let view = e.payment_view(&key).map(|v| (v.payment.state.as_str().to_string(), v.timeline.len()));
            answer_tx.send((list, view)).unwrap();
        })
    };
    let answered = answer_rx.recv_timeout(ANSWER_WITHIN);
    release_tx.send(()).unwrap();
    holder.join().unwrap();
    reader.join().unwrap();
    let (list, view) = answered.expect("reads must not wait for the writer");
    // The readers see what the writer committed before they were called.
    assert_eq!(list.unwrap(), vec![paid.checkout_key.clone()]);
    let (state, timeline_rows) = view.unwrap();
    assert_eq!(state, "captured");
    assert!(timeline_rows >= 3, "{timeline_rows}");

    // And the writer still works after the hold: the next checkout goes through.
    let next = engine.checkout_amount(Money::new(800, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    assert_eq!(next.state.as_str(), "captured");
    assert_eq!(engine.list_payments(10, 0).unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_memory_ledger_reads_on_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open_in_memory(Box::new(RandomKeys)).unwrap();
    let (_server, engine) = engine_over(ledger, &dir).await;
    assert_eq!(engine.reader_count(), 0);
    let paid = engine.checkout_amount(Money::new(900, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    let list = engine.list_payments(10, 0).unwrap();
    assert_eq!(list.iter().map(|p| p.idempotency_key.as_str()).collect::<Vec<_>>(), vec![paid.checkout_key.as_str()]);
    assert_eq!(engine.payment_view(&paid.checkout_key).unwrap().payment.state.as_str(), "captured");
}
