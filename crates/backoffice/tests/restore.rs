//! Restore from the back office's side (record 0048): the owner replaces a register, its
//! token is refused from then on (batches and changes, with the database unchanged), and
//! a register of the same store — only of the same store, only from a replaced register —
//! pages its history by seq, bounded; a name two replaced registers share is refused.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::{Batch, Fact, PaymentState, RegisterHealth, RestorePage, RestoreSource, Row, PROTOCOL_VERSION};
use serde_json::json;
use support::*;

fn sale(key: &str, amount: i64) -> Vec<Row> {
    vec![
        Row { at_ms: 1_700_000_000_000, fact: Fact::PaymentCreated { checkout_key: key.into(), amount, currency: "usd".into() } },
        Row { at_ms: 1_700_000_001_000, fact: Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Captured, psp_id: Some(format!("pi_{key}")) } },
    ]
}

fn batch(reg: &RegisterClient, first: u64, rows: Vec<Row>, queued: u64) -> Batch {
    Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth { app_version: "0.1.0".into(), queued, offline_waiting: 1, audit: None } }
}

fn refused<T: std::fmt::Debug>(r: Result<T, ClientError>) -> (u16, String) {
    match r {
        Err(ClientError::Refused(r)) => (r.status, r.code().to_string()),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

async fn source(reg: &RegisterClient, from: &str) -> Result<RestoreSource, ClientError> {
    reg.get("/v1/restore/source", &[("from", from)]).await.map(|v| serde_json::from_value(v).unwrap())
}

async fn page(reg: &RegisterClient, from: &str, after: &str, limit: &str) -> Result<RestorePage, ClientError> {
    reg.get("/v1/restore/rows", &[("from", from), ("after", after), ("limit", limit)]).await.map(|v| serde_json::from_value(v).unwrap())
}

#[tokio::test]
async fn a_replaced_register_is_refused_and_its_history_is_paged_to_its_own_store_only() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let a = h.register_in(&store, "Front till").await;
    let b = h.register_in(&store, "Front till").await;
    let (_other_store, c) = h.store_with_register("Elm St").await;
    let a_id = a.paired.register_id.clone();
    let mut rows = sale("k1", 1200);
    rows.extend(sale("k2", 450));
    rows.push(sale("k3", 3000).remove(0));
    a.send(&batch(&a, 1, rows.clone(), 2), "a-1-5").await.unwrap();

    // Still in service: its history is not handed out.
    assert_eq!(refused(source(&b, &a_id).await), (409, "register_in_service".into()));
    assert_eq!(refused(page(&b, &a_id, "0", "10").await), (409, "register_in_service".into()));

    // Only the owner replaces, and only a register of that store.
    let path = format!("/admin/stores/{store}/registers/{a_id}/replace");
    let stranger = paydesk_backoffice::client::OwnerClient::new(&h.url, "not-the-owner-token-0000");
    assert_eq!(refused(stranger.post(&path, &json!({})).await), (401, "unauthenticated".into()));
    let wrong_store = format!("/admin/stores/{}/registers/{a_id}/replace", c.paired.store_id);
    assert_eq!(refused(h.owner.post(&wrong_store, &json!({})).await), (404, "not_found".into()));
    assert_eq!(refused(h.owner.post(&path, &json!({"why": "x"})).await), (400, "bad_request".into()));
    let first = h.owner.post(&path, &json!({})).await.unwrap();
    assert_eq!((first["acked_through"].as_i64(), first["queued_at_last_sync"].as_i64(), first["name"].as_str()), (Some(5), Some(2), Some("Front till")), "{first}");
    let again = h.owner.post(&path, &json!({})).await.unwrap();
    assert_eq!(again["replaced_ms"], first["replaced_ms"], "replacing twice keeps the first time");

    // Its token is refused with its own code, and nothing changes.
    let journal = h.count("SELECT count(*) FROM journal").await;
    assert_eq!(refused(a.send(&batch(&a, 6, sale("k4", 10), 0), "a-6-7").await), (403, "register_replaced".into()));
    assert_eq!(refused(a.send(&batch(&a, 1, rows.clone(), 2), "a-1-5").await), (403, "register_replaced".into()), "even a redelivery");
    assert_eq!(refused(a.changes(0).await), (403, "register_replaced".into()));
    assert_eq!(refused(source(&a, &b.paired.register_id).await), (403, "register_replaced".into()));
    assert_eq!(h.count("SELECT count(*) FROM journal").await, journal);
    assert_eq!(h.count("SELECT acked_through FROM registers WHERE replaced_ms IS NOT NULL").await, 5);

    // The same store's register finds it by id or by name, and pages it by seq.
    let s = source(&b, &a_id).await.unwrap();
    assert_eq!((s.register_id.as_str(), s.acked_through, s.queued_at_last_sync, s.offline_waiting_at_last_sync), (a_id.as_str(), 5, 2, 1));
    assert_eq!(source(&b, " Front till ").await.unwrap(), s, "by name (B has the same name but is not replaced)");
    let p1 = page(&b, &a_id, "0", "2").await.unwrap();
    let p2 = page(&b, &a_id, "2", "2").await.unwrap();
    let p3 = page(&b, &a_id, "4", "2").await.unwrap();
    let end = page(&b, &a_id, "5", "500").await.unwrap();
    let got: Vec<(u64, Row)> = [p1, p2, p3, end.clone()].iter().flat_map(|p| p.rows.iter().map(|r| (r.seq, Row { at_ms: r.at_ms, fact: r.fact.clone() }))).collect();
    assert_eq!(got, rows.iter().cloned().enumerate().map(|(i, r)| (i as u64 + 1, r)).collect::<Vec<_>>(), "row by row");
    assert!(end.rows.is_empty());
    for (after, limit) in [("0", "0"), ("0", "501"), ("x", "2"), ("-1", "2")] {
        assert_eq!(refused(page(&b, &a_id, after, limit).await), (400, "bad_request".into()), "after={after} limit={limit}");
    }
    assert_eq!(refused(source(&b, "").await), (400, "bad_request".into()));
    assert_eq!(refused(source(&b, "No such till").await), (404, "not_found".into()));
    assert_eq!(refused(source(&b, &b.paired.register_id).await), (422, "restore_from_itself".into()), "not from itself");

    // Another store's register is refused: the lookup is keyed by the caller's store.
    assert_eq!(refused(source(&c, &a_id).await), (404, "not_found".into()));
    assert_eq!(refused(page(&c, &a_id, "0", "10").await), (404, "not_found".into()));
    assert_eq!(refused(source(&c, "Front till").await), (404, "not_found".into()));

    // The dashboard shows the register as replaced, with what it had queued.
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let reg = d["registers"].as_array().unwrap().iter().find(|r| r["register_id"] == a_id.as_str()).unwrap().clone();
    assert_eq!((reg["replaced_ms"].clone(), reg["queued"].as_i64()), (first["replaced_ms"].clone(), Some(2)), "{reg}");

    // Two replaced registers of one name: the name is ambiguous, the id is not.
    let a2 = h.register_in(&store, "Front till").await;
    h.owner.post(&format!("/admin/stores/{store}/registers/{}/replace", a2.paired.register_id), &json!({})).await.unwrap();
    assert_eq!(refused(source(&b, "Front till").await), (409, "ambiguous_name".into()));
    assert_eq!(source(&b, &a2.paired.register_id).await.unwrap().acked_through, 0);
}
