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

/// A tax-exempt sale (record 0135) through the real binary and the mock PSP: marked with its
/// reason, the card is charged the untaxed total exactly once; the receipt says why; once
/// paid, the exemption no longer changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exempt_sale_is_charged_the_untaxed_total_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("exempt.db");
    let url = psp.url();
    let seed = run(&db, &url, &[], &["store", "seed", "--locale", "en-US"]).await;
    assert_eq!(seed.code, Some(0), "{}{}", seed.stdout, seed.stderr);

    // A coffee $2.50 and an egg sandwich $6.95: $10.29 with 8.875 %, $9.45 exempt.
    let new = run(&db, &url, &[], &["sale", "new", "--currency", "usd", "--item", "COF-001:1", "--item", "SAN-001:1"]).await;
    assert_eq!(new.json()["total"].as_i64(), Some(1029), "{}", new.stdout);
    let cart = new.json()["cart_id"].as_i64().unwrap().to_string();

    let bad = run(&db, &url, &[], &["cart", "exempt", "--cart", &cart, "--reason", "ab", "--json"]).await;
    assert_eq!(bad.code, Some(1), "{}{}", bad.stdout, bad.stderr);
    assert!(bad.stdout.contains("exempt_reason") || bad.stderr.contains("exempt_reason"), "{}{}", bad.stdout, bad.stderr);
    let reason = "Resale certificate ST-120 #4471";
    let ex = run(&db, &url, &[], &["cart", "exempt", "--cart", &cart, "--reason", reason, "--json"]).await;
    assert_eq!(ex.code, Some(0), "{}{}", ex.stdout, ex.stderr);
    let v = ex.json();
    assert_eq!((v["total"].as_i64(), v["tax_total"].as_i64(), v["tax_exempt_reason"].as_str()), (Some(945), Some(0), Some(reason)), "{v}");
    // Cleared and set again: the last word counts.
    let cleared = run(&db, &url, &[], &["cart", "exempt", "--cart", &cart, "--clear", "--json"]).await;
    assert_eq!(cleared.json()["total"].as_i64(), Some(1029), "{}", cleared.stdout);
    let again = run(&db, &url, &[], &["cart", "exempt", "--cart", &cart, "--reason", reason, "--json"]).await;
    assert_eq!(again.json()["total"].as_i64(), Some(945), "{}", again.stdout);

    let card = run(&db, &url, &[], &["sale", "card", "--cart", &cart, "--amount", "945"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    let c = card.json();
    assert_eq!((c["checkout"]["outcome"].as_str(), c["sale"]["state"].as_str()), (Some("paid"), Some("paid")), "{c}");
    let intents = psp.intents().await;
    assert_eq!(intents.len(), 1, "charged exactly once: {intents:?}");
    assert_eq!((intents[0]["amount"].as_i64(), intents[0]["currency"].as_str()), (Some(945), Some("usd")), "{intents:?}");
    assert_ledger_equals_psp(&db, &psp).await;

    let after = run(&db, &url, &[], &["cart", "exempt", "--cart", &cart, "--clear", "--json"]).await;
    assert_eq!(after.code, Some(1), "{}{}", after.stdout, after.stderr);
    assert!(after.stdout.contains("exempt_paid") || after.stderr.contains("exempt_paid"), "{}{}", after.stdout, after.stderr);
    let text = run(&db, &url, &[], &["receipt", "--cart", &cart, "--format", "text"]).await;
    assert!(text.stdout.contains(&format!("Tax exempt: {reason}")), "{}", text.stdout);
    assert!(!text.stdout.contains("8.875"), "{}", text.stdout);
}
