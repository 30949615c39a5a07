//! The first event poll of a register without a stored cursor looks back from its first
//! payment, not only from "now": a register whose first poll comes long after its first
//! sales (PSP unreachable, a busy day, a short lookback) still applies their events.
//! Found by the 1,000,000-checkout soak (seeds 38, 44, 58, 74, 79, 86 of `make soak`:
//! `every_psp_event_applied` — events of the first sales, older than the lookback at the
//! first poll, were never read). Real loopback HTTP to the mock PSP, real ledger file.

use paydesk_ledger::CheckoutOptions;
use paydesk_domain::{Currency, Money};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{Engine, EngineConfig, OsRandom, SystemClock};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_first_poll_still_applies_the_first_sales_events() {
    let dir = tempfile::tempdir().unwrap();
    let psp = paydesk_test_kit::psp_on_file(dir.path(), "sk_test_a", 3);
    let server = paydesk_test_kit::serve(&psp).await;
    let transport = Arc::new(HttpTransport::new(&server.url(), "sk_test_a", Duration::from_secs(2)).unwrap());
    let clock = Arc::new(SystemClock::new());
    let cfg = EngineConfig { events_lookback: Duration::from_secs(10 * 60), ..EngineConfig::default() };
    let ledger = paydesk_test_kit::ledger_in(dir.path());
    let engine = Engine::new(ledger, transport, clock.clone(), Arc::new(OsRandom), cfg);

    for amount in [1200, 3400] {
        let r = engine.checkout_amount(Money::new(amount, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
        assert_eq!(r.state.as_str(), "captured", "{r:?}");
    }
    // Two hours pass before the first poll: far beyond the 10-minute lookback from now.
    clock.advance(Duration::from_secs(2 * 3600));
    let rep = engine.consume_events().await.unwrap();
    assert!(rep.applied >= 2, "{rep:?}");

    // Every event the PSP has is applied, exactly once.
    let psp_events: HashSet<String> = server
        .psp()
        .store()
        .read(|c| {
            let mut st = c.prepare("SELECT id FROM events")?;
            let ids = st.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<HashSet<_>, _>>()?;
            Ok(ids)
        })
        .await
        .unwrap();
    assert!(psp_events.len() >= 2, "{psp_events:?}");
    let applied: HashSet<String> = engine.reader_for_tests(|l| {
        let c = l.connection();
        let mut st = c.prepare("SELECT event_id FROM processed_events").unwrap();
        st.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect()
    });
    assert!(psp_events.is_subset(&applied), "missing: {:?}", psp_events.difference(&applied).collect::<Vec<_>>());
    // The next poll resumes from the stored cursor and finds nothing new.
    let again = engine.consume_events().await.unwrap();
    assert_eq!(again.applied, 0, "{again:?}");
}
