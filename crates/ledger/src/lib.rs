//! # paydesk-ledger
//!
//! The durable ledger of PayDesk (record 0001): the SQLite ledger that makes "a register
//! never charges a customer twice and never loses a payment" hold on disk. Its vocabulary
//! (money, the payment and refund state machines, tender kinds, locales) is
//! `paydesk_domain`'s; the ledger re-exports no other crate (decision 0107): callers name
//! `paydesk_domain`, `paydesk_receipt`, `paydesk_tax`, `paydesk_access` and `rusqlite`
//! themselves.
//!
//! No Tauri, no HTTP, no UI, no async, no clock and no randomness of its own: the
//! register engine calls it with `now_ms` and an injected [`KeySource`], so a seeded
//! simulation drives it deterministically.
//!
//! * [`backup`] — the copy written before a schema migration (record 0055; its file
//!   name is the crate's one read of the wall clock).
//! * [`Ledger`] — the connection (open, reader, in memory) and one store per aggregate
//!   (decision 0111): [`Payments`], [`Refunds`], [`Carts`], [`Sales`], [`Catalog`],
//!   [`Shifts`], [`Roster`], [`CardReaders`], [`Audit`], [`Receipts`], [`TenderTypes`], [`SyncLog`] —
//!   key before network (record 0003), UNIQUE keys and `Exists…` outcomes (record 0006),
//!   offline queue (record 0009), recovery queries (record 0010), the idempotent event
//!   consumer (record 0011); each store's methods beside their SQL under `ledger/` (see
//!   README).

pub mod backup;
pub mod copies;
mod busy;
pub mod cursor;
pub mod drawer;
pub mod error;
pub mod ledger;
pub mod open;
pub mod refund_room;
pub mod reissue;
pub mod schema;
mod staff_refusal;
pub mod takings;
pub mod tender;
pub mod types;
mod write_tx;

pub use error::{Error, Result};
pub use ledger::{
    CancelAction, CancelPlan, StoreGivenBack, CardTender, CashTender, Ledger, Sale, StoreTender, SaleCancel, SaleRefundPlan, TenderDay, TenderKindTotal,
    UnpaidBalance, BUSY_TIMEOUT, PaymentDayStats, Period, MAX_TENDER_TYPES,
};
pub use ledger::{process_key, BeginAttempt, CardPresentDetails, ReaderAttempt, ReaderAttemptOutcome, ReaderPayment, ReaderRecord, ReaderSettlement, MAX_READER_ATTEMPTS};
pub use ledger::{Payments, Refunds, Carts, Sales, Catalog, Shifts, Roster, CardReaders, Audit, Receipts, Returns, TenderTypes, SyncLog};
pub use ledger::{HeldCart, HoldRefusal, MAX_HELD_LIMIT};
pub use ledger::{exempt_reason, MAX_EXEMPT_REASON_CHARS, MIN_EXEMPT_REASON_CHARS};
pub use error::{ExemptRefusal, LabelRuleRefusal, ReissueRefusal};
pub use ledger::catalog::{check_label_rules, CounterRulesChange, LabelRules, MAX_LABEL_RULES};
pub use ledger::MAX_OPEN_PRICE_LIMIT;
pub use ledger::PublishedCaps;
pub use ledger::{ExchangeCredit, ExchangeOfReturn, ExchangePlan};
pub use ledger::{return_number, ReturnLine, ReturnPlan, ReturnPrint, ReturnRecord, ReturnRestoredTender, ReturnTender, MAX_RETURN_LINES};
pub use ledger::{OutboxRow, OutboxStats, MAX_OUTBOX_BATCH};
pub use ledger::{RestoreSourceRow, RestoredPayment, RestoredRow, MAX_RESTORED_PAGE};
pub use ledger::{RestoredExchangePlan, RestoredReceipt, RestoredReturnLine, RestoredReturnPlan, RestoredReturnRecord, RestoredReturnTender, RestoredSale, RestoredSaleLine, RestoredTender};
pub use ledger::catalog::{Category, Found, MatchKind, QueryProblem, SearchQuery};
pub use ledger::catalog::{CatalogItem, PriceKind, CsvProblem, DemoLocale, DEMO_WEIGHED_SKU, ImportReport, parse_locale, PublishedItem, PublishedReport, PublishedTax, StoreSettings};
pub use ledger::{local_time, receipt_sale_data, receipt_text_sha256, store_date, store_day_start, store_time, tax_cart, utc_day, LockedTax, PrintOutcome, PrintRecord, ReceiptPrint, MAX_RECEIPT_TEXT_BYTES};
pub use ledger::{
    ryoshusho_generation_number, ryoshusho_number, IssuedRyoshusho, KeptPart, RyoshushoGeneration, RyoshushoIssue, RyoshushoKept, RyoshushoRecord,
};
pub use ledger::{AuditSnapshot, ConfirmedHead, MAX_REPORTED_Z_HEADS};
pub use ledger::{AuditInput, PinPurpose, PublishedStaff, PublishedStaffReport, Staff, StaffRefusal, MAX_STAFF};
pub use ledger::shift::{Actor, DenominationCount, PaidInOut, PaidKind, Shift, ShiftRefusal, ShiftReport, TenderTotal, ZReport};
pub use tender::*;
pub use takings::{RateTotal, SoldTax, Taken, Takings};
pub use schema::SCHEMA_VERSION;
pub use types::*;
pub use refund_room::RefundRoom;
