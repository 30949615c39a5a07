//! A sale restored from a replaced register returned through the app's commands (record
//! 0144 addendum), on Tauri's mock runtime with the real wiring: register A (its own data
//! folder, the app's embedded mock PSP over loopback) sells two mugs by card; its queued
//! facts become B's restored history; B, on A's PSP, finds the sale by its receipt number,
//! reads its Return items, and takes one mug back: a cashier is asked for approval and
//! nothing moves until a manager gives it; then the PSP holds exactly one refund of A's
//! payment, under B's new key. Its return document prints to the ESC/POS test printer
//! (the predecessor's receipt number, "From register", the refund per rate; the second
//! print marked, each audited). A second mug comes back; a third is refused, nothing sent.

use crate::support;

use paydesk_ledger::{Ledger, RestoreSourceRow, RestoredRow};
use paydesk_receipt::test_printer::TestPrinter;
use std::time::Duration;
use serde_json::{json, Value};
use support::{app, app_with, call};
use tauri::Manager;

const SRC: &str = "reg-front-till";

/// What A queued for the back office, as the restored rows B pulls.
pub(crate) fn history(a: &Ledger) -> Vec<RestoredRow> {
    a.sync_log()
        .outbox_batch(0, 500)
        .unwrap()
        .into_iter()
        .map(|r| {
            let kind = serde_json::from_str::<Value>(&r.fact_json).unwrap()["kind"].as_str().unwrap().to_string();
            RestoredRow { seq: r.seq, at_ms: r.at_ms, kind, fact_json: r.fact_json }
        })
        .collect()
}

/// The PSP's refunds of payment intent `pi` (its own list, over HTTP). The mock PSP may
/// drop a read, leave it unanswered or answer it with a transient error (its simulated
/// faults): asked again, a few times, each ask bounded at 5 s.
pub(crate) fn refunds_at_psp(url: &str, pi: &str) -> Vec<Value> {
    tauri::async_runtime::block_on(async {
        let mut last = Value::Null;
        for _ in 0..5 {
            // Bounded: a read the mock leaves unanswered is asked again, never waited on for
            // ever (one such wait hung a full run for nextest's 600 s).
            let client = reqwest::Client::builder().timeout(std::time::Duration::from_secs(5)).build().unwrap();
            let sent = client
                .get(format!("{url}/v1/refunds?payment_intent={pi}"))
                .bearer_auth(paydesk_app::settings_file::EMBEDDED_KEY)
                .send()
                .await;
            last = match sent {
                Ok(r) => r.json::<Value>().await.unwrap_or(Value::Null),
                // A dropped connection (the mock's simulated network): asked again.
                Err(e) => Value::String(e.to_string()),
            };
            if let Some(data) = last["data"].as_array() {
                return data.clone();
            }
        }
        panic!("the PSP did not list the refunds: {last}")
    })
}

fn lines(line: i64, quantity: i64) -> Value {
    json!([{ "line": line, "quantity": quantity }])
}

#[test]
fn a_restored_sale_is_found_by_its_receipt_and_returned_once_at_the_psp_with_approval() {
    // A: two mugs by card at its embedded PSP.
    let dir_a = tempfile::tempdir().unwrap();
    let (app_a, w_a) = app(dir_a.path());
    call(&w_a, "scan", json!({ "code": "MUG-001" })).unwrap();
    call(&w_a, "set_quantity", json!({ "sku": "MUG-001", "quantity": 2 })).unwrap();
    let paid = call(&w_a, "charge", json!({ "paymentMethod": "pm_card_visa" })).unwrap();
    assert_eq!(paid["kind"], "approved", "{paid}");
    let total = paid["receipt"]["total"].as_i64().unwrap();
    let sale = paid["cart"]["id"].as_i64().unwrap();
    let url = app_a.state::<paydesk_app::AppState>().embedded().unwrap().url.clone();
    let a = Ledger::open(dir_a.path().join("ledger.db")).unwrap();
    let key = paid["checkout_key"].as_str().unwrap();
    let pi = a.payments().by_key(key).unwrap().unwrap().psp_payment_id.unwrap();
    let rows = history(&a);

    // B: A's PSP, A's history restored whole.
    let dir_b = tempfile::tempdir().unwrap();
    let opts = paydesk_app::Options {
        psp_url: Some(url.clone()),
        psp_key: Some(paydesk_app::settings_file::EMBEDDED_KEY.into()),
        ..paydesk_app::Options::default()
    };
    let (_app_b, w) = app_with(dir_b.path(), opts);
    {
        let mut b = Ledger::open(dir_b.path().join("ledger.db")).unwrap();
        let src = RestoreSourceRow {
            register_id: SRC.into(),
            register_name: "Front till".into(),
            acked_through: rows.len() as u64,
            described_json: "{}".into(),
            restored_through: 0,
            started_at_ms: 0,
            finished_at_ms: None,
        };
        b.sync_log_mut().begin_restore(&src, 1).unwrap();
        b.sync_log_mut().append_restored(SRC, &rows, 1).unwrap();
    }

    // Payments → Receipts: no local sale has the number; A's restored sale has.
    let number = format!("{sale:06}");
    assert_eq!(call(&w, "find_receipt", json!({ "number": number })).unwrap_err()["code"], "invalid_input");
    let found = call(&w, "find_restored_receipt", json!({ "number": number })).unwrap();
    assert_eq!(found, json!({ "source": SRC, "sale": sale }));
    assert_eq!(call(&w, "find_restored_receipt", json!({ "number": "999999" })).unwrap_err()["code"], "unknown_restored_sale");
    assert_eq!(call(&w, "find_restored_receipt", json!({ "number": "12a" })).unwrap_err()["code"], "invalid_input");
    // The one command the screen uses (record 0159): every sale with the number, here A's only.
    let all = call(&w, "find_receipt_candidates", json!({ "number": number })).unwrap();
    assert_eq!((all["found"].clone(), all["candidates"].as_array().map(Vec::len)), (json!(1), Some(1)), "{all}");
    let c = &all["candidates"][0];
    assert_eq!((c["kind"].clone(), c["source"].clone(), c["sale"].clone(), c["register_name"].clone()), (json!("restored"), json!(SRC), json!(sale), json!("Front till")), "{all}");
    assert!(c["total"].as_i64().unwrap() > 0 && c["total_display"].as_str().is_some_and(|t| !t.is_empty()), "{all}");
    for bad in ["12a", "", "123456789012345678901"] {
        assert_eq!(call(&w, "find_receipt_candidates", json!({ "number": bad })).unwrap_err()["code"], "invalid_input", "{bad:?}");
    }
    let none = call(&w, "find_receipt_candidates", json!({ "number": "999999" })).unwrap_err();
    assert_eq!(none["code"], "invalid_input", "no sale has it: today's words");
    assert!(none["message"].as_str().unwrap().contains("999999"), "{none}");
    // The restored payments list names the sale each payment paid.
    let listed = call(&w, "restored_history", json!({ "from": SRC })).unwrap();
    assert_eq!(listed["payments"][0]["sale"], sale, "{listed}");

    let form = call(&w, "restored_return_form", json!({ "source": SRC, "sale": sale })).unwrap();
    assert_eq!(form["register_name"], "Front till");
    assert_eq!(form["receipt_no"], number.as_str());
    assert_eq!(form["lines"], json!([{ "line": 0, "name": form["lines"][0]["name"], "sold": 2, "returned": 0 }]), "{form}");
    assert_eq!(call(&w, "restored_return_form", json!({ "source": "nobody", "sale": sale })).unwrap_err()["code"], "unknown_restore_source");
    assert_eq!(call(&w, "restored_return_form", json!({ "source": SRC, "sale": 0 })).unwrap_err()["code"], "invalid_input");

    // Input limits: nothing chosen, a line twice, a quantity of 0 or past 9999.
    let args = |l: Value| json!({ "source": SRC, "sale": sale, "lines": l, "reason": "broken" });
    for bad in [json!([]), json!([{ "line": 0, "quantity": 1 }, { "line": 0, "quantity": 1 }]), lines(0, 0), lines(0, 10_000), lines(1, 1)] {
        assert_eq!(call(&w, "return_restored_lines", args(bad.clone())).unwrap_err()["code"], "invalid_input", "{bad}");
    }

    // A cashier is asked for a manager; nothing reaches the PSP.
    call(&w, "sign_out", json!({})).unwrap();
    call(&w, "sign_in", json!({ "name": "Casey", "pin": "3333" })).unwrap();
    let e = call(&w, "return_restored_lines", args(lines(0, 1))).unwrap_err();
    assert_eq!((e["code"].as_str(), e["action"].as_str()), (Some("approval_required"), Some("refund")), "{e}");
    assert!(refunds_at_psp(&url, &pi).is_empty());

    // Approved: one mug back to the card, nothing from the drawer.
    let mut approved = args(lines(0, 1));
    approved["approval"] = json!({ "name": "Olivia", "pin": support::OWNER_PIN });
    let r = call(&w, "return_restored_lines", approved.clone()).unwrap();
    assert_eq!((r["total"].as_i64(), r["cash_out"].as_i64()), (Some(total / 2), Some(0)), "{r}");
    assert_eq!(r["number"], format!("{number}-R1"));
    assert!(r["document"].as_array().unwrap().iter().any(|l| l.as_str().unwrap().contains(&number)), "{r}");
    let at_psp = refunds_at_psp(&url, &pi);
    assert_eq!(at_psp.len(), 1, "{at_psp:?}");
    assert_eq!((at_psp[0]["amount"].as_i64(), at_psp[0]["status"].as_str()), (Some(total / 2), Some("succeeded")));

    // Its document prints like a normal return's, to the ESC/POS test printer over loopback:
    // A's receipt number and sale, "From register Front till", the mug and the refund per
    // rate; the second print is marked; each print audited with its text's SHA-256.
    let tp = TestPrinter::start().unwrap();
    std::fs::write(dir_b.path().join("printer.json"), json!({ "printer": tp.addr().to_string() }).to_string()).unwrap();
    let p1 = call(&w, "print_restored_return", json!({ "returnId": r["return_id"] })).unwrap();
    assert_eq!((p1["print_no"].as_i64(), p1["reprint"].as_bool(), p1["next_print_reprint"].as_bool()), (Some(1), Some(false), Some(true)), "{p1}");
    let job = tp.next_job(Duration::from_secs(20)).expect("a job").unwrap();
    let printed: Vec<String> = job.texts().iter().map(|t| t.trim().to_string()).collect();
    let money = |m: i64| format!("${}.{:02}", m / 100, m % 100);
    assert!(!printed.iter().any(|l| l == "** REPRINT **"), "{printed:#?}");
    assert!(printed.iter().any(|l| l == &format!("Original receipt {number}")), "{printed:#?}");
    assert!(printed.iter().any(|l| l == "From register Front till"), "{printed:#?}");
    let mug = form["lines"][0]["name"].as_str().unwrap().to_string();
    assert!(printed.iter().any(|l| l.starts_with(&format!("{mug} x1"))), "{printed:#?}");
    let taxable = printed.iter().find(|l| l.starts_with("Taxable at")).unwrap_or_else(|| panic!("{printed:#?}"));
    assert!(taxable.ends_with(&money(total / 2)), "{taxable}");
    assert!(printed.iter().any(|l| l.starts_with("Tax") && !l.starts_with("Taxable")), "{printed:#?}");
    assert_eq!((job.cuts, job.kicks.len()), (1, 0), "a return document never opens the drawer");
    let p2 = call(&w, "print_restored_return", json!({ "returnId": r["return_id"] })).unwrap();
    assert_eq!((p2["print_no"].as_i64(), p2["reprint"].as_bool()), (Some(2), Some(true)), "{p2}");
    let again = tp.next_job(Duration::from_secs(20)).expect("a job").unwrap();
    assert!(again.texts().iter().any(|l| l.trim() == "** REPRINT **"), "{:#?}", again.texts());
    assert_eq!(call(&w, "print_restored_return", json!({ "returnId": 0 })).unwrap_err()["code"], "invalid_input");
    let b = Ledger::open(dir_b.path().join("ledger.db")).unwrap();
    let first_text = r["document"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect::<Vec<_>>().join("\n");
    let audited: Vec<(String, bool)> = {
        let mut st = b.connection().prepare("SELECT after_doc FROM audit_log WHERE action = 'restored_return_print' ORDER BY id").unwrap();
        let rows = st.query_map([], |x| x.get::<_, String>(0)).unwrap();
        rows.map(|a| {
            let a: Value = serde_json::from_str(&a.unwrap()).unwrap();
            (a["text_sha256"].as_str().unwrap().to_string(), a["reprint"].as_bool().unwrap())
        })
        .collect()
    };
    assert_eq!(audited.len(), 2, "{audited:?}");
    assert_eq!(audited[0], (paydesk_ledger::receipt_text_sha256(&first_text), false), "the first print's text is the document shown");
    assert!(audited[1].1);
    drop(b);

    // The second mug; then nothing is left, and a third is refused with nothing sent.
    let two = call(&w, "return_restored_lines", approved.clone()).unwrap();
    assert_eq!(two["number"], format!("{number}-R2"));
    let form = call(&w, "restored_return_form", json!({ "source": SRC, "sale": sale })).unwrap();
    assert_eq!(form["lines"][0]["returned"], 2);
    let e = call(&w, "return_restored_lines", approved).unwrap_err();
    assert_eq!(e["code"], "invalid_input", "{e}");
    let at_psp = refunds_at_psp(&url, &pi);
    assert_eq!(at_psp.len(), 2);
    assert_eq!(at_psp.iter().map(|r| r["amount"].as_i64().unwrap()).sum::<i64>(), total);
}
