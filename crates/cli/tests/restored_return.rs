//! A return of a sale restored from a replaced register (record 0144), end to end: the real
//! `paydesk-cli` binary, the real mock PSP over loopback, real ledger files and the real back
//! office on a private PostgreSQL. Register A sells a mug and two teas, paid 600 by card and
//! the rest in cash, and syncs; the owner replaces A; B pairs and restores A; B takes the mug
//! back: the PSP holds exactly one refund of A's payment, of 600 under a new key of B's; B's
//! drawer pays out the rest; B syncs and the back office takes the return once, under A's
//! sale; a second return by receipt number is all cash (the card has nothing left) and a third
//! past what was sold is refused with its own code.
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

/// The register's expected drawer in usd (0 when it never held cash).
async fn drawer(db: &Path, url: &str) -> i64 {
    let day = sale(db, url, &["day"]).await.json();
    day["expected_drawer"].as_array().into_iter().flatten().find(|d| d[0] == "usd").and_then(|d| d[1].as_i64()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replacement_takes_back_its_predecessors_sale_once_at_the_psp_in_its_drawer_and_at_the_back_office() {
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (db_a, db_b) = (dir_a.path().join("ledger.db"), dir_b.path().join("ledger.db"));
    let psp_dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(psp_dir.path()).await;
    let url = psp.url();
    let h = support::Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();

    // A: a mug (1000) and two teas (350), 600 by card, the rest in cash; synced.
    let a = pair(&db_a, &h.url, &h.owner.pairing_code(&store, "Front till").await.unwrap()).await;
    let a_id = a["register_id"].as_str().unwrap().to_string();
    for (sku, name, price) in [("MUG", "Mug", "1000"), ("TEA", "Green tea", "350")] {
        let p = sale(&db_a, &url, &["product", "--sku", sku, "--name", name, "--price", price, "--currency", "usd"]).await;
        assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    }
    let v = sale(&db_a, &url, &["new", "--currency", "usd", "--item", "MUG", "--item", "TEA:2"]).await.json();
    let cart = v["cart_id"].as_i64().unwrap();
    let card = sale(&db_a, &url, &["card", "--cart", &cart.to_string(), "--amount", "600"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    let pi = card.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let a_key = card.json()["checkout"]["checkout_key"].as_str().map(str::to_string);
    let due = card.json()["sale"]["due"].as_i64().unwrap();
    let cash = sale(&db_a, &url, &["cash", "--cart", &cart.to_string(), "--tendered", &due.to_string()]).await;
    assert_eq!(cash.code, Some(0), "{}{}", cash.stdout, cash.stderr);
    let total = 600 + due;
    let r = sync_cmd(&db_a, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);

    // A dies; the owner replaces it; B pairs and restores it.
    drop(dir_a);
    h.owner.post(&format!("/admin/stores/{store}/registers/{a_id}/replace"), &json!({})).await.unwrap();
    let b = pair(&db_b, &h.url, &h.owner.pairing_code(&store, "Front till").await.unwrap()).await;
    let b_id = b["register_id"].as_str().unwrap().to_string();
    let r = sync_cmd(&db_b, &["restore", "--from", &a_id], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let before = drawer(&db_b, &url).await;

    // B takes the mug back: 600 to A's card first, under a new key of B's; 400 in cash.
    let ret = sale(&db_b, &url, &["return", "--restored-from", &a_id, "--sale", &cart.to_string(), "--line", "0:1", "--reason", "cracked", "--json"]).await;
    assert_eq!(ret.code, Some(0), "{}{}", ret.stdout, ret.stderr);
    let j = ret.json();
    assert_eq!((j["return"]["total_minor"].as_i64(), j["return"]["number"].as_str()), (Some(1000), Some(format!("{cart:06}-R1").as_str())), "{j}");
    let refunds = j["card_refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{j}");
    assert_eq!((refunds[0]["amount"].as_i64(), refunds[0]["state"].as_str()), (Some(600), Some("succeeded")), "{j}");
    let key = refunds[0]["refund_key"].as_str().unwrap().to_string();
    assert_ne!(Some(key.clone()), a_key);
    assert_eq!(j["cash_out"].as_i64(), Some(400), "{j}");
    // The document names A's receipt number.
    let doc = j["document"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect::<Vec<_>>().join("\n");
    assert!(doc.contains(&format!("{cart:06}")), "{doc}");

    let at_psp = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    let data = at_psp["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "exactly one refund of A's payment: {at_psp}");
    assert_eq!((data[0]["amount"].as_i64(), data[0]["metadata"]["refund_key"].as_str()), (Some(600), Some(key.as_str())), "{at_psp}");
    assert_eq!(drawer(&db_b, &url).await, before - 400, "the cash left B's drawer");

    // Up: the back office takes the refund of A's payment from A's replacement, and the
    // return and its cash under A's sale, once.
    let r = sync_cmd(&db_b, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert_eq!(sync_cmd(&db_b, &["status"], &[]).await.json()["queued"].as_u64(), Some(0));
    assert_eq!(h.count(&format!("SELECT count(*) FROM sale_returns WHERE register_id::text = '{a_id}' AND taken_by::text = '{b_id}'")).await, 1);
    assert_eq!(h.count(&format!("SELECT sum(amount)::int8 FROM cash_refunds WHERE register_id::text = '{a_id}' AND drawer_register_id::text = '{b_id}'")).await, 400);
    assert_eq!(h.count(&format!("SELECT sum(amount)::int8 FROM refunds WHERE register_id::text = '{b_id}' AND refund_key = '{key}' AND state = 'succeeded'")).await, 600);
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let net = d["sales_net"].as_array().unwrap().iter().find(|s| s["store_id"] == store.as_str()).unwrap().clone();
    assert_eq!(
        (net["sales"].as_i64(), net["sold"].as_i64(), net["returns"].as_i64(), net["returned"].as_i64(), net["net"].as_i64(), net["cash_refunded"].as_i64()),
        (Some(1), Some(total), Some(1), Some(1000), Some(total - 1000), Some(400)),
        "{net}"
    );

    // By receipt number: both teas; A's card has nothing left, so all of it is cash.
    let two = sale(&db_b, &url, &["return", "--receipt", &format!("{cart:06}"), "--line", "1:2", "--json"]).await;
    assert_eq!(two.code, Some(0), "{}{}", two.stdout, two.stderr);
    assert_eq!((two.json()["card_refunds"].as_array().map(Vec::len), two.json()["cash_out"].as_i64()), (Some(0), Some(700)), "{}", two.stdout);
    assert_eq!(psp.get(&format!("/v1/refunds?payment_intent={pi}")).await["data"].as_array().unwrap().len(), 1);
    // Nothing is left: refused with its own code, nothing sent.
    let over = sale(&db_b, &url, &["return", "--restored-from", &a_id, "--sale", &cart.to_string(), "--line", "1:1"]).await;
    assert_eq!((over.code, over.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", over.stdout);
    let r = sync_cmd(&db_b, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert_eq!(h.count(&format!("SELECT sum(total)::int8 FROM sale_returns WHERE register_id::text = '{a_id}'")).await, total);
}
