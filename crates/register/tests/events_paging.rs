//! The event poll's paging loop is bounded: a PSP that keeps answering `has_more`
//! (a bug, a proxy looping on one page) stops the poll after
//! [`MAX_EVENT_PAGES_PER_POLL`] pages instead of spinning forever, and a poll cut short
//! keeps the stored cursor (pages come newest first, so the oldest events of the
//! window were not read). A list that ends moves the cursor as before.

use paydesk_ledger::{Ledger, SeededKeys};
use paydesk_register::clock::{BoxFuture, VirtualClock};
use paydesk_register::transport::{HttpRequest, HttpResponse, Transport, TransportError};
use paydesk_register::{Engine, EngineConfig, SeededRandom, MAX_EVENT_PAGES_PER_POLL};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

const NOW_MS: i64 = 1_800_000_000_000;

/// Answers every `GET /v1/events` with one new event; `has_more` until `last_page`.
struct Pages {
    served: AtomicU32,
    last_page: Option<u32>,
}

impl Transport for Pages {
    fn send(&self, req: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, TransportError>> {
        assert!(req.path.starts_with("/v1/events"), "{}", req.path);
        let n = self.served.fetch_add(1, Ordering::SeqCst) + 1;
        let has_more = self.last_page.is_none_or(|last| n < last);
        let body = serde_json::json!({
            "object": "list",
            "has_more": has_more,
            "data": [{
                "id": format!("evt_{n:06}"),
                "type": "customer.created",
                "created": NOW_MS / 1000 - i64::from(n),
                "data": {"object": {"object": "customer", "id": format!("cus_{n}")}},
            }],
        });
        let resp = HttpResponse { status: 200, headers: vec![], body: body.to_string().into_bytes() };
        Box::pin(async move { Ok(resp) })
    }
    fn endpoint(&self) -> Option<String> {
        Some("pages-test".into())
    }
}

fn engine(last_page: Option<u32>) -> (Engine, Arc<Pages>) {
    let pages = Arc::new(Pages { served: AtomicU32::new(0), last_page });
    let ledger = Ledger::open_in_memory(Box::new(SeededKeys::new(1))).unwrap();
    let clock = Arc::new(VirtualClock::new(NOW_MS));
    let e = Engine::new(ledger, pages.clone(), clock, Arc::new(SeededRandom::new(1)), EngineConfig::default());
    (e, pages)
}

#[tokio::test]
async fn a_psp_that_always_has_more_stops_at_the_page_limit_and_keeps_the_cursor() {
    let (e, pages) = engine(None);
    let rep = e.consume_events().await.unwrap();
    assert_eq!(rep.pages, MAX_EVENT_PAGES_PER_POLL);
    assert_eq!(pages.served.load(Ordering::SeqCst), MAX_EVENT_PAGES_PER_POLL);
    assert_eq!(rep.fetched, MAX_EVENT_PAGES_PER_POLL);
    assert_eq!(rep.applied, MAX_EVENT_PAGES_PER_POLL, "what was read is applied");
    assert_eq!(e.ledger_for_tests(|l| l.sync_log().event_cursor("pages-test")).unwrap(), None, "a cut-short poll keeps the cursor");
}

#[tokio::test]
async fn a_list_that_ends_moves_the_cursor() {
    let (e, pages) = engine(Some(3));
    let rep = e.consume_events().await.unwrap();
    assert_eq!((rep.pages, rep.fetched), (3, 3));
    assert_eq!(pages.served.load(Ordering::SeqCst), 3);
    // The newest event read (page 1) is where the next poll resumes.
    assert_eq!(e.ledger_for_tests(|l| l.sync_log().event_cursor("pages-test")).unwrap(), Some(NOW_MS / 1000 - 1));
}
