//! Applying one journal row: store the fact once under `(store, register, seq)`, then
//! fold it into the `payments` / `refunds` projections (design §9.4). Rows arrive in seq
//! order, so each projection is the register's own order of events.
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use crate::state::now_ms;
use paydesk_sync_proto::{Fact, Row};
use tokio_postgres::Transaction;

pub async fn apply_row(tx: &Transaction<'_>, reg: RegisterId, seq: i64, row: &Row) -> ApiResult<()> {
    let fact = serde_json::to_value(&row.fact).map_err(|e| ApiError::Internal(e.to_string()))?;
    let kind = row.fact.kind();
    tx.execute(
        "INSERT INTO journal (store_id, register_id, seq, at_ms, kind, fact, received_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[&reg.store_id, &reg.register_id, &seq, &row.at_ms, &kind, &fact, &now_ms()],
    )
    .await?;
    let (s, r, at) = (&reg.store_id, &reg.register_id, &row.at_ms);
    let changed = match &row.fact {
        Fact::PaymentCreated { checkout_key, amount, currency } => {
            tx.execute(
                "INSERT INTO payments (store_id, checkout_key, register_id, amount, currency, state, created_at_ms, updated_at_ms)
                 VALUES ($1, $2, $3, $4, $5, 'created', $6, $6) ON CONFLICT (store_id, checkout_key) DO NOTHING",
                &[s, checkout_key, r, amount, currency, at],
            )
            .await?;
            // a key made by another register of the store is a register bug, not a payment
            let owner = tx.query_one("SELECT register_id FROM payments WHERE store_id = $1 AND checkout_key = $2", &[s, checkout_key]).await?;
            u64::from(owner.get::<_, uuid::Uuid>(0) == reg.register_id)
        }
        Fact::PaymentState { checkout_key, state, psp_id } => {
            tx.execute(
                "UPDATE payments SET state = $4, psp_id = COALESCE($5, psp_id), updated_at_ms = $6
                 WHERE store_id = $1 AND checkout_key = $2 AND register_id = $3",
                &[s, checkout_key, r, &state.as_str(), psp_id, at],
            )
            .await?
        }
        // The payment may be another register's that has not synced yet (a refund at
        // another till): the refund is stored on its own and joins it when it arrives.
        Fact::RefundCreated { refund_key, checkout_key, amount } => {
            tx.execute(
                "INSERT INTO refunds (store_id, refund_key, checkout_key, register_id, amount, state, created_at_ms, updated_at_ms)
                 VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)
                 ON CONFLICT (store_id, refund_key) DO NOTHING",
                &[s, refund_key, checkout_key, r, amount, at],
            )
            .await?
                + tx.query_opt("SELECT 1 FROM refunds WHERE store_id = $1 AND refund_key = $2 AND register_id = $3", &[s, refund_key, r]).await?.map_or(0, |_| 1)
        }
        Fact::RefundState { refund_key, state, psp_refund_id } => {
            tx.execute(
                "UPDATE refunds SET state = $4, psp_refund_id = COALESCE($5, psp_refund_id), updated_at_ms = $6
                 WHERE store_id = $1 AND refund_key = $2 AND register_id = $3",
                &[s, refund_key, r, &state.as_str(), psp_refund_id, at],
            )
            .await?
        }
    };
    if changed == 0 {
        // The register's own order puts a payment's creation before its changes; a fact
        // about something it never created is refused whole, so nothing half-applies.
        return Err(ApiError::Unprocessable(format!("seq {seq}: {kind} refers to a payment or refund this register never created (or another register made that key)")));
    }
    Ok(())
}
