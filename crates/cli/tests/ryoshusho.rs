//! `paydesk-cli receipt --ryoshusho` (issue #29, record 0112) through the real binary, the
//! real mock PSP and a real TCP test printer, in a ja-JP store selling a ¥55,000 watch:
//! paid in cash the ryōshūsho has the revenue stamp box (duty ¥200); paid by card it has
//! none; paid in part by card it is judged on its cash part alone. One per sale: a second
//! issue is a reprint, another addressee is refused, an unpaid sale gets none.

use crate::common;
use std::time::Duration;

use common::*;
use paydesk_receipt::test_printer::TestPrinter;

async fn cli(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    run(db, url, &[], args).await
}

/// A new sale of one ¥55,000 watch (10 %, prices include tax); returns its id.
async fn watch_sale(db: &std::path::Path, url: &str) -> String {
    let s = cli(db, url, &["sale", "new", "--currency", "jpy", "--item", "WATCH"]).await;
    assert_eq!(s.code, Some(0), "{}{}", s.stdout, s.stderr);
    assert_eq!(s.json()["total"].as_i64(), Some(55_000), "{}", s.stdout);
    s.json()["cart_id"].as_i64().unwrap().to_string()
}

async fn ryoshusho(db: &std::path::Path, url: &str, cart: &str, to: &str, extra: &[&str]) -> Run {
    let mut a = vec!["receipt", "--cart", cart, "--ryoshusho", "--to", to, "--for", "お品代として", "--json"];
    a.extend_from_slice(extra);
    cli(db, url, &a).await
}

fn text(r: &Run) -> String {
    let v = r.json();
    v["text"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect::<Vec<_>>().join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cash_has_the_stamp_card_has_none_a_split_is_judged_on_its_cash() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let (db, url) = (dir.path().join("r.db"), psp.url());
    assert_eq!(cli(&db, &url, &["store", "seed", "--locale", "ja-JP"]).await.code, Some(0));
    // Through the catalog import: the watch is a standard-rated (10 %) good.
    let csv = dir.path().join("watch.csv");
    std::fs::write(&csv, "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nWATCH,,Watch,腕時計,55000,standard,1\n").unwrap();
    let p = cli(&db, &url, &["catalog", "import", csv.to_str().unwrap()]).await;
    assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);

    // Cash: ¥55,000 is ¥50,000 before tax, the threshold: the box, duty ¥200, to the printer.
    let cash = watch_sale(&db, &url).await;
    let unpaid = ryoshusho(&db, &url, &cash, "株式会社ペイデスク", &[]).await;
    assert_eq!((unpaid.code, unpaid.json()["error"]["code"].as_str()), (Some(1), Some("not_paid")), "{}", unpaid.stdout);
    assert_eq!(cli(&db, &url, &["sale", "cash", "--cart", &cash, "--tendered", "60000"]).await.code, Some(0));
    let printer = TestPrinter::start().unwrap();
    let addr = printer.addr().to_string();
    let r = ryoshusho(&db, &url, &cash, "株式会社ペイデスク", &["--print", &addr]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let v = r.json();
    assert_eq!((v["stamp_duty"].as_i64(), v["cash"].as_i64(), v["total"].as_i64()), (Some(200), Some(55_000), Some(55_000)), "{v}");
    assert_eq!((v["reprint"].as_bool(), v["print_count"].as_i64(), v["printed"].as_bool()), (Some(false), Some(1), Some(true)));
    assert_eq!(v["number"].as_str(), Some(format!("{cash:0>6}-1").as_str()));
    let t = text(&r);
    for want in ["領収書", "株式会社ペイデスク 様", "¥55,000-", "10%対象", "¥5,000", "収入印紙", "印紙税額 ¥200", "現金"] {
        assert!(t.contains(want), "{want:?} missing:\n{t}");
    }
    let job = printer.next_job(Duration::from_secs(10)).expect("a job").expect("valid ESC/POS");
    let printed = job.texts().join("\n");
    assert!(printed.contains("収入印紙") && printed.contains("株式会社ペイデスク"), "{printed}");
    assert!(job.kicks.is_empty(), "a ryōshūsho moves no money: no drawer kick");

    // Again: the same document, marked as a reprint; another addressee is refused.
    let again = ryoshusho(&db, &url, &cash, "株式会社ペイデスク", &[]).await;
    assert_eq!((again.json()["reprint"].as_bool(), again.json()["print_count"].as_i64()), (Some(true), Some(2)), "{}", again.stdout);
    assert!(text(&again).contains("再発行"), "{}", text(&again));
    let other = ryoshusho(&db, &url, &cash, "山田太郎", &[]).await;
    assert_eq!((other.code, other.json()["error"]["code"].as_str()), (Some(1), Some("ryoshusho_differs")), "{}", other.stdout);

    // Card: the same amount, no stamp box; it says the card paid.
    let card = watch_sale(&db, &url).await;
    let paid = cli(&db, &url, &["sale", "card", "--cart", &card, "--amount", "55000"]).await;
    assert_eq!(paid.code, Some(0), "{}{}", paid.stdout, paid.stderr);
    let r = ryoshusho(&db, &url, &card, "株式会社ペイデスク", &[]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!((r.json()["stamp_duty"].as_i64(), r.json()["cash"].as_i64()), (None, Some(0)), "{}", r.stdout);
    let t = text(&r);
    assert!(t.contains("クレジットカード決済") && !t.contains("収入印紙") && !t.contains("印紙税額"), "{t}");

    // Split: ¥5,000 by card, ¥50,000 in cash. The sale is ¥55,000 but the cash part is
    // ¥45,455 before tax: no stamp.
    let split = watch_sale(&db, &url).await;
    assert_eq!(cli(&db, &url, &["sale", "card", "--cart", &split, "--amount", "5000"]).await.code, Some(0));
    assert_eq!(cli(&db, &url, &["sale", "cash", "--cart", &split, "--tendered", "50000"]).await.code, Some(0));
    let r = ryoshusho(&db, &url, &split, "", &[]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!((r.json()["stamp_duty"].as_i64(), r.json()["cash"].as_i64()), (None, Some(50_000)), "{}", r.stdout);
    assert!(!text(&r).contains("収入印紙"), "{}", text(&r));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_words_are_refused_before_anything_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let (db, url) = (dir.path().join("r.db"), psp.url());
    assert_eq!(cli(&db, &url, &["store", "seed", "--locale", "ja-JP"]).await.code, Some(0));
    let s = cli(&db, &url, &["sale", "new", "--currency", "jpy", "--item", "MUG-001"]).await.json();
    let cart = s["cart_id"].as_i64().unwrap().to_string();
    assert_eq!(cli(&db, &url, &["sale", "cash", "--cart", &cart, "--tendered", "2000"]).await.code, Some(0));
    let long = "長".repeat(65);
    for to in ["a\u{1b}b", long.as_str()] {
        let r = ryoshusho(&db, &url, &cart, to, &[]).await;
        assert_eq!((r.code, r.json()["error"]["code"].as_str()), (Some(1), Some("invalid_input")), "{}", r.stdout);
    }
    let none = cli(&db, &url, &["receipt", "--cart", &cart, "--ryoshusho", "--json"]).await;
    assert_eq!((none.code, none.json()["error"]["code"].as_str()), (Some(1), Some("invalid_input")), "{}", none.stdout);
    // Nothing was recorded: the first good issue is the original.
    let ok = ryoshusho(&db, &url, &cart, "山田太郎", &[]).await;
    assert_eq!((ok.code, ok.json()["reprint"].as_bool()), (Some(0), Some(false)), "{}{}", ok.stdout, ok.stderr);
}
