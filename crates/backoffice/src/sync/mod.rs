//! The registers' side of the API (record 0038–0049): pairing, batches up, changes down.
//! Every request but pairing carries the register's token; a register reaches only its
//! own store's rows.
pub mod audit_head;
pub mod backups;
pub(crate) mod audit_rows;
mod books;
mod cached;
mod exchanges;
mod local;
pub mod changes;
pub mod ingest;
pub mod pair;
mod project;
pub mod restore;
pub mod rules;
mod returns;
mod sales;
mod store_refunds;

use crate::auth::PresentedToken;
use crate::error::{ApiError, ApiResult};
use axum::http::HeaderMap;
use tokio_postgres::types::Type;
use uuid::Uuid;

/// A register whose token checked out.
#[derive(Debug, Clone, Copy)]
pub struct RegisterId {
    pub store_id: Uuid,
    pub register_id: Uuid,
}

/// Checks the `Authorization: Bearer pdr.…` token against the stored hash. A register
/// the owner replaced is refused with its own code, whatever the token (record 0048).
pub async fn authenticate(client: &tokio_postgres::Client, headers: &HeaderMap) -> ApiResult<RegisterId> {
    let h = headers.get(axum::http::header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    let tok = PresentedToken::parse(h)?;
    let row = client
        .query_typed_opt(
            "SELECT token_hash, replaced_ms FROM registers WHERE store_id = $1 AND register_id = $2",
            &[(&tok.store_id, Type::UUID), (&tok.register_id, Type::UUID)],
        )
        .await?;
    match row {
        Some(r) if tok.matches(r.get::<_, &[u8]>(0)) => match r.get::<_, Option<i64>>(1) {
            None => Ok(RegisterId { store_id: tok.store_id, register_id: tok.register_id }),
            Some(_) => Err(ApiError::RegisterReplaced { register_id: tok.register_id }),
        },
        Some(_) | None => Err(ApiError::Unauthenticated),
    }
}
