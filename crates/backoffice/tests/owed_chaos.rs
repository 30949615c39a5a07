//! Chaos for refunds owed back (record 0142): the back office process (SIGKILL) or
//! PostgreSQL (SIGKILL) dies after the PSP made the refund and before the back office
//! recorded it. The row stays `executing`; executing again asks the PSP with the same key
//! and the PSP answers the refund it already made: each refund exactly once at the PSP.
//!
//! Where it dies is made exact, not hoped for: the test holds the exception's row, which
//! the back office updates in the same transaction that records the PSP's answer, so the
//! back office is caught waiting with the refund made and not yet recorded.
use crate::owed::{psp_refunds_of, publish_staff, who};
use crate::support;
use paydesk_backoffice::client::{ClientError, OwnerClient};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::*;

/// A charge no register recorded, found, proposed by Ana and approved by Bo: its owed id
/// and PaymentIntent.
async fn approved_refund(owner: &OwnerClient, psp: &PspProcess, db: &tokio_postgres::Client) -> (String, String, uuid::Uuid) {
    let store = owner.create_store("Main St").await.unwrap();
    owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": psp.url, "secret_key": PSP_KEY})).await.unwrap();
    publish_staff(owner, &store).await;
    let pi = psp.charge("i1", 2500, "usd", &[("checkout_key", "k-ghost")]).await["id"].as_str().unwrap().to_string();
    owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    let ex = crate::owed::exception_of(db, "charge_without_record").await;
    let p = owner.post(&format!("/admin/stores/{store}/exceptions/{ex}/propose-refund"), &who("Ana", "1111")).await.unwrap();
    let owed = p["proposed"][0]["owed_id"].as_str().unwrap().to_string();
    owner.post(&format!("/admin/stores/{store}/owed/{owed}/approve"), &who("Bo", "2222")).await.unwrap();
    (format!("/admin/stores/{store}/owed/{owed}/execute"), pi, ex)
}

/// Holds the exception's row in an open transaction of its own connection.
async fn hold_exception(conn: &str, ex: uuid::Uuid) -> tokio_postgres::Client {
    let (c, task) = tokio_postgres::connect(conn, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(task);
    c.batch_execute("BEGIN").await.unwrap();
    c.execute("SELECT 1 FROM recon_exceptions WHERE exception_id = $1 FOR UPDATE", &[&ex]).await.unwrap();
    c
}

/// Polls (bounded) until a back office session waits for a lock: PostgreSQL has no event
/// for "a session started waiting".
async fn back_office_waits(db: &tokio_postgres::Client) {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let n: i64 = db
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'paydesk-backoffice' AND wait_event_type = 'Lock'", &[])
            .await
            .unwrap()
            .get(0);
        if n > 0 {
            return;
        }
        assert!(Instant::now() < end, "the back office never waited for the exception's row");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn state_of(db: &tokio_postgres::Client) -> (String, Option<String>, i32) {
    let r = db.query_one("SELECT state, psp_refund_id, attempts FROM owed_refunds", &[]).await.unwrap();
    (r.get(0), r.get(1), r.get(2))
}

/// Executes until an answer that is not "the database is (still) unavailable": after a
/// restart the pool may hand out a dead session once (as in outage.rs).
async fn execute(owner: &OwnerClient, path: &str) -> Value {
    for _ in 0..3 {
        match owner.post(path, &json!({})).await {
            Ok(v) => return v,
            Err(ClientError::Refused(r)) if r.status == 503 => tokio::time::sleep(Duration::from_secs(1)).await,
            Err(e) => panic!("{e}"),
        }
    }
    panic!("still unavailable after three tries");
}

/// After the crash: one refund at the PSP, the row still executing without it; executing
/// again records that same refund.
async fn paid_back_once(owner: &OwnerClient, db: &tokio_postgres::Client, psp: &PspProcess, path: &str, pi: &str) {
    let at_psp = psp_refunds_of(&psp.url, pi).await;
    assert_eq!(at_psp.len(), 1, "{at_psp:?}");
    let (state, refund, attempts) = state_of(db).await;
    assert_eq!((state.as_str(), refund, attempts), ("executing", None, 1), "the answer was never recorded");
    let x = execute(owner, path).await;
    assert_eq!((x["state"].as_str(), x["psp_refund_id"].as_str()), (Some("succeeded"), at_psp[0]["id"].as_str()), "{x}");
    assert_eq!(x["attempts"], 2);
    let again = execute(owner, path).await;
    assert_eq!(again["psp_refund_id"], x["psp_refund_id"]);
    assert_eq!(psp_refunds_of(&psp.url, pi).await.len(), 1, "exactly one refund at the PSP");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgresql_killed_while_a_refund_executes_pays_it_back_once() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let mut h = Harness::start().await;
    let db = h.db().await;
    let (path, pi, ex) = approved_refund(&h.owner, &psp, &db).await;
    let locker = hold_exception(&h.cluster.conn_string("paydesk"), ex).await;
    let executing = {
        let (owner, path) = (h.owner.clone(), path.clone());
        tokio::spawn(async move { owner.post(&path, &json!({})).await })
    };
    back_office_waits(&db).await;
    tokio::task::block_in_place(|| h.cluster.kill());
    match executing.await.unwrap() {
        Err(ClientError::Refused(r)) => assert_eq!(r.status, 503, "{r}"),
        other => panic!("expected 503 while PostgreSQL is down, got {other:?}"),
    }
    drop((locker, db));
    tokio::task::block_in_place(|| h.cluster.restart()).expect("restart");
    let db = h.db().await;
    paid_back_once(&h.owner, &db, &psp, &path, &pi).await;
}

/// `paydesk-backoffice serve` as its own process on the test's database; SIGKILLed on drop.
struct BackOffice(Child);

impl BackOffice {
    fn start(conn: &str, token_file: &std::path::Path) -> (BackOffice, String) {
        let mut child = Command::new(build_binary("paydesk-backoffice"))
            .args(["serve", "--addr", "127.0.0.1:0", "--database", conn, "--admin-token-file"])
            .arg(token_file)
            // The test drives the second ask itself and counts the attempts: the server's own
            // retry (record 0142 addendum) waits longer than the test runs.
            .args(["--owed-retry-secs", "3600"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start paydesk-backoffice");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).expect("the back office's first line");
        let url = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("paydesk-backoffice said {line:?}")).to_string();
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        (BackOffice(child), url)
    }

    fn kill(&mut self) {
        unsafe { libc::kill(self.0.id() as i32, libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

impl Drop for BackOffice {
    fn drop(&mut self) {
        self.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_back_office_killed_while_a_refund_executes_pays_it_back_once() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let cluster = tokio::task::spawn_blocking(start_cluster).await.unwrap();
    cluster.create_db("paydesk").await.unwrap();
    let conn = cluster.conn_string("paydesk");
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("owner-token");
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&token_file).unwrap();
    std::io::Write::write_all(&mut f, ADMIN_TOKEN.as_bytes()).unwrap();
    let (mut first, url) = {
        let (conn, token_file) = (conn.clone(), token_file.clone());
        tokio::task::spawn_blocking(move || BackOffice::start(&conn, &token_file)).await.unwrap()
    };
    let (db, task) = tokio_postgres::connect(&conn, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(task);
    let owner = OwnerClient::new(&url, ADMIN_TOKEN);
    let (path, pi, ex) = approved_refund(&owner, &psp, &db).await;
    let locker = hold_exception(&conn, ex).await;
    let executing = {
        let (owner, path) = (owner.clone(), path.clone());
        tokio::spawn(async move { owner.post(&path, &json!({})).await })
    };
    back_office_waits(&db).await;
    first.kill();
    assert!(matches!(executing.await.unwrap(), Err(ClientError::Transport(_))), "the process died under the request");
    // its session ends with it: the uncommitted answer is rolled back
    locker.batch_execute("ROLLBACK").await.unwrap();
    let (_second, url) = tokio::task::spawn_blocking(move || BackOffice::start(&conn, &token_file)).await.unwrap();
    paid_back_once(&OwnerClient::new(&url, ADMIN_TOKEN), &db, &psp, &path, &pi).await;
}
