//! Settings → Counter rules through the app's commands (issue #30, record 0136), in a ja-JP
//! demo store: the commands hold the role table (a cashier is refused, a manager needs the
//! owner's approval, which is audited); a 22 + 4 item digits + price label is unknown until
//! the store sets that rule, then rings its item at the printed price at once (the scan
//! path's cached rules are replaced); a bad rule is refused with its row and reason and
//! changes nothing; back to the built-in rules, the same code is unknown again; the
//! open-price limit and the exemptions switch are stored.

use crate::support;

use paydesk_ledger::Ledger;
use serde_json::{json, Value};
use support::{app_signed_out, call, Window};

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

/// 22 + item 1234 + the price in 6 digits + the check digit.
fn label_22(price: u32) -> String {
    let data = format!("221234{price:06}");
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", paydesk_tax::ean_check_digit(&d))
}

fn store(dir: &std::path::Path) -> (support::App, Window) {
    {
        let mut l = Ledger::open(dir.join("ledger.db")).unwrap();
        let pin = |p: &str| paydesk_access::Pin::parse(p).unwrap();
        let owner = l.roster_mut().add("山田", paydesk_access::Role::Owner, &pin("1111"), None, now_ms()).unwrap();
        l.roster_mut().add("佐藤", paydesk_access::Role::Manager, &pin("2222"), Some(owner.id), now_ms()).unwrap();
        l.roster_mut().add("鈴木", paydesk_access::Role::Cashier, &pin("3333"), Some(owner.id), now_ms()).unwrap();
    }
    app_signed_out(dir, paydesk_app::Options { demo_store: Some("ja-JP".into()), ..Default::default() })
}

fn form(rules: Value, limit: &str, exempt: bool) -> Value {
    json!({ "form": { "rules": rules, "open_price_limit": limit, "tax_exemptions": exempt } })
}

fn with_approval(mut args: Value, name: &str, pin: &str) -> Value {
    args["approval"] = json!({ "name": name, "pin": pin });
    args
}

#[test]
fn a_label_rule_set_on_settings_rings_its_labels_at_once_and_is_the_owners_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = store(dir.path());
    call(&w, "sign_in", json!({ "name": "山田", "pin": "1111" })).expect("the owner signs in");
    let item = json!({ "item": { "sku": "221234", "barcode": "", "name_en": "Croquettes", "name_ja": "コロッケ",
        "price": "500", "tax_class": "reduced", "active": true } });
    call(&w, "save_item", item).unwrap();
    call(&w, "shift_open", json!({ "float": [] })).expect("a shift");
    let now = call(&w, "get_counter_rules", json!({})).unwrap();
    assert_eq!((now["own"].as_bool(), now["open_price_limit"].as_str(), now["tax_exemptions"].as_bool()), (Some(false), Some("10000"), Some(false)), "{now}");
    assert_eq!(now["rules"][1], json!({ "prefix": "21", "item_digits": 5, "value": "grams" }));
    // Scanned once under the defaults, so the cached rules are in use before they change.
    assert_eq!(call(&w, "scan", json!({ "code": label_22(398) })).unwrap_err()["code"], "unknown_item");

    let rules = json!([{ "prefix": "22", "item_digits": 4, "value": "price" }, { "prefix": "21", "item_digits": 5, "value": "grams" }]);
    // A bad row is named, and nothing is stored.
    let bad = json!([{ "prefix": "22", "item_digits": 4, "value": "price" }, { "prefix": "22", "item_digits": 5, "value": "grams" }]);
    let e = call(&w, "save_counter_rules", form(bad, "10000", false)).unwrap_err();
    assert_eq!(e["code"], "invalid_input", "{e}");
    assert!(e["message"].as_str().unwrap().contains("ルール 2"), "{e}");
    let e = call(&w, "save_counter_rules", form(rules.clone(), "-5", false)).unwrap_err();
    assert_eq!(e["code"], "invalid_input", "{e}");
    assert_eq!(call(&w, "get_counter_rules", json!({})).unwrap()["own"], false);

    let saved = call(&w, "save_counter_rules", form(rules.clone(), "5000", false)).unwrap();
    assert_eq!((saved["own"].as_bool(), saved["open_price_limit"].as_str(), saved["tax_exemptions_default"].as_bool()), (Some(true), Some("5000"), Some(true)), "{saved}");
    let cart = call(&w, "scan", json!({ "code": label_22(398) })).unwrap();
    let line = &cart["lines"][0];
    assert_eq!((line["sku"].as_str(), line["unit_price"].as_i64()), (Some("221234"), Some(398)), "{cart}");

    // Back to the built-in rules: the same code is a plain barcode no item has.
    let back = call(&w, "reset_label_rules", json!({})).unwrap();
    assert_eq!(back["own"], false);
    assert_eq!(call(&w, "scan", json!({ "code": label_22(398) })).unwrap_err()["code"], "unknown_item");

    // A cashier is refused; a manager needs the owner's approval, and it is audited.
    call(&w, "sign_out", json!({})).unwrap();
    call(&w, "sign_in", json!({ "name": "鈴木", "pin": "3333" })).unwrap();
    assert_eq!(call(&w, "save_counter_rules", form(rules.clone(), "5000", true)).unwrap_err()["code"], "approval_required");
    let e = call(&w, "save_counter_rules", with_approval(form(rules.clone(), "5000", true), "佐藤", "2222")).unwrap_err();
    assert_eq!(e["code"], "not_allowed", "a manager cannot approve the owner's setting: {e}");
    call(&w, "sign_out", json!({})).unwrap();
    call(&w, "sign_in", json!({ "name": "佐藤", "pin": "2222" })).unwrap();
    assert_eq!(call(&w, "save_counter_rules", form(rules.clone(), "5000", true)).unwrap_err()["code"], "approval_required");
    let saved = call(&w, "save_counter_rules", with_approval(form(rules, "5000", true), "山田", "1111")).unwrap();
    assert_eq!((saved["tax_exemptions"].as_bool(), saved["tax_exemptions_default"].as_bool(), saved["own"].as_bool()), (Some(true), Some(false), Some(true)), "{saved}");
    let page = call(&w, "audit_page", json!({ "limit": 50 })).unwrap();
    let rows: Vec<&Value> = page.as_array().unwrap().iter().filter(|r| r["action"] == "in_store_rules" || r["action"] == "store_tax_exemptions").collect();
    assert!(rows.iter().any(|r| r["action"] == "store_tax_exemptions" && r["actor"] == "佐藤" && r["approver"] == "山田"), "{page}");
    assert_eq!(rows.iter().filter(|r| r["action"] == "in_store_rules").count(), 3, "set, reset, set again: {page}");
}
