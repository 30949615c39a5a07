//! `GET /v1/sync/changes?since=N&kinds=settings,item,tax,staff`: what a register must
//! apply to catch up with its store (record 0049, 0050). Every change carries its own number of
//! the store's sequence; the answer lists those after `since` in order, at most one page
//! of items, and says where it ends. The register applies them idempotently and keeps
//! its last copy while the back office is away.
use super::authenticate;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::Json;
use paydesk_sync_proto::catalog::MAX_ITEMS_PER_PUBLISH;
use paydesk_sync_proto::{Change, ChangeKind, Changes, Item, StaffMember, StaffRole, StoreSettings, StoreTax, PROTOCOL_VERSION};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Since {
    since: Option<String>,
    kinds: Option<String>,
}

fn stored<T: serde::de::DeserializeOwned>(what: &str, v: serde_json::Value) -> ApiResult<T> {
    serde_json::from_value(v).map_err(|e| ApiError::Internal(format!("stored {what}: {e}")))
}

pub async fn changes(State(st): State<AppState>, headers: HeaderMap, Query(q): Query<Since>) -> ApiResult<Json<Changes>> {
    let asked: u64 = match q.since.as_deref() {
        None => 0,
        Some(s) => s.parse().map_err(|_| ApiError::BadRequest(format!("since must be a version number (0 or more), got {s:?}")))?,
    };
    // A register that names no kinds predates the catalog: settings only (record 0049).
    let kinds = match q.kinds.as_deref() {
        None => vec![ChangeKind::Settings],
        Some(k) => ChangeKind::parse_list(k)?,
    };
    let mut client = st.pool.get().await?;
    let reg = authenticate(&client, &headers).await?;
    // What the register says it has applied, for the owner's publishing preview (record
    // 0147). A register ahead of the store is told to start again from 0 (below), so the
    // version recorded is the one it is answered from: never more than it has applied.
    let current_now: i64 = client.query_one("SELECT published_version FROM stores WHERE store_id = $1", &[&reg.store_id]).await?.get(0);
    let recorded = if asked > current_now as u64 { 0 } else { asked as i64 };
    let named: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    client
        .execute(
            "UPDATE registers SET changes_since = $3, changes_kinds = $4, changes_asked_ms = $5 WHERE store_id = $1 AND register_id = $2",
            &[&reg.store_id, &reg.register_id, &recorded, &named.join(","), &crate::state::now_ms()],
        )
        .await?;
    // One snapshot for every read: the sequence and the rows agree.
    let tx = client.build_transaction().isolation_level(tokio_postgres::IsolationLevel::RepeatableRead).read_only(true).start().await?;
    let current = tx.query_one("SELECT published_version FROM stores WHERE store_id = $1", &[&reg.store_id]).await?.get::<_, i64>(0) as u64;
    // A register ahead of us (the back office restored from an older backup) gets the
    // whole current copy: the published version is the truth, whatever it holds.
    let since = if asked > current { 0 } else { asked };
    let after = since as i64;
    let mut list: Vec<Change> = Vec::new();
    if kinds.contains(&ChangeKind::Settings) {
        if let Some(r) = tx.query_opt("SELECT version, settings FROM store_settings WHERE store_id = $1 AND version > $2", &[&reg.store_id, &after]).await? {
            let settings: StoreSettings = stored("settings", r.get(1))?;
            list.push(Change::Settings { version: r.get::<_, i64>(0) as u64, settings });
        }
    }
    if kinds.contains(&ChangeKind::Tax) {
        if let Some(r) = tx.query_opt("SELECT version, tax FROM store_tax WHERE store_id = $1 AND version > $2", &[&reg.store_id, &after]).await? {
            let tax: StoreTax = stored("tax", r.get(1))?;
            list.push(Change::Tax { version: r.get::<_, i64>(0) as u64, tax });
        }
    }
    if kinds.contains(&ChangeKind::Staff) {
        // A store has at most MAX_STORE_STAFF members: all of them fit in one answer.
        let rows = tx
            .query(
                "SELECT version, name, role, active, pin_hash FROM store_staff WHERE store_id = $1 AND version > $2 ORDER BY version",
                &[&reg.store_id, &after],
            )
            .await?;
        for r in rows {
            let name: String = r.get(2);
            let role = StaffRole::parse(&name).ok_or_else(|| ApiError::Internal(format!("stored staff role {name:?}")))?;
            let member = StaffMember { name: r.get(1), role, active: r.get(3), pin_hash: r.get(4) };
            list.push(Change::Staff { version: r.get::<_, i64>(0) as u64, member });
        }
    }
    let mut end = current;
    let mut more = false;
    if kinds.contains(&ChangeKind::Item) {
        let page = MAX_ITEMS_PER_PUBLISH as i64;
        let rows = tx
            .query(
                "SELECT version, item FROM catalog_items WHERE store_id = $1 AND version > $2 ORDER BY version LIMIT $3",
                &[&reg.store_id, &after, &(page + 1)],
            )
            .await?;
        more = rows.len() as i64 > page;
        for r in rows.iter().take(page as usize) {
            let item: Item = stored("item", r.get(1))?;
            list.push(Change::Item { version: r.get::<_, i64>(0) as u64, item });
        }
        if more {
            // Cut after the page's last item; later documents come with the next page.
            end = list.iter().filter(|c| matches!(c, Change::Item { .. })).map(Change::version).max().unwrap_or(current);
        }
    }
    tx.commit().await?;
    list.retain(|c| c.version() <= end);
    list.sort_by_key(Change::version);
    Ok(Json(Changes { v: PROTOCOL_VERSION, since, version: end, changes: list, more }))
}
