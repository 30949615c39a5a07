//! A tax-exempt sale in the app (record 0135): the command holds the role table (the screen
//! only hides the button): a cashier's press asks for a manager's approval, an approved one
//! is audited naming both, a bad reason and a sale with a tender are refused with their
//! codes, and the exempt sale's receipt and total bear no tax.

use crate::support;

use paydesk_access::{Pin, Role};
use paydesk_ledger::Ledger;
use serde_json::{json, Value};
use support::{app_signed_out, call, Window};

const REASON: &str = "Resale certificate ST-120 #4471";

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

/// The en-US demo store (New York City, 8.875 %) with an owner, a manager (Marcus 2222) and
/// a cashier (Casey 3333), the cashier signed in with a shift open and a coffee $2.50 and an
/// egg sandwich $6.95 rung up: $10.29 taxed.
fn cashier_with_a_sale(dir: &std::path::Path) -> (support::App, Window) {
    {
        let mut l = Ledger::open(dir.join("ledger.db")).unwrap();
        let owner = l.roster_mut().add("Olivia", Role::Owner, &Pin::parse("1111").unwrap(), None, now_ms()).unwrap();
        l.roster_mut().add("Marcus", Role::Manager, &Pin::parse("2222").unwrap(), Some(owner.id), now_ms()).unwrap();
        l.roster_mut().add("Casey", Role::Cashier, &Pin::parse("3333").unwrap(), Some(owner.id), now_ms()).unwrap();
    }
    let (app, w) = app_signed_out(dir, paydesk_app::Options { demo_store: Some("en-US".into()), ..Default::default() });
    call(&w, "sign_in", json!({ "name": "Casey", "pin": "3333" })).expect("the cashier signs in");
    call(&w, "shift_open", json!({ "float": [] })).expect("a shift");
    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    let cart = call(&w, "scan", json!({ "code": "SAN-001" })).unwrap();
    assert_eq!((cart["total"].as_i64(), cart["tax_total"].as_i64()), (Some(1029), Some(84)), "{cart}");
    (app, w)
}

fn manager() -> Value {
    json!({ "name": "Marcus", "pin": "2222" })
}

fn code(r: Result<Value, Value>) -> String {
    r.expect_err("refused")["code"].as_str().unwrap().to_string()
}

#[test]
fn a_cashier_needs_a_managers_approval_and_the_exempt_sale_is_paid_untaxed() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = cashier_with_a_sale(dir.path());
    // The command refuses, whatever the screen shows: nothing changes.
    let e = call(&w, "set_tax_exempt", json!({ "reason": REASON })).unwrap_err();
    assert_eq!((e["code"].as_str(), e["action"].as_str(), e["min_role"].as_str()), (Some("approval_required"), Some("tax_exempt"), Some("manager")), "{e}");
    assert_eq!(call(&w, "get_cart", json!({})).unwrap()["tax_total"], 84);
    // A wrong PIN is no approval.
    let wrong = call(&w, "set_tax_exempt", json!({ "reason": REASON, "approval": { "name": "Marcus", "pin": "9999" } })).unwrap_err();
    assert_ne!(wrong["code"], Value::Null);
    assert_eq!(call(&w, "get_cart", json!({})).unwrap()["tax_exempt_reason"], Value::Null);
    // A bad reason is refused by its code, approved or not.
    assert_eq!(code(call(&w, "set_tax_exempt", json!({ "reason": " ab ", "approval": manager() }))), "exempt_reason");

    let cart = call(&w, "set_tax_exempt", json!({ "reason": REASON, "approval": manager() })).unwrap();
    assert_eq!((cart["total"].as_i64(), cart["tax_total"].as_i64()), (Some(945), Some(0)), "{cart}");
    assert_eq!(cart["tax_exempt_reason"], REASON);
    let page = call(&w, "audit_page", json!({ "limit": 50 })).unwrap();
    let rows: Vec<&Value> = page.as_array().unwrap().iter().filter(|r| r["action"] == "tax_exempt_set").collect();
    assert_eq!(rows.len(), 1, "{page}");
    assert_eq!((rows[0]["actor"].as_str(), rows[0]["approver"].as_str()), (Some("Casey"), Some("Marcus")), "{}", rows[0]);

    // Part paid: the exemption no longer changes, by its own code.
    call(&w, "pay_cash", json!({ "tendered": "5.00", "seenTenders": 0 })).unwrap();
    assert_eq!(code(call(&w, "set_tax_exempt", json!({ "reason": null, "approval": manager() }))), "exempt_tendered");
    let paid = call(&w, "pay_cash", json!({ "tendered": "4.45", "seenTenders": 1 })).unwrap();
    assert_eq!(paid["sale"]["state"], "paid", "{paid}");
    let receipt = call(&w, "get_receipt", json!({ "cart": paid["sale"]["cart_id"] })).unwrap();
    let text = receipt.to_string();
    assert!(text.contains(&format!("Tax exempt: {REASON}")), "{text}");
    assert!(!text.contains("8.875"), "{text}");
}
