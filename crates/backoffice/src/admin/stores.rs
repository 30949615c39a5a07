//! Stores, pairing codes, published settings and the PSP account of a store. The
//! settings take their version from the store's one sequence (record 0049).
use super::{json_body, parse_store, require_owner};
use crate::auth::{new_pairing_code, pairing_code_hash};
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, AppState};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use paydesk_sync_proto::base_url::{check_base_url, MAX_PSP_URL_LEN};
use paydesk_sync_proto::StoreSettings;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

fn name(field: &str, s: &str) -> ApiResult<String> {
    let t = s.trim();
    if t.is_empty() || t.chars().count() > 100 || t.chars().any(char::is_control) {
        return Err(ApiError::BadRequest(format!("{field} must be 1 to 100 characters without control characters")));
    }
    Ok(t.to_string())
}

async fn store_exists(client: &tokio_postgres::Client, store: Uuid) -> ApiResult<()> {
    match client.query_opt("SELECT 1 FROM stores WHERE store_id = $1", &[&store]).await? {
        Some(_) => Ok(()),
        None => Err(ApiError::NotFound(format!("no store {store}"))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewStore {
    name: String,
}

pub async fn create_store(State(st): State<AppState>, headers: HeaderMap, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let req: NewStore = json_body(&body)?;
    let name = name("name", &req.name)?;
    let id = Uuid::new_v4();
    let client = st.pool.get().await?;
    client.execute("INSERT INTO stores (store_id, name, created_ms) VALUES ($1, $2, $3)", &[&id, &name, &now_ms()]).await?;
    Ok(Json(json!({"store_id": id, "name": name})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewCode {
    register_name: String,
}

/// A one-time code for one register; shown here once, stored hashed.
pub async fn pairing_code(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: NewCode = json_body(&body)?;
    let reg_name = name("register_name", &req.register_name)?;
    let client = st.pool.get().await?;
    store_exists(&client, store).await?;
    let code = new_pairing_code();
    let expires = now_ms() + st.limits.pairing_ttl.as_millis() as i64;
    client
        .execute("INSERT INTO pairing_codes (code_hash, store_id, register_name, expires_ms) VALUES ($1, $2, $3, $4)", &[&pairing_code_hash(&code), &store, &reg_name, &expires])
        .await?;
    Ok(Json(json!({"pairing_code": code, "register_name": reg_name, "expires_ms": expires})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutSettings {
    /// The version the owner edited (0 when none was published): a stale edit is refused.
    expected_version: u64,
    settings: StoreSettings,
}

/// Publishes a new version of the store's settings for its registers to pull.
pub async fn put_settings(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let mut req: PutSettings = json_body(&body)?;
    let mut client = st.pool.get().await?;
    if let Some(z) = &req.settings.time_zone {
        super::zone::check_zone(&**client, z).await?;
    }
    req.settings.validate()?;
    let tx = client.transaction().await?;
    // The store's sequence first: its row lock orders publishes (record 0049).
    let version = super::catalog::take_versions(&tx, store, 1).await?;
    let current: i64 = tx.query_opt("SELECT version FROM store_settings WHERE store_id = $1", &[&store]).await?.map_or(0, |r| r.get(0));
    if current as u64 != req.expected_version {
        // Dropping the transaction rolls the sequence number back too.
        return Err(ApiError::Conflict(format!("the settings are at version {current}, not {}; reload and edit again", req.expected_version)));
    }
    super::catalog::check_currency_change(&tx, store, &req.settings).await?;
    match &req.settings.time_zone {
        // The dashboard's zone is the one the registers are told (record 0137).
        Some(z) => {
            tx.execute("UPDATE stores SET time_zone = $2 WHERE store_id = $1", &[&store, z]).await?;
        }
        // An edit that does not say the zone keeps the one published (a client older
        // than the field must not take it back from the registers).
        None => {
            let kept = tx.query_opt("SELECT settings->>'time_zone' FROM store_settings WHERE store_id = $1", &[&store]).await?;
            req.settings.time_zone = kept.and_then(|r| r.get(0));
        }
    }
    let doc = serde_json::to_value(&req.settings).map_err(|e| ApiError::Internal(e.to_string()))?;
    tx.execute(
        "INSERT INTO store_settings (store_id, version, settings, updated_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (store_id) DO UPDATE SET version = excluded.version, settings = excluded.settings, updated_ms = excluded.updated_ms",
        &[&store, &version, &doc, &now_ms()],
    )
    .await?;
    tx.commit().await?;
    Ok(Json(json!({"version": version})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutPsp {
    api_base: String,
    secret_key: String,
}

/// The store's PSP account, read by reconciliation. The key is never returned or logged.
pub async fn put_psp(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: PutPsp = json_body(&body)?;
    // The register's own rule, parsed as the HTTP client reads it (record 0038).
    let base = check_base_url("api_base", &req.api_base, MAX_PSP_URL_LEN).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    if req.secret_key.is_empty() || req.secret_key.len() > 200 || !req.secret_key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ApiError::BadRequest("secret_key must be 1 to 200 printable ASCII characters".into()));
    }
    let client = st.pool.get().await?;
    store_exists(&client, store).await?;
    client
        .execute(
            "INSERT INTO psp_accounts (store_id, api_base, secret_key) VALUES ($1, $2, $3)
             ON CONFLICT (store_id) DO UPDATE SET api_base = excluded.api_base, secret_key = excluded.secret_key",
            &[&store, &base, &req.secret_key],
        )
        .await?;
    Ok(Json(json!({"store_id": store, "api_base": base})))
}
