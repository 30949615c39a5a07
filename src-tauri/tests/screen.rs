//! What the register's screens were told, command by command (issue #28, "screen defects
//! found by trying it"): the next scan after a paid sale begins the next sale; a sale with
//! no shift open is refused at its first item; About names the fault profile in use; a
//! printer change is in the audit chain with who and both targets; an approval is asked
//! of "an owner".

use crate::support;

use paydesk_ledger::Ledger;
use serde_json::{json, Value};
use support::{app, app_signed_out, call, OWNER_PIN};
use tauri::Manager;

fn code(r: Result<Value, Value>) -> String {
    r.expect_err("refused")["code"].as_str().unwrap().to_string()
}

#[test]
fn the_next_scan_after_a_paid_sale_begins_the_next_sale() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());

    // A card sale, paid: the cart on screen is locked.
    let first = call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    let paid = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(paid["kind"], "approved", "{paid}");
    assert_eq!(paid["cart"]["locked"], true);

    // The next customer's first item: a new sale with that item only, not "cart is locked".
    let next = call(&w, "scan", json!({ "code": "MUG-001" })).expect("the scan begins the next sale");
    assert_ne!(next["id"], first["id"]);
    assert_eq!(next["lines"].as_array().unwrap().len(), 1, "{next}");
    assert_eq!((next["lines"][0]["sku"].as_str(), next["lines"][0]["quantity"].as_i64()), (Some("MUG-001"), Some(1)));
    assert_eq!(next["locked"], false);
    // The paid sale is as it was: one line, paid, its payment on screen no more.
    let sale = Ledger::open(dir.path().join("ledger.db")).unwrap().sales().by_cart(paydesk_ledger::CartId(first["id"].as_i64().unwrap())).unwrap();
    assert_eq!((sale.state, sale.cart.lines.len()), (paydesk_ledger::SaleState::Paid, 1));
    assert_eq!(call(&w, "current_checkout", json!({})).unwrap(), Value::Null);

    // A cash sale, paid in full: the same.
    let r = call(&w, "pay_cash", json!({ "tendered": "20.00", "seenTenders": 0 })).unwrap();
    assert_eq!(r["sale"]["complete"], true, "{r}");
    let third = call(&w, "scan", json!({ "code": "COF-001" })).expect("the scan begins the next sale");
    assert_ne!(third["id"], next["id"]);
    assert_eq!(third["lines"].as_array().unwrap().len(), 1, "{third}");

    // A sale part paid is not over: its cart stays as it is.
    let r = call(&w, "pay_cash", json!({ "tendered": "1.00", "seenTenders": 0 })).unwrap();
    assert_eq!(r["sale"]["complete"], false, "{r}");
    assert_eq!(code(call(&w, "scan", json!({ "code": "MUG-001" }))), "cart_locked");
    assert_eq!(call(&w, "get_cart", json!({})).unwrap()["id"], third["id"]);
}

#[test]
fn a_sale_without_a_shift_is_refused_at_its_first_item() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    call(&w, "sign_in", json!({ "name": "Olivia", "pin": OWNER_PIN })).expect("the owner signs in");

    // No shift: the first item is refused with its own code (the screen offers to open
    // one), by scan and by typing a quantity alike; nothing is in the cart.
    assert_eq!(code(call(&w, "scan", json!({ "code": "COF-001" }))), "no_open_shift");
    assert_eq!(code(call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": 2 }))), "no_open_shift");
    assert_eq!(call(&w, "get_cart", json!({})).unwrap()["lines"], json!([]));

    // A shift opened: the sale goes on as usual.
    support::owner_with_shift(dir.path(), &w);
    let cart = call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    assert_eq!(cart["lines"][0]["quantity"], 1);
}

#[test]
fn about_names_the_fault_profile_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());
    let settings = call(&w, "get_settings", json!({})).unwrap();
    let form = json!({ "settings": {
        "psp_url": "", "psp_key": "", "fault_profile": "chaos",
        "retention_hours": settings["retention_hours"].to_string(),
        "safety_margin_minutes": settings["safety_margin_minutes"].to_string(),
        "offline_max_amount": settings["offline_max_amount_display_plain"],
        "offline_max_total": settings["offline_max_total_display_plain"],
        "offline_max_count": settings["offline_max_count"].to_string(),
        "offline_max_age_hours": settings["offline_max_age_hours"].to_string(),
    } });
    let r = call(&w, "save_settings", form).unwrap();
    assert_eq!(r["applied"], "unchanged", "only the profile changed: {r}");
    assert_eq!(call(&w, "about", json!({})).unwrap()["fault_profile"], "chaos");
    assert_eq!(call(&w, "get_status", json!({})).unwrap()["fault_profile"], "chaos");
}

#[test]
fn a_printer_change_is_audited_with_who_and_both_targets() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());
    let owner = Ledger::open(dir.path().join("ledger.db")).unwrap().roster().signed_in().unwrap().expect("signed in").id;
    call(&w, "save_printer", json!({ "printer": "127.0.0.1:9100" })).unwrap();
    call(&w, "save_printer", json!({ "printer": "127.0.0.1:9101" })).unwrap();
    // Saving the same printer again changes nothing, and records nothing.
    call(&w, "save_printer", json!({ "printer": "127.0.0.1:9101" })).unwrap();
    call(&w, "save_printer", json!({ "printer": "" })).unwrap();

    let l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    let rows: Vec<_> = l.audit().log().unwrap().into_iter().filter(|r| r.action == "printer_changed").collect();
    let seen: Vec<(Option<String>, Option<i64>)> = rows.iter().map(|r| (r.detail.clone(), r.actor_id)).collect();
    assert_eq!(
        seen,
        vec![
            (Some("printer none → 127.0.0.1:9100".into()), Some(owner)),
            (Some("printer 127.0.0.1:9100 → 127.0.0.1:9101".into()), Some(owner)),
            (Some("printer 127.0.0.1:9101 → none".into()), Some(owner)),
        ]
    );
    assert_eq!(rows[1].before.as_deref(), Some(r#"{"printer":"127.0.0.1:9100"}"#));
    assert_eq!(rows[1].after.as_deref(), Some(r#"{"printer":"127.0.0.1:9101"}"#));
}

#[test]
fn an_approval_is_asked_of_an_owner() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options::default());
    call(&w, "sign_in", json!({ "name": "Marcus", "pin": "2222" })).expect("the manager signs in");
    let e = call(&w, "save_printer", json!({ "printer": "127.0.0.1:9100" })).expect_err("a setting is the owner's");
    assert_eq!(e["code"], "approval_required");
    assert_eq!(e["message"], "Changing the settings needs an owner's approval.");
}

#[test]
fn a_split_sale_is_refunded_card_to_its_card_and_the_rest_in_cash() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    // Coffee $2.50 + mug $14.95 = $17.45 + $1.55 tax (8.875 %, record 0131) = $19.00: $5.00
    // cash, the rest on a card.
    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    let cart = call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let id = cart["id"].as_i64().unwrap();
    call(&w, "pay_cash", json!({ "tendered": "5.00", "seenTenders": 0 })).unwrap();
    let r = call(&w, "pay_card", json!({ "paymentMethod": "pm_card_visa", "seenTenders": 1, "amount": "14.00" })).unwrap();
    assert_eq!(r["sale"]["complete"], true, "{r}");

    // Bad input is refused before anything moves.
    let refund = |amount: Value, reason: &str| call(&w, "refund_sale", json!({ "cart": id, "amount": amount, "reason": reason }));
    assert_eq!(code(refund(json!("1.00"), "no")), "invalid_input");
    assert_eq!(code(refund(json!("-1"), "returned")), "invalid_input");
    assert_eq!(code(refund(json!("99.00"), "returned")), "sale_refund_exceeds");
    assert_eq!(code(call(&w, "refund_sale", json!({ "cart": 0, "reason": "returned" }))), "invalid_input");

    // All of it: $14.00 back to the card, $5.00 from the drawer.
    let r = refund(Value::Null, "customer returned both").unwrap();
    assert_eq!((r["cash_out"].as_i64(), r["cash_out_display"].as_str()), (Some(500), Some("$5.00")), "{r}");
    assert_eq!(r["lines"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!((r["lines"][0]["amount_display"].as_str(), r["lines"][0]["tone"].as_str()), (Some("$14.00"), Some("ok")), "{r}");
    assert_eq!(r["message"], "Refunded. Hand back $5.00 in cash.");
    let state = app.state::<paydesk_app::AppState>();
    assert_eq!(state.embedded().unwrap().server.psp().stats()["refunds"], 1);
    // Nothing is left to refund: a second press takes nothing.
    assert_eq!(code(refund(Value::Null, "customer returned both")), "sale_refund_exceeds");
}
