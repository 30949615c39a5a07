//! The wire between a register and the back office (record 0037): what a register sends
//! up (batches of its journal facts), what it reads down (its store's settings, catalog, taxes and staff), and
//! pairing. Plain serde types with their limits and validation; no I/O, so both sides
//! (and the tests) agree on one definition of a well-formed message.
//!
//! Versioning: every message carries `v`. A receiver accepts exactly the versions it
//! knows ([`SUPPORTED_VERSIONS`]) and refuses others with [`ProtoError::Version`], so an
//! old back office never half-understands a newer register.
pub mod audit;
pub mod audit_rows;
pub mod backup;
pub mod base_url;
mod books;
pub mod catalog;
mod down;
mod error;
pub mod exchanges;
mod pair;
mod restore;
pub mod returns;
pub mod sales;
pub mod staff;
pub mod store_tenders;
mod text;
mod up;

pub use audit::{AtConfirmed, AuditHead, AuditReport, ZHead, MAX_Z_HEADS};
pub use audit_rows::{AuditRow, PrintOutcome, ReceiptPrinted, MAX_RECEIPT_TEXT_BYTES};
pub use books::{DrawerMove, Tender, TenderMethod};
pub use catalog::{Item, PriceKind, StoreTax, TaxRate};
pub use staff::{StaffMember, StaffRole};
pub use store_tenders::{StoreTender, StoreTenderKind};
pub use down::{Change, ChangeKind, Changes, StoreSettings, MAX_CHANGES_PER_PAGE};
pub use paydesk_tax::{Dining, PriceMode, Rounding, SaleUnit, TaxClass};
pub use error::ProtoError;
pub use exchanges::{ExchangeCreditPart, ExchangeRecorded, MAX_CREDIT_PARTS};
pub use text::{time_zone as check_time_zone, MAX_TIME_ZONE_CHARS};
pub use pair::{PairRequest, Paired, MAX_PAIRING_CODE_LEN};
pub use returns::{ReturnLine, ReturnRecorded, MAX_RETURN_NO_CHARS};
pub use sales::{SaleCompleted, SaleLine, SaleRate, MAX_SALE_LINES};
pub use restore::{JournalRow, RestorePage, RestoreSource, MAX_RESTORE_PAGE};
pub use up::{Ack, Batch, Fact, PaymentState, RefundState, RegisterHealth, Row};

/// The protocol version this crate writes.
pub const PROTOCOL_VERSION: u32 = 1;
/// The versions this crate reads.
pub const SUPPORTED_VERSIONS: &[u32] = &[1];

/// Limits both sides enforce (record 0039). A register splits its outbox into batches
/// that fit them; the back office refuses anything larger with a 4xx.
pub mod limits {
    /// Rows in one batch.
    pub const MAX_ROWS_PER_BATCH: usize = 500;
    /// Bytes of one request body (a full batch of the longest rows fits with room).
    pub const MAX_BODY_BYTES: usize = 1024 * 1024;
    /// Checkout, refund and PSP ids, idempotency keys: printable ASCII up to this length.
    pub const MAX_KEY_LEN: usize = 255;
    /// One payment or refund, in minor units (10^12: far above any till, far below i64).
    pub const MAX_AMOUNT: i64 = 1_000_000_000_000;
    /// Free text (names, versions, receipt footer).
    pub const MAX_TEXT_LEN: usize = 200;
    /// Sequence numbers stay well inside i64 (PostgreSQL BIGINT).
    pub const MAX_SEQ: u64 = (i64::MAX as u64) / 2;
}

/// Refuses a message version this crate does not read.
pub fn check_version(v: u32) -> Result<(), ProtoError> {
    if SUPPORTED_VERSIONS.contains(&v) {
        Ok(())
    } else {
        Err(ProtoError::Version { got: v, supported: SUPPORTED_VERSIONS.to_vec() })
    }
}
