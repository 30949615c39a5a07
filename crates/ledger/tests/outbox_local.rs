//! The register's own catalog items, staff and tax setup in the outbox (record 0052):
//! written by the change's own transaction, never for what the back office published
//! (no echo), never with a PIN hash.

use crate::common;
use common::outbox::OutboxShadow;
use common::*;
use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_tax::{PriceMode, RateTable, Rounding, TaxClass};
use paydesk_domain::*;
use paydesk_ledger::*;
use serde_json::{json, Value};

const T: i64 = 1_790_000_000_000;

fn facts(l: &Ledger, after: u64) -> Vec<Value> {
    // The audit rows that go up beside them (record 0146) are `audit_rows.rs`'s to test.
    l.sync_log()
        .outbox_batch(after, MAX_OUTBOX_BATCH)
        .unwrap()
        .into_iter()
        .map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap())
        .filter(|f| f["kind"] != "audit_row")
        .collect()
}

fn high(l: &Ledger) -> u64 {
    l.sync_log().outbox_stats().unwrap().high_water
}

fn tea(price: i64, active: bool) -> CatalogItem {
    CatalogItem {
        sku: "TEA-900".into(),
        barcode: Some(paydesk_tax::Gtin13::parse("4901234567894").unwrap()),
        name_en: "Barley tea".into(),
        name_ja: Some("麦茶".into()),
        price_minor: price,
        currency: Currency::Jpy,
        tax_class: TaxClass::Reduced,
        active,
        price_kind: paydesk_ledger::PriceKind::Fixed,
        unit: paydesk_tax::SaleUnit::Piece,
    }
}

#[test]
fn a_local_item_saved_and_retired_travels_whole_and_an_unchanged_save_writes_nothing() {
    let mut l = mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let h = high(&l);
    l.catalog_mut().upsert(&[tea(150, true)], None, T + 1).unwrap();
    let got = facts(&l, h);
    // the product row, then its Japanese name: each the whole item as it then stands
    let whole = json!({"kind": "item_saved", "sku": "TEA-900", "barcode": "4901234567894", "name_en": "Barley tea", "name_ja": "麦茶",
                       "price": 150, "currency": "jpy", "tax_class": "reduced", "active": true});
    assert_eq!(got.last().unwrap(), &whole);
    assert!(got.len() <= 2, "{got:?}");
    let h = high(&l);
    l.catalog_mut().upsert(&[tea(150, true)], None, T + 2).unwrap();
    assert_eq!(high(&l), h, "an identical save changes nothing and sends nothing");
    l.catalog_mut().upsert(&[tea(160, false)], None, T + 3).unwrap();
    let mut retired = whole.clone();
    (retired["price"], retired["active"]) = (json!(160), json!(false));
    assert_eq!(facts(&l, h), [retired]);
    // a refused save (the barcode is another item's) writes nothing
    let h = high(&l);
    let mut thief = tea(1, true);
    thief.sku = "OTHER".into();
    // refused by its field, typed: the app points at the barcode without reading words
    let refused = l.catalog_mut().upsert(&[thief], None, T + 4).unwrap_err();
    assert!(matches!(refused, paydesk_ledger::Error::InvalidItem { field: "barcode", .. }), "{refused:?}");
    assert_eq!(high(&l), h);
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "items");
    shadow.assert_matches(&l, "items");
}

#[test]
fn what_the_back_office_publishes_never_goes_back_up() {
    let mut l = mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let h = high(&l);
    let item = PublishedItem { version: 3, item: tea(150, true), category: None };
    l.catalog_mut().apply_published_items(&[item], T + 1).unwrap();
    let tax = PublishedTax { version: 4, price_mode: PriceMode::Exclusive, rounding: Rounding::Up, registration_number: None, rates: RateTable::japan() };
    assert!(l.catalog_mut().apply_published_tax(&tax, T + 2).unwrap());
    let hash = paydesk_access::pin::hash_pin(&Pin::parse("1357").unwrap());
    let member = PublishedStaff { version: 5, name: "Aiko".into(), role: Role::Cashier, active: true, pin_hash: hash };
    l.roster_mut().apply_published(&[member], T + 3).unwrap();
    let got = facts(&l, h);
    assert!(got.iter().all(|f| !["item_saved", "staff_saved", "tax_setup_changed"].contains(&f["kind"].as_str().unwrap())), "{got:?}");
    // a local item that loses its barcode to a published one is sent again, without it
    let h = high(&l);
    let mut own = tea(99, true);
    own.sku = "OWN".into();
    own.barcode = Some(paydesk_tax::Gtin13::parse("4901234567887").unwrap());
    l.catalog_mut().upsert(&[own], None, T + 4).unwrap();
    let mut taker = tea(150, true);
    taker.barcode = Some(paydesk_tax::Gtin13::parse("4901234567887").unwrap());
    l.catalog_mut().apply_published_items(&[PublishedItem { version: 6, item: taker, category: None }], T + 5).unwrap();
    let last = facts(&l, h).pop().unwrap();
    assert_eq!((last["sku"].as_str(), &last["barcode"]), (Some("OWN"), &Value::Null));
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "published");
    shadow.assert_matches(&l, "published");
}

#[test]
fn local_staff_travel_without_their_pin_and_a_local_tax_change_as_a_whole_document() {
    let mut l = mem();
    let h = high(&l);
    let pin = Pin::parse("2468").unwrap();
    let mika = l.roster_mut().add("Mika", Role::Manager, &pin, None, T).unwrap();
    let got = facts(&l, h);
    assert_eq!(got, [json!({"kind": "staff_saved", "staff": mika.id, "name": "Mika", "role": "manager", "active": true})]);
    let hash: String = l.connection().query_row("SELECT pin_hash FROM staff WHERE id = ?1", [mika.id], |r| r.get(0)).unwrap();
    // a PIN change, a wrong PIN and the lockout counters send nothing but their audit rows
    // (record 0146), which carry no PIN (checked below over every row)
    let h = high(&l);
    l.roster_mut().change_pin("Mika", &pin, &Pin::parse("9753").unwrap(), Default::default(), T + 1).unwrap();
    let _ = l.roster_mut().check_pin("Mika", &pin, PinPurpose::SignIn, Default::default(), T + 2);
    assert_eq!(facts(&l, h), Vec::<Value>::new());
    // a role change or a retirement (no screen yet: raw SQL, as any future path would be)
    l.connection().execute("UPDATE staff SET role = 'owner' WHERE id = ?1", [mika.id]).unwrap();
    l.connection().execute("UPDATE staff SET active = 0 WHERE id = ?1", [mika.id]).unwrap();
    let got = facts(&l, h);
    assert_eq!(got.iter().map(|f| (f["role"].as_str().unwrap(), f["active"].as_bool().unwrap())).collect::<Vec<_>>(), [("owner", true), ("owner", false)]);
    let all: String = l.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap().into_iter().map(|r| r.fact_json).collect();
    assert!(all.contains("pin_change"), "the audit rows are in it");
    assert!(!all.contains(&hash) && !all.contains("argon2") && !all.contains("9753"), "no PIN or PIN hash in the outbox");

    let h = high(&l);
    let mut s = l.catalog().store_settings().unwrap();
    s.price_mode = PriceMode::Exclusive;
    s.rounding = Rounding::HalfUp;
    l.catalog_mut().set_store_settings(s.clone(), None, T + 5).unwrap();
    let got = facts(&l, h);
    assert_eq!(got.len(), 1);
    assert_eq!((got[0]["kind"].as_str(), got[0]["price_mode"].as_str(), got[0]["rounding"].as_str()), (Some("tax_setup_changed"), Some("exclusive"), Some("half_up")));
    assert_eq!(got[0]["rates"].as_array().unwrap().len(), 3, "the rate table with it");
    // a settings change that is not the tax setup sends no tax fact (its audit row only, record 0146)
    let h = high(&l);
    s.receipt_footer = "Thank you".into();
    l.catalog_mut().set_store_settings(s, None, T + 6).unwrap();
    assert_eq!(facts(&l, h), Vec::<Value>::new());
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "staff and tax");
    shadow.assert_matches(&l, "staff and tax");
}
