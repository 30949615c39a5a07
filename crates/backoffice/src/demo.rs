//! The demo feeder of `make backoffice`: a store with two paired registers that send a
//! day's worth of sales and a few refunds through the real API, so the dashboard has
//! something to show.
use crate::client::{ClientError, OwnerClient, RegisterClient};
use paydesk_sync_proto::{Batch, Fact, PaymentState, RefundState, RegisterHealth, Row, PROTOCOL_VERSION};
use rand::{Rng, SeedableRng};
use serde_json::json;

/// What one register's journal holds for `payments` sales spread over the last hours
/// before `now_ms`: each one created, authorizing, captured; every seventh partly refunded.
pub fn journal(tag: &str, payments: usize, now_ms: i64, seed: u64) -> Vec<Row> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut rows = Vec::new();
    let hours = 8i64;
    for i in 0..payments {
        let at = now_ms - hours * 3_600_000 + (i as i64 * hours * 3_600_000) / payments.max(1) as i64;
        let key = format!("{tag}-checkout-{i:05}");
        let amount = 100 * rng.random_range(3..=120);
        rows.push(Row { at_ms: at, fact: Fact::PaymentCreated { checkout_key: key.clone(), amount, currency: "usd".into() } });
        rows.push(Row { at_ms: at + 10, fact: Fact::PaymentState { checkout_key: key.clone(), state: PaymentState::Authorizing, psp_id: None } });
        rows.push(Row { at_ms: at + 900, fact: Fact::PaymentState { checkout_key: key.clone(), state: PaymentState::Captured, psp_id: Some(format!("pi_{tag}_{i:05}")) } });
        if i % 7 == 3 {
            let rk = format!("{tag}-refund-{i:05}");
            rows.push(Row { at_ms: at + 600_000, fact: Fact::RefundCreated { refund_key: rk.clone(), checkout_key: key.clone(), amount: amount / 2 } });
            rows.push(Row { at_ms: at + 601_000, fact: Fact::RefundState { refund_key: rk, state: RefundState::Succeeded, psp_refund_id: Some(format!("re_{tag}_{i:05}")) } });
            rows.push(Row { at_ms: at + 601_000, fact: Fact::PaymentState { checkout_key: key, state: PaymentState::PartiallyRefunded, psp_id: None } });
        }
    }
    rows
}

/// Sends `rows` from seq `first` in batches of `per_batch`, each with its own key; the
/// health says how many rows are still queued behind each batch.
pub async fn send_all(reg: &RegisterClient, first: u64, rows: &[Row], per_batch: usize, app_version: &str) -> Result<u64, ClientError> {
    let mut acked = first.saturating_sub(1);
    for (i, chunk) in rows.chunks(per_batch.max(1)).enumerate() {
        let start = first + (i * per_batch) as u64;
        let queued = (rows.len() - i * per_batch - chunk.len()) as u64;
        let batch = Batch {
            v: PROTOCOL_VERSION,
            register_id: reg.paired.register_id.clone(),
            first_seq: start,
            rows: chunk.to_vec(),
            health: RegisterHealth { app_version: app_version.into(), queued, offline_waiting: 0, audit: None },
        };
        acked = reg.send(&batch, &format!("{}-{start}", reg.paired.register_id)).await?.acked_through;
    }
    Ok(acked)
}

/// The demo store, its settings, two registers and their sales; the store's id.
pub async fn feed(owner: &OwnerClient, now_ms: i64) -> Result<String, ClientError> {
    let store = owner.create_store("Demo Store — Main St").await?;
    owner
        .put(
            &format!("/admin/stores/{store}/settings"),
            &json!({"expected_version": 0, "settings": {"store_name": "Demo Store — Main St", "currency": "usd",
                "receipt_footer": "Thank you!", "offline_max_payment": 20000, "offline_max_total": 100000,
                "time_zone": "America/New_York"}}),
        )
        .await?;
    for (n, name) in ["Register 1", "Register 2"].iter().enumerate() {
        let code = owner.pairing_code(&store, name).await?;
        let reg = RegisterClient::pair(&owner.base, &code, "0.1.0").await?;
        let rows = journal(&format!("r{}", n + 1), 40 + 25 * n, now_ms, n as u64 + 1);
        send_all(&reg, 1, &rows, 50, "0.1.0").await?;
    }
    Ok(store)
}
