//! record 0017 idempotency table, row by row, over real loopback HTTP.
use crate::common;
use common::*;
use mock_psp::{Fault, MockPsp};
use std::time::Duration;

const PI: &str = "/v1/payment_intents";

fn pi_params() -> Vec<(&'static str, &'static str)> {
    vec![("amount", "1500"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true"), ("metadata[checkout_key]", "ck1")]
}

#[tokio::test]
async fn row_post_without_key_is_400_missing_and_not_stored() {
    let p = start_default().await;
    let r = p.post(SK_A, PI, None, &pi_params()).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.err_code(), "idempotency_key_missing");
    assert_eq!(r.err_type(), "invalid_request_error");
    // The missing key is reported first, whatever the body; unknown URLs stay 404.
    let r = p.post(SK_A, PI, None, &[("amount", "-1")]).await;
    assert_eq!(r.err_code(), "idempotency_key_missing");
    assert_eq!(p.post(SK_A, "/v1/nowhere", None, &[]).await.status, 404);
    assert!(p.all_pis(SK_A).await.is_empty());
    assert_eq!(p.stats().await["executions"], 0);
}

#[tokio::test]
async fn row_empty_or_overlong_key_is_400() {
    let p = start_default().await;
    let r = p.post(SK_A, PI, Some(""), &pi_params()).await;
    assert_eq!(r.status, 400, "{:?}", r.json());
    let long = "k".repeat(256);
    let r = p.post(SK_A, PI, Some(&long), &pi_params()).await;
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("255"));
    assert!(p.all_pis(SK_A).await.is_empty());
    // 255 characters is fine.
    let ok = "k".repeat(255);
    let r = p.post(SK_A, PI, Some(&ok), &pi_params()).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn row_first_use_then_same_request_replays_byte_for_byte() {
    let p = start_default().await;
    let first = p.post(SK_A, PI, Some("key-1"), &pi_params()).await;
    assert_eq!(first.status, 200);
    assert!(!first.replayed());
    let pi = first.json();
    assert!(pi["id"].as_str().unwrap().starts_with("pi_"));
    assert_eq!(pi["object"], "payment_intent");
    assert_eq!(pi["status"], "succeeded");
    assert_eq!(pi["amount_received"], 1500);
    assert_eq!(pi["metadata"]["checkout_key"], "ck1");
    assert!(pi["latest_charge"].as_str().unwrap().starts_with("ch_"));
    for _ in 0..3 {
        let again = p.post(SK_A, PI, Some("key-1"), &pi_params()).await;
        assert_eq!(again.status, 200);
        assert!(again.replayed());
        assert_eq!(again.body, first.body, "replay must be byte for byte");
    }
    // Parameter order does not matter for the fingerprint.
    let mut rev = pi_params();
    rev.reverse();
    let again = p.post(SK_A, PI, Some("key-1"), &rev).await;
    assert!(again.replayed());
    assert_eq!(p.all_pis(SK_A).await.len(), 1);
    let s = p.stats().await;
    assert_eq!(s["charges"], 1);
    assert_eq!(s["replays"], 4);
}

#[tokio::test]
async fn row_same_key_different_parameters_or_path_is_idempotency_error() {
    let p = start_default().await;
    assert_eq!(p.post(SK_A, PI, Some("k"), &pi_params()).await.status, 200);
    let mut changed = pi_params();
    changed[0] = ("amount", "1600");
    let r = p.post(SK_A, PI, Some("k"), &changed).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.err_type(), "idempotency_error");
    assert_eq!(r.json()["error"]["param"], "amount");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("amount"));
    // A metadata difference is named with its bracket name.
    let mut md = pi_params();
    md[4] = ("metadata[checkout_key]", "other");
    let r = p.post(SK_A, PI, Some("k"), &md).await;
    assert_eq!(r.json()["error"]["param"], "metadata[checkout_key]");
    // An extra parameter is a difference too.
    let mut extra = pi_params();
    extra.push(("description", "x"));
    let r = p.post(SK_A, PI, Some("k"), &extra).await;
    assert_eq!(r.json()["error"]["param"], "description");
    // Same key on another path.
    let pi = p.all_pis(SK_A).await[0]["id"].as_str().unwrap().to_string();
    let r = p.post(SK_A, "/v1/refunds", Some("k"), &[("payment_intent", &pi)]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.err_type(), "idempotency_error");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("path"));
    assert_eq!(p.all_pis(SK_A).await.len(), 1);
    assert_eq!(p.stats().await["mismatches"], 4);
}

/// Starts a slow first request and waits (by polling for the 409 signal) until its
/// claim is committed. Returns the in-flight request.
async fn start_slow(p: &Psp, key: &str, slow_ms: u64) -> tokio::task::JoinHandle<Resp> {
    p.server.psp().script_fault(PI, Fault::Slow, 1, Some(slow_ms));
    let client = p.client.clone();
    let url = format!("{}{}", p.url, PI);
    let key2 = key.to_string();
    let before = p.server.psp().stats()["faults"]["slow"].as_u64().unwrap();
    let h = tokio::spawn(async move {
        into(client.post(url).bearer_auth(SK_A).header("Idempotency-Key", key2).form(&pi_params()).send().await.unwrap()).await
    });
    // The slow fault starts right after the claim committed: that is our signal.
    while p.server.psp().stats()["faults"]["slow"].as_u64().unwrap() == before {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    h
}

#[tokio::test]
async fn row_same_key_while_executing_is_409_with_retry_after_and_not_stored() {
    let p = start_default().await;
    let first = start_slow(&p, "busy", 1500).await;
    let mut conflict = None;
    for _ in 0..2000 {
        let r = p.post(SK_A, PI, Some("busy"), &pi_params()).await;
        if r.status == 409 {
            conflict = Some(r);
            break;
        }
        tokio::task::yield_now().await;
    }
    let c = conflict.expect("a concurrent retry must see 409");
    assert_eq!(c.err_code(), "idempotency_key_in_use");
    assert_eq!(c.err_type(), "idempotency_error");
    assert!(c.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    let first = first.await.unwrap();
    assert_eq!(first.status, 200);
    // The 409 was not stored: the retry now gets the first result.
    let again = p.post(SK_A, PI, Some("busy"), &pi_params()).await;
    assert!(again.replayed());
    assert_eq!(again.body, first.body);
    assert_eq!(p.all_pis(SK_A).await.len(), 1);
    assert!(p.stats().await["conflicts"].as_u64().unwrap() >= 1);
}

#[tokio::test]
async fn row_stored_402_decline_is_replayed() {
    let p = start_default().await;
    let r = p.create_pi(SK_A, "d1", "500", "pm_card_chargeDeclined", &[]).await;
    assert_eq!(r.status, 402);
    assert_eq!(r.err_type(), "card_error");
    assert_eq!(r.err_code(), "card_declined");
    assert_eq!(r.json()["error"]["decline_code"], "generic_decline");
    assert_eq!(r.json()["error"]["payment_intent"]["status"], "requires_payment_method");
    let again = p.create_pi(SK_A, "d1", "500", "pm_card_chargeDeclined", &[]).await;
    assert_eq!(again.status, 402);
    assert!(again.replayed());
    assert_eq!(again.body, r.body);
    let r = p.create_pi(SK_A, "d2", "500", "pm_card_chargeDeclinedInsufficientFunds", &[]).await;
    assert_eq!(r.status, 402);
    assert_eq!(r.json()["error"]["decline_code"], "insufficient_funds");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("insufficient funds"));
    let s = p.stats().await;
    assert_eq!(s["charges"], 0);
    assert_eq!(s["declines"], 2);
}

#[tokio::test]
async fn row_stored_500_is_replayed() {
    let p = start_default().await;
    p.server.psp().script_fault(PI, Fault::InternalError, 1, None);
    let r = p.post(SK_A, PI, Some("e500"), &pi_params()).await;
    assert_eq!(r.status, 500);
    assert_eq!(r.err_type(), "api_error");
    let again = p.post(SK_A, PI, Some("e500"), &pi_params()).await;
    assert_eq!(again.status, 500);
    assert!(again.replayed());
    assert_eq!(again.body, r.body);
    assert_eq!(again.header("stripe-should-retry").as_deref(), Some("false"));
    assert!(p.all_pis(SK_A).await.is_empty());
}

#[tokio::test]
async fn rows_not_stored_401_validation_400_429() {
    let p = start_default().await;
    // 401 with an unknown key, then the right key: executes (not a replay).
    let r = p.post("sk_test_unknown", PI, Some("n1"), &pi_params()).await;
    assert_eq!(r.status, 401);
    let r = p.post(SK_A, PI, Some("n1"), &pi_params()).await;
    assert_eq!(r.status, 200);
    assert!(!r.replayed());
    // Validation 400, then a valid request with the same key: executes.
    let r = p.post(SK_A, PI, Some("n2"), &[("amount", "0"), ("currency", "usd")]).await;
    assert_eq!(r.status, 400);
    let r = p.post(SK_A, PI, Some("n2"), &pi_params()).await;
    assert_eq!(r.status, 200);
    assert!(!r.replayed());
    // 429 (injected before execution), then the same request: executes.
    p.server.psp().script_fault(PI, Fault::Transient429, 1, None);
    let r = p.post(SK_A, PI, Some("n3"), &pi_params()).await;
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_some());
    let r = p.post(SK_A, PI, Some("n3"), &pi_params()).await;
    assert_eq!(r.status, 200);
    assert!(!r.replayed());
    // 503 likewise.
    p.server.psp().script_fault(PI, Fault::Transient503, 1, None);
    let r = p.post(SK_A, PI, Some("n4"), &pi_params()).await;
    assert_eq!(r.status, 503);
    let r = p.post(SK_A, PI, Some("n4"), &pi_params()).await;
    assert_eq!(r.status, 200);
    assert_eq!(p.all_pis(SK_A).await.len(), 4);
}

#[tokio::test]
async fn row_after_retention_key_is_forgotten_test_clock() {
    let p = start(MockPsp::builder().retention(Duration::from_secs(24 * 3600))).await;
    let first = p.post(SK_A, PI, Some("old"), &pi_params()).await;
    // Just inside the window: replay.
    p.server.psp().advance_clock(Duration::from_secs(24 * 3600 - 60));
    assert!(p.post(SK_A, PI, Some("old"), &pi_params()).await.replayed());
    // Past it: a new request, a new PaymentIntent.
    p.server.psp().advance_clock(Duration::from_secs(61));
    let second = p.post(SK_A, PI, Some("old"), &pi_params()).await;
    assert_eq!(second.status, 200);
    assert!(!second.replayed());
    assert_ne!(first.json()["id"], second.json()["id"]);
    // A mismatch is also forgotten after the window.
    p.server.psp().advance_clock(Duration::from_secs(24 * 3600 + 1));
    let mut changed = pi_params();
    changed[0] = ("amount", "999");
    assert_eq!(p.post(SK_A, PI, Some("old"), &changed).await.status, 200);
    assert_eq!(p.all_pis(SK_A).await.len(), 3);
}

#[tokio::test]
async fn retention_purge_runs_in_chunks_via_admin() {
    let p = start(MockPsp::builder().purge_chunk(7)).await;
    for i in 0..30 {
        assert_eq!(p.post(SK_A, PI, Some(&format!("p{i}")), &pi_params()).await.status, 200);
    }
    let r = p.admin_post("/__admin/purge", &[]).await;
    assert_eq!(r.json()["purged"], 0);
    let r = p.admin_post("/__admin/clock/advance", &[("seconds", "90000")]).await;
    assert_eq!(r.status, 200);
    let r = p.admin_post("/__admin/purge", &[]).await;
    assert_eq!(r.json()["purged"], 30);
    assert_eq!(p.stats().await["purged_keys"], 30);
    // Objects stay; only keys are forgotten.
    assert_eq!(p.all_pis(SK_A).await.len(), 30);
}

#[tokio::test]
async fn row_lock_expiry_redrives_without_second_charge() {
    // In-process crash stand-in: the first execution is slower than the lock timeout,
    // a retry takes the lock over and re-drives; both see one PaymentIntent.
    let p = start(MockPsp::builder().lock_timeout(Duration::from_millis(300))).await;
    let first = start_slow(&p, "lk", 1500).await;
    // Wait for the claim (409), then move the test clock past the lock.
    loop {
        let r = p.post(SK_A, PI, Some("lk"), &pi_params()).await;
        if r.status == 409 {
            break;
        }
        tokio::task::yield_now().await;
    }
    p.server.psp().advance_clock(Duration::from_secs(1));
    let redrive = p.post(SK_A, PI, Some("lk"), &pi_params()).await;
    assert_eq!(redrive.status, 200);
    let first = first.await.unwrap();
    assert_eq!(first.status, 200);
    assert_eq!(first.json()["id"], redrive.json()["id"]);
    // The re-drive executed the request: a fresh answer. The first execution woke after
    // it had finished and answers with its stored result: a replay, and says so.
    assert!(!redrive.replayed(), "the re-drive's answer is its own execution's");
    assert!(first.replayed(), "the late first execution's answer is the stored one: {:?}", first.headers);
    assert_eq!(first.body, redrive.body, "byte for byte the stored answer");
    assert_eq!(p.all_pis(SK_A).await.len(), 1);
    let s = p.stats().await;
    assert_eq!(s["charges"], 1);
    assert_eq!(s["redrives"], 1);
    assert_eq!((s["executions"].as_u64(), s["replays"].as_u64()), (Some(1), Some(1)), "{s}");
}

#[tokio::test]
async fn keys_and_objects_are_scoped_per_account() {
    let p = start_default().await;
    let a = p.post(SK_A, PI, Some("shared"), &pi_params()).await;
    // Same key, other merchant: its own new request, not a replay of A's.
    let b = p.post(SK_B, PI, Some("shared"), &pi_params()).await;
    assert_eq!(b.status, 200);
    assert!(!b.replayed());
    assert_ne!(a.json()["id"], b.json()["id"]);
    // A's objects are invisible to B.
    let id = a.json()["id"].as_str().unwrap().to_string();
    assert_eq!(p.get(SK_B, &format!("{PI}/{id}")).await.status, 404);
    assert_eq!(p.get(SK_A, &format!("{PI}/{id}")).await.status, 200);
    let r = p.post(SK_B, &format!("{PI}/{id}/cancel"), Some("c"), &[]).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.err_code(), "resource_missing");
    let r = p.post(SK_B, "/v1/refunds", Some("r"), &[("payment_intent", &id)]).await;
    assert_eq!(r.status, 404);
    assert_eq!(p.all_pis(SK_A).await.len(), 1);
    assert_eq!(p.all_pis(SK_B).await.len(), 1);
    let r = p.get(SK_B, "/v1/payment_intents/search?query=metadata%5B%27checkout_key%27%5D%3A%27ck1%27").await;
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 1);
    assert_eq!(r.json()["data"][0]["id"], b.json()["id"]);
}
