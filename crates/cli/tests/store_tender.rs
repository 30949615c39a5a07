//! `paydesk-cli tender-type` and `sale tender` (issue #29, record 0118) through the real
//! binary: a manager or the owner adds a voucher type (a cashier is refused), a ¥1,000
//! voucher pays an ¥800-ish sale with the rest forfeited and the drawer untouched, and
//! End of day lists the type.

use crate::common;
use common::*;

async fn cli(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    run(db, url, &[], args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voucher_pays_what_is_due_and_the_rest_is_forfeited_not_given_from_the_drawer() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let p = cli(&db, &url, &["sale", "product", "--sku", "MUG", "--name", "Mug", "--price", "800", "--currency", "jpy"]).await;
    assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    let add = cli(&db, &url, &["tender-type", "add", "--name", "商品券", "--kind", "voucher", "--no-change", "--counts-for-stamp", "--json"]).await;
    assert_eq!(add.code, Some(0), "{}{}", add.stdout, add.stderr);
    let ty = add.json();
    assert_eq!((ty["name"].as_str(), ty["kind"].as_str(), ty["gives_change"].as_bool()), (Some("商品券"), Some("voucher"), Some(false)), "{ty}");
    let id = ty["id"].as_i64().unwrap().to_string();
    let list = cli(&db, &url, &["tender-type", "list", "--json"]).await.json();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    let words = cli(&db, &url, &["tender-type", "list"]).await;
    assert!(words.stdout.contains("商品券 (voucher), no change, counts for the stamp"), "{}", words.stdout);
    let dup = cli(&db, &url, &["tender-type", "add", "--name", "商品券", "--kind", "qr"]).await;
    assert_eq!((dup.code, dup.json()["error"]["code"].as_str()), (Some(1), Some("tender_type_name_taken")), "{}", dup.stdout);
    let bad = cli(&db, &url, &["tender-type", "add", "--name", "Cheque", "--kind", "cheque"]).await;
    assert_eq!((bad.code, bad.json()["error"]["code"].as_str()), (Some(1), Some("invalid_input")), "{}", bad.stdout);

    let v = cli(&db, &url, &["sale", "new", "--currency", "jpy", "--item", "MUG"]).await.json();
    let cart = v["cart_id"].as_i64().unwrap().to_string();
    let due = v["due"].as_i64().unwrap();
    let paid = cli(&db, &url, &["sale", "tender", "--cart", &cart, "--store-tender", &id, "--amount", &(due + 200).to_string(), "--ref", "GV-0042"]).await;
    assert_eq!(paid.code, Some(0), "{}{}", paid.stdout, paid.stderr);
    let j = paid.json();
    assert_eq!((j["amount"].as_i64(), j["change"].as_i64(), j["forfeited"].as_i64()), (Some(due), Some(0), Some(200)), "{j}");
    assert_eq!(j["sale"]["state"], "paid", "{j}");
    assert_eq!(j["tender"]["store"]["reference"], "GV-0042", "{j}");

    let day = cli(&db, &url, &["sale", "day"]).await.json();
    assert!(day["expected_drawer"].as_array().unwrap().iter().all(|d| d[1].as_i64() == Some(0)), "no cash moved: {day}");
    let receipt = cli(&db, &url, &["receipt", "--cart", &cart, "--format", "text"]).await;
    assert_eq!(receipt.code, Some(0), "{}{}", receipt.stdout, receipt.stderr);
    assert!(receipt.stdout.contains("商品券") && receipt.stdout.contains("GV-0042") && receipt.stdout.contains("No change given"), "{}", receipt.stdout);

    // Paid: a second tender is refused with the sale's own code.
    let again = cli(&db, &url, &["sale", "tender", "--cart", &cart, "--store-tender", &id, "--amount", "100"]).await;
    assert_eq!((again.code, again.json()["error"]["code"].as_str()), (Some(1), Some("sale_complete")), "{}", again.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_manager_or_the_owner_adds_a_tender_type() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let r = run_stdin(&db, &url, &["staff", "add", "--name", "Aiko", "--role", "owner"], "1357\n").await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let r = run_stdin(&db, &url, &["staff", "add", "--name", "Ben", "--role", "cashier", "--by", "Aiko"], "2468\n1357\n").await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let add = ["tender-type", "add", "--name", "PayPay", "--kind", "qr"];
    let nobody = cli(&db, &url, &add).await;
    assert_eq!((nobody.code, nobody.json()["error"]["code"].as_str()), (Some(1), Some("not_signed_in")), "{}", nobody.stdout);
    let r = run_stdin(&db, &url, &["staff", "sign-in", "--name", "Ben"], "2468\n").await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let cashier = cli(&db, &url, &add).await;
    assert_eq!((cashier.code, cashier.json()["error"]["code"].as_str()), (Some(1), Some("not_allowed")), "{}", cashier.stdout);
    let r = run_stdin(&db, &url, &["staff", "sign-in", "--name", "Aiko"], "1357\n").await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let owner = cli(&db, &url, &add).await;
    assert_eq!(owner.code, Some(0), "{}{}", owner.stdout, owner.stderr);
    assert!(owner.stdout.starts_with("added tender type 1 PayPay (qr), gives change"), "{}", owner.stdout);
}
