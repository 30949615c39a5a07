//! `paydesk-cli sync` against the REAL back office on a private PostgreSQL, with real
//! checkouts through the mock PSP (record 0045): pair with the code on stdin, a SIGKILL
//! after the back office answered and before the register dropped anything, the resend
//! that changes nothing, the back office holding exactly the register's rows, and the
//! register selling while the back office is down.
use crate::common;
use crate::support;

use common::*;
use serde_json::Value;
use std::path::Path;

/// The back office's payments as the CLI's `ledger` prints them: key, amount, state, PSP id.
async fn assert_back_office_equals_ledger(h: &support::Harness, db: &Path, psp: &Psp) {
    let mut mine: Vec<(String, i64, String, Option<String>)> = ledger(db, &psp.url())
        .await
        .iter()
        .map(|r| (r["checkout_key"].as_str().unwrap().into(), r["amount"].as_i64().unwrap(), r["state"].as_str().unwrap().into(), r["psp_payment_id"].as_str().map(str::to_string)))
        .collect();
    mine.sort();
    assert_eq!(h.payment_rows().await, mine);
}

#[tokio::test]
async fn pair_then_a_sigkill_after_the_answer_resends_and_nothing_is_twice_or_lost() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.db");
    let psp = Psp::start(dir.path()).await;
    let h = support::Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    for minor in ["1200", "450", "3000"] {
        checkout_usd(&db, &psp, minor).await;
    }

    let code = h.owner.pairing_code(&store, "Front till").await.unwrap();
    let r = sync_pair(&db, &h.url, &code).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let p = r.json();
    assert_eq!((p["paired"].as_bool(), p["store_id"].as_str(), p["register_name"].as_str()), (Some(true), Some(store.as_str()), Some("Front till")));
    let token_path = dir.path().join("sync.token");
    let token = std::fs::read_to_string(&token_path).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&token_path).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(!r.stdout.contains(token.trim()) && !r.stderr.contains(token.trim()), "the token is never printed");
    assert!(!std::fs::read_to_string(dir.path().join("sync.json")).unwrap().contains(token.trim()));
    let again = sync_pair(&db, &h.url, &code).await;
    assert_eq!((again.code, again.json()["error"]["code"].as_str()), (Some(1), Some("already_paired")));

    let st = sync_cmd(&db, &["status"], &[]).await.json();
    let queued = st["queued"].as_u64().unwrap();
    assert!(st["paired"].as_bool().unwrap() && queued >= 9, "{st}");

    // Killed right after the back office answered, before a row is dropped.
    let killed = sync_cmd(&db, &["run", "--once"], &[("PAYDESK_CRASH_AT", "sync_after_send")]).await;
    assert!(killed.killed(), "{killed:?}", killed = killed.stderr);
    assert_eq!(h.count("SELECT count(*) FROM journal").await, queued as i64, "the back office has the batch");
    let st = sync_cmd(&db, &["status"], &[]).await.json();
    assert_eq!((st["queued"].as_u64(), st["acked_through"].as_u64()), (Some(queued), Some(0)), "{st}");
    assert_eq!(st["batch_in_flight"]["first_seq"], 1);

    // Sales go on; the next run resends the same batch (same key, same body), then the rest.
    checkout_usd(&db, &psp, "800").await;
    let r = sync_cmd(&db, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let round = &r.json()["round"];
    assert_eq!(round["batches"], 2, "{round}");
    let st = sync_cmd(&db, &["status"], &[]).await.json();
    let high = st["high_water"].as_i64().unwrap();
    assert_eq!((st["queued"].as_u64(), st["acked_through"].as_i64(), st["batch_in_flight"].clone()), (Some(0), Some(high), Value::Null), "{st}");
    assert_eq!(h.count("SELECT count(*) FROM journal").await, high, "each seq once");
    assert_eq!(h.count("SELECT max(seq) FROM journal").await, high);
    assert_eq!(h.count("SELECT count(*) FROM batch_keys").await, 2);
    assert_back_office_equals_ledger(&h, &db, &psp).await;
}

#[tokio::test]
async fn the_register_keeps_selling_while_the_back_office_is_down() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.db");
    let psp = Psp::start(dir.path()).await;
    let h = support::Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let code = h.owner.pairing_code(&store, "Till").await.unwrap();
    assert_eq!(sync_pair(&db, &h.url, &code).await.code, Some(0));
    let support::Harness { running, owner, url, cluster } = h;
    let (addr, state) = (running.addr, running.state.clone());
    running.shutdown().await;
    // Kept ours while it is down (refused, as a pulled cable), so no other test's
    // server is given the port.
    let hold = paydesk_test_kit::PortHold::take(addr).await;

    for minor in ["500", "650"] {
        let c = checkout_usd(&db, &psp, minor).await;
        assert_eq!(c["state"], "captured", "{c}");
    }
    let r = sync_cmd(&db, &["run", "--once"], &[]).await;
    assert_eq!((r.code, r.json()["error"]["code"].as_str()), (Some(1), Some("unreachable")), "{}", r.stdout);
    assert!(sync_cmd(&db, &["status"], &[]).await.json()["queued"].as_u64().unwrap() >= 8);

    drop(hold);
    let running = paydesk_backoffice::serve(state, addr).await.expect("the same port again");
    let h = support::Harness { running, owner, url, cluster };
    let r = sync_cmd(&db, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert_eq!(sync_cmd(&db, &["status"], &[]).await.json()["queued"], 0);
    assert_back_office_equals_ledger(&h, &db, &psp).await;
}
