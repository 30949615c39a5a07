//! A capture of an authorization that was canceled at the PSP meanwhile (by another
//! register, the dashboard, or expiry): the capture's look-first GET finds it
//! canceled, and the payment ends `canceled`. It used to stay `capturing` for ever
//! (the table had no capturing -> canceled), every recovery pass reporting it pending
//! and a PSP change waiting on it.

use crate::common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_of_an_authorization_canceled_at_the_psp_ends_canceled() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let r = run(&db, &psp.url(), &[], &["checkout", "--amount", "999", "--currency", "usd", "--capture", "manual"]).await;
    assert_eq!(r.json()["state"], "authorized", "{}", r.stdout);
    let key = r.json()["checkout_key"].as_str().unwrap().to_string();
    let pi = r.json()["psp_payment_id"].as_str().unwrap().to_string();

    // Canceled at the PSP behind the register's back.
    let req = mock_psp::PspRequest::post(&format!("/v1/payment_intents/{pi}/cancel"), KEY, Some("dashboard-cancel"), &[]);
    let out = psp.psp().handle(req).await;
    assert_eq!(out.response().map(|r| r.status), Some(200));

    let _ = run(&db, &psp.url(), &[], &["capture", "--payment", &key]).await;
    let rows = ledger(&db, &psp.url()).await;
    assert_eq!(rows[0]["state"], "canceled", "not stuck in capturing: {}", rows[0]);
    let rec = run(&db, &psp.url(), &[], &["recover"]).await;
    assert_eq!(rec.json()["still_pending"], 0, "{}", rec.stdout);
    assert_eq!(psp.get(&format!("/v1/payment_intents/{pi}")).await["status"], "canceled");
}

