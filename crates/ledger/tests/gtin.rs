//! One barcode rule (issue #30, record 0115): the ledger stores exactly what
//! `Gtin13::parse` accepts, in its 13-digit form, so a UPC-A and its EAN-13 are one item
//! and the unique index refuses the second SKU whichever form it was typed in.

use paydesk_domain::money::Currency;
use paydesk_ledger::{CatalogItem, Error, Ledger};
use paydesk_tax::{ean_check_digit, Gtin13, TaxClass};
use proptest::prelude::*;

use crate::common::mem;

const HEADER: &str = "sku,barcode,name_en,name_ja,price_minor,tax_class,active\n";

fn item(sku: &str, barcode: &str) -> CatalogItem {
    CatalogItem {
        sku: sku.into(),
        barcode: Some(Gtin13::parse(barcode).unwrap()),
        name_en: format!("Item {sku}"),
        name_ja: None,
        price_minor: 100,
        currency: Currency::Jpy,
        tax_class: TaxClass::Standard,
        active: true,
        price_kind: paydesk_ledger::PriceKind::Fixed,
        unit: paydesk_tax::SaleUnit::Piece,
    }
}

fn import(l: &mut Ledger, rows: &str) -> Result<usize, Vec<(u64, String, String)>> {
    l.catalog_mut()
        .import_csv(format!("{HEADER}{rows}").as_bytes(), None, 1)
        .unwrap()
        .map(|r| r.changed)
        .map_err(|p| p.into_iter().map(|p| (p.line, p.field, p.message)).collect())
}

/// A code of `len` digits: `data` digits, then the right check digit or a wrong one.
fn code_strategy() -> impl Strategy<Value = String> {
    (prop::sample::select(vec![7usize, 8, 11, 12, 13, 14]), prop::collection::vec(0u8..10, 14), any::<bool>(), 1u8..10).prop_map(
        |(len, digits, right, off)| {
            let data = &digits[..len - 1];
            let check = ean_check_digit(data);
            let check = if right { check } else { (check + off) % 10 };
            data.iter().chain(std::iter::once(&check)).map(|d| char::from(b'0' + d)).collect()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// UPC-A, EAN-8 and EAN-13 become the same GTIN-13 whichever form is given, and the
    /// ledger's CSV import takes a code exactly when `Gtin13::parse` does, storing its
    /// 13-digit form where the barcode index finds it.
    #[test]
    fn the_ledger_accepts_exactly_what_gtin13_parse_accepts(code in code_strategy()) {
        let parsed = Gtin13::parse(&code);
        if let Ok(g) = &parsed {
            prop_assert_eq!(g.as_str().len(), 13);
            prop_assert!(g.as_str().ends_with(&code), "the digits are kept, zeros before");
            // Its 13-digit form reads back as itself, and so does each shorter form it has.
            prop_assert_eq!(&Gtin13::parse(g.as_str()).unwrap(), g);
            for pad in [1, 5] {
                if let Some(short) = g.as_str().strip_prefix(&"0".repeat(pad)) {
                    prop_assert_eq!(&Gtin13::parse(short).unwrap(), g);
                }
            }
        }
        let mut l = mem();
        let got = import(&mut l, &format!("P1,{code},Probe,,100,standard,1\n"));
        prop_assert_eq!(got.is_ok(), parsed.is_ok(), "{:?} vs {:?}", got, parsed);
        match parsed {
            Ok(g) => {
                let stored = l.catalog().item("P1").unwrap().unwrap();
                prop_assert_eq!(stored.barcode.as_ref(), Some(&g));
                prop_assert_eq!(l.catalog().by_barcode(&g).unwrap().map(|i| i.sku), Some("P1".to_string()));
            }
            Err(e) => {
                let problems = got.unwrap_err();
                prop_assert_eq!(problems.len(), 1);
                prop_assert_eq!(problems[0].1.as_str(), "barcode");
                // The problem names the code and what is wrong with it, in the parser's words.
                prop_assert!(problems[0].2.contains(&code) && problems[0].2.contains(&e.to_string()), "{}", problems[0].2);
            }
        }
    }
}

#[test]
fn a_upc_a_and_its_ean_13_are_one_barcode() {
    let mut l = mem();
    assert_eq!(import(&mut l, "UPC,036000291452,Tissues,,100,standard,1\n"), Ok(1));
    let ean13 = Gtin13::parse("0036000291452").unwrap();
    assert_eq!(l.catalog().item("UPC").unwrap().unwrap().barcode, Some(ean13.clone()), "stored as 13 digits");
    assert_eq!(l.catalog().by_barcode(&ean13).unwrap().unwrap().sku, "UPC");
    // Exported as 13 digits, and imported again unchanged.
    let csv = l.catalog().export_csv().unwrap();
    assert!(csv.contains("UPC,0036000291452,"), "{csv}");
    assert_eq!(l.catalog_mut().import_csv(csv.as_bytes(), None, 2).unwrap().unwrap().changed, 0);

    // Another SKU with the same item's EAN-13 is refused, typed, by its field.
    let refused = l.catalog_mut().upsert(&[item("EAN", "0036000291452")], None, 3).unwrap_err();
    assert!(matches!(&refused, Error::InvalidItem { field: "barcode", message } if message.contains("UPC")), "{refused:?}");
    // The same through CSV, and both forms in one file.
    let clash = import(&mut l, "EAN,0036000291452,Tissues again,,100,standard,1\n").unwrap_err();
    assert_eq!((clash[0].0, clash[0].1.as_str()), (2, "barcode"));
    let twice = import(&mut l, "A1,96385074,Eight,,1,standard,1\nA2,0000096385074,Thirteen,,1,standard,1\n").unwrap_err();
    assert_eq!((twice[0].0, twice[0].1.as_str()), (3, "barcode"), "{twice:?}");
    assert!(twice[0].2.contains("line 2"), "{}", twice[0].2);
    assert_eq!(l.catalog().items().unwrap().len(), 1, "nothing else was written");
}

#[test]
fn a_barcode_problem_says_what_is_wrong() {
    let mut l = mem();
    let p = import(&mut l, "W1,12345,Short,,1,standard,1\nW2,036000291453,Bad digit,,1,standard,1\nW3,03600029145x,Letter,,1,standard,1\n").unwrap_err();
    let messages: Vec<&str> = p.iter().map(|p| p.2.as_str()).collect();
    assert!(messages[0].contains("5 characters") && messages[0].contains("12 (UPC-A)"), "{messages:?}");
    assert!(messages[1].contains("the check digit is 3; the other digits give 2"), "{messages:?}");
    assert!(messages[2].contains("character 11 is not a digit"), "{messages:?}");
}
