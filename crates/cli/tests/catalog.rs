//! `paydesk-cli catalog|store|sale --eat-in|receipt` through the real binary on a real
//! SQLite file (record 0056): a good and a bad CSV, a ja-JP sale with an 8 % and a 10 %
//! item eaten in vs taken out and its receipt's tax lines, a print to the test printer
//! over real TCP (decoded text, cut, drawer kick) and a reprint marked as such.

use crate::common;
use std::time::Duration;

use common::*;
use paydesk_receipt::test_printer::TestPrinter;

/// Nothing here talks to a PSP: cash only.
const NO_PSP: &str = "http://127.0.0.1:9";

async fn cli(db: &std::path::Path, args: &[&str]) -> Run {
    run(db, NO_PSP, &[], args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_good_csv_imports_a_bad_one_reports_every_line_and_imports_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let good = dir.path().join("good.csv");
    std::fs::write(&good, "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nTEA,4905550000011,Green tea,緑茶,160,reduced,1\nMUG,,Mug,,1650,standard,1\n").unwrap();
    let r = cli(&db, &["catalog", "import", good.to_str().unwrap()]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!((r.json()["rows"].as_i64(), r.json()["changed"].as_i64()), (Some(2), Some(2)));

    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nNEW,,New,,10,standard,1\nX1,4905550000012,Bad digit,,10,standard,1\nX2,,Neg,,-1,standard,1\nX3,,Class,,1,luxury,1\n").unwrap();
    let r = cli(&db, &["catalog", "import", bad.to_str().unwrap()]).await;
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let e = &r.json()["error"];
    assert_eq!(e["code"], "invalid_csv");
    let got: Vec<(i64, String)> = e["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["line"].as_i64().unwrap(), p["field"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(got, vec![(3, "barcode".into()), (4, "price_minor".into()), (5, "tax_class".into())]);
    assert!(r.stderr.contains("line 3 field barcode"), "{}", r.stderr);

    let list = cli(&db, &["catalog", "list"]).await;
    let skus: Vec<String> = list.lines().iter().map(|i| i["sku"].as_str().unwrap().to_string()).collect();
    assert_eq!(skus, ["MUG", "TEA"], "nothing of the bad file imported");
    let export = cli(&db, &["catalog", "export"]).await;
    assert_eq!(export.code, Some(0));
    assert!(export.stdout.starts_with("sku,barcode,name_en,name_ja,price_minor,tax_class,active,price_kind,unit,category\n"), "{}", export.stdout);
    assert!(export.stdout.contains("TEA,4905550000011,Green tea,緑茶,160,reduced,1"), "{}", export.stdout);
}

/// Makes a paid ja-JP sale of a coffee (8 % taken out) and a mug (10 %); returns its id.
async fn ja_sale(db: &std::path::Path, eat_in: bool) -> String {
    let mut args = vec!["sale", "new", "--currency", "jpy", "--item", "COF-001", "--item", "MUG-001"];
    if eat_in {
        args.push("--eat-in");
    }
    let s = cli(db, &args).await;
    assert_eq!(s.code, Some(0), "{}{}", s.stdout, s.stderr);
    let v = s.json();
    assert_eq!(v["total"].as_i64(), Some(1900), "tax-inclusive: the shelf prices {v}");
    let cart = v["cart_id"].as_i64().unwrap().to_string();
    let paid = cli(db, &["sale", "cash", "--cart", &cart, "--tendered", "2000"]).await;
    assert_eq!(paid.code, Some(0), "{}{}", paid.stdout, paid.stderr);
    cart
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ja_jp_sale_eat_in_vs_take_out_its_receipt_and_a_marked_reprint() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let seed = cli(&db, &["store", "seed", "--locale", "ja-JP"]).await;
    assert_eq!(seed.code, Some(0), "{}{}", seed.stdout, seed.stderr);
    assert_eq!(seed.json()["currency"], "jpy");

    let take_out = ja_sale(&db, false).await;
    let text = cli(&db, &["receipt", "--cart", &take_out, "--format", "text"]).await;
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    let t = &text.stdout;
    assert!(t.contains("T7000012050002") && t.contains("ブレンドコーヒー") && t.contains('※'), "{t}");
    assert!(t.contains("10%対象") && t.contains("8%対象"), "{t}");
    assert!(t.contains("¥150") && t.contains("¥18"), "10 % of ¥1,650 and 8 % of ¥250, tax included: {t}");

    let eat_in = ja_sale(&db, true).await;
    let t = cli(&db, &["receipt", "--cart", &eat_in, "--format", "text"]).await.stdout;
    assert!(t.contains("10%対象") && !t.contains("8%対象"), "eaten in, everything at 10 %: {t}");
    assert!(t.contains("¥172"), "10/110 of ¥1,900 rounded down: {t}");
    let html = cli(&db, &["receipt", "--cart", &eat_in, "--format", "html"]).await;
    assert!(html.stdout.contains("<html") && html.stdout.contains("T7000012050002"), "{}", html.stdout);

    // Print to a real TCP printer, then reprint.
    let printer = TestPrinter::start().unwrap();
    let addr = printer.addr().to_string();
    let p = cli(&db, &["receipt", "--cart", &take_out, "--format", "escpos", "--paper", "58", "--print", &addr]).await;
    assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    assert_eq!((p.json()["print_no"].as_i64(), p.json()["reprint"].as_bool()), (Some(1), Some(false)));
    let job = printer.next_job(Duration::from_secs(10)).expect("a job").expect("valid ESC/POS");
    assert_eq!(job.cuts, 1);
    assert_eq!(job.kicks.len(), 1, "a cash sale's first print opens the drawer");
    assert!(job.kanji);
    let texts = job.texts().join("\n");
    assert!(texts.contains("8%対象") && texts.contains("T7000012050002") && !texts.contains("再発行"), "{texts}");

    let again = cli(&db, &["receipt", "--cart", &take_out, "--format", "escpos", "--print", &addr]).await;
    assert_eq!(again.code, Some(0), "{}{}", again.stdout, again.stderr);
    assert_eq!((again.json()["print_no"].as_i64(), again.json()["reprint"].as_bool()), (Some(2), Some(true)));
    let job = printer.next_job(Duration::from_secs(10)).expect("a job").expect("valid ESC/POS");
    assert!(job.texts().join("\n").contains("【再発行】"), "{:?}", job.texts());
    assert!(job.kicks.is_empty(), "a reprint does not open the drawer");
    assert_eq!(job.cuts, 1);

    // A printer that is not there: a clear error, recorded, the sale untouched.
    drop(printer);
    let off = cli(&db, &["receipt", "--cart", &eat_in, "--format", "escpos", "--print", "127.0.0.1:9"]).await;
    assert_eq!(off.code, Some(1));
    assert_eq!(off.json()["error"]["code"], "print_failed", "{}", off.stdout);
    let show = cli(&db, &["sale", "show", "--cart", &eat_in]).await.json();
    assert_eq!(show["state"], "paid");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_settings_and_discounts_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    assert_eq!(cli(&db, &["store", "seed", "--locale", "ja-JP"]).await.code, Some(0));
    let bad = cli(&db, &["store", "set", "--registration-number", "T7000012050003"]).await;
    assert_eq!((bad.code, bad.json()["error"]["code"].as_str()), (Some(1), Some("invalid_input")));
    let ok = cli(&db, &["store", "set", "--prices", "exclusive", "--name", "喫茶 PayDesk"]).await;
    assert_eq!(ok.code, Some(0), "{}{}", ok.stdout, ok.stderr);
    assert_eq!(cli(&db, &["store", "show"]).await.json()["price_mode"], "exclusive");
    // The store's time zone: a zone the database knows is kept, anything else refused with
    // nothing changed, "" back to the locale's own.
    assert_eq!(cli(&db, &["store", "show"]).await.json()["time_zone"], "Asia/Tokyo");
    let zoned = cli(&db, &["store", "set", "--time-zone", "Pacific/Auckland"]).await;
    assert_eq!((zoned.code, zoned.json()["time_zone"].as_str()), (Some(0), Some("Pacific/Auckland")), "{}", zoned.stderr);
    let bad = cli(&db, &["store", "set", "--time-zone", "../../etc/passwd", "--name", "lost"]).await;
    assert_eq!((bad.code, bad.json()["error"]["code"].as_str()), (Some(1), Some("invalid_input")));
    let shown = cli(&db, &["store", "show"]).await.json();
    assert_eq!((shown["time_zone"].as_str(), shown["name"].as_str()), (Some("Pacific/Auckland"), Some("喫茶 PayDesk")));
    assert_eq!(cli(&db, &["store", "set", "--time-zone", ""]).await.json()["time_zone"], "Asia/Tokyo");

    let s = cli(&db, &["sale", "new", "--currency", "jpy", "--item", "MUG-001:2"]).await.json();
    assert_eq!(s["total"].as_i64(), Some(3630), "3,300 + 10 %: {s}");
    let cart = s["cart_id"].as_i64().unwrap().to_string();
    let d = cli(&db, &["sale", "discount", "--cart", &cart, "--sku", "MUG-001", "--percent", "10"]).await;
    assert_eq!(d.code, Some(0), "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json()["total"].as_i64(), Some(3267));
    let too_much = cli(&db, &["sale", "discount", "--cart", &cart, "--amount", "99999"]).await;
    assert_eq!(too_much.code, Some(1), "{}", too_much.stdout);
    assert_eq!(cli(&db, &["sale", "show", "--cart", &cart]).await.json()["total"].as_i64(), Some(3267));
}

/// A code of 12 data digits with its check digit.
fn with_check(data: &str) -> String {
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", paydesk_tax::ean_check_digit(&d))
}

/// One barcode rule (issue #30, record 0115): a UPC-A imported is found by its EAN-13
/// (and as typed), the same item under another SKU is refused, and an in-store price
/// label rings up its item only at the catalog's price.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_upc_a_scans_as_its_ean_13_and_an_in_store_label_finds_its_item() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = dir.path().join("upc.csv");
    std::fs::write(&f, "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nTISSUE,036000291452,Tissues,,398,standard,1\n0212345,,Croquette,コロッケ,398,reduced,1\n").unwrap();
    let r = cli(&db, &["catalog", "import", f.to_str().unwrap()]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    for code in ["0036000291452", "036000291452"] {
        let s = cli(&db, &["catalog", "scan", code]).await;
        assert_eq!((s.code, s.json()["sku"].as_str()), (Some(0), Some("TISSUE")), "{code}: {}{}", s.stdout, s.stderr);
    }
    let export = cli(&db, &["catalog", "export"]).await;
    assert!(export.stdout.contains("TISSUE,0036000291452,"), "stored as 13 digits: {}", export.stdout);

    let dup = dir.path().join("dup.csv");
    std::fs::write(&dup, "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nOTHER,0036000291452,Tissues again,,398,standard,1\n").unwrap();
    let r = cli(&db, &["catalog", "import", dup.to_str().unwrap()]).await;
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let p = &r.json()["error"]["problems"][0];
    assert_eq!((p["line"].as_i64(), p["field"].as_str()), (Some(2), Some("barcode")), "{p}");
    assert!(p["message"].as_str().unwrap().contains("TISSUE"), "{p}");

    let label = with_check("021234500398");
    let s = cli(&db, &["catalog", "scan", &label]).await;
    assert_eq!((s.code, s.json()["sku"].as_str()), (Some(0), Some("0212345")), "{}{}", s.stdout, s.stderr);
    let dearer = with_check("021234500400");
    // A label at another price is rung at the price printed (record 0126): the scan says so.
    let s = cli(&db, &["catalog", "scan", &dearer]).await;
    assert_eq!(s.code, Some(0), "{}{}", s.stdout, s.stderr);
    assert_eq!((s.json()["sku"].as_str(), s.json()["label_price"].as_i64(), s.json()["catalog_price"].as_i64()), (Some("0212345"), Some(400), Some(398)));
    let unknown = with_check("490000099999");
    let s = cli(&db, &["catalog", "scan", &unknown]).await;
    assert_eq!((s.code, s.json()["error"]["code"].as_str()), (Some(1), Some("unknown_item")), "{}{}", s.stdout, s.stderr);
}

/// `catalog search` finds a katakana name by hiragana, a code by its start, in a category
/// only when asked; an empty query is refused by its code (record 0133).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_finds_by_kana_and_code_and_a_category_filters() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let r = cli(&db, &["store", "seed", "--locale", "ja-JP"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);

    let r = cli(&db, &["catalog", "search", "かふぇらて", "--json"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let found: Vec<(String, String, String)> = r
        .lines()
        .iter()
        .map(|f| (f["item"]["sku"].as_str().unwrap().into(), f["category"].as_str().unwrap().into(), f["matched"].as_str().unwrap().into()))
        .collect();
    assert_eq!(found, [("COF-002".into(), "drinks".into(), "prefix".into())]);

    let r = cli(&db, &["catalog", "search", "cof-00"]).await;
    let skus: Vec<&str> = r.stdout.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(skus, ["COF-001", "COF-002"], "{}", r.stdout);

    let r = cli(&db, &["catalog", "search", "ー", "--category", "bakery", "--json"]).await;
    let skus: Vec<String> = r.lines().iter().map(|f| f["item"]["sku"].as_str().unwrap().into()).collect();
    assert_eq!(skus, ["BAG-001", "MUF-001"], "{}", r.stdout);

    let r = cli(&db, &["catalog", "list", "--category", "drinks"]).await;
    let skus: Vec<String> = r.lines().iter().map(|i| i["sku"].as_str().unwrap().into()).collect();
    assert_eq!(skus, ["COF-001", "COF-002", "TEA-001", "WAT-001"]);

    let r = cli(&db, &["catalog", "search", " "]).await;
    assert_eq!(r.code, Some(1));
    assert_eq!(r.json()["error"]["code"], "invalid_query", "{}", r.stdout);
    let r = cli(&db, &["catalog", "list", "--category", "nope"]).await;
    assert_eq!(r.code, Some(1));
}
