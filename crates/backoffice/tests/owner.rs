//! The owner's side under hostile clients (record 0038, 0043, 0050): an opaque session
//! with expiry and sign-out instead of the token in a cookie, `Secure` behind TLS,
//! throttled sign-in and pairing, the PSP URL checked by parsing as the register does,
//! and staff PIN hashes only to the store's own registers in service.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_backoffice::state::Limits;
use paydesk_backoffice::throttle::ThrottleLimits;
use reqwest::header::{COOKIE, RETRY_AFTER, SET_COOKIE};
use serde_json::json;
use std::time::Duration;
use support::*;

fn browser() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

async fn sign_in(h: &Harness, token: &str) -> reqwest::Response {
    browser().post(format!("{}/login", h.url)).form(&[("token", token)]).send().await.unwrap()
}

/// The `pd_session=<id>` pair of a Set-Cookie, and the whole header.
fn session_cookie(r: &reqwest::Response) -> (String, String) {
    let set = r.headers()[SET_COOKIE].to_str().unwrap().to_string();
    (set.split(';').next().unwrap().to_string(), set)
}

async fn dashboard_with(h: &Harness, cookie: &str) -> u16 {
    browser().get(format!("{}/admin/dashboard", h.url)).header(COOKIE, cookie).send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn signing_in_gives_an_opaque_session_that_expires_and_ends_at_sign_out() {
    let h = Harness::start().await;
    let r = sign_in(&h, ADMIN_TOKEN).await;
    assert_eq!(r.status(), 303);
    let (pair, set) = session_cookie(&r);
    let id = pair.strip_prefix("pd_session=").unwrap_or_else(|| panic!("{set}"));
    assert!(id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{set}");
    assert!(!set.contains(ADMIN_TOKEN), "the token never goes in a cookie: {set}");
    for attr in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"] {
        assert!(set.contains(attr), "{attr}: {set}");
    }
    assert!(!set.contains("Secure"), "plain http here: {set}");
    assert_eq!(dashboard_with(&h, &pair).await, 200);
    let page = browser().get(format!("{}/", h.url)).header(COOKIE, &pair).send().await.unwrap();
    assert_eq!(page.status(), 200);
    // the back office keeps only the id's hash
    let stored: Vec<u8> = h.db().await.query_one("SELECT id_hash FROM owner_sessions", &[]).await.unwrap().get(0);
    assert_ne!(stored, id.as_bytes());
    // the owner's token as a cookie, the old way, is no session
    assert_eq!(dashboard_with(&h, &format!("pd_admin={ADMIN_TOKEN}")).await, 401);
    assert_eq!(dashboard_with(&h, &format!("pd_session={ADMIN_TOKEN}")).await, 401);
    assert_eq!(dashboard_with(&h, &format!("pd_session={}", "0".repeat(64))).await, 401);

    // sign-out ends it at the back office, not only in this browser
    let out = browser().post(format!("{}/logout", h.url)).header(COOKIE, &pair).send().await.unwrap();
    assert_eq!(out.status(), 303);
    assert!(out.headers()[SET_COOKIE].to_str().unwrap().contains("Max-Age=0"));
    assert_eq!(dashboard_with(&h, &pair).await, 401);
    let page = browser().get(format!("{}/", h.url)).header(COOKIE, &pair).send().await.unwrap();
    assert_eq!((page.status().as_u16(), page.headers()["location"].to_str().unwrap()), (303, "/login"));

    // a session past its expiry is refused
    let (pair2, _) = session_cookie(&sign_in(&h, ADMIN_TOKEN).await);
    assert_eq!(dashboard_with(&h, &pair2).await, 200);
    h.db().await.execute("UPDATE owner_sessions SET expires_ms = 0", &[]).await.unwrap();
    assert_eq!(dashboard_with(&h, &pair2).await, 401);
}

#[tokio::test]
async fn behind_tls_the_session_cookie_is_secure() {
    let h = Harness::with_config(Limits::default(), true).await;
    let (_, set) = session_cookie(&sign_in(&h, ADMIN_TOKEN).await);
    assert!(set.contains("; Secure"), "{set}");
}

#[tokio::test]
async fn sign_in_and_pairing_attempts_are_throttled() {
    let tight = ThrottleLimits { per_source: 3, global: 100, window: Duration::from_secs(600), max_sources: 100 };
    let h = Harness::with_limits(Limits { sign_in: tight, pairing: tight, ..Limits::default() }).await;
    for _ in 0..3 {
        assert_eq!(sign_in(&h, "guess").await.status(), 401);
    }
    // past the budget even the right token waits, and is told how long
    let r = sign_in(&h, ADMIN_TOKEN).await;
    assert_eq!(r.status(), 429);
    let wait: u64 = r.headers()[RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!((1..=600).contains(&wait), "{wait}");
    assert!(r.text().await.unwrap().contains("Too many sign-in attempts"));

    let store = h.owner.create_store("Main St").await.unwrap();
    let code = h.owner.pairing_code(&store, "Till").await.unwrap();
    for guess in ["AAAA-AAAA-AAAA-AAAA", "BBBB-BBBB-BBBB-BBBB", "CCCC-CCCC-CCCC-CCCC"] {
        let e = RegisterClient::pair(&h.url, guess, "0.1.0").await.unwrap_err();
        assert!(matches!(&e, ClientError::Refused(r) if r.status == 403), "{e}");
    }
    match RegisterClient::pair(&h.url, &code, "0.1.0").await.unwrap_err() {
        ClientError::Refused(r) => assert_eq!((r.status, r.code()), (429, "throttled"), "{}", r.body),
        other => panic!("{other}"),
    }
    // nothing was paired by the throttled attempt: the code is still good later
    assert_eq!(h.count("SELECT count(*) FROM pairing_codes WHERE used_ms IS NULL").await, 1);
}

#[tokio::test]
async fn the_psp_url_is_checked_by_parsing_as_the_register_does() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let path = format!("/admin/stores/{store}/psp");
    let put = |url: &str| {
        let (owner, path, body) = (h.owner.clone(), path.clone(), json!({"api_base": url, "secret_key": "sk_test_1"}));
        async move { owner.put(&path, &body).await }
    };
    for bad in ["http://localhost.evil.example", "http://127.0.0.1@evil.example", "http://127.0.0.1.evil.example:80", "http://[::1]@evil.example", "ftp://127.0.0.1", "https://psp.example.com?x=1"] {
        match put(bad).await.unwrap_err() {
            ClientError::Refused(r) => assert_eq!(r.status, 400, "{bad}: {}", r.body),
            other => panic!("{bad}: {other}"),
        }
        // the register's own rule says the same
        assert!(paydesk_sync_proto::base_url::check_base_url("the PSP URL", bad, 200).is_err(), "{bad}");
    }
    assert_eq!(h.count("SELECT count(*) FROM psp_accounts").await, 0);
    for good in ["https://psp.example.com/", "http://127.0.0.1:12111", "http://localhost:9"] {
        put(good).await.unwrap_or_else(|e| panic!("{good}: {e}"));
    }
    assert_eq!(h.db().await.query_one("SELECT api_base FROM psp_accounts", &[]).await.unwrap().get::<_, String>(0), "http://localhost:9");
}

#[tokio::test]
async fn staff_pin_hashes_go_only_to_the_stores_own_registers_in_service() {
    let h = Harness::start().await;
    let (store, own) = h.store_with_register("Main St").await;
    let (_other_store, stranger) = h.store_with_register("Other St").await;
    let retired = h.register_in(&store, "Old till").await;
    h.owner.put(&format!("/admin/stores/{store}/staff"), &json!({"staff": [{"name": "Olivia", "role": "owner", "active": true, "pin": "1111"}]})).await.unwrap();
    h.owner.post(&format!("/admin/stores/{store}/registers/{}/replace", retired.paired.register_id), &json!({})).await.unwrap();
    let q = [("since", "0"), ("kinds", "settings,item,tax,staff")];
    let mine = own.get("/v1/sync/changes", &q).await.unwrap();
    assert!(mine.to_string().contains("$argon2id$"), "{mine}");
    let theirs = stranger.get("/v1/sync/changes", &q).await.unwrap();
    assert!(!theirs.to_string().contains("argon2") && !theirs.to_string().contains("Olivia"), "{theirs}");
    match retired.get("/v1/sync/changes", &q).await.unwrap_err() {
        ClientError::Refused(r) => assert_eq!((r.status, r.code()), (403, "register_replaced")),
        other => panic!("{other}"),
    }
    // without a register's token there is no way to them at all
    let anon = reqwest::get(format!("{}/v1/sync/changes?since=0&kinds=staff", h.url)).await.unwrap();
    assert_eq!(anon.status(), 401);
}
