//! Reconciliation against the real mock PSP binary: every kind of exception found once,
//! found again without duplicates, resolved by a person with a reason, and closed by a
//! later run when the disagreement is gone.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::{Batch, Fact, PaymentState, RefundState, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::json;
use support::*;

fn rows_for(key: &str, amount: i64, end: PaymentState) -> Vec<Row> {
    vec![
        Row { at_ms: 1_700_000_000_001, fact: Fact::PaymentCreated { checkout_key: key.into(), amount, currency: "usd".into() } },
        Row { at_ms: 1_700_000_000_002, fact: Fact::PaymentState { checkout_key: key.into(), state: end, psp_id: None } },
    ]
}

fn refund(rk: &str, key: &str, amount: i64) -> Vec<Row> {
    vec![
        Row { at_ms: 1_700_000_000_003, fact: Fact::RefundCreated { refund_key: rk.into(), checkout_key: key.into(), amount } },
        Row { at_ms: 1_700_000_000_004, fact: Fact::RefundState { refund_key: rk.into(), state: RefundState::Succeeded, psp_refund_id: None } },
    ]
}

async fn send(reg: &RegisterClient, first: u64, rows: Vec<Row>) -> u64 {
    let n = rows.len() as u64;
    let b = Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth::default() };
    assert_eq!(reg.send(&b, &format!("b{first}")).await.unwrap().acked_through, first + n - 1);
    first + n
}

#[tokio::test]
async fn each_disagreement_with_the_psp_is_one_exception_resolved_with_a_reason() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    h.owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": psp.url, "secret_key": PSP_KEY})).await.unwrap();

    let mut rows = vec![];
    rows.extend(rows_for("k-ok", 1200, PaymentState::Captured));
    rows.extend(rows_for("k-amount", 500, PaymentState::Captured));
    rows.extend(rows_for("k-nocharge", 900, PaymentState::Captured));
    rows.extend(rows_for("k-failed", 400, PaymentState::Failed));
    rows.extend(rows_for("k-dup", 300, PaymentState::Captured));
    rows.extend(rows_for("k-pending", 100, PaymentState::Authorizing));
    rows.extend(refund("r-ok", "k-ok", 200));
    rows.extend(refund("r-missing", "k-ok", 50));
    send(&reg, 1, rows).await;

    let ok = psp.charge("i1", 1200, "usd", &[("checkout_key", "k-ok")]).await;
    psp.charge("i2", 700, "usd", &[("checkout_key", "k-amount")]).await;
    let ghost = psp.charge("i3", 2500, "usd", &[("checkout_key", "k-ghost")]).await;
    psp.charge("i4", 400, "usd", &[("checkout_key", "k-failed")]).await;
    psp.charge("i5", 300, "usd", &[("checkout_key", "k-dup")]).await;
    psp.charge("i6", 300, "usd", &[("checkout_key", "k-dup")]).await;
    let ok_id = ok["id"].as_str().unwrap();
    psp.refund("f1", ok_id, 200, Some("r-ok")).await;
    let stray = psp.refund("f2", ok_id, 100, None).await;

    let run = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    assert_eq!((run["psp_charges"].as_u64(), run["psp_refunds"].as_u64(), run["exceptions"].as_u64(), run["new_exceptions"].as_u64()), (Some(6), Some(2), Some(7), Some(7)), "{run}");
    // matched: k-ok, both k-dup charges, and refund r-ok
    assert_eq!(run["matched"], 4, "{run}");
    let db = h.db().await;
    let found: Vec<(String, String)> = db.query("SELECT kind, subject FROM recon_exceptions ORDER BY kind, subject", &[]).await.unwrap().iter().map(|r| (r.get(0), r.get(1))).collect();
    let mut want = vec![
        ("amount_differs".to_string(), "k-amount".to_string()),
        ("charge_without_record".into(), ghost["id"].as_str().unwrap().to_string()),
        ("duplicate_charge".into(), "k-dup".into()),
        ("record_without_charge".into(), "k-nocharge".into()),
        ("refund_mismatch".into(), stray["id"].as_str().unwrap().to_string()),
        ("refund_mismatch".into(), "r-missing".into()),
        ("state_differs".into(), "k-failed".into()),
    ];
    want.sort();
    assert_eq!(found, want);

    // found again: the same seven rows, none new
    let again = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    assert_eq!((again["exceptions"].as_u64(), again["new_exceptions"].as_u64(), again["cleared"].as_u64()), (Some(7), Some(0), Some(0)));
    assert_eq!(h.count("SELECT count(*) FROM recon_exceptions").await, 7);

    // a person resolves one, with a reason; once
    let id: uuid::Uuid = db.query_one("SELECT exception_id FROM recon_exceptions WHERE kind = 'state_differs'", &[]).await.unwrap().get(0);
    let path = format!("/admin/stores/{store}/exceptions/{id}/resolve");
    let err = h.owner.post(&path, &json!({"by": "Ana", "reason": ""})).await.unwrap_err();
    assert!(matches!(&err, ClientError::Refused(r) if r.status == 400), "{err}");
    h.owner.post(&path, &json!({"by": "Ana", "reason": "card charged after a register crash; refunded by phone"})).await.unwrap();
    let err = h.owner.post(&path, &json!({"by": "Bo", "reason": "again"})).await.unwrap_err();
    assert!(matches!(&err, ClientError::Refused(r) if r.status == 409), "{err}");
    let r = db.query_one("SELECT resolved_by, resolution, resolved_ms IS NOT NULL FROM recon_exceptions WHERE exception_id = $1", &[&id]).await.unwrap();
    assert_eq!((r.get::<_, String>(0), r.get::<_, String>(1), r.get::<_, bool>(2)), ("Ana".into(), "card charged after a register crash; refunded by phone".into(), true));
    // another store's id in the path does not reach it
    let other = h.owner.create_store("Other").await.unwrap();
    let err = h.owner.post(&format!("/admin/stores/{other}/exceptions/{id}/resolve"), &json!({"by": "Eve", "reason": "not mine"})).await.unwrap_err();
    assert!(matches!(&err, ClientError::Refused(r) if r.status == 404), "{err}");
    let err = h.owner.post(&format!("/admin/stores/{other}/reconcile"), &json!({})).await.unwrap_err();
    assert!(matches!(&err, ClientError::Refused(r) if r.status == 404), "{err}");

    // the missing charge turns up at the PSP (a late forward): the next run closes it
    psp.charge("i7", 900, "usd", &[("checkout_key", "k-nocharge")]).await;
    let third = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    assert_eq!((third["exceptions"].as_u64(), third["cleared"].as_u64()), (Some(6), Some(1)), "{third}");
    let closed = db.query_one("SELECT resolved_by, resolution FROM recon_exceptions WHERE subject = 'k-nocharge'", &[]).await.unwrap();
    assert_eq!(closed.get::<_, String>(0), "reconciliation");
    assert!(closed.get::<_, String>(1).starts_with("no longer found"));
    // the one a person resolved keeps the person's reason
    assert_eq!(db.query_one("SELECT resolved_by FROM recon_exceptions WHERE exception_id = $1", &[&id]).await.unwrap().get::<_, String>(0), "Ana");
}

#[tokio::test]
async fn the_psp_account_is_checked_and_a_wrong_key_is_a_clear_error() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let bad = h.owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": "http://example.com", "secret_key": "sk"})).await.unwrap_err();
    assert!(matches!(&bad, ClientError::Refused(r) if r.status == 400), "{bad}");
    h.owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": psp.url, "secret_key": "sk_test_wrong"})).await.unwrap();
    let err = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap_err();
    match err {
        ClientError::Refused(r) => {
            assert_eq!((r.status, r.code()), (502, "psp_error"));
            assert!(!r.body.to_string().contains("sk_test_wrong"), "the key leaked: {}", r.body);
        }
        other => panic!("{other}"),
    }
    assert_eq!(h.count("SELECT count(*) FROM recon_runs").await, 0);
}

/// A run holds the PSP side in compact form and streams the records through it (design
/// record 0042): a key charged on the first page and again on the last, and a refund whose intent
/// is on the last page, match as if the account were one page.
#[tokio::test]
async fn keys_spread_over_many_pages_match_as_on_one() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    h.owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": psp.url, "secret_key": PSP_KEY})).await.unwrap();

    const N: usize = 230;
    let key = |i: usize| format!("k-{i:03}");
    let mut rows = vec![];
    rows.extend(rows_for("k-dup", 300, PaymentState::Captured));
    rows.extend(rows_for("k-early", 800, PaymentState::Captured));
    rows.extend(rows_for("k-nocharge", 900, PaymentState::Captured));
    rows.extend(refund("r-early", "k-early", 80));
    let mut next = send(&reg, 1, rows).await;
    for chunk in (0..N).collect::<Vec<_>>().chunks(200) {
        next = send(&reg, next, chunk.iter().flat_map(|&i| rows_for(&key(i), 1_000 + i as i64, PaymentState::Captured)).collect()).await;
    }

    // The PSP lists newest first, 100 a page: what is charged first is on the last page.
    let first = psp.charge("first", 300, "usd", &[("checkout_key", "k-dup")]).await;
    let early = psp.charge("early", 800, "usd", &[("checkout_key", "k-early")]).await;
    let mut ghost = None;
    for i in 0..N {
        psp.charge(&format!("c{i}"), 1_000 + i as i64, "usd", &[("checkout_key", &key(i))]).await;
        if i == N / 2 {
            ghost = Some(psp.charge("ghost", 2_500, "usd", &[("checkout_key", "k-ghost")]).await);
        }
    }
    let last = psp.charge("last", 300, "usd", &[("checkout_key", "k-dup")]).await;
    psp.refund("f-early", early["id"].as_str().unwrap(), 80, Some("r-early")).await;

    let run = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    let charges = N as u64 + 4;
    assert_eq!((run["psp_charges"].as_u64(), run["psp_refunds"].as_u64(), run["exceptions"].as_u64()), (Some(charges), Some(1), Some(3)), "{run}");
    // every charge but the ghost, and the refund
    assert_eq!(run["matched"].as_u64(), Some(charges - 1 + 1), "{run}");
    let db = h.db().await;
    let found: Vec<(String, String, serde_json::Value)> =
        db.query("SELECT kind, subject, detail FROM recon_exceptions ORDER BY kind, subject", &[]).await.unwrap().iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    let kinds: Vec<(&str, &str)> = found.iter().map(|(k, s, _)| (k.as_str(), s.as_str())).collect();
    let ghost_id = ghost.unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(kinds, vec![("charge_without_record", ghost_id.as_str()), ("duplicate_charge", "k-dup"), ("record_without_charge", "k-nocharge")]);
    // both charges of k-dup, newest first as the PSP lists them
    assert_eq!(found[1].2["psp_ids"], json!([last["id"], first["id"]]), "{:?}", found[1]);

    let again = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    assert_eq!((again["exceptions"].as_u64(), again["new_exceptions"].as_u64(), again["cleared"].as_u64()), (Some(3), Some(0), Some(0)), "{again}");
}
