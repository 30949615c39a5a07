//! Weighed goods through the app's commands (issue #30, record 0134), in a ja-JP demo store
//! with a cashier signed in: the nuts are a weighed item in the list; a scale label scanned
//! in the scan field rings 152 g at ¥398/100g (¥605), the grams typed for the item list
//! ring a second line; the commands refuse grams out of range and an item by the piece
//! without asking the screen; a weighed line is removed by its number, never counted up.

use crate::support;

use paydesk_ledger::Ledger;
use serde_json::{json, Value};
use support::{app_signed_out, call, Window};

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

fn cashier(dir: &std::path::Path) -> (support::App, Window) {
    {
        let mut l = Ledger::open(dir.join("ledger.db")).unwrap();
        let pin = |p: &str| paydesk_access::Pin::parse(p).unwrap();
        let owner = l.roster_mut().add("山田", paydesk_access::Role::Owner, &pin("1111"), None, now_ms()).unwrap();
        l.roster_mut().add("鈴木", paydesk_access::Role::Cashier, &pin("3333"), Some(owner.id), now_ms()).unwrap();
    }
    let (app, w) = app_signed_out(dir, paydesk_app::Options { demo_store: Some("ja-JP".into()), ..Default::default() });
    call(&w, "sign_in", json!({ "name": "鈴木", "pin": "3333" })).expect("the cashier signs in");
    call(&w, "shift_open", json!({ "float": [] })).expect("a shift");
    (app, w)
}

fn label(grams: u32) -> String {
    let data = format!("2100001{grams:05}");
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", paydesk_tax::ean_check_digit(&d))
}

fn weighed(cart: &Value) -> Vec<(i64, i64, String)> {
    cart["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| !l["weight_display"].is_null())
        .map(|l| (l["line_no"].as_i64().unwrap(), l["line_total"].as_i64().unwrap(), l["weight_display"].as_str().unwrap().into()))
        .collect()
}

#[test]
fn a_weight_label_and_typed_grams_ring_weighed_lines_and_the_commands_check_the_grams() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = cashier(dir.path());
    let items = call(&w, "get_catalog", json!({})).unwrap();
    let nuts = items.as_array().unwrap().iter().find(|i| i["sku"] == "2100001").expect("the demo's weighed item").clone();
    assert_eq!((nuts["unit"].as_str(), nuts["price"].as_i64()), (Some("hundred_grams"), Some(398)));

    let cart = call(&w, "scan", json!({ "code": label(152) })).unwrap();
    assert_eq!(weighed(&cart), [(1, 605, "152g @¥398/100g".to_string())]);
    let cart = call(&w, "add_weighed", json!({ "sku": "2100001", "grams": 1000 })).unwrap();
    assert_eq!(weighed(&cart).len(), 2);
    assert_eq!(cart["total"], 605 + 3_980);
    assert!(cart["lines"][0]["by_number"].as_bool().unwrap(), "a weighed line is changed by its number: {cart}");

    for bad in [0, 100_001, -5] {
        let e = call(&w, "add_weighed", json!({ "sku": "2100001", "grams": bad })).unwrap_err();
        assert_eq!(e["code"], "invalid_input", "{bad}: {e}");
    }
    let e = call(&w, "add_weighed", json!({ "sku": "COF-001", "grams": 100 })).unwrap_err();
    assert_eq!(e["code"], "invalid_input", "{e}");
    let e = call(&w, "scan", json!({ "code": "2100001" })).unwrap_err();
    assert_eq!(e["code"], "invalid_input", "by the piece without grams: {e}");
    let e = call(&w, "set_line_quantity", json!({ "lineNo": 1, "quantity": 2 })).unwrap_err();
    assert_eq!(e["code"], "invalid_input", "{e}");
    let cart = call(&w, "set_line_quantity", json!({ "lineNo": 1, "quantity": 0 })).unwrap();
    assert_eq!(weighed(&cart), [(2, 3_980, "1000g @¥398/100g".to_string())]);
}
