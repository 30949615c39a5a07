//! The app's "Back office" setting and sync loop (record 0045), on Tauri's mock runtime
//! against the REAL back office on a private PostgreSQL: pairing through the command,
//! the token kept out of the settings files, the loop started by the pairing and again
//! with the app, the back office ending with exactly the register's payments.
#[path = "../../crates/backoffice/tests/support/mod.rs"]
pub(crate) mod bo;
use crate::support;

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
    // The wait ends when both payments are at the back office *as captured*: "synced, nothing
    // queued" can be seen one round before the capture's fact is applied there (the round that
    // carries it may still be in flight), so the keys alone are not the signal.
    let all_captured = |rt: &tokio::runtime::Runtime| {
        let rows = rt.block_on(h.payment_rows());
        rows.len() == 2 && rows.iter().all(|p| p.2 == "captured" && p.3.is_some())
    };
    until_status(&w, "the second sale synced as captured", |v| v["state"] == "synced" && v["queued"] == 0 && all_captured(&rt));
    let mut want = vec![first, second];
    want.sort();
    assert_eq!(bo_keys(&rt), want);
    let rows = rt.block_on(h.payment_rows());
    assert!(rows.iter().all(|p| p.2 == "captured" && p.3.is_some()), "{rows:?}");
}

/// The demo cashier (README: Demo staff).
const CASHIER: &str = "Casey";
const CASHIER_PIN: &str = "3333";

fn code_of(r: Result<Value, Value>) -> String {
    r.expect_err("refused")["code"].as_str().unwrap_or_default().to_string()
}

/// Restore is a setting (record 0048): the command refuses a cashier alone whatever the
/// screen shows, checks its input, and needs a paired register; the history starts empty.
#[test]
fn restore_is_refused_to_a_cashier_and_on_a_register_that_is_not_paired() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = support::app_signed_out(dir.path(), paydesk_app::Options::default());
    invoke(&w, "sign_in", json!({ "name": CASHIER, "pin": CASHIER_PIN })).expect("the cashier signs in");
    let e = invoke(&w, "restore_backoffice", json!({ "from": "Front till" })).unwrap_err();
    assert_eq!((e["code"].as_str(), e["action"].as_str(), e["min_role"].as_str()), (Some("approval_required"), Some("settings"), Some("owner")), "{e}");
    // A wrong approver PIN is no approval.
    let wrong = json!({ "from": "Front till", "approval": { "name": "Olivia", "pin": "0000" } });
    assert_eq!(code_of(invoke(&w, "restore_backoffice", wrong)), "wrong_pin", "the approval is checked before anything else");
    // The restored history is for everyone to read, and empty.
    let h = invoke(&w, "restored_history", json!({})).unwrap();
    assert_eq!((h["sources"].clone(), h["payments"].clone(), h["from"].clone()), (json!([]), json!([]), Value::Null));
    assert_eq!(code_of(invoke(&w, "restored_history", json!({ "from": "nobody" }))), "invalid_input");

    invoke(&w, "sign_out", json!({})).unwrap();
    invoke(&w, "sign_in", json!({ "name": "Olivia", "pin": support::OWNER_PIN })).expect("the owner signs in");
    for bad in ["", "   ", "a\nb", &"x".repeat(201)] {
        assert_eq!(code_of(invoke(&w, "restore_backoffice", json!({ "from": bad }))), "invalid_input", "{bad:?}");
    }
    let e = invoke(&w, "restore_backoffice", json!({ "from": "Front till" })).unwrap_err();
    assert_eq!(e["code"], "not_paired", "{e}");
    assert!(e["message"].as_str().unwrap().contains("Pair it first"), "{e}");
}

fn sale(key: &str, amount: i64) -> Vec<paydesk_sync_proto::Row> {
    use paydesk_sync_proto::{Fact, PaymentState, Row};
    vec![
        Row { at_ms: 1_700_000_000_000, fact: Fact::PaymentCreated { checkout_key: key.into(), amount, currency: "usd".into() } },
        Row { at_ms: 1_700_000_001_000, fact: Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Captured, psp_id: Some(format!("pi_{key}")) } },
    ]
}

/// Each refusal of the back office reaches the screen as its own code (record 0048),
/// against the REAL back office: a register in service, an unknown name, itself, a name
/// two replaced registers share; then the restore by id, and again for nothing.
#[test]
fn each_refusal_of_a_restore_has_its_own_code_and_a_second_run_adds_nothing() {
    std::env::set_var("PAYDESK_KEYCHAIN", "off");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = rt.block_on(bo::Harness::start());
    let store = rt.block_on(h.owner.create_store("Main St")).unwrap();
    let a = rt.block_on(h.register_in(&store, "Front till"));
    let a_id = a.paired.register_id.clone();
    // 50 older sales, then three: the list is paged 50 at a time.
    let older: Vec<String> = (0..50).map(|i| format!("f{i:02}")).collect();
    let mut rows: Vec<_> = older.iter().flat_map(|k| sale(k, 100)).collect();
    rows.extend([("k1", 1200), ("k2", 450), ("k3", 3000)].iter().flat_map(|(k, m)| sale(k, *m)));
    let batch = paydesk_sync_proto::Batch {
        v: paydesk_sync_proto::PROTOCOL_VERSION,
        register_id: a_id.clone(),
        first_seq: 1,
        rows,
        health: paydesk_sync_proto::RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None },
    };
    rt.block_on(a.send(&batch, "a-1-106")).expect("A's sales reach the back office");

    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = start_app(dir.path());
    let code = rt.block_on(h.owner.pairing_code(&store, "Front till")).unwrap();
    invoke(&w, "pair_backoffice", json!({ "url": h.url, "code": code })).expect("paired");
    let restore = |from: &str| invoke(&w, "restore_backoffice", json!({ "from": from }));

    assert_eq!(code_of(restore(&a_id)), "restore_in_service");
    // By name only replaced registers are found: A is not one yet.
    assert_eq!(code_of(restore("Front till")), "restore_unknown_register");
    assert_eq!(code_of(restore("No such till")), "restore_unknown_register");
    let me: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("sync.json")).unwrap()).unwrap();
    let me = me["pairing"]["register_id"].as_str().expect("sync.json names this register").to_string();
    assert_eq!(code_of(restore(&me)), "restore_from_itself");

    for id in [a_id.clone(), rt.block_on(h.register_in(&store, "Front till")).paired.register_id.clone()] {
        rt.block_on(h.owner.post(&format!("/admin/stores/{store}/registers/{id}/replace"), &json!({}))).unwrap();
    }
    let e = restore("Front till").unwrap_err();
    assert_eq!(e["code"], "restore_ambiguous_name", "{e}");
    assert!(e["message"].as_str().unwrap().contains("Front till"), "{e}");
    assert!(invoke(&w, "restored_history", json!({})).unwrap()["sources"].as_array().unwrap().is_empty(), "nothing begun by a refusal");

    let r = restore(&format!("  {a_id} ")).expect("restored by id");
    assert_eq!((r["register_name"].as_str(), r["rows_restored"].as_u64(), r["complete"].as_bool()), (Some("Front till"), Some(106), Some(true)), "{r}");
    assert_eq!(r["message"], "Restored 106 rows from “Front till”. Its history is complete here: 106 rows.");
    let again = restore(&a_id).expect("restored again");
    assert_eq!((again["rows_restored"].as_u64(), again["restored_through"].as_u64()), (Some(0), Some(106)), "{again}");
    assert_eq!(again["message"], "Nothing new from “Front till”: all 106 rows of its history were already here.");

    let hist = invoke(&w, "restored_history", json!({})).unwrap();
    assert_eq!(hist["from"].as_str(), Some(a_id.as_str()));
    let got: Vec<(String, String, String)> = hist["payments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["checkout_key"].as_str().unwrap().into(), p["amount_text"].as_str().unwrap().into(), p["state"].as_str().unwrap().into()))
        .collect();
    let want = [("k3", "$30.00"), ("k2", "$4.50"), ("k1", "$12.00")].map(|(k, a)| (k.to_string(), a.to_string(), "captured".to_string()));
    assert_eq!(got[..3], want, "newest first, money formatted, the last state");
    assert_eq!(got.len(), 50, "a page");
    assert_eq!(got[49].0, "f03");
    let next = invoke(&w, "restored_history", json!({ "from": a_id, "before": hist["next_before"] })).unwrap();
    let keys: Vec<&str> = next["payments"].as_array().unwrap().iter().map(|p| p["checkout_key"].as_str().unwrap()).collect();
    assert_eq!((keys, next["next_before"].clone()), (vec!["f02", "f01", "f00"], Value::Null), "the last page");
    // None of it goes up as this register's own: once its loop has sent everything, the
    // back office holds A's payments once each.
    until_status(&w, "this register's own rows synced", |v| v["state"] == "synced" && v["queued"] == 0 && !v["last_sync_ms"].is_null());
    assert_eq!(rt.block_on(h.count("SELECT count(*) FROM journal WHERE fact->>'checkout_key' IN ('k1', 'k2', 'k3')")), 6);
}
