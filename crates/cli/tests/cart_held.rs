//! `paydesk-cli cart hold|held|recall|discard` (issue #30, record 0128) through the real
//! binary: a parked cart is listed and refuses cash, another sale is paid meanwhile, the
//! recalled cart is paid; an unknown cart, a tendered one and one past the limit are
//! refused with their codes; a discarded one takes no cash.

use crate::common;
use common::*;

async fn cli(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    run(db, url, &[], args).await
}

fn code(r: &Run) -> (Option<i32>, Option<String>) {
    (r.code, r.json()["error"]["code"].as_str().map(str::to_string))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_cart_is_listed_refuses_cash_and_is_paid_once_recalled() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let p = cli(&db, &url, &["sale", "product", "--sku", "MUG", "--name", "Mug", "--price", "800", "--currency", "jpy"]).await;
    assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    let first = cli(&db, &url, &["sale", "new", "--currency", "jpy", "--item", "MUG", "--item", "MUG"]).await.json();
    let first_cart = first["cart_id"].as_i64().unwrap().to_string();
    let due = first["due"].as_i64().unwrap();

    let held = cli(&db, &url, &["cart", "hold", "--cart", &first_cart, "--json"]).await;
    assert_eq!(held.code, Some(0), "{}{}", held.stdout, held.stderr);
    let h = held.json();
    assert_eq!((h["items"].as_i64(), h["total_minor"].as_i64()), (Some(2), Some(due)), "{h}");
    let list = cli(&db, &url, &["cart", "held", "--json"]).await.json();
    assert_eq!(list.as_array().unwrap().iter().map(|h| h["cart"].as_i64().unwrap()).collect::<Vec<_>>(), [first["cart_id"].as_i64().unwrap()]);
    let cash = cli(&db, &url, &["sale", "cash", "--cart", &first_cart, "--tendered", "5000"]).await;
    assert_eq!(code(&cash).0, Some(1), "a parked cart takes no cash: {}", cash.stdout);

    // The next customer pays in cash meanwhile.
    let next = cli(&db, &url, &["sale", "new", "--currency", "jpy", "--item", "MUG"]).await.json();
    let next_cart = next["cart_id"].as_i64().unwrap().to_string();
    assert_eq!(cli(&db, &url, &["sale", "cash", "--cart", &next_cart, "--tendered", "1000"]).await.code, Some(0));
    let tendered = cli(&db, &url, &["cart", "hold", "--cart", &next_cart]).await;
    assert_eq!(code(&tendered), (Some(1), Some("hold_tendered".into())), "{}", tendered.stdout);

    let recalled = cli(&db, &url, &["cart", "recall", "--cart", &first_cart, "--json"]).await;
    assert_eq!(recalled.code, Some(0), "{}{}", recalled.stdout, recalled.stderr);
    assert_eq!(recalled.json()["total_minor"].as_i64(), Some(due));
    assert_eq!(cli(&db, &url, &["cart", "held", "--json"]).await.json(), serde_json::json!([]));
    let again = cli(&db, &url, &["cart", "recall", "--cart", &first_cart]).await;
    assert_eq!(code(&again), (Some(1), Some("not_held".into())), "{}", again.stdout);
    let paid = cli(&db, &url, &["sale", "cash", "--cart", &first_cart, "--tendered", &due.to_string()]).await;
    assert_eq!(paid.code, Some(0), "{}{}", paid.stdout, paid.stderr);
    assert_eq!(paid.json()["sale"]["state"], "paid", "{}", paid.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_cart_and_one_past_the_limit_are_refused_and_a_discarded_one_is_void() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    cli(&db, &url, &["sale", "product", "--sku", "MUG", "--name", "Mug", "--price", "800", "--currency", "jpy"]).await;
    // (`sale new` makes no empty cart; the ledger's tests refuse one.)
    let r = cli(&db, &url, &["cart", "hold", "--cart", "99"]).await;
    assert_eq!(code(&r), (Some(1), Some("unknown_cart".into())), "{}", r.stdout);
    let mut carts = Vec::new();
    for _ in 0..2 {
        carts.push(cli(&db, &url, &["sale", "new", "--currency", "jpy", "--item", "MUG"]).await.json()["cart_id"].as_i64().unwrap().to_string());
    }
    assert_eq!(cli(&db, &url, &["cart", "hold", "--cart", &carts[0], "--limit", "1"]).await.code, Some(0));
    let r = cli(&db, &url, &["cart", "hold", "--cart", &carts[1], "--limit", "1"]).await;
    assert_eq!(code(&r), (Some(1), Some("hold_limit".into())), "{}", r.stdout);
    let r = cli(&db, &url, &["cart", "hold", "--cart", &carts[1], "--limit", "21"]).await;
    assert_eq!(code(&r), (Some(1), Some("invalid_input".into())), "{}", r.stdout);
    let d = cli(&db, &url, &["cart", "discard", "--cart", &carts[0]]).await;
    assert_eq!(d.code, Some(0), "{}{}", d.stdout, d.stderr);
    let r = cli(&db, &url, &["sale", "cash", "--cart", &carts[0], "--tendered", "800"]).await;
    assert_eq!(r.code, Some(1), "a discarded cart is void: {}", r.stdout);
    let words = cli(&db, &url, &["cart", "held"]).await;
    assert_eq!((words.code, words.stdout.trim()), (Some(0), ""), "{}", words.stdout);
}
