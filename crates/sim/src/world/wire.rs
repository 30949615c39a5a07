//! The simulated wire between the register and the PSP: its counters, the faults the
//! simulation injects on it (stored 500s, PSP crashes, wrong keys, a full disk, a pulled
//! cable, planted bugs), register crash points, and the register's transport over it.

use super::exec::SimCrash;
use super::time::{TimeCore, YieldOnce};
use mock_psp::{MockPsp, PspRequest};
use paydesk_register::clock::BoxFuture;
use paydesk_register::transport::{HttpRequest, HttpResponse, Transport, TransportError};
use paydesk_register::CrashPoint;
use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Counters of what went over the simulated wire.
#[derive(Debug, Default, Clone)]
pub struct WireStats {
    pub requests: u64,
    pub posts: u64,
    /// A request carrying an idempotency key already sent before.
    pub retries: u64,
    /// Answers with `Idempotent-Replayed: true`.
    pub replays: u64,
    /// 409 `idempotency_key_in_use`.
    pub conflicts: u64,
    /// Fault kinds as the register experienced them.
    pub faults: BTreeMap<&'static str, u64>,
    pub status: BTreeMap<u16, u64>,
}

impl WireStats {
    pub(super) fn fault(&mut self, k: &'static str) {
        *self.faults.entry(k).or_default() += 1;
    }
}

/// Test-only defects the audit must catch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlantedBug {
    /// The client retries a payment-intent POST with a fresh idempotency key (same
    /// parameters): the classic double charge.
    FreshKeyOnRetry,
    /// A refund POST sent again (a retry, or recovery after a crash) goes out with a
    /// fresh idempotency key: the card refunded twice. Armed only for the successor's
    /// restored returns (`restored.rs`), which the restored audit judges.
    FreshRefundKeyOnRetry,
}

/// Where the simulation injects "execution began, then failed" (a stored 500 that
/// every retry of the key replays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stored500 {
    /// On every POST (payment intents, captures, cancels, refunds).
    Everywhere,
    /// Only on payment-intent creates.
    CreatesOnly,
}

pub struct Wire {
    pub core: Arc<TimeCore>,
    pub psp: MockPsp,
    pub(super) secret: String,
    pub(super) rng: Mutex<ChaCha8Rng>,
    pub stats: Mutex<WireStats>,
    pub(super) seen: Mutex<HashMap<String, u32>>,
    /// Register crash armed for the next time this point is reached.
    pub armed_crash: Mutex<Option<CrashPoint>>,
    pub crashes: Mutex<BTreeMap<&'static str, u64>>,
    /// The next POST kills the PSP mid-execution (after its claim, before executing).
    pub psp_crash_next_post: AtomicBool,
    pub psp_crashes: AtomicU64,
    pub bug: Mutex<Option<PlantedBug>>,
    /// Probability of a stored 500 per POST, and where.
    pub stored_500: Mutex<(f64, Stored500)>,
    /// Sales left in a misconfiguration period: every request carries a secret key
    /// the PSP does not know (a store owner typed the wrong key), answered 401.
    pub wrong_key_sales: AtomicU64,
    /// The register's ledger stops accepting writes right after the next key commit
    /// (the disk filled): the engine to make read-only, taken by the crash hook.
    pub fill_disk_after_key: Mutex<Option<paydesk_register::Engine>>,
    /// The next payment-intent create executes, its answer is lost, and the cable is
    /// pulled right after: later attempts are refused (an attempt may have reached
    /// the PSP, then the register cannot reach it).
    pub cable_pull_after_next_create: AtomicBool,
    /// A register crash armed for right after the answer of the next request whose
    /// path contains the marker (a reader step: after the process call, after a cancel
    /// was sent, the first read after the card was presented), and its name in `crashes`.
    pub crash_after_path: Mutex<Option<(&'static str, &'static str)>>,
}

impl Wire {
    pub fn new(core: Arc<TimeCore>, psp: MockPsp, secret: &str, seed: u64) -> Arc<Wire> {
        Arc::new(Wire {
            core,
            psp,
            secret: secret.to_string(),
            rng: Mutex::new(ChaCha8Rng::seed_from_u64(seed ^ 0x7769_7265)),
            stats: Mutex::new(WireStats::default()),
            seen: Mutex::new(HashMap::new()),
            armed_crash: Mutex::new(None),
            crashes: Mutex::new(BTreeMap::new()),
            psp_crash_next_post: AtomicBool::new(false),
            psp_crashes: AtomicU64::new(0),
            bug: Mutex::new(None),
            stored_500: Mutex::new((0.0, Stored500::Everywhere)),
            wrong_key_sales: AtomicU64::new(0),
            fill_disk_after_key: Mutex::new(None),
            cable_pull_after_next_create: AtomicBool::new(false),
            crash_after_path: Mutex::new(None),
        })
    }

    /// The register's crash hook: panics (a simulated crash) at the armed point.
    pub fn crash_hook(self: &Arc<Self>) -> paydesk_register::CrashHook {
        let w = Arc::downgrade(self);
        Arc::new(move |p: CrashPoint| {
            if let Some(w) = w.upgrade() {
                w.maybe_crash(p);
            }
        })
    }

    pub fn maybe_crash(&self, p: CrashPoint) {
        if p == CrashPoint::AfterKeyCommit {
            let engine = self.fill_disk_after_key.lock().take();
            if let Some(e) = engine {
                // Every later write of this connection fails, as on a full disk; reads
                // still work. The simulation lifts it once the operation is over.
                e.ledger_for_tests(|l| l.connection().pragma_update(None, "query_only", true)).expect("query_only");
            }
        }
        let fire = {
            let mut a = self.armed_crash.lock();
            if *a == Some(p) {
                *a = None;
                true
            } else {
                false
            }
        };
        if fire {
            *self.crashes.lock().entry(p.name()).or_default() += 1;
            std::panic::panic_any(SimCrash(p));
        }
    }

    /// The request to `path` reached the PSP: a crash armed for it fires now (its
    /// answer is lost with the register).
    pub(super) fn maybe_crash_after_path(&self, path: &str) {
        let name = {
            let mut a = self.crash_after_path.lock();
            match *a {
                Some((marker, name)) if path.contains(marker) => {
                    *a = None;
                    Some(name)
                }
                _ => None,
            }
        };
        if let Some(name) = name {
            *self.crashes.lock().entry(name).or_default() += 1;
            std::panic::panic_any(SimCrash(CrashPoint::AfterSend));
        }
    }

    pub(super) fn latency(&self) -> i64 {
        self.rng.lock().random_range(5..80)
    }

    pub(super) fn to_psp(&self, req: &HttpRequest, key: Option<&str>) -> PspRequest {
        let secret = if self.wrong_key_sales.load(Ordering::SeqCst) > 0 { "sk_test_not_this_account" } else { self.secret.as_str() };
        super::psp_request(req, secret, key)
    }
}

/// The in-process transport handed to the register engine.
pub struct SimTransport(pub Arc<Wire>);

impl Transport for SimTransport {
    fn send(&self, req: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, TransportError>> {
        let w = self.0.clone();
        Box::pin(async move {
            // The request is on the wire: other futures of the run may move meanwhile.
            YieldOnce(false).await;
            w.exchange(req)
        })
    }
}
