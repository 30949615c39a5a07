//! Card readers over real loopback HTTP (issue #27): locations and simulated readers,
//! card_present intents processed on a reader, the customer played by the
//! present_payment_method test helper, declines on the same intent, the reader faults,
//! the auto-present switch, idempotent replays, events, and persistence.
use crate::common;
use common::*;
use mock_psp::{Clock, ManualClock, MockPsp, ReaderFault};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

const START_MS: i64 = 1_800_000_000_000;

fn rdr(id: &str, op: &str) -> String {
    format!("/v1/terminal/readers/{id}/{op}")
}
fn present_path(id: &str) -> String {
    format!("/v1/test_helpers/terminal/readers/{id}/present_payment_method")
}

/// A location and a simulated reader in it (account A); returns the reader's id.
async fn reader(p: &Psp, tag: &str) -> String {
    let loc = p.post(SK_A, "/v1/terminal/locations", Some(&format!("loc-{tag}")), &[("display_name", "Main Street"), ("address[line1]", "1 Main St"), ("address[city]", "Springfield"), ("address[country]", "US")]).await;
    assert_eq!(loc.status, 200, "{:?}", loc.json());
    let loc = loc.json()["id"].as_str().unwrap().to_string();
    let r = p.post(SK_A, "/v1/terminal/readers", Some(&format!("rdr-{tag}")), &[("registration_code", "simulated-wpe"), ("label", "Front till"), ("location", &loc)]).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    r.json()["id"].as_str().unwrap().to_string()
}

async fn card_pi(p: &Psp, key: &str, amount: &str) -> String {
    let r = p.post(SK_A, "/v1/payment_intents", Some(key), &[("amount", amount), ("currency", "usd"), ("payment_method_types[]", "card_present")]).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    assert_eq!(r.json()["status"], "requires_payment_method");
    r.json()["id"].as_str().unwrap().to_string()
}

async fn process(p: &Psp, reader: &str, pi: &str, key: &str) -> Resp {
    p.post(SK_A, &rdr(reader, "process_payment_intent"), Some(key), &[("payment_intent", pi)]).await
}
async fn present(p: &Psp, reader: &str, card: &str, key: &str) -> Resp {
    p.post(SK_A, &present_path(reader), Some(key), &[("type", "card_present"), ("card_present[number]", card)]).await
}
async fn get(p: &Psp, path: &str) -> Value {
    let r = p.get(SK_A, path).await;
    assert_eq!(r.status, 200, "{path}: {:?}", r.json());
    r.json()
}
/// Event types of account A, oldest first.
async fn event_types(p: &Psp) -> Vec<String> {
    let v = get(p, "/v1/events?limit=100").await;
    let mut t: Vec<String> = v["data"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap().to_string()).collect();
    t.reverse();
    t
}
/// Polls the reader until its action has `status` (or the deadline passes).
async fn wait_action(p: &Psp, reader: &str, status: &str) -> Value {
    let t0 = std::time::Instant::now();
    loop {
        let r = get(p, &format!("/v1/terminal/readers/{reader}")).await;
        if r["action"]["status"] == status {
            return r;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "the action never became {status}: {r}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn manual() -> (Psp, ManualClock) {
    let clock = ManualClock::new(START_MS);
    let p = start(MockPsp::builder().clock(Arc::new(clock.clone()))).await;
    (p, clock)
}

#[tokio::test]
async fn register_list_get_readers_and_locations_with_stripe_errors() {
    let p = start_default().await;
    let r1 = reader(&p, "1").await;
    let r = get(&p, &format!("/v1/terminal/readers/{r1}")).await;
    assert_eq!((r["object"].as_str(), r["device_type"].as_str(), r["status"].as_str(), r["label"].as_str()), (Some("terminal.reader"), Some("simulated_wisepos_e"), Some("online"), Some("Front till")));
    assert!(r["action"].is_null() && r["id"].as_str().unwrap().starts_with("tmr_"));
    let loc = r["location"].as_str().unwrap().to_string();
    assert!(loc.starts_with("tml_"));
    let l = get(&p, &format!("/v1/terminal/locations/{loc}")).await;
    assert_eq!((l["object"].as_str(), l["display_name"].as_str(), l["address"]["country"].as_str()), (Some("terminal.location"), Some("Main Street"), Some("US")));
    let r2 = p.post(SK_A, "/v1/terminal/readers", Some("rdr-2"), &[("registration_code", "simulated-wpe")]).await.json()["id"].as_str().unwrap().to_string();
    // Newest first, cursor paging, filters.
    let page = get(&p, "/v1/terminal/readers?limit=1").await;
    assert_eq!((page["data"][0]["id"].as_str(), page["has_more"].as_bool()), (Some(r2.as_str()), Some(true)));
    let page = get(&p, &format!("/v1/terminal/readers?limit=1&starting_after={r2}")).await;
    assert_eq!((page["data"][0]["id"].as_str(), page["has_more"].as_bool()), (Some(r1.as_str()), Some(false)));
    let page = get(&p, &format!("/v1/terminal/readers?location={loc}")).await;
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    assert_eq!(get(&p, "/v1/terminal/readers?device_type=simulated_wisepos_e&status=online").await["data"].as_array().unwrap().len(), 2);
    assert_eq!(get(&p, "/v1/terminal/readers?status=offline").await["data"].as_array().unwrap().len(), 0);
    assert_eq!(get(&p, "/v1/terminal/locations").await["data"].as_array().unwrap().len(), 1);
    // Another account sees none of them.
    assert_eq!(p.get(SK_B, &format!("/v1/terminal/readers/{r1}")).await.status, 404);
    assert_eq!(p.get(SK_B, "/v1/terminal/readers").await.json()["data"].as_array().unwrap().len(), 0);
    // Errors: unknown code, unknown location, unknown reader, long label, bad filter.
    let e = p.post(SK_A, "/v1/terminal/readers", Some("bad-1"), &[("registration_code", "purple-cat")]).await;
    assert_eq!((e.status, e.err_code().as_str(), e.json()["error"]["param"].as_str()), (400, "parameter_invalid_string", Some("registration_code")));
    let e = p.post(SK_A, "/v1/terminal/readers", Some("bad-2"), &[("registration_code", "simulated-wpe"), ("location", "tml_nope")]).await;
    assert_eq!((e.status, e.err_code().as_str()), (404, "resource_missing"));
    assert_eq!(p.get(SK_A, "/v1/terminal/readers/tmr_nope").await.err_code(), "resource_missing");
    let long = "x".repeat(101);
    let e = p.post(SK_A, "/v1/terminal/readers", Some("bad-3"), &[("registration_code", "simulated-wpe"), ("label", &long)]).await;
    assert_eq!((e.status, e.json()["error"]["param"].as_str()), (400, Some("label")));
    assert_eq!(p.get(SK_A, "/v1/terminal/readers?status=asleep").await.status, 400);
    let e = p.post(SK_A, "/v1/terminal/locations", Some("bad-4"), &[("display_name", "X"), ("address[country]", "usa")]).await;
    assert_eq!(e.err_code(), "country_code_invalid");
    // Nothing refused was stored: the same keys work with good parameters.
    assert_eq!(p.post(SK_A, "/v1/terminal/readers", Some("bad-1"), &[("registration_code", "simulated-wpe")]).await.status, 200);
}

#[tokio::test]
async fn readers_per_account_are_limited() {
    let p = start_default().await;
    for i in 0..mock_psp::api::terminal::MAX_READERS_PER_ACCOUNT {
        let r = p.post(SK_B, "/v1/terminal/readers", Some(&format!("lim-{i}")), &[("registration_code", "simulated-wpe")]).await;
        assert_eq!(r.status, 200, "{:?}", r.json());
    }
    let r = p.post(SK_B, "/v1/terminal/readers", Some("lim-over"), &[("registration_code", "simulated-wpe")]).await;
    assert_eq!((r.status, r.err_code().as_str()), (400, "terminal_reader_limit_reached"));
    assert_eq!(p.post(SK_A, "/v1/terminal/readers", Some("lim-a"), &[("registration_code", "simulated-wpe")]).await.status, 200, "per account");
}

#[tokio::test]
async fn approved_card_succeeds_with_card_present_details_and_events_in_order() {
    let p = start_default().await;
    let rd = reader(&p, "a").await;
    let pi = card_pi(&p, "pi-a", "2500").await;
    let r = process(&p, &rd, &pi, "proc-a").await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    let a = &r.json()["action"];
    assert_eq!((a["type"].as_str(), a["status"].as_str(), a["process_payment_intent"]["payment_intent"].as_str()), (Some("process_payment_intent"), Some("in_progress"), Some(pi.as_str())));
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["status"], "requires_payment_method", "nothing happens until a card is presented");
    let r = present(&p, &rd, "4242424242424242", "pres-a").await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    assert_eq!((r.json()["action"]["status"].as_str(), r.json()["action"]["failure_code"].clone()), (Some("succeeded"), Value::Null));
    let pi_v = get(&p, &format!("/v1/payment_intents/{pi}")).await;
    assert_eq!((pi_v["status"].as_str(), pi_v["amount_received"].as_i64()), (Some("succeeded"), Some(2500)));
    assert_eq!(pi_v["payment_method_types"], serde_json::json!(["card_present"]));
    let ch = get(&p, &format!("/v1/charges/{}", pi_v["latest_charge"].as_str().unwrap())).await;
    let cp = &ch["payment_method_details"]["card_present"];
    assert_eq!(ch["payment_method_details"]["type"], "card_present");
    assert_eq!((cp["brand"].as_str(), cp["last4"].as_str(), cp["read_method"].as_str()), (Some("visa"), Some("4242"), Some("contactless_emv")));
    let rc = &cp["receipt"];
    for f in ["application_preferred_name", "dedicated_file_name", "authorization_response_code", "account_type", "cardholder_verification_method", "authorization_code"] {
        assert!(rc[f].is_string(), "receipt.{f} missing: {rc}");
    }
    assert_eq!((rc["dedicated_file_name"].as_str(), rc["account_type"].as_str()), (Some("A0000000031010"), Some("credit")));
    assert_eq!(event_types(&p).await, ["payment_intent.succeeded", "terminal.reader.action_succeeded"]);
    let ev = get(&p, "/v1/events?type=terminal.reader.action_succeeded").await;
    assert_eq!(ev["data"][0]["data"]["object"]["id"].as_str(), Some(rd.as_str()));
    // A second success on the intent is impossible.
    let again = process(&p, &rd, &pi, "proc-a2").await;
    assert_eq!((again.status, again.err_code().as_str()), (400, "intent_invalid_state"));
    assert_eq!(p.stats().await["charges"], 1);
}

#[tokio::test]
async fn a_decline_leaves_the_same_intent_processable_and_it_succeeds_once() {
    let p = start_default().await;
    let rd = reader(&p, "d").await;
    let pi = card_pi(&p, "pi-d", "1800").await;
    assert_eq!(process(&p, &rd, &pi, "proc-d1").await.status, 200);
    let r = present(&p, &rd, "4000000000000002", "pres-d1").await;
    assert_eq!(r.status, 200);
    let a = &r.json()["action"];
    assert_eq!((a["status"].as_str(), a["failure_code"].as_str()), (Some("failed"), Some("card_declined")));
    let v = get(&p, &format!("/v1/payment_intents/{pi}")).await;
    assert_eq!((v["status"].as_str(), v["last_payment_error"]["decline_code"].as_str()), (Some("requires_payment_method"), Some("generic_decline")));
    // Insufficient funds on the same intent.
    assert_eq!(process(&p, &rd, &pi, "proc-d2").await.status, 200);
    let r = present(&p, &rd, "4000000000009995", "pres-d2").await;
    assert_eq!(r.json()["action"]["failure_code"], "card_declined");
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["last_payment_error"]["decline_code"], "insufficient_funds");
    // Another card on the SAME intent: paid once.
    assert_eq!(process(&p, &rd, &pi, "proc-d3").await.status, 200);
    let r = present(&p, &rd, "5555555555554444", "pres-d3").await;
    assert_eq!(r.json()["action"]["status"], "succeeded");
    let v = get(&p, &format!("/v1/payment_intents/{pi}")).await;
    assert_eq!((v["status"].as_str(), v["last_payment_error"].clone()), (Some("succeeded"), Value::Null));
    let s = p.stats().await;
    assert_eq!((s["charges"].as_u64(), s["declines"].as_u64()), (Some(1), Some(2)));
    assert_eq!(
        event_types(&p).await,
        ["payment_intent.payment_failed", "terminal.reader.action_failed", "payment_intent.payment_failed", "terminal.reader.action_failed", "payment_intent.succeeded", "terminal.reader.action_succeeded"]
    );
    // Stripe's test amounts: cents 05 decline an otherwise approved card.
    let pi2 = card_pi(&p, "pi-d-amt", "1005").await;
    process(&p, &rd, &pi2, "proc-d4").await;
    assert_eq!(present(&p, &rd, "4242424242424242", "pres-d4").await.json()["action"]["failure_code"], "card_declined");
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi2}")).await["last_payment_error"]["decline_code"], "generic_decline");
}

#[tokio::test]
async fn busy_display_and_cancel_action_before_present() {
    let p = start_default().await;
    let rd = reader(&p, "b").await;
    let cart = [("type", "cart"), ("cart[currency]", "usd"), ("cart[line_items][0][description]", "Tea"), ("cart[line_items][0][amount]", "300"), ("cart[line_items][0][quantity]", "2"), ("cart[tax]", "60"), ("cart[total]", "660")];
    let d = p.post(SK_A, &rdr(&rd, "set_reader_display"), Some("disp-1"), &cart).await;
    assert_eq!(d.status, 200, "{:?}", d.json());
    let a = &d.json()["action"];
    assert_eq!((a["type"].as_str(), a["set_reader_display"]["cart"]["total"].as_i64(), a["set_reader_display"]["cart"]["line_items"][0]["description"].as_str()), (Some("set_reader_display"), Some(660), Some("Tea")));
    let mut bad = cart.to_vec();
    bad[6] = ("cart[total]", "700");
    let e = p.post(SK_A, &rdr(&rd, "set_reader_display"), Some("disp-2"), &bad).await;
    assert_eq!((e.status, e.json()["error"]["param"].as_str()), (400, Some("cart[total]")));
    let pi = card_pi(&p, "pi-b", "660").await;
    let pi2 = card_pi(&p, "pi-b2", "999").await;
    assert_eq!(process(&p, &rd, &pi, "proc-b").await.status, 200, "the display does not make the reader busy");
    let e = process(&p, &rd, &pi2, "proc-b2").await;
    assert_eq!((e.status, e.err_code().as_str()), (400, "terminal_reader_busy"));
    let e = p.post(SK_A, &rdr(&rd, "set_reader_display"), Some("disp-3"), &cart).await;
    assert_eq!(e.err_code(), "terminal_reader_busy");
    let c = p.post(SK_A, &rdr(&rd, "cancel_action"), Some("cancel-b"), &[]).await;
    assert_eq!(c.status, 200);
    assert!(c.json()["action"].is_null(), "{:?}", c.json());
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["status"], "requires_payment_method");
    let e = present(&p, &rd, "4242424242424242", "pres-b").await;
    assert_eq!((e.status, e.err_code().as_str()), (400, "terminal_reader_action_not_in_progress"));
    assert_eq!(p.stats().await["charges"], 0);
    // Wrong intents: a card-only intent, an unknown one, a card_present one with a card token.
    let card_only = p.create_pi(SK_A, "pi-card", "500", "pm_card_visa", &[("capture_method", "manual")]).await.json()["id"].as_str().unwrap().to_string();
    assert_eq!(process(&p, &rd, &card_only, "proc-w1").await.err_code(), "payment_intent_invalid_parameter");
    let e = process(&p, &rd, "pi_nope", "proc-w2").await;
    assert_eq!((e.status, e.err_code().as_str()), (404, "resource_missing"));
    let e = process(&p, "tmr_nope", &pi, "proc-w3").await;
    assert_eq!((e.status, e.err_code().as_str()), (404, "resource_missing"));
    let e = p.post(SK_A, "/v1/payment_intents", Some("pi-w4"), &[("amount", "100"), ("currency", "usd"), ("payment_method_types[]", "card_present"), ("payment_method", "pm_card_visa"), ("confirm", "true")]).await;
    assert_eq!(e.err_code(), "payment_intent_incompatible_payment_method");
    let e = present(&p, &rd, "4111111111111111", "pres-w5").await;
    assert_eq!(e.json()["error"]["param"], "card_present[number]");
}

#[tokio::test]
async fn process_cancel_and_present_replay_under_their_keys() {
    let p = start_default().await;
    let rd = reader(&p, "i").await;
    let pi = card_pi(&p, "pi-i", "1200").await;
    let first = process(&p, &rd, &pi, "proc-i").await;
    let again = process(&p, &rd, &pi, "proc-i").await;
    assert!(again.replayed() && !first.replayed());
    assert_eq!(first.body, again.body);
    let other = card_pi(&p, "pi-i2", "1300").await;
    let e = process(&p, &rd, &other, "proc-i").await;
    assert_eq!((e.status, e.err_code().as_str()), (400, "idempotency_key_reused"));
    let c1 = p.post(SK_A, &rdr(&rd, "cancel_action"), Some("cancel-i"), &[]).await;
    let c2 = p.post(SK_A, &rdr(&rd, "cancel_action"), Some("cancel-i"), &[]).await;
    assert!(c2.replayed() && c1.body == c2.body);
    assert_eq!(process(&p, &rd, &pi, "proc-i3").await.status, 200);
    let p1 = present(&p, &rd, "4242424242424242", "pres-i").await;
    let p2 = present(&p, &rd, "4242424242424242", "pres-i").await;
    assert!(p2.replayed() && p1.body == p2.body);
    assert_eq!(p.stats().await["charges"], 1, "a replayed presentation charges nothing");
}

async fn script(p: &Psp, f: ReaderFault) {
    let r = p.admin_post("/__admin/faults/script", &[("fault", f.name()), ("count", "1")]).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
}

#[tokio::test]
async fn timeout_faults_one_started_the_action_one_did_not() {
    let p = start_default().await;
    let rd = reader(&p, "t").await;
    let pi = card_pi(&p, "pi-t", "1500").await;
    script(&p, ReaderFault::Timeout).await;
    let e = process(&p, &rd, &pi, "proc-t1").await;
    assert_eq!(e.err_code(), "terminal_reader_timeout");
    assert!(get(&p, &format!("/v1/terminal/readers/{rd}")).await["action"].is_null(), "nothing started");
    script(&p, ReaderFault::TimeoutStarted).await;
    let e = process(&p, &rd, &pi, "proc-t2").await;
    assert_eq!(e.err_code(), "terminal_reader_timeout");
    let r = get(&p, &format!("/v1/terminal/readers/{rd}")).await;
    assert_eq!((r["action"]["status"].as_str(), r["action"]["process_payment_intent"]["payment_intent"].as_str()), (Some("in_progress"), Some(pi.as_str())), "a false negative: the reader got it");
    assert_eq!(present(&p, &rd, "4242424242424242", "pres-t").await.json()["action"]["status"], "succeeded");
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["status"], "succeeded");
    let s = p.stats().await;
    assert_eq!((s["reader_faults"]["reader_timeout"].as_u64(), s["reader_faults"]["reader_timeout_started"].as_u64()), (Some(1), Some(1)));
}

#[tokio::test]
async fn offline_for_a_while_then_back_and_busy_fault() {
    let (p, clock) = manual().await;
    let rd = reader(&p, "o").await;
    let pi = card_pi(&p, "pi-o", "1500").await;
    assert_eq!(p.admin_post("/__admin/faults", &[("reader_offline_ms", "30000")]).await.status, 200);
    script(&p, ReaderFault::Offline).await;
    assert_eq!(process(&p, &rd, &pi, "proc-o1").await.err_code(), "terminal_reader_offline");
    let r = get(&p, &format!("/v1/terminal/readers/{rd}")).await;
    assert_eq!((r["status"].as_str(), r["action"].clone()), (Some("offline"), Value::Null));
    assert_eq!(get(&p, "/v1/terminal/readers?status=offline").await["data"].as_array().unwrap().len(), 1);
    assert_eq!(process(&p, &rd, &pi, "proc-o2").await.err_code(), "terminal_reader_offline", "still offline");
    clock.advance(Duration::from_millis(30_000));
    assert_eq!(get(&p, &format!("/v1/terminal/readers/{rd}")).await["status"], "online");
    script(&p, ReaderFault::Busy).await;
    assert_eq!(process(&p, &rd, &pi, "proc-o3").await.err_code(), "terminal_reader_busy");
    assert!(get(&p, &format!("/v1/terminal/readers/{rd}")).await["action"].is_null(), "busy started nothing");
    assert_eq!(process(&p, &rd, &pi, "proc-o4").await.status, 200);
}

#[tokio::test]
async fn connection_error_charges_yet_fails_the_action() {
    let p = start_default().await;
    let rd = reader(&p, "c").await;
    let pi = card_pi(&p, "pi-c", "1500").await;
    script(&p, ReaderFault::ConnectionError).await;
    assert_eq!(process(&p, &rd, &pi, "proc-c").await.status, 200);
    let r = present(&p, &rd, "4242424242424242", "pres-c").await;
    assert_eq!((r.json()["action"]["status"].as_str(), r.json()["action"]["failure_code"].as_str()), (Some("failed"), Some("connection_error")));
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["status"], "succeeded", "the payment went through");
    assert_eq!(event_types(&p).await, ["payment_intent.succeeded", "terminal.reader.action_failed"]);
}

#[tokio::test]
async fn lost_action_event_and_customer_cancel() {
    let p = start_default().await;
    let rd = reader(&p, "e").await;
    let pi = card_pi(&p, "pi-e", "1500").await;
    script(&p, ReaderFault::EventLost).await;
    process(&p, &rd, &pi, "proc-e").await;
    assert_eq!(present(&p, &rd, "4242424242424242", "pres-e").await.json()["action"]["status"], "succeeded");
    assert_eq!(event_types(&p).await, ["payment_intent.succeeded"], "no reader event");
    let pi2 = card_pi(&p, "pi-e2", "1500").await;
    script(&p, ReaderFault::CustomerCancels).await;
    process(&p, &rd, &pi2, "proc-e2").await;
    let r = present(&p, &rd, "4242424242424242", "pres-e2").await;
    assert_eq!((r.json()["action"]["status"].as_str(), r.json()["action"]["failure_code"].as_str()), (Some("failed"), Some("customer_canceled")));
    let v = get(&p, &format!("/v1/payment_intents/{pi2}")).await;
    assert_eq!((v["status"].as_str(), v["latest_charge"].clone()), (Some("requires_payment_method"), Value::Null), "not charged");
    assert_eq!(event_types(&p).await.last().map(String::as_str), Some("terminal.reader.action_failed"));
    let s = p.stats().await;
    assert_eq!((s["charges"].as_u64(), s["reader_faults"]["reader_event_lost"].as_u64(), s["reader_faults"]["reader_customer_cancels"].as_u64()), (Some(1), Some(1), Some(1)));
}

#[tokio::test]
async fn presentation_delay_holds_the_card_and_cancel_is_busy_meanwhile() {
    let (p, clock) = manual().await;
    let rd = reader(&p, "p").await;
    let pi = card_pi(&p, "pi-p", "1500").await;
    p.admin_post("/__admin/faults", &[("reader_present_delay_ms", "5000")]).await;
    script(&p, ReaderFault::PresentDelay).await;
    process(&p, &rd, &pi, "proc-p").await;
    let r = present(&p, &rd, "4242424242424242", "pres-p").await;
    assert_eq!(r.json()["action"]["status"], "in_progress", "authorizing");
    assert_eq!(p.post(SK_A, &rdr(&rd, "cancel_action"), Some("cancel-p"), &[]).await.err_code(), "terminal_reader_busy");
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["status"], "requires_payment_method");
    clock.advance(Duration::from_millis(5000));
    wait_action(&p, &rd, "succeeded").await;
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["status"], "succeeded");
    let ev = get(&p, "/v1/events?type=terminal.reader.action_succeeded").await;
    assert!(ev["data"][0]["request"]["idempotency_key"].is_null(), "made by the reader, not a request");
}

#[tokio::test]
async fn reader_faults_drawn_from_the_seed_are_reproducible() {
    async fn run() -> Vec<String> {
        let p = start_default().await;
        let r = p.admin_post("/__admin/faults", &[("reader_busy", "0.3"), ("reader_timeout", "0.3"), ("reader_timeout_started", "0.2")]).await;
        assert_eq!(r.status, 200);
        let rd = reader(&p, "s").await;
        let mut out = vec![];
        for i in 0..12 {
            let pi = card_pi(&p, &format!("pi-s{i}"), "1500").await;
            let r = process(&p, &rd, &pi, &format!("proc-s{i}")).await;
            out.push(if r.status == 200 { "ok".to_string() } else { r.err_code() });
            p.post(SK_A, &rdr(&rd, "cancel_action"), Some(&format!("cancel-s{i}")), &[]).await;
        }
        out
    }
    let (a, b) = (run().await, run().await);
    assert_eq!(a, b, "same seed, same reader faults");
    assert!(a.iter().any(|x| x == "ok") && a.iter().any(|x| x != "ok"), "{a:?}");
}

#[tokio::test]
async fn auto_present_switch_presents_by_itself_and_turns_off() {
    let (p, clock) = manual().await;
    let ra = reader(&p, "x").await;
    let rb = p.post(SK_A, "/v1/terminal/readers", Some("rdr-y"), &[("registration_code", "simulated-wpe")]).await.json()["id"].as_str().unwrap().to_string();
    let on = p.admin_post("/__admin/terminal/auto_present", &[("card_number", "4242424242424242"), ("after_ms", "2000")]).await;
    assert_eq!(on.status, 200, "{:?}", on.json());
    let pi = card_pi(&p, "pi-x", "1500").await;
    assert_eq!(process(&p, &ra, &pi, "proc-x").await.json()["action"]["status"], "in_progress");
    clock.advance(Duration::from_millis(2000));
    wait_action(&p, &ra, "succeeded").await;
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["status"], "succeeded");
    // Off: a new action on A stays waiting; on for B only: B is presented.
    assert_eq!(p.admin_post("/__admin/terminal/auto_present", &[("on", "false")]).await.json()["auto_present"], Value::Null);
    let pi2 = card_pi(&p, "pi-x2", "1500").await;
    process(&p, &ra, &pi2, "proc-x2").await;
    p.admin_post("/__admin/terminal/auto_present", &[("card_number", "4000000000000002"), ("after_ms", "2000"), ("reader", &rb)]).await;
    let pi3 = card_pi(&p, "pi-x3", "1500").await;
    process(&p, &rb, &pi3, "proc-x3").await;
    clock.advance(Duration::from_millis(2000));
    let r = wait_action(&p, &rb, "failed").await;
    assert_eq!(r["action"]["failure_code"], "card_declined");
    assert_eq!(get(&p, &format!("/v1/terminal/readers/{ra}")).await["action"]["status"], "in_progress", "switch off: nobody presented on A");
    let e = p.admin_post("/__admin/terminal/auto_present", &[("card_number", "1234")]).await;
    assert_eq!(e.json()["error"]["param"], "card_number");
}

#[tokio::test]
async fn readers_and_locations_survive_a_restart_and_an_old_store_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("psp.sqlite3");
    let open = || MockPsp::builder().db(&db).secret_key(SK_A).seed(7).build().unwrap();
    let psp = open();
    let server = psp.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let p = Psp { url: server.url(), server, client: client(), dir: tempfile::tempdir().unwrap() };
    let rd = reader(&p, "r").await;
    let pi = card_pi(&p, "pi-r", "1500").await;
    assert_eq!(process(&p, &rd, &pi, "proc-r").await.status, 200);
    p.server.shutdown().await;
    drop(psp);
    let psp = open();
    let server = psp.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let p = Psp { url: server.url(), server, client: client(), dir: tempfile::tempdir().unwrap() };
    let r = get(&p, &format!("/v1/terminal/readers/{rd}")).await;
    assert_eq!((r["action"]["status"].as_str(), r["label"].as_str()), (Some("in_progress"), Some("Front till")));
    assert_eq!(present(&p, &rd, "4242424242424242", "pres-r").await.json()["action"]["status"], "succeeded");
    assert_eq!(get(&p, "/v1/terminal/locations").await["data"].as_array().unwrap().len(), 1);
    p.server.shutdown().await;
    drop(psp);
    // A store of schema 2 (before readers) opens and gains the reader tables.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("DROP TABLE terminal_readers; DROP TABLE terminal_locations; PRAGMA user_version = 2;").unwrap();
    drop(c);
    let psp = open();
    let c = rusqlite::Connection::open(&db).unwrap();
    let v: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    let n: i64 = c.query_row("SELECT count(*) FROM sqlite_schema WHERE name IN ('terminal_readers', 'terminal_locations')", [], |r| r.get(0)).unwrap();
    assert_eq!((v, n), (mock_psp::schema::SCHEMA_VERSION, 2));
    assert_eq!(v, 3);
    drop(psp);
}

#[tokio::test]
async fn manual_capture_waits_for_capture_and_a_tip_is_added_to_the_amount() {
    let p = start_default().await;
    let rd = reader(&p, "m").await;
    let r = p.post(SK_A, "/v1/payment_intents", Some("pi-m"), &[("amount", "2000"), ("currency", "usd"), ("payment_method_types[0]", "card_present"), ("capture_method", "manual")]).await;
    let pi = r.json()["id"].as_str().unwrap().to_string();
    assert_eq!(r.json()["payment_method_types"], serde_json::json!(["card_present"]), "SDK-style indexed arrays are read");
    assert_eq!(process(&p, &rd, &pi, "proc-m").await.status, 200);
    let t = p.post(SK_A, &present_path(&rd), Some("pres-m"), &[("type", "card_present"), ("card_present[number]", "4000056655665556"), ("amount_tip", "300")]).await;
    assert_eq!(t.json()["action"]["status"], "succeeded", "{:?}", t.json());
    let v = get(&p, &format!("/v1/payment_intents/{pi}")).await;
    assert_eq!((v["status"].as_str(), v["amount"].as_i64(), v["amount_capturable"].as_i64(), v["amount_details"]["tip"]["amount"].as_i64()), (Some("requires_capture"), Some(2300), Some(2300), Some(300)));
    let ch = get(&p, &format!("/v1/charges/{}", v["latest_charge"].as_str().unwrap())).await;
    assert_eq!(ch["payment_method_details"]["card_present"]["receipt"]["account_type"], "checking", "a debit card");
    let c = p.post(SK_A, &format!("/v1/payment_intents/{pi}/capture"), Some("cap-m"), &[]).await;
    assert_eq!((c.json()["status"].as_str(), c.json()["amount_received"].as_i64()), (Some("succeeded"), Some(2300)));
    assert_eq!(process(&p, &rd, &pi, "proc-m2").await.err_code(), "intent_invalid_state");
}

#[tokio::test]
async fn an_intent_canceled_while_on_the_reader_is_never_charged_and_admin_inputs_are_checked() {
    let p = start_default().await;
    let rd = reader(&p, "k").await;
    let pi = card_pi(&p, "pi-k", "1500").await;
    assert_eq!(process(&p, &rd, &pi, "proc-k").await.status, 200);
    let c = p.post(SK_A, &format!("/v1/payment_intents/{pi}/cancel"), Some("cancel-pi-k"), &[]).await;
    assert_eq!(c.json()["status"], "canceled");
    let r = present(&p, &rd, "4242424242424242", "pres-k").await;
    assert_eq!((r.json()["action"]["status"].as_str(), r.json()["action"]["failure_code"].as_str()), (Some("failed"), Some("intent_invalid_state")));
    assert_eq!(get(&p, &format!("/v1/payment_intents/{pi}")).await["status"], "canceled");
    assert_eq!(p.stats().await["charges"], 0);
    assert_eq!(process(&p, &rd, &pi, "proc-k2").await.err_code(), "intent_invalid_state");
    // Admin: rates are probabilities, durations bounded, a reader fault takes only count.
    assert_eq!(p.admin_post("/__admin/faults", &[("reader_busy", "2")]).await.json()["error"]["param"], "reader_busy");
    assert_eq!(p.admin_post("/__admin/faults", &[("reader_offline_ms", "0")]).await.json()["error"]["param"], "reader_offline_ms");
    assert_eq!(p.admin_post("/__admin/faults/script", &[("fault", "reader_busy"), ("path", "/v1/x")]).await.status, 400);
    assert_eq!(p.admin_post("/__admin/faults/script", &[("fault", "reader_sleepy")]).await.status, 400);
    assert_eq!(p.admin_post("/__admin/terminal/auto_present", &[("on", "false"), ("after_ms", "5")]).await.status, 400);
    assert_eq!(p.admin_post("/__admin/terminal/auto_present", &[("after_ms", "600001")]).await.status, 400);
}

#[tokio::test]
async fn a_held_card_is_authorized_after_a_restart_never_stuck() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("psp.sqlite3");
    let open = |now_ms: i64| {
        let psp = MockPsp::builder().db(&db).secret_key(SK_A).seed(7).clock(Arc::new(ManualClock::new(now_ms))).build().unwrap();
        let mut f = psp.faults();
        f.reader.reader_present_delay_ms = 5000;
        psp.set_faults(f);
        psp
    };
    let psp = open(START_MS);
    let server = psp.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let p = Psp { url: server.url(), server, client: client(), dir: tempfile::tempdir().unwrap() };
    let (ra, rb) = (reader(&p, "h1").await, reader(&p, "h2").await);
    for (rd, tag) in [(&ra, "a"), (&rb, "b")] {
        let pi = card_pi(&p, &format!("pi-h{tag}"), "1500").await;
        psp.script_reader_fault(ReaderFault::PresentDelay, 1);
        assert_eq!(process(&p, rd, &pi, &format!("proc-h{tag}")).await.status, 200);
        assert_eq!(present(&p, rd, "4242424242424242", &format!("pres-h{tag}")).await.json()["action"]["status"], "in_progress");
    }
    // The PSP stops before the cards come due; it restarts after.
    p.server.shutdown().await;
    drop(psp);
    let psp = open(START_MS + 6000);
    let server = psp.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let p = Psp { url: server.url(), server, client: client(), dir: tempfile::tempdir().unwrap() };
    // Reading the reader brings the overdue card in ...
    wait_action(&p, &ra, "succeeded").await;
    // ... and so does any call on it: cancel_action is not busy for ever; the card won.
    let c = p.post(SK_A, &rdr(&rb, "cancel_action"), Some("cancel-hb"), &[]).await;
    assert_eq!((c.status, c.json()["action"]["status"].as_str()), (200, Some("succeeded")), "{:?}", c.json());
    let pis = p.all_pis(SK_A).await;
    assert_eq!(pis.iter().filter(|v| v["status"] == "succeeded").count(), 2);
    assert_eq!(psp.stats()["charges"], 2, "both held cards charged once, after the restart");
}
