//! Each register's audit chain as it reports it with its batches (record 0053).
//!
//! A register's chain lives in its own file, where an insider can delete the tail or
//! rewrite a row and recompute every later hash; the chain left behind verifies. What it
//! cannot rewrite is what the back office already holds: the head it confirmed. Every
//! report says the hash the register's chain holds now at the seq the back office last
//! confirmed (as the register learned it from an ack); the back office compares it with
//! its own copy:
//!
//! - no row there any more: the head **went backwards** (the tail was deleted);
//! - another hash there: the chain was **rewritten** and re-sealed;
//! - a Z report's head that differs from the one first received: **Z head changed**.
//!
//! The confirmed head moves only when the report proves the hash at exactly the current
//! confirmed seq, so a register that skips the proof (a lost ack, a forged local copy)
//! moves nothing; the ack tells it the head to prove next time. The first break is kept
//! and the confirmed head stays where it was, so the register's own verification keeps
//! naming the break too. Processing is idempotent: a batch resent with the same report,
//! or a report older than the confirmed head, changes nothing.
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use crate::state::now_ms;
use paydesk_sync_proto::audit::{hash_hex, parse_hash};
use paydesk_sync_proto::{AuditHead, AuditReport};
use serde_json::{json, Value};
use tokio_postgres::Transaction;

/// Confirmed heads kept per register (the newest); older ones are pruned.
pub const ANCHORS_KEPT: i64 = 16;

/// Why a register's chain no longer extends what it sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakKind {
    WentBackwards,
    Rewritten,
    ZHeadChanged,
}

impl BreakKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            BreakKind::WentBackwards => "went_backwards",
            BreakKind::Rewritten => "rewritten",
            BreakKind::ZHeadChanged => "z_head_changed",
        }
    }
}

fn hash32(field: &str, s: &str) -> ApiResult<[u8; 32]> {
    // validated by the batch already; a second refusal here would be a bug
    parse_hash(s).ok_or_else(|| ApiError::Internal(format!("{field} is not a SHA-256")))
}

async fn anchor_at(tx: &Transaction<'_>, reg: RegisterId, seq: i64) -> ApiResult<Option<Vec<u8>>> {
    Ok(tx
        .query_opt("SELECT hash FROM audit_anchors WHERE store_id = $1 AND register_id = $2 AND seq = $3", &[&reg.store_id, &reg.register_id, &seq])
        .await?
        .map(|r| r.get(0)))
}

pub(crate) async fn mark_broken(tx: &Transaction<'_>, reg: RegisterId, kind: BreakKind, seq: i64, detail: String) -> ApiResult<()> {
    tracing::warn!(store = %reg.store_id, register = %reg.register_id, kind = kind.as_str(), seq, "audit chain broken: {detail}");
    tx.execute(
        "UPDATE audit_heads SET broken_kind = $3, broken_seq = $4, broken_detail = $5, broken_ms = $6
         WHERE store_id = $1 AND register_id = $2 AND broken_kind IS NULL",
        &[&reg.store_id, &reg.register_id, &kind.as_str(), &seq, &detail, &now_ms()],
    )
    .await?;
    Ok(())
}

async fn confirm(tx: &Transaction<'_>, reg: RegisterId, seq: i64, hash: &[u8; 32], now: i64) -> ApiResult<()> {
    let h = hash.as_slice();
    tx.execute(
        "UPDATE audit_heads SET confirmed_seq = $3, confirmed_hash = $4, confirmed_ms = $5 WHERE store_id = $1 AND register_id = $2",
        &[&reg.store_id, &reg.register_id, &seq, &h, &now],
    )
    .await?;
    tx.execute(
        "INSERT INTO audit_anchors (store_id, register_id, seq, hash, confirmed_ms) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (store_id, register_id, seq) DO NOTHING",
        &[&reg.store_id, &reg.register_id, &seq, &h, &now],
    )
    .await?;
    tx.execute(
        "DELETE FROM audit_anchors WHERE store_id = $1 AND register_id = $2 AND seq <
           (SELECT min(seq) FROM (SELECT seq FROM audit_anchors WHERE store_id = $1 AND register_id = $2 ORDER BY seq DESC LIMIT $3) AS newest)",
        &[&reg.store_id, &reg.register_id, &ANCHORS_KEPT],
    )
    .await?;
    Ok(())
}

/// Checks a batch's audit report inside the batch's transaction (the register's row is
/// locked by it) and answers the head confirmed now. `None`: this register never
/// reported its chain (nothing to confirm).
pub async fn record(tx: &Transaction<'_>, reg: RegisterId, report: Option<&AuditReport>) -> ApiResult<Option<AuditHead>> {
    let now = now_ms();
    if let Some(r) = report {
        let head_hash = hash32("head.hash", &r.head.hash)?;
        let head_seq = r.head.seq as i64;
        let stored = tx
            .query_opt(
                "SELECT confirmed_seq, confirmed_hash, broken_kind IS NOT NULL FROM audit_heads WHERE store_id = $1 AND register_id = $2",
                &[&reg.store_id, &reg.register_id],
            )
            .await?;
        match stored {
            None => {
                // The first report: nothing earlier to check it against (trust on first
                // use, as the first pairing is).
                tx.execute(
                    "INSERT INTO audit_heads (store_id, register_id, confirmed_seq, confirmed_hash, confirmed_ms, reported_seq, reported_hash, reported_ms)
                     VALUES ($1, $2, $3, $4, $5, $3, $4, $5)",
                    &[&reg.store_id, &reg.register_id, &head_seq, &head_hash.as_slice(), &now],
                )
                .await?;
                confirm(tx, reg, head_seq, &head_hash, now).await?;
            }
            Some(row) => {
                let (confirmed_seq, broken): (i64, bool) = (row.get(0), row.get(2));
                tx.execute(
                    "UPDATE audit_heads SET reported_seq = $3, reported_hash = $4, reported_ms = $5 WHERE store_id = $1 AND register_id = $2",
                    &[&reg.store_id, &reg.register_id, &head_seq, &head_hash.as_slice(), &now],
                )
                .await?;
                if !broken {
                    check_extension(tx, reg, r, confirmed_seq, head_seq, &head_hash, now).await?;
                }
            }
        }
        check_z_heads(tx, reg, r, now).await?;
    }
    let confirmed = tx
        .query_typed_opt(
            "SELECT confirmed_seq, confirmed_hash FROM audit_heads WHERE store_id = $1 AND register_id = $2",
            &[(&reg.store_id, tokio_postgres::types::Type::UUID), (&reg.register_id, tokio_postgres::types::Type::UUID)],
        )
        .await?;
    Ok(confirmed.map(|c| {
        let hash: Vec<u8> = c.get(1);
        let hash: [u8; 32] = hash.try_into().unwrap_or([0; 32]); // the column's CHECK holds 32 bytes
        AuditHead { seq: c.get::<_, i64>(0) as u64, hash: hash_hex(&hash) }
    }))
}

/// The chain still holds, at the seq the register says the back office confirmed, the
/// hash the back office holds there; then, if that was the current confirmed seq, the
/// reported head becomes the confirmed one.
async fn check_extension(tx: &Transaction<'_>, reg: RegisterId, r: &AuditReport, confirmed_seq: i64, head_seq: i64, head_hash: &[u8; 32], now: i64) -> ApiResult<()> {
    let Some(at) = &r.at_confirmed else {
        return Ok(()); // the register holds no confirmed head yet: the ack gives it one
    };
    let seq = at.seq as i64;
    let Some(ours) = anchor_at(tx, reg, seq).await? else {
        return Ok(()); // not a head this back office confirmed (or one pruned): unproven, nothing moves
    };
    match &at.hash {
        None => {
            let detail = format!("the register's chain ends at row {head_seq}, before row {seq} it had sent and the back office confirmed");
            return mark_broken(tx, reg, BreakKind::WentBackwards, seq, detail).await;
        }
        Some(h) if hash32("at_confirmed.hash", h)?.as_slice() != ours.as_slice() => {
            let detail = format!("row {seq} now has hash {h}, not the {} the back office confirmed: rewritten and re-sealed", hex::encode(&ours));
            return mark_broken(tx, reg, BreakKind::Rewritten, seq, detail).await;
        }
        Some(_) => {}
    }
    if seq == confirmed_seq && head_seq > confirmed_seq {
        confirm(tx, reg, head_seq, head_hash, now).await?;
    }
    Ok(())
}

/// Each Z head is kept as first received; a later report with another head for the same Z
/// number, or one that contradicts a confirmed head at the same seq, is a break.
async fn check_z_heads(tx: &Transaction<'_>, reg: RegisterId, r: &AuditReport, now: i64) -> ApiResult<()> {
    for z in &r.z_heads {
        let hash = hash32("z_heads.hash", &z.hash)?;
        let seq = z.seq as i64;
        let stored = tx
            .query_one(
                "WITH ins AS (INSERT INTO audit_z_heads (store_id, register_id, z_number, seq, hash, received_ms) VALUES ($1, $2, $3, $4, $5, $6)
                              ON CONFLICT (store_id, register_id, z_number) DO NOTHING RETURNING seq, hash)
                 SELECT seq, hash FROM ins
                 UNION ALL SELECT seq, hash FROM audit_z_heads WHERE store_id = $1 AND register_id = $2 AND z_number = $3 AND NOT EXISTS (SELECT 1 FROM ins)",
                &[&reg.store_id, &reg.register_id, &z.z_number, &seq, &hash.as_slice(), &now],
            )
            .await?;
        let (first_seq, first_hash): (i64, Vec<u8>) = (stored.get(0), stored.get(1));
        if first_seq != seq || first_hash != hash {
            let detail = format!("Z report {} recorded row {first_seq} ({}) and now says row {seq} ({})", z.z_number, hex::encode(&first_hash), z.hash);
            mark_broken(tx, reg, BreakKind::ZHeadChanged, seq, detail).await?;
        } else if anchor_at(tx, reg, seq).await?.is_some_and(|a| a != hash) {
            let detail = format!("Z report {} recorded row {seq} with hash {}, not the one the back office confirmed there", z.z_number, z.hash);
            mark_broken(tx, reg, BreakKind::Rewritten, seq, detail).await?;
        }
    }
    Ok(())
}

/// One register's audit state as the owner reads it (`null` fields until it reported).
fn view(r: &tokio_postgres::Row) -> Value {
    let kind: Option<String> = r.get("broken_kind");
    let status = match (r.get::<_, Option<i64>>("confirmed_seq"), &kind) {
        (None, _) => "not_reported",
        (Some(_), None) => "intact",
        (Some(_), Some(_)) => "broken",
    };
    let hex_of = |c: &str| r.get::<_, Option<Vec<u8>>>(c).map(hex::encode);
    json!({
        "store_id": r.get::<_, uuid::Uuid>("store_id").to_string(),
        "register_id": r.get::<_, uuid::Uuid>("register_id").to_string(),
        "register": r.get::<_, String>("name"),
        "status": status,
        "confirmed_seq": r.get::<_, Option<i64>>("confirmed_seq"),
        "confirmed_hash": hex_of("confirmed_hash"),
        "confirmed_ms": r.get::<_, Option<i64>>("confirmed_ms"),
        "reported_seq": r.get::<_, Option<i64>>("reported_seq"),
        "reported_ms": r.get::<_, Option<i64>>("reported_ms"),
        "broken_kind": kind,
        "broken_seq": r.get::<_, Option<i64>>("broken_seq"),
        "broken_detail": r.get::<_, Option<String>>("broken_detail"),
        "broken_ms": r.get::<_, Option<i64>>("broken_ms"),
        "last_z_number": r.get::<_, Option<i64>>("last_z_number"),
        "last_z_seq": r.get::<_, Option<i64>>("last_z_seq"),
    })
}

const VIEW_SQL: &str = "SELECT r.store_id, r.register_id, r.name, a.confirmed_seq, a.confirmed_hash, a.confirmed_ms, a.reported_seq, a.reported_ms,
        a.broken_kind, a.broken_seq, a.broken_detail, a.broken_ms, z.z_number AS last_z_number, z.seq AS last_z_seq
 FROM registers r
 LEFT JOIN audit_heads a USING (store_id, register_id)
 LEFT JOIN LATERAL (SELECT z_number, seq FROM audit_z_heads z WHERE z.store_id = r.store_id AND z.register_id = r.register_id
                    ORDER BY z_number DESC LIMIT 1) z ON true";

/// Every register's audit state, for the dashboard's register health (at most `limit`).
pub async fn all(client: &tokio_postgres::Client, limit: i64) -> ApiResult<Vec<Value>> {
    let rows = client.query(&format!("{VIEW_SQL} ORDER BY r.name LIMIT $1"), &[&limit]).await?;
    Ok(rows.iter().map(view).collect())
}

/// One register's audit state (`GET /admin/stores/{store}/registers/{register}/audit`).
pub async fn one(client: &tokio_postgres::Client, store: uuid::Uuid, register: uuid::Uuid) -> ApiResult<Option<Value>> {
    let row = client.query_opt(&format!("{VIEW_SQL} WHERE r.store_id = $1 AND r.register_id = $2"), &[&store, &register]).await?;
    Ok(row.as_ref().map(view))
}
