//! `POST /admin/stores/{store}/owed/{id}/approve`: a second person approves a proposed
//! refund (record 0142): a manager or owner of the store's published staff, proving it with
//! their PIN, and never the person who proposed it (409 `same_person`).
use super::person::{prove, Claim};
use super::{load, parse_id, refused, Op, Owed, OwedState, COLUMNS};
use crate::admin::{json_body, parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, source, AppState};
use axum::extract::{Path, State};
use axum::http::{Extensions, HeaderMap};
use axum::Json;
use paydesk_access::Role;
use serde_json::Value;
use uuid::Uuid;

/// Before the PSP is ever asked: the exception must still be open. If someone (or a later
/// reconciliation run: the register's record arrived after all) resolved it, nothing is
/// owed any more; the refund is withdrawn (failed, with why) and this is 409.
pub async fn still_open(tx: &deadpool_postgres::Transaction<'_>, store: Uuid, o: &Owed) -> ApiResult<()> {
    let ex = tx.query_one("SELECT resolved_by, resolution FROM recon_exceptions WHERE store_id = $1 AND exception_id = $2", &[&store, &o.exception_id]).await?;
    let Some(by) = ex.get::<_, Option<String>>(0) else {
        return Ok(());
    };
    debug_assert!(!o.state.psp_asked(), "only a refund the PSP was never asked about can be withdrawn");
    let why = format!("withdrawn: exception resolved by {by} before the refund was executed ({})", ex.get::<_, Option<String>>(1).unwrap_or_default());
    let why: String = why.chars().take(1000).collect();
    tx.execute("UPDATE owed_refunds SET state = 'failed', last_error = $3, finished_ms = $4 WHERE store_id = $1 AND owed_id = $2", &[&store, &o.owed_id, &why, &now_ms()]).await?;
    Err(ApiError::Refused { code: "exception_resolved", message: why })
}

pub async fn approve(
    State(st): State<AppState>,
    headers: HeaderMap,
    ext: Extensions,
    Path((store, id)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let id = parse_id(&id, "owed refund")?;
    let claim: Claim = json_body(&body)?;
    let first = load(&st.pool.get().await?, store, id, false).await?;
    if claim.by.trim() == first.proposed_by {
        return Err(ApiError::Refused { code: "same_person", message: format!("{} proposed this refund; a second person must approve it", first.proposed_by) });
    }
    let by = prove(&st, source(&ext), store, &claim, Role::Manager).await?;
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    let o = load(&tx, store, id, true).await?;
    if !Op::Approve.allows(o.state) {
        return Err(refused(Op::Approve, o.state));
    }
    if let Err(e) = still_open(&tx, store, &o).await {
        tx.commit().await?;
        return Err(e);
    }
    let row = tx
        .query_one(
            &format!("UPDATE owed_refunds SET state = 'approved', approved_by = $3, approved_ms = $4 WHERE store_id = $1 AND owed_id = $2 RETURNING {COLUMNS}"),
            &[&store, &id, &by, &now_ms()],
        )
        .await?;
    let o = Owed::from_row(&row)?;
    tx.commit().await?;
    debug_assert_eq!(o.state, OwedState::Approved);
    Ok(Json(o.to_json()))
}
