//! `paydesk-cli staff role|reset-pin|retire|list` on a real ledger file (record 0127):
//! PINs only on stdin, only an owner changes staff, each refusal with its code, the
//! last owner kept, and a retired member refused at sign-in.

use crate::common;
use common::*;

#[tokio::test]
async fn an_owner_changes_roles_resets_pins_and_retires_and_the_refusals_have_codes() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("ledger.db");
    for (name, role, stdin) in [("Aiko", "owner", "1357\n"), ("Ben", "cashier", "2468\n1357\n"), ("Cai", "manager", "1111\n1357\n")] {
        let by: &[&str] = if role == "owner" { &[] } else { &["--by", "Aiko"] };
        let r = run_stdin(&db, &url, &[&["staff", "add", "--name", name, "--role", role][..], by].concat(), stdin).await;
        assert_eq!(r.code, Some(0), "{} {}", r.stdout, r.stderr);
    }

    let r = run_stdin(&db, &url, &["staff", "role", "--name", "Ben", "--role", "manager", "--by", "Aiko"], "1357\n").await;
    assert_eq!(r.code, Some(0), "{} {}", r.stdout, r.stderr);
    assert_eq!((r.json()["name"].as_str(), r.json()["role"].as_str()), (Some("Ben"), Some("manager")));
    // A manager is not an owner; a wrong PIN is a wrong PIN; the last owner stays one.
    let r = run_stdin(&db, &url, &["staff", "role", "--name", "Ben", "--role", "owner", "--by", "Cai"], "1111\n").await;
    assert_eq!(r.json()["error"]["code"], "not_allowed", "{}", r.stdout);
    let r = run_stdin(&db, &url, &["staff", "retire", "--name", "Ben", "--by", "Aiko"], "0000\n").await;
    assert_eq!(r.json()["error"]["code"], "wrong_pin", "{}", r.stdout);
    let r = run_stdin(&db, &url, &["staff", "retire", "--name", "Aiko", "--by", "Aiko"], "1357\n").await;
    assert_eq!(r.json()["error"]["code"], "last_owner", "{}", r.stdout);
    let r = run_stdin(&db, &url, &["staff", "role", "--name", "Aiko", "--role", "cashier", "--by", "Aiko"], "1357\n").await;
    assert_eq!(r.json()["error"]["code"], "last_owner", "{}", r.stdout);
    let r = run_stdin(&db, &url, &["staff", "role", "--name", "Zed", "--role", "cashier", "--by", "Aiko"], "1357\n").await;
    assert_eq!(r.json()["error"]["code"], "unknown_staff", "{}", r.stdout);
    // No PIN on stdin: refused before anything is asked.
    let r = run_stdin(&db, &url, &["staff", "reset-pin", "--name", "Ben", "--by", "Aiko"], "4444\n").await;
    assert_eq!(r.json()["error"]["code"], "invalid_input", "{}", r.stdout);

    let r = run_stdin(&db, &url, &["staff", "reset-pin", "--name", "Ben", "--by", "Aiko"], "4444\n1357\n").await;
    assert_eq!(r.code, Some(0), "{} {}", r.stdout, r.stderr);
    let r = run_stdin(&db, &url, &["staff", "sign-in", "--name", "Ben"], "2468\n").await;
    assert_eq!(r.json()["error"]["code"], "wrong_pin", "the old PIN is gone: {}", r.stdout);
    let r = run_stdin(&db, &url, &["staff", "sign-in", "--name", "Ben"], "4444\n").await;
    assert_eq!(r.code, Some(0), "{} {}", r.stdout, r.stderr);

    let r = run_stdin(&db, &url, &["staff", "retire", "--name", "Ben", "--by", "Aiko"], "1357\n").await;
    assert_eq!((r.code, r.json()["active"].as_bool()), (Some(0), Some(false)), "{}", r.stdout);
    let r = run_stdin(&db, &url, &["staff", "sign-in", "--name", "Ben"], "4444\n").await;
    assert_eq!(r.json()["error"]["code"], "wrong_pin", "a retired member does not sign in: {}", r.stdout);
    let r = run_stdin(&db, &url, &["staff", "retire", "--name", "Ben", "--by", "Aiko"], "1357\n").await;
    assert_eq!(r.json()["error"]["code"], "staff_retired", "{}", r.stdout);
    let r = run_stdin(&db, &url, &["staff", "add", "--name", "Ben", "--role", "cashier", "--by", "Aiko"], "2468\n1357\n").await;
    assert_eq!(r.json()["error"]["code"], "staff_name_retired", "{}", r.stdout);

    let list = run(&db, &url, &[], &["staff", "list"]).await;
    let rows: Vec<(String, String, bool, bool)> = list
        .lines()
        .iter()
        .map(|s| (s["name"].as_str().unwrap().into(), s["role"].as_str().unwrap().into(), s["active"].as_bool().unwrap(), s["published"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        rows,
        [("Aiko".into(), "owner".into(), true, false), ("Ben".into(), "manager".into(), false, false), ("Cai".into(), "manager".into(), true, false)]
    );
    assert!(!list.stdout.contains("argon2") && !list.stdout.contains("4444"), "no PIN nor hash is printed");
    let v = run(&db, &url, &[], &["audit", "verify"]).await.json();
    assert_eq!(v["intact"], true, "{v}");
}
