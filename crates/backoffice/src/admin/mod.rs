//! The owner's API (record 0042): stores, pairing codes, settings, catalog and taxes
//! (record 0049), staff (record 0050), the store's time zone (record 0137), the PSP account,
//! reconciliation runs and resolutions. Authenticated by the owner's token, as a
//! Bearer header (programs) or a dashboard session (`session.rs`).
pub mod backups;
pub mod catalog;
pub mod exceptions;
pub mod registers;
pub mod section;
pub mod staff;
pub mod stores;
pub mod zone;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::http::{header, HeaderMap};

/// The owner's token from `Authorization: Bearer` (programs).
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|h| h.strip_prefix("Bearer "))
}

/// The owner: the token as a Bearer header, or a live dashboard session's cookie.
pub async fn require_owner(st: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    if let Some(t) = bearer(headers) {
        return if t.len() <= 200 && st.admin.matches(t) { Ok(()) } else { Err(ApiError::Unauthenticated) };
    }
    let Some(id) = crate::session::presented(headers) else {
        return Err(ApiError::Unauthenticated);
    };
    let client = st.pool.get().await?;
    if crate::session::valid(&client, &id).await? {
        Ok(())
    } else {
        Err(ApiError::Unauthenticated)
    }
}

/// Reads a JSON body into `T` with a clear 400 naming what is wrong.
pub fn json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> ApiResult<T> {
    serde_json::from_slice(body).map_err(|e| ApiError::BadRequest(format!("malformed body: {e}")))
}

pub fn parse_store(s: &str) -> ApiResult<uuid::Uuid> {
    uuid::Uuid::parse_str(s).map_err(|_| ApiError::NotFound(format!("no store {s:?}")))
}
