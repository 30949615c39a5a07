//! Pairing, tokens and the settings registers pull down: each register pairs once, its
//! token is stored only as a hash, and it sees its own store's settings and nothing else.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::Change;
use serde_json::json;
use sha2::{Digest, Sha256};
use support::*;

fn refused(e: ClientError) -> (u16, String) {
    match e {
        ClientError::Refused(r) => (r.status, r.code().to_string()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

#[tokio::test]
async fn a_pairing_code_pairs_one_register_once_and_the_token_is_stored_hashed() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let code = h.owner.pairing_code(&store, "Till 1").await.unwrap();
    assert_eq!(code.len(), 19, "{code}");
    // typed in lower case without dashes, as a person might
    let typed = code.replace('-', "").to_lowercase();
    let reg = RegisterClient::pair(&h.url, &typed, "0.1.0").await.unwrap();
    assert_eq!(reg.paired.store_id, store);
    assert_eq!(reg.paired.register_name, "Till 1");
    let again = RegisterClient::pair(&h.url, &code, "0.1.0").await.unwrap_err();
    assert_eq!(refused(again), (409, "conflict".into()));
    let unknown = RegisterClient::pair(&h.url, "AAAA-BBBB-CCCC-DDDD", "0.1.0").await.unwrap_err();
    assert_eq!(refused(unknown), (403, "forbidden".into()));
    assert_eq!(h.count("SELECT count(*) FROM registers").await, 1);

    let secret = reg.paired.token.rsplit('.').next().unwrap();
    let db = h.db().await;
    let stored: Vec<u8> = db.query_one("SELECT token_hash FROM registers", &[]).await.unwrap().get(0);
    assert_eq!(stored, Sha256::digest(secret.as_bytes()).to_vec());
    let as_text: i64 = db.query_one("SELECT count(*) FROM registers WHERE position($1::text::bytea in token_hash) > 0", &[&secret]).await.unwrap().get(0);
    assert_eq!(as_text, 0, "the token itself is never stored");
    let code_rows: i64 = db.query_one("SELECT count(*) FROM pairing_codes WHERE position($1::text::bytea in code_hash) > 0", &[&code.replace('-', "")]).await.unwrap().get(0);
    assert_eq!(code_rows, 0, "the pairing code is never stored");

    // a token with the right ids and a wrong secret, or malformed, is 401
    let mut forged = reg.clone();
    forged.paired.token = format!("{}{}", &reg.paired.token[..reg.paired.token.len() - 4], "0000");
    assert_eq!(refused(forged.changes(0).await.unwrap_err()), (401, "unauthenticated".into()));
    forged.paired.token = "pdr.not-a-token".into();
    assert_eq!(refused(forged.changes(0).await.unwrap_err()), (401, "unauthenticated".into()));
}

#[tokio::test]
async fn registers_pull_their_own_stores_settings_by_version() {
    let h = Harness::start().await;
    let (store_a, reg_a) = h.store_with_register("Store A").await;
    let (store_b, reg_b) = h.store_with_register("Store B").await;
    // nothing published yet: version 0, no changes
    let c = reg_a.changes(0).await.unwrap();
    assert_eq!((c.version, c.changes.len()), (0, 0));

    let settings = |name: &str, footer: &str| json!({"store_name": name, "currency": "usd", "receipt_footer": footer, "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store_a}/settings"), &json!({"expected_version": 0, "settings": settings("Store A", "Thanks")})).await.unwrap();
    h.owner.put(&format!("/admin/stores/{store_b}/settings"), &json!({"expected_version": 0, "settings": settings("Store B", "Bye")})).await.unwrap();
    let v2 = h.owner.put(&format!("/admin/stores/{store_a}/settings"), &json!({"expected_version": 1, "settings": settings("Store A", "Thanks again")})).await.unwrap();
    assert_eq!(v2["version"], 2);
    // a stale edit is refused and changes nothing
    let stale = h.owner.put(&format!("/admin/stores/{store_a}/settings"), &json!({"expected_version": 1, "settings": settings("Store A", "lost")})).await.unwrap_err();
    assert_eq!(refused(stale), (409, "conflict".into()));
    let bad = h.owner.put(&format!("/admin/stores/{store_a}/settings"), &json!({"expected_version": 2, "settings": {"store_name": "A", "currency": "US", "receipt_footer": "", "offline_max_payment": 1, "offline_max_total": 1}})).await.unwrap_err();
    assert_eq!(refused(bad), (400, "bad_field".into()));

    let c = reg_a.changes(0).await.unwrap();
    assert_eq!(c.version, 2);
    match &c.changes[..] {
        [Change::Settings { version: 2, settings }] => assert_eq!(settings.receipt_footer, "Thanks again"),
        other => panic!("{other:?}"),
    }
    // up to date: nothing to apply
    assert!(reg_a.changes(2).await.unwrap().changes.is_empty());
    // the other store's register sees its own store only
    match &reg_b.changes(0).await.unwrap().changes[..] {
        [Change::Settings { version: 1, settings }] => assert_eq!(settings.store_name, "Store B"),
        other => panic!("{other:?}"),
    }
    // a bad `since` is a clear 400
    let r = reqwest::Client::new().get(format!("{}/v1/sync/changes?since=-1", h.url)).bearer_auth(&reg_a.paired.token).send().await.unwrap();
    assert_eq!(r.status(), 400);
    // the owner's API wants the owner's token
    let r = reqwest::Client::new().post(format!("{}/admin/stores", h.url)).bearer_auth(&reg_a.paired.token).json(&json!({"name": "x"})).send().await.unwrap();
    assert_eq!(r.status(), 401);
}
