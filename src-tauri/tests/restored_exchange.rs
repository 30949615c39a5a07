//! A sale restored from a replaced register exchanged through the app's command (record 0153
//! addendum), on Tauri's mock runtime with the real wiring: register A (its own data folder,
//! the app's embedded mock PSP over loopback) sells a mug and a coffee, $10.00 by card and
//! $9.00 in cash; its queued facts become B's restored history; B, on A's PSP, exchanges
//! A's coffee for a mug rung up on B's register (the credit comes out of A's card, the rest
//! is paid by card at the PSP once, B's drawer untouched), then A's mug for a coffee (the
//! credit again out of A's card, the difference back to A's card once for what it has left,
//! the rest from B's drawer). A cashier is refused without a manager's approval; more than
//! was sold, another sale than the one shown and bad input are refused with nothing written;
//! B's mug comes back before the second exchange: B's card gets its own part back and the
//! credit's part goes back to A's card, once (record 0156).

use crate::restored_returns::{history, refunds_at_psp};
use crate::support;

use paydesk_ledger::{Ledger, RestoreSourceRow};
use serde_json::{json, Value};
use support::{app, app_with, call};
use tauri::Manager;

const SRC: &str = "reg-front-till";

fn lines(line: i64, quantity: i64) -> Value {
    json!([{ "line": line, "quantity": quantity }])
}

fn drawer(dir: &std::path::Path) -> i64 {
    Ledger::open(dir.join("ledger.db")).unwrap().sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum()
}

/// How many returns of restored sales and restored exchanges B's ledger holds.
fn written(dir: &std::path::Path) -> (i64, i64) {
    let b = Ledger::open(dir.join("ledger.db")).unwrap();
    let count = |t: &str| b.connection().query_row(&format!("SELECT COUNT(*) FROM {t}"), [], |r| r.get::<_, i64>(0)).unwrap();
    (count("restored_returns"), count("restored_exchanges"))
}

#[test]
fn a_restored_split_sale_is_exchanged_into_this_registers_sale_with_approval() {
    // A: a mug and a coffee ($19.00 with New York's tax), $10.00 by card, $9.00 in cash.
    let dir_a = tempfile::tempdir().unwrap();
    let (app_a, w_a) = app(dir_a.path());
    call(&w_a, "scan", json!({ "code": "MUG-001" })).unwrap();
    call(&w_a, "scan", json!({ "code": "COF-001" })).unwrap();
    let card = call(&w_a, "pay_card", json!({ "amount": "10.00", "paymentMethod": "pm_card_visa", "seenTenders": 0 })).unwrap();
    assert_eq!(card["outcome"], "paid", "{card}");
    let cash = call(&w_a, "pay_cash", json!({ "tendered": "9.00", "seenTenders": 1 })).unwrap();
    assert_eq!(cash["sale"]["complete"], true, "{cash}");
    let sale = cash["sale"]["cart_id"].as_i64().unwrap();
    let a = Ledger::open(dir_a.path().join("ledger.db")).unwrap();
    let key = a.sales().by_cart(paydesk_ledger::CartId(sale)).unwrap().tenders.iter().find_map(|t| t.checkout_key.clone()).unwrap();
    let pi = a.payments().by_key(&key).unwrap().unwrap().psp_payment_id.unwrap();
    let rows = history(&a);
    drop(a);
    let state_a = app_a.state::<paydesk_app::AppState>();
    let url = state_a.embedded().unwrap().url.clone();
    let charges = || state_a.embedded().unwrap().server.psp().stats()["charges"].as_i64().unwrap();
    assert_eq!(charges(), 1);

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
    let form = call(&w, "restored_return_form", json!({ "source": SRC, "sale": sale })).unwrap();
    let names: Vec<&str> = form["lines"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["PayDesk mug", "Coffee, regular"], "{form}");
    let drawer_before = drawer(dir_b.path());

    // B rings a mug up ($16.28); the exchange of A's coffee ($2.72) will pay part of it.
    call(&w, "scan", json!({ "code": "MUG-001" })).unwrap();
    let target = call(&w, "exchange_target", json!({})).unwrap();
    let into = target["cart"].as_i64().unwrap();
    assert_eq!(target["open"], 1628, "{target}");
    let args = |into: i64, l: Value| json!({ "source": SRC, "sale": sale, "into": into, "lines": l, "reason": "wrong size" });

    // Bad input, another sale than the one on the register, more than was sold: refused,
    // nothing written, nothing sent.
    for (bad, code) in [
        (json!({ "source": "", "sale": sale, "into": into, "lines": lines(1, 1), "reason": "x" }), "invalid_input"),
        (json!({ "source": SRC, "sale": 0, "into": into, "lines": lines(1, 1), "reason": "x" }), "invalid_input"),
        (json!({ "source": "nobody", "sale": sale, "into": into, "lines": lines(1, 1), "reason": "x" }), "unknown_restore_source"),
        (json!({ "source": SRC, "sale": sale + 1000, "into": into, "lines": lines(1, 1), "reason": "x" }), "unknown_restored_sale"),
        (args(into, json!([])), "invalid_input"),
        (args(into, lines(1, 10_000)), "invalid_input"),
        (args(into, lines(2, 1)), "invalid_input"),
        (args(into + 1, lines(1, 1)), "invalid_input"),
        (args(into, lines(1, 2)), "invalid_input"),
        (json!({ "source": SRC, "sale": sale, "into": into, "lines": lines(1, 1), "reason": "" }), "invalid_input"),
    ] {
        let mut approved = bad.clone();
        approved["approval"] = json!({ "name": "Olivia", "pin": support::OWNER_PIN });
        let e = call(&w, "exchange_restored_lines", approved).unwrap_err();
        assert_eq!(e["code"], code, "{bad}: {e}");
    }
    // Another sale than the register's is refused by the command, before the ledger.
    let mut elsewhere = args(into + 1, lines(1, 1));
    elsewhere["approval"] = json!({ "name": "Olivia", "pin": support::OWNER_PIN });
    let e = call(&w, "exchange_restored_lines", elsewhere).unwrap_err();
    assert!(e["message"].as_str().unwrap().contains("moved on to another sale"), "{e}");
    assert_eq!(written(dir_b.path()), (0, 0));

    // A cashier is asked for a manager; nothing is written, nothing reaches the PSP.
    call(&w, "sign_out", json!({})).unwrap();
    call(&w, "sign_in", json!({ "name": "Casey", "pin": "3333" })).unwrap();
    let e = call(&w, "exchange_restored_lines", args(into, lines(1, 1))).unwrap_err();
    assert_eq!((e["code"].as_str(), e["action"].as_str()), (Some("approval_required"), Some("refund")), "{e}");
    assert_eq!(written(dir_b.path()), (0, 0));
    assert_eq!(call(&w, "get_sale", json!({})).unwrap()["due"], 1628);
    assert!(refunds_at_psp(&url, &pi).is_empty());

    // Approved: the coffee's $2.72 pays B's mug (out of A's card, which keeps it); $13.56 is
    // left to pay on the register, nothing given back.
    let approval = json!({ "name": "Olivia", "pin": support::OWNER_PIN });
    let mut approved = args(into, lines(1, 1));
    approved["approval"] = approval.clone();
    let r = call(&w, "exchange_restored_lines", approved).unwrap();
    let number = format!("{sale:06}");
    assert_eq!(r["number"], format!("{number}-R1"), "{r}");
    assert_eq!((r["total"].as_i64(), r["credit"].as_i64(), r["due"].as_i64(), r["cash_out"].as_i64()), (Some(272), Some(272), Some(1356), Some(0)), "{r}");
    assert!(r["lines"].as_array().unwrap().is_empty(), "{r}");
    assert_eq!(r["message"], format!("Exchanged ({number}-R1): $2.72 pays the sale on the register. $13.56 is left to pay there."));
    let doc = r["document"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect::<Vec<_>>().join("\n");
    assert!(doc.contains(&format!("Original receipt {number}")) && doc.contains("From register Front till"), "{doc}");
    assert_eq!(written(dir_b.path()), (1, 1));
    assert!(refunds_at_psp(&url, &pi).is_empty(), "the credit stays on A's payment: nothing refunded");
    // The rest by card at the PSP: one charge.
    let now = call(&w, "get_sale", json!({})).unwrap();
    assert_eq!((now["cart_id"].as_i64(), now["due"].as_i64()), (Some(into), Some(1356)), "{now}");
    let seen = now["tenders"].as_array().unwrap().len();
    let paid = call(&w, "pay_card", json!({ "paymentMethod": "pm_card_visa", "seenTenders": seen })).unwrap();
    assert_eq!((paid["outcome"].as_str(), paid["sale"]["complete"].as_bool()), (Some("paid"), Some(true)), "{paid}");
    assert_eq!(charges(), 2, "the difference charged once");
    assert_eq!(drawer(dir_b.path()), drawer_before, "B's drawer untouched");
    // B's mug comes back (record 0156): B's card gives back the $13.56 it paid, and what the
    // credit paid goes back where it came from, A's card: one refund of $2.72 on A's payment.
    let mut give_back = json!({ "cart": into, "lines": lines(0, 1), "reason": "changed mind" });
    give_back["approval"] = approval.clone();
    let r = call(&w, "return_lines", give_back).unwrap();
    let at_psp = refunds_at_psp(&url, &pi);
    assert_eq!(at_psp.iter().map(|f| (f["amount"].as_i64(), f["status"].as_str())).collect::<Vec<_>>(), [(Some(272), Some("succeeded"))], "{r}");
    assert_eq!(drawer(dir_b.path()), drawer_before, "B's drawer untouched");

    // The next sale: a coffee ($2.72) for A's mug ($16.28). The credit, $2.72, out of A's card
    // again; the difference $13.56: A's card gives back what it has left ($10.00 - $5.44 =
    // $4.56, one refund) and B's drawer the rest ($9.00, what A's cash took).
    call(&w, "new_sale", json!({})).unwrap();
    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    let into = call(&w, "exchange_target", json!({})).unwrap()["cart"].as_i64().unwrap();
    let mut approved = args(into, lines(0, 1));
    approved["approval"] = approval.clone();
    let r = call(&w, "exchange_restored_lines", approved.clone()).unwrap();
    assert_eq!(r["number"], format!("{number}-R2"), "{r}");
    assert_eq!((r["total"].as_i64(), r["credit"].as_i64(), r["due"].as_i64(), r["cash_out"].as_i64()), (Some(1628), Some(272), Some(0), Some(900)), "{r}");
    assert_eq!(r["message"], format!("Exchanged ({number}-R2): $2.72 pays the sale on the register. Hand $9.00 back from the drawer."));
    let at_psp = refunds_at_psp(&url, &pi);
    assert_eq!(at_psp.len(), 2, "the credit's $2.72 given back, then this: {at_psp:?}");
    let this = at_psp.iter().find(|f| f["amount"].as_i64() == Some(456)).expect("a refund of $4.56");
    assert_eq!(this["status"].as_str(), Some("succeeded"));
    assert_eq!(r["lines"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(drawer(dir_b.path()), drawer_before - 900);
    assert_eq!(call(&w, "get_sale", json!({})).unwrap()["complete"], true);
    assert_eq!(charges(), 2, "nothing more charged");

    // Nothing of A's sale is left: again is refused, nothing written or sent.
    call(&w, "new_sale", json!({})).unwrap();
    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    let into = call(&w, "exchange_target", json!({})).unwrap()["cart"].as_i64().unwrap();
    let mut again = args(into, lines(0, 1));
    again["approval"] = approval;
    assert_eq!(call(&w, "exchange_restored_lines", again).unwrap_err()["code"], "invalid_input");
    assert_eq!(written(dir_b.path()), (2, 2));
    assert_eq!(refunds_at_psp(&url, &pi).len(), 2);
    assert_eq!(drawer(dir_b.path()), drawer_before - 900);
    let form = call(&w, "restored_return_form", json!({ "source": SRC, "sale": sale })).unwrap();
    assert_eq!((form["lines"][0]["returned"].as_i64(), form["lines"][1]["returned"].as_i64()), (Some(1), Some(1)));
}
