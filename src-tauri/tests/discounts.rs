//! The cashier's discount limit (record 0068) holds on the bases the customer pays on:
//! an amount discount within the limit on ten items, then the quantity changed to one
//! (100 % off), is refused without a manager and allowed with one (audited); a base
//! changed past the app's own check is caught at the first tender. Also: shift close and
//! paid in / out by a cashier ask for an approval the way a refund does.

use crate::support;

use paydesk_access::{Pin, Role};
use paydesk_ledger::{CartId, Ledger};
use serde_json::{json, Value};
use support::{app_signed_out, call, Window};

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

/// A ja-JP store with an owner (山田 1111) and a cashier (鈴木 3333), the cashier signed
/// in with a shift open.
fn cashier_at_the_register(dir: &std::path::Path) -> (support::App, Window) {
    {
        let mut l = Ledger::open(dir.join("ledger.db")).unwrap();
        let owner = l.roster_mut().add("山田", Role::Owner, &Pin::parse("1111").unwrap(), None, now_ms()).unwrap();
        l.roster_mut().add("鈴木", Role::Cashier, &Pin::parse("3333").unwrap(), Some(owner.id), now_ms()).unwrap();
    }
    let (app, w) = app_signed_out(dir, paydesk_app::Options { demo_store: Some("ja-JP".into()), ..Default::default() });
    call(&w, "sign_in", json!({ "name": "鈴木", "pin": "3333" })).expect("the cashier signs in");
    call(&w, "shift_open", json!({ "float": [] })).expect("a shift");
    (app, w)
}

fn owner() -> Value {
    json!({ "name": "山田", "pin": "1111" })
}

fn refused_for_approval(r: Result<Value, Value>) -> Value {
    let e = r.expect_err("asks for an approval");
    assert_eq!(e["code"], "approval_required", "{e}");
    e
}

/// Audit rows (newest first) of `action`: (actor, approver, subject).
fn audited(w: &Window, action: &str) -> Vec<(Value, Value, Value)> {
    let page = call(w, "audit_page", json!({ "limit": 50 })).unwrap();
    page.as_array().unwrap().iter().filter(|r| r["action"] == action).map(|r| (r["actor"].clone(), r["approver"].clone(), r["subject"].clone())).collect()
}

/// Ten coffees with ¥(one coffee's price) off: exactly the cashier's 10 %.
fn ten_coffees_one_free(w: &Window) -> i64 {
    call(w, "scan", json!({ "code": "COF-001" })).unwrap();
    let cart = call(w, "set_quantity", json!({ "sku": "COF-001", "quantity": 10 })).unwrap();
    let unit = cart["lines"][0]["unit_price"].as_i64().unwrap();
    let d = json!({ "kind": "amount", "value": unit.to_string() });
    let cart = call(w, "set_line_discount", json!({ "sku": "COF-001", "discount": d })).expect("10 % is the cashier's");
    assert_eq!(cart["lines"][0]["discount"], unit);
    unit
}

#[test]
fn an_amount_discount_left_on_one_item_needs_a_manager() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = cashier_at_the_register(dir.path());
    let unit = ten_coffees_one_free(&w);

    // One item left: the discount is 100 % of it. Refused, and nothing changed.
    let e = refused_for_approval(call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": 1 })));
    assert_eq!((e["action"].as_str(), e["min_role"].as_str()), (Some("discount_above_limit"), Some("manager")), "{e}");
    assert_eq!(call(&w, "get_cart", json!({})).unwrap()["lines"][0]["quantity"], 10);
    // Two items: 50 %, refused too; a quantity within the limit goes through.
    refused_for_approval(call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": 2 })));
    assert_eq!(call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": 12 })).unwrap()["lines"][0]["quantity"], 12);
    assert!(audited(&w, "approved_discount_above_limit").is_empty());

    // With the owner's approval: allowed, and the audit log names both.
    let cart = call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": 1, "approval": owner() })).unwrap();
    assert_eq!((cart["lines"][0]["quantity"].as_i64(), cart["total"].as_i64()), (Some(1), Some(0)), "{cart}");
    let rows = audited(&w, "approved_discount_above_limit");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!((rows[0].0.as_str(), rows[0].1.as_str()), (Some("鈴木"), Some("山田")));
    assert!(rows[0].2.as_str().unwrap().contains("COF-001"), "{rows:?}");

    // The approved discount is not asked for again at the first tender.
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let due = call(&w, "get_sale", json!({})).unwrap()["due"].as_i64().unwrap();
    assert!(due > 0 && unit > 0);
    let paid = call(&w, "pay_cash", json!({ "tendered": due.to_string(), "seenTenders": 0 })).unwrap();
    assert_eq!(paid["sale"]["complete"], true, "{paid}");
    assert_eq!(audited(&w, "approved_discount_above_limit").len(), 1);
}

#[test]
fn a_base_changed_behind_the_screen_is_caught_at_the_first_tender() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = cashier_at_the_register(dir.path());
    ten_coffees_one_free(&w);
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let cart = CartId(call(&w, "get_cart", json!({})).unwrap()["id"].as_i64().unwrap());
    // The quantity changed past the app's check (straight in the ledger).
    Ledger::open(dir.path().join("ledger.db")).unwrap().carts_mut().set_quantity(cart, "COF-001", 1, now_ms()).unwrap();
    let due = call(&w, "get_sale", json!({})).unwrap()["due"].as_i64().unwrap().to_string();

    for (cmd, args) in [
        ("pay_cash", json!({ "tendered": due, "seenTenders": 0 })),
        ("pay_card", json!({ "paymentMethod": "pm_card_visa", "seenTenders": 0 })),
        ("charge", json!({ "paymentMethod": "pm_card_visa" })),
    ] {
        let e = refused_for_approval(call(&w, cmd, args));
        assert_eq!(e["action"], "discount_above_limit", "{cmd}: {e}");
    }
    assert_eq!(call(&w, "get_sale", json!({})).unwrap()["tenders"].as_array().unwrap().len(), 0, "nothing taken");

    // Approved at the tender: taken, and audited with both names.
    let paid = call(&w, "pay_cash", json!({ "tendered": due, "seenTenders": 0, "approval": owner() })).unwrap();
    assert_eq!(paid["sale"]["complete"], true, "{paid}");
    let rows = audited(&w, "approved_discount_above_limit");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!((rows[0].0.as_str(), rows[0].1.as_str()), (Some("鈴木"), Some("山田")));
}

/// Paid in, paid out and the close are a manager's: a cashier's is refused with the
/// approval error a refund gives (the screen opens the same dialog for it), and goes
/// through with the approval.
#[test]
fn shift_close_and_paid_in_out_ask_for_an_approval_like_a_refund() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = cashier_at_the_register(dir.path());
    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    let o = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(o["kind"], "approved", "{o}");
    call(&w, "new_sale", json!({})).unwrap();
    let refund = refused_for_approval(call(&w, "refund", json!({ "paymentId": o["checkout_key"], "amount": "10" })));
    let shape = |e: &Value| {
        let mut keys: Vec<String> = e.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        (keys, e["min_role"].clone())
    };
    for (cmd, args) in [
        ("paid_in", json!({ "amount": "500", "reason": "両替の追加" })),
        ("paid_out", json!({ "amount": "100", "reason": "牛乳の仕入れ" })),
        ("shift_close", json!({ "counted": [] })),
    ] {
        let e = refused_for_approval(call(&w, cmd, args.clone()));
        assert_eq!(shape(&e), shape(&refund), "{cmd}: {e}");
        let mut with = args;
        with["approval"] = owner();
        call(&w, cmd, with).unwrap_or_else(|e| panic!("{cmd} with the owner's approval: {e}"));
    }
    let closes = audited(&w, "shift_close");
    assert_eq!((closes[0].0.as_str(), closes[0].1.as_str()), (Some("鈴木"), Some("山田")));
}
