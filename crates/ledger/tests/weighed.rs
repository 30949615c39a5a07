//! Weighed goods (issue #30, record 0134, schema v30): a weighed item rung with its grams is
//! a line of its own whose amount is the tax crate's `weighed_amount`, taxed, paid, sent up
//! and returned as that amount; the weight re-reads exactly after a restart; a price label
//! of a weighed item rings the printed price; a weighed line comes back whole; and the
//! upgrade from the version before it keeps earlier sales as they were.

use paydesk_domain::*;
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_ledger::*;
use paydesk_tax::{weighed_amount, Returned, SaleUnit, WeightError};

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC
const NUTS: &str = DEMO_WEIGHED_SKU; // ¥398 per 100 g in the ja-JP demo store

/// The schema version before weighed goods' migration, found by its text.
fn before_weighed() -> i64 {
    MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS product_units")).expect("the weighed goods migration")
        as i64
}

fn store(path: &std::path::Path) -> Ledger {
    let mut l = Ledger::open(path).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

fn fact(l: &Ledger, cart: CartId) -> serde_json::Value {
    let s: String =
        l.connection().query_row("SELECT fact FROM sale_completed_facts WHERE cart_id = ?1", [cart.0], |r| r.get(0)).unwrap();
    serde_json::from_str(&s).unwrap()
}

#[test]
fn a_weighed_line_is_its_amount_through_tax_payment_and_the_sale_fact_and_rereads_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let mut l = store(&path);
    let item = l.catalog().item(NUTS).unwrap().unwrap();
    assert_eq!((item.unit, item.price_minor), (SaleUnit::HundredGrams, 398));
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add(cart, "COF-001", 2, AT).unwrap();
    let (c, first) = l.carts_mut().add_weighed(cart, NUTS, 152, AT).unwrap();
    // Two weighings are two lines, each at its own weight.
    let (c2, second) = l.carts_mut().add_weighed(cart, NUTS, 1_000, AT).unwrap();
    assert_eq!((first, second), (2, 3));
    let line = c.lines.iter().find(|x| x.line_no == first).unwrap();
    // ¥398/100g × 152 g = ¥604.96 → ¥605 (half up).
    assert_eq!((line.quantity, line.unit_price.amount_minor, line.line_total.amount_minor), (1, 605, 605));
    assert_eq!(line.weight, Some(LineWeight { grams: 152, unit: SaleUnit::HundredGrams, rate: Money::new(398, Currency::Jpy) }));
    assert_eq!(c2.lines[2].unit_price.amount_minor, 3_980);
    let tax = c2.tax.clone().expect("a taxed cart");
    assert_eq!(tax.subtotal, 2 * 250 + 605 + 3_980, "the subtotal takes the weighed amounts");
    assert_eq!(tax.lines.iter().map(|x| x.gross).collect::<Vec<_>>(), [500, 605, 3_980]);

    // Refused with nothing written: by the piece, part of a line, a weight out of range, grams for a piece.
    assert!(matches!(l.carts_mut().add(cart, NUTS, 1, AT), Err(Error::WeightRequired { .. })));
    assert!(matches!(l.carts_mut().set_line_quantity(cart, first, 2, AT), Err(Error::WeighedLineWhole { line_no: 2 })));
    assert!(matches!(
        l.carts_mut().add_weighed(cart, NUTS, 0, AT),
        Err(Error::WeightRefused { why: WeightError::GramsOutOfRange { grams: 0 }, .. })
    ));
    assert!(matches!(l.carts_mut().add_weighed(cart, NUTS, 100_001, AT), Err(Error::WeightRefused { .. })));
    assert!(matches!(l.carts_mut().add_weighed(cart, "COF-001", 100, AT), Err(Error::NotWeighed { .. })));
    assert_eq!(l.carts().by_id(cart).unwrap(), c2);

    let total = c2.total.amount_minor;
    l.sales_mut().pay_cash(cart, total, None, AT + 1).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid);
    let f = fact(&l, cart);
    let lines = f["lines"].as_array().unwrap();
    assert_eq!(lines[1]["unit"], "hundred_grams");
    assert_eq!((lines[1]["grams"].as_i64(), lines[1]["unit_rate"].as_i64()), (Some(152), Some(398)));
    assert_eq!((lines[1]["quantity"].as_i64(), lines[1]["unit_price"].as_i64(), lines[1]["total"].as_i64()), (Some(1), Some(605), Some(605)));
    assert!(lines[0].get("grams").is_none() && lines[0].get("unit").is_none(), "a piece line's fact is as before: {}", lines[0]);
    assert_eq!(f["total"].as_i64(), Some(total));

    // A catalog change later does not reprice the stored sale; a restart re-reads it exactly.
    let mut dearer = item.clone();
    dearer.price_minor = 498;
    l.catalog_mut().upsert(&[dearer], None, AT + 2).unwrap();
    let before = l.carts().by_id(cart).unwrap();
    drop(l);
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.carts().by_id(cart).unwrap(), before);
}

#[test]
fn a_weighed_line_comes_back_whole_and_a_price_label_of_a_weighed_item_rings_the_printed_price() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = store(&dir.path().join("ledger.sqlite"));
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, AT).unwrap();
    l.carts_mut().add_weighed(cart, NUTS, 250, AT).unwrap();
    // A pre-packed bag's printed price: a label line (record 0126), no weight.
    let (c, label) = l.carts_mut().add_priced(cart, NUTS, 1_234, PriceSource::Label, None, AT).unwrap();
    let l3 = c.lines.iter().find(|x| x.line_no == label).unwrap();
    assert_eq!((l3.price_source, l3.weight, l3.unit_price.amount_minor), (PriceSource::Label, None, 1_234));
    let total = c.total.amount_minor;
    l.sales_mut().pay_cash(cart, total, None, AT + 1).unwrap();

    let e = l.returns_mut().take_back(cart, &[Returned { line: 1, quantity: 2 }], None, false, AT + 2).unwrap_err();
    assert!(matches!(e, Error::WeighedLineWhole { line_no: 2 }), "{e:?}");
    let plan = l.returns_mut().take_back(cart, &[Returned { line: 1, quantity: 1 }], None, false, AT + 3).unwrap();
    // ¥398/100g × 250 g = ¥995, tax included: the whole line's amount comes back.
    assert_eq!(plan.record.total_minor, weighed_amount(398, 250, SaleUnit::HundredGrams).unwrap());
    assert_eq!(plan.record.total_minor, 995);
    let e = l.returns_mut().take_back(cart, &[Returned { line: 1, quantity: 1 }], None, false, AT + 4).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { .. }), "{e:?}");
}

#[test]
fn the_upgrade_keeps_earlier_sales_and_rings_weighed_items_after() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let (paid, open, paid_fact) = {
        let mut l = store(&path);
        let paid = l.carts_mut().create(Currency::Jpy, AT).unwrap();
        l.carts_mut().add(paid, "TEA-001", 2, AT).unwrap();
        let (c, _) = l.carts_mut().add_priced(paid, "DEPT-FOOD", 500, PriceSource::Open, None, AT).unwrap();
        l.sales_mut().pay_cash(paid, c.total.amount_minor, None, AT + 1).unwrap();
        let open = l.carts_mut().create(Currency::Jpy, AT + 2).unwrap();
        l.carts_mut().add(open, "COF-001", 1, AT + 2).unwrap();
        (paid, open, fact(&l, paid))
    };
    let (paid_before, open_before) = {
        let l = Ledger::open(&path).unwrap();
        (l.carts().by_id(paid).unwrap(), l.carts().by_id(open).unwrap())
    };
    {
        // The file as the version before weighed goods left it: no units table. (Its lines
        // have no weights; the migration copies the columns it had.)
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("DROP TABLE product_units; PRAGMA user_version = {};", before_weighed())).unwrap();
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    assert_eq!(l.carts().by_id(paid).unwrap(), paid_before);
    assert_eq!(fact(&l, paid), paid_fact, "an earlier sale's fact is unchanged");
    // The items had no unit: re-seeding the demo makes the nuts weighed again.
    assert_eq!(l.catalog().item(NUTS).unwrap().unwrap().unit, SaleUnit::Piece);
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 2).unwrap();
    // The open cart goes on: one catalog line per piece item still (scanning adds to it).
    let c = l.carts_mut().add(open, "COF-001", 1, AT + 3).unwrap();
    assert_eq!((c.lines.len(), c.lines[0].quantity), (open_before.lines.len(), 2));
    let (c, _) = l.carts_mut().add_weighed(open, NUTS, 152, AT + 3).unwrap();
    assert_eq!(c.lines[1].unit_price.amount_minor, 605);
}
