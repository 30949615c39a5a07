//! A replacement register reads its predecessor's history (record 0048):
//! `GET /v1/restore/source?from=<name or id>` names the predecessor and how far its
//! history goes; `GET /v1/restore/rows?from=<id>&after=N&limit=M` pages it by seq.
//!
//! Only a register of the caller's own store, and only one the owner marked replaced:
//! its token is refused from then on, so the history read is final, and a live register's
//! books are never copied to another machine. Every query is keyed by the caller's store.
use super::{authenticate, RegisterId};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::Json;
use paydesk_sync_proto::limits::MAX_TEXT_LEN;
use paydesk_sync_proto::{Fact, JournalRow, RestorePage, RestoreSource, MAX_RESTORE_PAGE, PROTOCOL_VERSION};
use serde::Deserialize;
use uuid::Uuid;

#[derive(Deserialize)]
pub struct SourceQuery {
    from: Option<String>,
}

#[derive(Deserialize)]
pub struct RowsQuery {
    from: Option<String>,
    after: Option<String>,
    limit: Option<String>,
}

/// The predecessor named by `from` (its id, or its name when one replaced register of the
/// store has it), checked replaced and not the caller. Each refusal has its own code, so
/// a register's screen says which without reading the words (record 0048).
async fn resolve(client: &tokio_postgres::Client, me: RegisterId, from: Option<&str>) -> ApiResult<RestoreSource> {
    let from = from.map(str::trim).unwrap_or("");
    if from.is_empty() || from.chars().count() > MAX_TEXT_LEN || from.chars().any(char::is_control) {
        return Err(ApiError::BadRequest(format!("from must name the replaced register (its id or name, 1 to {MAX_TEXT_LEN} characters)")));
    }
    const COLS: &str = "register_id, name, replaced_ms, acked_through, queued, offline_waiting, last_sync_ms";
    let rows = match Uuid::parse_str(from) {
        Ok(id) => client.query(&format!("SELECT {COLS} FROM registers WHERE store_id = $1 AND register_id = $2"), &[&me.store_id, &id]).await?,
        // by name: only replaced ones (a replacement usually takes its predecessor's name)
        Err(_) => client.query(&format!("SELECT {COLS} FROM registers WHERE store_id = $1 AND name = $2 AND replaced_ms IS NOT NULL ORDER BY replaced_ms LIMIT 10"), &[&me.store_id, &from]).await?,
    };
    let r = match rows.as_slice() {
        [] => return Err(ApiError::NotFound(format!("no replaced register {from:?} in this register's store"))),
        [one] => one,
        many => {
            let ids: Vec<String> = many.iter().map(|r| r.get::<_, Uuid>(0).to_string()).collect();
            return Err(ApiError::AmbiguousName(format!("{} replaced registers of this store are named {from:?}; name one by id: {}", many.len(), ids.join(", "))));
        }
    };
    let id: Uuid = r.get(0);
    if id == me.register_id {
        return Err(ApiError::RestoreFromItself);
    }
    let Some(replaced_ms) = r.get::<_, Option<i64>>(2) else {
        return Err(ApiError::RegisterInService(format!("register {id} is still in service; the store's owner marks it replaced before its history can be restored elsewhere")));
    };
    Ok(RestoreSource {
        v: PROTOCOL_VERSION,
        register_id: id.to_string(),
        register_name: r.get(1),
        replaced_ms,
        acked_through: r.get::<_, i64>(3) as u64,
        queued_at_last_sync: r.get::<_, i64>(4).max(0) as u64,
        offline_waiting_at_last_sync: r.get::<_, i64>(5).max(0) as u64,
        last_sync_ms: r.get(6),
    })
}

pub async fn source(State(st): State<AppState>, headers: HeaderMap, Query(q): Query<SourceQuery>) -> ApiResult<Json<RestoreSource>> {
    let client = st.pool.get().await?;
    let me = authenticate(&client, &headers).await?;
    Ok(Json(resolve(&client, me, q.from.as_deref()).await?))
}

fn number(field: &str, v: Option<&str>, default: u64, max: u64) -> ApiResult<u64> {
    match v {
        None => Ok(default),
        Some(s) => s.parse::<u64>().ok().filter(|n| *n <= max).ok_or_else(|| ApiError::BadRequest(format!("{field} must be a whole number from 0 to {max}, got {s:?}"))),
    }
}

pub async fn rows(State(st): State<AppState>, headers: HeaderMap, Query(q): Query<RowsQuery>) -> ApiResult<Json<RestorePage>> {
    let client = st.pool.get().await?;
    let me = authenticate(&client, &headers).await?;
    let after = number("after", q.after.as_deref(), 0, paydesk_sync_proto::limits::MAX_SEQ)?;
    let limit = number("limit", q.limit.as_deref(), MAX_RESTORE_PAGE as u64, MAX_RESTORE_PAGE as u64)?;
    if limit == 0 {
        return Err(ApiError::BadRequest(format!("limit must be 1 to {MAX_RESTORE_PAGE}")));
    }
    let src = resolve(&client, me, q.from.as_deref()).await?;
    let id = Uuid::parse_str(&src.register_id).map_err(|e| ApiError::Internal(e.to_string()))?;
    // This register now holds (some of) the predecessor's history: from here on it may give
    // back the predecessor's sales (record 0144), and no other register's.
    client
        .execute(
            "INSERT INTO register_restores (store_id, register_id, source_register_id, first_read_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING",
            &[&me.store_id, &me.register_id, &id, &crate::clock::now_ms()],
        )
        .await?;
    let found = client
        .query(
            "SELECT seq, at_ms, fact FROM journal WHERE store_id = $1 AND register_id = $2 AND seq > $3 ORDER BY seq LIMIT $4",
            &[&me.store_id, &id, &(after as i64), &(limit as i64)],
        )
        .await?;
    let mut rows = Vec::with_capacity(found.len());
    for r in &found {
        let seq: i64 = r.get(0);
        let fact: Fact = serde_json::from_value(r.get(2)).map_err(|e| ApiError::Internal(format!("stored fact at seq {seq}: {e}")))?;
        rows.push(JournalRow { seq: seq as u64, at_ms: r.get(1), fact });
    }
    Ok(Json(RestorePage { v: PROTOCOL_VERSION, register_id: src.register_id, after, rows }))
}
