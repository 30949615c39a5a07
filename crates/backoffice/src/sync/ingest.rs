//! `POST /v1/sync/batches`: one batch, one transaction (record 0040).
//!
//! The register's row lock serializes its batches; rows at or below `acked_through` are
//! already stored (a redelivery: compared, not applied again); a batch that starts past
//! `acked_through + 1` is held until the gap fills; a batch that continues the sequence is
//! applied, then every held batch it makes contiguous. The answer names the highest
//! contiguous seq stored: the register drops its outbox rows up to there, never further.
use super::project::apply_rows;
use super::{authenticate, RegisterId};
use crate::auth::sha256;
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, AppState};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use paydesk_sync_proto::limits::MAX_KEY_LEN;
use paydesk_sync_proto::{Ack, AuditHead, Batch, Row, PROTOCOL_VERSION};
use futures_util::future::{join, join3};
use std::future::Future;
use tokio_postgres::types::Type;
use super::cached::Tx as Transaction;

fn idempotency_key(headers: &HeaderMap) -> ApiResult<String> {
    let mut all = headers.get_all("idempotency-key").iter();
    let (Some(v), None) = (all.next(), all.next()) else {
        return Err(ApiError::BadRequest("exactly one Idempotency-Key header is required".into()));
    };
    let k = v.to_str().map_err(|_| ApiError::BadRequest("Idempotency-Key must be printable ASCII".into()))?;
    if k.is_empty() || k.len() > MAX_KEY_LEN || !k.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ApiError::BadRequest(format!("Idempotency-Key must be 1 to {MAX_KEY_LEN} printable ASCII characters")));
    }
    Ok(k.to_string())
}

pub async fn post_batch(State(st): State<AppState>, headers: HeaderMap, body: axum::body::Bytes) -> ApiResult<Json<Ack>> {
    let mut client = st.pool.get().await?;
    let reg = authenticate(&client, &headers).await?;
    let key = idempotency_key(&headers)?;
    let batch: Batch = serde_json::from_slice(&body).map_err(|e| ApiError::Proto { code: "malformed_batch", message: format!("not a batch: {e}") })?;
    batch.validate()?;
    super::rules::check_times(batch.first_seq, &batch.rows, now_ms())?;
    if batch.register_id != reg.register_id.to_string() {
        return Err(ApiError::Forbidden(format!("this token is register {}'s; a register sends only its own rows (batch names {})", reg.register_id, batch.register_id)));
    }
    let tx = super::cached::Tx::begin(&mut client).await?;
    // The lock, the key's insert and whether any batch waits behind a gap in one round trip
    // (record 0149): the insert and the read run after the lock is held (the read in its own
    // statement, so it sees a batch held by whoever had the lock before), and their answers
    // are looked at only once the lock's was. Batches are held only under this lock.
    let hash = sha256(&body);
    let (locked, key_stored, any_held) = join3(
        one(
            &tx,
            "SELECT acked_through, replaced_ms FROM registers WHERE store_id = $1 AND register_id = $2 FOR UPDATE",
            &[(&reg.store_id, Type::UUID), (&reg.register_id, Type::UUID)],
        ),
        insert_key(&tx, reg, &key, &hash, batch.first_seq as i64),
        one(
            &tx,
            "SELECT EXISTS (SELECT 1 FROM held_batches WHERE store_id = $1 AND register_id = $2)",
            &[(&reg.store_id, Type::UUID), (&reg.register_id, Type::UUID)],
        ),
    )
    .await;
    let locked = locked?;
    // Checked again under the lock: a batch racing the owner's replacement is refused,
    // so the history a replacement restores is final (record 0048).
    if locked.get::<_, Option<i64>>(1).is_some() {
        return Err(ApiError::RegisterReplaced { register_id: reg.register_id });
    }
    let acked: i64 = locked.get(0);
    let key_stored = key_stored?;
    let any_held: bool = any_held?.get(0);
    check_key(&tx, reg, &key, &hash, key_stored).await?;
    let (first, last) = (batch.first_seq as i64, batch.last_seq() as i64);
    if batch.first_seq > acked as u64 + 1 + st.limits.max_seq_ahead {
        return Err(ApiError::Unprocessable(format!(
            "first_seq {first} is more than {} past the acknowledged seq {acked}: not from this register's outbox",
            st.limits.max_seq_ahead
        )));
    }
    compare_stored(&tx, reg, first, &batch.rows, acked).await?;
    let (mut new_acked, mut applied, mut held, mut audit) = (acked, 0u64, false, None);
    if first > acked + 1 {
        hold(&tx, reg, &batch, st.limits.max_held_batches).await?;
        held = true;
    } else if last > acked && !any_held {
        // Nothing to release after it: the ack is known before the run is applied, so the
        // health goes out with the run (one round trip for a payments-only batch) and is
        // answered only once the run's rules accepted it.
        let (n, health) = apply_from(&tx, reg, first, &batch.rows, acked, health(&tx, reg, last, &batch)).await?;
        (new_acked, applied, audit) = (last, n, Some(health?));
    } else if last > acked {
        applied += apply_from(&tx, reg, first, &batch.rows, acked, std::future::ready(())).await?.0;
        new_acked = last;
        (new_acked, applied) = release_held(&tx, reg, new_acked, applied).await?;
    }
    let audit = match audit {
        Some(a) => a,
        None => health(&tx, reg, new_acked, &batch).await?,
    };
    // Its rows sent again with another content (record 0146): after the report, whose break
    // names the cause first (a deleted tail written again is "went backwards").
    super::audit_rows::check_resent(&tx, reg, &batch.rows).await?;
    tx.commit().await?;
    Ok(Json(Ack { v: PROTOCOL_VERSION, acked_through: new_acked as u64, held, applied, audit }))
}

/// One row of a cached statement's answer (`query_typed_one`'s error when there is none).
async fn one(tx: &Transaction<'_>, sql: &str, params: &[super::cached::Param<'_>]) -> Result<tokio_postgres::Row, tokio_postgres::Error> {
    let mut rows = super::cached::query(tx, sql, params).await?;
    match rows.len() {
        1 => Ok(rows.pop().expect("one row")),
        // the same error `query_typed_one` gives (`Error::row_count` is not public)
        _ => tx.query_typed_one("SELECT 1 WHERE false", &[]).await,
    }
}

/// The register's health and acknowledged seq, and its audit report (record 0053: checked
/// against the head confirmed before), in one round trip when the report is absent (the
/// report's own statements follow the update in order; its answers after the update's).
async fn health(tx: &Transaction<'_>, reg: RegisterId, acked: i64, batch: &Batch) -> ApiResult<Option<AuditHead>> {
    let (queued, waiting, now) = (batch.health.queued.min(i64::MAX as u64) as i64, batch.health.offline_waiting.min(i64::MAX as u64) as i64, now_ms());
    let (updated, audit) = join(
        super::cached::execute(
            tx,
            "UPDATE registers SET acked_through = $3, app_version = $4, queued = $5, offline_waiting = $6, last_sync_ms = $7
             WHERE store_id = $1 AND register_id = $2",
            &[
                (&reg.store_id, Type::UUID),
                (&reg.register_id, Type::UUID),
                (&acked, Type::INT8),
                (&batch.health.app_version, Type::TEXT),
                (&queued, Type::INT8),
                (&waiting, Type::INT8),
                (&now, Type::INT8),
            ],
        ),
        super::audit_head::record(tx, reg, batch.health.audit.as_ref()),
    )
    .await;
    updated?;
    audit
}

/// Stores the batch's key with its body's hash unless the key is already stored; the rows
/// inserted (0 or 1) for [`check_key`].
async fn insert_key(tx: &Transaction<'_>, reg: RegisterId, key: &str, hash: &[u8], first: i64) -> Result<u64, tokio_postgres::Error> {
    let now = now_ms();
    super::cached::execute(
        tx,
        "INSERT INTO batch_keys (store_id, register_id, idem_key, body_sha256, first_seq, received_ms) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (store_id, register_id, idem_key) DO NOTHING",
        &[(&reg.store_id, Type::UUID), (&reg.register_id, Type::UUID), (&key, Type::TEXT), (&hash, Type::BYTEA), (&first, Type::INT8), (&now, Type::INT8)],
    )
    .await
}

/// The same Idempotency-Key with a different body is a client bug: refused, not guessed.
async fn check_key(tx: &Transaction<'_>, reg: RegisterId, key: &str, hash: &[u8], inserted: u64) -> ApiResult<()> {
    if inserted == 0 {
        let stored: Vec<u8> = tx
            .query_one("SELECT body_sha256 FROM batch_keys WHERE store_id = $1 AND register_id = $2 AND idem_key = $3", &[&reg.store_id, &reg.register_id, &key])
            .await?
            .get(0);
        if stored != hash {
            return Err(ApiError::Unprocessable("this Idempotency-Key was used for a different batch; a new batch needs a new key".into()));
        }
    }
    Ok(())
}

/// Rows this register already delivered must come again unchanged: a seq that changes
/// meaning would mean two different histories, and the stored one stands.
async fn compare_stored(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row], acked: i64) -> ApiResult<()> {
    let upto = (first + rows.len() as i64 - 1).min(acked);
    if first > upto {
        return Ok(());
    }
    let stored = tx
        .query_typed(
            "SELECT seq, at_ms, fact FROM journal WHERE store_id = $1 AND register_id = $2 AND seq BETWEEN $3 AND $4 ORDER BY seq",
            &[(&reg.store_id, Type::UUID), (&reg.register_id, Type::UUID), (&first, Type::INT8), (&upto, Type::INT8)],
        )
        .await?;
    for r in stored {
        let seq: i64 = r.get(0);
        let row = &rows[(seq - first) as usize];
        let fact = serde_json::to_value(&row.fact).map_err(|e| ApiError::Internal(e.to_string()))?;
        if r.get::<_, i64>(1) != row.at_ms || r.get::<_, serde_json::Value>(2) != fact {
            return Err(ApiError::Conflict(format!("seq {seq} is already stored with different content; the stored row stands")));
        }
    }
    Ok(())
}

/// Applies the rows of a batch starting at `first` whose seq is past `acked`, then `tail`
/// ([`apply_rows`]).
async fn apply_from<T>(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row], acked: i64, tail: impl Future<Output = T>) -> ApiResult<(u64, T)> {
    let skip = (acked + 1 - first).clamp(0, rows.len() as i64) as usize;
    apply_rows(tx, reg, first + skip as i64, &rows[skip..], tail).await
}

/// Stores a batch that starts past a gap; a longer resend of the same start replaces it.
async fn hold(tx: &Transaction<'_>, reg: RegisterId, batch: &Batch, max_held: i64) -> ApiResult<()> {
    let first = batch.first_seq as i64;
    let exists = tx
        .query_opt("SELECT 1 FROM held_batches WHERE store_id = $1 AND register_id = $2 AND first_seq = $3", &[&reg.store_id, &reg.register_id, &first])
        .await?
        .is_some();
    if !exists {
        let count: i64 = tx.query_one("SELECT count(*) FROM held_batches WHERE store_id = $1 AND register_id = $2", &[&reg.store_id, &reg.register_id]).await?.get(0);
        if count >= max_held {
            return Err(ApiError::TooMany(format!("{count} batches of this register already wait behind a gap; send the missing rows first")));
        }
    }
    let rows = serde_json::to_value(&batch.rows).map_err(|e| ApiError::Internal(e.to_string()))?;
    tx.execute(
        "INSERT INTO held_batches (store_id, register_id, first_seq, last_seq, rows, received_ms) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (store_id, register_id, first_seq) DO UPDATE SET last_seq = excluded.last_seq, rows = excluded.rows
         WHERE held_batches.last_seq < excluded.last_seq",
        &[&reg.store_id, &reg.register_id, &first, &(batch.last_seq() as i64), &rows, &now_ms()],
    )
    .await?;
    Ok(())
}

/// Applies, in seq order, every held batch that the sequence now reaches.
async fn release_held(tx: &Transaction<'_>, reg: RegisterId, mut acked: i64, mut applied: u64) -> ApiResult<(i64, u64)> {
    loop {
        let next = tx
            .query_typed_opt(
                "DELETE FROM held_batches WHERE (store_id, register_id, first_seq) IN
                   (SELECT store_id, register_id, first_seq FROM held_batches
                    WHERE store_id = $1 AND register_id = $2 AND first_seq <= $3 ORDER BY first_seq LIMIT 1)
                 RETURNING first_seq, last_seq, rows",
                &[(&reg.store_id, Type::UUID), (&reg.register_id, Type::UUID), (&(acked + 1), Type::INT8)],
            )
            .await?;
        let Some(h) = next else { return Ok((acked, applied)) };
        let (first, last): (i64, i64) = (h.get(0), h.get(1));
        if last <= acked {
            continue;
        }
        let rows: Vec<Row> = serde_json::from_value(h.get(2)).map_err(|e| ApiError::Internal(format!("held batch at {first}: {e}")))?;
        if let Err(e) = compare_stored(tx, reg, first, &rows, acked).await {
            // the register will send those seqs again; the stored history stands
            tracing::error!(store = %reg.store_id, register = %reg.register_id, "held batch at {first} dropped: {e}");
            continue;
        }
        applied += apply_from(tx, reg, first, &rows, acked, std::future::ready(())).await?.0;
        acked = last;
    }
}
