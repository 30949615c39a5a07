//! The catalog, store settings, CSV import/export and the demo stores (record 0059),
//! on a real SQLite file.

use paydesk_tax::{PriceMode, Rounding, TaxClass};
use paydesk_domain::*;
use paydesk_ledger::*;

fn ledger() -> (tempfile::TempDir, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let l = Ledger::open_with_keys(dir.path().join("cat.db"), Box::new(SeededKeys::new(1))).unwrap();
    (dir, l)
}

const GOOD: &str = "sku,barcode,name_en,name_ja,price_minor,tax_class,active
TEA,4905550000011,Green tea,緑茶,160,reduced,1
MUG,,\"Mug, large\",,1650,standard,1
OLD,4905550000028,Old stock,,100,exempt,0
";

#[test]
fn a_good_file_imports_every_row_and_audits_each_item() {
    let (_d, mut l) = ledger();
    let audit_before = l.audit().log().unwrap().len();
    let r = l.catalog_mut().import_csv(GOOD.as_bytes(), None, 10).unwrap().unwrap();
    assert_eq!((r.rows, r.changed), (3, 3));
    let tea = l.catalog().item("TEA").unwrap().unwrap();
    assert_eq!(tea.name_in(paydesk_domain::Locale::Ja), "緑茶");
    assert_eq!(tea.tax_class, TaxClass::Reduced);
    assert_eq!(tea.currency, Currency::Usd, "the store's currency");
    let mug = l.catalog().item("MUG").unwrap().unwrap();
    assert_eq!((mug.name_en.as_str(), mug.barcode.as_ref(), mug.name_in(paydesk_domain::Locale::Ja)), ("Mug, large", None, "Mug, large"));
    assert!(!l.catalog().item("OLD").unwrap().unwrap().active);
    let log = l.audit().log().unwrap();
    assert_eq!(log.len() - audit_before, 3);
    assert!(log.iter().any(|e| e.action == "catalog_item" && e.detail.as_deref() == Some("product TEA")));
    // The same file again changes nothing and writes no audit row.
    let r = l.catalog_mut().import_csv(GOOD.as_bytes(), None, 11).unwrap().unwrap();
    assert_eq!(r.changed, 0);
    assert_eq!(l.audit().log().unwrap().len(), log.len());
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_bad_file_reports_every_bad_line_and_field_and_imports_nothing() {
    let (_d, mut l) = ledger();
    l.catalog_mut().import_csv(b"sku,barcode,name_en,name_ja,price_minor,tax_class,active\nHELD,4905550000028,Held,,5,exempt,1\n", None, 1)
        .unwrap()
        .unwrap();
    let bad = "sku,barcode,name_en,name_ja,price_minor,tax_class,active
OK1,,Fine,,100,standard,1
B1,4905550000012,Bad check digit,,100,standard,1
B2,,Negative,,-5,standard,1
B3,,Missing price,,,standard,1
B4,,Unknown class,,100,luxury,1
OK1,,Duplicate SKU,,100,standard,1
B5,4905550000011,First,,100,reduced,1
B6,4905550000011,Same barcode,,100,reduced,1
B7,4905550000028,Held elsewhere,,100,reduced,1
B8,,,,100,standard,yes
";
    let problems = l.catalog_mut().import_csv(bad.as_bytes(), None, 2).unwrap().unwrap_err();
    let got: Vec<(u64, &str)> = problems.iter().map(|p| (p.line, p.field.as_str())).collect();
    // The file is checked on its own first: every line's problems at once.
    assert_eq!(
        got,
        vec![
            (3, "barcode"),
            (4, "price_minor"),
            (5, "price_minor"),
            (6, "tax_class"),
            (7, "sku"),
            (9, "barcode"),
            (11, "active"),
            (11, "name_en"),
        ],
        "{problems:#?}"
    );
    assert!(problems[0].message.contains("check digit"), "{}", problems[0].message);
    assert!(problems[4].message.contains("line 2"), "{}", problems[4].message);
    assert_eq!(l.catalog().items().unwrap().len(), 1, "nothing imported");

    // Against the stored catalog: a barcode another SKU holds.
    let clash = "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nNEW,,New,,1,exempt,1\nB7,4905550000028,Held elsewhere,,100,reduced,1\n";
    let problems = l.catalog_mut().import_csv(clash.as_bytes(), None, 3).unwrap().unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!((problems[0].line, problems[0].field.as_str()), (3, "barcode"));
    assert!(problems[0].message.contains("HELD"));
    assert!(l.catalog().item("NEW").unwrap().is_none(), "nothing imported");
}

#[test]
fn limits_are_enforced_before_anything_is_read() {
    let (_d, mut l) = ledger();
    let big = vec![b'a'; paydesk_ledger::ledger::catalog::MAX_CSV_BYTES + 1];
    let p = l.catalog_mut().import_csv(&big, None, 1).unwrap().unwrap_err();
    assert_eq!(p[0].field, "file");
    let long = format!("sku,barcode,name_en,name_ja,price_minor,tax_class,active\n{},,n,,1,exempt,1\n", "S".repeat(65));
    let p = l.catalog_mut().import_csv(long.as_bytes(), None, 1).unwrap().unwrap_err();
    assert_eq!((p[0].line, p[0].field.as_str()), (2, "sku"));
    let header = "sku,name,price\nA,b,1\n";
    let p = l.catalog_mut().import_csv(header.as_bytes(), None, 1).unwrap().unwrap_err();
    assert_eq!((p[0].line, p[0].field.as_str()), (1, "header"));
}

#[test]
fn export_writes_what_import_reads() {
    let (_d, mut l) = ledger();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l.catalog_mut().import_csv(GOOD.as_bytes(), None, 2).unwrap().unwrap();
    let before = l.catalog().items().unwrap();
    let csv = l.catalog().export_csv().unwrap();
    let (_d2, mut other) = ledger();
    other.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let r = other.catalog_mut().import_csv(csv.as_bytes(), None, 3).unwrap().unwrap();
    assert_eq!(r.rows, before.len());
    assert_eq!(other.catalog().items().unwrap(), before);
    assert_eq!(other.catalog().export_csv().unwrap(), csv);
}

#[test]
fn settings_are_validated_bounded_and_audited() {
    let (_d, mut l) = ledger();
    let s = l.catalog().store_settings().unwrap();
    assert_eq!((s.currency, s.locale, s.price_mode), (Currency::Usd, Locale::En, PriceMode::Inclusive));
    let mut bad = s.clone();
    bad.registration_number = Some("T7000012050003".into());
    assert!(matches!(l.catalog_mut().set_store_settings(bad, None, 5), Err(Error::InvalidInput(m)) if m.contains("registration")));
    let mut bad = s.clone();
    bad.receipt_footer = "x".repeat(501);
    assert!(l.catalog_mut().set_store_settings(bad, None, 5).is_err());
    assert_eq!(l.catalog().store_settings().unwrap(), s, "a refused change leaves the settings as they were");

    let mut new = s.clone();
    new.name = "Kissa".into();
    new.registration_number = Some(" T7000012050002 ".into());
    let saved = l.catalog_mut().set_store_settings(new, None, 6).unwrap();
    assert_eq!(saved.registration_number.as_deref(), Some("T7000012050002"));
    let last = l.audit().log().unwrap().pop().unwrap();
    assert_eq!(last.action, "store_settings");
    assert!(last.before.unwrap().contains("PayDesk") && last.after.unwrap().contains("Kissa"));
}

#[test]
fn the_demo_stores_have_fourteen_valid_items_and_two_department_keys() {
    for (locale, currency, lang) in [(DemoLocale::EnUs, Currency::Usd, "en"), (DemoLocale::JaJp, Currency::Jpy, "ja")] {
        let (_d, mut l) = ledger();
        let s = l.catalog_mut().seed_demo_store(locale, None, 1).unwrap();
        assert_eq!(s.currency, currency);
        let all = l.catalog().items().unwrap();
        let (items, keys): (Vec<_>, Vec<_>) = all.iter().partition(|i| i.price_kind == PriceKind::Fixed);
        let (weighed, items): (Vec<_>, Vec<_>) = items.into_iter().partition(|i| i.unit.is_weighed());
        assert_eq!(items.len(), 14);
        // One item sold by weight (record 0134), named by its weight label's item code.
        assert_eq!(weighed.iter().map(|i| i.sku.as_str()).collect::<Vec<_>>(), [DEMO_WEIGHED_SKU]);
        for i in &items {
            assert_eq!(i.barcode.as_ref().unwrap().as_str().len(), 13);
            assert_eq!(i.currency, currency);
        }
        // Department keys (record 0126): no price, no barcode, a name in both languages.
        let keys: Vec<(&str, Option<&str>, i64, PriceKind)> =
            keys.iter().map(|k| (k.sku.as_str(), k.name_ja.as_deref(), k.price_minor, k.price_kind)).collect();
        // A Japanese key names its rate, as Japanese registers do; a New York key does not
        // (grocery food is 0 % taken out, 8.875 % eaten in).
        let names = if currency == Currency::Jpy { ["食品 8%", "雑貨 10%"] } else { ["食料品", "雑貨"] };
        assert_eq!(
            keys,
            [("DEPT-FOOD", Some(names[0]), 0, PriceKind::Department), ("DEPT-GOODS", Some(names[1]), 0, PriceKind::Department)]
        );
        let class = |sku: &str| l.catalog().item(sku).unwrap().unwrap().tax_class;
        assert_eq!((class("DEPT-FOOD"), class("DEPT-GOODS")), (TaxClass::Reduced, TaxClass::Standard));
        let coffee = l.catalog().item("COF-001").unwrap().unwrap();
        if lang == "ja" {
            assert_eq!(coffee.name_in(paydesk_domain::Locale::Ja), "ブレンドコーヒー");
            assert_eq!(coffee.tax_class, TaxClass::Reduced);
            assert_eq!(l.catalog().item("MUG-001").unwrap().unwrap().tax_class, TaxClass::Standard);
            assert_eq!(s.registration_number.as_deref(), Some("T7000012050002"));
        } else {
            // A New York City cafe (record 0131): prepared coffee is taxable, a whole bagel to
            // go is grocery food (the reduced class, 0 % there), the gift card is exempt.
            assert_eq!(coffee.price_minor, 250);
            assert_eq!(coffee.tax_class, TaxClass::Standard);
            assert_eq!(l.catalog().item("BAG-001").unwrap().unwrap().tax_class, TaxClass::Reduced);
            assert_eq!(l.catalog().item("GFT-025").unwrap().unwrap().tax_class, TaxClass::Exempt);
            assert_eq!((s.price_mode, s.rounding, s.time_zone.as_str()), (PriceMode::Exclusive, Rounding::HalfUp, "America/New_York"));
            assert_eq!(l.catalog().tax_settings().unwrap().rates, paydesk_tax::RateTable::new_york_city());
        }
    }
}
