//! The blind close (record 0069): while a shift is open, no command a cashier can call
//! answers with what the drawer should hold — End of day's `get_tender_day` included —
//! except the X report, which the role table allows and the audit log records. After the
//! close End of day shows the drawer again.

use crate::support;

use paydesk_access::{Pin, Role};
use paydesk_ledger::Ledger;
use serde_json::{json, Value};
use support::{app_signed_out, call, Window};

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

/// Every number equal to `minor` and every text naming `shown`, with where it is.
fn mentions(v: &Value, minor: i64, shown: &str, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Number(n) if n.as_i64() == Some(minor) => out.push(format!("{at} = {n}")),
        Value::String(s) if s.contains(shown) => out.push(format!("{at} = {s:?}")),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| mentions(x, minor, shown, &format!("{at}[{i}]"), out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| mentions(x, minor, shown, &format!("{at}.{k}"), out)),
        _ => {}
    }
}

/// The commands a cashier can call to read something, with arguments that read.
fn reads(w: &Window) -> Vec<(&'static str, Result<Value, Value>)> {
    [
        ("get_catalog", json!({})),
        ("get_cart", json!({})),
        ("get_status", json!({})),
        ("current_checkout", json!({})),
        ("list_payments", json!({})),
        ("get_report", json!({ "since": 0 })),
        ("get_sale", json!({})),
        ("get_tender_day", json!({ "since": 0 })),
        ("get_settings", json!({})),
        ("about", json!({})),
        ("get_backoffice", json!({})),
        ("list_sales", json!({})),
        ("whoami", json!({})),
        ("staff_list", json!({})),
        ("get_store", json!({})),
        ("shift_status", json!({})),
        ("z_report", json!({})),
        ("audit_verify", json!({})),
        ("audit_page", json!({ "limit": 200 })),
        // Refused ones answer with an error, which must not name it either.
        ("paid_out", json!({ "amount": "99999", "reason": "more than the drawer" })),
        ("shift_close", json!({ "counted": [] })),
        ("print_shift_report", json!({ "kind": "x" })),
    ]
    .into_iter()
    .map(|(cmd, args)| (cmd, call(w, cmd, args)))
    .collect()
}

#[test]
fn a_cashier_reads_the_expected_drawer_only_through_the_audited_x_report() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
        let owner = l.roster_mut().add("山田", Role::Owner, &Pin::parse("1111").unwrap(), None, now_ms()).unwrap();
        l.roster_mut().add("鈴木", Role::Cashier, &Pin::parse("3333").unwrap(), Some(owner.id), now_ms()).unwrap();
    }
    let (_app, w) = app_signed_out(dir.path(), paydesk_app::Options { demo_store: Some("ja-JP".into()), ..Default::default() });
    call(&w, "sign_in", json!({ "name": "鈴木", "pin": "3333" })).expect("the cashier signs in");

    // A float of ¥12,345, a cash sale with change, ¥777 paid in (approved by the owner).
    let float = json!([
        { "denomination_minor": 10000, "count": 1 }, { "denomination_minor": 1000, "count": 2 },
        { "denomination_minor": 100, "count": 3 }, { "denomination_minor": 10, "count": 4 }, { "denomination_minor": 5, "count": 1 },
    ]);
    call(&w, "shift_open", json!({ "float": float })).unwrap();
    call(&w, "scan", json!({ "code": "COF-001" })).unwrap();
    call(&w, "pay_cash", json!({ "tendered": "10000", "seenTenders": 0 })).unwrap();
    call(&w, "new_sale", json!({})).unwrap();
    let owner = json!({ "name": "山田", "pin": "1111" });
    call(&w, "paid_in", json!({ "amount": "777", "reason": "両替の追加", "approval": owner })).unwrap();
    let expected = {
        let l = Ledger::open(dir.path().join("ledger.db")).unwrap();
        let movements: i64 = l.sales().expected_drawer().unwrap().iter().map(|(_, m)| m).sum();
        l.shifts().current().unwrap().unwrap().float_minor + movements + 777
    };
    let shown = format!("¥{},{:03}", expected / 1000, expected % 1000);

    // Nothing the cashier can read names it.
    for (cmd, answer) in reads(&w) {
        let v = answer.unwrap_or_else(|e| e);
        let mut found = Vec::new();
        mentions(&v, expected, &shown, cmd, &mut found);
        assert!(found.is_empty(), "{cmd} shows the expected drawer {shown} during the shift: {found:?}");
    }
    let day = call(&w, "get_tender_day", json!({ "since": 0 })).unwrap();
    assert!(day["expected_drawer"].is_null(), "End of day hides the drawer while the shift is open: {day}");
    assert_eq!(day["by_kind"][0]["kind"], "cash", "the rest of End of day is there: {day}");

    // The X report: a cashier's by the role table, and recorded with who looked.
    let x = call(&w, "x_report", json!({})).unwrap();
    assert_eq!(x["report"]["expected"], expected);
    let page = call(&w, "audit_page", json!({ "limit": 1 })).unwrap();
    assert_eq!((page[0]["action"].as_str(), page[0]["actor"].as_str()), (Some("x_report"), Some("鈴木")), "{page}");

    // After the close End of day shows the drawer again.
    let counted = json!([{ "denomination_minor": 10000, "count": 1 }]);
    call(&w, "shift_close", json!({ "counted": counted, "approval": owner })).unwrap();
    let day = call(&w, "get_tender_day", json!({ "since": 0 })).unwrap();
    assert!(day["expected_drawer"].is_array(), "{day}");
}
