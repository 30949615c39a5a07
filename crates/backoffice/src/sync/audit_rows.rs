//! A register's audit rows and receipt prints into `audit_rows` and `receipt_prints` (record
//! 0146), within the batch's transaction. Each fact is applied once (its journal seq is new);
//! an audit row is kept as first received: another row under a seq already held (a register
//! whose chain was rewritten, or restored and written again) is not stored over it, so a proof
//! never walks a row the register changed after sending it. [`check_resent`] then marks the
//! register's chain broken (record 0053's **rewritten**), after the batch's own audit report
//! was checked: a tail deleted and written again is first what that report names (**went
//! backwards**), and the first break is the one kept.
use super::audit_head::{mark_broken, BreakKind};
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use crate::state::now_ms;
use paydesk_sync_proto::audit::parse_hash;
use paydesk_sync_proto::{AuditRow, Fact, ReceiptPrinted, Row};
use tokio_postgres::Transaction;

fn hash(field: &str, s: &str) -> ApiResult<Vec<u8>> {
    // validated with the batch; a refusal here would be a bug
    parse_hash(s).map(|h| h.to_vec()).ok_or_else(|| ApiError::Internal(format!("{field} is not a SHA-256")))
}

/// Applies the audit-row and receipt-print facts of `rows`.
pub async fn apply_audit_rows(tx: &Transaction<'_>, reg: RegisterId, rows: &[Row]) -> ApiResult<()> {
    let mut audit: Vec<&AuditRow> = Vec::new();
    let mut prints: Vec<(i64, &ReceiptPrinted)> = Vec::new();
    for row in rows {
        match &row.fact {
            Fact::AuditRow(a) => audit.push(a),
            Fact::ReceiptPrinted(p) => prints.push((row.at_ms, p)),
            Fact::PaymentCreated { .. }
            | Fact::PaymentState { .. }
            | Fact::RefundCreated { .. }
            | Fact::RefundState { .. }
            | Fact::TenderAdded(_)
            | Fact::TenderSuperseded { .. }
            | Fact::ShiftOpened { .. }
            | Fact::PaidInOut { .. }
            | Fact::ShiftClosed { .. }
            | Fact::SaleCompleted(_)
            | Fact::SaleCanceled { .. }
            | Fact::ItemSaved(_)
            | Fact::StaffSaved { .. }
            | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_) => {}
        }
    }
    if !audit.is_empty() {
        insert_audit(tx, reg, &audit).await?;
    }
    for (at_ms, p) in prints {
        let seq = p.audit_seq as i64;
        tx.execute(
            "INSERT INTO receipt_prints (store_id, register_id, sale_id, print_no, receipt_no, reprint, outcome, paper, printed_at_ms,
                                         staff_id, staff_name, text, text_sha256, audit_seq, received_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
             ON CONFLICT DO NOTHING",
            &[
                &reg.store_id,
                &reg.register_id,
                &p.sale,
                &(p.print_no as i32), // validated: 1..=10 000
                &p.receipt_no,
                &p.reprint,
                &p.outcome.as_str(),
                &p.paper,
                &at_ms,
                &p.staff,
                &p.staff_name,
                &p.text,
                &p.text_sha256,
                &seq,
                &now_ms(),
            ],
        )
        .await?;
    }
    Ok(())
}

/// One statement for the run's rows; a seq already held keeps its row ([`check_resent`]).
async fn insert_audit(tx: &Transaction<'_>, reg: RegisterId, rows: &[&AuditRow]) -> ApiResult<()> {
    let seqs: Vec<i64> = rows.iter().map(|a| a.seq as i64).collect();
    let ats: Vec<i64> = rows.iter().map(|a| a.at_ms).collect();
    let actors: Vec<Option<i64>> = rows.iter().map(|a| a.actor_id).collect();
    let approvers: Vec<Option<i64>> = rows.iter().map(|a| a.approver_id).collect();
    let actions: Vec<&str> = rows.iter().map(|a| a.action.as_str()).collect();
    let subjects: Vec<&str> = rows.iter().map(|a| a.subject.as_str()).collect();
    let reasons: Vec<Option<&str>> = rows.iter().map(|a| a.reason.as_deref()).collect();
    let befores: Vec<Option<&str>> = rows.iter().map(|a| a.before.as_deref()).collect();
    let afters: Vec<Option<&str>> = rows.iter().map(|a| a.after.as_deref()).collect();
    let prevs: Vec<Vec<u8>> = rows.iter().map(|a| hash("prev_hash", &a.prev_hash)).collect::<ApiResult<_>>()?;
    let hashes: Vec<Vec<u8>> = rows.iter().map(|a| hash("hash", &a.hash)).collect::<ApiResult<_>>()?;
    tx.execute(
        "INSERT INTO audit_rows (store_id, register_id, seq, at_ms, actor_id, approver_id, action, subject, reason, before_doc, after_doc,
                                 prev_hash, hash, received_ms)
         SELECT $1, $2, x.seq, x.at, x.actor, x.approver, x.action, x.subject, x.reason, x.before, x.after, x.prev, x.hash, $14
         FROM unnest($3::int8[], $4::int8[], $5::int8[], $6::int8[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
                     $12::bytea[], $13::bytea[]) AS x(seq, at, actor, approver, action, subject, reason, before, after, prev, hash)
         ON CONFLICT DO NOTHING",
        &[
            &reg.store_id,
            &reg.register_id,
            &seqs,
            &ats,
            &actors,
            &approvers,
            &actions,
            &subjects,
            &reasons,
            &befores,
            &afters,
            &prevs,
            &hashes,
            &now_ms(),
        ],
    )
    .await?;
    Ok(())
}

/// Marks the register's chain broken when an audit row of this batch is not the row held
/// under its seq (the first break is kept: call after the batch's audit report was checked).
pub async fn check_resent(tx: &Transaction<'_>, reg: RegisterId, rows: &[Row]) -> ApiResult<()> {
    let sent: Vec<&AuditRow> = rows
        .iter()
        .filter_map(|r| match &r.fact {
            Fact::AuditRow(a) => Some(a),
            Fact::PaymentCreated { .. }
            | Fact::PaymentState { .. }
            | Fact::RefundCreated { .. }
            | Fact::RefundState { .. }
            | Fact::TenderAdded(_)
            | Fact::TenderSuperseded { .. }
            | Fact::ShiftOpened { .. }
            | Fact::PaidInOut { .. }
            | Fact::ShiftClosed { .. }
            | Fact::SaleCompleted(_)
            | Fact::SaleCanceled { .. }
            | Fact::ItemSaved(_)
            | Fact::StaffSaved { .. }
            | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::ReceiptPrinted(_) => None,
        })
        .collect();
    if sent.is_empty() {
        return Ok(());
    }
    let seqs: Vec<i64> = sent.iter().map(|a| a.seq as i64).collect();
    let held: std::collections::HashMap<i64, Vec<u8>> = tx
        .query("SELECT seq, hash FROM audit_rows WHERE store_id = $1 AND register_id = $2 AND seq = ANY($3)", &[&reg.store_id, &reg.register_id, &seqs])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for a in sent {
        let seq = a.seq as i64;
        let Some(h) = held.get(&seq) else { continue }; // held back with its batch: checked when it comes again
        if *h != hash("hash", &a.hash)? {
            let detail = format!("row {seq} was sent again with hash {}, not the {} the back office holds: rewritten", a.hash, hex::encode(h));
            mark_broken(tx, reg, BreakKind::Rewritten, seq, detail).await?;
            break;
        }
    }
    Ok(())
}
