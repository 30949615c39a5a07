//! An item's shape and the store's time zone published at the REAL back office (private
//! PostgreSQL) reaching a register's real ledger through the sync loop (record 0137): a
//! weighed item and a department key arrive as such, a name edit keeps the bananas
//! weighed, a category the register lacks refuses the item by name, and the store's zone
//! becomes the register's (its receipts' time); a zone the register refuses changes none
//! of its settings.
use crate::support;
use crate::register;

use paydesk_ledger::*;
use paydesk_tax::SaleUnit;
use register::Register;
use serde_json::{json, Value};
use support::Harness;

fn shaped(sku: &str, name: &str, price: i64, extra: Value) -> Value {
    let mut v = json!({"sku": sku, "barcode": null, "name_en": name, "price": price, "currency": "usd", "tax_class": "standard", "active": true});
    v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    v
}

fn settings() -> Value {
    json!({"store_name": "Main St", "currency": "usd", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000})
}

#[tokio::test]
async fn weighed_items_and_department_keys_reach_the_ledger_with_their_shape_and_stay_weighed_when_renamed() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::paired(&h, &store).await;
    let produce = Category { key: "produce".into(), name_en: "Produce".into(), name_ja: None, position: 0 };
    reg.ledger.catalog_mut().save_categories(&[produce], None, 1).unwrap();
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    h.owner.put(&path("settings"), &json!({"expected_version": 0, "settings": settings()})).await.unwrap();
    let items = json!({"items": [
        shaped("BANANA", "Bananas", 69, json!({"unit": "kilogram", "category": "produce"})),
        shaped("DEPT-FOOD", "Food", 0, json!({"price_kind": "department"})),
        shaped("HAM", "Ham", 199, json!({"unit": "hundred_grams", "category": "deli"})),
    ]});
    h.owner.put(&path("catalog"), &items).await.unwrap();

    let mut sync = reg.sync_loop();
    let round = sync.round().await.unwrap();
    assert_eq!(round.items_applied, 2, "{round:?}");
    // No such category here: the whole item is refused by name, never kept without it.
    assert_eq!(round.not_applied, vec!["item HAM: there is no category \"deli\" on this register".to_string()]);
    assert_eq!(reg.ledger.catalog().item("HAM").unwrap(), None);
    let bananas = reg.ledger.catalog().item("BANANA").unwrap().expect("published");
    assert_eq!((bananas.unit, bananas.price_kind, bananas.price_minor), (SaleUnit::Kilogram, PriceKind::Fixed, 69));
    let food = reg.ledger.catalog().item("DEPT-FOOD").unwrap().expect("published");
    assert_eq!((food.unit, food.price_kind), (SaleUnit::Piece, PriceKind::Department));
    assert_eq!(reg.ledger.catalog().item_categories().unwrap(), vec![("BANANA".to_string(), "produce".to_string())]);

    // The owner renames the bananas with a tool that knows nothing of units: still weighed.
    let renamed = json!({"sku": "BANANA", "name_en": "Organic bananas", "price": 79, "currency": "usd", "tax_class": "standard", "active": true});
    h.owner.put(&path("catalog"), &json!({"items": [renamed]})).await.unwrap();
    let round = sync.round().await.unwrap();
    assert_eq!(round.items_applied, 1, "{round:?}");
    let bananas = reg.ledger.catalog().item("BANANA").unwrap().unwrap();
    assert_eq!((bananas.name_en.as_str(), bananas.price_minor, bananas.unit), ("Organic bananas", 79, SaleUnit::Kilogram));
    assert_eq!(reg.ledger.catalog().item_categories().unwrap(), vec![("BANANA".to_string(), "produce".to_string())]);
}

#[tokio::test]
async fn the_store_s_zone_becomes_the_register_s_and_a_zone_it_refuses_changes_nothing() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::paired(&h, &store).await;
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    h.owner.put(&path("settings"), &json!({"expected_version": 0, "settings": settings()})).await.unwrap();
    let mut sync = reg.sync_loop();
    let before = reg.ledger.catalog().store_settings().unwrap().time_zone;
    sync.round().await.unwrap();
    // Settings that say no zone leave the register's own.
    assert_eq!(reg.ledger.catalog().store_settings().unwrap().time_zone, before);

    h.owner.put(&path("time-zone"), &json!({"time_zone": "Asia/Tokyo"})).await.unwrap();
    let round = sync.round().await.unwrap();
    assert_eq!(round.settings_not_applied, None, "{round:?}");
    let s = reg.ledger.catalog().store_settings().unwrap();
    assert_eq!(s.time_zone, "Asia/Tokyo");
    // A receipt's time is the store's: 2026-07-01T03:30Z is 12:30 in Tokyo.
    let t = store_time(1_782_876_600_000, &s);
    assert_eq!((t.day, t.hour, t.minute), (1, 12, 30));

    // A zone this register's ledger refuses (a back office with another time zone
    // database): named, and not one field of the settings changes.
    let mut odd: paydesk_sync_proto::StoreSettings = serde_json::from_value(settings()).unwrap();
    odd.store_name = "Renamed".into();
    odd.time_zone = Some("Mars/Olympus_Mons".into());
    let e = paydesk_sync::apply::settings(&mut reg.ledger, &odd).unwrap_err();
    assert!(e.to_string().contains("Mars/Olympus_Mons"), "{e}");
    assert_eq!(reg.ledger.catalog().store_settings().unwrap(), s);
}
