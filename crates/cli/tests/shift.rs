//! `paydesk-cli shift …` (record 0066) through the real binary on a real ledger file:
//! PINs on stdin, a cashier's paid out refused until a manager approves, no cash sale
//! outside an open shift, the close on a blind count with its over/short, Z numbers
//! carried across runs, and the Z report's audit head accepted by `audit verify`.

use crate::common;
use common::*;

const NO_PSP: &str = "http://127.0.0.1:9";
use std::path::Path;

async fn with_stdin(db: &Path, args: &[&str], stdin: &str) -> Run {
    run_stdin(db, NO_PSP, args, stdin).await
}

async fn ok(db: &Path, args: &[&str], stdin: &str) -> serde_json::Value {
    let r = with_stdin(db, args, stdin).await;
    assert_eq!(r.code, Some(0), "{args:?}: {} {}", r.stdout, r.stderr);
    r.json()
}

async fn cash_sale(db: &Path, tendered: &str) -> Run {
    let s = run(db, NO_PSP, &[], &["sale", "new", "--currency", "jpy", "--item", "MUG-001"]).await;
    assert_eq!(s.code, Some(0), "{}{}", s.stdout, s.stderr);
    let cart = s.json()["cart_id"].as_i64().unwrap().to_string();
    run(db, NO_PSP, &[], &["sale", "cash", "--cart", &cart, "--tendered", tendered]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shift_from_float_to_z_report_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    assert_eq!(run(&db, NO_PSP, &[], &["store", "seed", "--locale", "ja-JP"]).await.code, Some(0));
    ok(&db, &["staff", "add", "--name", "Aiko", "--role", "owner"], "1357\n").await;
    ok(&db, &["staff", "add", "--name", "Mika", "--role", "manager", "--by", "Aiko"], "2468\n1357\n").await;
    ok(&db, &["staff", "add", "--name", "Ben", "--role", "cashier", "--by", "Aiko"], "1234\n1357\n").await;

    // With staff, no cash moves before someone signs in and opens a shift.
    let r = cash_sale(&db, "2000").await;
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert!(r.stdout.contains("nobody is signed in"), "{}", r.stdout);
    assert_eq!(ok(&db, &["staff", "sign-in", "--name", "Mika"], "2468\n").await["name"], "Mika");
    let r = cash_sale(&db, "2000").await;
    assert!(r.stdout.contains("no shift is open"), "{}", r.stdout);
    assert_eq!(ok(&db, &["staff", "sign-out"], "").await["signed_out"], 2);
    assert_eq!(ok(&db, &["staff", "whoami"], "").await, serde_json::Value::Null);
    assert_eq!(ok(&db, &["shift", "status"], "").await, serde_json::Value::Null);

    // A wrong PIN opens nothing.
    let r = with_stdin(&db, &["shift", "open", "--by", "Ben", "--float", "1000x5"], "9999\n").await;
    assert_eq!(r.json()["error"]["code"], "wrong_pin", "{}", r.stdout);
    let r = with_stdin(&db, &["shift", "open", "--by", "Ben", "--float", "1000y5"], "1234\n").await;
    assert_eq!(r.json()["error"]["code"], "invalid_input", "{}", r.stdout);
    let s = ok(&db, &["shift", "open", "--by", "Ben", "--float", "1000x5,100x10"], "1234\n").await;
    assert_eq!(s["float_minor"], 6000);
    assert_eq!(ok(&db, &["staff", "whoami"], "").await["name"], "Ben", "--by stays signed in");
    assert_eq!(cash_sale(&db, "2000").await.code, Some(0));
    // The close is blind: while the shift is open no command but the audited X report
    // says what the drawer should hold (record 0069).
    let day = ok(&db, &["sale", "day"], "").await;
    assert_eq!(day["expected_drawer"], serde_json::Value::Null, "{day}");
    assert!(!day.to_string().contains("7650"), "no figure of the drawer: {day}");

    // A cashier's paid out needs a manager: refused alone, recorded with both names.
    let r = with_stdin(&db, &["shift", "paid-out", "--by", "Ben", "--amount", "500", "--reason", "milk"], "1234\n").await;
    assert_eq!(r.json()["error"]["code"], "not_allowed", "{}", r.stdout);
    let p = ok(&db, &["shift", "paid-out", "--by", "Ben", "--amount", "500", "--reason", "milk", "--approver", "Mika"], "1234\n2468\n").await;
    assert_eq!((p["amount_minor"].as_i64(), p["approver_id"].as_i64()), (Some(500), Some(2)), "{p}");

    let x = ok(&db, &["shift", "x", "--by", "Ben"], "1234\n").await;
    assert_eq!(x["expected_drawer_minor"], 6000 + 1650 - 500, "{x}");

    // The blind count: ¥50 over. Then a second shift is Z 2, in a later run.
    let z = ok(&db, &["shift", "close", "--by", "Ben", "--approver", "Mika", "--counted", "5000x1,1000x2,100x1,50x2"], "1234\n2468\n").await;
    assert_eq!((z["z_number"].as_i64(), z["expected_minor"].as_i64(), z["over_short_minor"].as_i64()), (Some(1), Some(7150), Some(50)), "{z}");
    let day = ok(&db, &["sale", "day"], "").await;
    assert!(day["expected_drawer"].is_array(), "shown again once the shift is closed: {day}");
    let head = z["audit_head"].as_str().unwrap().to_string();
    let v = run(&db, NO_PSP, &[], &["audit", "verify", "--head", &head]).await;
    assert_eq!(v.code, Some(0), "the close's row is the chain's last: {}", v.stdout);
    ok(&db, &["shift", "open", "--by", "Mika"], "2468\n").await;
    let z2 = ok(&db, &["shift", "close", "--by", "Mika"], "2468\n").await;
    assert_eq!(z2["z_number"], 2);
    // Z 1's head is an older checkpoint now: still in the chain, but no longer its end.
    let v = run(&db, NO_PSP, &[], &["audit", "verify", "--checkpoint", &head]).await;
    assert_eq!(v.code, Some(0), "{}", v.stdout);
    let v = run(&db, NO_PSP, &[], &["audit", "verify", "--head", &head]).await;
    assert_eq!(v.code, Some(4), "{}", v.stdout);
    let forged = format!("{}:{}", head.split(':').next().unwrap(), "0".repeat(64));
    let v = run(&db, NO_PSP, &[], &["audit", "verify", "--checkpoint", &forged]).await;
    assert_eq!(v.code, Some(4), "{}", v.stdout);
    assert!(v.stdout.contains("checkpoint_mismatch"), "{}", v.stdout);
    let again = ok(&db, &["shift", "z", "--number", "1"], "").await;
    assert_eq!(again["over_short_minor"], 50);
    let r = with_stdin(&db, &["shift", "z", "--number", "7"], "").await;
    assert_eq!(r.json()["error"]["code"], "invalid_input");
}
