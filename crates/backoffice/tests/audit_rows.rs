//! A register's audit rows at the back office (record 0146): kept as first received; the same
//! seq sent again with another row marks the register's chain **rewritten** at that row, and
//! the row held is not replaced.
use crate::support;
use paydesk_access::audit::{append, Anchor, AuditRecord, ChainedRecord};
use paydesk_sync_proto::audit::hash_hex;
use paydesk_sync_proto::{AuditHead, AuditReport, AuditRow, Batch, Fact, RegisterHealth, Row, PROTOCOL_VERSION};
use support::*;

fn chain(subjects: &[&str], from: Anchor) -> Vec<ChainedRecord> {
    let mut last = from;
    subjects
        .iter()
        .map(|s| {
            let r = AuditRecord { seq: last.seq + 1, at_ms: 1_700_000_000_000, actor_id: None, approver_id: None, action: "x".into(), subject: (*s).into(), reason: None, before: None, after: None };
            let c = append(last, r).unwrap();
            last = c.anchor();
            c
        })
        .collect()
}

fn row(c: &ChainedRecord) -> Row {
    let r = &c.record;
    Row {
        at_ms: r.at_ms,
        fact: Fact::AuditRow(AuditRow {
            seq: r.seq,
            at_ms: r.at_ms,
            actor_id: r.actor_id,
            approver_id: r.approver_id,
            action: r.action.clone(),
            subject: r.subject.clone(),
            reason: r.reason.clone(),
            before: r.before.clone(),
            after: r.after.clone(),
            prev_hash: hash_hex(&c.prev_hash),
            hash: hash_hex(&c.hash),
        }),
    }
}

#[tokio::test]
async fn a_row_sent_again_with_another_content_is_a_rewritten_chain_and_the_first_is_kept() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    let first = chain(&["a", "b"], Anchor::GENESIS);
    let batch = |first_seq: u64, rows: Vec<Row>| Batch {
        v: PROTOCOL_VERSION,
        register_id: reg.paired.register_id.clone(),
        first_seq,
        rows,
        health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None },
    };
    // the first batch reports the head (the register's audit state begins there, record 0053)
    let mut b1 = batch(1, first.iter().map(row).collect());
    let head = first[1].anchor();
    b1.health.audit = Some(AuditReport { head: AuditHead { seq: head.seq, hash: hash_hex(&head.hash) }, at_confirmed: None, z_heads: vec![] });
    reg.send(&b1, "r-1").await.unwrap();
    // resent as the same rows under new journal seqs: nothing changes
    reg.send(&batch(3, vec![row(&first[1])]), "r-3").await.unwrap();
    assert_eq!(h.count("SELECT count(*) FROM audit_rows").await, 2);
    // row 2 written again with another subject, its hash recomputed
    let again = chain(&["b, rewritten"], first[0].anchor());
    reg.send(&batch(4, vec![row(&again[0])]), "r-4").await.unwrap();
    let s = h.owner.get(&format!("/admin/stores/{store}/registers/{}/audit", reg.paired.register_id)).await.unwrap();
    assert_eq!((s["broken_kind"].as_str(), s["broken_seq"].as_i64()), (Some("rewritten"), Some(2)), "{s}");
    let held: String = h.db().await.query_one("SELECT subject FROM audit_rows WHERE seq = 2", &[]).await.unwrap().get(0);
    assert_eq!(held, "b", "the row first received is kept");
}
