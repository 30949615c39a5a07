//! An offline payment still queued when its key's dedup window has passed: the
//! register searches (never resends); not found means it was never charged. The
//! customer already left with the goods, so this must raise an alarm, not fail
//! the payment silently.

use crate::common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_payment_past_the_window_not_found_raises_an_alarm() {
    let dir = tempfile::tempdir().unwrap();
    let mut psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");

    psp.stop().await; // cable pulled: accepted offline
    let a = run(&db, &url, &[], &["checkout", "--amount", "1000", "--currency", "jpy"]).await;
    assert_eq!(a.code, Some(3), "{}{}", a.stdout, a.stderr);
    assert_eq!(a.json()["state"], "queued_offline");
    let key = a.json()["checkout_key"].as_str().unwrap().to_string();

    // The PSP is back only 25 h later: past the window, the key is never sent.
    psp.restart().await;
    let rec = run(&db, &url, &["--clock-offset", "25h", "--progress"], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert!(psp.intents_by_key().await.is_empty(), "never resent past the window");
    let alarms: Vec<serde_json::Value> = rec
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|n| n["type"] == "alarm")
        .collect();
    assert_eq!(alarms.len(), 1, "{}", rec.stderr);
    assert_eq!(alarms[0]["code"], "offline_payment_not_collected", "{}", alarms[0]);
    assert_eq!(alarms[0]["subject"]["key"], key.as_str());
    assert!(alarms[0]["message"].as_str().unwrap().contains("NOT charged"), "{}", alarms[0]);
    let rows = ledger(&db, &url).await;
    assert_eq!(rows[0]["state"], "failed");
    let err = rows[0]["last_error"].as_str().unwrap();
    assert!(err.contains("Collect payment another way"), "{err}");
    assert_ledger_equals_psp(&db, &psp).await;
}
