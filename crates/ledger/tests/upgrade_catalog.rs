//! Schema v5 -> v6 (record 0059–0060): products and sales written before the upgrade
//! stay readable and refundable with their totals unchanged: old products and lines are
//! tax class 'exempt', the store's prices tax-inclusive, old carts undiscounted.

use std::path::Path;

use paydesk_ledger::schema::MIGRATIONS;
use paydesk_tax::TaxClass;
use paydesk_domain::*;
use paydesk_ledger::*;

fn write_v5_file(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
    for m in &MIGRATIONS[..5] {
        c.execute_batch(m).unwrap();
    }
    c.execute_batch(
        "PRAGMA user_version = 5;
         INSERT INTO products (id, sku, name, price_minor, currency) VALUES
             (1, 'COF', 'Coffee', 450, 'usd'), (2, 'BUN', 'Bun', 1003, 'usd');
         INSERT INTO carts (id, currency, state, created_at_ms, updated_at_ms) VALUES
             (1, 'usd', 'paid', 1, 1), (2, 'usd', 'open', 1, 1);
         INSERT INTO cart_lines (cart_id, product_id, quantity, unit_price_minor) VALUES
             (1, 1, 2, 450), (1, 2, 1, 1003), (2, 1, 1, 450);
         INSERT INTO tenders (id, cart_id, seq, kind, amount_minor, currency, cash_tendered_minor, change_minor,
                              rounding_minor, created_at_ms)
             VALUES (1, 1, 1, 'cash', 1903, 'usd', 2000, 97, 0, 2);
         INSERT INTO cash_movements (at_ms, kind, amount_minor, currency, cart_id, tender_id) VALUES
             (2, 'sale_in', 2000, 'usd', 1, 1), (2, 'change_out', -97, 'usd', 1, 1);",
    )
    .unwrap();
}

#[test]
fn a_v5_ledger_keeps_its_products_and_sale_totals_and_stays_refundable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v5.db");
    write_v5_file(&path);
    let mut l = Ledger::open_with_keys(&path, Box::new(SeededKeys::new(5))).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);

    let coffee = l.catalog().item("COF").unwrap().unwrap();
    assert_eq!((coffee.tax_class, coffee.active, coffee.barcode.as_ref()), (TaxClass::Exempt, true, None));
    assert_eq!(coffee.name_in(paydesk_domain::Locale::Ja), "Coffee");
    assert_eq!(l.carts().products().unwrap().len(), 2);

    let paid = l.sales().by_cart(CartId(1)).unwrap();
    assert_eq!((paid.state, paid.cart.total.amount_minor, paid.totals.settled_minor), (SaleState::Paid, 1903, 1903));
    let plan = l.sales_mut().plan_refund(CartId(1), Some(450), Some("returned a coffee"), 10).unwrap();
    assert_eq!(plan.cash_out_minor, 450, "{plan:?}");

    // The open cart still totals as before and takes a line and a tender.
    let cart = l.carts_mut().add(CartId(2), "BUN", 1, 20).unwrap();
    assert_eq!(cart.total.amount_minor, 1453);
    let cash = l.sales_mut().pay_cash(CartId(2), 1500, None, 21).unwrap();
    assert_eq!((cash.sale.state, cash.split.change_minor), (SaleState::Paid, 47));
    assert_eq!(l.sales().by_cart(CartId(1)).unwrap().cart.total.amount_minor, 1903);

    let s = l.catalog().store_settings().unwrap();
    assert_eq!((s.currency, s.locale), (Currency::Usd, Locale::En));
    assert_eq!(l.catalog().tax_settings().unwrap().rates.entries.len(), 3, "10 % / 8 % / 0 seeded");
    assert!(l.audit().verify(None).unwrap().is_intact());
}

/// Schema v13 -> v14 (issue #28): a store written before its settings carried a time zone
/// is in its locale's zone, and keeps its other settings.
#[test]
fn a_v13_store_is_in_its_locales_time_zone_after_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v13.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
        for m in &MIGRATIONS[..13] {
            c.execute_batch(m).unwrap();
        }
        c.execute_batch(
            "PRAGMA user_version = 13;
             UPDATE store_settings SET name = 'Old Shop', locale = 'ja-JP', currency = 'jpy' WHERE id = 1;",
        )
        .unwrap();
    }
    let l = Ledger::open_with_keys(&path, Box::new(SeededKeys::new(5))).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let s = l.catalog().store_settings().unwrap();
    assert_eq!((s.name.as_str(), s.locale, s.time_zone.as_str()), ("Old Shop", Locale::Ja, "Asia/Tokyo"));
}
