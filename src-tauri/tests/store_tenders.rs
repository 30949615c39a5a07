//! Store tenders through the app's commands (record 0122), on Tauri's mock runtime over a
//! real ledger file: the type's checks and refusals by code with nothing written, the
//! manager's settings refused to a cashier in the command, a ¥1,000 voucher on an ¥800
//! sale (¥200 kept, no change, no drawer movement), and the X report and End of day listing
//! the type by name — on paper too.

use crate::support;

use paydesk_ledger::{CartId, Ledger};
use serde_json::{json, Value};
use support::{app_with, call, Window};

fn ja() -> paydesk_app::Options {
    paydesk_app::Options { demo_store: Some("ja-JP".into()), ..Default::default() }
}

fn ledger(dir: &std::path::Path) -> Ledger {
    Ledger::open(dir.join("ledger.db")).unwrap()
}

fn code(r: Result<Value, Value>) -> String {
    r.expect_err("refused")["code"].as_str().unwrap().to_string()
}

fn add(w: &Window, name: &str, kind: &str, gives_change: bool) -> Result<Value, Value> {
    call(w, "add_tender_type", json!({ "form": { "name": name, "kind": kind, "gives_change": gives_change, "counts_for_stamp": false } }))
}

fn pay(w: &Window, ty: i64, amount: &str, reference: &str, seen: u32) -> Result<Value, Value> {
    call(w, "pay_store_tender", json!({ "tenderType": ty, "amount": amount, "reference": reference, "seenTenders": seen }))
}

/// Muffin ¥280 + egg sandwich ¥390 + sparkling water ¥130 = ¥800.
fn ring_up_800(w: &Window) -> CartId {
    for s in ["MUF-001", "SAN-001", "WAT-001"] {
        call(w, "scan", json!({ "code": s })).unwrap();
    }
    let cart = call(w, "get_cart", json!({})).unwrap();
    assert_eq!(cart["total"], 800, "{cart}");
    CartId(cart["id"].as_i64().unwrap())
}

#[test]
fn a_tender_type_is_checked_and_refused_by_code_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_with(dir.path(), ja());
    let ty = add(&w, " 商品券 ", "voucher", false).unwrap();
    assert_eq!((ty["name"].as_str(), ty["kind"].as_str(), ty["gives_change"].as_bool()), (Some("商品券"), Some("voucher"), Some(false)));
    let id = ty["id"].as_i64().unwrap();
    assert_eq!(code(add(&w, "商品券", "voucher", false)), "tender_type_name_taken");
    assert_eq!(code(add(&w, "PayPay", "cash", false)), "invalid_input");
    assert_eq!(code(add(&w, &"券".repeat(41), "voucher", false)), "invalid_input");
    assert_eq!(ledger(dir.path()).tender_types().list().unwrap().len(), 1);

    let cart = ring_up_800(&w);
    assert_eq!(code(pay(&w, 999, "800", "", 0)), "unknown_tender_type");
    assert_eq!(code(pay(&w, id, "800", &"x".repeat(41), 0)), "invalid_input");
    assert_eq!(code(pay(&w, id, "0", "", 0)), "invalid_input");
    assert_eq!(code(pay(&w, id, "100000000000000", "", 0)), "invalid_input");
    assert_eq!(code(pay(&w, id, "800.5", "", 0)), "invalid_input", "no decimals in yen");
    assert_eq!(code(pay(&w, id, "800", "", 1)), "sale_changed", "a press on an out-of-date view");

    // Switched off: not offered, and refused by code.
    let off = call(&w, "set_tender_type_active", json!({ "id": id, "active": false })).unwrap();
    assert_eq!(off["active"], false);
    assert_eq!(call(&w, "list_tender_types", json!({})).unwrap(), json!([]));
    assert_eq!(call(&w, "list_all_tender_types", json!({})).unwrap()[0]["active"], false);
    let refused = pay(&w, id, "800", "", 0).unwrap_err();
    assert_eq!(refused["code"], "tender_type_inactive");
    assert!(refused["message"].as_str().unwrap().contains("商品券"), "{refused}");
    assert_eq!(code(call(&w, "set_tender_type_active", json!({ "id": 999, "active": true }))), "unknown_tender_type");
    assert!(ledger(dir.path()).sales().by_cart(cart).unwrap().tenders.is_empty(), "nothing was taken");
}

#[test]
fn a_voucher_with_no_change_keeps_200_yen_and_the_reports_name_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_with(dir.path(), ja());
    let id = add(&w, "商品券", "voucher", false).unwrap()["id"].as_i64().unwrap();
    let offered = call(&w, "list_tender_types", json!({})).unwrap();
    assert_eq!(offered.as_array().unwrap().iter().map(|t| t["id"].as_i64().unwrap()).collect::<Vec<_>>(), vec![id]);
    let drawer_before: i64 = ledger(dir.path()).sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum();
    let cart = ring_up_800(&w);

    let r = pay(&w, id, "1000", "V-0001", 0).unwrap();
    assert_eq!((r["offered"].as_i64(), r["amount"].as_i64(), r["change"].as_i64(), r["forfeited"].as_i64()), (Some(1000), Some(800), Some(0), Some(200)));
    assert_eq!(r["forfeited_display"], "¥200");
    assert_eq!(r["sale"]["complete"], true);
    assert_eq!(r["message"], "商品券 を受け取りました。お支払い完了です。お釣りなし ¥200。");
    let row = &r["sale"]["tenders"][0];
    assert_eq!((row["kind"].as_str(), row["card_label"].as_str(), row["reference"].as_str(), row["forfeited"].as_i64()), (Some("store"), Some("商品券"), Some("V-0001"), Some(200)));

    let l = ledger(dir.path());
    let t = &l.sales().by_cart(cart).unwrap().tenders[0];
    let s = t.store.as_ref().unwrap();
    assert_eq!((t.amount.amount_minor, s.offered_minor, s.forfeited_minor, t.change_minor.unwrap_or(0)), (800, 1000, 200, 0));
    assert!(l.sales().cash_movements(Some(cart)).unwrap().is_empty());
    let drawer_after: i64 = l.sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum();
    assert_eq!(drawer_after, drawer_before, "the drawer expects what it did before");

    // End of day: a tile per type. The X report: a line per type, by name, on paper too.
    let day = call(&w, "get_report", json!({})).unwrap();
    assert_eq!(day["by_store_type"], json!([{ "id": id, "name": "商品券", "count": 1, "amount": 800, "amount_display": "¥800" }]));
    let x = call(&w, "x_report", json!({})).unwrap();
    let lines = x["report"]["data"]["tenders"].as_array().unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!((lines[0]["kind"].as_str(), lines[0]["name"].as_str(), lines[0]["count"].as_i64(), lines[0]["amount"].as_i64()), (Some("store"), Some("商品券"), Some(1), Some(800)));
    let text: Vec<&str> = x["text"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().trim()).collect();
    let printed = text.iter().find(|l| l.starts_with("商品券 x 1")).unwrap_or_else(|| panic!("{text:#?}"));
    assert!(printed.ends_with("¥800"), "{printed}");
    assert!(!text.iter().any(|l| l.starts_with("その他 x")), "nothing lumped: {text:#?}");
}

#[test]
fn a_cashier_is_refused_the_tender_type_settings_by_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app_with(dir.path(), ja());
    let id = add(&w, "商品券", "voucher", false).unwrap()["id"].as_i64().unwrap();
    call(&w, "sign_out", json!({})).unwrap();
    call(&w, "sign_in", json!({ "name": "鈴木", "pin": "3333" })).unwrap();
    assert_eq!(code(add(&w, "PayPay", "qr", false)), "approval_required");
    assert_eq!(code(call(&w, "set_tender_type_active", json!({ "id": id, "active": false }))), "approval_required");
    let types = ledger(dir.path()).tender_types().list().unwrap();
    assert_eq!(types.iter().map(|t| (t.name.as_str(), t.active)).collect::<Vec<_>>(), vec![("商品券", true)]);
    // Taking one is any cashier's.
    let cart = ring_up_800(&w);
    assert_eq!(pay(&w, id, "800", "", 0).unwrap()["sale"]["complete"], true);
    assert_eq!(ledger(dir.path()).sales().by_cart(cart).unwrap().tenders.len(), 1);
}

/// Record 0148: a card of ¥300 accepted offline, then a gift card of ¥1,000 for the ¥500
/// left (¥500 change from the drawer); the card is declined when forwarded and the sale
/// reopens. Cancel sale says to give the gift card's ¥1,000 back and take the ¥500 change
/// back (typed fields and the message), and the X report's drawer is as it was.
#[test]
fn a_cancel_gives_the_gift_card_back_and_takes_its_change_back() {
    use paydesk_domain::PaymentState;
    use tauri::Manager;
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app_with(dir.path(), ja());
    let state = app.state::<paydesk_app::AppState>();
    let gift = add(&w, "Gift card", "voucher", true).unwrap()["id"].as_i64().unwrap();
    let drawer = |w: &Window| call(w, "x_report", json!({})).unwrap()["report"]["data"].clone();
    let before = drawer(&w);
    let cart = ring_up_800(&w);
    let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    // The card as the engine records one accepted offline, and its decline at forwarding.
    let card = state.engine().ledger_for_tests(|l| {
        let t = l.sales_mut().open_card_tender(cart, Some(300), &paydesk_ledger::CheckoutOptions::card("pm_card_chargeDeclined"), None, now()).unwrap();
        l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::QueuedOffline, "accepted offline", now()).unwrap();
        t.payment.id
    });
    let r = pay(&w, gift, "1000", "GC-9", 1).unwrap();
    assert_eq!((r["change"].as_i64(), r["sale"]["complete"].as_bool()), (Some(500), Some(true)), "{r}");
    state.engine().ledger_for_tests(|l| {
        l.payments_mut().transition(card, PaymentState::QueuedOffline, PaymentState::Authorizing, "forwarded", now()).unwrap();
        l.payments_mut().transition(card, PaymentState::Authorizing, PaymentState::Failed, "declined at forwarding", now()).unwrap();
    });

    let c = call(&w, "cancel_sale", json!({ "reason": "customer gave it all back" })).unwrap();
    assert_eq!(c["sale"]["state"], "canceled", "{c}");
    assert_eq!((c["cash_returned"].as_i64(), c["change_collected"].as_i64()), (Some(0), Some(500)), "{c}");
    assert_eq!(c["change_collected_display"], "¥500");
    assert_eq!(
        c["store_lines"],
        json!([{ "type_name": "Gift card", "reference": "GC-9", "give_back": 1000, "give_back_display": "¥1,000", "change_collected": 500, "change_collected_display": "¥500" }])
    );
    assert!(c["message"].as_str().unwrap().contains("お釣り ¥500"), "{c}");
    let after = drawer(&w);
    assert_eq!(after["cash_received"].as_i64(), Some(before["cash_received"].as_i64().unwrap() + 500), "{after}");
    assert_eq!(after["change_given"].as_i64(), Some(before["change_given"].as_i64().unwrap() + 500), "{after}");
    let l = ledger(dir.path());
    assert_eq!(l.sales().cash_movements(Some(cart)).unwrap().iter().map(|m| m.amount.amount_minor).sum::<i64>(), 0, "the drawer is as it was");
    // Pressed again: nothing more to collect.
    let again = call(&w, "cancel_sale", json!({ "reason": "customer gave it all back" })).unwrap();
    assert_eq!((again["change_collected"].as_i64(), again["store_lines"].as_array().map(Vec::len)), (Some(0), Some(0)));
}
