//! Reconciliation from the owner's side: start a run, resolve an exception with a reason.
use super::{json_body, parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use crate::recon::run::{reconcile, Summary};
use crate::state::{now_ms, AppState};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

pub async fn run(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>) -> ApiResult<Json<Summary>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    Ok(Json(reconcile(&st, store).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Resolve {
    by: String,
    reason: String,
}

/// A person closes an exception, saying who and why; a closed one stays closed.
pub async fn resolve(State(st): State<AppState>, headers: HeaderMap, Path((store, id)): Path<(String, String)>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let id = uuid::Uuid::parse_str(&id).map_err(|_| ApiError::NotFound(format!("no exception {id:?}")))?;
    let req: Resolve = json_body(&body)?;
    let (by, reason) = (req.by.trim(), req.reason.trim());
    if by.is_empty() || by.chars().count() > 100 || by.chars().any(char::is_control) {
        return Err(ApiError::BadRequest("by (who resolves it) must be 1 to 100 characters".into()));
    }
    if reason.chars().count() < 3 || reason.chars().count() > 1000 || reason.chars().any(|c| c.is_control() && c != '\n') {
        return Err(ApiError::BadRequest("reason must be 3 to 1000 characters".into()));
    }
    let client = st.pool.get().await?;
    let n = client
        .execute(
            "UPDATE recon_exceptions SET resolved_ms = $3, resolved_by = $4, resolution = $5 WHERE store_id = $1 AND exception_id = $2 AND resolved_ms IS NULL",
            &[&store, &id, &now_ms(), &by, &reason],
        )
        .await?;
    if n == 0 {
        return match client.query_opt("SELECT resolved_by FROM recon_exceptions WHERE store_id = $1 AND exception_id = $2", &[&store, &id]).await? {
            Some(r) => Err(ApiError::Conflict(format!("already resolved by {}", r.get::<_, String>(0)))),
            None => Err(ApiError::NotFound(format!("no exception {id} in store {store}"))),
        };
    }
    Ok(Json(json!({"exception_id": id, "resolved_by": by})))
}
