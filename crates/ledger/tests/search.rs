//! Finding items (issue #30, record 0133): a query matches the SKU, the barcode and both
//! names whatever the case, width or kana; results are bounded and ordered exact code,
//! prefix, contains; a category filters them; the keys follow every write and are rebuilt
//! after the upgrade.

use paydesk_domain::money::Currency;
use paydesk_ledger::ledger::catalog::{MAX_QUERY_CHARS, MAX_RESULTS};
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_ledger::{Category, CatalogItem, DemoLocale, Error, Ledger, MatchKind, QueryProblem, SearchQuery};
use paydesk_tax::{Gtin13, TaxClass};

use crate::common::mem;

fn item(sku: &str, en: &str, ja: Option<&str>) -> CatalogItem {
    CatalogItem {
        sku: sku.into(),
        barcode: None,
        name_en: en.into(),
        name_ja: ja.map(Into::into),
        price_minor: 100,
        currency: Currency::Jpy,
        tax_class: TaxClass::Reduced,
        active: true,
        price_kind: paydesk_ledger::PriceKind::Fixed,
        unit: paydesk_tax::SaleUnit::Piece,
    }
}

fn find(l: &Ledger, q: &str) -> Vec<String> {
    find_in(l, q, None)
}

fn find_in(l: &Ledger, q: &str, category: Option<&str>) -> Vec<String> {
    let q = SearchQuery::parse(q).unwrap();
    l.catalog().search(&q, category, MAX_RESULTS).unwrap().into_iter().map(|f| f.item.sku).collect()
}

fn demo() -> Ledger {
    let mut l = mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

#[test]
fn katakana_hiragana_half_width_and_case_find_the_same_item() {
    let mut l = mem();
    l.catalog_mut()
        .upsert(&[item("ONI-001", "Rice ball, salmon", Some("しゃけおにぎり")), item("LAT-001", "Cafe Latte", Some("カフェラテ"))], None, 1)
        .unwrap();
    assert_eq!(find(&l, "シャケ"), ["ONI-001"], "katakana finds a hiragana name");
    assert_eq!(find(&l, "かふぇ"), ["LAT-001"], "hiragana finds a katakana name");
    assert_eq!(find(&l, "ｶﾌｪﾗﾃ"), ["LAT-001"], "half-width katakana");
    assert_eq!(find(&l, "ＬＡＴＴＥ"), ["LAT-001"], "full-width letters, any case");
    assert_eq!(find(&l, "cafe latte"), ["LAT-001"], "spaces do not count");
    assert_eq!(find(&l, "oni-0"), ["ONI-001"], "a SKU prefix, any case");
    assert!(find(&l, "tea").is_empty());
}

#[test]
fn an_exact_code_comes_first_then_prefixes_then_contains() {
    let mut l = mem();
    let mut with_code = item("ZZZ-9", "Gadget", None);
    with_code.barcode = Some(Gtin13::parse("4900000000016").unwrap());
    l.catalog_mut()
        .upsert(&[item("TEA", "Pot", None), item("TEA-2", "Cup", None), item("AAA-1", "Green tea", None), item("ABC-1", "Teapot", None), with_code], None, 1)
        .unwrap();
    let q = SearchQuery::parse("tea").unwrap();
    let found: Vec<(String, MatchKind)> = l.catalog().search(&q, None, 10).unwrap().into_iter().map(|f| (f.item.sku, f.matched)).collect();
    assert_eq!(
        found,
        [
            ("TEA".to_string(), MatchKind::Code),
            ("ABC-1".to_string(), MatchKind::Prefix),
            ("TEA-2".to_string(), MatchKind::Prefix),
            ("AAA-1".to_string(), MatchKind::Contains)
        ]
    );
    assert_eq!(find(&l, "4900000000016"), ["ZZZ-9"], "the whole barcode");
    assert_eq!(find(&l, "49000000"), ["ZZZ-9"], "barcode digits from the start");
    assert_eq!(find(&l, "４９００"), ["ZZZ-9"], "full-width digits");
}

#[test]
fn results_are_bounded_and_only_active_items() {
    let mut l = mem();
    let mut items: Vec<CatalogItem> = (0..120).map(|i| item(&format!("SKU-{i:03}"), &format!("Thing {i}"), None)).collect();
    items[0].active = false;
    l.catalog_mut().upsert(&items, None, 1).unwrap();
    let q = SearchQuery::parse("thing").unwrap();
    let all = l.catalog().search(&q, None, 1_000).unwrap();
    assert_eq!(all.len(), MAX_RESULTS, "never more than the bound");
    assert_eq!(all[0].item.sku, "SKU-001", "the inactive SKU-000 is not offered");
    assert_eq!(l.catalog().search(&q, None, 7).unwrap().len(), 7);
    let skus: Vec<&str> = all.iter().map(|f| f.item.sku.as_str()).collect();
    let mut sorted = skus.clone();
    sorted.sort();
    assert_eq!(skus, sorted, "by SKU within a kind");
}

#[test]
fn a_query_is_one_to_forty_printable_characters() {
    assert_eq!(SearchQuery::parse("").unwrap_err(), QueryProblem::Empty);
    assert_eq!(SearchQuery::parse("   ").unwrap_err(), QueryProblem::Empty);
    assert_eq!(SearchQuery::parse("a\u{7}").unwrap_err(), QueryProblem::Control);
    let long = "あ".repeat(MAX_QUERY_CHARS + 1);
    assert_eq!(SearchQuery::parse(&long).unwrap_err(), QueryProblem::TooLong { chars: MAX_QUERY_CHARS + 1, max: MAX_QUERY_CHARS });
    assert!(SearchQuery::parse(&"あ".repeat(MAX_QUERY_CHARS)).is_ok());
}

#[test]
fn the_demo_has_four_categories_in_both_languages_and_a_tab_filters() {
    let l = demo();
    let cats = l.catalog().categories().unwrap();
    let names: Vec<(&str, &str, Option<&str>)> = cats.iter().map(|c| (c.key.as_str(), c.name_en.as_str(), c.name_ja.as_deref())).collect();
    assert_eq!(
        names,
        [("drinks", "Drinks", Some("飲み物")), ("bakery", "Bakery", Some("ベーカリー")), ("food", "Food", Some("フード")), ("goods", "Goods", Some("雑貨"))]
    );
    assert_eq!(l.catalog().item_categories().unwrap().len(), 15, "every demo item has one, the weighed one too");
    // "ー" is in coffee, bagel and more; in Drinks only the coffee.
    assert_eq!(find_in(&l, "コーヒー", Some("drinks")), ["COF-001"]);
    assert!(find_in(&l, "コーヒー", Some("bakery")).is_empty());
    assert_eq!(find_in(&l, "べーぐる", Some("bakery")), ["BAG-001"], "hiragana finds ごまベーグル");
    assert_eq!(find_in(&l, "-0", Some("goods")), ["GFT-025", "MUG-001"]);
}

#[test]
fn categories_are_checked_and_an_item_can_leave_one() {
    let mut l = demo();
    let bad = Category { key: "Drinks!".into(), name_en: "x".into(), name_ja: None, position: 9 };
    assert!(matches!(l.catalog_mut().save_categories(&[bad], None, 2), Err(Error::InvalidItem { field: "category", .. })));
    assert!(matches!(l.catalog_mut().set_item_category("COF-001", Some("nope"), None, 2), Err(Error::InvalidItem { field: "category", .. })));
    assert!(matches!(l.catalog_mut().set_item_category("NOPE", None, None, 2), Err(Error::UnknownProduct(_))));
    assert!(l.catalog_mut().set_item_category("COF-001", None, None, 2).unwrap());
    assert!(!l.catalog_mut().set_item_category("COF-001", None, None, 2).unwrap(), "unchanged writes nothing");
    assert!(find_in(&l, "COF-001", Some("drinks")).is_empty());
    assert_eq!(find(&l, "COF-001"), ["COF-001"]);
}

#[test]
fn a_renamed_item_is_found_by_its_new_name_only() {
    let mut l = demo();
    let mut latte = l.catalog().item("COF-002").unwrap().unwrap();
    latte.name_ja = Some("ソイラテ".into());
    l.catalog_mut().upsert(&[latte.clone()], None, 2).unwrap();
    assert_eq!(find(&l, "そいらて"), ["COF-002"]);
    assert!(find(&l, "かふぇらて").is_empty());
    latte.name_ja = None;
    l.catalog_mut().upsert(&[latte], None, 3).unwrap();
    assert!(find(&l, "そいらて").is_empty(), "a Japanese name taken away is not found");
}

/// The version before categories and search: this migration's place, found by its table.
fn before_search() -> i64 {
    MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS product_search")).expect("the search migration") as i64
}

#[test]
fn the_upgrade_keeps_items_and_finds_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    }
    {
        // The file as the build before this one left it: no categories, no search keys.
        let c = rusqlite::Connection::open(&path).unwrap();
        // The migrations after this one first, as the build before had none of them.
        crate::common::undo_tax_exempt(&c);
        for t in ["product", "name_added", "name_changed", "name_removed"] {
            c.execute_batch(&format!("DROP TRIGGER product_search_stale_{t};")).unwrap();
        }
        c.execute_batch(&format!(
            "DROP TABLE product_search; DROP TABLE product_categories; DROP TABLE categories; PRAGMA user_version = {};",
            before_search()
        ))
        .unwrap();
    }
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), MIGRATIONS.len() as i64);
    assert_eq!(l.catalog().items().unwrap().len(), 17, "the 14 items, the weighed one and the 2 department keys");
    assert!(l.catalog().categories().unwrap().is_empty());
    assert_eq!(find(&l, "クロワッサン"), ["CRO-001"], "the keys were written at open");
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_csv_category_column_puts_items_in_categories_and_export_writes_it() {
    let mut l = demo();
    let header = "sku,barcode,name_en,name_ja,price_minor,tax_class,active,price_kind,unit,category\n";
    let bad = format!("{header}NEW-1,,New,,10,standard,1,fixed,piece,drinks\nNEW-2,,New,,10,standard,1,fixed,piece,nope\nNEW-3,,New,,10,standard,1,fixed,piece,Bad Key\n");
    let problems = l.catalog_mut().import_csv(bad.as_bytes(), None, 2).unwrap().unwrap_err();
    let got: Vec<(u64, &str)> = problems.iter().map(|p| (p.line, p.field.as_str())).collect();
    assert_eq!(got, [(4, "category")], "a key's form is checked with the file: {problems:?}");
    let unknown = format!("{header}NEW-1,,New,,10,standard,1,fixed,piece,drinks\nNEW-2,,New,,10,standard,1,fixed,piece,nope\n");
    let problems = l.catalog_mut().import_csv(unknown.as_bytes(), None, 2).unwrap().unwrap_err();
    let got: Vec<(u64, &str)> = problems.iter().map(|p| (p.line, p.field.as_str())).collect();
    assert_eq!(got, [(3, "category")], "an unknown key is a problem of its line: {problems:?}");
    assert!(l.catalog().item("NEW-1").unwrap().is_none(), "nothing imported");

    let good = format!("{header}NEW-1,,New tea,,10,standard,1,fixed,piece,drinks\nCOF-001,,Coffee,,250,reduced,1,fixed,piece,\n");
    l.catalog_mut().import_csv(good.as_bytes(), None, 3).unwrap().unwrap();
    assert_eq!(find_in(&l, "new tea", Some("drinks")), ["NEW-1"]);
    assert!(find_in(&l, "COF-001", Some("drinks")).is_empty(), "an empty cell takes the item out");
    let csv = l.catalog().export_csv().unwrap();
    assert!(csv.starts_with(header), "{csv}");
    assert!(csv.contains("NEW-1,,New tea,,10,standard,1,fixed,piece,drinks\n"), "{csv}");
    assert!(csv.lines().any(|l| l.starts_with("MUG-001,") && l.ends_with(",goods")), "{csv}");

    // A file without the column (here, one from before open prices too) leaves
    // categories as they are.
    let plain = "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nNEW-1,,New tea 2,,10,standard,1\n";
    l.catalog_mut().import_csv(plain.as_bytes(), None, 4).unwrap().unwrap();
    assert_eq!(find_in(&l, "new tea 2", Some("drinks")), ["NEW-1"]);
}
