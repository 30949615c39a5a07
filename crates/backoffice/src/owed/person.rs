//! Who a person at the back office is (record 0142). The owner's token says only "someone
//! the owner trusts"; a refund needs two distinct people, so each names themselves as a
//! published, active staff member of the store and proves it with their PIN, checked
//! against the Argon2id hash the back office already holds for the registers
//! (`store_staff`). PIN guesses are throttled with the sign-in budget (attempts at a secret
//! from one address, record 0038).
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use paydesk_access::{verify_pin, Pin, Role};
use serde::Deserialize;
use uuid::Uuid;

/// A person as a request names them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub by: String,
    pub pin: String,
}

/// Checks `claim` against the store's staff: active, at least `min`, PIN right. Returns the
/// name as published. An unknown name and a wrong PIN get the same answer.
pub async fn prove(st: &AppState, source: std::net::IpAddr, store: Uuid, claim: &Claim, min: Role) -> ApiResult<String> {
    st.sign_in.attempt(source).map_err(|wait| ApiError::Throttled(wait.as_secs().max(1)))?;
    let by = claim.by.trim();
    if by.is_empty() || by.chars().count() > 100 || by.chars().any(char::is_control) {
        return Err(ApiError::BadRequest("by (the staff member's name) must be 1 to 100 characters".into()));
    }
    let pin = Pin::parse(&claim.pin).map_err(|e| ApiError::BadRequest(format!("pin: {e}")))?;
    let not_proven = || ApiError::Forbidden(format!("{by:?} is not an active staff member of this store with that PIN"));
    let row = st
        .pool
        .get()
        .await?
        .query_opt("SELECT name, role, pin_hash FROM store_staff WHERE store_id = $1 AND name = $2 AND active", &[&store, &by])
        .await?
        .ok_or_else(not_proven)?;
    let (name, role, hash): (String, String, String) = (row.get(0), row.get(1), row.get(2));
    // Argon2 takes tens of milliseconds of CPU: off the async workers.
    let ok = tokio::task::spawn_blocking(move || verify_pin(&pin, &hash))
        .await
        .map_err(|e| ApiError::Internal(format!("PIN check: {e}")))?
        .map_err(|e| ApiError::Internal(format!("stored PIN hash of a staff member: {e}")))?;
    if !ok {
        return Err(not_proven());
    }
    let role = Role::parse(&role).map_err(|e| ApiError::Internal(format!("stored staff role: {e}")))?;
    if !role.at_least(min) {
        return Err(ApiError::Forbidden(format!("{name} is a {role}; this needs a {min} or above")));
    }
    Ok(name)
}
