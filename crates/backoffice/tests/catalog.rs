//! The catalog and tax setup the owner publishes and registers pull (record 0049):
//! every change has its own number of the store's one sequence, pages cut between
//! numbers, a register that names no kinds gets settings only, and bad publishes are
//! clear 4xx that change nothing.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::{Change, Changes};
use serde_json::{json, Value};
use support::*;

fn refused(e: ClientError) -> (u16, String, String) {
    match e {
        ClientError::Refused(r) => (r.status, r.code().to_string(), r.body["error"]["message"].as_str().unwrap_or("").to_string()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

fn item(sku: &str, price: i64, barcode: Option<&str>) -> Value {
    json!({"sku": sku, "barcode": barcode, "name_en": format!("Item {sku}"), "price": price, "currency": "jpy", "tax_class": "reduced", "active": true})
}

fn tax(rounding: &str) -> Value {
    json!({"price_mode": "inclusive", "rounding": rounding, "registration_number": "T7000012050002", "rates": [
        {"class": "standard", "ppm": 100000, "effective_from": "2019-10-01"},
        {"class": "reduced", "ppm": 80000, "effective_from": "2019-10-01"},
        {"class": "exempt", "ppm": 0}]})
}

async fn pull(reg: &RegisterClient, since: u64, kinds: Option<&str>) -> Changes {
    let since = since.to_string();
    let mut q = vec![("since", since.as_str())];
    if let Some(k) = kinds {
        q.push(("kinds", k));
    }
    let c: Changes = serde_json::from_value(reg.get("/v1/sync/changes", &q).await.unwrap()).unwrap();
    c.validate().unwrap();
    c
}

const ALL: Option<&str> = Some("settings,item,tax,staff");

#[tokio::test]
async fn items_and_tax_take_the_stores_sequence_and_registers_pull_them_in_order() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Shibuya").await;
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    assert_eq!(h.owner.put(&path("settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap()["version"], 1);
    let r = h.owner.put(&path("catalog"), &json!({"items": [item("TEA", 150, Some("4901234567894")), item("RICE", 300, None)]})).await.unwrap();
    assert_eq!((r["version"].as_i64(), r["changed"].as_i64()), (Some(3), Some(2)));
    assert_eq!(h.owner.put(&path("tax"), &json!({"expected_version": 0, "tax": tax("down")})).await.unwrap()["version"], 4);
    // The same items again: nothing changes, no number is taken.
    let same = h.owner.put(&path("catalog"), &json!({"items": [item("RICE", 300, None)]})).await.unwrap();
    assert_eq!((same["version"].as_i64(), same["changed"].as_i64(), same["unchanged"].as_i64()), (Some(4), Some(0), Some(1)));

    let c = pull(&reg, 0, ALL).await;
    assert_eq!((c.version, c.more), (4, false));
    let versions: Vec<(u64, &str)> = c.changes.iter().map(|c| (c.version(), c.kind().as_str())).collect();
    assert_eq!(versions, vec![(1, "settings"), (2, "item"), (3, "item"), (4, "tax")]);
    // From the middle: what came after only.
    let c = pull(&reg, 2, ALL).await;
    assert_eq!(c.changes.iter().map(Change::version).collect::<Vec<_>>(), vec![3, 4]);
    // A register that names no kinds predates the catalog: settings only, and the
    // version it keeps still moves on.
    let old = reg.changes(0).await.unwrap();
    assert_eq!((old.version, old.changes.len()), (4, 1));
    assert!(matches!(old.changes[0], Change::Settings { version: 1, .. }));
    // A price change is one new number; the item's old one is gone from the list.
    h.owner.put(&path("catalog"), &json!({"items": [item("TEA", 160, Some("4901234567894"))]})).await.unwrap();
    let c = pull(&reg, 4, ALL).await;
    match &c.changes[..] {
        [Change::Item { version: 5, item }] => assert_eq!((item.sku.as_str(), item.price), ("TEA", 160)),
        other => panic!("{other:?}"),
    }
    assert_eq!(pull(&reg, 0, ALL).await.changes.iter().map(Change::version).collect::<Vec<_>>(), vec![1, 3, 4, 5]);
    // The owner reads the catalog back.
    let read = h.owner.get(&path("catalog")).await.unwrap();
    assert_eq!((read["version"].as_i64(), read["items"].as_array().map(Vec::len)), (Some(5), Some(2)));
    // An unknown kind is a clear 400.
    let e = reg.get("/v1/sync/changes", &[("since", "0"), ("kinds", "settings,shifts")]).await.unwrap_err();
    let (status, code, message) = refused(e);
    assert_eq!((status, code.as_str()), (400, "bad_field"), "{message}");
    assert!(message.contains("shifts"), "{message}");
}

#[tokio::test]
async fn a_large_catalog_comes_down_in_pages_cut_between_versions() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Big").await;
    let path = format!("/admin/stores/{store}/catalog");
    for chunk in 0..3 {
        let items: Vec<Value> = (0..500).map(|i| item(&format!("SKU-{:05}", chunk * 500 + i), 100 + i, None)).collect();
        h.owner.put(&path, &json!({"items": items})).await.unwrap();
    }
    h.owner.put(&format!("/admin/stores/{store}/tax"), &json!({"expected_version": 0, "tax": tax("half_up")})).await.unwrap();
    let mut since = 0;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let c = pull(&reg, since, ALL).await;
        pages += 1;
        assert!(c.changes.len() <= 502);
        seen.extend(c.changes.iter().map(|c| (c.version(), c.kind().as_str())));
        since = c.version;
        if !c.more {
            break;
        }
    }
    assert_eq!(pages, 3, "500 items a page; the tax document (numbered last) with the last page");
    assert_eq!(seen.len(), 1501);
    assert!(seen.windows(2).all(|w| w[0].0 + 1 == w[1].0), "every number once, in order");
    assert_eq!(seen.last(), Some(&(1501, "tax")));
}

#[tokio::test]
async fn bad_publishes_are_refused_whole_and_change_nothing() {
    let h = Harness::start().await;
    let (store, _reg) = h.store_with_register("Main").await;
    let settings = json!({"store_name": "Main", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    let put = |body: Value| {
        let owner = h.owner.clone();
        let path = format!("/admin/stores/{store}/catalog");
        async move { refused(owner.put(&path, &body).await.unwrap_err()) }
    };
    h.owner.put(&format!("/admin/stores/{store}/catalog"), &json!({"items": [item("TEA", 150, Some("4901234567894"))]})).await.unwrap();
    let before = h.count("SELECT published_version FROM stores").await;

    let (s, _, m) = put(json!({"items": [item("A", 1, None), item("A", 2, None)]})).await;
    assert_eq!(s, 400);
    assert!(m.contains("listed twice"), "{m}");
    let (s, _, m) = put(json!({"items": [{"sku": "B", "name_en": "b", "price": 1, "currency": "usd", "tax_class": "reduced", "active": true}]})).await;
    assert!(s == 400 && m.contains("sells in jpy"), "{s} {m}");
    let (s, _, m) = put(json!({"items": [item("C", 1, Some("4901234567894"))]})).await;
    assert!(s == 400 && m.contains("\"TEA\""), "another SKU's barcode: {s} {m}");
    let (s, code, m) = put(json!({"items": [item("D", 1, Some("4901234567890"))]})).await;
    assert!(s == 400 && code == "bad_field" && m.contains("check digit"), "{s} {code} {m}");
    let (s, _, m) = put(json!({"items": []})).await;
    assert!(s == 400 && m.contains("1 to 500"), "{s} {m}");
    let (s, _, m) = put(json!({"items": [item("E", 1, None)], "extra": 1})).await;
    assert!(s == 400 && m.contains("extra"), "{s} {m}");
    // Moving a barcode between two SKUs in one publish is fine.
    h.owner.put(&format!("/admin/stores/{store}/catalog"), &json!({"items": [item("TEA", 150, None), item("TEA2", 150, Some("4901234567894"))]})).await.unwrap();
    assert_eq!(h.count("SELECT published_version FROM stores").await, before + 2);
    // One barcode rule (record 0115): a UPC-A and its EAN-13 are one barcode, stored as 13
    // digits, so another SKU cannot take it in the other form.
    h.owner.put(&format!("/admin/stores/{store}/catalog"), &json!({"items": [item("UPC", 1, Some("036000291452"))]})).await.unwrap();
    assert_eq!(h.count("SELECT count(*) FROM catalog_items WHERE item->>'barcode' = '0036000291452'").await, 1);
    let (s, _, m) = put(json!({"items": [item("EAN", 1, Some("0036000291452"))]})).await;
    assert!(s == 400 && m.contains("\"UPC\""), "the EAN-13 of another SKU's UPC-A: {s} {m}");

    // Tax: a stale edit and a bad table are refused; neither takes a number.
    let tax_path = format!("/admin/stores/{store}/tax");
    h.owner.put(&tax_path, &json!({"expected_version": 0, "tax": tax("down")})).await.unwrap();
    let now = h.count("SELECT published_version FROM stores").await;
    let (s, code, _) = refused(h.owner.put(&tax_path, &json!({"expected_version": 0, "tax": tax("up")})).await.unwrap_err());
    assert_eq!((s, code.as_str()), (409, "conflict"));
    let mut no_exempt = tax("up");
    no_exempt["rates"].as_array_mut().unwrap().pop();
    let (s, _, m) = refused(h.owner.put(&tax_path, &json!({"expected_version": now, "tax": no_exempt})).await.unwrap_err());
    assert!(s == 400 && m.contains("exempt"), "{s} {m}");
    assert_eq!(h.count("SELECT published_version FROM stores").await, now);
    // The settings' currency cannot move away from the catalog's.
    let usd = json!({"store_name": "Main", "currency": "usd", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    let (s, _, m) = refused(h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 1, "settings": usd})).await.unwrap_err());
    assert!(s == 409 && m.contains("priced in jpy"), "{s} {m}");
    // Another store's id is not found; the owner's token is needed.
    let (s, _, _) = refused(h.owner.put("/admin/stores/00000000-0000-0000-0000-000000000000/catalog", &json!({"items": [item("A", 1, None)]})).await.unwrap_err());
    assert_eq!(s, 404);
    let r = reqwest::Client::new().get(format!("{}/admin/stores/{store}/catalog", h.url)).send().await.unwrap();
    assert_eq!(r.status(), 401);
}
