//! The app's "Back office" setting and sync loop (design §9.12), on Tauri's mock runtime
//! against the REAL back office on a private PostgreSQL: pairing through the command,
//! the token kept out of the settings files, the loop started by the pairing and again
//! with the app, the back office ending with exactly the register's payments.
#[path = "../../crates/backoffice/tests/support/mod.rs"]
mod bo;
mod support;

use serde_json::{json, Value};
use support::{app as start_app, call as invoke, Window};

/// Polls the status the status bar reads until `ok` (the loop runs in its own task; the
/// command is the only window onto it, as for the UI).
fn until_status(w: &Window, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let v = invoke(w, "get_backoffice", json!({})).unwrap();
        if ok(&v) {
            return v;
        }
        assert!(std::time::Instant::now() < end, "timed out waiting for {what}: {v}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn sell(w: &Window, sku: &str) -> String {
    invoke(w, "new_sale", json!({})).unwrap();
    invoke(w, "scan", json!({ "code": sku })).unwrap();
    let paid = invoke(w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(paid["kind"], "approved", "{paid}");
    paid["checkout_key"].as_str().unwrap().to_string()
}

#[test]
fn pairing_starts_the_loop_and_the_back_office_gets_every_sale() {
    // No keychain in the test session: the token goes to the 0600 file, as on a kiosk.
    std::env::set_var("PAYDESK_KEYCHAIN", "off");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = rt.block_on(bo::Harness::start());
    let store = rt.block_on(h.owner.create_store("Main St")).unwrap();
    let code = rt.block_on(h.owner.pairing_code(&store, "Front till")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bo_keys = |rt: &tokio::runtime::Runtime| -> Vec<String> {
        rt.block_on(h.payment_rows()).into_iter().map(|p| p.0).collect()
    };

    let (app, w) = start_app(dir.path());
    let first = sell(&w, "MUG-001");
    let v = invoke(&w, "get_backoffice", json!({})).unwrap();
    assert_eq!((v["paired"].as_bool(), v["state"].as_str()), (Some(false), Some("not_paired")));
    // The command enforces the rules: no code, a bad URL, a wrong code.
    assert_eq!(invoke(&w, "pair_backoffice", json!({ "url": h.url, "code": "" })).unwrap_err()["code"], "invalid_input");
    assert_eq!(invoke(&w, "pair_backoffice", json!({ "url": "ftp://x", "code": code })).unwrap_err()["code"], "invalid_input");
    assert_eq!(invoke(&w, "pair_backoffice", json!({ "url": h.url, "code": "AAAA-BBBB-CCCC-DDDD" })).unwrap_err()["code"], "backoffice_refused");

    let paired = invoke(&w, "pair_backoffice", json!({ "url": h.url, "code": code })).unwrap();
    assert_eq!((paired["paired"].as_bool(), paired["register_name"].as_str(), paired["store_id"].as_str()), (Some(true), Some("Front till"), Some(store.as_str())));
    assert_eq!(invoke(&w, "pair_backoffice", json!({ "url": h.url, "code": code })).unwrap_err()["code"], "already_paired");
    let token = std::fs::read_to_string(dir.path().join("sync.token")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(dir.path().join("sync.token")).unwrap().permissions().mode() & 0o777, 0o600);
    for f in ["sync.json", "settings.json"] {
        let text = std::fs::read_to_string(dir.path().join(f)).unwrap_or_default();
        assert!(!text.contains(token.trim()), "the token is not in {f}");
    }

    // The loop started with the pairing: the sale made before it goes up.
    until_status(&w, "the first round", |v| v["state"] == "synced" && v["queued"] == 0 && !v["last_sync_ms"].is_null());
    assert_eq!(bo_keys(&rt), vec![first.clone()]);
    drop(w);
    drop(app);

    // The app starts again: the loop starts with it and a new sale reaches the back office.
    let (_app, w) = start_app(dir.path());
    let second = sell(&w, "COF-001");
    until_status(&w, "the second sale synced", |v| v["state"] == "synced" && v["queued"] == 0 && bo_keys(&rt).len() == 2);
    let mut want = vec![first, second];
    want.sort();
    assert_eq!(bo_keys(&rt), want);
    let rows = rt.block_on(h.payment_rows());
    assert!(rows.iter().all(|p| p.2 == "captured" && p.3.is_some()), "{rows:?}");
}
