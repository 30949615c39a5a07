//! Registers' encrypted copies of their ledgers (record 0150). The back office stores
//! ciphertext it cannot read, checks its size and SHA-256, keeps the newest few per
//! register, lists them for the owner, and gives them back to the register that sent
//! them, or to a replacement in the same store once the owner marked the sender replaced
//! (the rule of record 0048: a live register's books are never handed to another machine).
//!
//! Stored as bytea chunks in PostgreSQL, not files: a copy and its chunks are written in
//! transactions with the rows that describe them, pruned with one DELETE (the chunks
//! cascade), and travel with the database's own backups; the back office has no data
//! folder of its own to keep in step.
use super::{authenticate, RegisterId};
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, AppState};
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::Engine;
use paydesk_sync_proto::backup::{chunk_count, chunk_len, BackupChunk, BackupInfo, BackupList, BackupStart, BackupUpload, MAX_BACKUPS_LISTED, MAX_BACKUP_BYTES_CEILING};
use paydesk_sync_proto::{check_version, PROTOCOL_VERSION};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use uuid::Uuid;

fn body<T: serde::de::DeserializeOwned>(b: &[u8]) -> ApiResult<T> {
    serde_json::from_slice(b).map_err(|e| ApiError::BadRequest(format!("malformed body: {e}")))
}

fn backup_id(s: &str) -> ApiResult<Uuid> {
    Uuid::parse_str(s).map_err(|_| ApiError::NotFound(format!("no copy {s:?}")))
}

fn chunk_no(s: &str, chunks: u64) -> ApiResult<u64> {
    s.parse::<u64>().ok().filter(|n| *n < chunks).ok_or_else(|| ApiError::BadRequest(format!("chunk must be a whole number from 0 to {}, got {s:?}", chunks.saturating_sub(1))))
}

/// The sender's own copy `id` (any state): its bytes and whether it is whole.
async fn own(client: &tokio_postgres::Client, me: RegisterId, id: Uuid) -> ApiResult<(u64, bool)> {
    let row = client
        .query_opt("SELECT bytes, completed_ms IS NOT NULL FROM register_backups WHERE store_id = $1 AND backup_id = $2 AND register_id = $3", &[&me.store_id, &id, &me.register_id])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no copy {id} of this register")))?;
    Ok((row.get::<_, i64>(0) as u64, row.get(1)))
}

/// `POST /v1/backups`: declares a copy, or finds the one declared with the same hash and
/// says how far its upload got (a resumed upload sends from there).
pub async fn start(State(st): State<AppState>, headers: HeaderMap, b: Bytes) -> ApiResult<Json<BackupUpload>> {
    let client = st.pool.get().await?;
    let me = authenticate(&client, &headers).await?;
    let req: BackupStart = body(&b)?;
    req.validate()?;
    let max = st.limits.backups.max_bytes.min(MAX_BACKUP_BYTES_CEILING);
    if req.bytes > max {
        return Err(ApiError::BackupTooLarge { bytes: req.bytes, max });
    }
    let sha = hex::decode(&req.sha256).map_err(|e| ApiError::Internal(e.to_string()))?;
    let chunks = req.chunks();
    let found = client
        .query_opt(
            "SELECT backup_id, bytes, completed_ms IS NOT NULL FROM register_backups WHERE store_id = $1 AND register_id = $2 AND sha256 = $3",
            &[&me.store_id, &me.register_id, &sha],
        )
        .await?;
    if let Some(r) = found {
        let id: Uuid = r.get(0);
        if r.get::<_, i64>(1) as u64 != req.bytes {
            return Err(ApiError::Conflict(format!("copy {id} has this hash and another size")));
        }
        if r.get::<_, bool>(2) {
            return Ok(Json(BackupUpload { v: PROTOCOL_VERSION, backup_id: id.to_string(), chunks, next_chunk: chunks, complete: true }));
        }
        let held = client.query("SELECT n FROM register_backup_chunks WHERE store_id = $1 AND backup_id = $2 ORDER BY n", &[&me.store_id, &id]).await?;
        // the first chunk missing: an upload goes in order, so that is where it stopped
        let next = held.iter().map(|r| r.get::<_, i32>(0) as u64).enumerate().find(|(i, n)| *i as u64 != *n).map_or(held.len() as u64, |(i, _)| i as u64);
        return Ok(Json(BackupUpload { v: PROTOCOL_VERSION, backup_id: id.to_string(), chunks, next_chunk: next, complete: false }));
    }
    let id = Uuid::new_v4();
    let mut client = client;
    let tx = client.transaction().await?;
    // one upload in progress per register: a new copy replaces one never completed
    tx.execute("DELETE FROM register_backups WHERE store_id = $1 AND register_id = $2 AND completed_ms IS NULL", &[&me.store_id, &me.register_id]).await?;
    let inserted = tx
        .execute(
            "INSERT INTO register_backups (store_id, backup_id, register_id, bytes, sha256, taken_ms, started_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT DO NOTHING",
            &[&me.store_id, &id, &me.register_id, &(req.bytes as i64), &sha, &req.taken_ms, &now_ms()],
        )
        .await?;
    if inserted != 1 {
        // the same copy declared at the same moment by a retry: it starts over from there
        return Err(ApiError::Conflict("this copy is being declared by another request; retry".into()));
    }
    tx.commit().await?;
    Ok(Json(BackupUpload { v: PROTOCOL_VERSION, backup_id: id.to_string(), chunks, next_chunk: 0, complete: false }))
}

/// `PUT /v1/backups/{id}/chunks/{n}`: chunk `n` of the sender's copy being uploaded, of
/// exactly the length its place in the copy gives. A chunk sent again replaces the one held
/// (the hash check at completion decides what the copy is).
pub async fn put_chunk(State(st): State<AppState>, headers: HeaderMap, Path((id, n)): Path<(String, String)>, b: Bytes) -> ApiResult<Json<serde_json::Value>> {
    let client = st.pool.get().await?;
    let me = authenticate(&client, &headers).await?;
    let id = backup_id(&id)?;
    let (bytes, complete) = own(&client, me, id).await?;
    let n = chunk_no(&n, chunk_count(bytes))?;
    let req: BackupChunk = body(&b)?;
    check_version(req.v)?;
    if complete {
        return Err(ApiError::Refused { code: "backup_complete", message: format!("copy {id} is already whole") });
    }
    let data = base64::engine::general_purpose::STANDARD.decode(req.data.as_bytes()).map_err(|e| ApiError::BadRequest(format!("data is not base64: {e}")))?;
    let want = chunk_len(bytes, n);
    if data.len() as u64 != want {
        return Err(ApiError::BadRequest(format!("chunk {n} of a copy of {bytes} bytes holds {want} bytes, got {}", data.len())));
    }
    client
        .execute(
            "INSERT INTO register_backup_chunks (store_id, backup_id, n, data) VALUES ($1, $2, $3, $4)
             ON CONFLICT (store_id, backup_id, n) DO UPDATE SET data = EXCLUDED.data",
            &[&me.store_id, &id, &(n as i32), &data],
        )
        .await?;
    Ok(Json(serde_json::json!({ "v": PROTOCOL_VERSION, "chunk": n })))
}

/// `POST /v1/backups/{id}/complete`: every chunk held, hashed in order to the declared
/// SHA-256; then the copy is whole and the register's older ones past the newest N go.
/// A copy whose chunks do not hash to its declaration is deleted (409
/// `backup_hash_mismatch`): it is sent again from the start.
pub async fn complete(State(st): State<AppState>, headers: HeaderMap, Path(id): Path<String>) -> ApiResult<Json<BackupInfo>> {
    let mut client = st.pool.get().await?;
    let me = authenticate(&client, &headers).await?;
    let id = backup_id(&id)?;
    let (bytes, whole) = own(&client, me, id).await?;
    if !whole {
        let chunks = chunk_count(bytes);
        let held: i64 = client.query_one("SELECT count(*) FROM register_backup_chunks WHERE store_id = $1 AND backup_id = $2", &[&me.store_id, &id]).await?.get(0);
        if held as u64 != chunks {
            return Err(ApiError::Refused { code: "backup_incomplete", message: format!("copy {id} holds {held} of its {chunks} chunks") });
        }
        let declared: Vec<u8> = client.query_one("SELECT sha256 FROM register_backups WHERE store_id = $1 AND backup_id = $2", &[&me.store_id, &id]).await?.get(0);
        // chunk by chunk: a copy of a gigabyte is never held in memory at once
        let mut h = Sha256::new();
        for n in 0..chunks {
            let r = client.query_one("SELECT data FROM register_backup_chunks WHERE store_id = $1 AND backup_id = $2 AND n = $3", &[&me.store_id, &id, &(n as i32)]).await?;
            h.update(r.get::<_, &[u8]>(0));
        }
        if h.finalize().as_slice() != declared.as_slice() {
            client.execute("DELETE FROM register_backups WHERE store_id = $1 AND backup_id = $2", &[&me.store_id, &id]).await?;
            return Err(ApiError::Refused { code: "backup_hash_mismatch", message: format!("copy {id}: the chunks received do not hash to the SHA-256 declared; it was deleted, send it again") });
        }
        let tx = client.transaction().await?;
        tx.execute("UPDATE register_backups SET completed_ms = $3 WHERE store_id = $1 AND backup_id = $2 AND completed_ms IS NULL", &[&me.store_id, &id, &now_ms()]).await?;
        tx.execute(
            "DELETE FROM register_backups WHERE store_id = $1 AND register_id = $2 AND completed_ms IS NOT NULL AND backup_id NOT IN (
                 SELECT backup_id FROM register_backups WHERE store_id = $1 AND register_id = $2 AND completed_ms IS NOT NULL
                 ORDER BY taken_ms DESC, completed_ms DESC LIMIT $3)",
            &[&me.store_id, &me.register_id, &st.limits.backups.keep.max(1)],
        )
        .await?;
        tx.commit().await?;
    }
    let found = listed(&client, me.store_id, Some(me.register_id), Some(id)).await?;
    // pruned at once only when `keep` holds newer copies taken later, which a register does not send
    found.into_iter().next().map(Json).ok_or_else(|| ApiError::NotFound(format!("copy {id} was pruned: newer copies are kept")))
}

/// Whole copies of `store` (the owner's list in `admin/backups.rs` reads them here too) (of one register, and one copy, when named), newest first.
pub(crate) async fn listed(client: &tokio_postgres::Client, store: Uuid, register: Option<Uuid>, backup: Option<Uuid>) -> ApiResult<Vec<BackupInfo>> {
    let rows = client
        .query(
            "SELECT backup_id, register_id, bytes, sha256, taken_ms, completed_ms FROM register_backups
             WHERE store_id = $1 AND completed_ms IS NOT NULL AND ($2::uuid IS NULL OR register_id = $2) AND ($3::uuid IS NULL OR backup_id = $3)
             ORDER BY taken_ms DESC, completed_ms DESC LIMIT $4",
            &[&store, &register, &backup, &(MAX_BACKUPS_LISTED as i64)],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| BackupInfo {
            backup_id: r.get::<_, Uuid>(0).to_string(),
            register_id: r.get::<_, Uuid>(1).to_string(),
            bytes: r.get::<_, i64>(2) as u64,
            sha256: hex::encode(r.get::<_, &[u8]>(3)),
            taken_ms: r.get(4),
            received_ms: r.get(5),
        })
        .collect())
}

/// May `me` read the copies of `register`? Its own, and those of a register of its store
/// the owner marked replaced (record 0048's rule); another register in service, or one of
/// another store, is refused whatever the copy's encryption.
async fn may_read(client: &tokio_postgres::Client, me: RegisterId, register: Uuid) -> ApiResult<()> {
    if register == me.register_id {
        return Ok(());
    }
    let row = client.query_opt("SELECT replaced_ms FROM registers WHERE store_id = $1 AND register_id = $2", &[&me.store_id, &register]).await?;
    match row.map(|r| r.get::<_, Option<i64>>(0)) {
        None => Err(ApiError::NotFound(format!("no register {register} in this register's store"))),
        Some(None) => Err(ApiError::RegisterInService(format!("register {register} is still in service; only it reads its copies until the store's owner marks it replaced"))),
        Some(Some(_)) => Ok(()),
    }
}

#[derive(Deserialize)]
pub struct ListQuery {
    register: Option<String>,
}

/// `GET /v1/backups[?register=<id>]`: the whole copies of this register, or of a replaced
/// register of its store.
pub async fn list(State(st): State<AppState>, headers: HeaderMap, Query(q): Query<ListQuery>) -> ApiResult<Json<BackupList>> {
    let client = st.pool.get().await?;
    let me = authenticate(&client, &headers).await?;
    let register = match q.register.as_deref() {
        None => me.register_id,
        Some(s) => Uuid::parse_str(s.trim()).map_err(|_| ApiError::BadParameter { param: "register", message: "must be a register's id".into() })?,
    };
    may_read(&client, me, register).await?;
    Ok(Json(BackupList { v: PROTOCOL_VERSION, backups: listed(&client, me.store_id, Some(register), None).await? }))
}

/// `GET /v1/backups/{id}/chunks/{n}`: chunk `n` of a whole copy, raw octets.
pub async fn get_chunk(State(st): State<AppState>, headers: HeaderMap, Path((id, n)): Path<(String, String)>) -> ApiResult<Response> {
    let client = st.pool.get().await?;
    let me = authenticate(&client, &headers).await?;
    let id = backup_id(&id)?;
    let row = client
        .query_opt("SELECT register_id, bytes FROM register_backups WHERE store_id = $1 AND backup_id = $2 AND completed_ms IS NOT NULL", &[&me.store_id, &id])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no whole copy {id} in this register's store")))?;
    may_read(&client, me, row.get(0)).await?;
    let n = chunk_no(&n, chunk_count(row.get::<_, i64>(1) as u64))?;
    let data: Vec<u8> = client
        .query_opt("SELECT data FROM register_backup_chunks WHERE store_id = $1 AND backup_id = $2 AND n = $3", &[&me.store_id, &id, &(n as i32)])
        .await?
        .ok_or_else(|| ApiError::Internal(format!("copy {id} is whole without chunk {n}")))?
        .get(0);
    let mut resp = data.into_response();
    resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/octet-stream"));
    Ok(resp)
}
