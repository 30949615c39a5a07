//! The owner's publishing (record 0147) against the real PostgreSQL cluster over HTTP: a
//! catalog CSV read into items with every refusal naming its row and column, a preview that
//! writes nothing and shows exactly what the publish then writes, a publish in between that
//! makes a preview stale (409 `stale_preview`, nothing written), a PIN never echoed, what
//! each register has applied, and a register receiving exactly the published change
//! through `/v1/sync/changes`.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::{Change, Changes};
use serde_json::{json, Value};
use support::*;
use crate::upgrades::Older;

fn refused(e: ClientError) -> (u16, String, Value) {
    match e {
        ClientError::Refused(r) => (r.status, r.code().to_string(), r.body["error"].clone()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

const ALL: &str = "settings,item,tax,staff";

async fn pull(reg: &RegisterClient, since: u64, kinds: &str) -> Changes {
    let since = since.to_string();
    let c: Changes = serde_json::from_value(reg.get("/v1/sync/changes", &[("since", since.as_str()), ("kinds", kinds)]).await.unwrap()).unwrap();
    c.validate().unwrap();
    c
}

async fn store_in_yen(h: &Harness) -> (String, RegisterClient) {
    let (store, reg) = h.store_with_register("Shibuya").await;
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    (store, reg)
}

/// Every row the publishes write, as text: what "nothing written" compares.
async fn published(h: &Harness) -> String {
    let db = h.db().await;
    let mut out = String::new();
    for sql in [
        "SELECT store_id::text || ':' || published_version FROM stores ORDER BY 1",
        "SELECT sku || ':' || version || ':' || item::text FROM catalog_items ORDER BY 1",
        "SELECT name || ':' || version || ':' || role || ':' || active || ':' || pin_hash FROM store_staff ORDER BY 1",
        "SELECT version || ':' || tax::text FROM store_tax ORDER BY 1",
    ] {
        for r in db.query(sql, &[]).await.unwrap() {
            out.push_str(&r.get::<_, String>(0));
            out.push('\n');
        }
    }
    out
}

#[tokio::test]
async fn a_catalog_csv_is_read_into_items_and_each_bad_cell_is_refused_naming_its_row_and_column() {
    let h = Harness::start().await;
    let (store, _reg) = store_in_yen(&h).await;
    let path = format!("/admin/stores/{store}/catalog/csv");
    let read = |csv: String| {
        let (h, path) = (&h, &path);
        async move { h.owner.post(path, &json!({"csv": csv})).await }
    };
    // Quoted cells keep their commas and doubled quotes; a CRLF file reads the same; a
    // column left out (category) stays out, so the publish keeps the stored one.
    let ok = read("sku,name_en,price,tax_class,barcode\r\nTEA,\"Tea, green \"\"sencha\"\"\",150,reduced,\r\nMUG,Mug,1650,standard,4901234567894\r\n".into()).await.unwrap();
    assert_eq!(
        ok["items"],
        json!([
            {"sku": "TEA", "name_en": "Tea, green \"sencha\"", "price": 150, "tax_class": "reduced", "barcode": null, "currency": "jpy", "active": true},
            {"sku": "MUG", "name_en": "Mug", "price": 1650, "tax_class": "standard", "barcode": "4901234567894", "currency": "jpy", "active": true},
        ])
    );
    let long = "x".repeat(121);
    let cases: Vec<(String, Option<i64>, Option<&str>, &str)> = vec![
        ("sku,name_en,price\nA,A,1\n".into(), Some(1), Some("tax_class"), "no tax_class column"),
        ("sku,name_en,price,tax_class,colour\nA,A,1,reduced,red\n".into(), Some(1), Some("colour"), "not an item field"),
        ("sku,name_en,price,tax_class\nA,A,1,reduced\nB,B,1.50,reduced\n".into(), Some(3), Some("price"), "whole number"),
        ("sku,name_en,price,tax_class\nA,A,-5,reduced\n".into(), Some(2), Some("price"), "between 0"),
        ("sku,name_en,price,tax_class\nA,A,1,luxury\n".into(), Some(2), Some("tax_class"), "one of standard"),
        ("sku,name_en,price,tax_class\nA,A,1,reduced\nB,,1,reduced\n".into(), Some(3), Some("name_en"), "is empty"),
        (format!("sku,name_en,price,tax_class\nA,{long},1,reduced\n"), Some(2), Some("name_en"), "at most 120"),
        ("sku,name_en,price,tax_class,barcode\nA,A,1,reduced,4901234567890\n".into(), Some(2), Some("barcode"), "check digit"),
        ("sku,name_en,price,tax_class,price_kind\nA,A,100,reduced,open\n".into(), Some(2), Some("price"), "open-price"),
        ("sku,name_en,price,tax_class\nA,A,1,reduced\nA,Again,2,reduced\n".into(), Some(3), Some("sku"), "already on row 2"),
        ("sku,name_en,price,tax_class\nA,A,1,reduced\nB,B,1\n".into(), Some(3), None, "3 cells; the header has 4"),
        ("sku,name_en,price,tax_class\nA,\"A,1,reduced\n".into(), Some(2), None, "never closed"),
        ("sku,name_en,price,tax_class\n".into(), None, None, "no items"),
        (format!("sku,name_en,price,tax_class\n{}", "A,A,1,reduced\n".repeat(501)), None, None, "at most 500"),
        (format!("sku,name_en,price,tax_class\nA,A,1,reduced,{}\n", "y".repeat(300_000)), None, None, "bytes; at most"),
        (format!("sku,name_en,price,tax_class\nA,{},1,reduced\n", "z".repeat(201)), Some(2), Some("name_en"), "at most 200"),
    ];
    for (csv, row, column, says) in cases {
        let (status, code, err) = refused(read(csv.clone()).await.unwrap_err());
        let m = err["message"].as_str().unwrap_or("");
        assert_eq!((status, code.as_str()), (400, "bad_csv"), "{m}");
        assert_eq!((err["row"].as_i64(), err["column"].as_str()), (row, column), "{m}");
        assert!(m.contains(says), "{m:?} should say {says:?}");
    }
}

#[tokio::test]
async fn a_preview_writes_nothing_and_the_publish_writes_exactly_what_it_showed_which_a_register_then_receives() {
    let h = Harness::start().await;
    let (store, reg) = store_in_yen(&h).await;
    let item = |sku: &str, price: i64, active: bool| json!({"sku": sku, "name_en": format!("Item {sku}"), "price": price, "currency": "jpy", "tax_class": "reduced", "active": active, "category": "tea"});
    let base = h.owner.put(&format!("/admin/stores/{store}/catalog"), &json!({"items": [item("TEA", 150, true), item("OLD", 90, true), item("SAME", 10, true)]})).await.unwrap();
    let before_version = base["version"].as_u64().unwrap();
    // The register has applied everything so far.
    assert_eq!(pull(&reg, 0, ALL).await.version, before_version);

    let csv = "sku,name_en,price,tax_class,active\nTEA,Item TEA,160,reduced,true\nOLD,Item OLD,90,reduced,false\nNEW,Item NEW,300,standard,true\nSAME,Item SAME,10,reduced,true\n";
    let items = h.owner.post(&format!("/admin/stores/{store}/catalog/csv"), &json!({"csv": csv})).await.unwrap()["items"].clone();
    let before = published(&h).await;
    let p = h.owner.post(&format!("/admin/stores/{store}/catalog/preview"), &json!({"items": items})).await.unwrap();
    assert_eq!(published(&h).await, before, "a preview writes nothing");
    assert_eq!(p["based_on"].as_u64(), Some(before_version));
    assert_eq!((p["versions"].as_u64(), p["unchanged"].as_u64()), (Some(3), Some(1)));
    assert_eq!(p["changed"], json!([{"key": "TEA", "fields": [{"field": "price", "old": 150, "new": 160}]}]));
    assert_eq!(p["removed"], json!([{"key": "OLD", "fields": [{"field": "active", "old": true, "new": false}]}]));
    let added = &p["added"][0];
    assert_eq!(added["key"], "NEW");
    // a column the CSV leaves out (category) is the stored item's for a known SKU, none for a new one
    let fields: Vec<(String, Value, Value)> = added["fields"].as_array().unwrap().iter().map(|f| (f["field"].as_str().unwrap().to_string(), f["old"].clone(), f["new"].clone())).collect();
    assert!(fields.contains(&("price".into(), Value::Null, json!(300))) && fields.contains(&("tax_class".into(), Value::Null, json!("standard"))), "{fields:?}");
    assert!(!fields.iter().any(|f| f.0 == "category"), "{fields:?}");
    let regs = p["registers"].as_array().unwrap();
    assert_eq!(regs.len(), 1);
    assert_eq!(regs[0]["name"], "Shibuya register");
    assert_eq!(regs[0]["applied"]["state"], "through");
    assert_eq!(regs[0]["applied"]["through"].as_u64(), Some(0), "it last asked from 0");
    pull(&reg, before_version, ALL).await;
    let p2 = h.owner.post(&format!("/admin/stores/{store}/catalog/preview"), &json!({"items": items})).await.unwrap();
    assert_eq!(p2["registers"][0]["applied"]["through"].as_u64(), Some(before_version), "what it said it has applied");

    // The publish, with the version the preview saw, writes exactly the preview's changes.
    let r = h.owner.put(&format!("/admin/stores/{store}/catalog"), &json!({"items": items, "preview_version": p["based_on"]})).await.unwrap();
    assert_eq!((r["changed"].as_u64(), r["unchanged"].as_u64()), (Some(3), Some(1)));
    let read = h.owner.get(&format!("/admin/stores/{store}/catalog")).await.unwrap();
    let now: Vec<(String, i64, bool, Option<String>)> = read["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["item"]["sku"].as_str().unwrap().into(), i["item"]["price"].as_i64().unwrap(), i["item"]["active"].as_bool().unwrap(), i["item"]["category"].as_str().map(String::from)))
        .collect();
    assert_eq!(
        now,
        vec![("NEW".into(), 300, true, None), ("OLD".into(), 90, false, Some("tea".into())), ("SAME".into(), 10, true, Some("tea".into())), ("TEA".into(), 160, true, Some("tea".into()))]
    );
    // The same body previewed again shows nothing left to publish.
    let again = h.owner.post(&format!("/admin/stores/{store}/catalog/preview"), &json!({"items": items})).await.unwrap();
    assert_eq!((again["versions"].as_u64(), again["unchanged"].as_u64(), again["added"].as_array().map(Vec::len)), (Some(0), Some(4), Some(0)));

    // The register receives exactly the three published changes, nothing else.
    let c = pull(&reg, before_version, ALL).await;
    let got: Vec<(String, i64, bool)> = c
        .changes
        .iter()
        .map(|ch| match ch {
            Change::Item { item, .. } => (item.sku.clone(), item.price, item.active),
            other => panic!("only items were published: {other:?}"),
        })
        .collect();
    let mut got = got;
    got.sort();
    assert_eq!(got, vec![("NEW".into(), 300, true), ("OLD".into(), 90, false), ("TEA".into(), 160, true)]);
    assert_eq!(c.version, r["version"].as_u64().unwrap());
}

#[tokio::test]
async fn a_publish_in_between_makes_a_preview_stale_and_nothing_is_written() {
    let h = Harness::start().await;
    let (store, _reg) = store_in_yen(&h).await;
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    let item = |price: i64| json!({"sku": "TEA", "name_en": "Tea", "price": price, "currency": "jpy", "tax_class": "reduced", "active": true});
    let owner = json!({"name": "Aiko", "role": "owner", "active": true, "pin": "4821"});
    h.owner.put(&path("staff"), &json!({"staff": [owner]})).await.unwrap();

    // Catalog: previewed at 160; someone publishes 170; the 160 publish is refused.
    let p = h.owner.post(&path("catalog/preview"), &json!({"items": [item(160)]})).await.unwrap();
    // a staff publish in between changes another section: the catalog preview still holds
    h.owner.put(&path("staff"), &json!({"staff": [{"name": "Ben", "role": "cashier", "active": true, "pin": "1357"}]})).await.unwrap();
    h.owner.put(&path("catalog"), &json!({"items": [item(170)]})).await.unwrap();
    let before = published(&h).await;
    let (status, code, err) = refused(h.owner.put(&path("catalog"), &json!({"items": [item(160)], "preview_version": p["based_on"]})).await.unwrap_err());
    assert_eq!((status, code.as_str()), (409, "stale_preview"), "{err}");
    assert_eq!((err["previewed"].as_u64(), err["current"].as_u64()), (p["based_on"].as_u64(), Some(4)));
    assert_eq!(published(&h).await, before, "a stale publish writes nothing and takes no number");
    // previewed again, it shows 170 → 160 and publishes
    let p = h.owner.post(&path("catalog/preview"), &json!({"items": [item(160)]})).await.unwrap();
    assert_eq!(p["changed"][0]["fields"], json!([{"field": "price", "old": 170, "new": 160}]));
    h.owner.put(&path("catalog"), &json!({"items": [item(160)], "preview_version": p["based_on"]})).await.unwrap();

    // Staff: the same guard.
    let ben = json!({"name": "Ben", "role": "manager", "active": true});
    let p = h.owner.post(&path("staff/preview"), &json!({"staff": [ben]})).await.unwrap();
    h.owner.put(&path("staff"), &json!({"staff": [{"name": "Ben", "role": "cashier", "active": false}]})).await.unwrap();
    let before = published(&h).await;
    let (status, code, _) = refused(h.owner.put(&path("staff"), &json!({"staff": [ben], "preview_version": p["based_on"]})).await.unwrap_err());
    assert_eq!((status, code.as_str()), (409, "stale_preview"));
    assert_eq!(published(&h).await, before);

    // Tax: the same guard, before the document's own expected version.
    let tax = |rounding: &str| json!({"price_mode": "inclusive", "rounding": rounding, "rates": [{"class": "standard", "ppm": 100000}, {"class": "reduced", "ppm": 80000}, {"class": "exempt", "ppm": 0}]});
    let p = h.owner.post(&path("tax/preview"), &json!({"tax": tax("down")})).await.unwrap();
    assert_eq!(p["based_on"].as_u64(), Some(0));
    h.owner.put(&path("tax"), &json!({"expected_version": 0, "tax": tax("up")})).await.unwrap();
    let before = published(&h).await;
    let (status, code, _) = refused(h.owner.put(&path("tax"), &json!({"expected_version": 0, "preview_version": 0, "tax": tax("down")})).await.unwrap_err());
    assert_eq!((status, code.as_str()), (409, "stale_preview"));
    assert_eq!(published(&h).await, before);
    let p = h.owner.post(&path("tax/preview"), &json!({"tax": tax("down")})).await.unwrap();
    assert_eq!(p["changed"], json!([{"key": "setup", "fields": [{"field": "rounding", "old": "up", "new": "down"}]}]));
    assert_eq!(p["unchanged"].as_u64(), Some(3));
}

#[tokio::test]
async fn a_staff_preview_never_echoes_the_pin_and_the_register_receives_its_hash_only() {
    let h = Harness::start().await;
    let (store, reg) = store_in_yen(&h).await;
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    let body = json!({"staff": [{"name": "Aiko", "role": "owner", "active": true, "pin": "482193"}]});
    let resp = reqwest::Client::new().post(format!("{}{}", h.url, path("staff/preview"))).bearer_auth(ADMIN_TOKEN).json(&body).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert!(!text.contains("482193"), "{text}");
    let p: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        p["added"],
        json!([{"key": "Aiko", "fields": [{"field": "role", "old": null, "new": "owner"}, {"field": "active", "old": null, "new": true}, {"field": "pin", "old": null, "new": "set"}]}])
    );
    assert_eq!(h.count("SELECT count(*) FROM store_staff").await, 0, "a preview writes nothing");
    // A new member without a PIN, and a store left without an active owner, are refused by the preview as by the publish.
    let (s, _, e) = refused(h.owner.post(&path("staff/preview"), &json!({"staff": [{"name": "Ben", "role": "owner", "active": true}]})).await.unwrap_err());
    assert!(s == 400 && e["message"].as_str().unwrap().contains("give a pin"), "{e}");
    let (s, _, _) = refused(h.owner.post(&path("staff/preview"), &json!({"staff": [{"name": "Ben", "role": "cashier", "active": true, "pin": "1234"}]})).await.unwrap_err());
    assert_eq!(s, 409, "no active owner");
    let mut publish = body.clone();
    publish["preview_version"] = p["based_on"].clone();
    h.owner.put(&path("staff"), &publish).await.unwrap();
    let c = pull(&reg, 1, ALL).await;
    match &c.changes[..] {
        [Change::Staff { member, .. }] => {
            assert_eq!(member.name, "Aiko");
            assert!(member.pin_hash.starts_with("$argon2id$") && !member.pin_hash.contains("482193"));
        }
        other => panic!("{other:?}"),
    }
    // The page's state lists the member without any PIN or hash.
    let state = reqwest::Client::new().get(format!("{}{}", h.url, path("publishing"))).bearer_auth(ADMIN_TOKEN).send().await.unwrap().text().await.unwrap();
    assert!(state.contains("\"Aiko\"") && !state.contains("argon2") && !state.contains("482193"), "{state}");
}

/// The page's list of staff changes (record 0147 addendum) stops at what one publish takes:
/// the page is told that number, and the preview and the publish refuse one member more
/// and a member listed twice (400 `bad_request`), writing nothing.
#[tokio::test]
async fn a_staff_publish_takes_at_most_the_limit_the_page_is_told_and_each_member_once() {
    let h = Harness::start().await;
    let (store, _reg) = store_in_yen(&h).await;
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    let state = h.owner.get(&path("publishing")).await.unwrap();
    let limit = state["limits"]["staff_per_publish"].as_u64().expect("the limit") as usize;
    assert_eq!(limit, paydesk_backoffice::admin::staff::MAX_STAFF_PER_PUBLISH);
    let member = |i: usize| json!({"name": format!("Member {i}"), "role": if i == 0 { "owner" } else { "cashier" }, "active": true, "pin": "2468"});
    let before = published(&h).await;
    let over: Vec<Value> = (0..=limit).map(member).collect();
    let twice = json!([member(0), member(1), member(1)]);
    for (staff, says) in [(json!(over), format!("send 1 to {limit} staff members at a time, not {}", limit + 1)), (twice, "staff member \"Member 1\" is listed twice".into())] {
        let (s, code, e) = refused(h.owner.post(&path("staff/preview"), &json!({"staff": staff})).await.unwrap_err());
        assert_eq!((s, code.as_str(), e["message"].as_str()), (400, "bad_request", Some(says.as_str())));
        let (s, code, e) = refused(h.owner.put(&path("staff"), &json!({"staff": staff, "preview_version": 1})).await.unwrap_err());
        assert_eq!((s, code.as_str(), e["message"].as_str()), (400, "bad_request", Some(says.as_str())));
    }
    assert_eq!(published(&h).await, before, "nothing written");
    // exactly the limit is one publish
    let full: Vec<Value> = (0..limit).map(member).collect();
    let p = h.owner.post(&path("staff/preview"), &json!({"staff": full})).await.unwrap();
    assert_eq!(p["added"].as_array().map(Vec::len), Some(limit));
    let put = h.owner.put(&path("staff"), &json!({"staff": full, "preview_version": p["based_on"]})).await.unwrap();
    assert_eq!(put["changed"].as_u64(), Some(limit as u64));
    assert_eq!(h.count("SELECT count(*) FROM store_staff").await, limit as i64);
}

#[tokio::test]
async fn the_preview_says_what_each_register_has_applied_and_never_more() {
    let h = Harness::start().await;
    let (store, reg) = store_in_yen(&h).await;
    let old = h.register_in(&store, "Old till").await;
    let _quiet = h.register_in(&store, "Quiet till").await;
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    let item = json!({"sku": "TEA", "name_en": "Tea", "price": 150, "currency": "jpy", "tax_class": "reduced", "active": true});
    h.owner.put(&path("catalog"), &json!({"items": [item.clone()]})).await.unwrap();
    pull(&reg, 2, ALL).await;
    // an old register names no kinds: settings only
    old.changes(2).await.unwrap();
    // a register ahead of the store (the back office restored from an older backup) is
    // answered from 0, and 0 is what is recorded
    let mut item2 = item.clone();
    item2["price"] = json!(160);
    let p = h.owner.post(&path("catalog/preview"), &json!({"items": [item2]})).await.unwrap();
    let by_name: Vec<(String, Value)> = p["registers"].as_array().unwrap().iter().map(|r| (r["name"].as_str().unwrap().into(), r["applied"].clone())).collect();
    assert_eq!(by_name[0].0, "Old till");
    assert_eq!(by_name[0].1["state"], "does_not_take");
    assert_eq!(by_name[1], ("Quiet till".into(), json!({"state": "not_asked"})));
    assert_eq!(by_name[2].0, "Shibuya register");
    assert_eq!((by_name[2].1["state"].as_str(), by_name[2].1["through"].as_u64()), (Some("through"), Some(2)));
    pull(&reg, 99, ALL).await;
    let p = h.owner.post(&path("catalog/preview"), &json!({"items": [item]})).await.unwrap();
    assert_eq!(p["registers"][2]["applied"]["through"].as_u64(), Some(0));
    // a replaced register is no longer one the publish reaches
    h.owner.post(&format!("/admin/stores/{store}/registers/{}/replace", old.paired.register_id), &json!({})).await.unwrap();
    let p = h.owner.post(&path("catalog/preview"), &json!({"items": [item]})).await.unwrap();
    assert_eq!(p["registers"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn v19_upgrades_a_v18_database_its_registers_not_yet_asked() {
    let old = Older::at(18).await;
    let c = &old.client;
    let (s, r) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    c.execute("INSERT INTO stores (store_id, name, created_ms) VALUES ($1, 'S', 1)", &[&s]).await.unwrap();
    c.execute("INSERT INTO registers (store_id, register_id, name, token_hash, paired_ms, acked_through) VALUES ($1, $2, 'R', '\\x00', 1, 7)", &[&s, &r]).await.unwrap();
    old.upgrade().await.expect("migrates to V19");
    let row = c.query_one("SELECT acked_through, changes_since, changes_kinds, changes_asked_ms FROM registers", &[]).await.unwrap();
    let got: (i64, Option<i64>, Option<String>, Option<i64>) = (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(got, (7, None, None, None));
    let e = c.execute("UPDATE registers SET changes_since = -1", &[]).await.unwrap_err();
    assert_eq!(e.code(), Some(&tokio_postgres::error::SqlState::CHECK_VIOLATION), "{e}");
}
