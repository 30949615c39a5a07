//! # paydesk-ledger
//!
//! The domain and the durable ledger of PayDesk (design §2 "ledger + domain"): money,
//! the payment and refund state machines, and the SQLite ledger that makes "a register
//! never charges a customer twice and never loses a payment" hold on disk.
//!
//! No Tauri, no HTTP, no UI, no async, no clock and no randomness of its own: the
//! register engine calls it with `now_ms` and an injected [`KeySource`], so a seeded
//! simulation drives it deterministically.
//!
//! * [`backup`] — the copy written before a schema migration (design §10.3; its file
//!   name is the crate's one read of the wall clock).
//! * [`money`] — integer minor units with ISO exponents (design §3.10).
//! * [`state`] — the one transition table per machine (design §4).
//! * [`Ledger`] — key before network (design §3.1), UNIQUE keys and `Exists…` outcomes
//!   (§3.4), offline queue (§3.7), recovery queries (§3.8), the idempotent event
//!   consumer (§3.9); one file per table or operation under `ledger/` (see README).

pub mod backup;
mod busy;
pub mod cursor;
pub mod drawer;
pub mod error;
pub mod ledger;
pub mod open;
pub mod reissue;
pub mod schema;
pub mod takings;
pub mod tender;
pub mod types;
mod write_tx;

pub use error::{Error, Result};
pub use ledger::{
    CancelAction, CancelPlan, CardTender, CashTender, Ledger, Sale, SaleCancel, SaleRefundPlan, TenderDay, TenderKindTotal,
    UnpaidBalance, BUSY_TIMEOUT, PaymentDayStats, Period,
};
pub use ledger::{process_key, BeginAttempt, CardPresentDetails, ReaderAttempt, ReaderAttemptOutcome, ReaderPayment, ReaderRecord, ReaderSettlement, MAX_READER_ATTEMPTS};
pub use ledger::{OutboxRow, OutboxStats, MAX_OUTBOX_BATCH};
pub use ledger::{RestoreSourceRow, RestoredPayment, RestoredRow, MAX_RESTORED_PAGE};
pub use ledger::catalog::{CatalogItem, CsvProblem, DemoLocale, ImportReport, parse_locale, PublishedItem, PublishedReport, PublishedTax, StoreSettings};
pub use ledger::{local_time, receipt_sale_data, store_day_start, store_time, tax_cart, utc_day, LockedTax, PrintOutcome, ReceiptPrint};
/// The receipt document (design §11).
pub use paydesk_receipt as receipt;
pub use ledger::{AuditSnapshot, ConfirmedHead, MAX_REPORTED_Z_HEADS};
pub use ledger::{AuditInput, PinPurpose, PublishedStaff, PublishedStaffReport, Staff, MAX_STAFF};
pub use ledger::shift::{Actor, DenominationCount, PaidInOut, PaidKind, Shift, ShiftRefusal, ShiftReport, TenderTotal, ZReport};
/// The rules the ledger stores the results of: roles, PINs, lockout, the audit chain.
pub use paydesk_access as access;
/// Tax classes, rates and the tax of a sale (design §11).
pub use paydesk_tax as tax;
pub use tender::*;
pub use takings::{Taken, Takings};
pub use paydesk_domain::{money, Currency, Money, ValueError};
pub use schema::SCHEMA_VERSION;
pub use paydesk_domain::{state, TenderKind, Locale};
pub use paydesk_domain::state::{CaptureMethod, IllegalRefundTransition, IllegalTransition, PaymentState, RefundState, Step};
pub use types::*;

/// Re-exported so callers use the exact rusqlite this crate links (e.g. for `connection()`).
pub use rusqlite;
