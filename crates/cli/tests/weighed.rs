//! `paydesk-cli cart add --grams` and a weight label (issue #30, record 0134) through the
//! real binary and the real mock PSP, in a ja-JP store: the demo's nuts (¥398 per 100 g)
//! scanned from a scale label at 152 g and typed at 1,000 g are two lines of ¥605 and
//! ¥3,980; a weighed item without grams and grams for a piece are refused with their codes;
//! paid by card once, the charge equals the receipt's total; the weighed line comes back
//! whole.

use crate::common;
use common::*;

async fn cli(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    run(db, url, &[], args).await
}

fn err(r: &Run) -> (Option<i32>, Option<String>) {
    (r.code, r.json()["error"]["code"].as_str().map(str::to_string))
}

/// A scale label under the default weight rule: 21 + item 00001 + the grams in 5 digits.
fn weight_label(grams: u32) -> String {
    let data = format!("2100001{grams:05}");
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", paydesk_tax::ean_check_digit(&d))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weighed_sale_is_charged_once_at_the_receipt_total() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let (db, url) = (dir.path().join("r.db"), psp.url());
    assert_eq!(cli(&db, &url, &["store", "seed", "--locale", "ja-JP"]).await.code, Some(0));
    let made = cli(&db, &url, &["cart", "new", "--currency", "jpy"]).await;
    let cart = made.json()["cart_id"].as_i64().unwrap().to_string();

    let scanned = cli(&db, &url, &["catalog", "scan", &weight_label(152)]).await;
    assert_eq!(scanned.code, Some(0), "{}{}", scanned.stdout, scanned.stderr);
    assert_eq!((scanned.json()["sku"].as_str(), scanned.json()["grams"].as_i64()), (Some("2100001"), Some(152)));
    let r = cli(&db, &url, &["cart", "add", "--cart", &cart, "--sku", "2100001", "--grams", "152", "--json"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let line = &r.json()["lines"][0];
    assert_eq!((line["unit"].as_str(), line["grams"].as_i64(), line["unit_rate"].as_i64()), (Some("hundred_grams"), Some(152), Some(398)));
    assert_eq!(line["unit_price"].as_i64(), Some(605), "¥398/100g × 152 g, half up");
    let r = cli(&db, &url, &["cart", "add", "--cart", &cart, "--sku", "2100001", "--grams", "1000", "--json"]).await;
    assert_eq!((r.json()["line_no"].as_i64(), r.json()["total"].as_i64()), (Some(2), Some(605 + 3_980)), "{}", r.stdout);
    let r = cli(&db, &url, &["cart", "add", "--cart", &cart, "--sku", "COF-001", "--quantity", "2", "--json"]).await;
    assert_eq!(r.json()["total"].as_i64(), Some(605 + 3_980 + 500), "{}", r.stdout);

    // Refusals, nothing written.
    let r = cli(&db, &url, &["cart", "add", "--cart", &cart, "--sku", "2100001", "--json"]).await;
    assert_eq!(err(&r), (Some(1), Some("weight_required".into())), "{}", r.stdout);
    let r = cli(&db, &url, &["cart", "add", "--cart", &cart, "--sku", "COF-001", "--grams", "100", "--json"]).await;
    assert_eq!(err(&r), (Some(1), Some("not_weighed".into())), "{}", r.stdout);
    for bad in ["0", "100001"] {
        let r = cli(&db, &url, &["cart", "add", "--cart", &cart, "--sku", "2100001", "--grams", bad, "--json"]).await;
        assert_eq!(err(&r), (Some(1), Some("weight_out_of_range".into())), "{bad}: {}", r.stdout);
    }
    let shown = cli(&db, &url, &["cart", "show", "--cart", &cart]).await;
    assert_eq!(shown.json()["total"].as_i64(), Some(5_085), "{}", shown.stdout);

    let paid = cli(&db, &url, &["sale", "card", "--cart", &cart]).await;
    assert_eq!(paid.code, Some(0), "{}{}", paid.stdout, paid.stderr);
    let intents = psp.intents().await;
    assert_eq!(intents.len(), 1, "charged once: {intents:?}");
    let text = cli(&db, &url, &["receipt", "--cart", &cart, "--format", "text"]).await.stdout;
    assert!(text.contains("5,085"), "{text}");
    assert_eq!(intents[0]["amount"].as_i64(), Some(5_085), "the charge is the receipt's total: {}", intents[0]);
    assert_eq!(text.matches("量り売りのナッツ").count(), 2, "{text}");
    assert!(text.contains("152g @¥398/100g") && text.contains("1000g @¥398/100g"), "{text}");

    let r = cli(&db, &url, &["sale", "return", "--cart", &cart, "--line", "0:2", "--json"]).await;
    assert_eq!(err(&r), (Some(1), Some("weighed_line_whole".into())), "{}", r.stdout);
    let r = cli(&db, &url, &["sale", "return", "--cart", &cart, "--line", "0:1", "--json"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["return"]["total_minor"].as_i64(), Some(605), "{}", r.stdout);
    assert_ledger_equals_psp(&db, &psp).await;
}
