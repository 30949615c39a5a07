//! A checkout left `created` by a crash may already be charged: the first attempt
//! reached the PSP and the process died before anything about it was saved (nothing
//! durable is written between the key and the result). Recovery with the PSP
//! unreachable must neither cancel it as "never sent" nor newly accept it offline;
//! once the PSP is back, the same key adopts the one charge.

use crate::common;
use common::*;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn created_after_crash_is_not_canceled_or_queued_by_recovery_while_psp_is_unreachable() {
    let dir = tempfile::tempdir().unwrap();
    let mut psp = Psp::start_with(dir.path(), Duration::from_secs(30), Duration::from_secs(86400), "127.0.0.1:0".parse().unwrap()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");

    // Charged at the PSP, SIGKILLed before the result was saved: `created`, no attempts.
    let r = run_env(
        &db,
        &url,
        &["--attempt-timeout", "3s"],
        &["checkout", "--amount", "1234", "--currency", "jpy"],
        &[("PAYDESK_CRASH_AT", "after_response_before_commit")],
    )
    .await;
    assert!(r.killed(), "SIGKILLed itself (code {:?}) {}{}", r.code, r.stdout, r.stderr);
    let rows = ledger(&db, &url).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["state"], "created", "{}", rows[0]);
    let key = rows[0]["checkout_key"].as_str().unwrap().to_string();
    assert_eq!(psp.stats().await["charges"], 1, "the PSP did charge it");

    // The PSP is unreachable (connections refused) when the register restarts.
    psp.stop().await;
    let state = |rows: &[serde_json::Value]| rows[0]["state"].as_str().unwrap().to_string();
    for offline in [&["--no-offline"][..], &[][..]] {
        let rec = run(&db, &url, offline, &["recover"]).await;
        assert_eq!(rec.code, Some(0), "{offline:?}: {}{}", rec.stdout, rec.stderr);
        assert_eq!(rec.json()["still_pending"], 1, "{offline:?}: {}", rec.stdout);
        let rows = ledger(&db, &url).await;
        let s = state(&rows);
        assert_ne!(s, "canceled", "{offline:?}: a possibly charged checkout was canceled as never sent: {}", rows[0]);
        assert_ne!(s, "queued_offline", "{offline:?}: recovery newly accepted it offline: {}", rows[0]);
        assert!(["created", "authorizing"].contains(&s.as_str()), "{offline:?}: still in flight: {}", rows[0]);
        assert!(!rec.stderr.contains("Nothing was charged"), "{}", rec.stderr);
    }

    // The PSP is back: the same key is resent and the stored charge adopted.
    psp.restart().await;
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert_eq!(rec.json()["still_pending"], 0, "{}", rec.stdout);
    let rows = ledger(&db, &url).await;
    assert_eq!(rows[0]["state"], "captured", "{}", rows[0]);
    let by_key = psp.intents_by_key().await;
    assert_eq!(by_key.len(), 1);
    assert_eq!(by_key[&key].len(), 1, "exactly one charge");
    assert_ledger_equals_psp(&db, &psp).await;
}
