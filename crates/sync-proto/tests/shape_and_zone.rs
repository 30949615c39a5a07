//! An item's shape (price kind, sale unit, category) and the store's time zone on the
//! wire (record 0137): an older peer's item reads as it always meant, a fixed piece item
//! is written exactly as before, and what a register would refuse is refused here.
use paydesk_sync_proto::*;
use serde_json::json;

fn old_shape() -> serde_json::Value {
    json!({"sku": "TEA", "barcode": null, "name_en": "Tea", "name_ja": null, "price": 150, "currency": "usd", "tax_class": "standard", "active": true})
}

#[test]
fn an_item_without_the_new_fields_is_a_fixed_price_piece_item_with_no_category() {
    let item: Item = serde_json::from_value(old_shape()).unwrap();
    assert_eq!((item.price_kind, item.unit, item.category.as_deref()), (PriceKind::Fixed, SaleUnit::Piece, None));
    item.validate().unwrap();
    // Written back, it is the same document: a register older than the fields reads it
    // (its Item denies unknown fields).
    assert_eq!(serde_json::to_value(&item).unwrap(), old_shape());
}

#[test]
fn a_weighed_item_and_a_department_key_travel_with_their_shape() {
    let mut bananas = old_shape();
    bananas["sku"] = json!("BANANA");
    bananas["unit"] = json!("kilogram");
    bananas["category"] = json!("produce");
    let item: Item = serde_json::from_value(bananas.clone()).unwrap();
    assert_eq!((item.price_kind, item.unit, item.category.as_deref()), (PriceKind::Fixed, SaleUnit::Kilogram, Some("produce")));
    item.validate().unwrap();
    assert_eq!(serde_json::to_value(&item).unwrap(), bananas);

    let mut food = old_shape();
    food["price_kind"] = json!("department");
    food["price"] = json!(0);
    let dept: Item = serde_json::from_value(food).unwrap();
    assert_eq!(dept.price_kind, PriceKind::Department);
    dept.validate().unwrap();
}

#[test]
fn the_ledger_s_shape_rules_are_checked_on_the_wire() {
    let base: Item = serde_json::from_value(old_shape()).unwrap();
    let priced_open = Item { price_kind: PriceKind::Open, ..base.clone() };
    assert!(priced_open.validate().unwrap_err().to_string().contains("open-price item has no price"), "{:?}", priced_open.validate());
    let weighed_open = Item { price_kind: PriceKind::Open, price: 0, unit: SaleUnit::HundredGrams, ..base.clone() };
    assert!(weighed_open.validate().unwrap_err().to_string().contains("weighed item"));
    for bad in ["", "Produce", "fruit & veg", &"x".repeat(33)] {
        let it = Item { category: Some(bad.to_string()), ..base.clone() };
        assert!(it.validate().unwrap_err().to_string().contains("category"), "{bad:?}");
    }
    assert!(Item { category: Some("x".repeat(32)), ..base.clone() }.validate().is_ok());
    let mut pounds = old_shape();
    pounds["unit"] = json!("pound");
    assert!(serde_json::from_value::<Item>(pounds).is_err(), "an unknown unit is refused, not read as a piece");
}

#[test]
fn a_store_time_zone_is_a_zone_of_the_database_or_absent() {
    let doc = json!({"store_name": "Main St", "currency": "usd", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    let s: StoreSettings = serde_json::from_value(doc.clone()).unwrap();
    assert_eq!(s.time_zone, None);
    s.validate().unwrap();
    assert_eq!(serde_json::to_value(&s).unwrap(), doc, "an unsaid zone is left out: an older register reads the settings");
    for good in ["America/New_York", "Asia/Tokyo", "UTC", "Etc/GMT+5"] {
        StoreSettings { time_zone: Some(good.into()), ..s.clone() }.validate().unwrap_or_else(|e| panic!("{good}: {e}"));
    }
    for bad in ["", "Mars/Olympus_Mons", "America/New York", "../etc/passwd", &"A".repeat(65)] {
        let e = StoreSettings { time_zone: Some(bad.into()), ..s.clone() }.validate().unwrap_err();
        assert!(e.to_string().contains("time_zone"), "{bad:?}: {e}");
    }
}
