//! The customer display (record 0132) on Tauri's mock runtime with the real capabilities:
//! its window may call `customer_view` and nothing else; its view follows the cart on
//! screen (lines with ※, discount, tender, change, thank you) with the cashier's own
//! figures, never shows a held cart, speaks the display's language, and arrives as an
//! event on every change.

use std::sync::mpsc;
use std::time::Duration;

use crate::support;

use serde_json::{json, Value};
use support::{app_with, call, App, Window};
use tauri::{Listener, WebviewUrl, WebviewWindowBuilder};

fn ja() -> paydesk_app::Options {
    paydesk_app::Options { demo_store: Some("ja-JP".into()), ..Default::default() }
}

fn customer_window(app: &App) -> Window {
    WebviewWindowBuilder::new(app, "customer", WebviewUrl::App("customer.html".into())).build().expect("the customer window")
}

fn view(c: &Window) -> Value {
    call(c, "customer_view", json!({})).expect("customer_view")
}

fn names(v: &Value) -> Vec<String> {
    v["lines"].as_array().unwrap().iter().map(|l| format!("{}{}", l["mark"].as_str().unwrap(), l["name"].as_str().unwrap())).collect()
}

#[test]
fn the_customer_window_may_read_its_view_and_call_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app_with(dir.path(), ja());
    let c = customer_window(&app);
    let v = view(&c);
    assert_eq!((v["phase"].as_str(), v["store_name"].as_str()), (Some("welcome"), Some("PayDesk デモカフェ")), "{v}");
    assert_eq!(v["words"]["welcome"], "いらっしゃいませ");

    call(&w, "scan", json!({ "code": "MUF-001" })).unwrap();
    // Tauri's capability check refuses the customer window every command but its own
    for (cmd, args) in [
        ("pay_cash", json!({ "tendered": "1000", "seenTenders": 0 })),
        ("get_cart", json!({})),
        ("scan", json!({ "code": "MUG-001" })),
        ("held_sales", json!({})),
        ("staff_list", json!({})),
        ("open_customer_display", json!({})),
    ] {
        let e = call(&c, cmd, args).expect_err(cmd);
        assert!(e.to_string().contains("not allowed"), "{cmd}: {e}");
    }
    let cart = call(&w, "get_cart", json!({})).unwrap();
    assert_eq!(cart["lines"].as_array().unwrap().len(), 1, "nothing was added from the customer window");
    let sale = call(&w, "get_sale", json!({})).unwrap();
    assert_eq!(sale["tenders"], json!([]), "no tender was taken from the customer window");
    // and the cashier's window has no use for the display's read
    assert!(call(&w, "customer_view", json!({})).is_err());
}

#[test]
fn the_view_follows_the_cart_on_screen_and_never_another() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app_with(dir.path(), ja());
    let c = customer_window(&app);

    call(&w, "scan", json!({ "code": "MUF-001" })).unwrap();
    let cart = call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let v = view(&c);
    assert_eq!(v["phase"], "sale");
    assert_eq!(names(&v), ["※ブルーベリーマフィン", "PayDeskマグカップ"]);
    assert_eq!(v["legend"], "※は軽減税率対象商品");
    assert_eq!(v["total_display"], cart["total_display"], "the cashier's figure, not one of its own");
    assert_eq!(v["total_display"], "¥1,930");
    assert_eq!(v["due_display"], "¥1,930");
    let rates: Vec<&str> = v["rates"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(rates, ["10%対象", "※8%対象"]);
    assert_eq!(v["message"], Value::Null);

    // a sale discount: the display shows it and the cashier's new total
    let cart = call(&w, "set_sale_discount", json!({ "discount": { "kind": "amount", "value": "130" } })).unwrap();
    let v = view(&c);
    assert_eq!(v["sale_discount_display"], "−¥130");
    assert_eq!(v["total_display"], cart["total_display"]);
    assert_eq!(v["total_display"], "¥1,800");

    // held: the next customer sees a welcome, nothing of the held cart
    let held = call(&w, "hold_sale", json!({})).unwrap();
    let v = view(&c);
    assert_eq!(v["phase"], "welcome");
    assert_eq!((v["lines"].as_array().unwrap().len(), v["rates"].as_array().unwrap().len()), (0, 0));
    assert_eq!(v["total_display"], "");
    call(&w, "scan", json!({ "code": "WAT-001" })).unwrap();
    assert_eq!(names(&view(&c)), ["※炭酸水"], "only the cart on screen, not the held one");
    call(&w, "clear_cart", json!({})).unwrap();
    call(&w, "recall_sale", json!({ "cart": held["cart"] })).unwrap();
    assert_eq!(names(&view(&c)), ["※ブルーベリーマフィン", "PayDeskマグカップ"]);

    // cash with change: the tender, the change, thank you
    let paid = call(&w, "pay_cash", json!({ "tendered": "2000", "seenTenders": 0 })).unwrap();
    let v = view(&c);
    assert_eq!(v["phase"], "thank_you", "{v}");
    assert_eq!(v["message"], "ありがとうございました");
    assert_eq!(v["change_display"], "¥200");
    assert_eq!(v["change_display"], paid["sale"]["tenders"][0]["change_display"]);
    assert_eq!(v["tenders"], json!([{ "label": "現金", "amount_display": "¥2,000", "note": null }]));
    assert_eq!(v["due_display"], Value::Null);
}

#[test]
fn the_display_speaks_its_own_language_and_hears_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app_with(dir.path(), ja());
    let c = customer_window(&app);
    let (tx, rx) = mpsc::channel::<Value>();
    c.listen("customer-view", move |e| {
        let _ = tx.send(serde_json::from_str(e.payload()).unwrap());
    });
    // the next event that satisfies `want` (earlier ones may still be on their way)
    let next = |want: &dyn Fn(&Value) -> bool| loop {
        let v = rx.recv_timeout(Duration::from_secs(20)).expect("a customer-view event");
        if want(&v) {
            return v;
        }
    };

    call(&w, "scan", json!({ "code": "MUF-001" })).unwrap();
    let v = next(&|v| v["lines"].as_array().is_some_and(|l| l.len() == 1));
    assert_eq!(names(&v), ["※ブルーベリーマフィン"]);

    // the cashier sets the display to English: the open display follows at once
    let s = call(&w, "save_customer_display", json!({ "language": "en", "openAtStart": false })).unwrap();
    assert_eq!(s["language"], "en");
    let v = next(&|v| v["words"]["lang"] == "en");
    assert_eq!(names(&v), ["*Blueberry muffin"]);
    assert_eq!(v["legend"], "* reduced tax rate");
    assert_eq!(v["total_display"], "¥280", "the store's money whatever the language");
    assert_eq!(view(&c)["words"]["total"], "Total");

    call(&w, "pay_cash", json!({ "tendered": "1000", "seenTenders": 0 })).unwrap();
    let v = next(&|v| v["phase"] == "thank_you");
    assert_eq!((v["message"].as_str(), v["change_display"].as_str()), (Some("Thank you"), Some("¥720")));

    assert_eq!(call(&w, "save_customer_display", json!({ "language": "fr", "openAtStart": false })).unwrap_err()["code"], "invalid_input");
    // kept in the data folder for the next start
    let saved: Value = serde_json::from_slice(&std::fs::read(dir.path().join("customer-display.json")).unwrap()).unwrap();
    assert_eq!(saved["language"], "en");
}
