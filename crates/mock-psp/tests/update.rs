//! `POST /v1/payment_intents/:id` (metadata and description), with Stripe's semantics,
//! behind the same idempotency layer as every POST. Real loopback HTTP.
use crate::common;
use common::*;
use serde_json::json;

const PI: &str = "/v1/payment_intents";

fn search_q(q: &str) -> String {
    format!("{PI}/search?query={}", form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>())
}

async fn search_ids(p: &Psp, q: &str) -> Vec<String> {
    let r = p.get(SK_A, &search_q(q)).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    r.json()["data"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn metadata_merges_empty_value_deletes_and_description_is_set() {
    let p = start_default().await;
    let pi = p.create_pi(SK_A, "c1", "1999", "pm_card_visa", &[("metadata[order]", "17"), ("metadata[till]", "2"), ("description", "first")]).await.json();
    let id = pi["id"].as_str().unwrap().to_string();
    let url = format!("{PI}/{id}");
    let r = p.post(SK_A, &url, Some("u1"), &[("metadata[till]", ""), ("metadata[note]", "gift wrap"), ("description", "second")]).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    let v = r.json();
    assert_eq!(v["metadata"], json!({"order": "17", "note": "gift wrap"}), "merged; the empty value deleted till");
    assert_eq!(v["description"], "second");
    assert_eq!((v["status"].as_str(), v["amount"].as_i64()), (Some("succeeded"), Some(1999)), "nothing else changes");
    assert!(!r.replayed());
    // GET shows the update.
    let got = p.get(SK_A, &url).await.json();
    assert_eq!(got["metadata"], v["metadata"]);
    assert_eq!(got["description"], "second");
    // Search follows the new metadata: the deleted pair is gone, the new one is found.
    assert!(search_ids(&p, "metadata['till']:'2'").await.is_empty());
    assert_eq!(search_ids(&p, "metadata['note']:'gift wrap'").await, vec![id.clone()]);
    assert_eq!(search_ids(&p, "metadata['order']:'17'").await, vec![id.clone()]);
    // Idempotent: the same key and parameters replay the stored answer, even after
    // another update changed the object.
    let r2 = p.post(SK_A, &url, Some("u2"), &[("description", "")]).await;
    assert_eq!(r2.json()["description"], serde_json::Value::Null, "an empty description unsets it");
    let again = p.post(SK_A, &url, Some("u1"), &[("metadata[till]", ""), ("metadata[note]", "gift wrap"), ("description", "second")]).await;
    assert!(again.replayed());
    assert_eq!(again.body, r.body);
    // The same key with other parameters is refused.
    let other = p.post(SK_A, &url, Some("u1"), &[("description", "third")]).await;
    assert_eq!((other.status, other.err_type()), (400, "idempotency_error".to_string()));
    // `metadata=` empties it, then the keys given are set.
    let r = p.post(SK_A, &url, Some("u3"), &[("metadata", ""), ("metadata[fresh]", "1")]).await;
    assert_eq!(r.json()["metadata"], json!({"fresh": "1"}));
    assert!(search_ids(&p, "metadata['order']:'17'").await.is_empty());
    // No charge, no event for an update.
    let s = p.stats().await;
    assert_eq!(s["charges"], 1);
    let events = p.get(SK_A, "/v1/events?limit=100").await.json();
    assert_eq!(events["data"].as_array().unwrap().len(), 1, "only the creation's payment_intent.succeeded");
}

#[tokio::test]
async fn unknown_id_bad_params_and_other_accounts_get_stripe_errors() {
    let p = start_default().await;
    let r = p.post(SK_A, &format!("{PI}/pi_doesnotexist"), Some("x1"), &[("description", "d")]).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"], json!({"type": "invalid_request_error", "code": "resource_missing", "message": "No such payment_intent: 'pi_doesnotexist'", "param": "intent"}));
    // The 404 is a stored result of an executed request: the same key replays it.
    let again = p.post(SK_A, &format!("{PI}/pi_doesnotexist"), Some("x1"), &[("description", "d")]).await;
    assert!(again.replayed() && again.status == 404);
    let pi = p.create_pi(SK_A, "c1", "500", "pm_card_visa", &[]).await.json();
    let url = format!("{PI}/{}", pi["id"].as_str().unwrap());
    for (params, code) in [
        (vec![("amount", "1")], "parameter_unknown"),
        (vec![("description", "d"), ("description", "e")], "parameter_duplicate"),
        (vec![("metadata[]", "x")], "parameter_invalid_string"),
    ] {
        let r = p.post(SK_A, &url, Some("bad"), &params).await;
        assert_eq!((r.status, r.err_code()), (400, code.to_string()), "{params:?}: {:?}", r.json());
    }
    let long = "d".repeat(1001);
    let r = p.post(SK_A, &url, Some("bad2"), &[("description", long.as_str())]).await;
    assert_eq!(r.json()["error"]["param"], "description");
    // 50 keys at most after the merge.
    let many: Vec<(String, String)> = (0..50).map(|i| (format!("metadata[k{i}]"), "v".to_string())).collect();
    let many_ref: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(p.post(SK_A, &url, Some("m50"), &many_ref).await.status, 200);
    let r = p.post(SK_A, &url, Some("m51"), &[("metadata[one_more]", "v")]).await;
    assert_eq!((r.status, r.json()["error"]["param"].as_str()), (400, Some("metadata")), "{:?}", r.json());
    assert_eq!(p.get(SK_A, &url).await.json()["metadata"].as_object().unwrap().len(), 50, "the refused update changed nothing");
    // Another account's intent is invisible.
    let r = p.post(SK_B, &url, Some("b1"), &[("description", "mine")]).await;
    assert_eq!((r.status, r.err_code()), (404, "resource_missing".to_string()));
    // Without a key: refused like every POST.
    let r = p.post(SK_A, &url, None, &[("description", "d")]).await;
    assert_eq!(r.err_code(), "idempotency_key_missing");
}
