//! `paydesk-cli store rules | label-rules | open-price-limit | tax-exemptions` (issue #30,
//! record 0136) through the real binary, in a ja-JP store: a scale's 22 + 4 item digits +
//! 6-digit price label is read only once the store has that rule, and rings its item at the
//! printed price; reset, the same code is a plain (unknown) barcode again; bad rules and
//! limits are refused with their reason and change nothing; a lower open-price limit makes
//! a typed price above it need a manager; exemptions go on, off and back to the default.

use crate::common;
use common::*;

/// Nothing here is paid by card.
const NO_PSP: &str = "http://127.0.0.1:9";

async fn cli(db: &std::path::Path, args: &[&str]) -> Run {
    run(db, NO_PSP, &[], args).await
}

fn err(r: &Run) -> (Option<i32>, Option<String>) {
    (r.code, r.json()["error"]["code"].as_str().map(str::to_string))
}

/// A 22 label: 22 + item 1234 + the price in 6 digits + the check digit.
fn label_22(price: u32) -> String {
    let data = format!("221234{price:06}");
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", paydesk_tax::ean_check_digit(&d))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stores_own_label_rule_rings_its_labels_and_the_limit_and_exemptions_are_set() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    assert_eq!(cli(&db, &["store", "seed", "--locale", "ja-JP"]).await.code, Some(0));
    let f = dir.path().join("deli.csv");
    std::fs::write(&f, "sku,barcode,name_en,name_ja,price_minor,tax_class,active\n221234,,Croquette pack,コロッケ,500,reduced,1\n").unwrap();
    let r = cli(&db, &["catalog", "import", f.to_str().unwrap()]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);

    let shown = cli(&db, &["store", "rules"]).await.json();
    assert_eq!(shown["label_rules"]["own"], false);
    assert_eq!(shown["label_rules"]["rules"][0], serde_json::json!({"prefix": "02", "item_digits": 5, "value": "price"}));
    assert_eq!((shown["open_price_limit"]["amount"].as_i64(), shown["open_price_limit"]["currency"].as_str()), (Some(10_000), Some("jpy")));
    assert_eq!(shown["tax_exemptions"], serde_json::json!({"on": false, "default": true}));

    // Under the defaults no rule reads a 22 label: it is an unknown barcode.
    let code = label_22(398);
    assert_eq!(err(&cli(&db, &["catalog", "scan", &code]).await), (Some(1), Some("unknown_item".into())));

    let r = cli(&db, &["store", "label-rules", "set", "--rule", "22:4:price", "--rule", "21:5:grams"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["label_rules"]["own"], true);
    let s = cli(&db, &["catalog", "scan", &code]).await;
    assert_eq!(s.code, Some(0), "{}{}", s.stdout, s.stderr);
    assert_eq!((s.json()["sku"].as_str(), s.json()["label_price"].as_i64(), s.json()["catalog_price"].as_i64()), (Some("221234"), Some(398), Some(500)));
    let cart = cli(&db, &["cart", "new", "--currency", "jpy"]).await.json()["cart_id"].as_i64().unwrap().to_string();
    let r = cli(&db, &["cart", "add-label", "--cart", &cart, "--sku", "221234", "--price", "398", "--json"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!((r.json()["lines"][0]["unit_price"].as_i64(), r.json()["lines"][0]["price_source"].as_str()), (Some(398), Some("label")));

    // Refused, each with its reason; the stored rules are unchanged.
    for (rule, code, says) in [
        ("45:5:price", "invalid_label_rule", "02 or 20 to 29"),
        ("20:0:price", "invalid_label_rule", "1 to 9"),
        ("22-4-price", "invalid_input", "PREFIX:ITEM_DIGITS"),
        ("22:4:litres", "invalid_input", "price or grams"),
    ] {
        let r = cli(&db, &["store", "label-rules", "set", "--rule", rule]).await;
        assert_eq!(err(&r), (Some(1), Some(code.into())), "{rule}: {}", r.stdout);
        assert!(r.json()["error"]["message"].as_str().unwrap().contains(says), "{rule}: {}", r.stdout);
    }
    let r = cli(&db, &["store", "label-rules", "set", "--rule", "23:4:price", "--rule", "23:5:grams"]).await;
    assert_eq!(err(&r), (Some(1), Some("invalid_label_rule".into())));
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("prefix 23 has a rule already"), "{}", r.stdout);
    assert_eq!(cli(&db, &["store", "rules"]).await.json()["label_rules"]["rules"].as_array().unwrap().len(), 2);

    // Reset: the same code is looked up as a plain barcode, and no item has it.
    assert_eq!(cli(&db, &["store", "label-rules", "reset"]).await.json()["label_rules"]["own"], false);
    assert_eq!(err(&cli(&db, &["catalog", "scan", &code]).await), (Some(1), Some("unknown_item".into())));

    // The open-price limit, typed in yen: ¥6,000 is fine under ¥10,000, not under ¥5,000.
    let open = |price: &'static str| {
        let (db, cart) = (db.clone(), cart.clone());
        async move { cli(&db, &["cart", "add-open", "--cart", &cart, "--sku", "DEPT-FOOD", "--price", price, "--json"]).await }
    };
    assert_eq!(open("6000").await.code, Some(0));
    for bad in ["-5", "0", "12.5", "lots"] {
        let r = cli(&db, &["store", "open-price-limit", bad]).await;
        assert_eq!(err(&r), (Some(1), Some("invalid_input".into())), "{bad}: {}", r.stdout);
    }
    let r = cli(&db, &["store", "open-price-limit", "5000"]).await;
    assert_eq!(r.json()["open_price_limit"]["amount"].as_i64(), Some(5_000), "{}{}", r.stdout, r.stderr);
    assert_eq!(err(&open("6000").await), (Some(1), Some("approval_required".into())));
    assert_eq!(open("5000").await.code, Some(0), "at the limit needs nobody");

    // Exemptions: on, then back to the locale's default (off in Japan).
    let r = cli(&db, &["store", "tax-exemptions", "on"]).await;
    assert_eq!(r.json()["tax_exemptions"], serde_json::json!({"on": true, "default": false}), "{}{}", r.stdout, r.stderr);
    let r = cli(&db, &["store", "tax-exemptions", "default"]).await;
    assert_eq!(r.json()["tax_exemptions"], serde_json::json!({"on": false, "default": true}));
    assert_eq!(err(&cli(&db, &["store", "tax-exemptions", "maybe"]).await), (Some(1), Some("invalid_input".into())));
}
