//! `paydesk-cli sale …` (record 0028) through the real binary and the real mock PSP over
//! loopback: a split sale's JSON and exit codes, the rule-3 refusal with its key, a
//! cancel checked at the PSP, bad input refused before anything is written.

use crate::common;
use common::*;

async fn sale(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    let mut a = vec!["sale"];
    a.extend_from_slice(args);
    run(db, url, &[], &a).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_split_sale_card_then_cash_then_a_cancel_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let p = sale(&db, &url, &["product", "--sku", "TEA", "--name", "Green tea", "--price", "350", "--currency", "usd"]).await;
    assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);

    let new = sale(&db, &url, &["new", "--currency", "usd", "--item", "TEA:2"]).await;
    assert_eq!(new.code, Some(0), "{}{}", new.stdout, new.stderr);
    let v = new.json();
    assert_eq!((v["state"].as_str(), v["total"].as_i64(), v["due"].as_i64()), (Some("open"), Some(700), Some(700)), "{v}");
    let cart = v["cart_id"].as_i64().unwrap().to_string();

    let card = sale(&db, &url, &["card", "--cart", &cart, "--amount", "400"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    let c = card.json();
    assert_eq!(c["checkout"]["outcome"], "paid", "{c}");
    assert_eq!((c["sale"]["state"].as_str(), c["sale"]["due"].as_i64()), (Some("partially_paid"), Some(300)));
    let pi = c["checkout"]["psp_payment_id"].as_str().unwrap().to_string();

    let over = sale(&db, &url, &["card", "--cart", &cart, "--amount", "301"]).await;
    assert_eq!(over.code, Some(1));
    assert_eq!(over.json()["error"]["code"], "tender_exceeds_due", "{}", over.stdout);

    let cash = sale(&db, &url, &["cash", "--cart", &cart, "--tendered", "500"]).await;
    assert_eq!(cash.code, Some(0), "{}{}", cash.stdout, cash.stderr);
    let j = cash.json();
    assert_eq!((j["change"].as_i64(), j["sale"]["state"].as_str(), j["sale"]["due"].as_i64()), (Some(200), Some("paid"), Some(0)), "{j}");
    let intent = psp.get(&format!("/v1/payment_intents/{pi}")).await;
    assert_eq!((intent["status"].as_str(), intent["amount"].as_i64()), (Some("succeeded"), Some(400)));

    // A second sale, half paid by card, canceled: one refund at the PSP, cash back.
    let second = sale(&db, &url, &["new", "--currency", "usd", "--item", "TEA"]).await.json();
    let cart2 = second["cart_id"].as_i64().unwrap().to_string();
    let card2 = sale(&db, &url, &["card", "--cart", &cart2, "--amount", "150"]).await.json();
    let pi2 = card2["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    assert_eq!(sale(&db, &url, &["cash", "--cart", &cart2, "--tendered", "100"]).await.code, Some(0));
    let cancel = sale(&db, &url, &["cancel", "--cart", &cart2, "--reason", "customer left"]).await;
    assert_eq!(cancel.code, Some(0), "{}{}", cancel.stdout, cancel.stderr);
    let k = cancel.json();
    assert_eq!((k["state"].as_str(), k["cash_returned"].as_i64()), (Some("canceled"), Some(100)), "{k}");
    let again = sale(&db, &url, &["cancel", "--cart", &cart2, "--reason", "customer left"]).await;
    assert_eq!((again.code, again.json()["cash_returned"].as_i64()), (Some(0), Some(0)));
    let refunds = psp.get(&format!("/v1/refunds?payment_intent={pi2}")).await;
    let data = refunds["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "one refund for the card tender: {refunds}");
    assert_eq!((data[0]["amount"].as_i64(), data[0]["status"].as_str()), (Some(150), Some("succeeded")));

    let day = sale(&db, &url, &["day"]).await;
    assert_eq!(day.code, Some(0));
    assert_eq!(day.json()["expected_drawer"], serde_json::json!([["usd", 300]]), "{}", day.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    for args in [
        &["new", "--currency", "usd", "--item", "NOPE"][..],
        &["new", "--currency", "xxx", "--item", "TEA"],
        &["new", "--currency", "usd", "--item", "TEA:0"],
        &["cash", "--cart", "1", "--tendered", "-5"],
        &["card", "--cart", "1", "--amount", "12.5"],
        &["cancel", "--cart", "1", "--reason", "no"],
        &["rounding", "--currency", "eur", "--increment", "0"],
    ] {
        let r = sale(&db, &url, args).await;
        assert_eq!(r.code, Some(1), "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.json()["error"]["code"].is_string(), "{args:?}: {}", r.stdout);
    }
    let carts: i64 = rusqlite::Connection::open(&db).unwrap().query_row("SELECT count(*) FROM carts", [], |r| r.get(0)).unwrap();
    assert_eq!(carts, 0, "no cart was made by refused input");
}
