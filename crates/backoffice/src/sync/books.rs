//! Tender and shift facts (a store tender with its type, record 0121) into the `tenders`, `shifts` and `drawer_moves` tables
//! (record 0047), in seq order within the batch's transaction. One statement per fact:
//! a sale has a tender or two and a shift a handful of rows, against a payment's three
//! or four facts that `project.rs` writes set-based.
//!
//! Each fact is applied once (its seq is new), so a second creation of the same tender,
//! shift or entry is a register bug and refuses the batch, as does a change to one this
//! register never recorded.
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::{Fact, Row, TenderMethod};
use tokio_postgres::Transaction;

/// Whether any row is a tender or shift fact (payments-only batches skip this module).
fn any_books(rows: &[Row]) -> bool {
    rows.iter().any(|r| match r.fact {
        Fact::PaymentCreated { .. } | Fact::PaymentState { .. } | Fact::RefundCreated { .. } | Fact::RefundState { .. } => false,
        Fact::SaleCompleted(_) | Fact::SaleCanceled { .. } => false,
        Fact::ItemSaved(_) | Fact::StaffSaved { .. } | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => false,
        Fact::TenderAdded(_) | Fact::TenderSuperseded { .. } | Fact::ShiftOpened { .. } | Fact::PaidInOut { .. } | Fact::ShiftClosed { .. } => true,
    })
}

fn unknown(seq: i64, what: String) -> ApiError {
    ApiError::Unprocessable(format!("seq {seq}: {what}, which this register never recorded"))
}

fn twice(seq: i64, what: String) -> ApiError {
    ApiError::Unprocessable(format!("seq {seq}: {what} was already recorded under another seq"))
}

/// Applies the tender and shift facts of rows `first..`, all past the acknowledged seq.
pub async fn apply_books(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row]) -> ApiResult<()> {
    if !any_books(rows) {
        return Ok(());
    }
    let (s, r) = (&reg.store_id, &reg.register_id);
    for (i, row) in rows.iter().enumerate() {
        let seq = first + i as i64;
        let at = row.at_ms;
        match &row.fact {
            Fact::PaymentCreated { .. } | Fact::PaymentState { .. } | Fact::RefundCreated { .. } | Fact::RefundState { .. } => {}
            Fact::SaleCompleted(_) | Fact::SaleCanceled { .. } => {}
            Fact::ItemSaved(_) | Fact::StaffSaved { .. } | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
            Fact::TenderAdded(t) => {
                // A store tender's type as the register knew it then (record 0121).
                let st = match &t.method {
                    TenderMethod::Store(st) => Some(st),
                    TenderMethod::Cash | TenderMethod::Card => None,
                };
                let n = tx
                    .execute(
                        "INSERT INTO tenders (store_id, register_id, sale_id, tender_seq, method, amount, currency, checkout_key,
                                              cash_tendered, change_given, rounding, shift_id, created_at_ms,
                                              tender_type_id, tender_type_name, tender_type_kind, slip, offered, forfeited,
                                              staff_id, staff_name)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
                         ON CONFLICT DO NOTHING",
                        &[
                            s, r, &t.sale, &(t.tender_seq as i32), &t.method.as_str(), &t.amount, &t.currency, &t.checkout_key, &t.cash_tendered, &t.change,
                            &t.rounding, &t.shift, &at, &st.map(|x| x.type_id), &st.map(|x| x.type_name.as_str()), &st.map(|x| x.type_kind.as_str()),
                            &st.and_then(|x| x.reference.as_deref()), &st.map(|x| x.offered), &st.map(|x| x.forfeited),
                            // who took it (record 0143); None from a register before schema v35
                            &t.staff, &t.staff_name.as_deref(),
                        ],
                    )
                    .await?;
                if n == 0 {
                    return Err(twice(seq, format!("tender {} of sale {}", t.tender_seq, t.sale)));
                }
            }
            Fact::TenderSuperseded { sale, tender_seq } => {
                let n = tx
                    .execute(
                        "UPDATE tenders SET superseded_at_ms = $5 WHERE store_id = $1 AND register_id = $2 AND sale_id = $3 AND tender_seq = $4",
                        &[s, r, sale, &(*tender_seq as i32), &at],
                    )
                    .await?;
                if n == 0 {
                    return Err(unknown(seq, format!("supersedes tender {tender_seq} of sale {sale}")));
                }
            }
            Fact::ShiftOpened { shift, currency, float } => {
                let n = tx
                    .execute(
                        "INSERT INTO shifts (store_id, register_id, shift_id, currency, float_amount, opened_at_ms) VALUES ($1, $2, $3, $4, $5, $6)
                         ON CONFLICT DO NOTHING",
                        &[s, r, shift, currency, float, &at],
                    )
                    .await?;
                if n == 0 {
                    return Err(twice(seq, format!("shift {shift}")));
                }
            }
            Fact::PaidInOut { entry, shift, direction, amount, currency, reason } => {
                let open = tx.query_opt("SELECT 1 FROM shifts WHERE store_id = $1 AND register_id = $2 AND shift_id = $3", &[s, r, shift]).await?;
                if open.is_none() {
                    return Err(unknown(seq, format!("moves cash in shift {shift}")));
                }
                let n = tx
                    .execute(
                        "INSERT INTO drawer_moves (store_id, register_id, entry_id, shift_id, direction, amount, currency, reason, at_ms)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
                        &[s, r, entry, shift, &direction.as_str(), amount, currency, reason, &at],
                    )
                    .await?;
                if n == 0 {
                    return Err(twice(seq, format!("drawer entry {entry}")));
                }
            }
            Fact::ShiftClosed { shift, z_number, counted, expected, over_short } => {
                let n = tx
                    .execute(
                        "UPDATE shifts SET z_number = $4, counted = $5, expected = $6, over_short = $7, closed_at_ms = $8
                         WHERE store_id = $1 AND register_id = $2 AND shift_id = $3 AND z_number IS NULL
                           AND NOT EXISTS (SELECT 1 FROM shifts z WHERE z.store_id = $1 AND z.register_id = $2 AND z.z_number = $4)",
                        &[s, r, shift, z_number, counted, expected, over_short, &at],
                    )
                    .await?;
                if n == 0 {
                    return Err(ApiError::Unprocessable(format!(
                        "seq {seq}: closes shift {shift} with Z {z_number}, but that shift is not open here or Z {z_number} was already used"
                    )));
                }
            }
        }
    }
    Ok(())
}
