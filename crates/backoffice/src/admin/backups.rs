//! The owner's list of the registers' sealed copies (record 0150): ids, sizes, hashes and
//! times; never their contents, which only a register's key opens.
use super::{parse_store, require_owner};
use crate::error::ApiResult;
use crate::state::AppState;
use crate::sync::backups::listed;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use paydesk_sync_proto::backup::BackupList;
use paydesk_sync_proto::PROTOCOL_VERSION;

/// `GET /admin/stores/{store}/backups`: every register's whole copies, newest first.
pub async fn owner_list(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>) -> ApiResult<Json<BackupList>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let client = st.pool.get().await?;
    Ok(Json(BackupList { v: PROTOCOL_VERSION, backups: listed(&client, store, None, None).await? }))
}
