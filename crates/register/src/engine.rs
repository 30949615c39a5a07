//! The register engine: checkout orchestration (SPEC §3 rules 1–6), offline
//! store-and-forward (7), crash recovery / reconciliation (8), the idempotent
//! event consumer (9), capture, cancel and refunds. Storage is the
//! `paydesk-ledger` crate; the wire is an injected [`Transport`].

use crate::clock::SharedClock;
use crate::notify::{Notification, Notifier, Subject};
use crate::offline::{OfflineLimits, OfflineRefusal};
use crate::psp::{AttemptOutcome, Event, Fatal, List, PaymentIntent, PiStatus, PspClient, Refund as PspRefund};
use crate::retry::{run_phase, AttemptRecord, PhaseResult, RetryPolicy};
use crate::rng::SharedRandom;
use crate::transport::SharedTransport;
use crate::window::DedupWindow;
use paydesk_ledger::reissue::ReissueOp;
use paydesk_ledger::{
    After, ApplyOutcome, CartId, CheckoutOptions, CheckoutSettlement, Currency, EventKind, Ledger, Money, NewPayment, Payment, PaymentId,
    PaymentState, PspEvent, PspResult, RecordOutcome, Refund, RefundState, SettleOutcome, TimelineEntry, TimelineInput,
    TimelineKind,
};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// ---------------------------------------------------------------- config

#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Deadline of one HTTP attempt.
    pub attempt_timeout: Duration,
    /// While the cashier waits.
    pub interactive: RetryPolicy,
    /// Reconciler, forwarder, background queue.
    pub background: RetryPolicy,
    pub window: DedupWindow,
    pub offline: OfflineLimits,
    /// Each event poll re-reads this much before the newest event seen, so
    /// redelivery is real and late-committed events are not skipped.
    pub events_overlap: Duration,
    /// How far back the first poll of a process looks (Stripe keeps 30 days).
    pub events_lookback: Duration,
    /// How long search results may lag behind the PSP's writes, in ms. A search by
    /// `metadata['checkout_key']` that finds nothing proves "never charged" only once the
    /// most recent attempt that may have reached the PSP (not refused, not a replay) ended
    /// at least this long ago; before that the payment stays pending and is searched again
    /// by the background passes. Stripe's search is eventually consistent (data normally
    /// searchable within about a minute), hence the default of 120 000 ms (2 min). Must be
    /// at least the PSP's search lag; 0 trusts search at once (only for a PSP whose search
    /// is read-after-write consistent). Bound: at most [`MAX_SEARCH_SETTLE_MS`] (1 h);
    /// larger values are used as 1 h.
    pub search_settle_ms: u64,
}

/// Upper bound of [`EngineConfig::search_settle_ms`] (1 h): a payment whose PaymentIntent
/// search cannot find waits at most this long after its last attempt before it is
/// settled "never charged".
pub const MAX_SEARCH_SETTLE_MS: u64 = 3_600_000;

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            attempt_timeout: Duration::from_secs(10),
            interactive: RetryPolicy::interactive(),
            background: RetryPolicy::background(),
            window: DedupWindow::default(),
            offline: OfflineLimits::default(),
            events_overlap: Duration::from_secs(300),
            events_lookback: Duration::from_secs(30 * 24 * 3600),
            search_settle_ms: 120_000,
        }
    }
}

/// Named points where the CLI's `PAYDESK_CRASH_AT` kills the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashPoint {
    AfterKeyCommit,
    AfterSend,
    AfterResponseBeforeCommit,
    AfterCommit,
    MidEventApply,
    MidRefund,
}

impl CrashPoint {
    pub const ALL: [CrashPoint; 6] = [
        CrashPoint::AfterKeyCommit,
        CrashPoint::AfterSend,
        CrashPoint::AfterResponseBeforeCommit,
        CrashPoint::AfterCommit,
        CrashPoint::MidEventApply,
        CrashPoint::MidRefund,
    ];
    pub fn name(self) -> &'static str {
        match self {
            CrashPoint::AfterKeyCommit => "after_key_commit",
            CrashPoint::AfterSend => "after_send",
            CrashPoint::AfterResponseBeforeCommit => "after_response_before_commit",
            CrashPoint::AfterCommit => "after_commit",
            CrashPoint::MidEventApply => "mid_event_apply",
            CrashPoint::MidRefund => "mid_refund",
        }
    }
    pub fn parse(s: &str) -> Option<CrashPoint> {
        CrashPoint::ALL.into_iter().find(|c| c.name() == s)
    }
}

pub type CrashHook = Arc<dyn Fn(CrashPoint) + Send + Sync>;

// ---------------------------------------------------------------- errors

/// Typed errors; `code()` + `Display` are what the UI shows (`{code, message}`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    #[error("invalid input: {0}")]
    InvalidInput(String),
    #[error("unknown payment {0}")]
    UnknownPayment(String),
    #[error("refund of {requested} exceeds the refundable {refundable} on payment {key}")]
    RefundExceedsCaptured { key: String, requested: i64, refundable: i64 },
    #[error("payment {key} is {state}: {what}")]
    WrongState { key: String, state: String, what: String },
    #[error("the previous payment {key} is {state} and its outcome is not known yet; a new payment could charge the customer twice. Wait, or override with a reason")]
    PreviousOutcomeUnknown { key: String, state: String },
    #[error("payment {key} already went through ({state}); no new payment needed")]
    AlreadyPaid { key: String, state: String },
    #[error("{key} already has a later payment {later} ({state}); to try again after that one, use --after {later}")]
    LaterPaymentExists { key: String, later: String, state: String },
    #[error("payment not accepted offline: {reason}. {detail}")]
    OfflineRefused { key: String, reason: String, detail: String },
    #[error("PSP configuration problem: {0}")]
    PspConfig(String),
    #[error("the PSP rejected the request: {0}")]
    PspRejected(String),
    #[error("ALARM: {0}")]
    Alarm(String),
    #[error("ledger: {0}")]
    Ledger(String),
    /// A checkout call failed after its key was committed and its payment could not
    /// even be read back: the outcome is unknown, and recovery resolves it by its key.
    #[error("{source}; checkout {key}: the outcome is not known yet, the register resolves it with the same key")]
    Unresolved { key: String, source: Box<EngineError> },
}

impl EngineError {
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::InvalidInput(_) => "invalid_input",
            EngineError::UnknownPayment(_) => "unknown_payment",
            EngineError::RefundExceedsCaptured { .. } => "refund_exceeds_captured",
            EngineError::WrongState { .. } => "wrong_state",
            EngineError::PreviousOutcomeUnknown { .. } => "previous_outcome_unknown",
            EngineError::AlreadyPaid { .. } => "already_paid",
            EngineError::LaterPaymentExists { .. } => "later_payment_exists",
            EngineError::OfflineRefused { .. } => "offline_refused",
            EngineError::PspConfig(_) => "psp_config",
            EngineError::PspRejected(_) => "psp_rejected",
            EngineError::Alarm(_) => "alarm",
            EngineError::Ledger(_) => "ledger",
            EngineError::Unresolved { .. } => "outcome_unknown",
        }
    }

    /// The checkout key this error is about, when a payment row exists for it.
    pub fn checkout_key(&self) -> Option<&str> {
        match self {
            EngineError::RefundExceedsCaptured { key, .. }
            | EngineError::WrongState { key, .. }
            | EngineError::PreviousOutcomeUnknown { key, .. }
            | EngineError::AlreadyPaid { key, .. }
            | EngineError::LaterPaymentExists { key, .. }
            | EngineError::OfflineRefused { key, .. }
            | EngineError::Unresolved { key, .. } => Some(key),
            EngineError::UnknownPayment(_)
            | EngineError::InvalidInput(_)
            | EngineError::PspConfig(_)
            | EngineError::PspRejected(_)
            | EngineError::Alarm(_)
            | EngineError::Ledger(_) => None,
        }
    }
}

impl From<paydesk_ledger::Error> for EngineError {
    fn from(e: paydesk_ledger::Error) -> Self {
        use paydesk_ledger::Error as L;
        match e {
            L::InvalidAmount(_) | L::InvalidCurrency(_) | L::InvalidInput(_) | L::Overflow | L::EmptyCart(_) => {
                EngineError::InvalidInput(e.to_string())
            }
            L::CurrencyMismatch { .. } | L::CartNotOpen { .. } | L::UnknownProduct(_) => {
                EngineError::InvalidInput(e.to_string())
            }
            L::UnknownPayment(k) => EngineError::UnknownPayment(k),
            L::UnknownCart(c) => EngineError::InvalidInput(format!("unknown cart {c}")),
            other => EngineError::Ledger(other.to_string()),
        }
    }
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;

// ---------------------------------------------------------------- reports

/// How a checkout stands, in one word for the cashier's screen and the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckoutOutcome {
    /// Money captured.
    Paid,
    /// Authorized (manual capture).
    Authorized,
    /// Declined: "Try another card" (new key). Never charged, and never will be.
    Declined,
    /// Not a decline, and never charged: the PSP refused the request before executing
    /// it (wrong secret key, wrong URL, a rejected parameter). The payment is `failed`;
    /// after fixing the cause the cashier starts a new payment (new key).
    Failed,
    /// Outcome not known yet: the background queue continues with the same key.
    Pending,
    /// Accepted offline, waiting to be forwarded.
    QueuedOffline,
    /// Voided, or abandoned before anything was sent.
    Canceled,
    /// Refunded (fully or partly) after being paid.
    Refunded,
}

impl CheckoutOutcome {
    pub fn of(state: PaymentState) -> Self {
        match state {
            PaymentState::Captured => CheckoutOutcome::Paid,
            PaymentState::Authorized | PaymentState::Capturing => CheckoutOutcome::Authorized,
            PaymentState::Failed => CheckoutOutcome::Declined,
            PaymentState::Created | PaymentState::Authorizing => CheckoutOutcome::Pending,
            PaymentState::QueuedOffline => CheckoutOutcome::QueuedOffline,
            PaymentState::Canceled => CheckoutOutcome::Canceled,
            PaymentState::Refunding | PaymentState::PartiallyRefunded | PaymentState::Refunded => {
                CheckoutOutcome::Refunded
            }
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CheckoutReport {
    pub checkout_key: String,
    pub state: String,
    pub outcome: CheckoutOutcome,
    pub psp_payment_id: Option<String>,
    /// HTTP attempts recorded for this key so far.
    pub attempts: u32,
    pub amount: i64,
    pub currency: String,
    /// Some attempt was answered with the PSP's stored first response.
    pub replayed: bool,
    /// Decline message or last error, for the screen.
    pub message: Option<String>,
    /// Why the interactive phase ended with a problem (an engine or PSP error code),
    /// when it did; the outcome says what that means for the money.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RefundReport {
    pub refund_key: String,
    pub checkout_key: String,
    pub state: String,
    pub amount: i64,
    pub currency: String,
    pub psp_refund_id: Option<String>,
    pub attempts: u32,
    pub message: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RecoverReport {
    /// In-flight checkouts examined.
    pub examined: u32,
    pub resolved: u32,
    pub resolved_by_search: u32,
    pub still_pending: u32,
    pub forwarded: u32,
    pub declined_after_forward: u32,
    pub still_queued: u32,
    pub refunds_resolved: u32,
    pub refunds_pending: u32,
    pub captures_resolved: u32,
    pub errors: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct EventsReport {
    pub fetched: u32,
    pub applied: u32,
    pub duplicates: u32,
    pub pages: u32,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EngineStatus {
    pub psp_online: Option<bool>,
    pub queued_offline: u32,
    pub in_flight: u32,
    pub last_sync_ms: Option<i64>,
}

/// A payment with its timeline and refunds (the payments list's detail view).
#[derive(Debug, Clone, Serialize)]
pub struct PaymentView {
    pub payment: Payment,
    pub timeline: Vec<TimelineEntry>,
    pub refunds: Vec<Refund>,
}

// ---------------------------------------------------------------- engine

/// Read-only ledger connections for the UI's lists and reports (SPEC §7: one writer,
/// separate readers), so an End-of-day report over a long day never holds up a
/// checkout's commit. Few: a register has one screen; the limit keeps file handles bounded.
const LEDGER_READERS: usize = 2;

struct Inner {
    /// The single writer. Fair (FIFO hand-off): under contention every waiter gets the
    /// connection in arrival order, so no caller starves behind a busy one (SPEC §7
    /// measured 0.6 s waits on an unfair Mutex-shared connection).
    ledger: parking_lot::FairMutex<Ledger>,
    /// Empty for an in-memory ledger (nothing to share): reads then use the writer.
    readers: Vec<Mutex<Ledger>>,
    psp: PspClient,
    clock: SharedClock,
    rng: SharedRandom,
    notifier: Notifier,
    cfg: EngineConfig,
    crash: Option<CrashHook>,
    flights: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    online: Mutex<Option<bool>>,
    last_sync_ms: Mutex<Option<i64>>,
    /// Newest event `created` (s) fully applied; persisted per `events_psp`.
    events_cursor: Mutex<Option<i64>>,
    events_psp: String,
    events_lock: tokio::sync::Mutex<()>,
}

/// The register engine. Cheap to clone (shared inside); all methods are safe
/// to call concurrently.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

/// Runs ledger work that may wait for a lock or an fsync: on a multi-threaded runtime
/// the other tasks (HTTP attempts in flight) move to another worker meanwhile.
fn blocking<R>(run: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(run),
        _ => run(),
    }
}

/// Reader connections next to a file-backed writer; none for an in-memory ledger or if
/// they cannot be opened (reads then share the writer: slower under load, still correct).
fn open_readers(writer: &Ledger) -> Vec<Mutex<Ledger>> {
    let Some(path) = writer.path() else { return Vec::new() };
    let mut readers = Vec::with_capacity(LEDGER_READERS);
    for _ in 0..LEDGER_READERS {
        match Ledger::open_reader(path) {
            Ok(r) => readers.push(Mutex::new(r)),
            Err(e) => {
                tracing::warn!(%e, "cannot open a ledger reader; reads share the writer");
                return Vec::new();
            }
        }
    }
    readers
}

const OFFLINE_REFUSED_MARK: &str = "offline_refused";

fn psp_key_prefix(p: &Payment, what: &str) -> String {
    format!("{}-{what}", p.idempotency_key)
}

/// Fresh keys an operation may get after stored failures (see `Engine::pi_operation`,
/// `Engine::drive_refund`) before it is handed to a person.
pub const MAX_KEY_REISSUES: i64 = 3;

/// A POST on an authorized PaymentIntent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PiOp {
    Capture,
    Cancel,
}

impl PiOp {
    fn name(self) -> &'static str {
        match self {
            PiOp::Capture => "capture",
            PiOp::Cancel => "cancel",
        }
    }
    fn via_replay(self) -> &'static str {
        match self {
            PiOp::Capture => "capture replay",
            PiOp::Cancel => "cancel replay",
        }
    }
    fn via_check(self) -> &'static str {
        match self {
            PiOp::Capture => "capture check",
            PiOp::Cancel => "cancel check",
        }
    }
    fn reissue(self) -> ReissueOp {
        match self {
            PiOp::Capture => ReissueOp::Capture,
            PiOp::Cancel => ReissueOp::Cancel,
        }
    }
    fn subject(self, checkout_key: &str) -> Subject {
        match self {
            PiOp::Capture => Subject::Capture(checkout_key.to_string()),
            PiOp::Cancel => Subject::Cancel(checkout_key.to_string()),
        }
    }
    fn request(self, c: &PspClient, pi_id: &str, key: &str) -> crate::transport::HttpRequest {
        match self {
            PiOp::Capture => c.capture_request(pi_id, key),
            PiOp::Cancel => c.cancel_request(pi_id, key),
        }
    }
}

impl Engine {
    /// Build an engine over an open ledger and a transport to the PSP.
    pub fn new(
        ledger: Ledger,
        transport: SharedTransport,
        clock: SharedClock,
        rng: SharedRandom,
        cfg: EngineConfig,
    ) -> Engine {
        // The cursor persisted by an earlier process (schema v2): resume there. A ledger
        // that cannot read it just re-reads the lookback (application is exactly-once).
        let events_psp = transport.endpoint().unwrap_or_else(|| "default".to_string());
        let stored_cursor = ledger.event_cursor(&events_psp).unwrap_or_else(|e| {
            tracing::warn!(%e, "cannot read the stored events cursor; re-reading the lookback");
            None
        });
        let psp = PspClient::new(transport, cfg.attempt_timeout);
        let readers = open_readers(&ledger);
        Engine {
            inner: Arc::new(Inner {
                ledger: parking_lot::FairMutex::new(ledger),
                readers,
                psp,
                clock,
                rng,
                notifier: Notifier::default(),
                cfg,
                crash: None,
                flights: Mutex::new(HashMap::new()),
                online: Mutex::new(None),
                last_sync_ms: Mutex::new(None),
                events_cursor: Mutex::new(stored_cursor),
                events_psp,
                events_lock: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// Install the crash hook (CLI crash tests). Call before sharing the engine.
    pub fn with_crash_hook(mut self, hook: CrashHook) -> Engine {
        Arc::get_mut(&mut self.inner).expect("with_crash_hook before cloning the engine").crash = Some(hook);
        self
    }

    pub fn config(&self) -> &EngineConfig {
        &self.inner.cfg
    }

    /// Progress notifications (attempts, backoff, replays, offline, forwarded, resolved).
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<Notification> {
        self.inner.notifier.subscribe()
    }
    pub fn notifier(&self) -> &Notifier {
        &self.inner.notifier
    }

    /// Direct access to the ledger for what the engine does not wrap (catalog,
    /// carts, reports). Keep the closure short: it holds the writer.
    pub fn with_ledger<R>(&self, f: impl FnOnce(&mut Ledger) -> R) -> R {
        blocking(|| {
            let mut l = self.inner.ledger.lock();
            f(&mut l)
        })
    }

    /// Read-only access on a reader connection (a file-backed ledger), else on the
    /// writer. Sees every commit made before it is called; use it for lists and
    /// reports, not for reads a following write depends on.
    pub fn with_reader<R>(&self, f: impl FnOnce(&Ledger) -> R) -> R {
        let readers = &self.inner.readers;
        if readers.is_empty() {
            return self.with_ledger(|l| f(l));
        }
        blocking(|| {
            // A free reader if there is one, else wait for the first (bounded: LEDGER_READERS).
            let guard = readers
                .iter()
                .find_map(|r| r.try_lock().ok())
                .unwrap_or_else(|| readers[0].lock().unwrap_or_else(|e| e.into_inner()));
            f(&guard)
        })
    }

    /// How many reader connections this engine has (0: reads share the writer).
    pub fn reader_count(&self) -> usize {
        self.inner.readers.len()
    }

    fn now(&self) -> i64 {
        self.inner.clock.now_ms()
    }

    fn crash(&self, p: CrashPoint) {
        if let Some(h) = &self.inner.crash {
            h(p);
        }
    }

    fn notify(&self, n: Notification) {
        self.inner.notifier.send(n);
    }

    async fn flight(&self, key: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let m = {
            let mut f = self.inner.flights.lock().unwrap();
            if f.len() > 1024 {
                // Forget keys nobody is driving (only the map holds them).
                f.retain(|_, m| Arc::strong_count(m) > 1);
            }
            f.entry(key.to_string()).or_insert_with(|| Arc::new(tokio::sync::Mutex::new(()))).clone()
        };
        m.lock_owned().await
    }

    fn payment(&self, key: &str) -> Result<Payment> {
        self.with_ledger(|l| l.payment_by_key(key))?.ok_or_else(|| EngineError::UnknownPayment(key.to_string()))
    }

    fn set_online(&self, online: bool) {
        let mut o = self.inner.online.lock().unwrap();
        if *o != Some(online) {
            *o = Some(online);
            self.notify(Notification::Connectivity { online });
        }
        if online {
            *self.inner.last_sync_ms.lock().unwrap() = Some(self.now());
        }
    }

    fn note_connectivity(&self, recs: &[AttemptRecord]) {
        if let Some(last) = recs.last() {
            let unreachable = matches!(
                last.outcome.as_str(),
                "connection_refused" | "connect_timeout" | "connection_lost" | "timeout"
            );
            self.set_online(!unreachable);
        }
    }

    fn report(&self, p: &Payment) -> Result<CheckoutReport> {
        let tl = self.with_ledger(|l| l.timeline(p.id))?;
        let attempts = tl.iter().filter(|t| t.kind == TimelineKind::Attempt.as_str() && t.refund_id.is_none()).count();
        let replayed = tl.iter().any(|t| t.replayed && t.refund_id.is_none());
        Ok(CheckoutReport {
            checkout_key: p.idempotency_key.clone(),
            state: p.state.as_str().to_string(),
            outcome: CheckoutOutcome::of(p.state),
            psp_payment_id: p.psp_payment_id.clone(),
            attempts: attempts as u32,
            amount: p.amount.amount_minor,
            currency: p.amount.currency.code().to_string(),
            replayed,
            message: p.last_error.clone(),
            error_code: None,
        })
    }

    fn report_key(&self, key: &str) -> Result<CheckoutReport> {
        let p = self.payment(key)?;
        self.report(&p)
    }

    // ------------------------------------------------------------ checkout entry points

    /// What a checkout call tells the cashier when it ended in an error after the key
    /// was committed (design §3, rule 11). An error about the request itself (refused
    /// input, a guard) changes nothing and is passed on. Any other error — the disk
    /// filled while recording the PSP's answer, an alarm — says nothing about the
    /// money: the payment is reported as the ledger holds it, which for one still in
    /// flight means "pending" with its key, resolved later with that key.
    fn told(&self, key: &str, res: Result<CheckoutReport>) -> Result<CheckoutReport> {
        let e = match res {
            Ok(r) => return Ok(r),
            Err(e) => e,
        };
        match &e {
            EngineError::InvalidInput(_)
            | EngineError::UnknownPayment(_)
            | EngineError::RefundExceedsCaptured { .. }
            | EngineError::WrongState { .. }
            | EngineError::PreviousOutcomeUnknown { .. }
            | EngineError::AlreadyPaid { .. }
            | EngineError::LaterPaymentExists { .. }
            | EngineError::OfflineRefused { .. }
            | EngineError::Unresolved { .. } => return Err(e),
            EngineError::PspConfig(_) | EngineError::PspRejected(_) | EngineError::Alarm(_) | EngineError::Ledger(_) => {}
        }
        let read = self
            .with_reader(|l| l.payment_by_key(key))
            .or_else(|_| self.with_ledger(|l| l.payment_by_key(key)));
        let p = match read {
            Ok(Some(p)) => p,
            Ok(None) | Err(_) => return Err(EngineError::Unresolved { key: key.to_string(), source: Box::new(e) }),
        };
        let mut r = match self.report(&p) {
            Ok(r) => r,
            Err(_) => CheckoutReport {
                checkout_key: p.idempotency_key.clone(),
                state: p.state.as_str().to_string(),
                outcome: CheckoutOutcome::of(p.state),
                psp_payment_id: p.psp_payment_id.clone(),
                attempts: 0,
                amount: p.amount.amount_minor,
                currency: p.amount.currency.code().to_string(),
                replayed: false,
                message: None,
                error_code: None,
            },
        };
        r.message = Some(match r.outcome {
            CheckoutOutcome::Pending => format!("{e}; the outcome is not known yet: the register resolves it with the same key"),
            CheckoutOutcome::Paid
            | CheckoutOutcome::Authorized
            | CheckoutOutcome::Declined
            | CheckoutOutcome::Failed
            | CheckoutOutcome::QueuedOffline
            | CheckoutOutcome::Canceled
            | CheckoutOutcome::Refunded => e.to_string(),
        });
        r.error_code = Some(e.code().to_string());
        Ok(r)
    }

    /// A checkout without a cart (CLI `checkout --amount`): a new key and the
    /// exact parameters are committed, then the interactive phase runs.
    pub async fn checkout_amount(&self, amount: Money, options: CheckoutOptions) -> Result<CheckoutReport> {
        validate_options(&options)?;
        let now = self.now();
        let p = self.with_ledger(|l| l.create_payment(&NewPayment { amount, options }, now))?;
        self.crash(CrashPoint::AfterKeyCommit);
        let res = self.drive_created_here(&p.idempotency_key).await;
        self.told(&p.idempotency_key, res)
    }

    /// The Charge button for a cart. Pressing it again, double clicks and
    /// Enter-mashing reuse the cart's open checkout (same key); a finished
    /// checkout is reported as it is.
    pub async fn charge_cart(&self, cart: CartId, options: CheckoutOptions) -> Result<CheckoutReport> {
        validate_options(&options)?;
        let now = self.now();
        let existing = self.with_ledger(|l| l.open_checkout_for_cart(cart))?;
        let key = match existing {
            Some(p) => p.idempotency_key,
            None => {
                // The cart's last checkout is finished (paid, accepted offline, declined
                // or abandoned): pressing Charge again reports it. A new key needs
                // explicit intent (`new_payment_after`).
                match self.with_ledger(|l| l.last_payment_for_cart(cart))? {
                    // Opened by a concurrent caller since we looked: drive that one.
                    Some(last) if last.state.is_checkout_open() => {
                        let res = self.drive(&last.idempotency_key, DriveMode::Interactive).await;
                        return self.told(&last.idempotency_key, res);
                    }
                    Some(last) => return self.report(&last),
                    None => {}
                }
                let co = self.with_ledger(|l| l.open_checkout(cart, &options, now))?;
                if co.is_new {
                    self.crash(CrashPoint::AfterKeyCommit);
                    let res = self.drive_created_here(&co.payment.idempotency_key).await;
                    return self.told(&co.payment.idempotency_key, res);
                }
                co.payment.idempotency_key
            }
        };
        // An open checkout found in the ledger: it may have been sent already (by a
        // concurrent press, or by a process that crashed before saving the result).
        let res = self.drive(&key, DriveMode::Interactive).await;
        self.told(&key, res)
    }

    /// The cashier explicitly starts a new payment after `previous` (e.g. "Try
    /// another card" after a decline): a new key. Refused while `previous` is in
    /// flight (outcome unknown) unless `override_reason` is given, which is
    /// written to the audit log. Refused if `previous` already went through.
    ///
    /// At most one new payment per `previous` (the ledger links them): when `previous`
    /// already has one — the command was re-run, or a crash hid its answer — no other is
    /// made. A successor still in flight is resumed with its own key, a paid or queued one
    /// is reported, and one that ended declined or canceled is refused with
    /// [`EngineError::LaterPaymentExists`] naming it (try again after that one instead).
    pub async fn new_payment_after(
        &self,
        previous: &str,
        options: CheckoutOptions,
        override_reason: Option<&str>,
    ) -> Result<CheckoutReport> {
        validate_options(&options)?;
        let prev = self.payment(previous)?;
        if let Some(next) = self.with_ledger(|l| l.successor_of(prev.id))? {
            return self.resume_successor(&prev, &next).await;
        }
        self.check_new_intent(&prev, override_reason)?;
        let now = self.now();
        let new = NewPayment { amount: prev.amount, options: options.clone() };
        // A cart whose checkout is still open (unknown outcome): the ledger opens the new
        // one and writes the audit row in one transaction.
        let audited = prev.cart_id.is_some() && prev.state.is_checkout_open();
        let after = match prev.cart_id {
            Some(cart_id) => After::Cart {
                cart_id,
                options: &options,
                override_reason: audited.then(|| override_reason.unwrap_or_default()),
            },
            None => After::Amount(&new),
        };
        let co = self.with_ledger(|l| l.payment_after(prev.id, after, now))?;
        let p = co.payment;
        if !co.is_new {
            // Another caller made the successor meanwhile, or the cart's open checkout.
            if let Some(next) = self.with_ledger(|l| l.successor_of(prev.id))? {
                return self.resume_successor(&prev, &next).await;
            }
            let res = self.drive(&p.idempotency_key, DriveMode::Interactive).await;
            return self.told(&p.idempotency_key, res);
        }
        if override_reason.is_some() && is_unknown(prev.state) {
            let detail = format!("previous {} ({}) -> new {}", prev.idempotency_key, prev.state, p.idempotency_key);
            let reason = override_reason.unwrap_or_default().to_string();
            if !audited {
                self.with_ledger(|l| l.audit("new_payment_override", &reason, Some(&detail), now))?;
            }
            let _ = self.with_ledger(|l| {
                l.append_timeline(
                    prev.id,
                    &TimelineInput {
                        kind: Some(TimelineKind::Note),
                        detail: format!("cashier started a new payment {} anyway: {reason}", p.idempotency_key),
                        ..Default::default()
                    },
                    now,
                )
            });
        }
        self.crash(CrashPoint::AfterKeyCommit);
        let res = self.drive_created_here(&p.idempotency_key).await;
        self.told(&p.idempotency_key, res)
    }

    /// `previous` already has its new payment `next`: never a second one.
    async fn resume_successor(&self, prev: &Payment, next: &Payment) -> Result<CheckoutReport> {
        match next.state {
            PaymentState::Failed | PaymentState::Canceled => Err(EngineError::LaterPaymentExists {
                key: prev.idempotency_key.clone(),
                later: next.idempotency_key.clone(),
                state: next.state.as_str().into(),
            }),
            // In flight: the same key again (it may have been sent already).
            PaymentState::Created | PaymentState::Authorizing | PaymentState::Capturing => {
                let res = self.drive(&next.idempotency_key, DriveMode::Interactive).await;
                self.told(&next.idempotency_key, res)
            }
            // Queued offline (forwarded in order by the background), authorized, paid or
            // refunded since: it went through (or will be forwarded); nothing to send.
            PaymentState::QueuedOffline
            | PaymentState::Authorized
            | PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded => self.report(next),
        }
    }

    fn check_new_intent(&self, prev: &Payment, override_reason: Option<&str>) -> Result<()> {
        match prev.state {
            PaymentState::Failed | PaymentState::Canceled => Ok(()),
            PaymentState::Created | PaymentState::Authorizing | PaymentState::QueuedOffline => {
                match override_reason.map(str::trim) {
                    Some(r) if !r.is_empty() => Ok(()),
                    Some(_) => Err(EngineError::InvalidInput("an override needs a reason".into())),
                    None => Err(EngineError::PreviousOutcomeUnknown {
                        key: prev.idempotency_key.clone(),
                        state: prev.state.as_str().into(),
                    }),
                }
            }
            PaymentState::Authorized
            | PaymentState::Capturing
            | PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded => Err(EngineError::AlreadyPaid {
                key: prev.idempotency_key.clone(),
                state: prev.state.as_str().into(),
            }),
        }
    }

    /// The cashier's "retry" (or any re-drive): same key, stored parameters.
    pub async fn retry_checkout(&self, key: &str) -> Result<CheckoutReport> {
        let res = self.drive(key, DriveMode::Interactive).await;
        self.told(key, res)
    }

    /// A payment's current report.
    pub fn status_of(&self, key: &str) -> Result<CheckoutReport> {
        self.report_key(key)
    }

    /// Newest first (a reader connection: never waits behind a checkout's commit).
    pub fn list_payments(&self, limit: i64, offset: i64) -> Result<Vec<Payment>> {
        Ok(self.with_reader(|l| l.list_payments(limit, offset))?)
    }

    /// One payment with its timeline and refunds, read together on one reader (one
    /// consistent snapshot per statement; never behind a checkout's commit).
    pub fn payment_view(&self, key: &str) -> Result<PaymentView> {
        self.with_reader(|l| {
            let payment = l.payment_by_key(key)?.ok_or_else(|| EngineError::UnknownPayment(key.to_string()))?;
            let timeline = l.timeline(payment.id)?;
            let refunds = l.refunds_for_payment(payment.id)?;
            Ok(PaymentView { payment, timeline, refunds })
        })
    }

    pub fn status(&self) -> Result<EngineStatus> {
        let q = self.with_ledger(|l| l.offline_queue())?.len() as u32;
        let f = self.with_ledger(|l| l.payments_needing_recovery())?.len() as u32;
        Ok(EngineStatus {
            psp_online: *self.inner.online.lock().unwrap(),
            queued_offline: q,
            in_flight: f,
            last_sync_ms: *self.inner.last_sync_ms.lock().unwrap(),
        })
    }

    // ------------------------------------------------------------ the core

    /// The interactive first drive of a payment this very call committed (its key is
    /// fresh: no process can have sent it before). Only here may "every attempt was
    /// refused" prove that nothing reached the PSP.
    async fn drive_created_here(&self, key: &str) -> Result<CheckoutReport> {
        self.drive_inner(key, DriveMode::Interactive, true).await
    }

    /// Drive a payment found in the ledger. One still `created` may have been sent
    /// already: a process can crash after its first byte left and before anything
    /// about the attempt was saved (nothing durable is written before the network,
    /// to keep a paid checkout at two commits). So it is never concluded "never sent".
    async fn drive(&self, key: &str, mode: DriveMode) -> Result<CheckoutReport> {
        self.drive_inner(key, mode, false).await
    }

    async fn drive_inner(&self, key: &str, mode: DriveMode, created_here: bool) -> Result<CheckoutReport> {
        let _flight = self.flight(key).await;
        let p = self.payment(key)?;
        match p.state {
            PaymentState::Created | PaymentState::Authorizing | PaymentState::QueuedOffline => {}
            PaymentState::Capturing => {
                drop(_flight);
                return self.resolve_capture(&p).await;
            }
            _ => return self.report(&p),
        }
        let subject = Subject::Checkout(key.to_string());
        let now = self.now();
        if p.last_error.as_deref().is_some_and(|e| e.starts_with(OFFLINE_REFUSED_MARK)) {
            // Refused offline after attempts that may have reached the PSP: never
            // resend (the customer paid another way); the PSP's records decide.
            return self.resolve_by_search(&p, "refused offline; checking whether it reached the PSP").await;
        }
        let first = Some(p.first_attempt_at_ms.unwrap_or(p.created_at_ms));
        if !self.inner.cfg.window.may_send(first, now) {
            return self.resolve_by_search(&p, "dedup window passed: never resending this key").await;
        }
        let policy = match mode {
            DriveMode::Interactive => &self.inner.cfg.interactive,
            DriveMode::Background | DriveMode::Forward => &self.inner.cfg.background,
        };
        let prior = self.attempt_count(p.id)?;
        let form = p.request_params.0.clone();
        let psp = &self.inner.psp;
        let (res, recs) = run_phase::<PaymentIntent>(
            psp,
            { let c = psp.clone(); let k = key.to_string(); move || c.create_intent_request_from_form(form.clone(), &k) },
            policy,
            &self.inner.clock,
            &self.inner.rng,
            &self.inner.notifier,
            &subject,
            prior + 1,
        )
        .await;
        self.note_connectivity(&recs);
        if recs.iter().any(|r| !NEVER_SENT_OUTCOMES.contains(&r.outcome.as_str())) {
            self.crash(CrashPoint::AfterResponseBeforeCommit);
        }
        let forwarding = p.state == PaymentState::QueuedOffline;
        match res {
            PhaseResult::Final(AttemptOutcome::Ok { value: pi, replayed }) => {
                let via = if replayed { "replay" } else { "reply" };
                let p = self.settle_with_intent(&p, &pi, &recs, via)?;
                self.crash(CrashPoint::AfterCommit);
                if forwarding {
                    let declined = p.state == PaymentState::Failed;
                    self.notify(Notification::Forwarded { subject: subject.clone(), state: p.state.as_str().into(), declined });
                }
                self.report(&p)
            }
            PhaseResult::Final(AttemptOutcome::Declined { decline, .. }) => {
                let msg = format!("declined: {} ({})", decline.message, decline.code);
                // Keep the PSP's id with the failed row (its UNIQUE guards a mix-up),
                // in the same commit as the attempts and the move to failed.
                let p = self.settle_state_with(&p, PaymentState::Failed, &recs, Some(&msg), "declined", decline.payment_intent.as_ref())?;
                self.crash(CrashPoint::AfterCommit);
                if forwarding {
                    self.notify(Notification::Forwarded { subject: subject.clone(), state: "failed".into(), declined: true });
                    self.notify(Notification::Alarm {
                        subject: Some(subject.clone()),
                        code: "declined_after_forwarding".into(),
                        message: format!(
                            "An offline payment of {} was DECLINED when forwarded: {}. Collect payment another way.",
                            p.amount, decline.message
                        ),
                    });
                }
                self.report(&p)
            }
            PhaseResult::Final(AttemptOutcome::Unknown { status, replayed, message }) => {
                self.record_attempts(&p, &recs, true)?;
                let why = format!(
                    "the PSP answered {status}{} ({message}); outcome unknown, resolving by search",
                    if replayed { " (replayed)" } else { "" }
                );
                let p = self.payment(key)?;
                self.resolve_by_search(&p, &why).await
            }
            PhaseResult::Final(AttemptOutcome::Fatal(f)) => {
                let first_drive = created_here && prior == 0 && p.state == PaymentState::Created;
                self.on_fatal(&p, f, &recs, first_drive)
            }
            PhaseResult::Final(AttemptOutcome::Retry { reason, .. }) => {
                self.record_attempts(&p, &recs, true)?;
                self.notify(Notification::MovedToBackground { subject, reason: reason.words() });
                self.report_key(key)
            }
            PhaseResult::Exhausted { last, never_sent, unreachable } => {
                // "Every attempt refused" proves nothing was sent only for this drive's
                // own attempts on a key this call created, with no earlier attempt.
                let first_drive = created_here && prior == 0 && p.state == PaymentState::Created;
                let never_sent = never_sent && first_drive;
                // Recovery, the background queue and the forwarder never newly accept a
                // payment offline: one found `created` may already be charged; it stays
                // in flight (authorizing) and is retried with the same key.
                let may_go_offline = mode == DriveMode::Interactive && p.state == PaymentState::Created;
                if unreachable && (forwarding || may_go_offline) {
                    if forwarding {
                        // Still offline: stays queued, in order.
                        self.record_attempts(&p, &recs, false)?;
                        return self.report_key(key);
                    }
                    return self.go_offline(&p, &recs, never_sent).await;
                }
                self.record_attempts(&p, &recs, true)?;
                let p = self.payment(key)?;
                self.notify(Notification::MovedToBackground { subject, reason: last.words() });
                self.report(&p)
            }
        }
    }

    fn attempt_count(&self, id: PaymentId) -> Result<u32> {
        let tl = self.with_ledger(|l| l.timeline(id))?;
        Ok(tl.iter().filter(|t| t.kind == TimelineKind::Attempt.as_str() && t.refund_id.is_none()).count() as u32)
    }

    /// Timeline rows for the attempts; `to_authorizing` also moves a
    /// `created` / `queued_offline` row to `authorizing` (a request may be out) — all
    /// in one ledger commit.
    fn record_attempts(&self, p: &Payment, recs: &[AttemptRecord], to_authorizing: bool) -> Result<()> {
        if recs.is_empty() && !(to_authorizing && matches!(p.state, PaymentState::Created | PaymentState::QueuedOffline)) {
            return Ok(());
        }
        let s = CheckoutSettlement { attempts: self.attempt_rows(recs), sent: to_authorizing, ..Default::default() };
        self.settle(p, &s)?;
        Ok(())
    }

    fn attempt_rows(&self, recs: &[AttemptRecord]) -> Vec<(TimelineInput, i64)> {
        let now = self.now();
        recs.iter().map(|r| (attempt_input(r), r.started_ms.min(now))).collect()
    }

    /// One ledger commit for what an attempt phase ended with (issue 4: at most two
    /// durable commits per checkout — the key before the network, then this).
    fn settle(&self, p: &Payment, s: &CheckoutSettlement) -> Result<Payment> {
        let now = self.now();
        match self.with_ledger(|l| l.settle_checkout(p.id, s, now))? {
            SettleOutcome::Settled(p) => Ok(p),
            SettleOutcome::PspConflict(other) => Err(self.psp_conflict(p, other)),
        }
    }

    fn psp_conflict(&self, p: &Payment, other: RecordOutcome) -> EngineError {
        let msg = format!(
            "ledger and PSP disagree on {} ({}): {other:?}",
            p.idempotency_key,
            other.differing_field().unwrap_or("?")
        );
        self.notify(Notification::Alarm {
            subject: Some(Subject::Checkout(p.idempotency_key.clone())),
            code: "exists_with_different".into(),
            message: msg.clone(),
        });
        EngineError::Alarm(msg)
    }

    fn psp_result(p: &Payment, pi: &PaymentIntent) -> PspResult {
        PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: pi.id.clone(), amount: p.amount, state_if_new: p.state }
    }

    /// Move a payment to `to` along the table, tolerating concurrent movers
    /// (another process or the event consumer may have moved it already).
    fn move_to(&self, id: PaymentId, to: PaymentState, detail: &str) -> Result<PaymentState> {
        for _ in 0..4 {
            let cur = self.with_ledger(|l| l.payment_by_id(id))?.state;
            if cur == to {
                return Ok(cur);
            }
            let path: Vec<PaymentState> = match (cur, to) {
                (PaymentState::Created | PaymentState::QueuedOffline, PaymentState::Authorizing) => vec![to],
                (PaymentState::Created | PaymentState::QueuedOffline, t)
                    if matches!(t, PaymentState::Captured | PaymentState::Authorized | PaymentState::Failed) =>
                {
                    vec![PaymentState::Authorizing, t]
                }
                (c, t) if c.can_transition_to(t) => vec![t],
                (c, t) => {
                    // Already past it (e.g. an event captured it first): keep what is there.
                    tracing::info!(?c, ?t, "no move: state already advanced");
                    return Ok(c);
                }
            };
            let mut from = cur;
            let mut stale = false;
            for step in path {
                let now = self.now();
                match self.with_ledger(|l| l.transition(id, from, step, detail, now)) {
                    Ok(o) => from = o.state(),
                    Err(paydesk_ledger::Error::StaleState { .. }) => {
                        stale = true;
                        break;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            if !stale {
                return Ok(from);
            }
        }
        Ok(self.with_ledger(|l| l.payment_by_id(id))?.state)
    }

    fn settle_with_intent(&self, p: &Payment, pi: &PaymentIntent, recs: &[AttemptRecord], via: &str) -> Result<Payment> {
        if pi.amount != 0 && (pi.amount != p.amount.amount_minor || !pi.currency.eq_ignore_ascii_case(p.amount.currency.code())) {
            let msg = format!(
                "PSP payment {} is {} {} but checkout {} is {}",
                pi.id, pi.amount, pi.currency, p.idempotency_key, p.amount
            );
            self.record_attempts(p, recs, true)?;
            self.notify(Notification::Alarm {
                subject: Some(Subject::Checkout(p.idempotency_key.clone())),
                code: "amount_mismatch".into(),
                message: msg.clone(),
            });
            return Err(EngineError::Alarm(msg));
        }
        let target = match pi.pi_status() {
            PiStatus::Succeeded => Some(PaymentState::Captured),
            PiStatus::RequiresCapture => Some(PaymentState::Authorized),
            PiStatus::Failed => Some(PaymentState::Failed),
            PiStatus::Canceled => Some(PaymentState::Canceled),
            PiStatus::Other => None,
        };
        let msg = pi.last_payment_error.as_ref().and_then(|e| e.message.clone());
        match target {
            Some(t) => self.settle_state_with(p, t, recs, msg.as_deref(), via, Some(pi)),
            None => {
                // Still processing at the PSP: keep the id and the attempts, stay in flight.
                let s = CheckoutSettlement {
                    attempts: self.attempt_rows(recs),
                    psp: Some(Self::psp_result(p, pi)),
                    sent: true,
                    ..Default::default()
                };
                self.settle(p, &s)
            }
        }
    }

    /// Attempts, the PSP's id (if any), the last error and the state path to `to`, in
    /// ONE ledger commit.
    fn settle_state_with(
        &self,
        p: &Payment,
        to: PaymentState,
        recs: &[AttemptRecord],
        last_error: Option<&str>,
        via: &str,
        pi: Option<&PaymentIntent>,
    ) -> Result<Payment> {
        let s = CheckoutSettlement {
            attempts: self.attempt_rows(recs),
            psp: pi.map(|pi| Self::psp_result(p, pi)),
            last_error: last_error.map(str::to_string),
            target: Some(to),
            sent: true,
            via: via.to_string(),
        };
        let p = self.settle(p, &s)?;
        self.notify(Notification::Resolved {
            subject: Subject::Checkout(p.idempotency_key.clone()),
            state: p.state.as_str().into(),
            via: via.into(),
        });
        Ok(p)
    }

    /// A non-retryable answer. What the cashier is told must stay true (design §3,
    /// rule 11): `failed` only when every attempt of this key is proven to have executed
    /// nothing — this call made the key and no attempt of it may have run at the PSP.
    /// Otherwise the payment stays in flight with its key ("pending"), to be resolved
    /// by recovery with the same key once the settings are right.
    fn on_fatal(&self, p: &Payment, f: Fatal, recs: &[AttemptRecord], first_drive: bool) -> Result<CheckoutReport> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let now = self.now();
        let message = f.message();
        // A validation 400 to the same key and parameters also proves that no earlier
        // attempt executed: an executed key is answered by replay, never re-validated.
        let proven = match &f {
            Fatal::BadRequest(_) => true,
            Fatal::Auth(_) | Fatal::Config(_) | Fatal::NotFound(_) | Fatal::Unexpected(..) | Fatal::NotAPsp(..) => {
                first_drive && f.proves_not_executed() && recs.iter().all(|r| r.executed_nothing)
            }
            Fatal::IdempotencyMismatch(_) => false,
        };
        match &f {
            Fatal::Auth(_) | Fatal::Config(_) | Fatal::IdempotencyMismatch(_) | Fatal::NotAPsp(..) => {
                self.notify(Notification::Alarm { subject: Some(subject), code: f.code().into(), message: message.clone() });
            }
            Fatal::BadRequest(_) | Fatal::NotFound(_) | Fatal::Unexpected(..) => {}
        }
        if proven {
            let p = self.settle_state_with(p, PaymentState::Failed, recs, Some(&message), "rejected", None)?;
            let mut r = self.report(&p)?;
            debug_assert_eq!(p.state, PaymentState::Failed);
            r.outcome = CheckoutOutcome::Failed;
            r.error_code = Some(f.code().to_string());
            return Ok(r);
        }
        self.record_attempts(p, recs, true)?;
        self.with_ledger(|l| l.set_last_error(p.id, Some(&message), now))?;
        let mut r = self.report_key(&p.idempotency_key)?;
        r.error_code = Some(f.code().to_string());
        Ok(r)
    }

    async fn go_offline(&self, p: &Payment, recs: &[AttemptRecord], never_sent: bool) -> Result<CheckoutReport> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let now = self.now();
        let queue = self.with_ledger(|l| l.offline_queue())?;
        let stored: Vec<(i64, i64)> = queue
            .iter()
            .filter(|q| q.amount.currency == p.amount.currency)
            .map(|q| (q.amount.amount_minor, q.created_at_ms))
            .collect();
        let count_all: Vec<(i64, i64)> = queue.iter().map(|q| (0, q.created_at_ms)).collect();
        let limits = &self.inner.cfg.offline;
        let check = limits.check(p.amount.amount_minor, &stored, now).and_then(|_| {
            // count and age across currencies
            OfflineLimits { max_per_payment: i64::MAX, max_total: i64::MAX, ..limits.clone() }.check(0, &count_all, now)
        });
        match check {
            Ok(()) => {
                self.with_ledger(|l| -> Result<()> {
                    for r in recs {
                        l.record_attempt(p.id, &attempt_input(r), r.started_ms.min(now))?;
                    }
                    Ok(())
                })?;
                self.move_to(p.id, PaymentState::QueuedOffline, "PSP unreachable: accepted offline")?;
                self.notify(Notification::QueuedOffline {
                    subject,
                    amount: p.amount.amount_minor,
                    currency: p.amount.currency.code().into(),
                });
                self.report_key(&p.idempotency_key)
            }
            Err(refusal) => self.refuse_offline(p, recs, never_sent, refusal),
        }
    }

    fn refuse_offline(&self, p: &Payment, recs: &[AttemptRecord], never_sent: bool, refusal: OfflineRefusal) -> Result<CheckoutReport> {
        let now = self.now();
        let reason = refusal.to_string();
        if never_sent {
            // Nothing reached the PSP: abandon the checkout; nothing charged.
            self.with_ledger(|l| -> Result<()> {
                for r in recs {
                    l.append_timeline(p.id, &attempt_input(r), now)?;
                }
                l.set_last_error(p.id, Some(&format!("{OFFLINE_REFUSED_MARK}: {reason}")), now)?;
                Ok(())
            })?;
            self.move_to(p.id, PaymentState::Canceled, "PSP unreachable and offline limit reached; nothing sent")?;
            Err(EngineError::OfflineRefused {
                key: p.idempotency_key.clone(),
                reason,
                detail: "Nothing was charged; take another form of payment.".into(),
            })
        } else {
            // Some attempt may have reached the PSP: never resend; search decides. The
            // customer may have been charged, so the cashier is told "pending" with the
            // key, never "not accepted" (design §3, rule 11).
            self.record_attempts(p, recs, true)?;
            self.with_ledger(|l| l.set_last_error(p.id, Some(&format!("{OFFLINE_REFUSED_MARK}: {reason}")), now))?;
            let mut r = self.report_key(&p.idempotency_key)?;
            debug_assert_eq!(r.outcome, CheckoutOutcome::Pending);
            r.message = Some(format!(
                "not accepted offline ({reason}), but an attempt may have reached the processor: the register checks \
                 with the same key and never resends it; do not take another payment until it is resolved"
            ));
            r.error_code = Some("offline_refused".into());
            Ok(r)
        }
    }

    /// When a search that finds nothing proves "never charged": `search_settle_ms` after
    /// the end of the most recent attempt that may have reached the PSP and executed
    /// there. Refused connections reached nothing, and a replayed answer executed
    /// nothing (the execution it replays was an earlier attempt). Without such an attempt
    /// on record (e.g. a crash lost it), the payment's first attempt, else its creation.
    fn search_conclusive_at_ms(&self, p: &Payment) -> Result<i64> {
        let tl = self.with_ledger(|l| l.timeline(p.id))?;
        let since = p.first_attempt_at_ms.unwrap_or(p.created_at_ms);
        let last_maybe_executed = tl
            .iter()
            .filter(|t| t.kind == TimelineKind::Attempt.as_str() && t.refund_id.is_none() && !t.replayed)
            .filter(|t| !t.outcome.as_deref().is_some_and(|o| NEVER_SENT_OUTCOMES.contains(&o)))
            .map(|t| t.at_ms.saturating_add(t.latency_ms.unwrap_or(0).max(0)))
            .max()
            .unwrap_or(since)
            .max(since);
        let settle = self.inner.cfg.search_settle_ms.min(MAX_SEARCH_SETTLE_MS) as i64;
        Ok(last_maybe_executed.saturating_add(settle))
    }

    /// Past the window, after a replayed 500, or for a refused-offline payment:
    /// look for the key in the PSP's metadata. Found = adopt it; not found =
    /// never charged, but only once search can be trusted to show it
    /// ([`EngineConfig::search_settle_ms`]): until then the payment stays as it is
    /// (pending) and the background passes search again.
    async fn resolve_by_search(&self, p: &Payment, why: &str) -> Result<CheckoutReport> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let key = p.idempotency_key.clone();
        let (c, k) = (self.inner.psp.clone(), key.clone());
        let res = self.background_get::<List<PaymentIntent>>(move || c.search_by_metadata_request("checkout_key", &k), &subject).await;
        let now = self.now();
        match res {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => {
                self.set_online(true);
                let found = value.data.into_iter().find(|pi| pi.metadata.get("checkout_key") == Some(&key));
                if found.is_none() {
                    let conclusive_at = self.search_conclusive_at_ms(p)?;
                    if now < conclusive_at {
                        // Search is eventually consistent: a PaymentIntent created moments
                        // ago may not be in its results yet. Not proof of anything yet.
                        let wait_s = (conclusive_at - now + 999) / 1000;
                        self.with_ledger(|l| {
                            l.append_timeline(
                                p.id,
                                &TimelineInput {
                                    kind: Some(TimelineKind::Note),
                                    detail: format!(
                                        "{why}; search: not found yet, which is not conclusive (search results lag behind the processor); conclusive in {wait_s} s (clock {conclusive_at} ms); still pending, checked again in the background"
                                    ),
                                    outcome: Some("search_not_conclusive".into()),
                                    ..Default::default()
                                },
                                now,
                            )
                        })?;
                        self.notify(Notification::MovedToBackground {
                            subject,
                            reason: format!("the processor's search does not show it yet; checking again in {wait_s} s"),
                        });
                        return self.report_key(&key);
                    }
                }
                let _ = self.with_ledger(|l| {
                    l.append_timeline(
                        p.id,
                        &TimelineInput {
                            kind: Some(TimelineKind::Note),
                            detail: format!("{why}; search: {}", found.as_ref().map(|f| f.id.as_str()).unwrap_or("not found")),
                            outcome: Some("search".into()),
                            ..Default::default()
                        },
                        now,
                    )
                });
                match found {
                    Some(pi) => {
                        let p = self.settle_with_intent(p, &pi, &[], "search")?;
                        self.report(&p)
                    }
                    None if p.state == PaymentState::QueuedOffline => {
                        // Accepted offline: the customer left with the goods, and the key
                        // can no longer be sent. Nothing was charged, so the store is owed
                        // this money: fail it loudly, never silently.
                        let msg = format!(
                            "offline payment of {} ({}) could not be forwarded before its key expired and the processor has no record of it: it was NOT charged. Collect payment another way",
                            p.amount, p.idempotency_key
                        );
                        let p = self.settle_state_with(p, PaymentState::Failed, &[], Some(&msg), "search", None)?;
                        self.notify(Notification::Forwarded { subject: subject.clone(), state: p.state.as_str().into(), declined: true });
                        self.notify(Notification::Alarm { subject: Some(subject), code: "offline_payment_not_collected".into(), message: msg });
                        self.report(&p)
                    }
                    None => {
                        let to = if p.state == PaymentState::Created { PaymentState::Canceled } else { PaymentState::Failed };
                        let p = self.settle_state_with(p, to, &[], Some("not found at the PSP: never charged"), "search", None)?;
                        self.report(&p)
                    }
                }
            }
            PhaseResult::Final(AttemptOutcome::Fatal(f)) => Err(EngineError::PspConfig(f.message())),
            _ => self.report(p),
        }
    }

    // ------------------------------------------------------------ capture / cancel

    /// Capture an authorized (manual-capture) payment, with its own key.
    pub async fn capture(&self, key: &str) -> Result<CheckoutReport> {
        // Under the payment's lock: a cancel holds it while it asks the PSP, and must
        // not find its authorized payment turned `capturing` meanwhile.
        let flight = self.flight(key).await;
        let p = self.payment(key)?;
        match p.state {
            PaymentState::Authorized => {
                self.move_to(p.id, PaymentState::Capturing, "capture requested")?;
                let p = self.payment(key)?;
                drop(flight); // resolve_capture takes it again
                self.resolve_capture(&p).await
            }
            PaymentState::Capturing => {
                drop(flight);
                self.resolve_capture(&p).await
            }
            PaymentState::Captured => self.report(&p),
            s => Err(EngineError::WrongState { key: key.into(), state: s.as_str().into(), what: "only an authorized payment can be captured".into() }),
        }
    }

    async fn resolve_capture(&self, p: &Payment) -> Result<CheckoutReport> {
        let _flight = self.flight(&p.idempotency_key).await;
        let Some(pi_id) = p.psp_payment_id.clone() else {
            return Err(EngineError::WrongState { key: p.idempotency_key.clone(), state: p.state.as_str().into(), what: "no PSP payment id".into() });
        };
        // GET first: always safe, and it tells whether the capture already happened.
        if let Some(pi) = self.get_intent(&pi_id, &Subject::Capture(p.idempotency_key.clone())).await {
            if pi.pi_status() != PiStatus::RequiresCapture {
                let p = self.settle_with_intent(p, &pi, &[], "capture check")?;
                return self.report(&p);
            }
        }
        let (known, recs) = self.pi_operation(p, &pi_id, PiOp::Capture).await?;
        match known {
            Some((pi, via)) => {
                let p = self.settle_with_intent(p, &pi, &recs, via)?;
                self.report(&p)
            }
            None => {
                self.record_attempts(p, &recs, false)?;
                self.report_key(&p.idempotency_key)
            }
        }
    }

    /// A GET (safe to repeat) under the background policy, with no progress
    /// notifications (lookups are not attempts of a payment).
    async fn background_get<T>(&self, make: impl Fn() -> crate::transport::HttpRequest + Send + Sync + 'static, subject: &Subject) -> PhaseResult<T>
    where
        T: serde::de::DeserializeOwned + Send + 'static,
    {
        let i = &self.inner;
        run_phase::<T>(&i.psp, make, &i.cfg.background, &i.clock, &i.rng, &Notifier::new(1), subject, 1).await.0
    }

    /// `GET /v1/payment_intents/:id` with the background policy; `None` when the PSP
    /// cannot be asked right now.
    async fn get_intent(&self, pi_id: &str, subject: &Subject) -> Option<PaymentIntent> {
        let c = self.inner.psp.clone();
        let id = pi_id.to_string();
        match self.background_get::<PaymentIntent>(move || c.get_intent_request(&id), subject).await {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => Some(value),
            _ => None,
        }
    }

    /// Capture or cancel an authorized PaymentIntent under the operation's current key
    /// (`<checkout>-capture`, or a key reissued after a stored failure). Returns the
    /// PaymentIntent when its state is known (with how it became known) and the
    /// attempts not yet recorded; `None` when the outcome is still open (the next pass
    /// retries with the same key).
    ///
    /// A 500 is stored by the PSP and replayed for that key until its retention ends:
    /// resending the key can never succeed. So the register stops resending it, asks
    /// the PSP for the truth (GET the PaymentIntent: the 500's execution is finished,
    /// so what GET shows is final for that key), and only if the operation really did
    /// not happen continues under a fresh key committed to the ledger before it is sent
    /// (rule 1). No second capture is possible: the PSP captures a PaymentIntent once,
    /// and a fresh key is only used after GET showed it still `requires_capture`. At most
    /// [`MAX_KEY_REISSUES`] fresh keys; past that the payment needs a person (alarm).
    async fn pi_operation(&self, p: &Payment, pi_id: &str, op: PiOp) -> Result<(Option<(PaymentIntent, &'static str)>, Vec<AttemptRecord>)> {
        let subject = op.subject(&p.idempotency_key);
        let root = psp_key_prefix(p, op.name());
        let psp = &self.inner.psp;
        let mut recs_all: Vec<AttemptRecord> = Vec::new();
        for _ in 0..=MAX_KEY_REISSUES {
            let cur = self.with_ledger(|l| l.current_operation_key(op.reissue(), &root))?;
            let (res, recs) = run_phase::<PaymentIntent>(
                psp,
                { let c = psp.clone(); let id = pi_id.to_string(); let k = cur.key.clone(); move || op.request(&c, &id, &k) },
                &self.inner.cfg.interactive,
                &self.inner.clock,
                &self.inner.rng,
                &self.inner.notifier,
                &subject,
                recs_all.len() as u32 + 1,
            )
            .await;
            self.note_connectivity(&recs);
            recs_all.extend(recs);
            match res {
                PhaseResult::Final(AttemptOutcome::Ok { value, replayed }) => {
                    return Ok((Some((value, if replayed { op.via_replay() } else { op.name() })), recs_all));
                }
                PhaseResult::Final(AttemptOutcome::Fatal(f)) => {
                    self.record_attempts(p, &recs_all, false)?;
                    return Err(EngineError::PspRejected(f.message()));
                }
                PhaseResult::Final(AttemptOutcome::Unknown { status, message, .. }) => {
                    let Some(pi) = self.get_intent(pi_id, &subject).await else {
                        return Ok((None, recs_all));
                    };
                    if pi.pi_status() != PiStatus::RequiresCapture {
                        // It happened after all (or the intent moved on): the PSP's state decides.
                        return Ok((Some((pi, op.via_check())), recs_all));
                    }
                    self.record_attempts(p, &recs_all, false)?;
                    recs_all.clear();
                    let now = self.now();
                    if cur.generation >= MAX_KEY_REISSUES {
                        let msg = format!(
                            "{} of {} failed at the PSP under {} keys (last: {status} {message}); the payment is still authorized there. Needs attention: retry later or contact the processor",
                            op.name(), p.idempotency_key, cur.generation + 1
                        );
                        self.with_ledger(|l| l.set_last_error(p.id, Some(&msg), now))?;
                        self.notify(Notification::Alarm { subject: Some(subject.clone()), code: "needs_attention".into(), message: msg });
                        return Ok((None, recs_all));
                    }
                    let why = format!("the PSP stored {status} ({message}) for {} and the PaymentIntent is still requires_capture", cur.key);
                    self.with_ledger(|l| l.reissue_operation_key(p.id, op.reissue(), &root, cur.generation, &why, now))?;
                }
                _ => return Ok((None, recs_all)),
            }
        }
        Ok((None, recs_all))
    }

    /// Void an authorized payment (manual capture), or abandon a queued
    /// offline one that was never forwarded.
    pub async fn cancel(&self, key: &str) -> Result<CheckoutReport> {
        // The payment's lock first, then its state: the forwarder or a capture may be
        // driving it, and what they find decides what may be canceled.
        let _flight = self.flight(key).await;
        let p = self.payment(key)?;
        match p.state {
            PaymentState::QueuedOffline => {
                // Parked after attempts that may have reached the PSP (a reset, a
                // timeout): it may be charged, so it is forwarded with its key, not voided.
                let maybe_sent = self.with_ledger(|l| l.timeline(p.id))?.iter().any(|t| {
                    t.kind == "attempt" && !t.outcome.as_deref().is_some_and(|o| NEVER_SENT_OUTCOMES.contains(&o))
                });
                if maybe_sent {
                    return Err(EngineError::WrongState {
                        key: key.into(),
                        state: p.state.as_str().into(),
                        what: "an attempt of this offline payment may have reached the processor: it is forwarded with the same key, not voided".into(),
                    });
                }
                self.move_to(p.id, PaymentState::Canceled, "offline payment voided by the cashier")?;
                self.report_key(key)
            }
            PaymentState::Authorized => {
                let pi_id = p.psp_payment_id.clone().unwrap_or_default();
                match self.pi_operation(&p, &pi_id, PiOp::Cancel).await? {
                    (Some((pi, via)), recs) => {
                        let p = self.settle_with_intent(&p, &pi, &recs, via)?;
                        self.report(&p)
                    }
                    (None, recs) => {
                        self.record_attempts(&p, &recs, false)?;
                        Err(EngineError::PspRejected("cancel not confirmed yet; try again".into()))
                    }
                }
            }
            PaymentState::Canceled => self.report(&p),
            s => Err(EngineError::WrongState { key: key.into(), state: s.as_str().into(), what: "only an authorized or queued offline payment can be canceled".into() }),
        }
    }

    // ------------------------------------------------------------ refunds

    /// Refund `amount` (all that is left when `None`) of a captured payment,
    /// with the refund's own key committed before the network.
    pub async fn refund(&self, checkout_key: &str, amount: Option<i64>, reason: Option<&str>) -> Result<RefundReport> {
        let p = self.payment(checkout_key)?;
        if let Some(a) = amount {
            if a <= 0 {
                return Err(EngineError::InvalidInput(format!("refund amount must be greater than zero (got {a})")));
            }
        }
        let now = self.now();
        let refunds = self.with_ledger(|l| l.refunds_for_payment(p.id))?;
        if let Some(open) = refunds.iter().find(|r| !r.state.is_terminal()) {
            // The same refund pressed twice would be a second refund under a new key.
            return Err(refund_in_progress(checkout_key, &open.idempotency_key));
        }
        let reserved: i64 = refunds.iter().filter(|r| r.state.reserves_amount()).map(|r| r.amount.amount_minor).sum();
        let refundable = p.amount.amount_minor - reserved;
        let amt = amount.unwrap_or(refundable);
        if !p.state.is_refundable() {
            return Err(EngineError::WrongState {
                key: checkout_key.into(),
                state: p.state.as_str().into(),
                what: "nothing captured to refund".into(),
            });
        }
        if amt > refundable || amt <= 0 {
            return Err(EngineError::RefundExceedsCaptured { key: checkout_key.into(), requested: amt, refundable });
        }
        let r = self.with_ledger(|l| l.create_refund(p.id, amt, reason, now)).map_err(|e| match e {
            paydesk_ledger::Error::RefundExceedsCaptured { requested_minor, refundable_minor, .. } => {
                EngineError::RefundExceedsCaptured { key: checkout_key.into(), requested: requested_minor, refundable: refundable_minor }
            }
            paydesk_ledger::Error::RefundInProgress { refund_key, .. } => refund_in_progress(checkout_key, &refund_key),
            other => other.into(),
        })?;
        self.drive_refund(r.id, r.idempotency_key.clone(), DriveMode::Interactive).await
    }

    /// Drive a refund to its outcome. When the PSP stored a failure for its key and
    /// provably refunded nothing, the refund continues as a new refund under a fresh key
    /// (see [`Ledger::reissue_refund`]); that one is driven here too, at most
    /// [`MAX_KEY_REISSUES`] times.
    async fn drive_refund(&self, refund_id: paydesk_ledger::RefundId, _key: String, mode: DriveMode) -> Result<RefundReport> {
        let mut current = refund_id;
        loop {
            match self.drive_refund_once(current, mode).await? {
                RefundStep::Done(rep) => return Ok(rep),
                RefundStep::Reissued(next) => current = next,
            }
        }
    }

    async fn drive_refund_once(&self, refund_id: paydesk_ledger::RefundId, mode: DriveMode) -> Result<RefundStep> {
        let r = self.with_ledger(move |l| l.refund_by_id(refund_id))?;
        let _flight = self.flight(&r.idempotency_key).await;
        let r = self.with_ledger(move |l| l.refund_by_id(refund_id))?;
        let p = self.with_ledger(|l| l.payment_by_id(r.payment_id))?;
        if r.state.is_terminal() {
            return Ok(RefundStep::Done(self.refund_report(&r, &p)?));
        }
        let subject = Subject::Refund(r.idempotency_key.clone());
        let now = self.now();
        let first = Some(r.first_attempt_at_ms.unwrap_or(r.created_at_ms));
        if !self.inner.cfg.window.may_send(first, now) {
            // Past the dedup window the PSP may have forgotten the key: resending it could
            // refund twice. Never resend; look the refund up by its metadata instead.
            let why = "dedup window passed: never resending this refund key";
            return match self.find_refund_at_psp(&r, &p, &subject).await {
                RefundLookup::Found(found) => Ok(RefundStep::Done(self.record_found_refund(&r, &p, &found, why)?)),
                RefundLookup::Absent => {
                    // Provably never refunded (every page listed; a request that old has
                    // long finished). Fail it visibly rather than resend under a new key:
                    // like a checkout not found past the window (rule 6: never charged ->
                    // failed), a new key needs the cashier's explicit intent (rule 3) — a
                    // day later the customer may have been refunded another way, and an
                    // automatic refund now could pay out twice. Ledger = PSP exactly: no
                    // refund on either side; the amount is refundable again.
                    let msg = format!(
                        "refund of {} on {} never reached the processor before its key expired: nothing was refunded. Issue the refund again if it is still owed",
                        r.amount, p.idempotency_key
                    );
                    Ok(RefundStep::Done(self.fail_refund_visibly(&r, &p, &subject, &msg)?))
                }
                RefundLookup::Unavailable => Ok(RefundStep::Done(self.refund_report(&r, &p)?)),
            };
        }
        let policy = match mode {
            DriveMode::Interactive => &self.inner.cfg.interactive,
            _ => &self.inner.cfg.background,
        };
        let form = r.request_params.0.clone();
        let key = r.idempotency_key.clone();
        let psp = &self.inner.psp;
        let (res, recs) = run_phase::<PspRefund>(
            psp,
            {
                let timeout = psp.attempt_timeout;
                let key = key.clone();
                move || crate::transport::HttpRequest {
                    method: crate::transport::Method::Post,
                    path: "/v1/refunds".into(),
                    form: form.clone(),
                    idempotency_key: Some(key.clone()),
                    timeout,
                }
            },
            policy,
            &self.inner.clock,
            &self.inner.rng,
            &self.inner.notifier,
            &subject,
            1,
        )
        .await;
        self.note_connectivity(&recs);
        self.crash(CrashPoint::MidRefund);
        let now = self.now();
        self.with_ledger(|l| -> Result<()> {
            for rec in &recs {
                l.record_refund_attempt(r.id, &attempt_input(rec), rec.started_ms.min(now))?;
            }
            Ok(())
        })?;
        let outcome = match res {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => {
                let to = refund_state_of(&value);
                self.with_ledger(|l| l.record_refund_result(r.id, &value.id, to, now))?;
                Some(to)
            }
            PhaseResult::Final(AttemptOutcome::Fatal(Fatal::BadRequest(e))) => {
                // Refused by the PSP (not stored, nothing executed): failed, amount refundable again.
                if r.state == RefundState::Pending {
                    self.with_ledger(|l| l.transition_refund(r.id, RefundState::Pending, RefundState::Failed, now))?;
                }
                let _ = e;
                Some(RefundState::Failed)
            }
            PhaseResult::Final(AttemptOutcome::Fatal(f)) => return Err(EngineError::PspRejected(f.message())),
            PhaseResult::Final(AttemptOutcome::Unknown { status, message, .. }) => {
                // The PSP stored this 500 for the key and replays it until the key expires:
                // resending can never succeed. Its execution is finished, so the PSP's
                // refund list now tells the truth for this key.
                if r.state == RefundState::Pending {
                    let _ = self.with_ledger(|l| l.transition_refund(r.id, RefundState::Pending, RefundState::InFlight, now));
                }
                let r = self.with_ledger(|l| l.refund_by_id(r.id))?;
                let why = format!("the PSP answered {status} ({message}) for {key}");
                match self.find_refund_at_psp(&r, &p, &subject).await {
                    RefundLookup::Found(found) => return Ok(RefundStep::Done(self.record_found_refund(&r, &p, &found, &why)?)),
                    RefundLookup::Unavailable => None,
                    RefundLookup::Absent => {
                        // Nothing refunded under this key, and nothing ever will be: continue
                        // under a fresh key, committed (with the old row failed, in one
                        // transaction) before it is sent. The cashier asked for this refund
                        // seconds ago, so finishing it is the intent.
                        let generation = self.with_ledger(|l| l.refund_generation(&key))?;
                        if generation >= MAX_KEY_REISSUES {
                            let msg = format!(
                                "refund of {} on {} failed at the processor under {} keys ({status} {message}); nothing was refunded. Needs attention: issue it again later or refund another way",
                                r.amount, p.idempotency_key, generation + 1
                            );
                            return Ok(RefundStep::Done(self.fail_refund_visibly(&r, &p, &subject, &msg)?));
                        }
                        let why = format!("{why}; no refund with this key at the PSP");
                        let next = self.with_ledger(|l| l.reissue_refund(r.id, &why, now))?;
                        return Ok(RefundStep::Reissued(next.id));
                    }
                }
            }
            _ => {
                if r.state == RefundState::Pending && !recs.is_empty() {
                    let _ = self.with_ledger(|l| l.transition_refund(r.id, RefundState::Pending, RefundState::InFlight, now));
                }
                None
            }
        };
        if let Some(s) = outcome {
            self.notify(Notification::Resolved { subject, state: s.as_str().into(), via: "reply".into() });
        }
        let r = self.with_ledger(|l| l.refund_by_id(r.id))?;
        let p = self.with_ledger(|l| l.payment_by_id(r.payment_id))?;
        Ok(RefundStep::Done(self.refund_report(&r, &p)?))
    }

    /// Look a refund up at the PSP by its metadata (`refund_key`), listing every refund
    /// of its PaymentIntent (`GET /v1/refunds?payment_intent=…`, paged, bounded).
    async fn find_refund_at_psp(&self, r: &Refund, p: &Payment, subject: &Subject) -> RefundLookup {
        let Some(pi_id) = r.request_params.get("payment_intent").map(str::to_string).or_else(|| p.psp_payment_id.clone()) else {
            return RefundLookup::Unavailable;
        };
        let psp = &self.inner.psp;
        let mut after: Option<String> = None;
        for _ in 0..MAX_REFUND_LIST_PAGES {
            let a = after.clone();
            let (c, id) = (psp.clone(), pi_id.clone());
            let page = match self.background_get::<List<PspRefund>>(move || c.list_refunds_page_request(&id, a.as_deref()), subject).await {
                PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => value,
                _ => return RefundLookup::Unavailable,
            };
            self.set_online(true);
            if let Some(found) = page.data.iter().find(|x| x.metadata.get("refund_key") == Some(&r.idempotency_key)) {
                return RefundLookup::Found(found.clone());
            }
            match page.data.last() {
                Some(last) if page.has_more => after = Some(last.id.clone()),
                _ => return RefundLookup::Absent,
            }
        }
        // More refunds than we are willing to page through: cannot prove absence.
        RefundLookup::Unavailable
    }

    fn record_found_refund(&self, r: &Refund, p: &Payment, found: &PspRefund, why: &str) -> Result<RefundReport> {
        let now = self.now();
        let to = refund_state_of(found);
        self.with_ledger(|l| -> Result<()> {
            l.append_timeline(
                p.id,
                &TimelineInput {
                    kind: Some(TimelineKind::Note),
                    detail: format!("{why}; refund list: found {} ({})", found.id, found.status),
                    outcome: Some("search".into()),
                    refund_id: Some(r.id),
                    ..Default::default()
                },
                now,
            )?;
            l.record_refund_result(r.id, &found.id, to, now)?;
            Ok(())
        })?;
        self.notify(Notification::Resolved { subject: Subject::Refund(r.idempotency_key.clone()), state: to.as_str().into(), via: "search".into() });
        let r = self.with_ledger(|l| l.refund_by_id(r.id))?;
        let p = self.with_ledger(|l| l.payment_by_id(r.payment_id))?;
        self.refund_report(&r, &p)
    }

    /// A refund that provably did not happen and will not be retried: `failed` (its
    /// amount refundable again), the reason in the timeline, an alarm on the screen.
    fn fail_refund_visibly(&self, r: &Refund, p: &Payment, subject: &Subject, msg: &str) -> Result<RefundReport> {
        let now = self.now();
        self.with_ledger(|l| -> Result<()> {
            l.append_timeline(
                p.id,
                &TimelineInput {
                    kind: Some(TimelineKind::Note),
                    detail: msg.to_string(),
                    outcome: Some("search".into()),
                    refund_id: Some(r.id),
                    ..Default::default()
                },
                now,
            )?;
            l.transition_refund(r.id, r.state, RefundState::Failed, now)?;
            Ok(())
        })?;
        self.notify(Notification::Alarm { subject: Some(subject.clone()), code: "refund_not_made".into(), message: msg.to_string() });
        self.notify(Notification::Resolved { subject: subject.clone(), state: "failed".into(), via: "search".into() });
        let r = self.with_ledger(|l| l.refund_by_id(r.id))?;
        let p = self.with_ledger(|l| l.payment_by_id(r.payment_id))?;
        let mut rep = self.refund_report(&r, &p)?;
        rep.message = Some(msg.to_string());
        Ok(rep)
    }

    fn refund_report(&self, r: &Refund, p: &Payment) -> Result<RefundReport> {
        let tl = self.with_ledger(|l| l.timeline(p.id))?;
        let attempts = tl.iter().filter(|t| t.kind == TimelineKind::Attempt.as_str() && t.refund_id == Some(r.id)).count() as u32;
        Ok(RefundReport {
            refund_key: r.idempotency_key.clone(),
            checkout_key: p.idempotency_key.clone(),
            state: r.state.as_str().into(),
            amount: r.amount.amount_minor,
            currency: r.amount.currency.code().into(),
            psp_refund_id: r.psp_refund_id.clone(),
            attempts,
            message: None,
        })
    }

    // ------------------------------------------------------------ recovery

    /// Rule 8: resolve every in-flight checkout, capture and refund; then
    /// forward the offline queue in order (rule 7). No cashier action needed.
    pub async fn recover(&self) -> Result<RecoverReport> {
        let mut rep = RecoverReport::default();
        let pending = self.with_ledger(|l| l.payments_needing_recovery())?;
        for p in pending {
            if p.state == PaymentState::Refunding {
                continue; // refunds below
            }
            rep.examined += 1;
            let before = p.state;
            match self.drive(&p.idempotency_key, DriveMode::Background).await {
                Ok(r) => {
                    let now_state = self.payment(&p.idempotency_key)?.state;
                    if let (Some(code), Some(m)) = (&r.error_code, &r.message) {
                        // Still pending for a reason a person should see (an alarm, the
                        // PSP refusing the settings).
                        rep.errors.push(format!("{}: {code}: {m}", p.idempotency_key));
                    }
                    if now_state.needs_recovery() || now_state == PaymentState::QueuedOffline {
                        rep.still_pending += 1;
                    } else {
                        if before == PaymentState::Capturing {
                            rep.captures_resolved += 1;
                        }
                        rep.resolved += 1;
                        if r.message.as_deref().is_some_and(|m| m.contains("never charged")) || self.resolved_by_search(&p)? {
                            rep.resolved_by_search += 1;
                        }
                    }
                }
                Err(e) => {
                    rep.still_pending += 1;
                    rep.errors.push(format!("{}: {e}", p.idempotency_key));
                }
            }
        }
        let refunds = self.with_ledger(|l| l.refunds_needing_recovery())?;
        for (rid, rkey) in refunds.into_iter().map(|r| (r.id, r.idempotency_key)) {
            match self.drive_refund(rid, rkey.clone(), DriveMode::Background).await {
                Ok(rr) if rr.state == "succeeded" || rr.state == "failed" => rep.refunds_resolved += 1,
                Ok(_) => rep.refunds_pending += 1,
                Err(e) => rep.errors.push(format!("refund {rkey}: {e}")),
            }
        }
        let (fwd, declined, still) = self.forward_offline().await?;
        rep.forwarded = fwd;
        rep.declined_after_forward = declined;
        rep.still_queued = still;
        Ok(rep)
    }

    fn resolved_by_search(&self, p: &Payment) -> Result<bool> {
        let tl = self.with_ledger(|l| l.timeline(p.id))?;
        Ok(tl.iter().any(|t| t.outcome.as_deref() == Some("search")))
    }

    /// Forward the store-and-forward queue, oldest first; stop at the first
    /// payment the PSP still cannot be reached for (keeps the order).
    /// Returns (forwarded, declined, still queued).
    pub async fn forward_offline(&self) -> Result<(u32, u32, u32)> {
        let queue = self.with_ledger(|l| l.offline_queue())?;
        let total = queue.len() as u32;
        let (mut fwd, mut declined) = (0, 0);
        for p in queue {
            let r = self.drive(&p.idempotency_key, DriveMode::Forward).await?;
            if r.outcome == CheckoutOutcome::QueuedOffline {
                break;
            }
            fwd += 1;
            if r.outcome == CheckoutOutcome::Declined {
                declined += 1;
            }
        }
        Ok((fwd, declined, total - fwd))
    }

    /// Run recovery now and then every `interval` until the returned handle is aborted.
    pub fn spawn_background(&self, interval: Duration) -> tokio::task::JoinHandle<()> {
        let e = self.clone();
        tokio::spawn(async move {
            loop {
                if let Err(err) = e.recover().await {
                    tracing::warn!(%err, "recovery pass failed");
                }
                if let Err(err) = e.consume_events().await {
                    tracing::warn!(%err, "event poll failed");
                }
                e.inner.clock.sleep(interval).await;
            }
        })
    }

    // ------------------------------------------------------------ events

    /// Rule 9: poll `/v1/events` (from the newest event seen minus the overlap
    /// window, so redelivery happens), apply each exactly once, oldest first.
    pub async fn consume_events(&self) -> Result<EventsReport> {
        let _one = self.inner.events_lock.lock().await;
        let mut rep = EventsReport::default();
        let now_s = self.now() / 1000;
        let stored = *self.inner.events_cursor.lock().unwrap();
        let since = match stored {
            Some(c) => c - self.inner.cfg.events_overlap.as_secs() as i64,
            None => {
                // No cursor yet: look back from now, or from this register's first payment
                // if that is older (a first poll long after the first sales — the PSP was
                // unreachable, the register was busy — must still see their events).
                let first_s = self.with_reader(|l| l.first_payment_created_at_ms())?.map(|ms| ms / 1000);
                first_s.map_or(now_s, |f| f.min(now_s)) - self.inner.cfg.events_lookback.as_secs() as i64
            }
        };
        let mut events: Vec<Event> = Vec::new();
        let mut after: Option<String> = None;
        let psp = &self.inner.psp;
        loop {
            let a = after.clone();
            let c = psp.clone();
            let res = self
                .background_get::<List<Event>>(move || c.list_events_request(Some(since.max(0)), a.as_deref(), 100), &Subject::Checkout("events".into()))
                .await;
            let page = match res {
                PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => value,
                PhaseResult::Final(AttemptOutcome::Fatal(f)) => return Err(EngineError::PspConfig(f.message())),
                _ => return Err(EngineError::PspRejected("event list unavailable; will retry".into())),
            };
            rep.pages += 1;
            let n = page.data.len();
            after = page.data.last().map(|e| e.id.clone());
            events.extend(page.data);
            if !page.has_more || n == 0 {
                break;
            }
        }
        self.set_online(true);
        rep.fetched = events.len() as u32;
        events.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
        let mut newest = None;
        for (i, ev) in events.iter().enumerate() {
            if i == 1 {
                self.crash(CrashPoint::MidEventApply);
            }
            let pe = to_psp_event(ev);
            let now = self.now();
            match self.with_ledger(|l| l.apply_event(&pe, now))? {
                ApplyOutcome::Applied { .. } => rep.applied += 1,
                ApplyOutcome::AlreadyApplied => rep.duplicates += 1,
            }
            newest = Some(newest.map_or(ev.created, |n: i64| n.max(ev.created)));
        }
        if let Some(n) = newest {
            let old = *self.inner.events_cursor.lock().unwrap();
            if old.is_none_or(|o| n > o) {
                // Every event up to `n` is applied (committed above): a restarted register
                // resumes from here. One small commit, only when the cursor moves.
                let now = self.now();
                let stored = self.with_ledger(|l| l.advance_event_cursor(&self.inner.events_psp, n.max(0), now))?;
                *self.inner.events_cursor.lock().unwrap() = Some(stored);
            }
        }
        Ok(rep)
    }
}

/// Pages of `GET /v1/refunds` read to prove a refund absent (100 refunds a page).
const MAX_REFUND_LIST_PAGES: usize = 20;

enum RefundStep {
    Done(RefundReport),
    /// Continued as this new refund under a fresh key.
    Reissued(paydesk_ledger::RefundId),
}

enum RefundLookup {
    Found(PspRefund),
    /// Every refund of the PaymentIntent was listed; none carries this refund's key.
    Absent,
    Unavailable,
}

fn refund_state_of(r: &PspRefund) -> RefundState {
    match r.status.as_str() {
        "succeeded" => RefundState::Succeeded,
        "failed" | "canceled" => RefundState::Failed,
        _ => RefundState::InFlight,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DriveMode {
    Interactive,
    Background,
    Forward,
}

/// Attempt outcomes after which the request certainly never reached the PSP (the app's
/// check before a PSP change uses the same list).
pub const NEVER_SENT_OUTCOMES: &[&str] = &["connection_refused", "connect_timeout"];

/// A refund refused because another refund of the payment is not settled yet. Reported
/// as `wrong_state` (the payment is `refunding`), so the app's existing mapping of
/// [`EngineError`] covers it.
fn refund_in_progress(checkout_key: &str, refund_key: &str) -> EngineError {
    EngineError::WrongState {
        key: checkout_key.to_string(),
        state: PaymentState::Refunding.as_str().to_string(),
        what: format!("a refund of this payment ({refund_key}) is still being confirmed; wait for it before refunding again"),
    }
}

fn is_unknown(s: PaymentState) -> bool {
    matches!(s, PaymentState::Created | PaymentState::Authorizing | PaymentState::QueuedOffline)
}

fn validate_options(o: &CheckoutOptions) -> Result<()> {
    let pm = o.payment_method.trim();
    if pm.is_empty() || pm.len() > 200 || !pm.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(EngineError::InvalidInput(format!("invalid payment method token {:?}", o.payment_method)));
    }
    Ok(())
}

fn attempt_input(r: &AttemptRecord) -> TimelineInput {
    TimelineInput {
        kind: Some(TimelineKind::Attempt),
        detail: match r.backoff_ms {
            Some(b) => format!("{}; next attempt in {b} ms", r.message),
            None => r.message.clone(),
        },
        outcome: Some(r.outcome.clone()),
        latency_ms: Some(r.latency_ms as i64),
        replayed: r.replayed,
        attempt_no: Some(r.attempt as i64),
        refund_id: None,
    }
}

/// Map a Stripe event to the ledger's event input.
pub fn to_psp_event(ev: &Event) -> PspEvent {
    let obj = &ev.data.object;
    let s = |k: &str| obj.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let meta = |k: &str| obj.get("metadata").and_then(|m| m.get(k)).and_then(|v| v.as_str()).map(str::to_string);
    let object_type = s("object").unwrap_or_default();
    let currency = s("currency").and_then(|c| c.parse::<Currency>().ok());
    let status = s("status");
    let kind = EventKind::from_stripe(&ev.event_type, status.as_deref());
    let (psp_payment_id, checkout_key, psp_refund_id, refund_key, amount) = match object_type.as_str() {
        "payment_intent" => {
            let amt = obj.get("amount").and_then(|v| v.as_i64());
            (s("id"), meta("checkout_key"), None, None, amt.zip(currency).map(|(a, c)| Money::new(a, c)))
        }
        "refund" => {
            let amt = obj.get("amount").and_then(|v| v.as_i64());
            (s("payment_intent"), meta("checkout_key"), s("id"), meta("refund_key"), amt.zip(currency).map(|(a, c)| Money::new(a, c)))
        }
        "charge" => {
            // charge.refunded: the refund is identified by the request's idempotency key
            // (our refund key); its amount comes from the ledger's refund row.
            (s("payment_intent"), meta("checkout_key"), None, ev.request.as_ref().and_then(|r| r.idempotency_key.clone()), None)
        }
        _ => (None, None, None, None, None),
    };
    PspEvent {
        event_id: ev.id.clone(),
        event_type: ev.event_type.clone(),
        kind,
        psp_payment_id,
        checkout_key,
        psp_refund_id,
        refund_key,
        amount,
    }
}

#[allow(dead_code)]
fn _send_checks(e: Engine) {
    fn assert_send<T: Send>(_: T) {}
    let e1 = e.clone();
    assert_send(async move { e1.drive("k", DriveMode::Background).await });
    let e2 = e.clone();
    assert_send(async move { e2.forward_offline().await });
    let e3 = e.clone();
    assert_send(async move { e3.consume_events().await });
    let e4 = e.clone();
    assert_send(async move { e4.refund("k", None, None).await });
    let e5 = e.clone();
    assert_send(async move { e5.capture("k").await });
}
