//! The Staff screen's commands and "No sale" (record 0127), on Tauri's mock runtime over a
//! real ledger file with the demo staff (Olivia owner 1111, Marcus manager 2222, Casey
//! cashier 3333): each command checks the role itself, refusals come typed, the last
//! owner stays, a retired member cannot sign in, and every "No sale" press is audited,
//! with no printer set too.

use crate::support;

use paydesk_ledger::Ledger;
use serde_json::{json, Value};
use support::{app_signed_out, call, Window};

fn err(r: Result<Value, Value>) -> Value {
    r.expect_err("refused")
}

fn sign_in(w: &Window, name: &str, pin: &str) {
    call(w, "sign_in", json!({ "name": name, "pin": pin })).unwrap_or_else(|e| panic!("{name} signs in: {e}"));
}

fn audit_rows(dir: &std::path::Path, action: &str) -> Vec<paydesk_ledger::AuditEntry> {
    let l = Ledger::open_reader(dir.join("ledger.db")).unwrap();
    l.audit().log().unwrap().into_iter().filter(|r| r.action == action).collect()
}

const ADMIN: [&str; 5] = ["staff_admin_list", "staff_add", "staff_set_role", "staff_reset_pin", "staff_retire"];

fn args(cmd: &str) -> Value {
    match cmd {
        "staff_add" => json!({ "name": "Dana", "role": "cashier", "pin": "4826", "pinAgain": "4826" }),
        "staff_set_role" => json!({ "name": "Casey", "role": "owner" }),
        "staff_reset_pin" => json!({ "name": "Casey", "pin": "4826", "pinAgain": "4826" }),
        "staff_retire" => json!({ "name": "Olivia" }),
        _ => json!({}),
    }
}

#[test]
fn only_the_owner_signed_in_runs_the_staff_commands() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    for cmd in ADMIN {
        assert_eq!(err(call(&w, cmd, args(cmd)))["code"], "not_signed_in", "{cmd}");
    }
    let before = std::fs::read(dir.path().join("ledger.db")).unwrap().len();
    for (name, pin) in [("Casey", "3333"), ("Marcus", "2222")] {
        sign_in(&w, name, pin);
        for cmd in ADMIN {
            let e = err(call(&w, cmd, args(cmd)));
            // staff admin is the owner's alone: no approval asked, just no
            assert!(e["code"] == "approval_required" || e["code"] == "not_allowed", "{name} {cmd}: {e}");
            assert!(e["message"].as_str().unwrap().contains("Staff administration"), "{e}");
        }
    }
    let l = Ledger::open_reader(dir.path().join("ledger.db")).unwrap();
    let names: Vec<(String, String, bool)> = l.roster().list().unwrap().into_iter().map(|s| (s.name, s.role.to_string(), s.active)).collect();
    assert!(names.iter().all(|(n, _, active)| n != "Dana" && *active), "nothing changed: {names:?}");
    assert!(names.contains(&("Casey".into(), "cashier".into(), true)));
    let _ = before;
}

#[test]
fn the_owner_adds_changes_resets_and_retires_and_the_refusals_are_typed() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    sign_in(&w, "Olivia", "1111");
    let rows = call(&w, "staff_admin_list", json!({})).unwrap();
    let olivia = rows.as_array().unwrap().iter().find(|r| r["name"] == "Olivia").unwrap().clone();
    assert_eq!((olivia["role"].as_str(), olivia["active"].as_bool(), olivia["published"].as_bool()), (Some("owner"), Some(true), Some(false)));
    assert!(!rows.to_string().contains("argon2"), "no hash leaves the ledger");

    let e = err(call(&w, "staff_add", json!({ "name": "Dana", "role": "cashier", "pin": "4826", "pinAgain": "4827" })));
    assert_eq!(e["code"], "invalid_input");
    let e = err(call(&w, "staff_add", json!({ "name": "Dana", "role": "boss", "pin": "4826", "pinAgain": "4826" })));
    assert_eq!(e["code"], "invalid_input");
    let dana = call(&w, "staff_add", json!({ "name": "Dana", "role": "cashier", "pin": "4826", "pinAgain": "4826" })).unwrap();
    assert_eq!((dana["name"].as_str(), dana["role"].as_str(), dana["active"].as_bool()), (Some("Dana"), Some("cashier"), Some(true)));
    let dana_id = Ledger::open_reader(dir.path().join("ledger.db")).unwrap().roster().by_name("Dana").unwrap().unwrap().id;
    let added = audit_rows(dir.path(), "staff_add");
    assert!(added.iter().any(|r| r.detail.as_deref() == Some(&*format!("staff:{dana_id}")) && r.actor_id.is_some()), "{added:?}");

    let r = call(&w, "staff_set_role", json!({ "name": "Dana", "role": "manager" })).unwrap();
    assert_eq!(r["role"], "manager");
    let e = err(call(&w, "staff_set_role", json!({ "name": "Dana", "role": "manager" })));
    assert_eq!(e["code"], "same_role", "{e}");
    let e = err(call(&w, "staff_set_role", json!({ "name": "Olivia", "role": "manager" })));
    assert_eq!((e["code"].as_str(), e["message"].as_str()), (Some("last_owner"), Some("Olivia is the store's last active owner. Make someone else an owner first.")));
    let e = err(call(&w, "staff_retire", json!({ "name": "Olivia" })));
    assert_eq!(e["code"], "last_owner");
    let e = err(call(&w, "staff_retire", json!({ "name": "Nobody" })));
    assert_eq!(e["code"], "unknown_staff");

    call(&w, "staff_reset_pin", json!({ "name": "Dana", "pin": "5937", "pinAgain": "5937" })).unwrap();
    call(&w, "staff_retire", json!({ "name": "Casey" })).unwrap();
    let e = err(call(&w, "staff_retire", json!({ "name": "Casey" })));
    assert_eq!(e["code"], "staff_retired");
    let e = err(call(&w, "staff_add", json!({ "name": "Casey", "role": "cashier", "pin": "4826", "pinAgain": "4826" })));
    assert_eq!(e["code"], "staff_name_retired");
    // The sign-in tiles leave Casey out; Casey's PIN opens nothing; Dana's new PIN does.
    let tiles = call(&w, "staff_list", json!({})).unwrap();
    assert!(!tiles.to_string().contains("Casey"), "{tiles}");
    call(&w, "sign_out", json!({})).unwrap();
    assert_eq!(err(call(&w, "sign_in", json!({ "name": "Casey", "pin": "3333" })))["code"], "wrong_pin");
    assert_eq!(err(call(&w, "sign_in", json!({ "name": "Dana", "pin": "4826" })))["code"], "wrong_pin");
    sign_in(&w, "Dana", "5937");
    let l = Ledger::open_reader(dir.path().join("ledger.db")).unwrap();
    assert!(l.audit().verify(None).unwrap().is_intact());
    for action in ["staff_role", "staff_pin_reset", "staff_retire"] {
        assert_eq!(audit_rows(dir.path(), action).len(), 1, "{action}");
    }
}

#[test]
fn no_sale_needs_a_manager_and_is_audited_even_without_a_printer() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    sign_in(&w, "Casey", "3333");
    let e = err(call(&w, "open_drawer_no_sale", json!({})));
    assert_eq!((e["code"].as_str(), e["min_role"].as_str()), (Some("approval_required"), Some("manager")), "{e}");
    assert!(audit_rows(dir.path(), "drawer_no_sale").is_empty(), "refused: nothing recorded");
    let e = err(call(&w, "open_drawer_no_sale", json!({ "approval": { "name": "Marcus", "pin": "0000" } })));
    assert_eq!(e["code"], "wrong_pin");
    assert!(audit_rows(dir.path(), "drawer_no_sale").is_empty());

    let r = call(&w, "open_drawer_no_sale", json!({ "approval": { "name": "Marcus", "pin": "2222" } })).unwrap();
    assert_eq!(r["kicked"], false, "no printer: the register opened nothing and says so");
    assert_eq!(r["message"], "No printer is set: the register could not open the drawer. The press is recorded.");
    let rows = audit_rows(dir.path(), "drawer_no_sale");
    let l = Ledger::open_reader(dir.path().join("ledger.db")).unwrap();
    let (casey, marcus) = (l.roster().by_name("Casey").unwrap().unwrap().id, l.roster().by_name("Marcus").unwrap().unwrap().id);
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].actor_id, rows[0].approver_id), (Some(casey), Some(marcus)));
    let after: Value = serde_json::from_str(rows[0].after.as_deref().unwrap()).unwrap();
    assert_eq!((after["outcome"].as_str(), &after["printer"]), (Some("no_printer"), &Value::Null));

    // A manager alone; a printer that is not there is said as such, and recorded too.
    call(&w, "sign_out", json!({})).unwrap();
    sign_in(&w, "Marcus", "2222");
    std::fs::write(dir.path().join("printer.json"), r#"{"printer":"127.0.0.1:9"}"#).unwrap();
    let e = err(call(&w, "open_drawer_no_sale", json!({})));
    assert_eq!(e["code"], "printer_unreachable", "{e}");
    let rows = audit_rows(dir.path(), "drawer_no_sale");
    let after: Value = serde_json::from_str(rows[1].after.as_deref().unwrap()).unwrap();
    assert_eq!((after["outcome"].as_str(), after["printer"].as_str()), (Some("printer_failed"), Some("127.0.0.1:9")), "{after}");
    assert_eq!((rows[1].actor_id, rows[1].approver_id), (Some(marcus), None));
}
