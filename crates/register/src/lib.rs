//! PayDesk register engine (record 0001, docs/design.md): checkout orchestration, the PSP
//! client, retries, offline store-and-forward, reconciliation and the event
//! consumer. No Tauri, no UI. Clock, randomness and transport are injected.

pub mod attempt;
pub mod clock;
pub mod engine;
pub mod notify;
pub mod psp;
pub mod retry;
pub mod rng;
pub mod transport;
pub mod usecases;
pub mod window;
pub mod offline;

pub use attempt::{may_have_reached_psp, AttemptKind, Reach, UnknownAttemptKind};
pub use clock::{Clock, SharedClock, SystemClock};
pub use notify::{AlarmCode, BackgroundReason, Notification, Notifier, ResolvedVia, SettledState, Subject};
pub use rng::{OsRandom, Random, SeededRandom, SharedRandom};
pub use transport::{HttpTransport, SharedTransport, Transport};
pub use engine::{checked_receipt_number, MAX_RECEIPT_CANDIDATES, MAX_RECEIPT_DIGITS};
pub use engine::{
    CancelReport, CardTenderReport, CashReport, ExchangeReport, RestoredExchangeReport, RestoredReturnReport, ReceiptCandidate, ReceiptCandidates, ReceiptOpen, ReturnReport, SaleRefundReport, SaleView, StoreTenderReport,
    CheckoutOutcome, CheckoutReport, Attempted, CrashHook, CrashPoint, Engine, EngineConfig, EngineError, EngineStatus,
    EventsReport, PaymentView, RecoverReport, RefundReport, MAX_EVENT_PAGES_PER_POLL, MAX_SEARCH_SETTLE_MS,
    NotChargedWhy, PendingWhy, ReaderConfig, ReaderOutcome, ReaderRegistration, ReaderReport, ReaderTenderReport, TestCard,
    UnavailableWhy,
};
pub use offline::{MoneyCap, OfflineCaps, OfflineLimits};
pub use retry::RetryPolicy;
pub use window::DedupWindow;
pub use paydesk_ledger;
