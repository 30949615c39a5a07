//! `GET /v1/sync/changes?since=N`: what a register must apply to catch up with its
//! store (design §9.5). The register applies them idempotently and keeps its last copy
//! while the back office is away.
use super::authenticate;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::Json;
use paydesk_sync_proto::{Change, Changes, StoreSettings, PROTOCOL_VERSION};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Since {
    since: Option<String>,
}

pub async fn changes(State(st): State<AppState>, headers: HeaderMap, Query(q): Query<Since>) -> ApiResult<Json<Changes>> {
    let since: u64 = match q.since.as_deref() {
        None => 0,
        Some(s) => s.parse().map_err(|_| ApiError::BadRequest(format!("since must be a version number (0 or more), got {s:?}")))?,
    };
    let client = st.pool.get().await?;
    let reg = authenticate(&client, &headers).await?;
    let row = client.query_opt("SELECT version, settings FROM store_settings WHERE store_id = $1", &[&reg.store_id]).await?;
    let Some(row) = row else {
        return Ok(Json(Changes { v: PROTOCOL_VERSION, since, version: 0, changes: vec![] }));
    };
    let version = row.get::<_, i64>(0) as u64;
    let settings: StoreSettings = serde_json::from_value(row.get(1)).map_err(|e| ApiError::Internal(format!("stored settings: {e}")))?;
    // A register ahead of us (the back office restored from an older backup) gets the
    // current copy too: the published version is the truth, whatever the register holds.
    let changes = if since == version { vec![] } else { vec![Change::Settings { version, settings }] };
    Ok(Json(Changes { v: PROTOCOL_VERSION, since, version, changes }))
}
