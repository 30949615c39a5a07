//! Stripe-compatible behaviour: auth, payment intents, capture, cancel, refunds,
//! search, list pagination, events.
use crate::common;
use common::*;
use serde_json::Value;

const PI: &str = "/v1/payment_intents";

#[tokio::test]
async fn auth_bearer_basic_and_401s() {
    let p = start_default().await;
    let r = into(p.client.get(format!("{}{PI}", p.url)).send().await.unwrap()).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.err_type(), "invalid_request_error");
    let r = p.get("sk_test_nope", PI).await;
    assert_eq!(r.status, 401);
    assert!(!String::from_utf8_lossy(&r.body).contains("sk_test_nope"), "the key is not echoed in full");
    // Basic auth with the key as user name (as Stripe SDKs may send).
    let r = into(p.client.get(format!("{}{PI}", p.url)).basic_auth(SK_A, Some("")).send().await.unwrap()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["object"], "list");
    let r = into(p.client.get(format!("{}{PI}", p.url)).header("authorization", "Token x").send().await.unwrap()).await;
    assert_eq!(r.status, 401);
}

#[tokio::test]
async fn manual_capture_partial_capture_and_events() {
    let p = start_default().await;
    let r = p.create_pi(SK_A, "m1", "5000", "pm_card_visa", &[("capture_method", "manual")]).await;
    assert_eq!(r.status, 200);
    let pi = r.json();
    assert_eq!(pi["status"], "requires_capture");
    assert_eq!(pi["amount_capturable"], 5000);
    assert_eq!(pi["amount_received"], 0);
    assert_eq!(pi["capture_method"], "manual");
    let id = pi["id"].as_str().unwrap();
    let r = p.post(SK_A, &format!("{PI}/{id}/capture"), Some("c1"), &[("amount_to_capture", "6000")]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.err_code(), "amount_too_large");
    let r = p.post(SK_A, &format!("{PI}/{id}/capture"), Some("c2"), &[("amount_to_capture", "4000")]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["status"], "succeeded");
    assert_eq!(r.json()["amount_received"], 4000);
    // Capturing twice with a new key is a state error; with the same key a replay.
    let r2 = p.post(SK_A, &format!("{PI}/{id}/capture"), Some("c3"), &[]).await;
    assert_eq!(r2.status, 400);
    assert_eq!(r2.err_code(), "payment_intent_unexpected_state");
    let r3 = p.post(SK_A, &format!("{PI}/{id}/capture"), Some("c2"), &[("amount_to_capture", "4000")]).await;
    assert!(r3.replayed());
    assert_eq!(r3.body, r.body);
    let ev = p.get(SK_A, "/v1/events").await.json();
    let types: Vec<&str> = ev["data"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, vec!["payment_intent.succeeded", "payment_intent.amount_capturable_updated"]);
    let got = p.get(SK_A, &format!("{PI}/{id}")).await.json();
    assert_eq!(got["status"], "succeeded");
}

#[tokio::test]
async fn cancel_and_unconfirmed_intents() {
    let p = start_default().await;
    let r = p.post(SK_A, PI, Some("u1"), &[("amount", "100"), ("currency", "jpy")]).await;
    assert_eq!(r.json()["status"], "requires_payment_method");
    let id = r.json()["id"].as_str().unwrap().to_string();
    let r = p.post(SK_A, &format!("{PI}/{id}/cancel"), Some("x1"), &[("cancellation_reason", "abandoned")]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["status"], "canceled");
    assert_eq!(r.json()["cancellation_reason"], "abandoned");
    let r = p.create_pi(SK_A, "u2", "100", "pm_card_visa", &[]).await;
    let id = r.json()["id"].as_str().unwrap().to_string();
    let r = p.post(SK_A, &format!("{PI}/{id}/cancel"), Some("x2"), &[]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.err_code(), "payment_intent_unexpected_state");
    let r = p.post(SK_A, &format!("{PI}/pi_missing/cancel"), Some("x3"), &[]).await;
    assert_eq!(r.status, 404);
    let ev = p.get(SK_A, "/v1/events?type=payment_intent.canceled").await.json();
    assert_eq!(ev["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn refunds_partial_up_to_captured() {
    let p = start_default().await;
    let pi = p.create_pi(SK_A, "r0", "1000", "pm_card_visa", &[]).await.json();
    let id = pi["id"].as_str().unwrap();
    let r1 = p.post(SK_A, "/v1/refunds", Some("r1"), &[("payment_intent", id), ("amount", "300")]).await;
    assert_eq!(r1.status, 200, "{:?}", r1.json());
    assert_eq!(r1.json()["object"], "refund");
    assert_eq!(r1.json()["amount"], 300);
    assert_eq!(r1.json()["status"], "succeeded");
    assert!(r1.json()["id"].as_str().unwrap().starts_with("re_"));
    let r = p.post(SK_A, "/v1/refunds", Some("r2"), &[("payment_intent", id), ("amount", "800")]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.err_code(), "amount_too_large");
    // By charge id, the rest.
    let ch = pi["latest_charge"].as_str().unwrap();
    let r = p.post(SK_A, "/v1/refunds", Some("r3"), &[("charge", ch)]).await;
    assert_eq!(r.json()["amount"], 700);
    let r = p.post(SK_A, "/v1/refunds", Some("r4"), &[("payment_intent", id)]).await;
    assert_eq!(r.err_code(), "charge_already_refunded");
    // Replay of the first refund.
    let again = p.post(SK_A, "/v1/refunds", Some("r1"), &[("payment_intent", id), ("amount", "300")]).await;
    assert!(again.replayed());
    let rid = r1.json()["id"].as_str().unwrap().to_string();
    let got = p.get(SK_A, &format!("/v1/refunds/{rid}")).await;
    assert_eq!(got.json()["amount"], 300);
    assert_eq!(p.get(SK_B, &format!("/v1/refunds/{rid}")).await.status, 404);
    let ev = p.get(SK_A, "/v1/events?type=charge.refunded").await.json();
    assert_eq!(ev["data"].as_array().unwrap().len(), 2);
    assert_eq!(ev["data"][0]["data"]["object"]["amount_refunded"], 1000);
    assert_eq!(ev["data"][0]["data"]["object"]["refunded"], true);
    // Refunding an uncaptured intent is refused.
    let m = p.create_pi(SK_A, "r5", "100", "pm_card_visa", &[("capture_method", "manual")]).await.json();
    let r = p.post(SK_A, "/v1/refunds", Some("r6"), &[("payment_intent", m["id"].as_str().unwrap())]).await;
    assert_eq!(r.status, 400);
    assert_eq!(p.stats().await["refunds"], 2);
}

/// `GET /v1/refunds?payment_intent=…`: how a register finds out whether a refund it
/// could not confirm exists, by the metadata it sent, without resending it.
#[tokio::test]
async fn refund_list_filters_by_intent_and_charge_and_pages() {
    let p = start_default().await;
    let a = p.create_pi(SK_A, "la", "1000", "pm_card_visa", &[]).await.json();
    let b = p.create_pi(SK_A, "lb", "1000", "pm_card_visa", &[]).await.json();
    let (aid, bid) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    for (i, key) in ["ra1", "ra2", "ra3"].iter().enumerate() {
        let r = p.post(SK_A, "/v1/refunds", Some(key), &[("payment_intent", aid), ("amount", "100"), ("metadata[refund_key]", key)]).await;
        assert_eq!(r.status, 200, "refund {i}: {:?}", r.json());
    }
    let rb = p.post(SK_A, "/v1/refunds", Some("rb1"), &[("payment_intent", bid), ("amount", "50")]).await.json();
    // Only A's refunds, newest first, with the metadata they were created with.
    let l = p.get(SK_A, &format!("/v1/refunds?payment_intent={aid}")).await;
    assert_eq!(l.status, 200, "{:?}", l.json());
    let v = l.json();
    assert_eq!(v["object"], "list");
    assert_eq!(v["url"], "/v1/refunds");
    let keys: Vec<&str> = v["data"].as_array().unwrap().iter().map(|r| r["metadata"]["refund_key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["ra3", "ra2", "ra1"]);
    assert_eq!(v["has_more"], false);
    // Paging with Stripe's parameters.
    let page1 = p.get(SK_A, &format!("/v1/refunds?payment_intent={aid}&limit=2")).await.json();
    assert_eq!(page1["data"].as_array().unwrap().len(), 2);
    assert_eq!(page1["has_more"], true);
    let last = page1["data"][1]["id"].as_str().unwrap();
    let page2 = p.get(SK_A, &format!("/v1/refunds?payment_intent={aid}&limit=2&starting_after={last}")).await.json();
    assert_eq!(page2["data"].as_array().unwrap().len(), 1);
    assert_eq!(page2["data"][0]["metadata"]["refund_key"], "ra1");
    assert_eq!(page2["has_more"], false);
    // By charge; all of them; another account sees none; both filters at once is refused.
    let by_charge = p.get(SK_A, &format!("/v1/refunds?charge={}", b["latest_charge"].as_str().unwrap())).await.json();
    assert_eq!(by_charge["data"].as_array().unwrap().len(), 1);
    assert_eq!(by_charge["data"][0]["id"], rb["id"]);
    assert_eq!(p.get(SK_A, "/v1/refunds").await.json()["data"].as_array().unwrap().len(), 4);
    assert_eq!(p.get(SK_B, &format!("/v1/refunds?payment_intent={aid}")).await.json()["data"].as_array().unwrap().len(), 0);
    let both = p.get(SK_A, &format!("/v1/refunds?payment_intent={aid}&charge={}", a["latest_charge"].as_str().unwrap())).await;
    assert_eq!(both.status, 400);
    assert_eq!(both.json()["error"]["param"], "payment_intent");
    // A malformed id and an unknown parameter are clear 400s.
    assert_eq!(p.get(SK_A, "/v1/refunds?payment_intent=pi%20x").await.status, 400);
    let unknown = p.get(SK_A, "/v1/refunds?amount=3").await;
    assert_eq!(unknown.status, 400);
    assert_eq!(unknown.json()["error"]["param"], "amount");
}

#[tokio::test]
async fn search_by_metadata() {
    let p = start_default().await;
    for i in 0..5 {
        let ck = format!("ck-{}", i % 2);
        p.create_pi(SK_A, &format!("s{i}"), "100", "pm_card_visa", &[("metadata[checkout_key]", &ck), ("metadata[store]", "s1")]).await;
    }
    let q = |q: &str| format!("{PI}/search?query={}", form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>());
    let r = p.get(SK_A, &q("metadata['checkout_key']:'ck-0'")).await;
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["object"], "search_result");
    assert_eq!(v["data"].as_array().unwrap().len(), 3);
    let r = p.get(SK_A, &q("metadata[\"checkout_key\"]:\"ck-1\" AND metadata['store']:'s1' AND status:'succeeded'")).await;
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 2);
    let r = p.get(SK_A, &q("metadata['checkout_key']:'nope'")).await;
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 0);
    // Paging.
    let r = p.get(SK_A, &format!("{}&limit=2", q("metadata['store']:'s1'"))).await.json();
    assert_eq!(r["has_more"], true);
    let next = r["next_page"].as_str().unwrap();
    let r2 = p.get(SK_A, &format!("{}&limit=2&page={next}", q("metadata['store']:'s1'"))).await.json();
    assert_eq!(r2["data"].as_array().unwrap().len(), 2);
    let r = p.get(SK_A, &q("garbage")).await;
    assert_eq!(r.status, 400);
}

fn ids(v: &Value) -> Vec<String> {
    v["data"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn list_and_events_pagination_params() {
    let p = start_default().await;
    for i in 0..7 {
        assert_eq!(p.create_pi(SK_A, &format!("l{i}"), "100", "pm_card_visa", &[]).await.status, 200);
    }
    let all = p.get(SK_A, "/v1/payment_intents?limit=100").await.json();
    let all_ids = ids(&all);
    assert_eq!(all_ids.len(), 7);
    let page1 = p.get(SK_A, "/v1/payment_intents?limit=3").await.json();
    assert_eq!(ids(&page1), all_ids[..3]);
    assert_eq!(page1["has_more"], true);
    let page2 = p.get(SK_A, &format!("/v1/payment_intents?limit=3&starting_after={}", all_ids[2])).await.json();
    assert_eq!(ids(&page2), all_ids[3..6]);
    let before = p.get(SK_A, &format!("/v1/payment_intents?limit=2&ending_before={}", all_ids[4])).await.json();
    assert_eq!(ids(&before), all_ids[2..4]);
    assert_eq!(before["has_more"], true);
    // Events: newest first, same cursors, created filters, limit bounds.
    let ev = p.get(SK_A, "/v1/events?limit=100").await.json();
    let ev_ids = ids(&ev);
    assert_eq!(ev_ids.len(), 7);
    let e2 = p.get(SK_A, &format!("/v1/events?limit=2&starting_after={}", ev_ids[0])).await.json();
    assert_eq!(ids(&e2), ev_ids[1..3]);
    let created = ev["data"][0]["created"].as_i64().unwrap();
    let f = p.get(SK_A, &format!("/v1/events?created[gt]={created}")).await.json();
    assert_eq!(ids(&f).len(), 0);
    let f = p.get(SK_A, &format!("/v1/events?created[lte]={created}&limit=100")).await.json();
    assert_eq!(ids(&f).len(), 7);
    assert_eq!(p.get(SK_A, "/v1/events?limit=0").await.status, 400);
    assert_eq!(p.get(SK_A, "/v1/events?limit=101").await.status, 400);
    assert_eq!(p.get(SK_A, "/v1/events?starting_after=evt_nope").await.status, 400);
    assert_eq!(p.get(SK_A, "/v1/events?bogus=1").await.status, 400);
    let one = p.get(SK_A, &format!("/v1/events/{}", ev_ids[0])).await.json();
    assert_eq!(one["object"], "event");
    assert_eq!(p.get(SK_B, &format!("/v1/events/{}", ev_ids[0])).await.status, 404);
    // Events of another account are not listed.
    assert_eq!(ids(&p.get(SK_B, "/v1/events").await.json()).len(), 0);
    assert_eq!(p.get(SK_A, "/v1/nothing").await.status, 404);
}
