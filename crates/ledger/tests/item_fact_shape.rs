//! A register's own item goes up with its shape (record 0137, the register's side): the fact
//! of a weighed item says its unit, a department key its price kind, an item in a category
//! its category; a plain item's fact is the same text as before; a change of shape alone
//! writes the item again; and the upgrade from the version before sends each shaped item
//! once, so the back office stops listing the demo's bananas as a piece item.

use crate::common;
use paydesk_domain::*;
use paydesk_ledger::*;
use serde_json::Value;

const AT: i64 = 1_796_083_200_000;

/// The newest fact the outbox holds for `sku`.
fn last_fact(l: &Ledger, sku: &str) -> Option<Value> {
    l.sync_log()
        .outbox_batch(0, MAX_OUTBOX_BATCH)
        .unwrap()
        .into_iter()
        .map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap())
        .rfind(|f| f["kind"] == "item_saved" && f["sku"] == sku)
}

/// A local item of no category, fixed price, sold by the piece.
fn plain() -> CatalogItem {
    CatalogItem {
        sku: "PLAIN-1".into(),
        barcode: None,
        name_en: "Plain item".into(),
        name_ja: None,
        price_minor: 500,
        currency: Currency::Usd,
        tax_class: paydesk_tax::TaxClass::Standard,
        active: true,
        price_kind: PriceKind::Fixed,
        unit: paydesk_tax::SaleUnit::Piece,
    }
}

#[test]
fn a_local_items_fact_says_how_it_is_priced_and_sold_and_a_plain_ones_is_unchanged() {
    let mut l = common::mem();
    l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, AT).unwrap();
    let bananas = last_fact(&l, "2100001").expect("the weighed demo item went up");
    assert_eq!(bananas["unit"], "kilogram", "{bananas}");
    assert!(bananas.get("price_kind").is_none(), "a fixed price is the default: {bananas}");
    let key = last_fact(&l, "DEPT-FOOD").expect("a department key went up");
    assert_eq!(key["price_kind"], "department", "{key}");
    assert_eq!(last_fact(&l, "COF-001").unwrap()["category"], "drinks", "an item in a category says it");
    // A plain item's fact has no shape keys at all: a back office from before reads it as before.
    l.catalog_mut().upsert(&[plain()], None, AT + 1).unwrap();
    let fact = last_fact(&l, "PLAIN-1").unwrap();
    for key in ["price_kind", "unit", "category"] {
        assert!(fact.get(key).is_none(), "{key} in {fact}");
    }

    // Sold per 100 g from now on (a shape change alone): the item goes up again.
    let before = l.sync_log().outbox_stats().unwrap().queued;
    l.catalog_mut().upsert(&[CatalogItem { unit: paydesk_tax::SaleUnit::HundredGrams, ..plain() }], None, AT + 2).unwrap();
    assert!(l.sync_log().outbox_stats().unwrap().queued > before);
    assert_eq!(last_fact(&l, "PLAIN-1").unwrap()["unit"], "hundred_grams");
    // And back to the piece: the newest fact has no unit again.
    l.catalog_mut().upsert(&[plain()], None, AT + 3).unwrap();
    assert!(last_fact(&l, "PLAIN-1").unwrap().get("unit").is_none());
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn after_the_upgrade_a_shaped_items_next_change_goes_up_with_its_shape() {
    let before = paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("outbox_item_product_units_insert"))
        .expect("the item fact shape migration");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, AT).unwrap();
    }
    {
        // The file as the version before left it: the old view and no shape triggers.
        let c = rusqlite::Connection::open(&path).unwrap();
        let old = rusqlite::Connection::open_in_memory().unwrap();
        for m in &paydesk_ledger::schema::MIGRATIONS[..before] {
            old.execute_batch(m).unwrap();
        }
        let view: String = old.query_row("SELECT sql FROM sqlite_schema WHERE name = 'local_item_facts'", [], |r| r.get(0)).unwrap();
        common::undo_item_fact_shape(&c);
        c.execute_batch(&format!("DROP VIEW local_item_facts; {view}; PRAGMA user_version = {before};")).unwrap();
        let left: i64 = c.query_row("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'outbox_item_product_%'", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0);
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    let queued = l.sync_log().outbox_stats().unwrap().queued;
    // Renamed, the bananas go up weighed, in their category.
    let bananas = l.catalog().item("2100001").unwrap().unwrap();
    l.catalog_mut().upsert(&[CatalogItem { name_en: "Bananas, loose".into(), ..bananas }], None, AT + 5).unwrap();
    // the item, and the audit row of the change (record 0146)
    assert_eq!(l.sync_log().outbox_stats().unwrap().queued, queued + 2);
    let fact = last_fact(&l, "2100001").unwrap();
    assert_eq!((fact["name_en"].as_str(), fact["unit"].as_str(), fact["category"].as_str()), (Some("Bananas, loose"), Some("kilogram"), Some("food")));
    assert!(l.audit().verify(None).unwrap().is_intact());
}
