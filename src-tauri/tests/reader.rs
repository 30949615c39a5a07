//! Card-present payments on a reader through the app's commands (issue #27), on Tauri's
//! mock runtime over a real ledger file and the REAL mock PSP: the embedded one (the app's
//! test mode), or one served on loopback with a live-looking key (outside test mode).
//! Every outcome is checked at the PSP: one intent per checkout key, at most one
//! successful charge; "not charged" only when the PSP shows nothing charged.

use crate::support;

use paydesk_app::AppState;
use serde_json::{json, Value};
use support::{app_with, call, Window};
use tauri::Manager;

/// The embedded PSP's key (the list API is read as the app's merchant).
const EMBEDDED_KEY: &str = paydesk_app::settings_file::EMBEDDED_KEY;
/// The demo cashier (README: Demo staff): may sell, may not change settings alone.
const CASHIER: &str = "Casey";
const CASHIER_PIN: &str = "3333";

/// The app on the embedded PSP with no random faults: the app's default profile is
/// "flaky" (random reader faults too), and these tests script the one fault they test.
fn app(dir: &std::path::Path) -> (support::App, Window) {
    app_with(dir, quiet(paydesk_app::Options::default()))
}

fn quiet(opts: paydesk_app::Options) -> paydesk_app::Options {
    paydesk_app::Options { fault_profile: paydesk_app::FaultProfile::NoFaults, fault_profile_set: true, ..opts }
}

fn ok(w: &Window, cmd: &str, args: Value) -> Value {
    call(w, cmd, args).unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

fn refused(w: &Window, cmd: &str, args: Value) -> Value {
    match call(w, cmd, args) {
        Ok(v) => panic!("{cmd} went ahead: {v}"),
        Err(e) => e,
    }
}

/// Registers the simulated reader in Settings (as the owner); its id.
fn register_reader(w: &Window) -> String {
    let v = ok(w, "reader_register", json!({ "code": "simulated-wpe", "label": "Front till" }));
    let readers = v["readers"].as_array().unwrap();
    assert_eq!(readers.len(), 1, "{v}");
    assert_eq!(readers[0]["label"], "Front till");
    assert!(v["location"].as_str().is_some_and(|l| l.starts_with("tml_")), "the store's location was created: {v}");
    readers[0]["id"].as_str().unwrap().to_string()
}

/// A $14.95 mug on the sale ($16.28 with New York City's 8.875 %, record 0131), handed to the reader as its first tender.
fn mug_on_reader(w: &Window, reader: &str) -> Value {
    ok(w, "scan", json!({ "code": "MUG-001" }));
    let r = ok(w, "reader_charge", json!({ "readerId": reader, "seenTenders": 0 }));
    assert_eq!(r["amount"], 1628, "{r}");
    r
}

fn key_of(v: &Value) -> String {
    v["checkout_key"].as_str().expect("a checkout key").to_string()
}

fn kind(v: &Value) -> &str {
    v["outcome"]["kind"].as_str().unwrap()
}

fn psp(app: &support::App) -> mock_psp::MockPsp {
    app.state::<AppState>().embedded().expect("the embedded PSP").server.psp().clone()
}

/// Every PaymentIntent the PSP holds for `key`: (id, status, its whole JSON). Through the
/// list API, which (unlike search) is consistent at once.
fn intents_for(psp: &mock_psp::MockPsp, secret: &str, key: &str) -> Vec<(String, String, Value)> {
    let all = tauri::async_runtime::block_on(paydesk_test_kit::get_json(psp, secret, "/v1/payment_intents?limit=100"));
    all["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["metadata"]["checkout_key"] == key)
        .map(|p| (p["id"].as_str().unwrap().to_string(), p["status"].as_str().unwrap().to_string(), p.clone()))
        .collect()
}

/// The invariant at the PSP: exactly one intent for the key; its (id, status).
fn one_intent(psp: &mock_psp::MockPsp, key: &str) -> (String, String) {
    let all = intents_for(psp, EMBEDDED_KEY, key);
    assert_eq!(all.len(), 1, "exactly one intent for {key}: {:?}", all.iter().map(|a| (&a.0, &a.1)).collect::<Vec<_>>());
    (all[0].0.clone(), all[0].1.clone())
}

fn charges(psp: &mock_psp::MockPsp) -> u64 {
    psp.stats()["charges"].as_u64().unwrap()
}

#[test]
fn a_reader_sale_is_paid_once_and_says_paid_with_the_card_the_psp_read() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let psp = psp(&app);
    let reader = register_reader(&w);
    // The card form offers the reader without asking the PSP.
    let quick = ok(&w, "reader_list", json!({ "withStatus": false }));
    assert_eq!((quick["readers"][0]["id"].as_str(), quick["readers"][0]["status"].is_null()), (Some(reader.as_str()), true));

    let r = mug_on_reader(&w, &reader);
    assert_eq!(kind(&r), "waiting_for_card", "{r}");
    assert_eq!((r["headline"].as_str(), r["test_mode"].as_bool()), (Some("Waiting for the customer's card…"), Some(true)));
    assert_eq!((r["can_cancel"].as_bool(), r["can_try_again"].as_bool()), (Some(true), Some(false)), "{r}");
    let key = key_of(&r);
    let row = &r["sale"]["tenders"][0];
    assert_eq!((row["on_reader"].as_bool(), row["checkout_key"].as_str()), (Some(true), Some(key.as_str())), "{row}");
    assert_eq!(charges(&psp), 0, "nothing is charged before a card is presented");

    let paid = ok(&w, "reader_simulate", json!({ "checkoutKey": key, "customer": "approved" }));
    assert_eq!((kind(&paid), paid["headline"].as_str()), ("paid", Some("Paid")), "{paid}");
    assert_eq!(paid["card_label"], "Visa •••• 4242", "brand and last 4 from the PSP's answer: {paid}");
    assert_eq!(paid["sale"]["complete"], true, "{paid}");
    let (pi, status) = one_intent(&psp, &key);
    assert_eq!((Some(pi.as_str()), status.as_str()), (paid["intent_id"].as_str(), "succeeded"));
    assert_eq!(charges(&psp), 1);
    // Checking again reads; it never processes again.
    let again = ok(&w, "reader_check", json!({ "checkoutKey": key }));
    assert_eq!((kind(&again), again["attempt_no"].as_i64()), ("paid", Some(1)));
    assert_eq!(charges(&psp), 1);
    // The receipt prints the card as the PSP read it: brand, last 4 and the chip's AID.
    let cart = paid["sale"]["cart_id"].as_i64().expect("the sale's cart");
    let receipt = ok(&w, "get_receipt", json!({ "cart": cart }));
    let text: Vec<&str> = receipt["text"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let text = text.join("\n");
    for want in ["Visa ****4242", "A0000000031010"] {
        assert!(text.contains(want), "{want} missing from the receipt:\n{text}");
    }
}

#[test]
fn a_decline_then_another_card_on_the_same_intent_is_paid_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let psp = psp(&app);
    let reader = register_reader(&w);
    let key = key_of(&mug_on_reader(&w, &reader));

    let d = ok(&w, "reader_simulate", json!({ "checkoutKey": key, "customer": "declined" }));
    assert_eq!((kind(&d), d["outcome"]["why"].as_str()), ("not_charged", Some("declined")), "{d}");
    assert_eq!(d["headline"], "Declined — try another card");
    assert_eq!((d["can_try_again"].as_bool(), d["sale"]["complete"].as_bool()), (Some(true), Some(false)), "{d}");
    // The sale's list says the payment is on the reader, not "outcome unknown" beside a
    // proven decline.
    assert_eq!(d["sale"]["tenders"][0]["state_label"], "On the card reader", "{d}");
    let (pi, status) = one_intent(&psp, &key);
    assert_eq!(status, "requires_payment_method", "declined: nothing charged at the PSP");

    // "Try another card": attempt 2 on the SAME intent.
    let again = ok(&w, "reader_try_again", json!({ "checkoutKey": key }));
    assert_eq!((kind(&again), again["attempt_no"].as_i64()), ("waiting_for_card", Some(2)), "{again}");
    assert_eq!(again["intent_id"].as_str(), Some(pi.as_str()));
    let paid = ok(&w, "reader_simulate", json!({ "checkoutKey": key, "customer": "approved" }));
    assert_eq!(kind(&paid), "paid", "{paid}");
    assert_eq!(one_intent(&psp, &key), (pi, "succeeded".to_string()));
    assert_eq!(charges(&psp), 1, "exactly one successful charge at the PSP");
    // Pressed once more after it paid: reported, nothing processed.
    let late = ok(&w, "reader_try_again", json!({ "checkoutKey": key }));
    assert_eq!((kind(&late), late["attempt_no"].as_i64()), ("paid", Some(2)));
    assert_eq!(charges(&psp), 1);
}

#[test]
fn take_cash_instead_closes_the_intent_at_the_psp_and_the_sale_takes_cash() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let psp = psp(&app);
    let reader = register_reader(&w);
    let key = key_of(&mug_on_reader(&w, &reader));
    let d = ok(&w, "reader_simulate", json!({ "checkoutKey": key, "customer": "insufficient_funds" }));
    assert_eq!((kind(&d), d["can_abandon"].as_bool()), ("not_charged", Some(true)), "{d}");

    let gone = ok(&w, "reader_abandon", json!({ "checkoutKey": key }));
    assert_eq!((kind(&gone), gone["outcome"]["why"].as_str()), ("not_charged", Some("intent_canceled")), "{gone}");
    assert_eq!((gone["can_try_again"].as_bool(), gone["can_abandon"].as_bool()), (Some(false), Some(false)));
    assert_eq!(one_intent(&psp, &key).1, "canceled", "not charged, and never will be");
    assert_eq!(gone["sale"]["unknown_tender"], Value::Null, "{gone}");
    let seen = gone["sale"]["tenders"].as_array().unwrap().len();
    let cash = ok(&w, "pay_cash", json!({ "tendered": "20", "seenTenders": seen }));
    assert_eq!((cash["change"].as_i64(), cash["sale"]["complete"].as_bool()), (Some(372), Some(true)), "{cash}"); // $20 for $16.28
    assert_eq!(charges(&psp), 0);
}

#[test]
fn cancel_on_reader_says_not_charged_only_when_the_read_after_it_proves_it() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let psp = psp(&app);
    let reader = register_reader(&w);
    let key = key_of(&mug_on_reader(&w, &reader));

    // Nothing presented: the action is canceled, the read shows an unpaid intent.
    let c = ok(&w, "reader_cancel", json!({ "checkoutKey": key }));
    assert_eq!(kind(&c), "not_charged", "{c}");
    assert_eq!(c["can_try_again"], true, "{c}");
    assert_eq!(one_intent(&psp, &key).1, "requires_payment_method");

    // Presented again, and the customer's tap lands just before the cashier's cancel (the
    // app has not read since): the read after the cancel says paid, never "not charged".
    let again = ok(&w, "reader_try_again", json!({ "checkoutKey": key }));
    assert_eq!(kind(&again), "waiting_for_card", "{again}");
    let engine = app.state::<AppState>().engine();
    tauri::async_runtime::block_on(engine.simulate_customer(&reader, paydesk_register::TestCard::Approved)).expect("the tap");
    let raced = ok(&w, "reader_cancel", json!({ "checkoutKey": key }));
    assert_eq!((kind(&raced), raced["headline"].as_str()), ("paid", Some("Paid")), "{raced}");
    assert_eq!(one_intent(&psp, &key).1, "succeeded");
    assert_eq!(charges(&psp), 1);
}

#[test]
fn a_reader_timeout_stays_pending_with_its_key_and_check_status_resolves_it() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let psp = psp(&app);
    let reader = register_reader(&w);
    // The reader times out yet starts the action (Stripe's false negative), and the reads
    // of the reader right after fail: nothing proves anything, so it is pending.
    psp.script_reader_fault(mock_psp::ReaderFault::TimeoutStarted, 1);
    psp.script_fault(&format!("/v1/terminal/readers/{reader}"), mock_psp::Fault::Transient503, 10_000, None);
    let r = mug_on_reader(&w, &reader);
    let key = key_of(&r);
    assert_eq!((kind(&r), r["outcome"]["why"].as_str()), ("pending", Some("reader_timeout")), "{r}");
    assert_eq!(r["headline"], "Pending — checking with the processor");
    assert!(r["message"].as_str().unwrap().contains(&key), "the key is shown with a pending payment: {r}");
    assert_eq!(r["sale"]["unknown_tender"].as_str(), Some(key.as_str()), "no other tender without a reason: {r}");
    assert_eq!(r["can_try_again"], false, "never another attempt while one may run: {r}");
    assert_eq!(one_intent(&psp, &key).1, "requires_payment_method");

    // The reader answers again; the customer had tapped meanwhile.
    psp.clear_script();
    let engine = app.state::<AppState>().engine();
    tauri::async_runtime::block_on(engine.simulate_customer(&reader, paydesk_register::TestCard::Approved)).expect("the tap");
    let checked = ok(&w, "reader_check", json!({ "checkoutKey": key }));
    assert_eq!((kind(&checked), checked["attempt_no"].as_i64()), ("paid", Some(1)), "resolved by reading: {checked}");
    assert_eq!(checked["sale"]["complete"], true);
    assert_eq!(one_intent(&psp, &key).1, "succeeded");
    assert_eq!(charges(&psp), 1);
}

#[test]
fn reader_commands_need_a_person_who_may_sell_and_a_reader_needs_the_owner() {
    let dir = tempfile::tempdir().unwrap();
    let (app, w) = app(dir.path());
    let psp = psp(&app);
    let reader = register_reader(&w);
    let key = key_of(&mug_on_reader(&w, &reader));

    // Nobody signed in: no charge, no simulated customer, no cancel, no read.
    ok(&w, "sign_out", json!({}));
    for (cmd, args) in [
        ("reader_charge", json!({ "readerId": reader, "seenTenders": 1 })),
        ("reader_simulate", json!({ "checkoutKey": key, "customer": "approved" })),
        ("reader_try_again", json!({ "checkoutKey": key })),
        ("reader_cancel", json!({ "checkoutKey": key })),
        ("reader_check", json!({ "checkoutKey": key })),
    ] {
        assert_eq!(refused(&w, cmd, args)["code"], "not_signed_in", "{cmd}");
    }
    assert_eq!(charges(&psp), 0);

    // A cashier sells on the reader, but registering a reader is the owner's.
    ok(&w, "sign_in", json!({ "name": CASHIER, "pin": CASHIER_PIN }));
    let e = refused(&w, "reader_register", json!({ "code": "simulated-wpe", "label": "Back till" }));
    assert_eq!(e["code"], "approval_required", "{e}");
    assert_eq!(ok(&w, "reader_list", json!({ "withStatus": false }))["readers"].as_array().unwrap().len(), 1);
    let paid = ok(&w, "reader_simulate", json!({ "checkoutKey": key, "customer": "approved" }));
    assert_eq!(kind(&paid), "paid", "{paid}");

    // Input is checked before anything is looked up or sent.
    assert_eq!(refused(&w, "reader_check", json!({ "checkoutKey": "not-a-key" }))["code"], "invalid_input");
    let unknown = refused(&w, "reader_charge", json!({ "readerId": "tmr_NotOurs1", "seenTenders": 0 }));
    assert_eq!(unknown["code"], "unknown_reader", "{unknown}");
}

#[test]
fn the_simulated_customer_and_keyed_test_cards_are_refused_outside_test_mode() {
    let dir = tempfile::tempdir().unwrap();
    // A PSP with a live key: the real mock PSP on loopback, not the embedded one.
    const LIVE: &str = "sk_live_reader_app";
    std::fs::create_dir_all(dir.path().join("psp")).unwrap();
    let psp = paydesk_test_kit::psp_on_file(&dir.path().join("psp"), LIVE, 27);
    let server = tauri::async_runtime::block_on(paydesk_test_kit::serve(&psp));
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let opts = paydesk_app::Options { psp_url: Some(server.url()), psp_key: Some(LIVE.into()), ..Default::default() };
    let (app, w) = app_with(&data, quiet(opts));
    assert!(!app.state::<AppState>().live().test_mode());
    let reader = register_reader(&w);
    let r = mug_on_reader(&w, &reader);
    assert_eq!((kind(&r), r["test_mode"].as_bool()), ("waiting_for_card", Some(false)), "{r}");
    let key = key_of(&r);

    let e = refused(&w, "reader_simulate", json!({ "checkoutKey": key, "customer": "approved" }));
    assert_eq!(e["code"], "reader_not_test_mode", "{e}");
    let e = refused(&w, "reader_arm_fault", json!({ "fault": "customer_cancels" }));
    assert_eq!(e["code"], "reader_not_test_mode", "{e}");
    // Nothing was presented: the reader still waits, nothing is charged.
    assert_eq!(kind(&ok(&w, "reader_check", json!({ "checkoutKey": key }))), "waiting_for_card");
    let intents = intents_for(&psp, LIVE, &key);
    assert_eq!(intents.iter().map(|i| i.1.as_str()).collect::<Vec<_>>(), ["requires_payment_method"]);
    assert_eq!(psp.stats()["charges"], 0);

    // Keyed test tokens too: every command that takes one refuses it before anything is
    // written or sent (the UI only hides the drop-down).
    // Writes only: the app's background loops (events, the reader's poll) keep reading, so
    // the request count may move; no POST may be executed, replayed or charged.
    let writes = |s: serde_json::Value| [s["executions"].clone(), s["replays"].clone(), s["conflicts"].clone(), s["charges"].clone(), s["declines"].clone()];
    let before = writes(psp.stats());
    for (cmd, args) in [
        ("charge", json!({ "paymentMethod": "pm_card_visa" })),
        ("try_another_card", json!({ "paymentMethod": "pm_card_visa" })),
        ("pay_card", json!({ "paymentMethod": "pm_card_visa", "seenTenders": 1 })),
    ] {
        let e = refused(&w, cmd, args);
        assert_eq!(e["code"], "keyed_card_not_test_mode", "{cmd}: {e}");
    }
    assert_eq!(writes(psp.stats()), before, "nothing was written at the PSP");
    assert_eq!(intents_for(&psp, LIVE, &key).len(), 1, "no new intent for the sale");
    assert_eq!(kind(&ok(&w, "reader_check", json!({ "checkoutKey": key }))), "waiting_for_card");
}
