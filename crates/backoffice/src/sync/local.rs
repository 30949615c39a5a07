//! A register's own catalog items, staff and tax setup into `register_items`,
//! `register_staff` and `register_tax` (record 0052), in seq order within the batch's
//! transaction. Each fact is the whole item, member or document, so applying one is an
//! upsert keyed by the register and the last one wins. They are the register's data,
//! shown read-only: nothing here touches what the owner publishes (`catalog_items`,
//! `store_tax`, `store_staff`).
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::catalog::class_name;
use paydesk_sync_proto::{Fact, Row};
use tokio_postgres::Transaction;

/// A serde enum's wire name ("half_up"), the form the CHECKs name.
fn wire_name<T: serde::Serialize>(v: &T) -> ApiResult<String> {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => Ok(s),
        other => Err(ApiError::Internal(format!("not a name: {other:?}"))),
    }
}

/// Applies the local edit facts of rows `first..`, all past the acknowledged seq.
pub async fn apply_local(tx: &Transaction<'_>, reg: RegisterId, rows: &[Row]) -> ApiResult<()> {
    let (s, r) = (&reg.store_id, &reg.register_id);
    for row in rows {
        let at = row.at_ms;
        match &row.fact {
            Fact::ItemSaved(i) => {
                // The item's shape as the register sent it (record 0137): a weighed item
                // is listed weighed here too.
                tx.execute(
                    "INSERT INTO register_items (store_id, register_id, sku, barcode, name_en, name_ja, price, currency, tax_class, active, updated_at_ms,
                                                 price_kind, unit, category)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
                     ON CONFLICT (store_id, register_id, sku) DO UPDATE SET barcode = excluded.barcode, name_en = excluded.name_en,
                         name_ja = excluded.name_ja, price = excluded.price, currency = excluded.currency, tax_class = excluded.tax_class,
                         active = excluded.active, updated_at_ms = excluded.updated_at_ms,
                         price_kind = excluded.price_kind, unit = excluded.unit, category = excluded.category",
                    &[s, r, &i.sku, &i.barcode, &i.name_en, &i.name_ja, &i.price, &i.currency, &class_name(i.tax_class), &i.active, &at,
                      &i.price_kind.as_str(), &i.unit.as_str(), &i.category],
                )
                .await?;
            }
            Fact::StaffSaved { staff, name, role, active } => {
                tx.execute(
                    "INSERT INTO register_staff (store_id, register_id, staff_id, name, role, active, updated_at_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)
                     ON CONFLICT (store_id, register_id, staff_id) DO UPDATE SET name = excluded.name, role = excluded.role,
                         active = excluded.active, updated_at_ms = excluded.updated_at_ms",
                    &[s, r, staff, name, &role.as_str(), active, &at],
                )
                .await?;
            }
            Fact::TaxSetupChanged(t) => {
                let rates = serde_json::to_value(&t.rates).map_err(|e| ApiError::Internal(e.to_string()))?;
                tx.execute(
                    "INSERT INTO register_tax (store_id, register_id, price_mode, rounding, registration_number, rates, updated_at_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)
                     ON CONFLICT (store_id, register_id) DO UPDATE SET price_mode = excluded.price_mode, rounding = excluded.rounding,
                         registration_number = excluded.registration_number, rates = excluded.rates, updated_at_ms = excluded.updated_at_ms",
                    &[s, r, &wire_name(&t.price_mode)?, &wire_name(&t.rounding)?, &t.registration_number, &rates, &at],
                )
                .await?;
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
