//! The scan path (issue #30, record 0115): a scanned code is resolved by point reads of
//! the ledger's indexes, counted here through a [`ScanLookup`] that counts — with 50,000
//! items, an unknown scan reads two rows, never the catalog (the app used to rebuild a
//! table of every item on each miss). The trait has no way to list the catalog at all;
//! the counts pin that nothing reads more than it needs.

use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use paydesk_domain::money::Currency;
use paydesk_ledger::{CatalogItem, Ledger, Result, SeededKeys};
use paydesk_register::transport::HttpTransport;
use paydesk_register::usecases::{resolve, ScanLookup, Scanned};
use paydesk_register::{Engine, EngineConfig, OsRandom, SystemClock};
use paydesk_tax::{default_in_store_rules, ean_check_digit, Embedded, Gtin13, InStoreRule, TaxClass};

/// 12 data digits and their check digit.
fn with_check(data: &str) -> String {
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", ean_check_digit(&d))
}

fn item(sku: &str, barcode: Option<&str>, price: i64) -> CatalogItem {
    CatalogItem {
        sku: sku.into(),
        barcode: barcode.map(|b| Gtin13::parse(b).unwrap()),
        name_en: format!("Item {sku}"),
        name_ja: None,
        price_minor: price,
        currency: Currency::Jpy,
        tax_class: TaxClass::Reduced,
        active: true,
        price_kind: paydesk_ledger::PriceKind::Fixed,
        unit: paydesk_tax::SaleUnit::Piece,
    }
}

/// The ledger's catalog, each read counted.
struct Counting<'a, L: ScanLookup> {
    inner: &'a L,
    reads: Cell<usize>,
}

impl<L: ScanLookup> ScanLookup for Counting<'_, L> {
    fn by_sku(&self, sku: &str) -> Result<Option<CatalogItem>> {
        self.reads.set(self.reads.get() + 1);
        self.inner.by_sku(sku)
    }
    fn by_barcode(&self, code: &Gtin13) -> Result<Option<CatalogItem>> {
        self.reads.set(self.reads.get() + 1);
        self.inner.by_barcode(code)
    }
}

/// (what it rang up, the rows it read)
fn scan(l: &Ledger, rules: &[InStoreRule], code: &str) -> (Scanned, usize) {
    let catalog = l.catalog();
    let counting = Counting { inner: &catalog, reads: Cell::new(0) };
    let got = resolve(&counting, rules, code).unwrap();
    (got, counting.reads.get())
}

fn sku(s: &str) -> Scanned {
    Scanned::Item { sku: s.into() }
}

#[test]
fn with_50000_items_a_scan_reads_a_row_or_two_never_the_catalog() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(3))).unwrap();
    let mut items: Vec<CatalogItem> = (0..49_999).map(|i| item(&format!("SKU-{i:05}"), Some(&with_check(&format!("4900{i:08}"))), 100 + i)).collect();
    items.push(item("0212345", None, 398));
    l.catalog_mut().upsert(&items, None, 1).unwrap();
    assert_eq!(l.catalog().items().unwrap().len(), 50_000);
    let rules = default_in_store_rules();

    // A known barcode: one read, by the barcode index.
    assert_eq!(scan(&l, &rules, &with_check("490000012345")), (sku("SKU-12345"), 1));
    // An unknown GTIN: the barcode, then the code as a SKU (digits have no upper case).
    assert_eq!(scan(&l, &rules, &with_check("490099999999")), (Scanned::Unknown, 2));
    // An unknown word: the SKU as typed and in upper case.
    assert_eq!(scan(&l, &rules, "nope"), (Scanned::Unknown, 2));
    // A SKU in lower case: found at the second read.
    assert_eq!(scan(&l, &rules, "sku-00007"), (sku("SKU-00007"), 2));
    // An in-store label: the barcode, then its item code.
    assert_eq!(scan(&l, &rules, &with_check("021234500398")), (sku("0212345"), 2));
    // A label whose item is unknown falls back to the SKU like any other code.
    assert_eq!(scan(&l, &rules, &with_check("029999900398")), (Scanned::Unknown, 3));
}

#[test]
fn an_in_store_label_rings_up_its_item_at_the_label_price() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(4))).unwrap();
    let mut gone = item("0254321", None, 500);
    gone.active = false;
    l.catalog_mut().upsert(&[item("0212345", None, 398), item("2100042", None, 250), gone, item("OTHER", Some(&with_check("021234500100")), 120)], None, 1).unwrap();
    let rules = vec![
        InStoreRule { prefix: "02".into(), item_digits: 5, value: Embedded::Price },
        InStoreRule { prefix: "21".into(), item_digits: 5, value: Embedded::WeightGrams },
    ];
    assert_eq!(scan(&l, &rules, &with_check("021234500398")).0, sku("0212345"));
    assert_eq!(
        scan(&l, &rules, &with_check("021234500400")).0,
        Scanned::Label { sku: "0212345".into(), label_minor: 400, catalog_minor: 398 },
        "another price than the catalog's is the label's line at the price printed (record 0126)"
    );
    assert_eq!(scan(&l, &rules, &with_check("210004201250")).0, Scanned::WeightLabel { sku: "2100042".into(), grams: 1250 });
    assert_eq!(scan(&l, &rules, &with_check("025432100500")).0, Scanned::Unknown, "an inactive item is not sold");
    // A code the catalog holds as a barcode is that item, even in a label's range.
    assert_eq!(scan(&l, &rules, &with_check("021234500100")).0, sku("OTHER"));
    // Without a rule for the prefix, a label is only a barcode (none holds it).
    assert_eq!(scan(&l, &[], &with_check("021234500398")).0, Scanned::Unknown);
}

#[test]
fn the_engine_scans_a_upc_a_by_its_ean_13_and_a_barcode_as_it_is_now() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = paydesk_test_kit::ledger_in(dir.path());
    // Nothing here talks to a PSP.
    let transport = Arc::new(HttpTransport::new("http://127.0.0.1:9", "sk_test_a", Duration::from_secs(1)).unwrap());
    let engine = Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default());
    let csv = "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nTISSUE,036000291452,Tissues,,398,standard,1\n";
    engine.catalog().import_csv(csv.as_bytes(), None).unwrap().unwrap();
    let rules = default_in_store_rules();
    for code in ["0036000291452", "036000291452", "tissue"] {
        assert_eq!(engine.catalog().scan(code, &rules).unwrap(), sku("TISSUE"), "{code}");
    }
    // The barcode moves to another SKU: the next scan rings up the new holder (nothing
    // is cached to go stale).
    let moved = "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nTISSUE,,Tissues,,398,standard,1\nTISSUE-2,0036000291452,Tissues (box),,420,standard,1\n";
    engine.catalog().import_csv(moved.as_bytes(), None).unwrap().unwrap();
    assert_eq!(engine.catalog().scan("036000291452", &rules).unwrap(), sku("TISSUE-2"));
}

#[test]
fn a_price_label_is_a_line_of_its_own_at_the_printed_price() {
    const NOW: i64 = 1_796_083_200_000; // 2026-12-01: the reduced rate applies
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(5))).unwrap();
    l.catalog_mut().upsert(&[item("0212345", None, 398)], None, 1).unwrap();
    let cart = l.carts_mut().create(Currency::Jpy, NOW).unwrap();
    l.carts_mut().add(cart, "0212345", 1, NOW).unwrap();
    let (c, no) = l.carts_mut().add_priced(cart, "0212345", 400, paydesk_ledger::PriceSource::Label, None, NOW).unwrap();
    assert_eq!(no, 2);
    let lines: Vec<(i64, i64, paydesk_ledger::PriceSource)> =
        c.lines.iter().map(|x| (x.line_no, x.unit_price.amount_minor, x.price_source)).collect();
    assert_eq!(lines, [(1, 398, paydesk_ledger::PriceSource::Catalog), (2, 400, paydesk_ledger::PriceSource::Label)]);
    // Scanning the catalog code again adds to the catalog line, not to the label's.
    let c = l.carts_mut().add(cart, "0212345", 1, NOW).unwrap();
    assert_eq!(c.lines.iter().map(|x| x.quantity).collect::<Vec<_>>(), [2, 1]);
}
