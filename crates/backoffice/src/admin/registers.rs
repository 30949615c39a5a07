//! The owner replaces a register (record 0048): a dead disk, a stolen machine. From the
//! moment this commits the register's token is refused (`register_replaced`), so its
//! journal at the back office is final and a replacement of the same store can restore
//! it. Replacing is idempotent: a second call answers the first one's time.
use super::{json_body, parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, AppState};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

/// The body is an empty JSON object; fields may join later, unknown ones are refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Replace {}

pub async fn replace(State(st): State<AppState>, headers: HeaderMap, Path((store, register)): Path<(String, String)>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let register = Uuid::parse_str(&register).map_err(|_| ApiError::NotFound(format!("no register {register:?}")))?;
    let _: Replace = json_body(&body)?;
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    // The row lock waits for a batch of this register in flight, which then commits
    // before the mark; every later batch sees the mark under the same lock (ingest.rs).
    let row = tx
        .query_opt(
            "SELECT name, replaced_ms, acked_through, queued, offline_waiting, last_sync_ms FROM registers WHERE store_id = $1 AND register_id = $2 FOR UPDATE",
            &[&store, &register],
        )
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no register {register} in store {store}")))?;
    let replaced_ms = match row.get::<_, Option<i64>>(1) {
        Some(at) => at,
        None => {
            let now = now_ms();
            tx.execute("UPDATE registers SET replaced_ms = $3 WHERE store_id = $1 AND register_id = $2", &[&store, &register, &now]).await?;
            now
        }
    };
    tx.commit().await?;
    tracing::info!(%store, %register, "register replaced");
    Ok(Json(json!({
        "register_id": register,
        "name": row.get::<_, String>(0),
        "replaced_ms": replaced_ms,
        "acked_through": row.get::<_, i64>(2),
        "queued_at_last_sync": row.get::<_, i64>(3),
        "offline_waiting_at_last_sync": row.get::<_, i64>(4),
        "last_sync_ms": row.get::<_, Option<i64>>(5),
    })))
}

/// `GET …/registers/{register}/audit`: where the register's audit chain stands as the back
/// office saw it (record 0053): `intact`, `broken` with the first break, or
/// `not_reported`; the head confirmed and when; the last Z report's head.
pub async fn audit(State(st): State<AppState>, headers: HeaderMap, Path((store, register)): Path<(String, String)>) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let register = Uuid::parse_str(&register).map_err(|_| ApiError::NotFound(format!("no register {register:?}")))?;
    let client = st.pool.get().await?;
    crate::sync::audit_head::one(&client, store, register)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no register {register} in store {store}")))
}
