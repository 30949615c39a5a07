//! Typed prices through the app's commands (issue #30, record 0126), in a ja-JP demo store
//! with a cashier signed in: the department keys (not among the items), the food key at
//! ¥300 and ¥500 as two lines, ¥12,000 above the ¥10,000 limit refused for a manager and
//! allowed with one (audited), typed refusals, and a line changed by its number.

use crate::support;

use paydesk_access::{Pin, Role};
use paydesk_ledger::Ledger;
use serde_json::{json, Value};
use support::{app_signed_out, call, Window};

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

fn cashier_at_the_register(dir: &std::path::Path) -> (support::App, Window) {
    {
        let mut l = Ledger::open(dir.join("ledger.db")).unwrap();
        let owner = l.roster_mut().add("山田", Role::Owner, &Pin::parse("1111").unwrap(), None, now_ms()).unwrap();
        l.roster_mut().add("佐藤", Role::Manager, &Pin::parse("2222").unwrap(), Some(owner.id), now_ms()).unwrap();
        l.roster_mut().add("鈴木", Role::Cashier, &Pin::parse("3333").unwrap(), Some(owner.id), now_ms()).unwrap();
    }
    let (app, w) = app_signed_out(dir, paydesk_app::Options { demo_store: Some("ja-JP".into()), ..Default::default() });
    call(&w, "sign_in", json!({ "name": "鈴木", "pin": "3333" })).expect("the cashier signs in");
    call(&w, "shift_open", json!({ "float": [] })).expect("a shift");
    (app, w)
}

fn lines(cart: &Value) -> Vec<(i64, String, i64, String)> {
    cart["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["line_no"].as_i64().unwrap(), l["sku"].as_str().unwrap().into(), l["unit_price"].as_i64().unwrap(), l["price_source"].as_str().unwrap().into()))
        .collect()
}

#[test]
fn a_department_key_twice_and_a_price_above_the_limit_with_a_manager() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = cashier_at_the_register(dir.path());
    let d = call(&w, "department_keys", json!({})).unwrap();
    let keys: Vec<(&str, &str)> = d["keys"].as_array().unwrap().iter().map(|k| (k["sku"].as_str().unwrap(), k["name"].as_str().unwrap())).collect();
    assert_eq!(keys, [("DEPT-FOOD", "食品 8%"), ("DEPT-GOODS", "雑貨 10%")]);
    assert_eq!(d["limit"], 10_000);
    let items = call(&w, "get_catalog", json!({})).unwrap();
    assert!(items.as_array().unwrap().iter().all(|i| !i["sku"].as_str().unwrap().starts_with("DEPT-")), "keys are not items");

    call(&w, "add_open_price", json!({ "sku": "DEPT-FOOD", "price": "300" })).unwrap();
    let cart = call(&w, "add_open_price", json!({ "sku": "DEPT-FOOD", "price": "500" })).unwrap();
    assert_eq!(lines(&cart), [(1, "DEPT-FOOD".into(), 300, "open".into()), (2, "DEPT-FOOD".into(), 500, "open".into())]);
    assert_eq!(cart["total"], 800);
    assert!(cart["lines"][0]["reduced"].as_bool().unwrap(), "food at the reduced rate: {cart}");

    // ¥12,000: a manager's.
    let e = call(&w, "add_open_price", json!({ "sku": "DEPT-FOOD", "price": "12000" })).unwrap_err();
    assert_eq!((e["code"].as_str(), e["action"].as_str(), e["min_role"].as_str()), (Some("approval_required"), Some("open_price_above_limit"), Some("manager")), "{e}");
    let cart = call(&w, "add_open_price", json!({ "sku": "DEPT-FOOD", "price": "12000", "approval": { "name": "佐藤", "pin": "2222" } })).unwrap();
    assert_eq!(cart["total"], 12_800);
    let l = Ledger::open_reader(dir.path().join("ledger.db")).unwrap();
    let manager = l.roster().by_name("佐藤").unwrap().unwrap().id;
    let row = l.audit().log().unwrap().into_iter().rev().find(|e| e.action == "open_price_above_limit").expect("audited");
    assert_eq!(row.approver_id, Some(manager));

    // Typed refusals, nothing written.
    for (sku, price) in [("DEPT-FOOD", "0"), ("DEPT-FOOD", "-3"), ("DEPT-FOOD", "abc"), ("COF-001", "100"), ("DEPT-FOOD", "99999999999999")] {
        let e = call(&w, "add_open_price", json!({ "sku": sku, "price": price })).unwrap_err();
        assert_eq!(e["code"], "invalid_input", "{sku} {price}: {e}");
    }
    let e = call(&w, "scan", json!({ "code": "DEPT-FOOD" })).unwrap_err();
    assert_eq!(e["code"], "invalid_input", "a key needs its price: {e}");
    assert_eq!(call(&w, "get_cart", json!({})).unwrap()["lines"].as_array().unwrap().len(), 3);

    // The ¥12,000 line away by its number; the ¥300 line to two.
    call(&w, "set_line_quantity", json!({ "lineNo": 3, "quantity": 0 })).unwrap();
    let cart = call(&w, "set_line_quantity", json!({ "lineNo": 1, "quantity": 2 })).unwrap();
    assert_eq!((cart["total"].as_i64(), cart["item_count"].as_i64()), (Some(1_100), Some(3)), "{cart}");
}

/// A 02 price label for item `0200001` at `yen`, with its check digit.
fn price_label(yen: u32) -> String {
    let data = format!("0200001{yen:05}");
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", paydesk_tax::ean_check_digit(&d))
}

/// A price label below its item's catalog price is a markdown, and a label typed at the scan
/// field is the same to the register as one scanned: past the cashier's 10 % discount limit it
/// is a manager's, as the discount typed would be (the insider's route around the limit),
/// and the approval is audited. Within the limit, or above the catalog price, it rings alone.
#[test]
fn a_price_label_marked_down_past_the_cashiers_limit_needs_a_manager() {
    let dir = tempfile::tempdir().unwrap();
    {
        // The store's own item under an in-store label code: ¥500.
        let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
        l.catalog_mut().seed_demo_store(paydesk_ledger::DemoLocale::JaJp, None, now_ms()).unwrap();
        let bento = paydesk_ledger::CatalogItem {
            sku: "0200001".into(),
            barcode: None,
            name_en: "Bento".into(),
            name_ja: Some("弁当".into()),
            price_minor: 500,
            currency: paydesk_domain::Currency::Jpy,
            tax_class: paydesk_tax::TaxClass::Reduced,
            active: true,
            price_kind: paydesk_ledger::PriceKind::Fixed,
            unit: paydesk_tax::SaleUnit::Piece,
        };
        l.catalog_mut().upsert(&[bento], None, now_ms()).unwrap();
    }
    let (_app, w) = cashier_at_the_register(dir.path());
    // ¥480 (4 % off) and ¥520 ring alone.
    call(&w, "scan", json!({ "code": price_label(480) })).unwrap();
    let cart = call(&w, "scan", json!({ "code": price_label(520) })).unwrap();
    assert_eq!(cart["total"], 1_000);
    // ¥250, half price: the cashier alone is refused, nothing rung.
    let e = call(&w, "scan", json!({ "code": price_label(250) })).unwrap_err();
    assert_eq!((e["code"].as_str(), e["action"].as_str(), e["min_role"].as_str()), (Some("approval_required"), Some("discount_above_limit"), Some("manager")), "{e}");
    assert_eq!(call(&w, "get_cart", json!({})).unwrap()["total"], 1_000);
    // With the manager's approval it rings at the label's price, and the approval is audited.
    let cart = call(&w, "scan", json!({ "code": price_label(250), "approval": { "name": "佐藤", "pin": "2222" } })).unwrap();
    assert_eq!(lines(&cart).last().unwrap(), &(3, "0200001".to_string(), 250, "label".to_string()));
    let l = Ledger::open_reader(dir.path().join("ledger.db")).unwrap();
    let manager = l.roster().by_name("佐藤").unwrap().unwrap().id;
    let approved = l.audit().log().unwrap().into_iter().rev().find(|e| e.approver_id == Some(manager)).expect("the approval audited");
    assert!(format!("{approved:?}").contains("label 0200001"), "{approved:?}");
}
