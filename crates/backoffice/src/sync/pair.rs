//! `POST /v1/pair`: a one-time code for a register's own id and token (record 0038).
use crate::auth::{new_token, pairing_code_hash};
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, source, AppState};
use axum::extract::State;
use axum::Json;
use paydesk_sync_proto::{PairRequest, Paired, PROTOCOL_VERSION};
use uuid::Uuid;

pub async fn pair(State(st): State<AppState>, ext: axum::http::Extensions, body: axum::body::Bytes) -> ApiResult<Json<Paired>> {
    // every attempt counts, before the code is looked at: guessing is what is throttled
    st.pairing.attempt(source(&ext)).map_err(|wait| ApiError::Throttled(wait.as_secs()))?;
    let req: PairRequest = serde_json::from_slice(&body).map_err(|e| ApiError::Proto { code: "malformed", message: e.to_string() })?;
    req.validate()?;
    let hash = pairing_code_hash(&req.pairing_code);
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    let row = tx
        .query_opt("SELECT store_id, register_name, expires_ms, used_ms FROM pairing_codes WHERE code_hash = $1 FOR UPDATE", &[&hash])
        .await?
        .ok_or_else(|| ApiError::Forbidden("unknown pairing code; ask the store's owner for a new one".into()))?;
    let (store_id, name, expires, used): (Uuid, String, i64, Option<i64>) = (row.get(0), row.get(1), row.get(2), row.get(3));
    let now = now_ms();
    if used.is_some() {
        return Err(ApiError::Conflict("this pairing code was already used; each code pairs one register once".into()));
    }
    if now > expires {
        return Err(ApiError::Forbidden("this pairing code has expired; ask the store's owner for a new one".into()));
    }
    let register_id = Uuid::new_v4();
    let (token, token_hash) = new_token(store_id, register_id);
    tx.execute(
        "INSERT INTO registers (store_id, register_id, name, token_hash, paired_ms, app_version) VALUES ($1, $2, $3, $4, $5, $6)",
        &[&store_id, &register_id, &name, &token_hash, &now, &req.app_version],
    )
    .await?;
    tx.execute("UPDATE pairing_codes SET used_ms = $2, register_id = $3 WHERE code_hash = $1", &[&hash, &now, &register_id]).await?;
    tx.commit().await?;
    tracing::info!(%store_id, %register_id, "register paired");
    Ok(Json(Paired { v: PROTOCOL_VERSION, store_id: store_id.to_string(), register_id: register_id.to_string(), register_name: name, token }))
}
