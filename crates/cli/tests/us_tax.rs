//! A New York City sale (record 0131) through the real binary and the mock PSP: the en-US
//! demo store taxes at 8.875 % (NY State 4 % + New York City 4.5 % + MCTD 0.375 %) on shelf
//! prices without tax, the card is charged the total with tax, and the receipt names the taxes.

use crate::common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_york_city_sale_charges_tax_on_the_card_and_names_each_tax_on_the_receipt() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("nyc.db");
    let url = psp.url();
    let seed = run(&db, &url, &[], &["store", "seed", "--locale", "en-US"]).await;
    assert_eq!(seed.code, Some(0), "{}{}", seed.stdout, seed.stderr);

    // Two coffees $2.50 and a mug $14.95 are taxable (1995); a bagel to go $2.75 is grocery
    // food. 1995 × 8.875 % = 177.06 → $1.77; total 1995 + 275 + 177 = $24.47.
    let new = run(&db, &url, &[], &["sale", "new", "--currency", "usd", "--item", "COF-001:2", "--item", "BAG-001:1", "--item", "MUG-001:1"]).await;
    assert_eq!(new.code, Some(0), "{}{}", new.stdout, new.stderr);
    let v = new.json();
    assert_eq!((v["total"].as_i64(), v["due"].as_i64()), (Some(2447), Some(2447)), "{v}");
    let cart = v["cart_id"].as_i64().unwrap().to_string();

    let card = run(&db, &url, &[], &["sale", "card", "--cart", &cart, "--amount", "2447"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    let c = card.json();
    assert_eq!((c["checkout"]["outcome"].as_str(), c["sale"]["state"].as_str()), (Some("paid"), Some("paid")), "{c}");
    // The PSP charged what the customer was told, tax included.
    let intents = psp.intents().await;
    assert_eq!(intents.len(), 1);
    assert_eq!((intents[0]["amount"].as_i64(), intents[0]["currency"].as_str()), (Some(2447), Some("usd")), "{intents:?}");
    assert_ledger_equals_psp(&db, &psp).await;

    let text = run(&db, &url, &[], &["receipt", "--cart", &cart, "--format", "text"]).await;
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    let t = &text.stdout;
    for want in ["350 Fifth Avenue", "Taxable 8.875% excl. tax", "$19.95", "$1.77", "NY State 4%", "$0.80", "New York City 4.5%", "$0.90", "MCTD 0.375%", "$0.07", "$24.47"] {
        assert!(t.contains(want), "{want:?} not on the receipt:\n{t}");
    }
    assert!(!t.contains('※'), "no reduced-rate mark in New York:\n{t}");
}
