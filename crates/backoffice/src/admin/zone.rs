//! The store's time zone (record 0137): the zone its dashboard hours are in, and the zone
//! its registers' receipts and reports tell the time in. It travels to the registers
//! inside the settings document, so setting it publishes a new settings version.
use super::{json_body, parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, AppState};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use paydesk_sync_proto::{check_time_zone, StoreSettings};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_postgres::GenericClient;

/// A zone both the registers (their rule, `check_time_zone`) and this database's
/// `AT TIME ZONE` know: one the dashboard could not group by would fail every page load.
pub(crate) async fn check_zone<C: GenericClient>(client: &C, zone: &str) -> ApiResult<()> {
    check_time_zone("time_zone", zone).map_err(|e| ApiError::UnknownTimeZone(e.to_string()))?;
    let known: bool = client.query_one("SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1)", &[&zone]).await?.get(0);
    if !known {
        return Err(ApiError::UnknownTimeZone(format!("time_zone: {zone:?} is not a zone this back office's database knows")));
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutZone {
    time_zone: String,
}

/// Sets the store's zone and publishes it to its registers with the settings (a new
/// settings version when it changes). The settings must have been published once: the
/// zone has no other way to the registers.
pub async fn put_time_zone(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: PutZone = json_body(&body)?;
    let mut client = st.pool.get().await?;
    check_zone(&**client, &req.time_zone).await?;
    let tx = client.transaction().await?;
    // The store row first: its lock orders this publish with the others (record 0049).
    tx.query_opt("SELECT 1 FROM stores WHERE store_id = $1 FOR UPDATE", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?;
    let Some(row) = tx.query_opt("SELECT version, settings FROM store_settings WHERE store_id = $1", &[&store]).await? else {
        return Err(ApiError::Conflict("the zone reaches the registers in the store's settings: publish the settings first".into()));
    };
    let mut settings: StoreSettings = serde_json::from_value(row.get(1)).map_err(|e| ApiError::Internal(format!("stored settings: {e}")))?;
    let mut version: i64 = row.get(0);
    if settings.time_zone.as_deref() != Some(req.time_zone.as_str()) {
        settings.time_zone = Some(req.time_zone.clone());
        version = super::catalog::take_versions(&tx, store, 1).await?;
        let doc = serde_json::to_value(&settings).map_err(|e| ApiError::Internal(e.to_string()))?;
        tx.execute("UPDATE store_settings SET version = $2, settings = $3, updated_ms = $4 WHERE store_id = $1", &[&store, &version, &doc, &now_ms()]).await?;
    }
    tx.execute("UPDATE stores SET time_zone = $2 WHERE store_id = $1", &[&store, &req.time_zone]).await?;
    tx.commit().await?;
    Ok(Json(json!({"store_id": store, "time_zone": req.time_zone, "version": version})))
}
