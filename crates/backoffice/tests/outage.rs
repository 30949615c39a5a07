//! A database session ended under a request — PostgreSQL shutting down or restarting,
//! an administrator's `pg_terminate_backend` — is answered 503 with `Retry-After`
//! (`db_unavailable`), not 500: nothing was committed and the register retries. When
//! PostgreSQL is back, the same batch is accepted (record 0039).
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_backoffice::db::DbLimits;
use paydesk_backoffice::state::Limits;
use paydesk_sync_proto::{Ack, Batch, Fact, PaymentState, RegisterHealth, Row, PROTOCOL_VERSION};
use std::time::{Duration, Instant};
use support::*;

fn batch(reg: &RegisterClient, first: u64, key: &str) -> Batch {
    let at_ms = 1_700_000_000_000;
    let rows = vec![
        Row { at_ms, fact: Fact::PaymentCreated { checkout_key: key.into(), amount: 500, currency: "usd".into() } },
        Row { at_ms, fact: Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Captured, psp_id: None } },
    ];
    Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None } }
}

/// Limits where a blocked batch waits for its row lock long enough to be caught waiting.
fn patient() -> Limits {
    Limits { db: DbLimits { lock_timeout: Duration::from_secs(60), statement_timeout: Duration::from_secs(90), ..DbLimits::default() }, ..Limits::default() }
}

/// Holds the register's row lock in a transaction of its own, so the next batch waits.
async fn hold_register_lock(h: &Harness, reg: &RegisterClient) -> tokio_postgres::Client {
    let db = h.db().await;
    db.batch_execute("BEGIN").await.unwrap();
    let id: uuid::Uuid = reg.paired.register_id.parse().unwrap();
    db.execute("SELECT 1 FROM registers WHERE register_id = $1 FOR UPDATE", &[&id]).await.unwrap();
    db
}

/// The back office's session waiting for that lock (polled: PostgreSQL has no event for
/// "a session started waiting"), bounded.
async fn waiting_backend(h: &Harness) -> i32 {
    let db = h.db().await;
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let row = db
            .query_opt("SELECT pid FROM pg_stat_activity WHERE application_name = 'paydesk-backoffice' AND wait_event_type = 'Lock'", &[])
            .await
            .unwrap();
        if let Some(r) = row {
            return r.get(0);
        }
        assert!(Instant::now() < end, "the batch never waited for the lock");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn unavailable(r: Result<Ack, ClientError>) {
    match r {
        Err(ClientError::Refused(r)) => {
            assert_eq!((r.status, r.code()), (503, "db_unavailable"), "{}", r.body);
        }
        other => panic!("expected 503 db_unavailable, got {other:?}"),
    }
}

/// Sends and returns the answer with its Retry-After header.
async fn send_raw(h: &Harness, reg: &RegisterClient, b: &Batch, key: &str) -> (u16, Option<String>, serde_json::Value) {
    let r = reqwest::Client::new()
        .post(format!("{}/v1/sync/batches", h.url))
        .bearer_auth(&reg.paired.token)
        .header("Idempotency-Key", key)
        .json(b)
        .send()
        .await
        .unwrap();
    let retry = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), retry, r.json().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_terminated_under_a_request_is_503_with_retry_after() {
    let h = Harness::with_limits(patient()).await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let locker = hold_register_lock(&h, &reg).await;
    let b = batch(&reg, 1, "k1");
    let sending = {
        let (url, reg, b) = (h.url.clone(), reg.clone(), b.clone());
        tokio::spawn(async move {
            let r = reqwest::Client::new().post(format!("{url}/v1/sync/batches")).bearer_auth(&reg.paired.token).header("Idempotency-Key", "a").json(&b).send().await.unwrap();
            let retry = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
            (r.status().as_u16(), retry, r.json::<serde_json::Value>().await.unwrap_or_default())
        })
    };
    let pid = waiting_backend(&h).await;
    let killed: bool = h.db().await.query_one("SELECT pg_terminate_backend($1)", &[&pid]).await.unwrap().get(0);
    assert!(killed);
    let (status, retry, body) = sending.await.unwrap();
    assert_eq!((status, body["error"]["code"].as_str()), (503, Some("db_unavailable")), "{body}");
    assert_eq!(retry.as_deref(), Some("1"));
    locker.batch_execute("ROLLBACK").await.unwrap();
    assert_eq!(h.count("SELECT count(*) FROM journal").await, 0, "nothing was committed");
    // The register retries as told (Retry-After: 1) and is served by a fresh session. The
    // pool may hand out the dead session once more before it has seen the socket close
    // (it did under load): that answer is the same 503, and the next try is served.
    let mut tries = 0;
    let ack = loop {
        tries += 1;
        match reg.send(&b, "a").await {
            Ok(ack) => break ack,
            Err(ClientError::Refused(r)) if r.status == 503 && tries < 3 => tokio::time::sleep(Duration::from_secs(1)).await,
            Err(e) => panic!("try {tries}: {e}"),
        }
    };
    assert_eq!(ack.acked_through, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgresql_shutting_down_and_restarting_under_requests_is_503_then_served() {
    let mut h = Harness::with_limits(patient()).await;
    let (_store, reg) = h.store_with_register("Main St").await;
    reg.send(&batch(&reg, 1, "k1"), "one").await.unwrap();
    let _locker = hold_register_lock(&h, &reg).await;
    let b = batch(&reg, 3, "k2");
    let sending = {
        let reg = reg.clone();
        let b = b.clone();
        tokio::spawn(async move { reg.send(&b, "two").await })
    };
    waiting_backend(&h).await;
    // fast shutdown ends every session (57P01) under the waiting batch
    tokio::task::block_in_place(|| h.cluster.shut_down());
    unavailable(sending.await.unwrap());
    // while it is down: 503 as well, with Retry-After, for the registers and the dashboard
    let (status, retry, body) = send_raw(&h, &reg, &b, "two").await;
    assert_eq!((status, retry.as_deref(), body["error"]["code"].as_str()), (503, Some("1"), Some("db_unavailable")), "{body}");
    match h.owner.get("/admin/dashboard").await.unwrap_err() {
        ClientError::Refused(r) => assert_eq!(r.status, 503, "{}", r.body),
        other => panic!("{other}"),
    }
    tokio::task::block_in_place(|| h.cluster.restart()).expect("restart");
    // back (restart returns once PostgreSQL says it accepts connections): the same batch
    // is accepted at once; pooled sessions that died are not handed out again
    let ack = reg.send(&b, "two").await.expect("served after the restart");
    assert_eq!(ack.acked_through, 4);
}
