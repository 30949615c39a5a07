//! The store's time zone and the item's shape at the back office (record 0137), on a real
//! PostgreSQL: the hourly chart in each store's own hours (the hour a summer-time change
//! repeats is two true rows), the zone set, checked and published, weighed items and
//! department keys published and a register's own weighed item kept weighed, and V12
//! upgrading a V11 database.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::{Batch, Change, Fact, Item, PaymentState, PriceKind, RegisterHealth, Row, SaleUnit, PROTOCOL_VERSION};
use serde_json::{json, Value};
use support::*;
use crate::upgrades::Older;

fn refused(e: ClientError) -> (u16, String, String) {
    match e {
        ClientError::Refused(r) => (r.status, r.code().to_string(), r.body["error"]["message"].as_str().unwrap_or("").to_string()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

fn settings(currency: &str) -> Value {
    json!({"store_name": "Store", "currency": currency, "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000})
}

/// A captured card sale of `amount` created at `at_ms`: three rows from `first`.
async fn sale_at(reg: &RegisterClient, first: u64, key: &str, amount: i64, currency: &str, at_ms: i64) {
    let rows = vec![
        Row { at_ms, fact: Fact::PaymentCreated { checkout_key: key.into(), amount, currency: currency.into() } },
        Row { at_ms, fact: Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Authorizing, psp_id: None } },
        Row { at_ms, fact: Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Captured, psp_id: Some(format!("pi_{key}")) } },
    ];
    send(reg, first, rows).await;
}

async fn send(reg: &RegisterClient, first: u64, rows: Vec<Row>) {
    let health = RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None };
    let batch = Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health };
    reg.send(&batch, &format!("{}-{first}", reg.paired.register_id)).await.unwrap();
}

/// 2026-07-01T03:30:00Z; 2026-11-01T05:30:00Z (01:30 EDT) and an hour later (01:30 EST).
const JULY_0330Z: i64 = 1_782_876_600_000;
const NOV_0530Z: i64 = 1_793_511_000_000;
const NOV_0630Z: i64 = 1_793_514_600_000;

/// (hour, utc_offset, time_zone, sales) of a store's chart rows, newest first.
fn hours(d: &Value, store: &str) -> Vec<(String, String, String, i64)> {
    d["sales_by_hour"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["store_id"] == store)
        .map(|h| (h["hour"].as_str().unwrap().into(), h["utc_offset"].as_str().unwrap().into(), h["time_zone"].as_str().unwrap().into(), h["sales"].as_i64().unwrap()))
        .collect()
}

#[tokio::test]
async fn the_hourly_chart_is_in_each_store_s_own_hours_and_a_repeated_hour_is_two_true_rows() {
    let h = Harness::start().await;
    let (ny, ny_reg) = h.store_with_register("New York").await;
    let (tokyo, tokyo_reg) = h.store_with_register("Tokyo").await;
    // Half an hour off UTC: its hours start at :30 UTC.
    let (kolkata, kolkata_reg) = h.store_with_register("Kolkata").await;
    for (store, currency, zone) in [(&ny, "usd", "America/New_York"), (&tokyo, "jpy", "Asia/Tokyo"), (&kolkata, "usd", "Asia/Kolkata")] {
        h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings(currency)})).await.unwrap();
        h.owner.put(&format!("/admin/stores/{store}/time-zone"), &json!({"time_zone": zone})).await.unwrap();
    }
    sale_at(&ny_reg, 1, "ny-july", 1000, "usd", JULY_0330Z).await;
    sale_at(&ny_reg, 4, "ny-edt", 2000, "usd", NOV_0530Z).await;
    sale_at(&ny_reg, 7, "ny-est", 3000, "usd", NOV_0630Z).await;
    sale_at(&tokyo_reg, 1, "tokyo-july", 500, "jpy", JULY_0330Z).await;
    sale_at(&kolkata_reg, 1, "kolkata-july", 700, "usd", JULY_0330Z + 60_000).await;

    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let nyz = || "America/New_York".to_string();
    assert_eq!(
        hours(&d, &ny),
        vec![
            ("2026-11-01 01:00".into(), "-05:00".into(), nyz(), 1),
            ("2026-11-01 01:00".into(), "-04:00".into(), nyz(), 1),
            ("2026-06-30 23:00".into(), "-04:00".into(), nyz(), 1),
        ],
        "{d:#}"
    );
    assert_eq!(hours(&d, &tokyo), vec![("2026-07-01 12:00".into(), "+09:00".into(), "Asia/Tokyo".into(), 1)]);
    // 03:31 UTC is 09:01 in Kolkata: its 09:00 hour, which began at 03:30 UTC.
    assert_eq!(hours(&d, &kolkata), vec![("2026-07-01 09:00".into(), "+05:30".into(), "Asia/Kolkata".into(), 1)]);
    let kolkata_start = d["sales_by_hour"].as_array().unwrap().iter().find(|h| h["store_id"] == kolkata.as_str()).unwrap()["hour_start_ms"].as_i64();
    assert_eq!(kolkata_start, Some(JULY_0330Z));
    // The two 01:00 rows are an hour apart in time: never one hour of two sales.
    let starts: Vec<i64> = d["sales_by_hour"].as_array().unwrap().iter().filter(|h| h["store_id"] == ny.as_str()).map(|h| h["hour_start_ms"].as_i64().unwrap()).collect();
    assert_eq!(starts, vec![NOV_0630Z - 1_800_000, NOV_0530Z - 1_800_000, JULY_0330Z - 1_800_000]);
    let store_zones: Vec<(String, String)> =
        d["stores"].as_array().unwrap().iter().map(|s| (s["name"].as_str().unwrap().into(), s["time_zone"].as_str().unwrap().into())).collect();
    assert!(store_zones.contains(&("New York".into(), "America/New_York".into())) && store_zones.contains(&("Tokyo".into(), "Asia/Tokyo".into())), "{store_zones:?}");
}

#[tokio::test]
async fn a_zone_is_checked_published_with_the_settings_and_kept_by_an_edit_that_does_not_say_it() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    // Before any settings the zone has no way to the registers: said, not dropped.
    let (status, code, _) = refused(h.owner.put(&path("time-zone"), &json!({"time_zone": "America/New_York"})).await.unwrap_err());
    assert_eq!((status, code.as_str()), (409, "conflict"));
    h.owner.put(&path("settings"), &json!({"expected_version": 0, "settings": settings("usd")})).await.unwrap();
    for bad in ["Mars/Olympus_Mons", "America/New York", "", "EST5EDT;DROP", &"A".repeat(65)] {
        let (status, code, message) = refused(h.owner.put(&path("time-zone"), &json!({"time_zone": bad})).await.unwrap_err());
        assert_eq!((status, code.as_str()), (400, "unknown_time_zone"), "{bad:?}: {message}");
    }
    let mut bad_settings = settings("usd");
    bad_settings["time_zone"] = json!("Mars/Olympus_Mons");
    let (status, code, _) = refused(h.owner.put(&path("settings"), &json!({"expected_version": 1, "settings": bad_settings})).await.unwrap_err());
    assert_eq!((status, code.as_str()), (400, "unknown_time_zone"));
    let zone_of = |v: &Value| v["time_zone"].as_str().map(String::from);
    let db = h.db().await;
    assert_eq!(stored(&db, &store).await, "UTC", "refused zones changed nothing");

    let r = h.owner.put(&path("time-zone"), &json!({"time_zone": "America/New_York"})).await.unwrap();
    assert_eq!(r["version"], 2);
    let c = reg.changes(1).await.unwrap();
    let published: Vec<Option<String>> =
        c.changes.iter().map(|ch| match ch { Change::Settings { settings, .. } => settings.time_zone.clone(), _ => None }).collect();
    assert_eq!(published, vec![Some("America/New_York".to_string())]);
    // Setting it again publishes nothing new.
    assert_eq!(h.owner.put(&path("time-zone"), &json!({"time_zone": "America/New_York"})).await.unwrap()["version"], 2);
    // An edit that does not name the zone keeps it; one that names another moves both.
    h.owner.put(&path("settings"), &json!({"expected_version": 2, "settings": settings("usd")})).await.unwrap();
    let doc: Value = db.query_one("SELECT settings FROM store_settings", &[]).await.unwrap().get(0);
    assert_eq!(zone_of(&doc).as_deref(), Some("America/New_York"));
    let mut chicago = settings("usd");
    chicago["time_zone"] = json!("America/Chicago");
    h.owner.put(&path("settings"), &json!({"expected_version": 3, "settings": chicago})).await.unwrap();
    assert_eq!(stored(&db, &store).await, "America/Chicago");
}

async fn stored(db: &tokio_postgres::Client, store: &str) -> String {
    let store = uuid::Uuid::parse_str(store).unwrap();
    db.query_one("SELECT time_zone FROM stores WHERE store_id = $1", &[&store]).await.unwrap().get(0)
}

fn shaped(sku: &str, price: i64, extra: Value) -> Value {
    let mut v = json!({"sku": sku, "barcode": null, "name_en": format!("Item {sku}"), "price": price, "currency": "usd", "tax_class": "reduced", "active": true});
    v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    v
}

#[tokio::test]
async fn weighed_items_and_department_keys_are_published_with_their_shape_and_a_register_s_own_keeps_it() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    h.owner.put(&path("settings"), &json!({"expected_version": 0, "settings": settings("usd")})).await.unwrap();
    let bananas = shaped("BANANA", 69, json!({"unit": "kilogram", "category": "produce"}));
    let food = shaped("DEPT-FOOD", 0, json!({"price_kind": "department"}));
    h.owner.put(&path("catalog"), &json!({"items": [bananas, food]})).await.unwrap();
    // A name edit that leaves the shape out would make bananas a piece item: the owner's
    // whole item is what is kept, so the edit says the unit, and a shape the register's
    // ledger refuses is refused here first.
    let (status, _, message) =
        refused(h.owner.put(&path("catalog"), &json!({"items": [shaped("DEPT-X", 500, json!({"price_kind": "open"}))]})).await.unwrap_err());
    assert_eq!(status, 400, "{message}");
    assert!(message.contains("open-price item has no price"), "{message}");
    let listed = h.owner.get(&path("catalog")).await.unwrap();
    let units: Vec<(String, Option<String>, Option<String>)> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["item"]["sku"].as_str().unwrap().into(), i["item"]["unit"].as_str().map(Into::into), i["item"]["price_kind"].as_str().map(Into::into)))
        .collect();
    assert_eq!(units, vec![("BANANA".into(), Some("kilogram".into()), None), ("DEPT-FOOD".into(), None, Some("department".into()))]);
    let all = reg.get("/v1/sync/changes", &[("since", "0"), ("kinds", "settings,item,tax,staff")]).await.unwrap();
    let all: paydesk_sync_proto::Changes = serde_json::from_value(all).unwrap();
    all.validate().unwrap();
    let pulled: Vec<Item> = all.changes.into_iter().filter_map(|c| if let Change::Item { item, .. } = c { Some(item) } else { None }).collect();
    assert_eq!(pulled.iter().map(|i| (i.sku.as_str(), i.unit, i.price_kind, i.category.as_deref())).collect::<Vec<_>>(), vec![
        ("BANANA", SaleUnit::Kilogram, PriceKind::Fixed, Some("produce")),
        ("DEPT-FOOD", SaleUnit::Piece, PriceKind::Department, None),
    ]);

    // A name edit that leaves the shape out (a tool older than the fields) keeps it: the
    // bananas stay weighed; `"category": null` is how an edit clears the category.
    let renamed = json!({"sku": "BANANA", "barcode": null, "name_en": "Bananas", "price": 69, "currency": "usd", "tax_class": "reduced", "active": true});
    assert_eq!(h.owner.put(&path("catalog"), &json!({"items": [renamed]})).await.unwrap()["changed"], 1);
    let doc: Value = h.db().await.query_one("SELECT item FROM catalog_items WHERE sku = 'BANANA'", &[]).await.unwrap().get(0);
    assert_eq!((doc["name_en"].as_str(), doc["unit"].as_str(), doc["category"].as_str()), (Some("Bananas"), Some("kilogram"), Some("produce")));
    let uncategorized = shaped("BANANA", 69, json!({"name_en": "Bananas", "category": null}));
    h.owner.put(&path("catalog"), &json!({"items": [uncategorized]})).await.unwrap();
    let doc: Value = h.db().await.query_one("SELECT item FROM catalog_items WHERE sku = 'BANANA'", &[]).await.unwrap().get(0);
    assert_eq!((doc["unit"].as_str(), doc.get("category")), (Some("kilogram"), None));

    // The register's own weighed item, as its ItemSaved fact says it.
    let own = Item { unit: SaleUnit::HundredGrams, category: Some("deli".into()), ..pulled[0].clone() };
    let own = Item { sku: "HAM".into(), ..own };
    send(&reg, 1, vec![Row { at_ms: JULY_0330Z, fact: Fact::ItemSaved(own) }]).await;
    let db = h.db().await;
    let row = db.query_one("SELECT sku, price_kind, unit, category FROM register_items", &[]).await.unwrap();
    let got: (String, String, String, Option<String>) = (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(got, ("HAM".into(), "fixed".into(), "hundred_grams".into(), Some("deli".into())));
}

#[tokio::test]
async fn v12_upgrades_a_v11_database_keeping_every_item_s_meaning_and_guessing_only_tokyo() {
    let old = Older::at(11).await;
    let c = &old.client;
    let (tokyo, ny) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    for (id, currency) in [(tokyo, "jpy"), (ny, "usd")] {
        c.execute("INSERT INTO stores (store_id, name, created_ms) VALUES ($1, 'S', 1)", &[&id]).await.unwrap();
        let doc = json!({"store_name": "S", "currency": currency, "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
        c.execute("INSERT INTO store_settings (store_id, version, settings, updated_ms) VALUES ($1, 1, $2, 1)", &[&id, &doc]).await.unwrap();
    }
    let old_item = json!({"sku": "TEA", "barcode": null, "name_en": "Tea", "name_ja": null, "price": 150, "currency": "jpy", "tax_class": "reduced", "active": true});
    c.execute("INSERT INTO catalog_items (store_id, sku, version, item, updated_ms) VALUES ($1, 'TEA', 2, $2, 1)", &[&tokyo, &old_item]).await.unwrap();

    old.upgrade().await.expect("migrates to V12");
    let zones: Vec<(uuid::Uuid, String)> = c.query("SELECT store_id, time_zone FROM stores", &[]).await.unwrap().iter().map(|r| (r.get(0), r.get(1))).collect();
    assert!(zones.contains(&(tokyo, "Asia/Tokyo".into())) && zones.contains(&(ny, "UTC".into())), "{zones:?}");
    let doc: Value = c.query_one("SELECT item FROM catalog_items", &[]).await.unwrap().get(0);
    let item: Item = serde_json::from_value(doc).unwrap();
    assert_eq!((item.price_kind, item.unit, item.category), (PriceKind::Fixed, SaleUnit::Piece, None));
    // The CHECKs refuse a shape no register knows, written by any path.
    let bad = json!({"sku": "X", "name_en": "X", "price": 1, "currency": "jpy", "tax_class": "reduced", "active": true, "unit": "pound"});
    let e = c.execute("INSERT INTO catalog_items (store_id, sku, version, item, updated_ms) VALUES ($1, 'X', 3, $2, 1)", &[&tokyo, &bad]).await.unwrap_err();
    assert_eq!(e.code(), Some(&tokio_postgres::error::SqlState::CHECK_VIOLATION), "{e}");
    let e = c.execute("UPDATE stores SET time_zone = '' WHERE store_id = $1", &[&ny]).await.unwrap_err();
    assert_eq!(e.code(), Some(&tokio_postgres::error::SqlState::CHECK_VIOLATION), "{e}");
}
