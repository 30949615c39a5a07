//! The app sends its scheduled copies, sealed, to the back office (record 0150): the app on
//! Tauri's mock runtime, paired through its command with the REAL back office on a private
//! PostgreSQL; the real Secret Service on a private bus (`keychain.rs`) for the backup key;
//! the real `paydesk-cli` fetching and restoring what was sent. A schedule's turn is run
//! by calling the function the schedule calls (`backups::scheduled_copy`), not by waiting
//! its minutes.
use crate::backoffice::bo;
use crate::keychain::{account, SecretService};
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use support::{app as start_app, call as invoke, App, Window};
use tauri::Manager;

/// One turn of the copy schedule: a copy, and the send after a good one.
fn scheduled_copy(app: &App) {
    tauri::async_runtime::block_on(paydesk_app::backups::scheduled_copy(app.handle()));
}

fn about_send(w: &Window) -> Value {
    invoke(w, "about", json!({})).unwrap()["copy_send"].clone()
}

fn sell(w: &Window, sku: &str) -> Value {
    invoke(w, "new_sale", json!({})).unwrap();
    invoke(w, "scan", json!({ "code": sku })).unwrap();
    invoke(w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap()
}

/// (key, amount, currency, state) of every payment in a ledger file, by id.
fn payments(db: &Path) -> Vec<(String, i64, String, String)> {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut s = c.prepare("SELECT idempotency_key, amount_minor, currency, state FROM payments ORDER BY id").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap().map(Result::unwrap).collect()
}

/// The real CLI on `db`; stdin written and closed (pairing codes never go in argv).
fn cli(db: &Path, args: &[&str], stdin: &str) -> (i32, Value, String) {
    use std::io::Write;
    let mut c = Command::new(paydesk_test_kit::workspace_binary("paydesk-cli"));
    c.arg("--db").arg(db).args(["--psp-url", "http://127.0.0.1:9", "--psp-key", "sk_test_unused"]).args(args);
    c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("paydesk-cli");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let json = text.lines().rev().find_map(|l| serde_json::from_str(l).ok()).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, format!("{text}{}", String::from_utf8_lossy(&out.stderr)))
}

fn copy_path(dir: &Path, name: &str) -> PathBuf {
    dir.join("backups").join(name)
}

/// A key for the owner's safe as the owner types it on the replacement machine: a 0600 file.
fn safe_file(dir: &Path, hex: &str) -> PathBuf {
    use std::os::unix::fs::OpenOptionsExt;
    let p = dir.join("from-the-safe.key");
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&p).unwrap();
    std::io::Write::write_all(&mut f, format!("{hex}\n").as_bytes()).unwrap();
    p
}

/// A paired register takes its copy and the back office holds it whole; the key is only
/// in the keychain (entry `backup-key@<data folder>`) and shown to the owner as the same
/// key; a replacement register, with that key from the safe, fetches the copy with the
/// CLI and restores every payment, the one still pending with its key.
#[test]
fn a_paired_register_sends_its_copy_and_a_replacement_restores_every_payment_with_the_key_from_the_safe() {
    let ss = SecretService::start();
    ss.use_it();
    std::env::remove_var("PAYDESK_KEYCHAIN");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = rt.block_on(bo::Harness::start());
    let store = rt.block_on(h.owner.create_store("Main St")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = start_app(dir.path());
    for sku in ["MUG-001", "COF-001", "MUG-001"] {
        assert_eq!(sell(&w, sku)["kind"], "approved");
    }
    // The PSP stops answering: the next payment is kept with its key, not charged yet.
    app.state::<paydesk_app::state::AppState>().embedded().expect("the embedded PSP").apply_profile(paydesk_app::FaultProfile::Offline);
    let pending = sell(&w, "COF-001");
    assert_ne!(pending["kind"], "approved", "{pending}");
    let pending_key = pending["checkout_key"].as_str().expect("a key").to_string();

    assert_eq!(about_send(&w)["state"], "not_paired");
    let code = rt.block_on(h.owner.pairing_code(&store, "Front till")).unwrap();
    invoke(&w, "pair_backoffice", json!({ "url": h.url, "code": code })).expect("paired");
    assert_eq!(about_send(&w)["state"], "not_yet", "on by default once paired");

    scheduled_copy(&app);
    let sent = about_send(&w);
    assert_eq!(sent["state"], "sent", "{sent}");
    let last = &sent["last_sent"];
    let copy = copy_path(dir.path(), last["copy"].as_str().unwrap());
    assert!(copy.exists(), "the copy sent is the newest local copy: {last}");
    assert!(!PathBuf::from(format!("{}.sealed", copy.display())).exists(), "the sealed file goes once the back office holds it");
    // The back office holds it whole: the owner's list names it with the size and hash sent.
    let listed = rt.block_on(h.owner.get(&format!("/admin/stores/{store}/backups"))).unwrap();
    assert_eq!(listed["backups"].as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!((&listed["backups"][0]["sha256"], &listed["backups"][0]["bytes"]), (&last["sha256"], &last["bytes"]), "{listed}");

    // The key is in the keychain entry and nowhere in the data folder.
    let key = ss.lookup(&account(dir.path(), "backup-key")).expect("the backup key in the keychain");
    assert_eq!(key.len(), 64);
    assert!(!dir.path().join("backup.key").exists());
    for e in std::fs::read_dir(dir.path()).unwrap().flatten().filter(|e| e.path().is_file()) {
        let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).to_string();
        assert!(!text.contains(&key), "{} holds the backup key", e.path().display());
    }
    // The owner is shown that key (and its id, which sealed the copy), for the safe.
    let shown = invoke(&w, "backup_key", json!({})).expect("the owner sees the key");
    assert_eq!((shown["key"].as_str(), &shown["key_id"], shown["storage"].as_str()), (Some(key.as_str()), &last["key_id"], Some("keychain")));
    let settings = invoke(&w, "get_copy_settings", json!({})).unwrap();
    assert_eq!((settings["send"].as_bool(), settings["paired"].as_bool(), settings["key_storage"].as_str()), (Some(true), Some(true), Some("keychain")));

    // The register is dead: the owner marks it replaced and pairs a new one, which
    // fetches the copy with the key from the safe and restores it.
    let old_id: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("sync.json")).unwrap()).unwrap();
    let old_id = old_id["pairing"]["register_id"].as_str().unwrap().to_string();
    rt.block_on(h.owner.post(&format!("/admin/stores/{store}/registers/{old_id}/replace"), &json!({}))).unwrap();
    let new = tempfile::tempdir().unwrap();
    let new_db = new.path().join("ledger.db");
    let code = rt.block_on(h.owner.pairing_code(&store, "New till")).unwrap();
    let (rc, _, out) = cli(&new_db, &["sync", "pair", &h.url], &format!("{code}\n"));
    assert_eq!(rc, 0, "{out}");
    let safe = safe_file(new.path(), &key);
    let fetched = new.path().join("fetched.sqlite3");
    let (rc, got, out) = cli(&new_db, &["backup", "fetch", "--key", safe.to_str().unwrap(), "--register", &old_id, "--out", fetched.to_str().unwrap()], "");
    assert_eq!(rc, 0, "{out}");
    assert_eq!(got["fetched"]["backup"]["sha256"], last["sha256"], "{got}");
    assert!(!out.contains(&key), "the CLI never prints the key");
    let restored = new.path().join("restored").join("ledger.db");
    let (rc, _, out) = cli(&restored, &["backup", "restore", "--copy", fetched.to_str().unwrap()], "");
    assert_eq!(rc, 0, "{out}");
    let want = payments(&copy);
    assert_eq!(want.len(), 4, "{want:?}");
    assert_eq!(payments(&restored), want, "every payment back, each in its state");
    let p = want.iter().find(|p| p.0 == pending_key).expect("the pending payment with its key");
    assert!(!["captured", "failed", "canceled"].contains(&p.3.as_str()), "still pending in the copy: {p:?}");
    drop(w);
    drop(app);
}

/// With `backup_send` off the copies stay on the register: the back office holds none,
/// no backup key is made, and the About panel says sending is off.
#[test]
fn with_backup_send_off_a_paired_register_sends_no_copy() {
    std::env::set_var("PAYDESK_KEYCHAIN", "off");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = rt.block_on(bo::Harness::start());
    let store = rt.block_on(h.owner.create_store("Main St")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = start_app(dir.path());
    assert_eq!(sell(&w, "MUG-001")["kind"], "approved");
    let code = rt.block_on(h.owner.pairing_code(&store, "Front till")).unwrap();
    invoke(&w, "pair_backoffice", json!({ "url": h.url, "code": code })).expect("paired");
    let off = invoke(&w, "set_backup_send", json!({ "on": false })).expect("the owner turns it off");
    assert_eq!(off["send"], false);
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("settings.json")).unwrap()).unwrap();
    assert_eq!(saved["backup_send"], false, "kept in settings.json");

    scheduled_copy(&app);
    let a = invoke(&w, "about", json!({})).unwrap();
    assert_eq!(a["copies"].as_array().map(Vec::len), Some(1), "the local copy is taken: {a}");
    assert_eq!((&a["copy_send"]["state"], &a["copy_send"]["last_sent"]), (&json!("off"), &Value::Null), "{a}");
    let listed = rt.block_on(h.owner.get(&format!("/admin/stores/{store}/backups"))).unwrap();
    assert_eq!(listed["backups"], json!([]), "{listed}");
    assert!(!dir.path().join("backup.key").exists(), "no key is made while nothing needs one");
    let sealed = std::fs::read_dir(dir.path().join("backups")).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().contains(".sealed")).count();
    assert_eq!(sealed, 0, "nothing sealed");
}

/// The back office down: the copy is taken, the About panel says the back office could
/// not be reached (typed: `unreachable`), the sealed file waits; the back office up again,
/// the next copy is sent. Without a keychain the key is the 0600 `backup.key`, which the
/// CLI reads as is to fetch and restore the copy.
#[test]
fn a_back_office_down_is_shown_and_the_next_copy_is_sent() {
    use std::os::unix::fs::PermissionsExt;
    std::env::set_var("PAYDESK_KEYCHAIN", "off");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let bo::Harness { running, owner, url, cluster } = rt.block_on(bo::Harness::start());
    let store = rt.block_on(owner.create_store("Main St")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = start_app(dir.path());
    assert_eq!(sell(&w, "MUG-001")["kind"], "approved");
    let code = rt.block_on(owner.pairing_code(&store, "Front till")).unwrap();
    invoke(&w, "pair_backoffice", json!({ "url": url, "code": code })).expect("paired");

    let addr = running.addr;
    rt.block_on(running.shutdown());
    scheduled_copy(&app);
    let down = about_send(&w);
    assert_eq!((down["state"].as_str(), down["code"].as_str()), (Some("unreachable"), Some("unreachable")), "{down}");
    assert_eq!(down["last_sent"], Value::Null);
    let first = invoke(&w, "about", json!({})).unwrap()["copies"][0].as_str().unwrap().to_string();
    assert!(PathBuf::from(format!("{}.sealed", copy_path(dir.path(), &first).display())).exists(), "sealed, waiting to be sent");
    let key_file = dir.path().join("backup.key");
    assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600);
    let settings = invoke(&w, "get_copy_settings", json!({})).unwrap();
    assert_eq!(settings["key_storage"], "file");
    assert!(settings["key_storage_note"].as_str().unwrap().contains("PAYDESK_KEYCHAIN=off"), "{settings}");

    // Up again at the same address: the next copy goes.
    let st = rt
        .block_on(paydesk_backoffice::build(&paydesk_backoffice::Config {
            database: cluster.conn_string("paydesk"),
            admin_token: bo::ADMIN_TOKEN.into(),
            limits: paydesk_backoffice::state::Limits::default(),
            behind_tls: false,
        }))
        .unwrap();
    let _again = rt.block_on(paydesk_backoffice::serve(st, addr)).expect("the back office again, same address");
    assert_eq!(sell(&w, "COF-001")["kind"], "approved");
    scheduled_copy(&app);
    let up = about_send(&w);
    assert_eq!(up["state"], "sent", "{up}");
    let last = &up["last_sent"];
    assert_ne!(last["copy"].as_str(), Some(first.as_str()), "the newer copy went");
    let listed = rt.block_on(owner.get(&format!("/admin/stores/{store}/backups"))).unwrap();
    assert_eq!(listed["backups"].as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed["backups"][0]["sha256"], last["sha256"]);

    // The CLI opens it with the register's own key file and restores every payment.
    let db = dir.path().join("ledger.db");
    let elsewhere = tempfile::tempdir().unwrap();
    let fetched = elsewhere.path().join("fetched.sqlite3");
    let (rc, _, out) = cli(&db, &["backup", "fetch", "--key", key_file.to_str().unwrap(), "--out", fetched.to_str().unwrap()], "");
    assert_eq!(rc, 0, "{out}");
    let restored = elsewhere.path().join("restored.db");
    let (rc, _, out) = cli(&restored, &["backup", "restore", "--copy", fetched.to_str().unwrap()], "");
    assert_eq!(rc, 0, "{out}");
    let want = payments(&copy_path(dir.path(), last["copy"].as_str().unwrap()));
    assert_eq!(want.len(), 2);
    assert_eq!(payments(&restored), want);
}

/// The demo cashier (README: Demo staff).
const CASHIER: &str = "Casey";
const CASHIER_PIN: &str = "3333";

/// Reading the backup key and turning the sending off are the owner's: the commands
/// refuse a cashier alone (typed `approval_required`), whatever the screen shows, and
/// the refusal makes no key.
#[test]
fn a_cashier_cannot_read_the_backup_key_nor_stop_the_copies_being_sent() {
    std::env::set_var("PAYDESK_KEYCHAIN", "off");
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = support::app_signed_out(dir.path(), paydesk_app::Options::default());
    invoke(&w, "sign_in", json!({ "name": CASHIER, "pin": CASHIER_PIN })).expect("the cashier signs in");
    for (cmd, args) in [("backup_key", json!({})), ("set_backup_send", json!({ "on": false }))] {
        let e = invoke(&w, cmd, args).unwrap_err();
        assert_eq!((e["code"].as_str(), e["action"].as_str(), e["min_role"].as_str()), (Some("approval_required"), Some("settings"), Some("owner")), "{cmd}: {e}");
    }
    assert!(!dir.path().join("backup.key").exists(), "a refusal makes no key");
    assert_eq!(invoke(&w, "get_copy_settings", json!({})).unwrap()["send"], true, "still on");
    // With the owner's approval the key is shown.
    let approval = json!({ "name": "Olivia", "pin": support::OWNER_PIN });
    let shown = invoke(&w, "backup_key", json!({ "approval": approval })).expect("approved by the owner");
    assert_eq!(shown["key"].as_str().map(str::len), Some(64));
}
