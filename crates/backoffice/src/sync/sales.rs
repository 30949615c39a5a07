//! Completed sales into `sales`, `sale_lines` and `sale_rates` (record 0051), in seq
//! order within the batch's transaction, after the payments and books of the same
//! batch. One sale is three statements (its row, its lines and its rates, each set-based
//! with `unnest`), so a batch of 500 sales of 1,000 lines is 1,500 statements, not 500,000.
//!
//! Each fact is applied once (its seq is new), so a second completion of the same sale is
//! a register bug and refuses the batch (422 naming the seq), as does a cancel of a sale
//! this register never completed.
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::catalog::class_name;
use paydesk_sync_proto::sales::{dining_name, price_mode_name};
use paydesk_sync_proto::{Fact, Row, SaleCompleted};
use tokio_postgres::Transaction;

/// Applies the sale facts of rows `first..`, all past the acknowledged seq.
pub async fn apply_sales(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row]) -> ApiResult<()> {
    for (i, row) in rows.iter().enumerate() {
        let seq = first + i as i64;
        match &row.fact {
            Fact::SaleCompleted(sale) => insert_sale(tx, reg, seq, row.at_ms, sale).await?,
            Fact::SaleCanceled { sale } => {
                let n = tx
                    .execute(
                        "UPDATE sales SET canceled_at_ms = $4 WHERE store_id = $1 AND register_id = $2 AND sale_id = $3 AND canceled_at_ms IS NULL",
                        &[&reg.store_id, &reg.register_id, sale, &row.at_ms],
                    )
                    .await?;
                if n == 0 {
                    return Err(ApiError::Unprocessable(format!(
                        "seq {seq}: cancels sale {sale}, which this register never completed or already canceled"
                    )));
                }
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
            | Fact::ItemSaved(_)
            | Fact::StaffSaved { .. }
            | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
        }
    }
    Ok(())
}

async fn insert_sale(tx: &Transaction<'_>, reg: RegisterId, seq: i64, at_ms: i64, sale: &SaleCompleted) -> ApiResult<()> {
    let (s, r) = (&reg.store_id, &reg.register_id);
    let n = tx
        .execute(
            "INSERT INTO sales (store_id, register_id, sale_id, receipt_no, currency, dining, price_mode, subtotal, sale_discount,
                                tax_total, total, completed_at_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING",
            &[
                s,
                r,
                &sale.sale,
                &sale.receipt_no,
                &sale.currency,
                &dining_name(sale.dining),
                &sale.price_mode.map(price_mode_name),
                &sale.subtotal,
                &sale.sale_discount,
                &sale.tax_total,
                &sale.total,
                &at_ms,
            ],
        )
        .await?;
    if n == 0 {
        return Err(ApiError::Unprocessable(format!("seq {seq}: sale {} was already recorded under another seq", sale.sale)));
    }
    // The wire bounds these (1,000 lines, quantity 9,999), so the casts cannot truncate.
    let line_no: Vec<i32> = (1..=sale.lines.len() as i32).collect();
    let skus: Vec<&str> = sale.lines.iter().map(|l| l.sku.as_str()).collect();
    let names: Vec<&str> = sale.lines.iter().map(|l| l.name.as_str()).collect();
    let qty: Vec<i32> = sale.lines.iter().map(|l| l.quantity as i32).collect();
    let prices: Vec<i64> = sale.lines.iter().map(|l| l.unit_price).collect();
    let classes: Vec<&str> = sale.lines.iter().map(|l| class_name(l.tax_class)).collect();
    let discounts: Vec<i64> = sale.lines.iter().map(|l| l.discount).collect();
    let totals: Vec<i64> = sale.lines.iter().map(|l| l.total).collect();
    tx.execute(
        "INSERT INTO sale_lines (store_id, register_id, sale_id, line_no, sku, name, quantity, unit_price, tax_class, discount, total)
         SELECT $1, $2, $3, x.n, x.sku, x.name, x.q, x.p, x.c, x.d, x.t
         FROM unnest($4::int4[], $5::text[], $6::text[], $7::int4[], $8::int8[], $9::text[], $10::int8[], $11::int8[])
              AS x(n, sku, name, q, p, c, d, t)",
        &[s, r, &sale.sale, &line_no, &skus, &names, &qty, &prices, &classes, &discounts, &totals],
    )
    .await?;
    if sale.rates.is_empty() {
        return Ok(());
    }
    let classes: Vec<&str> = sale.rates.iter().map(|x| class_name(x.class)).collect();
    // validated: 0..=1 000 000 fits an int4
    let ppms: Vec<i32> = sale.rates.iter().map(|x| x.ppm as i32).collect();
    let bases: Vec<i64> = sale.rates.iter().map(|x| x.base).collect();
    let taxes: Vec<i64> = sale.rates.iter().map(|x| x.tax).collect();
    let grosses: Vec<i64> = sale.rates.iter().map(|x| x.gross).collect();
    tx.execute(
        "INSERT INTO sale_rates (store_id, register_id, sale_id, class, ppm, base, tax, gross)
         SELECT $1, $2, $3, x.c, x.b, x.base, x.t, x.g
         FROM unnest($4::text[], $5::int4[], $6::int8[], $7::int8[], $8::int8[]) AS x(c, b, base, t, g)",
        &[s, r, &sale.sale, &classes, &ppms, &bases, &taxes, &grosses],
    )
    .await?;
    Ok(())
}
