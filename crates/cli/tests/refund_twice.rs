//! A partial refund pressed twice while the first is still being confirmed must not
//! become two refunds (each press used to make a new refund key).

use crate::common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partial_refund_pressed_twice_refunds_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let r = run(&db, &url, &[], &["checkout", "--amount", "3000", "--currency", "jpy"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let key = r.json()["checkout_key"].as_str().unwrap().to_string();
    let pi = r.json()["psp_payment_id"].as_str().unwrap().to_string();

    // The PSP cannot be reached: the first refund stays open (outcome unknown).
    psp.stop().await;
    let first = run(&db, &url, &[], &["refund", "--payment", &key, "--amount", "1000"]).await;
    let j = first.json();
    assert!(["pending", "in_flight"].contains(&j["state"].as_str().unwrap_or("")), "{}{}", first.stdout, first.stderr);
    let refund_key = j["refund_key"].as_str().unwrap().to_string();

    // Pressed again: refused, nothing new written.
    let second = run(&db, &url, &[], &["refund", "--payment", &key, "--amount", "1000"]).await;
    assert_eq!(second.code, Some(1), "{}{}", second.stdout, second.stderr);
    let err = &second.json()["error"];
    assert_eq!(err["code"], "wrong_state", "{err}");
    let msg = err["message"].as_str().unwrap();
    assert!(msg.contains("still being confirmed") && msg.contains(&refund_key), "{msg}");
    let show = run(&db, &url, &[], &["show", "--payment", &key]).await.json();
    assert_eq!(show["refunds"].as_array().unwrap().len(), 1, "{show}");

    // The PSP is back: the open refund is confirmed once; then a new refund is allowed.
    psp.restart().await;
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert_eq!(rec.json()["refunds_resolved"], 1, "{}", rec.stdout);
    let again = run(&db, &url, &[], &["refund", "--payment", &key, "--amount", "1000"]).await;
    assert_eq!(again.code, Some(0), "{}{}", again.stdout, again.stderr);
    assert_eq!(again.json()["state"], "succeeded");

    let at_psp = psp.get(&format!("/v1/refunds?payment_intent={pi}&limit=100")).await;
    assert_eq!(at_psp["data"].as_array().unwrap().len(), 2, "{at_psp}");
    let rows = ledger(&db, &url).await;
    assert_eq!(rows[0]["refunded"], 2000, "{}", rows[0]);
    assert_eq!(rows[0]["state"], "partially_refunded");
    assert_ledger_equals_psp(&db, &psp).await;
}
