//! Store refunds into `store_refunds` (record 0121): money a register gave back through one
//! of the store's own tenders (a voucher refunded as a voucher), in seq order within the
//! batch's transaction, after the tenders and sales of the same batch. Each is checked
//! against the tender it names as it is applied; one no ledger keeping its rules could have
//! written is refused with `store_refund_contradicts_sale` and the seq, and the whole batch
//! rolls back: a sale this register never completed, a tender the sale does not have or
//! that is not a store tender, another currency than the tender's, or more back over all
//! the tender's store refunds than it paid (the ledger's `store_refunds_within_paid`).
use super::rules::FactRule;
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::{Fact, Row};
use tokio_postgres::Transaction;

/// One `store_refunded` fact's fields.
struct StoreRefund<'a> {
    refund: i64,
    sale: i64,
    tender_seq: i64,
    amount: i64,
    currency: &'a str,
    shift: Option<i64>,
}

/// Applies the store refund facts of rows `first..`, all past the acknowledged seq.
pub async fn apply_store_refunds(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row]) -> ApiResult<()> {
    for (i, row) in rows.iter().enumerate() {
        let seq = first + i as i64;
        match &row.fact {
            Fact::StoreRefunded { refund, sale, tender_seq, amount, currency, shift } => {
                let f = StoreRefund { refund: *refund, sale: *sale, tender_seq: *tender_seq, amount: *amount, currency, shift: *shift };
                insert_store_refund(tx, reg, seq, row.at_ms, &f).await?
            }
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
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
        }
    }
    Ok(())
}

async fn insert_store_refund(tx: &Transaction<'_>, reg: RegisterId, seq: i64, at_ms: i64, f: &StoreRefund<'_>) -> ApiResult<()> {
    let bad = |m: String| ApiError::ImpossibleFact { rule: FactRule::StoreRefundContradictsSale, seq, message: format!("store refund {}: {m}", f.refund) };
    let (s, r) = (&reg.store_id, &reg.register_id);
    let (sale, tender_seq) = (f.sale, f.tender_seq as i32);
    let found = tx
        .query_opt(
            "SELECT (SELECT count(*) FROM sales x WHERE x.store_id = $1 AND x.register_id = $2 AND x.sale_id = $3) AS sold,
                    t.method, t.currency, t.amount, t.superseded_at_ms IS NOT NULL
             FROM (SELECT 1) one
             LEFT JOIN tenders t ON t.store_id = $1 AND t.register_id = $2 AND t.sale_id = $3 AND t.tender_seq = $4",
            &[s, r, &sale, &tender_seq],
        )
        .await?;
    let Some(row) = found else { return Err(ApiError::Internal("a one-row query returned none".into())) };
    let sold: i64 = row.get(0);
    let (method, currency, paid, superseded): (Option<String>, Option<String>, Option<i64>, Option<bool>) = (row.get(1), row.get(2), row.get(3), row.get(4));
    if sold == 0 {
        return Err(bad(format!("sale {sale} was never completed by this register")));
    }
    let (Some(method), Some(currency), Some(paid)) = (method, currency, paid) else {
        return Err(bad(format!("sale {sale} has no tender {tender_seq}")));
    };
    if method != "store" || superseded == Some(true) {
        return Err(bad(format!("tender {tender_seq} of sale {sale} is a {method} tender or no longer counts, not a store tender")));
    }
    if currency != f.currency {
        return Err(bad(format!("is in {}, tender {tender_seq} of sale {sale} in {currency}", f.currency)));
    }
    let n = tx
        .execute(
            "INSERT INTO store_refunds (store_id, register_id, refund_id, sale_id, tender_seq, amount, currency, shift_id, refunded_at_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
            &[s, r, &f.refund, &sale, &tender_seq, &f.amount, &f.currency, &f.shift, &at_ms],
        )
        .await?;
    if n == 0 {
        return Err(ApiError::Unprocessable(format!("seq {seq}: store refund {} was already recorded under another seq", f.refund)));
    }
    // Summed as numeric: a hostile run of many refunds cannot overflow.
    let back: bool = tx
        .query_one(
            "SELECT coalesce(sum(amount), 0) > $5::int8 FROM store_refunds WHERE store_id = $1 AND register_id = $2 AND sale_id = $3 AND tender_seq = $4",
            &[s, r, &sale, &tender_seq, &paid],
        )
        .await?
        .get(0);
    if back {
        return Err(bad(format!("store refunds of tender {tender_seq} of sale {sale} come to more than the {paid} it paid")));
    }
    Ok(())
}
