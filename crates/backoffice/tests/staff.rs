//! Staff the owner publishes for a store's registers (record 0050): the PIN is hashed
//! at once (Argon2id) and never stored, returned or sent in clear; members take numbers
//! of the store's sequence like items; bad publishes are clear 4xx that change nothing.
use crate::support;
use paydesk_backoffice::client::ClientError;
use paydesk_sync_proto::{Change, Changes};
use serde_json::{json, Value};
use support::*;

fn refused(e: ClientError) -> (u16, String) {
    match e {
        ClientError::Refused(r) => (r.status, r.body["error"]["message"].as_str().unwrap_or("").to_string()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

#[tokio::test]
async fn staff_are_published_with_a_hashed_pin_and_pulled_in_order() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Shibuya").await;
    let path = format!("/admin/stores/{store}/staff");
    let put = |body: Value| {
        let (owner, path) = (h.owner.clone(), path.clone());
        async move { owner.put(&path, &body).await }
    };
    let r = put(json!({"staff": [
        {"name": "Olivia", "role": "owner", "active": true, "pin": "1111"},
        {"name": "Casey", "role": "cashier", "active": true, "pin": "3333"}]})).await.unwrap();
    assert_eq!((r["version"].as_i64(), r["changed"].as_i64()), (Some(2), Some(2)));

    // Stored as an Argon2id hash; the PIN appears nowhere in the database.
    let db = h.db().await;
    let hashes: Vec<String> = db.query("SELECT pin_hash FROM store_staff ORDER BY name", &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    assert!(hashes.iter().all(|h| h.starts_with("$argon2id$")), "{hashes:?}");
    assert!(paydesk_access::verify_pin(&paydesk_access::Pin::parse("3333").unwrap(), &hashes[0]).unwrap(), "Casey's hash verifies her PIN");
    let clear: i64 = db.query_one("SELECT count(*) FROM store_staff WHERE pin_hash LIKE '%3333%' OR pin_hash LIKE '%1111%'", &[]).await.unwrap().get(0);
    assert_eq!(clear, 0);
    // The owner reads names and roles back, never a hash.
    let read = h.owner.get(&path).await.unwrap();
    assert_eq!(read["staff"].as_array().unwrap().len(), 2);
    assert!(!read.to_string().contains("argon2"), "{read}");

    // A role change without a PIN keeps the hash and takes one number; the same again takes none.
    let r = put(json!({"staff": [{"name": "Casey", "role": "manager", "active": true}]})).await.unwrap();
    assert_eq!((r["version"].as_i64(), r["changed"].as_i64()), (Some(3), Some(1)));
    let r = put(json!({"staff": [{"name": "Casey", "role": "manager", "active": true}]})).await.unwrap();
    assert_eq!((r["version"].as_i64(), r["changed"].as_i64()), (Some(3), Some(0)));
    let kept: String = db.query_one("SELECT pin_hash FROM store_staff WHERE name = 'Casey'", &[]).await.unwrap().get(0);
    assert_eq!(kept, hashes[0]);

    let c: Changes = serde_json::from_value(reg.get("/v1/sync/changes", &[("since", "0"), ("kinds", "settings,item,tax,staff")]).await.unwrap()).unwrap();
    c.validate().unwrap();
    let seen: Vec<(u64, &str, &str)> = c
        .changes
        .iter()
        .map(|ch| match ch {
            Change::Staff { version, member } => (*version, member.name.as_str(), member.role.as_str()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(seen, vec![(1, "Olivia", "owner"), (3, "Casey", "manager")]);
    // A register that does not name staff is not sent any.
    let old: Changes = serde_json::from_value(reg.get("/v1/sync/changes", &[("since", "0"), ("kinds", "settings,item,tax")]).await.unwrap()).unwrap();
    assert!(old.changes.is_empty() && old.version == 3, "{old:?}");
}

#[tokio::test]
async fn bad_staff_publishes_are_refused_whole_and_take_no_number() {
    let h = Harness::start().await;
    let (store, _reg) = h.store_with_register("Main").await;
    let path = format!("/admin/stores/{store}/staff");
    let put = |body: Value| {
        let (owner, path) = (h.owner.clone(), path.clone());
        async move { owner.put(&path, &body).await }
    };
    let version = || async { h.count("SELECT published_version FROM stores").await };

    let (s, m) = refused(put(json!({"staff": [{"name": "Casey", "role": "cashier", "active": true, "pin": "3333"}]})).await.unwrap_err());
    assert!(s == 409 && m.contains("no active owner"), "{s} {m}");
    let (s, m) = refused(put(json!({"staff": [{"name": "Olivia", "role": "owner", "active": true}]})).await.unwrap_err());
    assert!(s == 400 && m.contains("give a pin"), "{s} {m}");
    let (s, m) = refused(put(json!({"staff": [{"name": "Olivia", "role": "owner", "active": true, "pin": "12"}]})).await.unwrap_err());
    assert!(s == 400 && m.contains("4 to 8 digits"), "{s} {m}");
    let (s, m) = refused(put(json!({"staff": [{"name": " Olivia", "role": "owner", "active": true, "pin": "1111"}]})).await.unwrap_err());
    assert!(s == 400 && m.contains("space"), "{s} {m}");
    let (s, m) = refused(put(json!({"staff": [{"name": "Olivia", "role": "boss", "active": true, "pin": "1111"}]})).await.unwrap_err());
    assert!(s == 400 && m.contains("boss"), "{s} {m}");
    let (s, m) = refused(put(json!({"staff": [
        {"name": "Olivia", "role": "owner", "active": true, "pin": "1111"},
        {"name": "Olivia", "role": "cashier", "active": true, "pin": "2222"}]})).await.unwrap_err());
    assert!(s == 400 && m.contains("listed twice"), "{s} {m}");
    assert_eq!(version().await, 0);
    assert_eq!(h.count("SELECT count(*) FROM store_staff").await, 0);

    put(json!({"staff": [{"name": "Olivia", "role": "owner", "active": true, "pin": "1111"}]})).await.unwrap();
    // Retiring the last owner is refused; a second owner first, then it is fine.
    let (s, m) = refused(put(json!({"staff": [{"name": "Olivia", "role": "owner", "active": false}]})).await.unwrap_err());
    assert!(s == 409 && m.contains("no active owner"), "{s} {m}");
    put(json!({"staff": [{"name": "Marcus", "role": "owner", "active": true, "pin": "2222"}, {"name": "Olivia", "role": "owner", "active": false}]})).await.unwrap();
    assert_eq!(version().await, 3);
}
