//! The register's side of the back office sync (record 0044–0045): pair once with a
//! one-time code, then a loop beside checkout — never in its path — that sends the
//! ledger's outbox in batches, drops rows only up to the back office's acknowledgement,
//! and pulls the store's settings, catalog and taxes down (record 0049).
//!
//! No PostgreSQL here (the back office crate is a dev-dependency of the tests only): the
//! app links this crate. The token is a secret: this crate never logs it and takes it
//! as a value; the CLI keeps it in a 0600 file ([`store::TokenFile`]), the app in the OS
//! keychain.
pub mod apply;
pub mod audit;
pub mod backup;
pub mod background;
mod backoff;
pub(crate) mod client;
mod clock;
mod error;
pub mod restore;
pub mod run;
pub mod store;

pub use backoff::Backoff;
pub use client::{BackOffice, CONNECT_TIMEOUT, REQUEST_TIMEOUT};
pub use error::{Refused, SyncError, SyncErrorCode};
pub use restore::{restore, RestoreReport};
pub use run::{idempotency_key, Round, SyncLoop, SyncStatus};
pub use store::{Pairing, SyncState, TokenFile};
pub use paydesk_sync_proto::limits::MAX_TEXT_LEN;
pub use paydesk_sync_proto::{MAX_PAIRING_CODE_LEN, MAX_RESTORE_PAGE};
