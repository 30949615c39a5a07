//! `paydesk-cli receipt --ryoshusho --kept` (issue #29, record 0145) through the real
//! binary and the real mock PSP, in a ja-JP store: a ¥55,000 watch and two mugs paid in
//! cash with a ryōshūsho; a mug comes back with it; the new ryōshūsho states the ¥56,650
//! kept, still over the stamp threshold (duty ¥200), replacing the first; the watch then
//! comes back only with the NEW one; the third states the ¥1,650 left, with no stamp.

use crate::common;

use common::*;

async fn cli(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    run(db, url, &[], args).await
}

async fn ryoshusho(db: &std::path::Path, url: &str, cart: &str, extra: &[&str]) -> Run {
    let mut a = vec!["receipt", "--cart", cart, "--ryoshusho", "--to", "株式会社ペイデスク", "--for", "お品代として", "--json"];
    a.extend_from_slice(extra);
    cli(db, url, &a).await
}

fn text(r: &Run) -> String {
    r.json()["text"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect::<Vec<_>>().join("\n")
}

fn code(r: &Run) -> (Option<i32>, Option<String>) {
    (r.code, r.json()["error"]["code"].as_str().map(str::to_string))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_ryoshusho_for_what_was_kept_with_its_stamp_judged_on_the_kept_cash() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let (db, url) = (dir.path().join("r.db"), psp.url());
    assert_eq!(cli(&db, &url, &["store", "seed", "--locale", "ja-JP"]).await.code, Some(0));
    let csv = dir.path().join("watch.csv");
    std::fs::write(&csv, "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nWATCH,,Watch,腕時計,55000,standard,1\n").unwrap();
    assert_eq!(cli(&db, &url, &["catalog", "import", csv.to_str().unwrap()]).await.code, Some(0));
    let s = cli(&db, &url, &["sale", "new", "--currency", "jpy", "--item", "WATCH", "--item", "MUG-001:2"]).await;
    assert_eq!(s.json()["total"].as_i64(), Some(58_300), "{}", s.stdout);
    let cart = s.json()["cart_id"].as_i64().unwrap().to_string();
    assert_eq!(cli(&db, &url, &["sale", "cash", "--cart", &cart, "--tendered", "60000"]).await.code, Some(0));
    let first = ryoshusho(&db, &url, &cart, &[]).await;
    assert_eq!((first.json()["total"].as_i64(), first.json()["stamp_duty"].as_i64()), (Some(58_300), Some(200)), "{}", first.stdout);
    let number = |g: u32| format!("{cart:0>6}-{g}");

    // Still with the customer: reprinted, not replaced.
    let early = ryoshusho(&db, &url, &cart, &["--kept"]).await;
    assert_eq!(code(&early), (Some(1), Some("ryoshusho_reissue_refused".into())), "{}", early.stdout);
    assert_eq!(early.json()["error"]["why"].as_str(), Some("still_valid"));

    // A mug back with the ryōshūsho: ¥56,650 kept, ¥51,500 before tax: the stamp still.
    let back = cli(&db, &url, &["sale", "return", "--cart", &cart, "--line", "1:1", "--ryoshusho-taken-back", "--json"]).await;
    assert_eq!(back.code, Some(0), "{}{}", back.stdout, back.stderr);
    let second = ryoshusho(&db, &url, &cart, &["--kept"]).await;
    assert_eq!(second.code, Some(0), "{}{}", second.stdout, second.stderr);
    let v = second.json();
    assert_eq!((v["number"].as_str(), v["replaces"].as_str()), (Some(number(2).as_str()), Some(number(1).as_str())), "{v}");
    assert_eq!((v["total"].as_i64(), v["cash"].as_i64(), v["stamp_duty"].as_i64(), v["reprint"].as_bool()), (Some(56_650), Some(56_650), Some(200), Some(false)), "{v}");
    let t = text(&second);
    for want in ["¥56,650-", &format!("No.{} の差替え", number(1)), "収入印紙", "印紙税額 ¥200", "株式会社ペイデスク 様"] {
        assert!(t.contains(want), "{want:?} missing:\n{t}");
    }
    // Issuing again reprints the new one; the old number is gone.
    let again = ryoshusho(&db, &url, &cart, &[]).await;
    assert_eq!((again.json()["number"].as_str(), again.json()["reprint"].as_bool(), again.json()["print_count"].as_i64()), (Some(number(2).as_str()), Some(true), Some(2)), "{}", again.stdout);
    assert!(text(&again).contains("再発行") && text(&again).contains("¥56,650-"), "{}", text(&again));

    // The watch: the NEW ryōshūsho must come back.
    let refused = cli(&db, &url, &["sale", "return", "--cart", &cart, "--line", "0:1", "--json"]).await;
    assert_eq!(code(&refused), (Some(1), Some("ryoshusho_not_taken_back".into())), "{}", refused.stdout);
    assert!(refused.json()["error"]["message"].as_str().unwrap().contains(&number(2)), "{}", refused.stdout);
    let watch = cli(&db, &url, &["sale", "return", "--cart", &cart, "--line", "0:1", "--ryoshusho-taken-back", "--json"]).await;
    assert_eq!(watch.code, Some(0), "{}{}", watch.stdout, watch.stderr);
    let gone = ryoshusho(&db, &url, &cart, &[]).await;
    assert_eq!(code(&gone), (Some(1), Some("ryoshusho_taken_back".into())), "{}", gone.stdout);
    // ¥1,650 kept: under the threshold, no stamp box.
    let third = ryoshusho(&db, &url, &cart, &["--kept"]).await;
    assert_eq!(third.code, Some(0), "{}{}", third.stdout, third.stderr);
    let v = third.json();
    assert_eq!((v["number"].as_str(), v["total"].as_i64(), v["stamp_duty"].as_i64()), (Some(number(3).as_str()), Some(1650), None), "{v}");
    assert!(!text(&third).contains("収入印紙"), "{}", text(&third));

    // Everything back: nothing to state.
    let last = cli(&db, &url, &["sale", "return", "--cart", &cart, "--line", "1:1", "--ryoshusho-taken-back", "--json"]).await;
    assert_eq!(last.code, Some(0), "{}{}", last.stdout, last.stderr);
    let none = ryoshusho(&db, &url, &cart, &["--kept"]).await;
    assert_eq!(none.json()["error"]["why"].as_str(), Some("nothing_kept"), "{}", none.stdout);
}
