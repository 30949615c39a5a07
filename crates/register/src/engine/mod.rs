//! The register engine (record 0001, docs/design.md): one [`Engine`] shared by the app, the CLI and
//! the simulation. This module holds the shared vocabulary — configuration, crash
//! points, the engine's state ([`Inner`]), the single-writer / readers ledger access,
//! the per-key "flight" lock and connectivity — and each operation lives in its own
//! file with its own `impl Engine` block (see the crate README's table).

mod note;
mod checkout;
mod drive;
mod error;
mod events;
mod intent_ops;
mod offline;
mod reader;
mod recovery;
mod refund;
mod report;
mod sale;
mod search;
mod settle;

pub use error::{Attempted, EngineError, Result};
pub use events::{to_psp_event, MAX_EVENT_PAGES_PER_POLL};
pub use reader::{
    NotChargedWhy, PendingWhy, ReaderConfig, ReaderOutcome, ReaderRegistration, ReaderReport, ReaderTenderReport, TestCard,
    UnavailableWhy,
};
pub use sale::{checked_receipt_number, MAX_RECEIPT_CANDIDATES, MAX_RECEIPT_DIGITS};
pub use sale::{CancelReport, CardTenderReport, CashReport, ExchangeReport, RestoredExchangeReport, RestoredReturnReport, ReceiptCandidate, ReceiptCandidates, ReceiptOpen, ReturnReport, SaleRefundReport, SaleView, StoreTenderReport};
pub use report::{CheckoutOutcome, CheckoutReport, EngineStatus, EventsReport, PaymentView, RecoverReport, RefundReport};

use crate::clock::SharedClock;
use crate::notify::{Notification, Notifier, Subject};
use crate::offline::OfflineLimits;
use crate::psp::PspClient;
use crate::retry::{AttemptRecord, Phase, RetryPolicy};
use crate::rng::SharedRandom;
use crate::transport::SharedTransport;
use crate::window::DedupWindow;
use paydesk_ledger::{Ledger, Payment, TimelineInput, TimelineKind};
use std::collections::HashMap;
use parking_lot::Mutex;
use std::sync::Arc;
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
    /// Card-present payments on a reader: poll interval and bounded waits (decision 0102).
    pub reader: ReaderConfig,
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
            reader: ReaderConfig::default(),
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
// ---------------------------------------------------------------- engine

/// Read-only ledger connections for the UI's lists and reports (record 0023: one writer,
/// separate readers), so an End-of-day report over a long day never holds up a
/// checkout's commit. Few: a register has one screen; the limit keeps file handles bounded.
const LEDGER_READERS: usize = 2;

struct Inner {
    /// The single writer. Fair (FIFO hand-off): under contention every waiter gets the
    /// connection in arrival order, so no caller starves behind a busy one (record 0023
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

impl Inner {
    /// A retry phase against this engine's PSP, on its clock, randomness and notifier.
    fn phase<'a>(&'a self, policy: &'a RetryPolicy, subject: &'a Subject, first_attempt_no: u32) -> Phase<'a> {
        Phase { client: &self.psp, policy, clock: &self.clock, rng: &self.rng, notifier: &self.notifier, subject, first_attempt_no }
    }
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


fn psp_key_prefix(p: &Payment, what: &str) -> String {
    format!("{}-{what}", p.idempotency_key)
}

/// Fresh keys an operation may get after stored failures (see `Engine::pi_operation`,
/// `Engine::drive_refund`) before it is handed to a person.
pub const MAX_KEY_REISSUES: i64 = 3;

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
        let stored_cursor = ledger.sync_log().event_cursor(&events_psp).unwrap_or_else(|e| {
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

    /// The writer, for the engine's own operations and its use cases
    /// (`crate::usecases`). Keep the closure short: it holds the writer.
    pub(crate) fn with_ledger<R>(&self, f: impl FnOnce(&mut Ledger) -> R) -> R {
        blocking(|| {
            let mut l = self.inner.ledger.lock();
            f(&mut l)
        })
    }

    /// Read-only access on a reader connection (a file-backed ledger), else on the
    /// writer. Sees every commit made before it is called; use it for lists and
    /// reports, not for reads a following write depends on.
    pub(crate) fn with_reader<R>(&self, f: impl FnOnce(&Ledger) -> R) -> R {
        let readers = &self.inner.readers;
        if readers.is_empty() {
            return self.with_ledger(|l| f(l));
        }
        blocking(|| {
            // A free reader if there is one, else wait for the first (bounded: LEDGER_READERS).
            let guard = readers
                .iter()
                .find_map(|r| r.try_lock())
                .unwrap_or_else(|| readers[0].lock());
            f(&guard)
        })
    }

    /// ESCAPE HATCH, for test harnesses only (this crate's tests, the app's and the CLI's
    /// tests, the simulation's audits and set-up): the writer, to plant a state or to
    /// check one the use cases do not show. The app and the CLI never call it: they go
    /// through the engine's operations and its use cases (`engine.staff()`,
    /// `engine.catalog()`, …), where each rule is written once (issue #31); a test-kit
    /// test refuses it in their sources.
    #[doc(hidden)]
    pub fn ledger_for_tests<R>(&self, f: impl FnOnce(&mut Ledger) -> R) -> R {
        self.with_ledger(f)
    }

    /// ESCAPE HATCH, for test harnesses only, on a reader connection: see
    /// [`Engine::ledger_for_tests`].
    #[doc(hidden)]
    pub fn reader_for_tests<R>(&self, f: impl FnOnce(&Ledger) -> R) -> R {
        self.with_reader(f)
    }

    /// The ledger's schema version (the About screen).
    pub fn ledger_schema_version(&self) -> paydesk_ledger::Result<i64> {
        self.with_reader(|l| l.schema_version())
    }

    /// Commits the writer has made since it was opened (benches count them per sale).
    pub fn commit_count(&self) -> u64 {
        self.with_ledger(|l| l.commit_count())
    }

    /// How many reader connections this engine has (0: reads share the writer).
    pub fn reader_count(&self) -> usize {
        self.inner.readers.len()
    }

    pub(crate) fn now(&self) -> i64 {
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
            let mut f = self.inner.flights.lock();
            if f.len() > 1024 {
                // Forget keys nobody is driving (only the map holds them).
                f.retain(|_, m| Arc::strong_count(m) > 1);
            }
            f.entry(key.to_string()).or_insert_with(|| Arc::new(tokio::sync::Mutex::new(()))).clone()
        };
        m.lock_owned().await
    }

    fn payment(&self, key: &str) -> Result<Payment> {
        self.with_ledger(|l| l.payments().by_key(key))?.ok_or_else(|| EngineError::UnknownPayment(key.to_string()))
    }

    fn set_online(&self, online: bool) {
        let mut o = self.inner.online.lock();
        if *o != Some(online) {
            *o = Some(online);
            self.notify(Notification::Connectivity { online });
        }
        if online {
            *self.inner.last_sync_ms.lock() = Some(self.now());
        }
    }

    fn note_connectivity(&self, recs: &[AttemptRecord]) {
        if let Some(last) = recs.last() {
            self.set_online(!last.outcome.shows_offline());
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DriveMode {
    Interactive,
    Background,
    Forward,
}

fn attempt_input(r: &AttemptRecord) -> TimelineInput {
    TimelineInput {
        kind: Some(TimelineKind::Attempt),
        detail: match r.backoff_ms {
            Some(b) => format!("{}; next attempt in {b} ms", r.message),
            None => r.message.clone(),
        },
        outcome: Some(r.outcome.label().to_string()),
        latency_ms: Some(r.latency_ms as i64),
        replayed: r.replayed,
        attempt_no: Some(r.attempt as i64),
        refund_id: None,
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
