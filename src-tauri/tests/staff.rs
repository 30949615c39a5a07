//! "Change my PIN" command by command (record 0068), on Tauri's mock runtime over a real
//! ledger file with the demo staff: the new PIN typed twice and checked by the command,
//! a new PIN equal to the current one refused, the current PIN checked under the lockout
//! (wrong ones count toward the lock like at sign-in), and after a change the old PIN
//! refused and the new one signing in.

use crate::support;

use paydesk_access::{LockoutPolicy, Pin};
use paydesk_ledger::{Ledger, PinPurpose};
use serde_json::{json, Value};
use support::{app_signed_out, call, Window};

/// The demo cashier (README: Demo staff).
const CASHIER: &str = "Casey";
const CASHIER_PIN: &str = "3333";

fn err(r: Result<Value, Value>) -> Value {
    r.expect_err("refused")
}

fn change(w: &Window, old: &str, new: &str, again: &str) -> Result<Value, Value> {
    call(w, "change_pin", json!({ "oldPin": old, "newPin": new, "newPinAgain": again }))
}

/// The audit rows of `action` so far.
fn audited(dir: &std::path::Path, action: &str) -> usize {
    let l = Ledger::open_reader(dir.join("ledger.db")).unwrap();
    l.audit().log().unwrap().iter().filter(|r| r.action == action).count()
}

#[test]
fn a_pin_change_needs_the_current_pin_and_the_new_one_twice_then_only_the_new_one_signs_in() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    assert_eq!(err(change(&w, CASHIER_PIN, "4826", "4826"))["code"], "not_signed_in");
    call(&w, "sign_in", json!({ "name": CASHIER, "pin": CASHIER_PIN })).expect("the cashier signs in");

    // Refused by the command before any PIN is checked: no try is counted for these.
    let differ = err(change(&w, CASHIER_PIN, "4826", "4827"));
    assert_eq!((differ["code"].as_str(), differ["message"].as_str()), (Some("invalid_input"), Some("The two new PINs differ. Type the same new PIN twice.")));
    let same = err(change(&w, CASHIER_PIN, CASHIER_PIN, CASHIER_PIN));
    assert_eq!((same["code"].as_str(), same["message"].as_str()), (Some("invalid_input"), Some("The new PIN is the same as the current one. Choose a different PIN.")));
    let shape = err(change(&w, CASHIER_PIN, "12", "12"));
    assert_eq!((shape["code"].as_str(), shape["message"].as_str()), (Some("invalid_input"), Some("A PIN is 4 to 8 digits.")));
    let shape = err(change(&w, "12a4", "4826", "4826"));
    assert_eq!(shape["message"], "A PIN is 4 to 8 digits.");
    assert_eq!(audited(dir.path(), "pin_change_failed") + audited(dir.path(), "pin_change_checked"), 0, "no PIN was checked");

    assert_eq!(change(&w, CASHIER_PIN, "4826", "4826").expect("changed"), Value::Null);
    // Still signed in, as the same person.
    assert_eq!(call(&w, "whoami", json!({})).unwrap()["signed_in"]["name"], CASHIER);
    assert_eq!((audited(dir.path(), "pin_change_checked"), audited(dir.path(), "pin_change")), (1, 1));

    call(&w, "sign_out", json!({})).unwrap();
    let old = err(call(&w, "sign_in", json!({ "name": CASHIER, "pin": CASHIER_PIN })));
    // a sign-in answers a wrong PIN as an unknown name: no tries left (issue 28)
    assert_eq!((old["code"].as_str(), old["attempts_left"].as_u64()), (Some("wrong_pin"), None), "{old}");
    let me = call(&w, "sign_in", json!({ "name": CASHIER, "pin": "4826" })).expect("the new PIN signs in");
    assert_eq!((me["name"].as_str(), me["role"].as_str()), (Some(CASHIER), Some("cashier")));
    // The PIN is the new one for approvals too (the same stored PIN).
    let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    let now = paydesk_app::base::now_ms();
    let policy = LockoutPolicy::default();
    assert!(l.roster_mut().check_pin(CASHIER, &Pin::parse("4826").unwrap(), PinPurpose::Approval, policy, now).is_ok());
}

#[test]
fn wrong_current_pins_count_toward_the_lock_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    call(&w, "sign_in", json!({ "name": CASHIER, "pin": CASHIER_PIN })).expect("the cashier signs in");

    for left in [4, 3, 2, 1] {
        let e = err(change(&w, "0000", "4826", "4826"));
        assert_eq!((e["code"].as_str(), e["attempts_left"].as_u64()), (Some("wrong_pin"), Some(left)), "{e}");
        assert_eq!(e["message"], format!("Wrong PIN. {left} tries left before the lock."));
    }
    let locked = err(change(&w, "0000", "4826", "4826"));
    assert_eq!(locked["code"], "staff_locked", "{locked}");
    let until = locked["until_ms"].as_i64().expect("until when");
    assert!(until > paydesk_app::base::now_ms(), "{locked}");
    // While locked the right PIN is not even checked, here or at sign-in.
    assert_eq!(err(change(&w, CASHIER_PIN, "4826", "4826"))["code"], "staff_locked");
    assert_eq!(audited(dir.path(), "pin_change_failed"), 5);
    call(&w, "sign_out", json!({})).unwrap();
    assert_eq!(err(call(&w, "sign_in", json!({ "name": CASHIER, "pin": CASHIER_PIN })))["code"], "staff_locked");

    // Nothing changed: after the lock the old PIN is still the one (checked as the ledger
    // would after the lock ends, and never the refused new one).
    let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    let staff = l.roster().by_name(CASHIER).unwrap().unwrap();
    assert_eq!(staff.locked_until_ms, Some(until));
    let policy = LockoutPolicy::default();
    assert!(l.roster_mut().check_pin(CASHIER, &Pin::parse("4826").unwrap(), PinPurpose::SignIn, policy, until + 1).is_err());
    assert!(l.roster_mut().check_pin(CASHIER, &Pin::parse(CASHIER_PIN).unwrap(), PinPurpose::SignIn, policy, until + 2).is_ok());
}
