//! `paydesk-cli sale return` (issue #29, record 0114) through the real binary and the real
//! mock PSP over loopback: lines of a split card + cash sale come back, the card gets its
//! part first as exactly one refund at the PSP under the refund's key, the rest leaves the
//! drawer, and a second return past what is left is refused with its own code.

use crate::common;
use common::*;

async fn sale(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    let mut a = vec!["sale"];
    a.extend_from_slice(args);
    run(db, url, &[], &a).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_returned_card_line_is_one_refund_at_the_psp_and_the_rest_leaves_the_drawer() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    for (sku, name, price) in [("MUG", "Mug", "1000"), ("TEA", "Green tea", "350")] {
        let p = sale(&db, &url, &["product", "--sku", sku, "--name", name, "--price", price, "--currency", "usd"]).await;
        assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    }
    let v = sale(&db, &url, &["new", "--currency", "usd", "--item", "MUG", "--item", "TEA:2"]).await.json();
    let cart = v["cart_id"].as_i64().unwrap().to_string();
    let lines: Vec<&str> = v["lines"].as_array().unwrap().iter().map(|l| l["sku"].as_str().unwrap()).collect();
    assert_eq!(lines, ["MUG", "TEA"], "line 0 is the mug, line 1 the tea: {v}");
    let card = sale(&db, &url, &["card", "--cart", &cart, "--amount", "600"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    let pi = card.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let due = card.json()["sale"]["due"].as_i64().unwrap();
    let cash = sale(&db, &url, &["cash", "--cart", &cart, "--tendered", &due.to_string()]).await;
    assert_eq!(cash.code, Some(0), "{}{}", cash.stdout, cash.stderr);
    let drawer = |day: &serde_json::Value| day["expected_drawer"][0][1].as_i64().unwrap();
    let before = drawer(&sale(&db, &url, &["day"]).await.json());

    // The mug and one tea come back: 600 to the card first, the rest in cash.
    let ret = sale(&db, &url, &["return", "--cart", &cart, "--line", "0:1", "--line", "1:1", "--reason", "wrong colour", "--json"]).await;
    assert_eq!(ret.code, Some(0), "{}{}", ret.stdout, ret.stderr);
    let j = ret.json();
    let total = j["return"]["total_minor"].as_i64().unwrap();
    assert!(total > 600, "{j}");
    assert_eq!(j["return"]["number"], format!("{:06}-R1", cart.parse::<i64>().unwrap()), "{j}");
    let refunds = j["card_refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{j}");
    assert_eq!((refunds[0]["amount"].as_i64(), refunds[0]["state"].as_str()), (Some(600), Some("succeeded")), "{j}");
    let key = refunds[0]["refund_key"].as_str().unwrap();
    assert_eq!(j["cash_out"].as_i64(), Some(total - 600), "{j}");

    let at_psp = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    let data = at_psp["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "exactly one refund for the card: {at_psp}");
    assert_eq!((data[0]["amount"].as_i64(), data[0]["metadata"]["refund_key"].as_str()), (Some(600), Some(key)), "{at_psp}");
    assert_eq!(drawer(&sale(&db, &url, &["day"]).await.json()), before - (total - 600), "the cash left the drawer");

    // One tea is left: two more is refused, nothing sent, with its own code; words without --json.
    let over = sale(&db, &url, &["return", "--cart", &cart, "--line", "1:2"]).await;
    assert_eq!(over.code, Some(1), "{}{}", over.stdout, over.stderr);
    assert_eq!(over.json()["error"]["code"], "return_exceeds_sold", "{}", over.stdout);
    let last = sale(&db, &url, &["return", "--cart", &cart, "--line", "1:1"]).await;
    assert_eq!(last.code, Some(0), "{}{}", last.stdout, last.stderr);
    assert!(last.stdout.starts_with(&format!("return {:06}-R2 of sale {cart}:", cart.parse::<i64>().unwrap())), "{}", last.stdout);
    assert_eq!(psp.get(&format!("/v1/refunds?payment_intent={pi}")).await["data"].as_array().unwrap().len(), 1, "the card had nothing left");
    for bad in [&["--line", "1"][..], &["--line", "0:0"], &["--line", "0:1", "--line", "0:1"]] {
        let mut args = vec!["return", "--cart", &cart];
        args.extend_from_slice(bad);
        let r = sale(&db, &url, &args).await;
        assert_eq!((r.code, r.json()["error"]["code"].as_str()), (Some(1), Some("invalid_input")), "{bad:?}: {}", r.stdout);
    }
}
