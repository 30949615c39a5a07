//! `paydesk-cli sale exchange` (issue #29, record 0123) through the real binary and the real
//! mock PSP over loopback: a mug paid by card + cash is exchanged for a dearer one; the
//! difference is ONE new card payment at the PSP, no refund is made and the drawer does not
//! move; then the dearer mug comes back and its credit part goes back to the FIRST card
//! (one refund on the first payment intent, at most what it paid) and the first sale's
//! cash; the new sale's receipt names the credit and its 領収書 must come back before its
//! money does; a refused exchange writes nothing and says why with its own code.

use crate::common;
use common::*;

async fn sale(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    let mut a = vec!["sale"];
    a.extend_from_slice(args);
    run(db, url, &[], &a).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exchange_for_a_dearer_mug_is_one_payment_of_the_difference_and_its_return_goes_back_to_the_first_card() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    for (sku, name, price) in [("MUG", "Mug", "1000"), ("BIG", "Big mug", "1500"), ("TEA", "Green tea", "350")] {
        let p = sale(&db, &url, &["product", "--sku", sku, "--name", name, "--price", price, "--currency", "usd"]).await;
        assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    }
    // The first sale: a mug and two teas, 600 by card and the rest in cash.
    let v = sale(&db, &url, &["new", "--currency", "usd", "--item", "MUG", "--item", "TEA:2"]).await.json();
    let old = v["cart_id"].as_i64().unwrap().to_string();
    let total = v["total"].as_i64().unwrap();
    assert_eq!(total, 1700, "{v}");
    let card = sale(&db, &url, &["card", "--cart", &old, "--amount", "600"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    let first_pi = card.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let due = card.json()["sale"]["due"].as_i64().unwrap();
    assert_eq!(sale(&db, &url, &["cash", "--cart", &old, "--tendered", &due.to_string()]).await.code, Some(0));
    let drawer = |day: &serde_json::Value| day["expected_drawer"][0][1].as_i64().unwrap();
    let cash_before = drawer(&sale(&db, &url, &["day"]).await.json());
    let intents_before = psp.get("/v1/payment_intents").await["data"].as_array().unwrap().len();

    // The mug for the big mug: 1,000 credited, 500 due, nothing given back.
    let new = sale(&db, &url, &["new", "--currency", "usd", "--item", "BIG"]).await.json()["cart_id"].as_i64().unwrap().to_string();
    let x = sale(&db, &url, &["exchange", "--cart", &old, "--line", "0:1", "--into", &new, "--reason", "too small", "--json"]).await;
    assert_eq!(x.code, Some(0), "{}{}", x.stdout, x.stderr);
    let j = x.json();
    assert_eq!((j["credit"].as_i64(), j["cash_out"].as_i64()), (Some(1000), Some(0)), "{j}");
    assert!(j["card_refunds"].as_array().unwrap().is_empty(), "{j}");
    assert_eq!((j["new_sale"]["due"].as_i64(), j["new_sale"]["state"].as_str()), (Some(500), Some("partially_paid")), "{j}");
    assert_eq!(j["new_sale"]["exchange_credit"]["amount_minor"].as_i64(), Some(1000), "{j}");
    assert_eq!(drawer(&sale(&db, &url, &["day"]).await.json()), cash_before, "no cash moved");
    // The difference: one card payment of 500.
    let pay = sale(&db, &url, &["card", "--cart", &new, "--amount", "500"]).await;
    assert_eq!(pay.code, Some(0), "{}{}", pay.stdout, pay.stderr);
    assert_eq!(pay.json()["sale"]["state"], "paid", "{}", pay.stdout);
    let second_pi = pay.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let intents = psp.get("/v1/payment_intents").await["data"].as_array().unwrap().clone();
    assert_eq!(intents.len(), intents_before + 1, "one new payment at the PSP");
    assert!(intents.iter().any(|p| p["id"] == second_pi.as_str() && p["amount"].as_i64() == Some(500)));
    for pi in [&first_pi, &second_pi] {
        assert!(psp.get(&format!("/v1/refunds?payment_intent={pi}")).await["data"].as_array().unwrap().is_empty(), "no refund for {pi}");
    }
    // The new sale's receipt names the credit as what paid the rest, and its 領収書 is
    // issued for the whole sale (the credit is not cash: no stamp is judged on it).
    let receipt = run(&db, &url, &[], &["receipt", "--cart", &new]).await;
    assert_eq!(receipt.code, Some(0), "{}{}", receipt.stdout, receipt.stderr);
    let credit_line = format!("Exchange {:06}-R1", old.parse::<i64>().unwrap());
    assert!(receipt.stdout.contains(&credit_line) && receipt.stdout.contains("$10.00") && receipt.stdout.contains("$5.00"), "{}", receipt.stdout);
    let formal = run(&db, &url, &[], &["receipt", "--cart", &new, "--ryoshusho", "--to", "ACME Inc.", "--for", "Goods", "--json"]).await;
    assert_eq!(formal.code, Some(0), "{}{}", formal.stdout, formal.stderr);

    // The big mug comes back: its own card first (500), then the credit: the first card's
    // 600, then 400 of the first sale's cash.
    // The customer holds the new sale's 領収書: no money back until it comes back too.
    let kept = sale(&db, &url, &["return", "--cart", &new, "--line", "0:1", "--json"]).await;
    assert_eq!((kept.code, kept.json()["error"]["code"].as_str()), (Some(1), Some("ryoshusho_not_taken_back")), "{}", kept.stdout);
    let back = sale(&db, &url, &["return", "--cart", &new, "--line", "0:1", "--ryoshusho-taken-back", "--json"]).await;
    assert_eq!(back.code, Some(0), "{}{}", back.stdout, back.stderr);
    let b = back.json();
    let amounts: Vec<i64> = b["card_refunds"].as_array().unwrap().iter().map(|r| r["amount"].as_i64().unwrap()).collect();
    assert_eq!((amounts, b["cash_out"].as_i64()), (vec![500, 600], Some(400)), "{b}");
    for (pi, amount) in [(&second_pi, 500), (&first_pi, 600)] {
        let data = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await["data"].as_array().unwrap().clone();
        assert_eq!(data.iter().map(|r| r["amount"].as_i64().unwrap()).collect::<Vec<_>>(), vec![amount], "{pi}");
    }
    assert_eq!(drawer(&sale(&db, &url, &["day"]).await.json()), cash_before - 400);
    // The first sale's teas are all it has left, in cash: the first card has nothing more.
    let rest = sale(&db, &url, &["return", "--cart", &old, "--line", "1:2", "--json"]).await;
    assert_eq!(rest.code, Some(0), "{}{}", rest.stdout, rest.stderr);
    assert_eq!((rest.json()["card_refunds"].as_array().unwrap().len(), rest.json()["cash_out"].as_i64()), (0, Some(700)));
    assert_eq!(drawer(&sale(&db, &url, &["day"]).await.json()), cash_before - 400 - 700);
    assert_eq!(cash_before - 400 - 700, cash_before - (total - 600), "the first sale's cash came back whole, no more");

    // Refused, with codes: into a paid sale, into itself; nothing sent.
    let again = sale(&db, &url, &["exchange", "--cart", &old, "--line", "1:1", "--into", &new]).await;
    assert_eq!((again.code, again.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", again.stdout);
    let third = sale(&db, &url, &["new", "--currency", "usd", "--item", "TEA"]).await.json()["cart_id"].as_i64().unwrap().to_string();
    let free = sale(&db, &url, &["exchange", "--cart", &new, "--line", "0:1", "--into", &third]).await;
    assert_eq!((free.code, free.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", free.stdout);
    let refunds_now = psp.get("/v1/refunds").await["data"].as_array().unwrap().len();
    assert_eq!(refunds_now, 2, "only the two refunds of the return");
}

/// The amounts of a payment intent's refunds at the PSP, oldest first.
async fn at_psp(psp: &Psp, pi: &str) -> Vec<i64> {
    let list = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    list["data"].as_array().unwrap().iter().map(|r| r["amount"].as_i64().unwrap()).rev().collect()
}

/// Record 0160: "refund all" by hand of a card payment part of which an exchange credit
/// holds gives back exactly what is left beside the credit, and `show` says both figures
/// before it is pressed. A mug and a tea paid 1,350 by card; the mug is exchanged for two
/// croissants (400 of credit, 600 back to the card); "refund all" then sends the tea's 350,
/// not the 750 the payment's refunds alone would leave (which the ledger refuses). The
/// croissants returned later send the credit's 400 back: the card has its 1,350, no more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refund_all_by_hand_after_an_exchange_gives_back_what_the_credit_does_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    for (sku, name, price) in [("MUG", "Mug", "1000"), ("CRO", "Croissant", "200"), ("TEA", "Green tea", "350")] {
        let p = sale(&db, &url, &["product", "--sku", sku, "--name", name, "--price", price, "--currency", "usd"]).await;
        assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    }
    let old = sale(&db, &url, &["new", "--currency", "usd", "--item", "MUG", "--item", "TEA"]).await.json()["cart_id"].as_i64().unwrap().to_string();
    let card = sale(&db, &url, &["card", "--cart", &old, "--amount", "1350"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    let key = card.json()["checkout"]["checkout_key"].as_str().unwrap().to_string();
    let pi = card.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let new = sale(&db, &url, &["new", "--currency", "usd", "--item", "CRO:2"]).await.json()["cart_id"].as_i64().unwrap().to_string();
    let x = sale(&db, &url, &["exchange", "--cart", &old, "--line", "0:1", "--into", &new, "--json"]).await;
    assert_eq!(x.code, Some(0), "{}{}", x.stdout, x.stderr);
    assert_eq!(x.json()["credit"].as_i64(), Some(400), "{}", x.stdout);
    assert_eq!(at_psp(&psp, &pi).await, [600], "the mug over the croissants went back");

    // Before pressing: 350 may be refunded by hand, 400 is held by the croissants' sale.
    let show = run(&db, &url, &[], &["show", "--payment", &key]).await.json();
    assert_eq!((show["room"]["refundable_minor"].as_i64(), show["room"]["held_minor"].as_i64()), (Some(350), Some(400)), "{show}");
    let all = run(&db, &url, &[], &["refund", "--payment", &key]).await;
    assert_eq!(all.code, Some(0), "{}{}", all.stdout, all.stderr);
    assert_eq!((all.json()["amount"].as_i64(), all.json()["state"].as_str()), (Some(350), Some("succeeded")), "{}", all.stdout);
    assert_eq!(at_psp(&psp, &pi).await, [600, 350]);
    let show = run(&db, &url, &[], &["show", "--payment", &key]).await.json();
    assert_eq!((show["room"]["refundable_minor"].as_i64(), show["room"]["held_minor"].as_i64()), (Some(0), Some(400)), "{show}");
    for amount in [None, Some("1")] {
        let mut args = vec!["refund", "--payment", key.as_str()];
        args.extend(amount.iter().flat_map(|a| ["--amount", *a]));
        let more = run(&db, &url, &[], &args).await;
        assert_eq!((more.code, more.json()["error"]["code"].as_str()), (Some(1), Some("refund_exceeds_captured")), "{}{}", more.stdout, more.stderr);
    }
    assert_eq!(at_psp(&psp, &pi).await, [600, 350], "nothing more sent");

    // The croissants come back: the credit's 400 goes to the first card, which has its 1,350.
    let back = sale(&db, &url, &["return", "--cart", &new, "--line", "0:2", "--json"]).await;
    assert_eq!(back.code, Some(0), "{}{}", back.stdout, back.stderr);
    assert_eq!(at_psp(&psp, &pi).await, [600, 350, 400]);
    let show = run(&db, &url, &[], &["show", "--payment", &key]).await.json();
    assert_eq!((show["room"]["refundable_minor"].as_i64(), show["room"]["held_minor"].as_i64()), (Some(0), Some(0)), "{show}");
}
