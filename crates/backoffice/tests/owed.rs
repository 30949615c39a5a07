//! Refunds owed back to customers (record 0142) against the real mock PSP process and a
//! real PostgreSQL: a duplicate charge found by reconciliation is proposed, approved by a
//! second person with their PIN, executed once, and the PSP holds exactly one refund for
//! it; every refusal on the way is its own 4xx.
use crate::support;
use paydesk_backoffice::client::{ClientError, OwnerClient, RegisterClient};
use paydesk_sync_proto::{Batch, Fact, PaymentState, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::{json, Value};
use support::*;
use crate::upgrades::Older;

/// A register's payment of `amount` under `key`, captured with the PSP id it recorded.
pub fn paid(key: &str, amount: i64, psp_id: Option<&str>) -> Vec<Row> {
    vec![
        Row { at_ms: 1_700_000_000_001, fact: Fact::PaymentCreated { checkout_key: key.into(), amount, currency: "usd".into() } },
        Row { at_ms: 1_700_000_000_002, fact: Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Captured, psp_id: psp_id.map(str::to_string) } },
    ]
}

pub async fn send(reg: &RegisterClient, first: u64, rows: Vec<Row>) -> u64 {
    let n = rows.len() as u64;
    let b = Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth::default() };
    assert_eq!(reg.send(&b, &format!("b{first}")).await.unwrap().acked_through, first + n - 1);
    first + n
}

/// Ana (cashier) proposes, Bo (manager) approves; Cy is a cashier, Di no longer works
/// here, Ed is the owner.
pub async fn publish_staff(owner: &OwnerClient, store: &str) {
    owner
        .put(
            &format!("/admin/stores/{store}/staff"),
            &json!({"staff": [
                {"name": "Ana", "role": "cashier", "active": true, "pin": "1111"},
                {"name": "Bo", "role": "manager", "active": true, "pin": "2222"},
                {"name": "Cy", "role": "cashier", "active": true, "pin": "3333"},
                {"name": "Di", "role": "owner", "active": false, "pin": "4444"},
                {"name": "Ed", "role": "owner", "active": true, "pin": "5555"}]}),
        )
        .await
        .unwrap();
}

/// Every refund the PSP holds for the PaymentIntent `pi` (asked of the PSP itself).
pub async fn psp_refunds_of(psp_url: &str, pi: &str) -> Vec<Value> {
    let r: Value = reqwest::Client::new().get(format!("{psp_url}/v1/refunds")).query(&[("limit", "100")]).bearer_auth(PSP_KEY).send().await.unwrap().json().await.unwrap();
    assert_eq!(r["has_more"], false);
    r["data"].as_array().unwrap().iter().filter(|x| x["payment_intent"] == pi).cloned().collect()
}

pub async fn exception_of(db: &tokio_postgres::Client, kind: &str) -> uuid::Uuid {
    db.query_one("SELECT exception_id FROM recon_exceptions WHERE kind = $1", &[&kind]).await.unwrap().get(0)
}

/// The refusal's (status, code).
pub fn refusal(e: ClientError) -> (u16, String) {
    match e {
        ClientError::Refused(r) => (r.status, r.code().to_string()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

pub fn who(by: &str, pin: &str) -> Value {
    json!({"by": by, "pin": pin})
}

#[tokio::test]
async fn a_duplicate_charge_is_proposed_approved_by_another_and_paid_back_once() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    h.owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": psp.url, "secret_key": PSP_KEY})).await.unwrap();
    publish_staff(&h.owner, &store).await;

    // the customer paid twice for one sale; the register recorded the first charge
    let first = psp.charge("i1", 300, "usd", &[("checkout_key", "k-dup")]).await;
    let extra = psp.charge("i2", 300, "usd", &[("checkout_key", "k-dup")]).await;
    let (first, extra) = (first["id"].as_str().unwrap().to_string(), extra["id"].as_str().unwrap().to_string());
    psp.charge("i3", 700, "usd", &[("checkout_key", "k-amount")]).await;
    let mut rows = paid("k-dup", 300, Some(&first));
    rows.extend(paid("k-amount", 500, None));
    send(&reg, 1, rows).await;
    h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    let db = h.db().await;
    let dup = exception_of(&db, "duplicate_charge").await;
    let differs = exception_of(&db, "amount_differs").await;

    // only charges the customer should not have paid are proposed; a person proves who they are
    let propose = |ex: uuid::Uuid, by: &'static str, pin: &'static str| {
        let (owner, path) = (h.owner.clone(), format!("/admin/stores/{store}/exceptions/{ex}/propose-refund"));
        async move { owner.post(&path, &who(by, pin)).await }
    };
    assert_eq!(refusal(propose(differs, "Ana", "1111").await.unwrap_err()), (409, "not_refundable_kind".into()));
    assert_eq!(refusal(propose(dup, "Ana", "9999").await.unwrap_err()), (403, "forbidden".into()));
    assert_eq!(refusal(propose(dup, "Di", "4444").await.unwrap_err()).0, 403, "an inactive member proves nobody");
    let p = propose(dup, "Ana", "1111").await.unwrap();
    let proposed = p["proposed"].as_array().unwrap();
    assert_eq!(proposed.len(), 1, "{p}");
    let o = &proposed[0];
    // the extra charge, not the one the sale stands on, for its whole amount
    assert_eq!((o["psp_charge_id"].as_str(), o["amount"].as_i64(), o["currency"].as_str(), o["state"].as_str()), (Some(extra.as_str()), Some(300), Some("usd"), Some("proposed")), "{o}");
    assert_eq!(refusal(propose(dup, "Cy", "3333").await.unwrap_err()), (409, "already_proposed".into()));
    let owed = o["owed_id"].as_str().unwrap().to_string();
    let key: String = db.query_one("SELECT idempotency_key FROM owed_refunds", &[]).await.unwrap().get(0);

    // a second reconciliation run proposes nothing and finds nothing new
    let again = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    assert_eq!(again["new_exceptions"], 0, "{again}");
    assert_eq!(h.count("SELECT count(*) FROM owed_refunds").await, 1);

    let approve = format!("/admin/stores/{store}/owed/{owed}/approve");
    let execute = format!("/admin/stores/{store}/owed/{owed}/execute");
    assert_eq!(refusal(h.owner.post(&execute, &json!({})).await.unwrap_err()), (409, "not_approved".into()));
    assert_eq!(refusal(h.owner.post(&approve, &who("Ana", "1111")).await.unwrap_err()), (409, "same_person".into()));
    assert_eq!(refusal(h.owner.post(&approve, &who("Cy", "3333")).await.unwrap_err()).0, 403, "a cashier cannot approve");
    assert_eq!(refusal(h.owner.post(&approve, &who("Bo", "1111")).await.unwrap_err()).0, 403, "Bo with Ana's PIN");
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    assert_eq!((d["owed_back"][0]["proposed"].as_i64(), d["owed_back"][0]["owed"].as_i64(), d["owed_back"][0]["paid_back"].as_i64()), (Some(300), Some(300), Some(0)), "{}", d["owed_back"]);
    let a = h.owner.post(&approve, &who("Bo", "2222")).await.unwrap();
    assert_eq!((a["state"].as_str(), a["approved_by"].as_str()), (Some("approved"), Some("Bo")));
    assert_eq!(refusal(h.owner.post(&approve, &who("Bo", "2222")).await.unwrap_err()), (409, "already_approved".into()));
    assert!(psp_refunds_of(&psp.url, &extra).await.is_empty(), "nothing is refunded before execute");
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    assert_eq!((d["owed_back"][0]["approved"].as_i64(), d["owed_back"][0]["owed"].as_i64()), (Some(300), Some(300)), "{}", d["owed_back"]);

    // executed: once, and again is the same refund, not a second
    let x = h.owner.post(&execute, &json!({})).await.unwrap();
    assert_eq!(x["state"], "succeeded", "{x}");
    let x2 = h.owner.post(&execute, &json!({})).await.unwrap();
    assert_eq!((x2["state"].as_str(), x2["psp_refund_id"].as_str()), (Some("succeeded"), x["psp_refund_id"].as_str()));
    let at_psp = psp_refunds_of(&psp.url, &extra).await;
    assert_eq!(at_psp.len(), 1, "{at_psp:?}");
    assert_eq!((at_psp[0]["id"].as_str(), at_psp[0]["amount"].as_i64(), at_psp[0]["status"].as_str()), (x["psp_refund_id"].as_str(), Some(300), Some("succeeded")));
    assert_eq!(at_psp[0]["metadata"]["refund_key"].as_str(), Some(key.as_str()));
    assert!(psp_refunds_of(&psp.url, &first).await.is_empty(), "the charge the sale stands on is kept");

    // the exception is resolved by the approver, and the dashboard shows it paid back
    let r = db.query_one("SELECT resolved_by, resolution FROM recon_exceptions WHERE exception_id = $1", &[&dup]).await.unwrap();
    assert_eq!(r.get::<_, Option<String>>(0).as_deref(), Some("Bo"));
    assert!(r.get::<_, String>(1).contains(x["psp_refund_id"].as_str().unwrap()));
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let sums = &d["owed_back"][0];
    assert_eq!((sums["owed"].as_i64(), sums["paid_back"].as_i64(), sums["paid_back_count"].as_i64(), sums["currency"].as_str()), (Some(0), Some(300), Some(1), Some("usd")), "{sums}");
    assert_eq!(d["owed_refunds"][0]["state"], "succeeded");

    // the refund the back office made is not "refunded at the PSP, no register record"
    let third = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    assert_eq!(third["new_exceptions"], 0, "{third}");
    assert_eq!(h.count("SELECT count(*) FROM recon_exceptions WHERE kind = 'refund_mismatch'").await, 0);
    // a resolved exception proposes nothing more
    assert_eq!(refusal(propose(dup, "Cy", "3333").await.unwrap_err()), (409, "exception_resolved".into()));
}

/// A charge without a record whose exception a later run clears (the register's record
/// arrived after all) is withdrawn at approval, never sent to the PSP.
#[tokio::test]
async fn an_exception_that_goes_away_withdraws_its_refund_before_the_psp_is_asked() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    h.owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": psp.url, "secret_key": PSP_KEY})).await.unwrap();
    publish_staff(&h.owner, &store).await;
    let late = psp.charge("i1", 900, "usd", &[("checkout_key", "k-late")]).await;
    let late = late["id"].as_str().unwrap().to_string();
    h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    let ex = exception_of(&h.db().await, "charge_without_record").await;
    let p = h.owner.post(&format!("/admin/stores/{store}/exceptions/{ex}/propose-refund"), &who("Ana", "1111")).await.unwrap();
    assert_eq!((p["proposed"][0]["psp_charge_id"].as_str(), p["proposed"][0]["amount"].as_i64()), (Some(late.as_str()), Some(900)));
    let owed = p["proposed"][0]["owed_id"].as_str().unwrap().to_string();
    send(&reg, 1, paid("k-late", 900, Some(&late))).await;
    let run = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    assert_eq!(run["cleared"], 1, "{run}");
    let e = h.owner.post(&format!("/admin/stores/{store}/owed/{owed}/approve"), &who("Bo", "2222")).await.unwrap_err();
    assert_eq!(refusal(e), (409, "exception_resolved".into()));
    let (state, err): (String, String) = {
        let r = h.db().await.query_one("SELECT state, last_error FROM owed_refunds", &[]).await.unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(state, "failed");
    assert!(err.starts_with("withdrawn"), "{err}");
    assert_eq!(refusal(h.owner.post(&format!("/admin/stores/{store}/owed/{owed}/execute"), &json!({})).await.unwrap_err()), (409, "refund_failed".into()));
    assert!(psp_refunds_of(&psp.url, &late).await.is_empty());
}

/// V14 on a V13 database: an exception found before the upgrade can be owed back, and the
/// table's CHECKs refuse what no code path may write (an unknown state, the proposer
/// approving, succeeded without the PSP's refund id, two refunds of one charge).
#[tokio::test]
async fn v14_upgrades_a_v13_database_and_its_checks_hold_for_every_writer() {
    use tokio_postgres::error::SqlState;
    let old = Older::at(13).await;
    let c = &old.client;
    let (store, ex) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    c.execute("INSERT INTO stores (store_id, name, created_ms) VALUES ($1, 'S', 1)", &[&store]).await.unwrap();
    c.execute(
        "INSERT INTO recon_exceptions (store_id, exception_id, kind, subject, detail, first_seen_ms, last_seen_ms, last_run_id) VALUES ($1, $2, 'charge_without_record', 'pi_1', '{}', 1, 1, $2)",
        &[&store, &ex],
    )
    .await
    .unwrap();
    old.upgrade().await.expect("migrates to V14");
    let insert = |charge: &'static str, state: &'static str, approved_by: Option<&'static str>, refund: Option<&'static str>| {
        let c = &c;
        async move {
            let finished: Option<i64> = matches!(state, "succeeded" | "failed").then_some(2);
            c.execute(
                "INSERT INTO owed_refunds (store_id, owed_id, exception_id, kind, psp_charge_id, amount, currency, idempotency_key, state, proposed_by, proposed_ms, approved_by, approved_ms, psp_refund_id, finished_ms, last_error)
                 VALUES ($1, $2, $3, 'charge_without_record', $4, 100, 'usd', $5, $6, 'Ana', 1, $7, CASE WHEN $7::text IS NULL THEN NULL ELSE 1 END, $8, $9, 'x')",
                &[&store, &uuid::Uuid::new_v4(), &ex, &charge, &format!("paydesk-owed-{}", uuid::Uuid::new_v4()), &state, &approved_by, &refund, &finished],
            )
            .await
        }
    };
    insert("pi_1", "proposed", None, None).await.expect("the exception found before V14 is owed back");
    for (charge, state, approved_by, refund) in [
        ("pi_2", "pending", None, None),
        ("pi_3", "approved", Some("Ana"), None),
        ("pi_4", "approved", None, None),
        ("pi_5", "succeeded", Some("Bo"), None),
        ("pi_6", "approved", Some("Bo"), Some("re_1")),
    ] {
        let e = insert(charge, state, approved_by, refund).await.unwrap_err();
        assert_eq!(e.code(), Some(&SqlState::CHECK_VIOLATION), "{charge} {state}: {e}");
    }
    let e = insert("pi_1", "proposed", None, None).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::UNIQUE_VIOLATION), "one charge is owed back once: {e}");
}

/// No answer, or an answer that is not about the refund (a wrong key), leaves a refund
/// `executing` (202), never failed; the PSP refusing it (already refunded in its console)
/// is failed with the PSP's words; two executes at once make one refund.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsure_answers_stay_executing_a_refusal_is_failed_and_racing_executes_refund_once() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let account = |base: String, key: &'static str| {
        let (owner, path) = (h.owner.clone(), format!("/admin/stores/{store}/psp"));
        async move { owner.put(&path, &json!({"api_base": base, "secret_key": key})).await.unwrap() }
    };
    account(psp.url.clone(), PSP_KEY).await;
    publish_staff(&h.owner, &store).await;
    let mut pis = vec![];
    for (i, amount) in [("i1", 1000), ("i2", 2000), ("i3", 3000)] {
        pis.push(psp.charge(i, amount, "usd", &[("checkout_key", i)]).await["id"].as_str().unwrap().to_string());
    }
    h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    let db = h.db().await;
    let mut execute = vec![];
    for pi in &pis {
        let ex: uuid::Uuid = db.query_one("SELECT exception_id FROM recon_exceptions WHERE subject = $1", &[pi]).await.unwrap().get(0);
        let p = h.owner.post(&format!("/admin/stores/{store}/exceptions/{ex}/propose-refund"), &who("Ana", "1111")).await.unwrap();
        let owed = p["proposed"][0]["owed_id"].as_str().unwrap().to_string();
        h.owner.post(&format!("/admin/stores/{store}/owed/{owed}/approve"), &who("Ed", "5555")).await.unwrap();
        execute.push(format!("/admin/stores/{store}/owed/{owed}/execute"));
    }

    // nobody listening, then a key the PSP does not know: unsure, stays executing
    account("http://127.0.0.1:1".into(), PSP_KEY).await;
    let x = h.owner.post(&execute[0], &json!({})).await.unwrap();
    assert_eq!(x["state"], "executing", "{x}");
    assert!(x["last_error"].as_str().unwrap().starts_with("no answer from the PSP"), "{x}");
    account(psp.url.clone(), "sk_test_wrong").await;
    let x = h.owner.post(&execute[0], &json!({})).await.unwrap();
    assert_eq!((x["state"].as_str(), x["attempts"].as_i64()), (Some("executing"), Some(2)), "{x}");
    assert!(x["last_error"].as_str().unwrap().starts_with("401"), "{x}");
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    assert_eq!((d["owed_back"][0]["executing"].as_i64(), d["owed_back"][0]["approved"].as_i64()), (Some(1000), Some(5000)), "{}", d["owed_back"]);
    account(psp.url.clone(), PSP_KEY).await;
    let x = h.owner.post(&execute[0], &json!({})).await.unwrap();
    assert_eq!((x["state"].as_str(), x["last_error"].as_str()), (Some("succeeded"), None), "{x}");
    assert_eq!(psp_refunds_of(&psp.url, &pis[0]).await.len(), 1);

    // someone refunded it in the PSP's console meanwhile: the PSP refuses, nothing more is refunded
    psp.refund("console", &pis[1], 2000, None).await;
    let x = h.owner.post(&execute[1], &json!({})).await.unwrap();
    assert_eq!(x["state"], "failed", "{x}");
    assert!(x["last_error"].as_str().unwrap().contains("charge_already_refunded"), "{x}");
    assert_eq!(psp_refunds_of(&psp.url, &pis[1]).await.len(), 1);
    let open: bool = db.query_one("SELECT resolved_ms IS NULL FROM recon_exceptions WHERE subject = $1", &[&pis[1]]).await.unwrap().get(0);
    assert!(open, "a failed refund leaves its exception for a person");

    // two executes at once: the same key, one refund
    let race = |path: String| {
        let owner = h.owner.clone();
        tokio::spawn(async move { owner.post(&path, &json!({})).await.unwrap() })
    };
    let (a, b) = (race(execute[2].clone()), race(execute[2].clone()));
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    for x in [&a, &b] {
        assert!(matches!(x["state"].as_str(), Some("succeeded" | "executing")), "{x}");
    }
    let done = h.owner.post(&execute[2], &json!({})).await.unwrap();
    assert_eq!(done["state"], "succeeded", "{done}");
    let at_psp = psp_refunds_of(&psp.url, &pis[2]).await;
    assert_eq!(at_psp.len(), 1, "{at_psp:?}");
    assert_eq!(at_psp[0]["id"], done["psp_refund_id"]);
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let s = &d["owed_back"][0];
    assert_eq!((s["owed"].as_i64(), s["paid_back"].as_i64(), s["paid_back_count"].as_i64(), s["failed_count"].as_i64()), (Some(0), Some(4000), Some(2), Some(1)), "{s}");
}

/// Record 0142 addendum: a refund left executing is asked again by the back office on its
/// own, with its stored key, until the PSP's answer is recorded; an approved refund nobody
/// executed is never started by it. The PSP holds exactly one refund.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_back_office_finishes_an_executing_refund_on_its_own_and_never_starts_an_approved_one() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let mut limits = paydesk_backoffice::state::Limits::default();
    limits.owed_retry.interval = std::time::Duration::from_millis(200);
    let h = Harness::with_limits(limits).await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let account = |base: String| {
        let (owner, path) = (h.owner.clone(), format!("/admin/stores/{store}/psp"));
        async move { owner.put(&path, &json!({"api_base": base, "secret_key": PSP_KEY})).await.unwrap() }
    };
    account(psp.url.clone()).await;
    publish_staff(&h.owner, &store).await;
    let mut pis = vec![];
    for (i, amount) in [("i1", 1000), ("i2", 2000)] {
        pis.push(psp.charge(i, amount, "usd", &[("checkout_key", i)]).await["id"].as_str().unwrap().to_string());
    }
    h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    let db = h.db().await;
    let mut owed = vec![];
    for pi in &pis {
        let ex: uuid::Uuid = db.query_one("SELECT exception_id FROM recon_exceptions WHERE subject = $1", &[pi]).await.unwrap().get(0);
        let p = h.owner.post(&format!("/admin/stores/{store}/exceptions/{ex}/propose-refund"), &who("Ana", "1111")).await.unwrap();
        let id = p["proposed"][0]["owed_id"].as_str().unwrap().to_string();
        h.owner.post(&format!("/admin/stores/{store}/owed/{id}/approve"), &who("Bo", "2222")).await.unwrap();
        owed.push(id);
    }

    // Executed while the PSP cannot be reached: unsure, stays executing.
    account("http://127.0.0.1:1".into()).await;
    let x = h.owner.post(&format!("/admin/stores/{store}/owed/{}/execute", owed[0]), &json!({})).await.unwrap();
    assert_eq!(x["state"], "executing", "{x}");
    // The PSP is back; nobody presses Execute again.
    account(psp.url.clone()).await;
    let state = |id: String| {
        let db = &db;
        async move {
            let r = db.query_one("SELECT state, attempts, psp_refund_id FROM owed_refunds WHERE owed_id = $1::text::uuid", &[&id]).await.unwrap();
            (r.get::<_, String>(0), r.get::<_, i32>(1), r.get::<_, Option<String>>(2))
        }
    };
    // Polled (bounded): the back office announces nothing a test could wait on.
    let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let done = loop {
        let s = state(owed[0].clone()).await;
        if s.0 != "executing" {
            break s;
        }
        assert!(std::time::Instant::now() < end, "still executing after 30 s: {s:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(done.0, "succeeded", "{done:?}");
    assert!(done.1 >= 2, "asked again: {done:?}");
    let at_psp = psp_refunds_of(&psp.url, &pis[0]).await;
    assert_eq!(at_psp.len(), 1, "{at_psp:?}");
    assert_eq!(at_psp[0]["id"].as_str(), done.2.as_deref());
    let resolved: bool = db.query_one("SELECT resolved_ms IS NOT NULL FROM recon_exceptions WHERE subject = $1", &[&pis[0]]).await.unwrap().get(0);
    assert!(resolved, "paid back: its exception is closed");

    // The approved one was there for every round since: never started, nothing at the PSP.
    assert_eq!(state(owed[1].clone()).await, ("approved".to_string(), 0, None));
    assert!(psp_refunds_of(&psp.url, &pis[1]).await.is_empty());
}
