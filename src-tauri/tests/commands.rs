//! Command tests without a window: the real wiring (`app_builder`), the real config
//! and capabilities (`generate_context!`), on Tauri's mock runtime.

use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::Manager;

fn app(dir: &std::path::Path) -> (tauri::App<tauri::test::MockRuntime>, tauri::WebviewWindow<tauri::test::MockRuntime>) {
    let opts = paydesk_app::Options {
        data_dir: Some(dir.to_path_buf()),
        fault_profile: "none".into(),
        ..Default::default()
    };
    let mut app = paydesk_app::app_builder(mock_builder(), opts)
        .build(paydesk_app::context())
        .expect("build app");
    // Runs setup once: the config's "main" window is created and the state managed.
    #[allow(deprecated)]
    app.run_iteration(|_, _| {});
    let w = app.get_webview_window("main").expect("the main window from tauri.conf.json");
    (app, w)
}

fn call(w: &tauri::WebviewWindow<tauri::test::MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        w,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|b| b.deserialize::<Value>().unwrap())
}

#[test]
fn scan_builds_the_cart_and_errors_are_typed() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());

    let catalog = call(&w, "get_catalog", json!({})).unwrap();
    let first = &catalog.as_array().unwrap()[0];
    let barcode = first["barcode"].as_str().unwrap().to_string();

    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    let cart = call(&w, "scan", json!({ "code": barcode })).unwrap();
    assert_eq!(cart["lines"][0]["quantity"], 2);
    assert_eq!(cart["total"], 500);
    assert_eq!(cart["total_display"], "$5.00");

    let cart = call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": 3 })).unwrap();
    assert_eq!(cart["total"], 750);

    // typed errors: {code, message}
    let e = call(&w, "scan", json!({ "code": "NOPE-1" })).unwrap_err();
    assert_eq!(e["code"], "unknown_item");
    assert!(e["message"].as_str().unwrap().contains("NOPE-1"));
    let e = call(&w, "scan", json!({ "code": "<script>" })).unwrap_err();
    assert_eq!(e["code"], "invalid_input");
    let e = call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": 5000 })).unwrap_err();
    assert_eq!(e["code"], "invalid_input");
    // wrong types never reach the command
    assert!(call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": -1 })).is_err());

    let cart = call(&w, "clear_cart", json!({})).unwrap();
    assert_eq!(cart["total"], 0);
}

#[test]
fn charge_twice_is_one_payment_with_one_key() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();

    // input validation first: only test card tokens
    let e = call(&w, "charge", json!({ "paymentMethod": "tok_<x>" })).unwrap_err();
    assert_eq!(e["code"], "invalid_input");

    let first = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(first["kind"], "approved", "{first}");
    assert_eq!(first["receipt"]["total"], 1495);
    assert_eq!(first["cart"]["locked"], true);
    // Pressing Charge again: the same checkout, no new key, no new charge.
    let again = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(again["checkout_key"], first["checkout_key"]);
    // The cart is locked while its payment is on screen.
    assert_eq!(call(&w, "scan", json!({ "code": "MUG-001" })).unwrap_err()["code"], "cart_locked");

    let state = app.state::<paydesk_app::AppState>();
    let stats = state.psp.as_ref().unwrap().server.psp().stats();
    assert_eq!(stats["charges"], 1, "{stats}");
    let payments = call(&w, "list_payments", json!({})).unwrap();
    assert_eq!(payments.as_array().unwrap().len(), 1);

    // A partial refund, then the report.
    let key = first["checkout_key"].as_str().unwrap();
    assert_eq!(call(&w, "refund", json!({ "paymentId": key, "amount": "99.00" })).unwrap_err()["code"], "refund_exceeds_captured");
    assert_eq!(call(&w, "refund", json!({ "paymentId": "not-a-key", "amount": "1" })).unwrap_err()["code"], "invalid_input");
    let r = call(&w, "refund", json!({ "paymentId": key, "amount": "4.95" })).unwrap();
    assert_eq!(r["state"], "succeeded", "{r}");
    let report = call(&w, "get_report", json!({ "since": 0 })).unwrap();
    assert_eq!(report["gross"], 1495);
    assert_eq!(report["refunds"], 495);
    assert_eq!(report["net"], 1000);

    // Next customer: a fresh, open cart.
    let cart = call(&w, "new_sale", json!({})).unwrap();
    assert_eq!(cart["locked"], false);
    assert_eq!(cart["total"], 0);
}

#[test]
fn only_granted_commands_are_reachable() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());
    // Core and plugin commands not granted by capabilities/default.json are refused.
    assert!(call(&w, "plugin:window|close", json!({})).is_err());
    assert!(call(&w, "plugin:shell|execute", json!({})).is_err());
    assert!(call(&w, "plugin:path|resolve_directory", json!({ "directory": 1 })).is_err());
    // core:default would allow this one; PayDesk's capability does not grant it.
    let e = call(&w, "plugin:app|version", json!({})).unwrap_err();
    assert!(e.to_string().contains("not allowed"), "{e}");
    assert!(call(&w, "get_status", json!({})).is_ok());
}
