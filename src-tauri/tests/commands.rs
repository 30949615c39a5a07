//! Command tests without a window: the real wiring (`app_builder`), the real config
//! and capabilities (`generate_context!`), on Tauri's mock runtime.

use crate::support;

use serde_json::{json, Value};
use support::{app, call};
use tauri::Manager;

#[test]
fn scan_builds_the_cart_and_errors_are_typed() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());

    let catalog = call(&w, "get_catalog", json!({})).unwrap();
    let coffee = catalog.as_array().unwrap().iter().find(|i| i["sku"] == "COF-001").expect("the demo coffee");
    let barcode = coffee["barcode"].as_str().unwrap().to_string();

    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    let cart = call(&w, "scan", json!({ "code": barcode })).unwrap();
    assert_eq!(cart["lines"][0]["quantity"], 2);
    // Two $2.50 coffees and 8.875 % New York City tax (record 0131): 500 + 44.4 → $5.44.
    assert_eq!(cart["total"], 544);
    assert_eq!(cart["total_display"], "$5.44");

    let cart = call(&w, "set_quantity", json!({ "sku": "COF-001", "quantity": 3 })).unwrap();
    assert_eq!(cart["total"], 817); // 750 + 66.6 tax

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
    assert_eq!(first["receipt"]["total"], 1628); // the $14.95 mug with 8.875 % tax
    assert_eq!(first["cart"]["locked"], true);
    // Pressing Charge again: the same checkout, no new key, no new charge.
    let again = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(again["checkout_key"], first["checkout_key"]);
    // The paid sale stays as it was: the next scan is the next customer's first item and
    // begins a new sale (record 0035), never a change to the paid one.
    let next = call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    assert_ne!(next["id"], first["cart"]["id"], "{next}");
    assert_eq!(next["locked"], false, "{next}");

    let state = app.state::<paydesk_app::AppState>();
    let stats = state.embedded().unwrap().server.psp().stats();
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
    assert_eq!(report["gross"], 1628);
    assert_eq!(report["refunds"], 495);
    assert_eq!(report["net"], 1133);

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

fn settings_form(url: &str, key: &str) -> Value {
    json!({ "settings": {
        "psp_url": url, "psp_key": key, "fault_profile": "none",
        "retention_hours": "24", "safety_margin_minutes": "60",
        "offline_max_amount": "100.00", "offline_max_total": "500.00",
        "offline_max_count": "20", "offline_max_age_hours": "23",
    } })
}

/// Polls `f` until it returns Some (generous deadline; the background pass runs every 2 s).
fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(90);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(std::time::Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Saves settings that keep the PSP and returns once they are in use (`in_use` says
/// so). Saving answers "now" unless the background pass was talking to the PSP for
/// longer than saving waits (a loaded machine: CI saw it): then the pass applies them
/// as soon as it finishes, and the status bar says what they wait for meanwhile.
fn save_settings_in_use(w: &support::Window, form: Value, in_use: impl Fn() -> bool) {
    let r = call(w, "save_settings", form).unwrap();
    match r["applied"].as_str() {
        Some("now") => assert!(in_use(), "saved 'now' but not in use: {r}"),
        Some("waiting") => {
            assert!(r["message"].as_str().unwrap().contains("talking to the processor"), "{r}");
            wait_for("the background pass to apply the settings", || in_use().then_some(()));
        }
        _ => panic!("{r}"),
    }
}

/// Settings apply without a restart, but a new PSP is never used while a payment
/// sent to the old one is unsettled: its key must be resolved where it was sent.
#[test]
fn a_new_psp_waits_until_payments_at_the_old_one_are_settled() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let state = app.state::<paydesk_app::AppState>();
    let embedded = state.embedded().unwrap();
    let old_url = embedded.url.clone();

    // Limits and retention (same PSP) apply at once.
    let mut form = settings_form("", "");
    form["settings"]["offline_max_amount"] = json!("50.00");
    save_settings_in_use(&w, form, || state.live().settings.offline_max_amount == Some(5_000));
    assert_eq!(state.live().psp_url, old_url);
    let mut too_old = settings_form("", "");
    too_old["settings"]["offline_max_age_hours"] = json!("24");
    let e = call(&w, "save_settings", too_old).unwrap_err();
    assert!(e["message"].as_str().unwrap().contains("at most 23 hours"), "{e}");
    let shown = call(&w, "get_settings", json!({})).unwrap();
    assert_eq!((shown["offline_max_amount_display_plain"].as_str(), shown["offline_currency"].as_str()), (Some("50.00"), Some("USD")), "{shown}");

    // The PSP charges but every answer is lost: the outcome stays open at this PSP.
    embedded.server.psp().script_fault("/v1/payment_intents", mock_psp::Fault::DropResponse, 1_000, None);
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let o = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert!(o["kind"] == "unknown" || o["kind"] == "accepted_offline", "{o}");
    let key = o["checkout_key"].as_str().unwrap().to_string();

    // Another PSP is saved but not used yet; the reply and the status bar say why.
    let r = call(&w, "save_settings", settings_form("http://127.0.0.1:9", "sk_test_other")).unwrap();
    assert_eq!(r["applied"], "waiting", "{r}");
    assert!(r["message"].as_str().unwrap().contains("not settled"), "{r}");
    let st = call(&w, "get_status", json!({})).unwrap();
    assert_eq!(st["psp_url"], old_url.as_str());
    assert!(st["settings_waiting"].as_str().is_some_and(|s| s.contains("1 payment")), "{st}");

    // The old PSP answers again: the background pass settles the payment there (a
    // replay of its first answer, one charge), then puts the new PSP in use.
    embedded.server.psp().clear_script();
    let st = wait_for("the new PSP in use", || {
        let st = call(&w, "get_status", json!({})).unwrap();
        (st["psp_url"] == "http://127.0.0.1:9").then_some(st)
    });
    assert!(st["settings_waiting"].is_null(), "{st}");
    assert_eq!(st["psp_embedded"], false);
    let p = call(&w, "get_payment", json!({ "id": key })).unwrap();
    assert_eq!(p["state"], "captured", "settled at the PSP that got it: {p}");
    assert_eq!(embedded.server.psp().stats()["charges"], 1);
}

/// Amounts are formatted in Rust from integer minor units, with the currency's
/// symbol; the report gives the UI the format for the amounts it sums itself.
#[test]
fn money_is_shown_with_the_currency_symbol() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let o = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(o["receipt"]["total_display"], "$16.28"); // $14.95 + 8.875 % tax
    let key = o["checkout_key"].as_str().unwrap();
    let e = call(&w, "refund", json!({ "paymentId": key, "amount": "20" })).unwrap_err();
    assert!(e["message"].as_str().unwrap().contains("At most $16.28 is left"), "{e}");
    let p = call(&w, "get_payment", json!({ "id": key })).unwrap();
    assert_eq!(p["refundable_display_plain"], "16.28");
    let report = call(&w, "get_report", json!({ "since": 0 })).unwrap();
    assert_eq!(report["gross_display"], "$16.28");
    assert_eq!(report["money"], json!({ "code": "USD", "symbol": "$", "exponent": 2 }));
}

/// The PSP got the first attempt (its answer was lost), then became unreachable, and
/// offline payments are not allowed: the engine refuses to accept it offline but the
/// payment stays open (the card may be charged). The cashier must see "we do not know
/// yet whether the card was charged", not "Could not charge", which invites charging again.
#[test]
fn an_error_with_the_payment_still_open_shows_the_unknown_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let state = app.state::<paydesk_app::AppState>();
    let mut form = settings_form("", "");
    form["settings"]["offline_max_count"] = json!("0");
    save_settings_in_use(&w, form, || state.live().settings.offline_max_count == 0);
    let psp = state.embedded().unwrap().server.psp().clone();
    psp.script_fault("/v1/payment_intents", mock_psp::Fault::DropResponse, 1, None);
    // As soon as the first attempt's answer is lost, the processor goes away.
    let watcher = std::thread::spawn(move || {
        wait_for("the first attempt", || (psp.stats()["faults"]["drop_response"].as_u64() >= Some(1)).then_some(()));
        psp.set_offline(true, None);
    });
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let o = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).expect("an outcome, not an error");
    watcher.join().unwrap();
    assert_eq!(o["kind"], "unknown", "{o}");
    assert!(o["checkout_key"].as_str().is_some_and(|k| !k.is_empty()), "{o}");
}

/// "Try another card" when the payment on screen already has a later payment the screen
/// never showed (the call that made it returned an error): the engine refuses a second
/// payment after the same one (`later_payment_exists`), so the command goes on from the
/// later one and makes one new payment after it.
#[test]
fn try_another_card_goes_on_from_a_later_payment_the_screen_missed() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let state = app.state::<paydesk_app::AppState>();
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let k = call(&w, "charge", json!({ "paymentMethod": "pm_card_chargeDeclined" })).unwrap();
    assert_eq!(k["kind"], "declined", "{k}");
    let k = k["checkout_key"].as_str().unwrap().to_string();
    // A later payment after K, declined, that the screen never got to show.
    let engine = state.engine();
    let s = tauri::async_runtime::block_on(engine.new_payment_after(&k, paydesk_ledger::CheckoutOptions::card("pm_card_chargeDeclined"), None)).unwrap();
    assert_eq!(s.state.as_str(), "failed");

    let t = call(&w, "try_another_card", json!({ "paymentMethod": "pm_card_visa" })).expect("goes on from the later payment");
    assert_eq!(t["kind"], "approved", "{t}");
    let t_key = t["checkout_key"].as_str().unwrap();
    assert!(t_key != k && t_key != s.checkout_key, "{t}");
    let payments = engine.payments();
    let successor = |key: &str| payments.by_key(key).unwrap().and_then(|p| payments.successor_of(p.id).unwrap());
    assert_eq!(successor(&s.checkout_key).map(|p| p.idempotency_key), Some(t_key.to_string()), "made after the later one");
    assert_eq!(state.embedded().unwrap().server.psp().stats()["charges"], 1);
    assert_eq!(call(&w, "list_payments", json!({})).unwrap().as_array().unwrap().len(), 3);
}

#[test]
fn about_names_the_version_data_folder_ledger_schema_and_psp() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());
    let a = call(&w, "about", json!({})).unwrap();
    assert_eq!(a["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(a["data_dir"], dir.path().display().to_string());
    assert_eq!(a["ledger_path"], dir.path().join("ledger.db").display().to_string());
    assert_eq!(a["ledger_schema"], paydesk_ledger::SCHEMA_VERSION);
    assert_eq!(a["psp_kind"], "embedded");
    // The profile in use: these tests' options do not set one, so the settings' default.
    assert_eq!(a["fault_profile"], call(&w, "get_settings", json!({})).unwrap()["fault_profile"]);
    assert!(!a["fault_profile"].as_str().unwrap().is_empty());
    assert!(a["psp_url"].as_str().unwrap().starts_with("http://127.0.0.1:"), "{a}");
    assert_eq!(a["backups"], json!([]), "a new ledger has no copies");
}

/// The tender guard lives in the command (record 0035): a press that acted on a view
/// with another number of tenders is refused with `sale_changed` and takes nothing; a
/// press while another tender runs is refused with `tender_in_flight`.
#[test]
fn a_second_tender_press_is_refused_by_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let state = app.state::<paydesk_app::AppState>();
    let psp = || state.embedded().unwrap().server.psp().stats();
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();

    let sale = call(&w, "get_sale", json!({})).unwrap();
    assert_eq!((sale["total"].as_i64(), sale["due"].as_i64(), sale["tenders"].as_array().unwrap().len()), (Some(1900), Some(1900), 0)); // 1745 + 155 tax
    let quick: Vec<i64> = sale["quick_cash"].as_array().unwrap().iter().map(|q| q["minor"].as_i64().unwrap()).collect();
    assert_eq!(quick, vec![1900, 2000, 5000, 10000]);

    // bad input first: nothing recorded
    for bad in ["0", "-1", "1.234", "12,00", "", "99999999999"] {
        let e = call(&w, "pay_cash", json!({ "tendered": bad, "seenTenders": 0 })).unwrap_err();
        assert_eq!(e["code"], "invalid_input", "{bad:?}: {e}");
    }
    let e = call(&w, "pay_card", json!({ "amount": "1.00", "paymentMethod": "tok_<x>", "seenTenders": 0 })).unwrap_err();
    assert_eq!(e["code"], "invalid_input");

    // cash $5 as a part payment, then the very same press again
    let r = call(&w, "pay_cash", json!({ "tendered": "5", "seenTenders": 0 })).unwrap();
    assert_eq!((r["change"].as_i64(), r["sale"]["due"].as_i64(), r["sale"]["complete"].as_bool()), (Some(0), Some(1400), Some(false)));
    let e = call(&w, "pay_cash", json!({ "tendered": "5", "seenTenders": 0 })).unwrap_err();
    assert_eq!(e["code"], "sale_changed", "{e}");
    assert_eq!(call(&w, "get_sale", json!({})).unwrap()["tenders"].as_array().unwrap().len(), 1);

    // a card for $4, pressed twice: one charge at the PSP
    let r = call(&w, "pay_card", json!({ "amount": "4.00", "paymentMethod": "pm_card_visa", "seenTenders": 1 })).unwrap();
    assert_eq!(r["outcome"], "paid", "{r}");
    assert_eq!(r["sale"]["due"], 1000);
    let e = call(&w, "pay_card", json!({ "amount": "4.00", "paymentMethod": "pm_card_visa", "seenTenders": 1 })).unwrap_err();
    assert_eq!(e["code"], "sale_changed", "{e}");
    assert_eq!(psp()["charges"], 1);

    // another tender running on this register: refused at once, not queued
    {
        let _running = state.screen.try_charge_turn().expect("nothing runs");
        let e = call(&w, "pay_cash", json!({ "tendered": "10", "seenTenders": 2 })).unwrap_err();
        assert_eq!(e["code"], "tender_in_flight", "{e}");
        let e = call(&w, "pay_card", json!({ "paymentMethod": "pm_card_visa", "seenTenders": 2 })).unwrap_err();
        assert_eq!(e["code"], "tender_in_flight", "{e}");
    }
    assert_eq!(call(&w, "get_sale", json!({})).unwrap()["tenders"].as_array().unwrap().len(), 2);

    // $20 in cash for the $10.00 left: $10.00 change, and only now "Paid"
    let r = call(&w, "pay_cash", json!({ "tendered": "20.00", "seenTenders": 2 })).unwrap();
    assert_eq!(r["change"], 1000);
    assert_eq!(r["change_display"], "$10.00");
    assert_eq!(r["sale"]["complete"], true);
    assert_eq!(r["sale"]["state_label"], "Paid");
    let e = call(&w, "pay_cash", json!({ "tendered": "1", "seenTenders": 3 })).unwrap_err();
    assert_eq!(e["code"], "sale_complete", "{e}");

    let day = call(&w, "get_tender_day", json!({ "since": 0 })).unwrap();
    let kind = |k: &str| day["by_kind"].as_array().unwrap().iter().find(|x| x["kind"] == k).cloned().unwrap();
    assert_eq!((kind("cash")["count"].as_i64(), kind("cash")["settled"]["minor"].as_i64()), (Some(2), Some(1500)));
    assert_eq!((kind("card")["count"].as_i64(), kind("card")["settled"]["minor"].as_i64()), (Some(1), Some(400)));
    // A shift is open: the drawer is the blind close's figure, not End of day's (record 0069).
    assert!(day["expected_drawer"].is_null(), "{day}");
    assert_eq!(call(&w, "get_tender_day", json!({ "since": -1 })).unwrap_err()["code"], "invalid_input");
}

/// A decline keeps the earlier tenders; a cancel refunds each settled card once and
/// says what cash to hand back; a second cancel changes nothing.
#[test]
fn a_decline_keeps_the_cash_and_a_cancel_refunds_each_card_once() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let state = app.state::<paydesk_app::AppState>();
    let psp = || state.embedded().unwrap().server.psp().stats();
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();

    call(&w, "pay_cash", json!({ "tendered": "2", "seenTenders": 0 })).unwrap();
    let r = call(&w, "pay_card", json!({ "amount": "3", "paymentMethod": "pm_card_chargeDeclined", "seenTenders": 1 })).unwrap();
    assert_eq!(r["outcome"], "declined", "{r}");
    assert_eq!(r["sale"]["due"], 1428); // the mug with tax, 1628, less $2 cash
    assert_eq!(r["sale"]["tenders"][1]["state"], "void");
    assert!(r["message"].as_str().unwrap().starts_with("Declined"), "{r}");
    assert_eq!(r["sale"]["due_display"], "$14.28");
    let r = call(&w, "pay_card", json!({ "amount": "3", "paymentMethod": "pm_card_visa", "seenTenders": 2 })).unwrap();
    assert_eq!(r["outcome"], "paid", "{r}");
    assert_eq!(r["sale"]["due"], 1128);

    assert_eq!(call(&w, "cancel_sale", json!({ "reason": " " })).unwrap_err()["code"], "invalid_input");
    let c = call(&w, "cancel_sale", json!({ "reason": "customer left" })).unwrap();
    assert_eq!(c["sale"]["state"], "canceled", "{c}");
    assert_eq!(c["cash_returned"], 200);
    assert_eq!(c["lines"].as_array().unwrap().len(), 1, "{c}");
    assert_eq!(c["lines"][0]["kind"], "refund");
    assert_eq!(psp()["refunds"], 1);
    let again = call(&w, "cancel_sale", json!({ "reason": "customer left" })).unwrap();
    assert_eq!(again["cash_returned"], 0);
    assert_eq!(psp()["refunds"], 1);
    assert_eq!(psp()["charges"], 1);
    assert_eq!(call(&w, "pay_cash", json!({ "tendered": "1", "seenTenders": 3 })).unwrap_err()["code"], "sale_canceled");
}

/// A payment the PSP refused before running it (wrong secret key) read back — by a
/// second "charge" on the same sale, or `current_checkout` as the screen does when a
/// late "resolved" event arrives (CI saw "Not charged" turn into "Declined") — says "failed"
/// with the same reason, never "declined": no card was looked at, and the cashier must
/// fix the settings rather than ask for another card. A real decline read back stays
/// "declined".
#[test]
fn a_refused_payment_read_again_is_still_not_charged_and_a_decline_still_declined() {
    let dir = tempfile::tempdir().unwrap();
    let (running, w) = app(dir.path());
    let state = running.state::<paydesk_app::AppState>();
    let url = state.embedded().unwrap().url.clone();
    save_settings_in_use(&w, settings_form(&url, "sk_test_a_mistyped_key"), || !state.live().embedded);
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let first = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(first["kind"], "failed", "{first}");
    let again = call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!((again["kind"].clone(), again["checkout_key"].clone()), (json!("failed"), first["checkout_key"].clone()), "{again}");
    assert_eq!(again["message"], first["message"], "the same reason both times");
    let shown = call(&w, "current_checkout", json!({})).unwrap();
    assert_eq!((shown["kind"].clone(), shown["message"].clone()), (json!("failed"), first["message"].clone()), "{shown}");
    let p = call(&w, "get_payment", json!({ "id": first["checkout_key"] })).unwrap();
    assert_eq!(p["state"], "failed", "{p}");

    // A card decline read back is a decline.
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let d = call(&w, "charge", json!({ "paymentMethod": "pm_card_chargeDeclined" })).unwrap();
    assert_eq!(d["kind"], "declined", "{d}");
    assert_eq!(call(&w, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap()["kind"], "declined");
}

/// Settings shows the PSP key masked ("…" and its last four). Sent back as shown, the key
/// is kept; any other text, even one that looks masked, is what the owner typed.
#[test]
fn the_masked_key_sent_back_keeps_the_key_and_nothing_else_does() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let state = app.state::<paydesk_app::AppState>();
    let key = "sk_test_kept_1234abcd";
    call(&w, "save_settings", settings_form("http://127.0.0.1:9", key)).unwrap();
    let shown = call(&w, "get_settings", json!({})).unwrap();
    let hint = shown["psp_key"].as_str().unwrap().to_string();
    assert_eq!(hint, "…abcd");
    let saved = || state.stored.settings().psp_key;

    call(&w, "save_settings", settings_form("http://127.0.0.1:9", &hint)).unwrap();
    assert_eq!(saved(), key, "the hint as shown keeps the key");

    // Not the hint: taken as typed (or refused), never read as "unchanged".
    let typed = "…wxyz";
    match call(&w, "save_settings", settings_form("http://127.0.0.1:9", typed)) {
        Ok(_) => assert_eq!(saved(), typed),
        Err(e) => assert_eq!((e["code"].as_str(), saved().as_str()), (Some("invalid_input"), key), "{e}"),
    }
}
