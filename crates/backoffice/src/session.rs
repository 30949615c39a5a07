//! The owner's dashboard sessions (record 0043): signing in with the owner's token gives
//! an opaque random session id (256 bits) in an `HttpOnly; SameSite=Strict` cookie, with
//! an expiry, ended by signing out. The cookie never holds the owner's token; the back
//! office stores only the id's SHA-256 (`owner_sessions`, V7), so every instance behind
//! one database knows every session and a copy of the database holds no usable cookie.
//! The cookie is `Secure` when the back office is served over TLS; it is always behind a
//! TLS proxy in production, and `serve --behind-tls` says so (the proxy's headers are
//! not trusted for it: a client could send them).
use crate::auth::sha256;
use crate::error::ApiResult;
use crate::clock::now_ms;
use axum::http::{header, HeaderMap};
use rand::RngCore;
use std::time::Duration;

/// The name of the dashboard's session cookie.
pub const COOKIE: &str = "pd_session";
/// Sessions kept at once; signing in past it ends the oldest (bounded table).
pub const MAX_SESSIONS: i64 = 1_000;

/// How sessions are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionPolicy {
    pub ttl: Duration,
    /// Mark the cookie `Secure` (served over TLS, or behind a TLS proxy).
    pub secure: bool,
}

impl Default for SessionPolicy {
    fn default() -> Self {
        SessionPolicy { ttl: Duration::from_secs(12 * 3600), secure: false }
    }
}

/// The session id from the request's cookie, if it has one of the right shape.
pub fn presented(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().strip_prefix(COOKIE).and_then(|r| r.strip_prefix('=')))
        .find(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_string)
}

/// A new session: its id (for the cookie, shown nowhere else). Expired sessions, and the
/// oldest past [`MAX_SESSIONS`], are removed first.
pub async fn start(client: &tokio_postgres::Client, policy: &SessionPolicy) -> ApiResult<String> {
    let mut b = [0u8; 32];
    rand::rng().fill_bytes(&mut b);
    let id = hex::encode(b);
    let now = now_ms();
    client.execute("DELETE FROM owner_sessions WHERE expires_ms <= $1", &[&now]).await?;
    client
        .execute(
            "DELETE FROM owner_sessions WHERE id_hash IN (SELECT id_hash FROM owner_sessions ORDER BY created_ms DESC OFFSET $1)",
            &[&(MAX_SESSIONS - 1)],
        )
        .await?;
    let expires = now + policy.ttl.as_millis() as i64;
    client.execute("INSERT INTO owner_sessions (id_hash, created_ms, expires_ms) VALUES ($1, $2, $3)", &[&sha256(id.as_bytes()), &now, &expires]).await?;
    Ok(id)
}

/// Is this a live session?
pub async fn valid(client: &tokio_postgres::Client, id: &str) -> ApiResult<bool> {
    Ok(client.query_opt("SELECT 1 FROM owner_sessions WHERE id_hash = $1 AND expires_ms > $2", &[&sha256(id.as_bytes()), &now_ms()]).await?.is_some())
}

/// Ends a session (signing out); an unknown id is already ended.
pub async fn end(client: &tokio_postgres::Client, id: &str) -> ApiResult<()> {
    client.execute("DELETE FROM owner_sessions WHERE id_hash = $1", &[&sha256(id.as_bytes())]).await?;
    Ok(())
}

/// The `Set-Cookie` value that holds `id` for the policy's lifetime.
pub fn cookie(id: &str, policy: &SessionPolicy) -> String {
    let secure = if policy.secure { "; Secure" } else { "" };
    format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{secure}", policy.ttl.as_secs())
}

/// The `Set-Cookie` value that removes it.
pub fn cleared(policy: &SessionPolicy) -> String {
    let secure = if policy.secure { "; Secure" } else { "" };
    format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{secure}")
}
