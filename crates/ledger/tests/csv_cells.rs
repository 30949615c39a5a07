//! The catalog's CSV export is safe to open in a spreadsheet (issue 28): a cell that
//! could run as a formula (`=`, `+`, `-`, `@`, a tab or CR first) is written with a
//! leading apostrophe, and import takes it off again, so every name round-trips.

use paydesk_ledger::ledger::catalog::{neutralise_cell, restore_cell};
use paydesk_ledger::*;
use proptest::prelude::*;

fn ledger() -> (tempfile::TempDir, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let l = Ledger::open_with_keys(dir.path().join("cat.db"), Box::new(SeededKeys::new(1))).unwrap();
    (dir, l)
}

const TRICKY: &str = "sku,barcode,name_en,name_ja,price_minor,tax_class,active
DISC,,'-10% off,'-10%引き,0,exempt,1
SUM,,'=SUM(A1:A9),,100,standard,1
AT,,'@home,,100,standard,1
PLUS,,'+1 pack,,100,standard,1
QUOTE,,'''=already quoted,,100,standard,1
TIS,,'Tis the season,,100,standard,1
";

#[test]
fn formula_looking_names_are_exported_as_text_and_read_back_as_they_were() {
    let (_d, mut l) = ledger();
    l.catalog_mut().import_csv(TRICKY.as_bytes(), None, 1).unwrap().unwrap();
    let name = |sku: &str| l.catalog().item(sku).unwrap().unwrap().name_en;
    assert_eq!(name("DISC"), "-10% off");
    assert_eq!(l.catalog().item("DISC").unwrap().unwrap().name_in(paydesk_domain::Locale::Ja), "-10%引き");
    assert_eq!(name("SUM"), "=SUM(A1:A9)");
    assert_eq!(name("AT"), "@home");
    assert_eq!(name("PLUS"), "+1 pack");
    assert_eq!(name("QUOTE"), "''=already quoted");
    assert_eq!(name("TIS"), "'Tis the season", "an apostrophe before plain text is the name's own");

    let csv = l.catalog().export_csv().unwrap();
    // no cell of the file starts with a formula character
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(csv.as_bytes());
    for rec in rdr.records() {
        for cell in rec.unwrap().iter() {
            assert!(!cell.starts_with(['=', '+', '-', '@', '\t', '\r']), "{cell:?} in\n{csv}");
        }
    }
    assert!(csv.contains("'-10% off"), "{csv}");
    let before = l.catalog().items().unwrap();
    let (_d2, mut other) = ledger();
    other.catalog_mut().import_csv(csv.as_bytes(), None, 2).unwrap().unwrap();
    assert_eq!(other.catalog().items().unwrap(), before);
    assert_eq!(other.catalog().export_csv().unwrap(), csv);
}

#[test]
fn every_cell_round_trips_and_none_exported_looks_like_a_formula() {
    // Cases that got through every assertion (a case returned early, or rejected by
    // a filter, is not one): a property that checks nothing must not pass.
    let reached = std::sync::atomic::AtomicU32::new(0);
    proptest!(ProptestConfig::default(), |(s in "['=+@\\-\t\r a-z%]{0,6}")| {
        let out = neutralise_cell(&s);
        prop_assert!(!out.starts_with(['=', '+', '-', '@', '\t', '\r']), "{:?}", out);
        prop_assert_eq!(restore_cell(&out), s.as_str());
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let n = reached.into_inner();
    println!("every_cell_round_trips_and_none_exported_looks_like_a_formula: {n} cases reached the assertions");
    assert!(n >= 256, "only {n} cases reached the assertions, at least 256 expected");
}

#[test]
fn any_text_round_trips() {
    // Cases that got through every assertion (a case returned early, or rejected by
    // a filter, is not one): a property that checks nothing must not pass.
    let reached = std::sync::atomic::AtomicU32::new(0);
    proptest!(ProptestConfig::default(), |(s in "\\PC{0,12}")| {
        let out = neutralise_cell(&s);
        prop_assert_eq!(restore_cell(&out), s.as_str());
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let n = reached.into_inner();
    println!("any_text_round_trips: {n} cases reached the assertions");
    assert!(n >= 256, "only {n} cases reached the assertions, at least 256 expected");
}
