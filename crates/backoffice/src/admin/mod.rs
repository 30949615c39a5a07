//! The owner's API (design §9.7): stores, pairing codes, settings, catalog and taxes
//! (§9.16), staff (§9.17), the PSP account,
//! reconciliation runs and resolutions. Authenticated by the owner's token, as a
//! Bearer header (programs) or the dashboard's session cookie.
pub mod catalog;
pub mod exceptions;
pub mod registers;
pub mod staff;
pub mod stores;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::http::{header, HeaderMap};

/// The name of the dashboard's session cookie.
pub const COOKIE: &str = "pd_admin";

/// The owner's token from `Authorization: Bearer` or the session cookie.
pub fn presented(headers: &HeaderMap) -> Option<String> {
    if let Some(b) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|h| h.strip_prefix("Bearer ")) {
        return Some(b.to_string());
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().strip_prefix(COOKIE).and_then(|r| r.strip_prefix('=')))
        .map(str::to_string)
        .next()
}

pub fn require_owner(st: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    match presented(headers) {
        Some(t) if t.len() <= 200 && st.admin.matches(&t) => Ok(()),
        Some(_) | None => Err(ApiError::Unauthenticated),
    }
}

/// Reads a JSON body into `T` with a clear 400 naming what is wrong.
pub fn json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> ApiResult<T> {
    serde_json::from_slice(body).map_err(|e| ApiError::BadRequest(format!("malformed body: {e}")))
}

pub fn parse_store(s: &str) -> ApiResult<uuid::Uuid> {
    uuid::Uuid::parse_str(s).map_err(|_| ApiError::NotFound(format!("no store {s:?}")))
}
