//! `paydesk-cli staff` and `paydesk-cli audit verify` (record 0062) on a real ledger
//! file: the PIN comes on stdin (never argv), only an owner adds staff, the chain
//! verifies, and a row changed or deleted by plain SQL on the file makes `audit
//! verify` exit 4 naming the row.

use crate::common;
use common::*;
use std::path::Path;

async fn with_stdin(db: &Path, url: &str, args: &[&str], stdin: &str) -> Run {
    run_stdin(db, url, args, stdin).await
}

#[tokio::test]
async fn staff_are_added_by_an_owner_and_the_audit_chain_catches_plain_sql() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("ledger.db");

    // The first member must be the owner; a PIN on stdin, checked for shape.
    let r = with_stdin(&db, &url, &["staff", "add", "--name", "Ben", "--role", "cashier"], "2468\n").await;
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert_eq!(r.json()["error"]["code"], "invalid_input");
    let r = with_stdin(&db, &url, &["staff", "add", "--name", "Aiko", "--role", "owner"], "12a4\n").await;
    assert_eq!(r.json()["error"]["code"], "invalid_pin", "{}", r.stdout);
    let r = with_stdin(&db, &url, &["staff", "add", "--name", "Aiko", "--role", "owner"], "1357\n").await;
    assert_eq!(r.code, Some(0), "{} {}", r.stdout, r.stderr);
    assert_eq!(r.json()["role"], "owner");

    // Then only with --by an owner and that owner's PIN.
    let r = with_stdin(&db, &url, &["staff", "add", "--name", "Ben", "--role", "cashier"], "2468\n").await;
    assert_eq!(r.json()["error"]["code"], "invalid_input");
    let r = with_stdin(&db, &url, &["staff", "add", "--name", "Ben", "--role", "cashier", "--by", "Aiko"], "2468\n9999\n").await;
    assert_eq!(r.json()["error"]["code"], "wrong_pin", "{}", r.stdout);
    let r = with_stdin(&db, &url, &["staff", "add", "--name", "Ben", "--role", "cashier", "--by", "Aiko"], "2468\n1357\n").await;
    assert_eq!(r.code, Some(0), "{} {}", r.stdout, r.stderr);
    let r = with_stdin(&db, &url, &["staff", "add", "--name", "Cai", "--role", "manager", "--by", "Ben"], "1111\n2468\n").await;
    assert_eq!(r.json()["error"]["code"], "invalid_input", "a cashier adds nobody: {}", r.stdout);

    let list = run(&db, &url, &[], &["staff", "list"]).await.lines();
    let names: Vec<&str> = list.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Aiko", "Ben"]);
    assert!(!run(&db, &url, &[], &["staff", "list"]).await.stdout.contains("argon2"), "no hash is printed");

    // Intact, with the head kept apart.
    let head = run(&db, &url, &[], &["audit", "head"]).await.json()["head"].as_str().unwrap().to_string();
    let v = run(&db, &url, &[], &["audit", "verify", "--head", &head]).await;
    assert_eq!(v.code, Some(0), "{}", v.stdout);
    assert_eq!(v.json()["intact"], true);
    let rows = v.json()["rows_checked"].as_u64().unwrap();
    assert!(rows >= 4, "staff_add x2, failed and good approvals: {rows}");
    let bad = run(&db, &url, &[], &["audit", "verify", "--head", "7:zz"]).await;
    assert_eq!(bad.json()["error"]["code"], "invalid_input");

    // Someone edits row 2 by hand: named, exit 4.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("UPDATE audit_log SET after_doc = '{\"name\":\"Ben\",\"role\":\"owner\"}' WHERE id = 2", []).unwrap();
    let v = run(&db, &url, &[], &["audit", "verify", "--head", &head]).await;
    assert_eq!(v.code, Some(4), "{}", v.stdout);
    assert_eq!(v.json()["breaks"][0]["kind"], "changed");
    assert_eq!(v.json()["breaks"][0]["message"], "row 2 was changed after it was written");

    // And the last row deleted: only the head kept apart shows it.
    c.execute(&format!("DELETE FROM audit_log WHERE id = {rows}"), []).unwrap();
    let v = run(&db, &url, &[], &["audit", "verify", "--head", &head]).await.json();
    assert_eq!(v["breaks"][1]["kind"], "truncated", "{v}");
}

#[tokio::test]
async fn audit_verify_checks_the_head_the_back_office_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("ledger.db");
    for (name, role, stdin) in [("Aiko", "owner", "1357\n"), ("Ben", "cashier", "2468\n1357\n"), ("Cai", "manager", "1111\n1357\n")] {
        let by: &[&str] = if role == "owner" { &[] } else { &["--by", "Aiko"] };
        let r = with_stdin(&db, &url, &[&["staff", "add", "--name", name, "--role", role][..], by].concat(), stdin).await;
        assert_eq!(r.code, Some(0), "{} {}", r.stdout, r.stderr);
    }
    // Never synced: nothing confirmed, said so.
    let v = run(&db, &url, &[], &["audit", "verify"]).await;
    assert_eq!((v.code, v.json()["back_office_confirmed"].clone()), (Some(0), serde_json::Value::Null), "{}", v.stdout);

    // The back office confirmed the head (as the sync loop keeps it from an ack).
    let head = {
        let mut l = paydesk_ledger::Ledger::open(&db).unwrap();
        let head = l.audit().head().unwrap();
        l.audit_mut().set_confirmed(head, 1_790_000_000_000).unwrap();
        head
    };
    let v = run(&db, &url, &[], &["audit", "verify"]).await;
    assert_eq!(v.code, Some(0), "{}", v.stdout);
    let c = &v.json()["back_office_confirmed"];
    assert_eq!((c["seq"].as_u64(), c["confirmed_at_ms"].as_i64()), (Some(head.seq), Some(1_790_000_000_000)), "{}", v.stdout);

    // The last rows deleted by hand, no --head given: the confirmed head names it, exit 4.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("DELETE FROM audit_log WHERE id > ?1", [head.seq as i64 - 2]).unwrap();
    let v = run(&db, &url, &[], &["audit", "verify"]).await;
    assert_eq!(v.code, Some(4), "{}", v.stdout);
    let b = &v.json()["breaks"][0];
    assert_eq!((b["kind"].as_str(), b["confirmed_seq"].as_u64()), (Some("behind_confirmed"), Some(head.seq)), "{}", v.stdout);
    assert_eq!(b["message"], format!("rows {} to {}, confirmed by the back office, were deleted from the end", head.seq - 1, head.seq));
}
