//! Register hardening (issue 28), command by command on Tauri's mock runtime over a real
//! data folder with the demo staff: the session guard in front of every command and the
//! idle lock in Rust (staff/guard.rs), sign-in's one answer for an unknown name and a
//! wrong PIN, approval PINs that never lock the named person out, locks the wall clock
//! cannot end (staff/locks.rs), the printer's port confirmation, the private data folder,
//! and the warning for a PSP key typed as a flag.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::{json, Value};
use support::{app_signed_out, app_with, call, Window, OWNER_PIN};
use tauri::Manager;

const CASHIER_PIN: &str = "3333";

fn err(r: Result<Value, Value>) -> Value {
    r.expect_err("refused")
}

/// The demo member of `role` (their name depends on the demo store's language).
fn named(w: &Window, role: &str) -> String {
    let staff = call(w, "staff_list", json!({})).unwrap();
    staff.as_array().unwrap().iter().find(|s| s["role"] == role).unwrap()["name"].as_str().unwrap().to_string()
}

/// Every command the app registers (lib.rs's handler list).
fn commands() -> Vec<String> {
    let lib = include_str!("../src/lib.rs");
    let list = &lib[lib.find("generate_handler![").unwrap()..];
    let list = &list[..list.find("]").unwrap()];
    list.lines().filter_map(|l| l.trim().strip_suffix(',')).filter_map(|p| p.rsplit("::").next()).map(str::to_string).collect()
}

#[test]
fn every_command_but_the_sign_in_screens_needs_someone_signed_in() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    let all = commands();
    assert!(all.len() > 50, "{all:?}");
    let open = paydesk_app::staff::guard::OPEN;
    for c in &all {
        if open.contains(&c.as_str()) {
            continue;
        }
        // refused before its arguments are even read
        let e = err(call(&w, c, json!({})));
        assert_eq!(e["code"], "not_signed_in", "{c}: {e}");
    }
    // what the sign-in screen draws itself with
    for c in ["whoami", "staff_list", "get_messages", "get_status"] {
        call(&w, c, json!({})).unwrap_or_else(|e| panic!("{c}: {e}"));
    }
    let owner = named(&w, "owner");
    call(&w, "sign_in", json!({ "name": owner, "pin": OWNER_PIN })).unwrap();
    call(&w, "get_cart", json!({})).expect("signed in, the register answers");
    call(&w, "sign_out", json!({})).unwrap();
    assert_eq!(err(call(&w, "get_cart", json!({})))["code"], "not_signed_in");
}

#[test]
fn a_command_after_the_idle_time_answers_locked_and_signs_out() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app_with(dir.path(), paydesk_app::Options::default());
    let idle = app.state::<paydesk_app::staff::guard::Idle>();
    call(&w, "get_cart", json!({})).unwrap();
    // a person's command starts the idle time again
    idle.rewind(Duration::from_secs(200));
    call(&w, "get_cart", json!({})).unwrap();
    idle.rewind(Duration::from_secs(200));
    call(&w, "get_cart", json!({})).expect("200 s since the last command: under the 300 s lock");
    // the page's own polling does not
    idle.rewind(Duration::from_secs(200));
    call(&w, "get_backoffice", json!({})).unwrap();
    idle.rewind(Duration::from_secs(200));
    let e = err(call(&w, "get_cart", json!({})));
    assert_eq!(e["code"], "locked", "{e}");
    assert_eq!(e["message"], "Locked after 300 s without input. The sale on screen is kept.");
    let who = call(&w, "whoami", json!({})).unwrap();
    assert_eq!(who["signed_in"], Value::Null, "signed out: {who}");
    assert_eq!(err(call(&w, "get_cart", json!({})))["code"], "not_signed_in");
    let l = paydesk_ledger::Ledger::open_reader(dir.path().join("ledger.db")).unwrap();
    assert_eq!(l.audit().log().unwrap().last().unwrap().action, "sign_out");
    // signing in again starts afresh
    call(&w, "sign_in", json!({ "name": named(&w, "owner"), "pin": OWNER_PIN })).unwrap();
    call(&w, "get_cart", json!({})).unwrap();
}

#[test]
fn sign_in_answers_an_unknown_name_as_a_wrong_pin_after_as_much_work() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    let cashier = named(&w, "cashier");
    // The work a check asks of Argon2, counted by the access crate: time on a shared
    // machine proves nothing, the parameters checked do (nextest runs a test alone in
    // its process, so nothing else adds to the count).
    let worked = |name: &str| {
        let before = paydesk_access::verify_work_done();
        let e = err(call(&w, "sign_in", json!({ "name": name, "pin": "9876" })));
        (e, paydesk_access::verify_work_done() - before)
    };
    let (unknown, work_unknown) = worked("Nobody");
    let (wrong, work_wrong) = worked(&cashier);
    assert_eq!(unknown, wrong, "the same code, message and fields");
    assert_eq!(wrong["code"], "wrong_pin");
    assert_eq!(wrong["attempts_left"], Value::Null, "{wrong}");
    // a PIN hash with the same parameters is checked either way
    assert!(work_wrong > 0, "a wrong PIN is checked against its hash");
    assert_eq!(work_unknown, work_wrong, "an unknown name costs what a wrong PIN costs");
}

#[test]
fn wrong_approval_pins_at_the_owners_name_lock_their_approvals_here_not_the_owner() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    let (owner, cashier) = (named(&w, "owner"), named(&w, "cashier"));
    call(&w, "sign_in", json!({ "name": cashier, "pin": CASHIER_PIN })).unwrap();
    let approve = |pin: &str| call(&w, "save_printer", json!({ "printer": "", "approval": { "name": owner, "pin": pin } }));
    assert_eq!(err(call(&w, "save_printer", json!({ "printer": "" })))["code"], "approval_required");
    for left in [4, 3, 2, 1] {
        let e = err(approve("0000"));
        assert_eq!((e["code"].as_str(), e["attempts_left"].as_u64()), (Some("wrong_pin"), Some(left)), "{e}");
    }
    assert_eq!(err(approve("0000"))["code"], "staff_locked");
    // locked: even the right PIN is not checked for an approval
    assert_eq!(err(approve(OWNER_PIN))["code"], "staff_locked");
    // the owner themselves is not locked out
    let tiles = call(&w, "staff_list", json!({})).unwrap();
    let tile = tiles.as_array().unwrap().iter().find(|s| s["name"] == owner.as_str()).unwrap().clone();
    assert_eq!(tile["locked_until_ms"], Value::Null, "{tile}");
    call(&w, "sign_in", json!({ "name": owner, "pin": OWNER_PIN })).expect("the owner signs in");
    call(&w, "save_printer", json!({ "printer": "" })).expect("and acts as themselves");
}

#[test]
fn a_lock_is_not_ended_by_moving_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    let cashier = named(&w, "cashier");
    for _ in 0..5 {
        let _ = call(&w, "sign_in", json!({ "name": cashier, "pin": "0000" }));
    }
    assert_eq!(err(call(&w, "sign_in", json!({ "name": cashier, "pin": CASHIER_PIN })))["code"], "staff_locked");
    // The wall clock moved past the lock's end: what the ledger sees then.
    let l = paydesk_ledger::Ledger::open(dir.path().join("ledger.db")).unwrap();
    l.connection().execute("UPDATE staff SET locked_until_ms = 1 WHERE name = ?1", [&cashier]).unwrap();
    drop(l);
    let e = err(call(&w, "sign_in", json!({ "name": cashier, "pin": CASHIER_PIN })));
    assert_eq!(e["code"], "staff_locked", "the lock's five minutes have not passed: {e}");
    assert!(e["until_ms"].as_i64().unwrap() > paydesk_app::base::now_ms() + 250_000, "{e}");
}

#[test]
fn a_printer_port_off_9100_to_9109_is_saved_only_once_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_with(dir.path(), paydesk_app::Options::default());
    let file = dir.path().join("printer.json");
    let e = err(call(&w, "save_printer", json!({ "printer": "10.0.0.5:8080" })));
    assert_eq!((e["code"].as_str(), e["port"].as_u64()), (Some("printer_port_unconfirmed"), Some(8080)), "{e}");
    assert!(!file.exists(), "nothing saved");
    let saved = call(&w, "save_printer", json!({ "printer": "10.0.0.5:8080", "confirmPort": true })).unwrap();
    assert_eq!(saved["printer"], "10.0.0.5:8080");
    let saved = call(&w, "save_printer", json!({ "printer": "10.0.0.5:9101" })).unwrap();
    assert_eq!(saved["printer"], "10.0.0.5:9101");
    for bad in ["/dev/sda", "/etc/passwd", "/dev/usb/../sda"] {
        let e = err(call(&w, "save_printer", json!({ "printer": bad, "confirmPort": true })));
        assert_eq!(e["code"], "invalid_printer", "{bad}: {e}");
    }
    call(&w, "save_printer", json!({ "printer": "/dev/usb/lp0" })).unwrap();
}

#[test]
fn the_data_folder_and_the_ledger_are_this_users_alone() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (_app, w) = app_with(&data, paydesk_app::Options::default());
    call(&w, "get_cart", json!({})).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    for f in ["ledger.db", "ledger.db-wal", "ledger.db-shm"] {
        assert_eq!(mode(&data.join(f)), 0o600, "{f}");
    }
}

#[test]
fn a_psp_key_typed_as_a_flag_is_warned_about_and_never_shown() {
    let secret = "sk_test_DO_NOT_PRINT_4321";
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paydesk"))
        .args(["--psp-key", secret, "--version"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains("warning: --psp-key") && stderr.contains("keychain") && stderr.contains("PAYDESK_PSP_KEY"), "{stderr}");
    assert!(!stdout.contains(secret) && !stderr.contains(secret), "the key is never shown");
}
