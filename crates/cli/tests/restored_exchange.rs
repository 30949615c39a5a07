//! An exchange of a sale restored from a replaced register (record 0153), end to end: the real
//! `paydesk-cli` binary, the real mock PSP over loopback, real ledger files and the real back
//! office on a private PostgreSQL. Register A sells a mug (1000) and two teas (350), 600 by
//! card and the rest in cash, and syncs; the owner replaces A; B pairs and restores A.
//! 1. A's mug comes back for a tea of B's: the tea is paid by the credit (350, out of A's
//!    card first); the difference goes back once: 250 to A's card under a new key of B's, 400
//!    out of B's drawer.
//! 2. A's two teas come back for a mug of B's: all 700 is credit (A's card has nothing left,
//!    so out of A's cash); B's mug is charged once at the PSP for its due of 300.
//! 3. Nothing of A's sale is left: a third exchange is refused (`return_exceeds_sold`).
//! 4. The tea of the first new sale comes back (record 0156): its credit goes back where it
//!    came from, A's card: one more refund of A's payment (350, a new key of B's), which now
//!    has its 600 back and no more; B's drawer unmoved. Again is refused, and a refund by
//!    amount finds nothing left (`sale_refund_exceeds`).
//!    The back office takes both restored returns under A's sale, B's return under B's sale,
//!    both new sales, the refunds of A's payment, once each, and nets them.
use crate::common;
use crate::support;

use common::*;
use serde_json::{json, Value};
use std::path::Path;

async fn pair(db: &Path, url: &str, code: &str) -> Value {
    let r = sync_pair(db, url, code).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    r.json()
}

async fn sale(db: &Path, url: &str, args: &[&str]) -> Run {
    let mut a = vec!["sale"];
    a.extend_from_slice(args);
    run(db, url, &[], &a).await
}

async fn drawer(db: &Path, url: &str) -> i64 {
    let day = sale(db, url, &["day"]).await.json();
    day["expected_drawer"].as_array().into_iter().flatten().find(|d| d[0] == "usd").and_then(|d| d[1].as_i64()).unwrap_or(0)
}

async fn products(db: &Path, url: &str) {
    for (sku, name, price) in [("MUG", "Mug", "1000"), ("TEA", "Green tea", "350")] {
        let p = sale(db, url, &["product", "--sku", sku, "--name", name, "--price", price, "--currency", "usd"]).await;
        assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replacement_exchanges_its_predecessors_sale_refunding_once_charging_once_and_the_back_office_nets_it() {
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (db_a, db_b) = (dir_a.path().join("ledger.db"), dir_b.path().join("ledger.db"));
    let psp_dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(psp_dir.path()).await;
    let url = psp.url();
    let h = support::Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();

    let a = pair(&db_a, &h.url, &h.owner.pairing_code(&store, "Front till").await.unwrap()).await;
    let a_id = a["register_id"].as_str().unwrap().to_string();
    products(&db_a, &url).await;
    let v = sale(&db_a, &url, &["new", "--currency", "usd", "--item", "MUG", "--item", "TEA:2"]).await.json();
    let cart = v["cart_id"].as_i64().unwrap();
    let card = sale(&db_a, &url, &["card", "--cart", &cart.to_string(), "--amount", "600"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    let pi = card.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let due = card.json()["sale"]["due"].as_i64().unwrap();
    assert_eq!(600 + due, 1700);
    let cash = sale(&db_a, &url, &["cash", "--cart", &cart.to_string(), "--tendered", &due.to_string()]).await;
    assert_eq!(cash.code, Some(0), "{}{}", cash.stdout, cash.stderr);
    let r = sync_cmd(&db_a, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);

    drop(dir_a);
    h.owner.post(&format!("/admin/stores/{store}/registers/{a_id}/replace"), &json!({})).await.unwrap();
    let b = pair(&db_b, &h.url, &h.owner.pairing_code(&store, "Front till").await.unwrap()).await;
    let b_id = b["register_id"].as_str().unwrap().to_string();
    let r = sync_cmd(&db_b, &["restore", "--from", &a_id], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    products(&db_b, &url).await;
    let before = drawer(&db_b, &url).await;

    // 1. The mug for a tea, by receipt number.
    let n1 = sale(&db_b, &url, &["new", "--currency", "usd", "--item", "TEA"]).await.json()["cart_id"].as_i64().unwrap();
    let x = sale(&db_b, &url, &["exchange", "--receipt", &format!("{cart:06}"), "--line", "0:1", "--into", &n1.to_string(), "--reason", "swap", "--json"]).await;
    assert_eq!(x.code, Some(0), "{}{}", x.stdout, x.stderr);
    let j = x.json();
    assert_eq!((j["credit"].as_i64(), j["return"]["total_minor"].as_i64(), j["return"]["number"].as_str()), (Some(350), Some(1000), Some(format!("{cart:06}-R1").as_str())), "{j}");
    assert_eq!((j["new_sale"]["state"].as_str(), j["new_sale"]["due"].as_i64()), (Some("paid"), Some(0)), "{j}");
    let refunds = j["card_refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{j}");
    assert_eq!((refunds[0]["amount"].as_i64(), refunds[0]["state"].as_str()), (Some(250), Some("succeeded")), "{j}");
    let key = refunds[0]["refund_key"].as_str().unwrap().to_string();
    assert_eq!(j["cash_out"].as_i64(), Some(400), "{j}");
    let at_psp = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    let data = at_psp["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "exactly one refund of A's payment: {at_psp}");
    assert_eq!((data[0]["amount"].as_i64(), data[0]["metadata"]["refund_key"].as_str()), (Some(250), Some(key.as_str())), "{at_psp}");
    assert_eq!(drawer(&db_b, &url).await, before - 400);

    // 2. The two teas for a mug, by predecessor and sale id: all credit, the rest charged once.
    let n2 = sale(&db_b, &url, &["new", "--currency", "usd", "--item", "MUG"]).await.json()["cart_id"].as_i64().unwrap();
    let x = sale(&db_b, &url, &["exchange", "--restored-from", &a_id, "--sale", &cart.to_string(), "--line", "1:2", "--into", &n2.to_string(), "--json"]).await;
    assert_eq!(x.code, Some(0), "{}{}", x.stdout, x.stderr);
    let j = x.json();
    assert_eq!((j["credit"].as_i64(), j["card_refunds"].as_array().map(Vec::len), j["cash_out"].as_i64()), (Some(700), Some(0), Some(0)), "{j}");
    assert_eq!(j["new_sale"]["due"].as_i64(), Some(300), "{j}");
    let pay = sale(&db_b, &url, &["card", "--cart", &n2.to_string(), "--amount", "300"]).await;
    assert_eq!(pay.code, Some(0), "{}{}", pay.stdout, pay.stderr);
    assert_eq!(pay.json()["sale"]["state"].as_str(), Some("paid"), "{}", pay.stdout);
    let b_pi = pay.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let charged = psp.get(&format!("/v1/payment_intents/{b_pi}")).await;
    assert_eq!((charged["amount"].as_i64(), charged["status"].as_str()), (Some(300), Some("succeeded")), "{charged}");
    assert_eq!(psp.get(&format!("/v1/refunds?payment_intent={pi}")).await["data"].as_array().unwrap().len(), 1, "no second refund of A's payment");

    // 3. Nothing is left of A's sale.
    let n3 = sale(&db_b, &url, &["new", "--currency", "usd", "--item", "TEA"]).await.json()["cart_id"].as_i64().unwrap();
    let over = sale(&db_b, &url, &["exchange", "--restored-from", &a_id, "--sale", &cart.to_string(), "--line", "1:1", "--into", &n3.to_string()]).await;
    assert_eq!((over.code, over.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", over.stdout);

    // 4. The first new sale's tea comes back: all of it was credit out of A's card, so it
    //    goes back to A's card, once, under a new key; A's payment then has its 600 back.
    let back = sale(&db_b, &url, &["return", "--cart", &n1.to_string(), "--line", "0:1", "--json"]).await;
    assert_eq!(back.code, Some(0), "{}{}", back.stdout, back.stderr);
    let j = back.json();
    let refunds = j["card_refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{j}");
    assert_eq!((refunds[0]["amount"].as_i64(), refunds[0]["state"].as_str()), (Some(350), Some("succeeded")), "{j}");
    let key2 = refunds[0]["refund_key"].as_str().unwrap().to_string();
    assert_ne!(key2, key, "a new key");
    assert_eq!(j["cash_out"].as_i64(), Some(0), "{j}");
    let at_psp = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    let mut got: Vec<(Option<i64>, Option<String>)> = at_psp["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["amount"].as_i64(), r["metadata"]["refund_key"].as_str().map(str::to_string)))
        .collect();
    got.sort();
    assert_eq!(got, [(Some(250), Some(key.clone())), (Some(350), Some(key2.clone()))], "two refunds of A's payment, each once: {at_psp}");
    assert_eq!(drawer(&db_b, &url).await, before - 400, "nothing more left the drawer");
    let again = sale(&db_b, &url, &["return", "--cart", &n1.to_string(), "--line", "0:1"]).await;
    assert_eq!((again.code, again.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", again.stdout);
    let more = sale(&db_b, &url, &["refund", "--cart", &n1.to_string(), "--amount", "1"]).await;
    assert_eq!((more.code, more.json()["error"]["code"].as_str()), (Some(1), Some("sale_refund_exceeds")), "{}{}", more.stdout, more.stderr);
    assert_eq!(psp.get(&format!("/v1/refunds?payment_intent={pi}")).await["data"].as_array().unwrap().len(), 2, "no third refund of A's payment");

    // Up: both returns under A's sale (taken by B), both new sales as B's, netted once.
    let r = sync_cmd(&db_b, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert_eq!(sync_cmd(&db_b, &["status"], &[]).await.json()["queued"].as_u64(), Some(0));
    assert_eq!(h.count(&format!("SELECT sum(total)::int8 FROM sale_returns WHERE register_id::text = '{a_id}' AND taken_by::text = '{b_id}'")).await, 1700);
    assert_eq!(h.count(&format!("SELECT sum(amount)::int8 FROM cash_refunds WHERE register_id::text = '{a_id}' AND drawer_register_id::text = '{b_id}'")).await, 400);
    assert_eq!(h.count(&format!("SELECT sum(total)::int8 FROM sales WHERE register_id::text = '{b_id}'")).await, 1350);
    assert_eq!(h.count(&format!("SELECT sum(total)::int8 FROM sale_returns WHERE register_id::text = '{b_id}'")).await, 350);
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let net = d["sales_net"].as_array().unwrap().iter().find(|s| s["store_id"] == store.as_str()).unwrap().clone();
    assert_eq!(
        (net["sales"].as_i64(), net["sold"].as_i64(), net["returned"].as_i64(), net["net"].as_i64()),
        (Some(3), Some(1700 + 1350), Some(1700 + 350), Some(1350 - 350)),
        "{net}"
    );
}
