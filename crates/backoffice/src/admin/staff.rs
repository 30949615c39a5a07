//! The store's staff as the owner publishes them for its registers (record 0050): name,
//! role, active, and a PIN the back office hashes at once (Argon2id, the registers'
//! own scheme) and never stores, returns or logs. Each changed member takes the next
//! number of the store's sequence, like an item (record 0049).
use super::catalog::take_versions;
use super::{json_body, parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use super::section::Section;
use crate::state::{now_ms, AppState};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use paydesk_access::pin::{hash_pin, Pin};
use paydesk_sync_proto::staff::{check_staff_name, MAX_STORE_STAFF};
use paydesk_sync_proto::StaffRole;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use tokio_postgres::Transaction;
use uuid::Uuid;

/// Members one request may set.
pub const MAX_STAFF_PER_PUBLISH: usize = 50;

/// One member as the owner sets it. `pin` is needed for a new member and optional
/// after (absent: the PIN stays as it is).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MemberForm {
    pub name: String,
    pub role: StaffRole,
    pub active: bool,
    #[serde(default)]
    pub pin: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PutStaff {
    pub staff: Vec<MemberForm>,
    /// The staff's version its preview was computed against (record 0147); when sent, a
    /// publish in between refuses this one (`stale_preview`).
    #[serde(default)]
    pub preview_version: Option<u64>,
}

pub(crate) struct Stored {
    pub role: StaffRole,
    pub active: bool,
    pub pin_hash: String,
}

fn role_of(s: &str) -> ApiResult<StaffRole> {
    StaffRole::parse(s).ok_or_else(|| ApiError::Internal(format!("stored role {s:?}")))
}

/// The request's own rules, before anything is read: its size, each name, no name twice,
/// each PIN's format. The PIN is named in no message.
pub(crate) fn check_form(staff: &[MemberForm]) -> ApiResult<()> {
    if staff.is_empty() || staff.len() > MAX_STAFF_PER_PUBLISH {
        return Err(ApiError::BadRequest(format!("send 1 to {MAX_STAFF_PER_PUBLISH} staff members at a time, not {}", staff.len())));
    }
    let mut names = HashSet::new();
    for m in staff {
        check_staff_name("name", &m.name)?;
        if !names.insert(m.name.as_str()) {
            return Err(ApiError::BadRequest(format!("staff member {:?} is listed twice", m.name)));
        }
        if let Some(p) = &m.pin {
            Pin::parse(p).map_err(|e| ApiError::BadRequest(format!("staff member {:?}: {e}", m.name)))?;
        }
    }
    Ok(())
}

/// What a staff publish would write, read in the caller's transaction: the preview (record
/// 0147) and the publish compute it with this one function.
pub(crate) struct StaffPlan {
    /// The store's members as they are, by name.
    pub stored: HashMap<String, Stored>,
    /// Indexes into the request of the members that change (new ones included).
    pub changed: Vec<usize>,
}

/// Reads the store's staff and checks `staff` against it: a new member needs a PIN, the
/// store keeps at most MAX_STORE_STAFF and at least one active owner.
pub(crate) async fn plan_staff(tx: &Transaction<'_>, store: Uuid, staff: &[MemberForm]) -> ApiResult<StaffPlan> {
    let mut stored: HashMap<String, Stored> = HashMap::new();
    for r in tx.query("SELECT name, role, active, pin_hash FROM store_staff WHERE store_id = $1", &[&store]).await? {
        stored.insert(r.get(0), Stored { role: role_of(r.get(1))?, active: r.get(2), pin_hash: r.get(3) });
    }
    let mut changed = Vec::new();
    for (i, m) in staff.iter().enumerate() {
        let old = stored.get(&m.name);
        if old.is_none() && m.pin.is_none() {
            return Err(ApiError::BadRequest(format!("staff member {:?} is new: give a pin", m.name)));
        }
        let same = old.is_some_and(|o| o.role == m.role && o.active == m.active && m.pin.is_none());
        if !same {
            changed.push(i);
        }
    }
    let after: HashMap<&str, (StaffRole, bool)> = stored
        .iter()
        .map(|(n, s)| (n.as_str(), (s.role, s.active)))
        .chain(staff.iter().map(|m| (m.name.as_str(), (m.role, m.active))))
        .collect();
    if after.len() > MAX_STORE_STAFF {
        return Err(ApiError::Conflict(format!("the store would have {} staff members; at most {MAX_STORE_STAFF}", after.len())));
    }
    if !after.values().any(|(role, active)| *role == StaffRole::Owner && *active) {
        return Err(ApiError::Conflict("the store would have no active owner; keep at least one".into()));
    }
    Ok(StaffPlan { stored, changed })
}

/// Publishes members (inserted or replaced by name), all or none. The store keeps at
/// least one active owner once it publishes staff: a register must never be left
/// with nobody who may change its settings.
pub async fn put_staff(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: PutStaff = json_body(&body)?;
    check_form(&req.staff)?;
    // Hashed here, once, off the async workers (Argon2id costs tens of ms a PIN): the
    // PINs go no further than this.
    let pins: Vec<(String, Pin)> = req
        .staff
        .iter()
        .filter_map(|m| m.pin.as_deref().map(|p| Pin::parse(p).map(|pin| (m.name.clone(), pin))))
        .collect::<Result<_, _>>()
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let hashed: HashMap<String, String> = tokio::task::spawn_blocking(move || pins.into_iter().map(|(n, p)| (n, hash_pin(&p))).collect())
        .await
        .map_err(|e| ApiError::Internal(format!("hashing: {e}")))?;
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    tx.query_opt("SELECT 1 FROM stores WHERE store_id = $1 FOR UPDATE", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?;
    if let Some(previewed) = req.preview_version {
        Section::Staff.check_preview(&tx, store, previewed).await?;
    }
    let plan = plan_staff(&tx, store, &req.staff).await?;
    // What each changed member will be: a new PIN's hash, else the stored one (a new
    // member without a PIN was refused by the plan).
    let mut changed: Vec<(&MemberForm, String)> = Vec::new();
    for &i in &plan.changed {
        let m = &req.staff[i];
        let pin_hash = match (hashed.get(&m.name), plan.stored.get(&m.name)) {
            (Some(h), _) => h.clone(),
            (None, Some(o)) => o.pin_hash.clone(),
            (None, None) => return Err(ApiError::BadRequest(format!("staff member {:?} is new: give a pin", m.name))),
        };
        changed.push((m, pin_hash));
    }
    if changed.is_empty() {
        let v: i64 = tx.query_one("SELECT published_version FROM stores WHERE store_id = $1", &[&store]).await?.get(0);
        return Ok(Json(json!({"version": v, "changed": 0, "unchanged": req.staff.len()})));
    }
    let first = take_versions(&tx, store, changed.len() as i64).await?;
    let now = now_ms();
    for (i, (m, hash)) in changed.iter().enumerate() {
        tx.execute(
            "INSERT INTO store_staff (store_id, name, version, role, active, pin_hash, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (store_id, name) DO UPDATE SET version = excluded.version, role = excluded.role, active = excluded.active,
                 pin_hash = excluded.pin_hash, updated_ms = excluded.updated_ms",
            &[&store, &m.name, &(first + i as i64), &m.role.as_str(), &m.active, hash, &now],
        )
        .await?;
    }
    tx.commit().await?;
    let last = first + changed.len() as i64 - 1;
    Ok(Json(json!({"version": last, "changed": changed.len(), "unchanged": req.staff.len() - changed.len()})))
}

/// The store's published staff by name: role, active, version. Never a PIN or its hash.
pub async fn get_staff(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let client = st.pool.get().await?;
    client
        .query_opt("SELECT 1 FROM stores WHERE store_id = $1", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?;
    let rows = client.query("SELECT name, role, active, version FROM store_staff WHERE store_id = $1 ORDER BY name", &[&store]).await?;
    let staff: Vec<Value> = rows
        .iter()
        .map(|r| json!({"name": r.get::<_, String>(0), "role": r.get::<_, String>(1), "active": r.get::<_, bool>(2), "version": r.get::<_, i64>(3)}))
        .collect();
    Ok(Json(json!({"staff": staff})))
}
