//! Fault injection over real loopback HTTP: the article's three timeout cases,
//! offline, transient errors, event redelivery, admin endpoints, seeded rates.
use crate::common;
use common::*;
use mock_psp::{Fault, FaultConfig, MockPsp, Outcome, PspRequest};
use std::time::Duration;

const PI: &str = "/v1/payment_intents";

fn params() -> Vec<(&'static str, &'static str)> {
    vec![("amount", "700"), ("currency", "eur"), ("payment_method", "pm_card_visa"), ("confirm", "true")]
}

#[tokio::test]
async fn case_a_drop_request_never_answers_and_never_executes() {
    let p = start_default().await;
    p.server.psp().script_fault(PI, Fault::DropRequest, 1, None);
    let short = reqwest::Client::builder().timeout(Duration::from_millis(400)).build().unwrap();
    let err = short.post(format!("{}{PI}", p.url)).bearer_auth(SK_A).header("Idempotency-Key", "a1").form(&params()).send().await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    // The retry with the same key is a first execution.
    let r = p.post(SK_A, PI, Some("a1"), &params()).await;
    assert_eq!(r.status, 200);
    assert!(!r.replayed());
    let s = p.stats().await;
    assert_eq!(s["faults"]["drop_request"], 1);
    assert_eq!(s["charges"], 1);
}

#[tokio::test]
async fn case_b_drop_response_commits_then_closes_and_retry_replays() {
    let p = start_default().await;
    p.server.psp().script_fault(PI, Fault::DropResponse, 1, None);
    let err = p.client.post(format!("{}{PI}", p.url)).bearer_auth(SK_A).header("Idempotency-Key", "b1").form(&params()).send().await.unwrap_err();
    assert!(!err.is_timeout(), "the connection is closed, not left hanging: {err:?}");
    let r = p.post(SK_A, PI, Some("b1"), &params()).await;
    assert_eq!(r.status, 200);
    assert!(r.replayed(), "the charge happened; the retry is a replay");
    assert_eq!(p.all_pis(SK_A).await.len(), 1);
    let s = p.stats().await;
    assert_eq!(s["charges"], 1);
    assert_eq!(s["faults"]["drop_response"], 1);
}

#[tokio::test]
async fn offline_refuses_connections_until_turned_off_admin_still_reachable() {
    let p = start_default().await;
    let r = p.admin_post("/__admin/offline", &[("on", "true")]).await;
    assert_eq!(r.json()["offline"], true);
    let err = p.client.post(format!("{}{PI}", p.url)).bearer_auth(SK_A).header("Idempotency-Key", "o1").form(&params()).send().await.unwrap_err();
    assert!(err.is_connect() || err.is_request(), "{err:?}");
    assert!(p.get_err(SK_A, "/v1/events").await);
    // Admin stays reachable so offline can be turned off.
    assert!(p.stats().await["faults"]["offline"].as_u64().unwrap() >= 2);
    let r = p.admin_post("/__admin/offline", &[("on", "false")]).await;
    assert_eq!(r.json()["offline"], false);
    let r = p.post(SK_A, PI, Some("o1"), &params()).await;
    assert_eq!(r.status, 200);
    assert!(!r.replayed(), "nothing was executed while offline");
    // Offline for a period of clock time.
    p.server.psp().set_offline(true, Some(Duration::from_secs(10)));
    assert!(p.get_err(SK_A, "/v1/events").await);
    p.server.psp().advance_clock(Duration::from_secs(11));
    assert_eq!(p.get(SK_A, "/v1/events").await.status, 200);
}

impl Psp {
    async fn get_err(&self, sk: &str, path: &str) -> bool {
        self.client.get(format!("{}{}", self.url, path)).bearer_auth(sk).send().await.is_err()
    }
}

#[tokio::test]
async fn duplicate_and_out_of_order_event_redelivery_keeps_cursor_ends() {
    let p = start_default().await;
    for i in 0..8 {
        p.post(SK_A, PI, Some(&format!("e{i}")), &params()).await;
    }
    let clean = p.get(SK_A, "/v1/events?limit=100").await.json();
    let clean_ids: Vec<String> = clean["data"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().into()).collect();
    assert_eq!(clean_ids.len(), 8);
    p.server.psp().script_fault("/v1/events", Fault::DuplicateEvents, 1, None);
    let dup = p.get(SK_A, "/v1/events?limit=100").await.json();
    let dup_ids: Vec<String> = dup["data"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().into()).collect();
    assert!(dup_ids.len() > clean_ids.len(), "re-delivered events are added");
    assert_eq!(dup_ids.first(), clean_ids.first());
    assert_eq!(dup_ids.last(), clean_ids.last());
    let mut a = dup_ids.clone();
    a.sort();
    a.dedup();
    let mut b = clean_ids.clone();
    b.sort();
    assert_eq!(a, b, "the same set of events, some more than once");
    assert_eq!(p.stats().await["faults"]["duplicate_events"], 1);
}

#[tokio::test]
async fn admin_endpoints_only_with_admin_and_never_by_merchant_key() {
    let dir = tempfile::tempdir().unwrap();
    let psp = MockPsp::builder().db(dir.path().join("x.db")).secret_key(SK_A).build().unwrap();
    let server = psp.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let c = client();
    for path in ["/__admin/stats", "/__admin/faults", "/__admin/clock"] {
        let r = into(c.get(format!("{}{path}", server.url())).bearer_auth(SK_A).send().await.unwrap()).await;
        assert_eq!(r.status, 404, "{path}");
    }
    let r = into(c.post(format!("{}/__admin/offline", server.url())).bearer_auth(SK_A).form(&[("on", "true")]).send().await.unwrap()).await;
    assert_eq!(r.status, 404);
    assert!(!psp.is_offline());
    server.shutdown().await;
}

#[tokio::test]
async fn admin_faults_presets_rates_and_script() {
    let p = start_default().await;
    let r = p.admin_post("/__admin/faults", &[("preset", "chaos")]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["config"], serde_json::to_value(FaultConfig::chaos()).unwrap());
    let r = p.admin_post("/__admin/faults", &[("preset", "none"), ("drop_response", "0.5"), ("slow_ms", "10")]).await;
    assert_eq!(r.json()["config"]["drop_response"], 0.5);
    assert_eq!(r.json()["config"]["slow_ms"], 10);
    assert_eq!(p.admin_post("/__admin/faults", &[("drop_request", "2")]).await.status, 400);
    assert_eq!(p.admin_post("/__admin/faults", &[("preset", "wild")]).await.status, 400);
    p.admin_post("/__admin/faults", &[("preset", "none")]).await;
    let r = p.admin_post("/__admin/faults/script", &[("path", PI), ("fault", "transient_503"), ("count", "2")]).await;
    assert_eq!(r.status, 200);
    assert_eq!(p.post(SK_A, PI, Some("s"), &params()).await.status, 503);
    assert_eq!(p.post(SK_A, PI, Some("s"), &params()).await.status, 503);
    assert_eq!(p.post(SK_A, PI, Some("s"), &params()).await.status, 200);
    assert_eq!(p.admin_post("/__admin/faults/script", &[("fault", "meteor")]).await.status, 400);
    let s = p.stats().await;
    assert_eq!(s["faults"]["transient_503"], 2);
    assert_eq!(s["injected_faults"], 2);
    assert_eq!(s["requests"], 3);
    let clock = into(p.client.get(format!("{}/__admin/clock", p.url)).send().await.unwrap()).await.json();
    assert!(clock["now_ms"].as_i64().unwrap() > 0);
}

/// The in-process entry point reports faults as outcomes; with one seed and one
/// request order the run is reproducible.
#[tokio::test]
async fn seeded_rates_are_reproducible_in_process() {
    async fn run(seed: u64) -> Vec<String> {
        let clock = std::sync::Arc::new(mock_psp::ManualClock::new(1_800_000_000_000));
        let mut cfg = FaultConfig::chaos();
        cfg.slow = 0.0;
        let psp = MockPsp::builder().secret_key(SK_A).seed(seed).faults(cfg).clock(clock).build().unwrap();
        let mut out = vec![];
        for i in 0..60 {
            let key = format!("k{}", i / 2);
            let req = PspRequest::post(PI, SK_A, Some(&key), &[("amount", "100"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true")]);
            out.push(match psp.handle(req).await {
                Outcome::Respond(r) => format!("{} {}", r.status, r.header("idempotent-replayed").unwrap_or("-")),
                Outcome::DropRequest => "drop_request".into(),
                Outcome::DropResponse(r) => format!("drop_response {}", r.json()["id"]),
                Outcome::Offline => "offline".into(),
            });
        }
        out
    }
    let a = run(42).await;
    assert_eq!(a, run(42).await);
    assert!(a.iter().any(|o| o != "200 -" && o != "200 true"), "chaos injected something: {a:?}");
    assert_ne!(a, run(43).await);
}

#[tokio::test]
async fn offline_outcome_in_process() {
    let psp = MockPsp::builder().secret_key(SK_A).build().unwrap();
    psp.set_offline(true, None);
    assert!(matches!(psp.handle(PspRequest::get("/v1/events", SK_A)).await, Outcome::Offline));
    psp.set_offline(false, None);
    assert_eq!(psp.handle(PspRequest::get("/v1/events", SK_A)).await.response().unwrap().status, 200);
}

/// Under a ManualClock the slow fault waits for virtual time: a retry meanwhile gets
/// 409, and advancing the clock lets the first request finish.
#[tokio::test]
async fn slow_fault_runs_on_virtual_time_in_process() {
    let clock = mock_psp::ManualClock::new(1_800_000_000_000);
    let psp = MockPsp::builder().secret_key(SK_A).seed(3).clock(std::sync::Arc::new(clock.clone())).build().unwrap();
    psp.script_fault(PI, Fault::Slow, 1, Some(5_000));
    let req = PspRequest::post(PI, SK_A, Some("v1"), &[("amount", "100"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true")]);
    let p2 = psp.clone();
    let r2 = req.clone();
    let first = tokio::spawn(async move { p2.handle(r2).await });
    while psp.stats()["faults"]["slow"] != 1 {
        tokio::task::yield_now().await;
    }
    let busy = psp.handle(req.clone()).await;
    assert_eq!(busy.response().unwrap().status, 409);
    mock_psp::Clock::advance(&clock, Duration::from_secs(5));
    let first = first.await.unwrap();
    assert_eq!(first.response().unwrap().status, 200);
    let again = psp.handle(req).await;
    assert_eq!(again.response().unwrap().header("idempotent-replayed"), Some("true"));
}

/// End to end under the chaos preset (rates, seeded): a client that retries every
/// checkout with its one key until it gets an answer ends with exactly one
/// PaymentIntent per checkout — never two, never none.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_preset_with_retrying_client_charges_each_checkout_exactly_once() {
    let mut cfg = FaultConfig::chaos();
    cfg.slow_ms = 300;
    // A stored 500 is terminal for its key ("unknown: reconcile"); it has its own test.
    cfg.internal_error = 0.0;
    let p = start(MockPsp::builder().faults(cfg).lock_timeout(Duration::from_secs(5))).await;
    let http = reqwest::Client::builder().timeout(Duration::from_millis(1000)).build().unwrap();
    let checkouts = 40;
    let mut tasks = vec![];
    for i in 0..checkouts {
        let (http, url) = (http.clone(), format!("{}{PI}", p.url));
        tasks.push(tokio::spawn(async move {
            let key = uuid_like(1000 + i);
            let ck = format!("chaos-{i}");
            for attempt in 0..200 {
                let form = [("amount", "1000"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true"), ("metadata[checkout_key]", ck.as_str())];
                match http.post(&url).bearer_auth(SK_A).header("Idempotency-Key", &key).form(&form).send().await {
                    Ok(r) if r.status() == 200 => return (attempt, r.json::<serde_json::Value>().await.unwrap()["id"].as_str().unwrap().to_string()),
                    Ok(r) => assert!([409, 429, 503].contains(&r.status().as_u16()), "unexpected {}", r.status()),
                    Err(_) => {} // outcome unknown: retry with the same key
                }
                tokio::time::sleep(Duration::from_millis(10)).await; // client backoff
            }
            panic!("checkout {i} never got an answer");
        }));
    }
    let mut ids = std::collections::HashSet::new();
    let mut retried = 0;
    for t in tasks {
        let (attempts, id) = t.await.unwrap();
        retried += (attempts > 0) as usize;
        assert!(ids.insert(id));
    }
    assert!(retried > 0, "chaos made some checkouts retry");
    // The chaos is over: the checks below read the PSP, and its faults apply to every
    // request, GETs too (a dropped list request hung the check for its 30 s timeout in a
    // loaded run, where timing drew a different fault for it than on a quiet machine).
    assert_eq!(p.admin_post("/__admin/faults", &[("preset", "none")]).await.status, 200);
    assert_eq!(p.all_pis(SK_A).await.len(), checkouts);
    let s = p.stats().await;
    assert_eq!(s["charges"], checkouts as u64, "{s}");
    assert!(s["injected_faults"].as_u64().unwrap() > 0);
}

/// A client that gives up mid-execution (timeout, disconnect) does not stop the
/// execution once its claim is committed (as at Stripe): the retry with the same key
/// gets 409 while it runs, then the stored result as a replay — one charge, and no
/// waiting for the lock to expire. Real loopback HTTP; the slow execution sleeps on a
/// manual clock, so "finishes" is an explicit step of the test, not a timing guess.
#[tokio::test]
async fn client_disconnect_mid_execution_does_not_cancel_it() {
    let clock = mock_psp::ManualClock::new(1_800_000_000_000);
    let p = start(MockPsp::builder().clock(std::sync::Arc::new(clock.clone())).lock_timeout(Duration::from_secs(3600))).await;
    p.server.psp().script_fault(PI, Fault::Slow, 1, Some(5_000));
    let short = reqwest::Client::builder().timeout(Duration::from_millis(300)).build().unwrap();
    let err = short.post(format!("{}{PI}", p.url)).bearer_auth(SK_A).header("Idempotency-Key", "gone-1").form(&params()).send().await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    drop(short); // the client's connection is gone
    let s = p.stats().await;
    assert_eq!(s["faults"]["slow"], 1, "the execution began: {s}");
    assert_eq!(s["executions"], 0);
    // Still executing: the key is locked.
    let r = p.post(SK_A, PI, Some("gone-1"), &params()).await;
    assert_eq!(r.status, 409, "{:?}", r.json());
    assert_eq!(r.err_code(), "idempotency_key_in_use");
    // The slow execution's 5 s pass (far less than the 1 h lock timeout).
    mock_psp::Clock::advance(&clock, Duration::from_secs(5));
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while p.stats().await["executions"] != 1 {
        assert!(std::time::Instant::now() < deadline, "the abandoned execution never finished (cancelled with its client?)");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let r = p.post(SK_A, PI, Some("gone-1"), &params()).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    assert!(r.replayed(), "the retry replays the stored result");
    assert_eq!(r.json()["status"], "succeeded");
    let s = p.stats().await;
    assert_eq!(s["charges"], 1);
    assert_eq!(s["redrives"], 0, "no lock expiry was needed");
    assert_eq!(p.all_pis(SK_A).await.len(), 1);
}

/// `--search-lag-ms`: search is eventually consistent, as Stripe's is. A PaymentIntent
/// created less than the lag ago (by the PSP's clock) is missing from search results,
/// while GET and list already show it; once the lag has passed, search finds it.
#[tokio::test]
async fn search_lag_hides_a_fresh_payment_intent_until_the_lag_has_passed() {
    let clock = std::sync::Arc::new(mock_psp::ManualClock::new(1_800_000_000_000));
    let faults = FaultConfig { search_lag_ms: 60_000, ..FaultConfig::none() };
    let p = start(MockPsp::builder().clock(clock.clone()).faults(faults)).await;
    let r = p.create_pi(SK_A, "lag1", "700", "pm_card_visa", &[("metadata[checkout_key]", "lag1")]).await;
    assert_eq!(r.status, 200);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let q = format!("{PI}/search?query={}", form_urlencoded::byte_serialize(b"metadata['checkout_key']:'lag1'").collect::<String>());
    let found = |v: serde_json::Value| v["data"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();

    assert!(found(p.get(SK_A, &q).await.json()).is_empty(), "fresh: not searchable yet");
    assert_eq!(p.get(SK_A, &format!("{PI}/{id}")).await.status, 200, "but it exists");
    assert_eq!(p.all_pis(SK_A).await.len(), 1, "and is listed");
    p.server.psp().advance_clock(Duration::from_millis(59_999));
    assert!(found(p.get(SK_A, &q).await.json()).is_empty(), "1 ms before the lag: still hidden");
    // `created` has second resolution: the PSP counts the lag from the end of that
    // second (never less than the lag), so it shows up by lag + 999 ms.
    p.server.psp().advance_clock(Duration::from_millis(1_000));
    assert_eq!(found(p.get(SK_A, &q).await.json()), vec![id.clone()], "past the lag: found");

    // The lag is a setting of the admin endpoint too; 0 turns it off at once.
    let r2 = p.create_pi(SK_A, "lag2", "700", "pm_card_visa", &[("metadata[checkout_key]", "lag1")]).await;
    let id2 = r2.json()["id"].as_str().unwrap().to_string();
    assert_eq!(found(p.get(SK_A, &q).await.json()), vec![id.clone()], "the second one is fresh");
    let c = p.admin_post("/__admin/faults", &[("search_lag_ms", "0")]).await;
    assert_eq!(c.json()["config"]["search_lag_ms"], 0);
    assert_eq!(found(p.get(SK_A, &q).await.json()), vec![id2, id], "no lag: both, newest first");
}
