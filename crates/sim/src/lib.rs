//! # paydesk-sim
//!
//! A deterministic chaos simulation of PayDesk in the manner of TigerBeetle's VOPR:
//! the real register engine (`paydesk-register` over `paydesk-ledger`) and the real
//! mock PSP (`mock-psp`, its SQLite store and idempotency layer) run in one process
//! under one virtual clock, driven by one seed. Faults are injected on both sides
//! (dropped requests and responses, slow executions, 5xx/429, offline periods,
//! duplicate and out-of-order events, PSP crashes mid-execution, register crashes at
//! every crash point, clock jumps near the dedup window, concurrent double submits),
//! and afterwards an [`audit`] that trusts neither side's bookkeeping compares the
//! PSP's own store with the register's ledger.
//!
//! Same seed, same run: [`run`] returns a [`Report`] that is a pure function of the
//! [`SimConfig`] (wall-clock figures are kept apart in [`Perf`]).

pub mod audit;
mod told;
pub mod world;

use mock_psp::{FaultConfig, MockPsp};
use paydesk_ledger::{CaptureMethod, CheckoutOptions, Currency, Ledger, Money, NewProduct, SeededKeys};
use paydesk_register::{
    CheckoutOutcome, CheckoutReport, CrashPoint, DedupWindow, Engine, EngineConfig, EngineError, OfflineLimits,
    RetryPolicy, SeededRandom,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
pub use world::{PlantedBug, Stored500};
use world::{block_on, join2, CatchCrash, PspClock, RegisterClock, SimTransport, TimeCore, Wire};

/// 2026-01-01T00:00:00Z: virtual time starts here.
pub const EPOCH_MS: i64 = 1_767_225_600_000;
const SECRET: &str = "sk_test_sim";
const H: i64 = 3_600_000;
/// Sales between two background passes (recovery + event poll): ~20 min of
/// virtual time at the simulated pace.
const MAINTENANCE_EVERY: usize = 32;

/// How hostile the world is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// No faults at all: the baseline.
    Calm,
    /// A few percent of each fault.
    Flaky,
    /// About a third of requests hit a PSP fault, plus frequent crashes, offline
    /// periods, clock jumps and double submits.
    Chaos,
}

impl Profile {
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "calm" | "none" => Some(Profile::Calm),
            "flaky" => Some(Profile::Flaky),
            "chaos" => Some(Profile::Chaos),
            _ => None,
        }
    }
    /// The PSP's own random faults. Stored 500s are injected by the simulation
    /// instead (see [`Stored500`]), so where they land can be chosen.
    fn psp_faults(self) -> FaultConfig {
        let mut f = match self {
            Profile::Calm => FaultConfig::none(),
            Profile::Flaky => FaultConfig::flaky(),
            Profile::Chaos => FaultConfig::chaos(),
        };
        f.internal_error = 0.0;
        if self == Profile::Chaos {
            // Search is eventually consistent at a real PSP (Stripe: about a minute): a
            // fresh PaymentIntent is missing from search results for this long.
            f.search_lag_ms = 60_000;
        }
        f
    }
    fn stored_500_rate(self) -> f64 {
        match self {
            Profile::Calm => 0.0,
            Profile::Flaky => 0.003,
            Profile::Chaos => 0.01,
        }
    }
    fn rates(self) -> Rates {
        match self {
            Profile::Calm => Rates::default(),
            Profile::Flaky => Rates {
                offline: 0.003,
                clock_jump: 0.0005,
                skew: 0.002,
                psp_crash: 0.002,
                register_crash: 0.01,
                double_submit: 0.05,
                cashier_retry: 0.2,
                wrong_key: 0.002,
                disk_full: 0.003,
                cable_pull: 0.003,
            },
            Profile::Chaos => Rates {
                offline: 0.01,
                clock_jump: 0.002,
                skew: 0.01,
                psp_crash: 0.01,
                register_crash: 0.05,
                double_submit: 0.15,
                cashier_retry: 0.4,
                wrong_key: 0.005,
                disk_full: 0.01,
                cable_pull: 0.01,
            },
        }
    }
}

/// Per-sale probabilities of the simulation's own faults.
#[derive(Debug, Clone, Copy, Default)]
struct Rates {
    offline: f64,
    clock_jump: f64,
    skew: f64,
    psp_crash: f64,
    register_crash: f64,
    double_submit: f64,
    cashier_retry: f64,
    /// A period of sales sent with a secret key the PSP does not know.
    wrong_key: f64,
    /// The ledger refuses writes right after a checkout's key commit (disk full).
    disk_full: f64,
    /// A create executes, its answer is lost, then the PSP cannot be reached.
    cable_pull: f64,
}

/// Where the register's ledger lives. `Memory` keeps the committed database across
/// a simulated crash by taking it out of the dead engine (what a file would hold:
/// every committed transaction, nothing uncommitted); `Dir` reopens a real file.
#[derive(Debug, Clone)]
pub enum LedgerMode {
    Memory,
    Dir(PathBuf),
}

#[derive(Debug, Clone)]
pub struct SimConfig {
    pub seed: u64,
    pub checkouts: u64,
    pub profile: Profile,
    pub ledger: LedgerMode,
    /// A defect planted on purpose (tests of the audit).
    pub bug: Option<PlantedBug>,
    /// Steer around the register bugs this simulation found (see the README of
    /// this crate): stored 500s only on payment-intent creates, and no clock jump
    /// while a refund is unresolved. Off by default: the chaos is faithful.
    pub avoid_known_bugs: bool,
    /// Where stored 500s go, overriding what `avoid_known_bugs` implies.
    pub stored_500: Option<Stored500>,
}

impl SimConfig {
    pub fn new(seed: u64, checkouts: u64, profile: Profile) -> Self {
        SimConfig { seed, checkouts, profile, ledger: LedgerMode::Memory, bug: None, avoid_known_bugs: false, stored_500: None }
    }
}

/// The run's JSON report. A pure function of the [`SimConfig`].
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub seed: u64,
    pub checkouts: u64,
    pub profile: Profile,
    pub avoid_known_bugs: bool,
    /// Virtual time the run covered.
    pub virtual_hours: f64,
    /// Faults injected, per kind (the simulation's own and the PSP's).
    pub faults: BTreeMap<String, u64>,
    pub requests: u64,
    pub retries: u64,
    pub replays: u64,
    pub conflicts: u64,
    /// Register crashes per crash point.
    pub crashes: BTreeMap<String, u64>,
    pub register_restarts: u64,
    pub psp_crashes: u64,
    /// Slow PSP executions that finished after their client gave up.
    pub late_psp_completions: u64,
    /// What the cashier was shown, per outcome (first answer of each checkout call).
    pub outcomes: BTreeMap<String, u64>,
    pub engine_errors: BTreeMap<String, u64>,
    pub double_submits: u64,
    pub new_card_after_decline: u64,
    pub captures: u64,
    pub cancels: u64,
    pub refunds_requested: u64,
    pub events: EventCounts,
    /// The PSP's own counters (`/__admin/stats`).
    pub psp_stats: serde_json::Value,
    /// Final states in the ledger after recovery.
    pub final_states: BTreeMap<String, u64>,
    pub invariants_checked: BTreeMap<String, u64>,
    pub violations_total: u64,
    /// The first violations (each names the key and what disagrees).
    pub violations: Vec<String>,
    /// FNV-1a digest of the final ledger and PSP state (two runs of one seed agree).
    pub state_digest: String,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.violations_total == 0
    }
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct EventCounts {
    pub polls: u64,
    pub fetched: u64,
    pub applied: u64,
    pub duplicates: u64,
}

/// Wall-clock figures (not part of the deterministic report).
#[derive(Debug, Clone, Serialize)]
pub struct Perf {
    pub wall_secs: f64,
    pub checkouts_per_sec: f64,
}

/// One customer's sale, as the cashier saw it.
#[derive(Debug, Clone)]
pub(crate) struct Sale {
    pub amount: Money,
    /// Checkout keys the cashier was shown, with the outcome shown.
    pub told: Vec<(String, CheckoutOutcome)>,
}

pub fn engine_config() -> EngineConfig {
    EngineConfig {
        attempt_timeout: Duration::from_secs(2),
        interactive: RetryPolicy::interactive(),
        background: RetryPolicy::background(),
        window: DedupWindow::default(),
        offline: OfflineLimits::default(),
        events_overlap: Duration::from_secs(300),
        // A restarted register re-reads half an hour of events: more than the gap
        // between two polls, so nothing is skipped (the final pass reads them all).
        events_lookback: Duration::from_secs(30 * 60),
        search_settle_ms: EngineConfig::default().search_settle_ms,
    }
}

pub(crate) struct Sim {
    cfg: SimConfig,
    rates: Rates,
    rng: ChaCha8Rng,
    core: Arc<TimeCore>,
    wire: Arc<Wire>,
    psp: MockPsp,
    engine: Option<Engine>,
    generation: u64,
    events_lookback: Duration,
    pub(crate) sales: Vec<Sale>,
    paid_keys: Vec<String>,
    authorized_keys: Vec<String>,
    rep: Counters,
}

#[derive(Default)]
struct Counters {
    faults: BTreeMap<String, u64>,
    outcomes: BTreeMap<String, u64>,
    errors: BTreeMap<String, u64>,
    restarts: u64,
    double_submits: u64,
    new_card: u64,
    captures: u64,
    cancels: u64,
    refunds: u64,
    events: EventCounts,
}

fn outcome_name(o: CheckoutOutcome) -> &'static str {
    match o {
        CheckoutOutcome::Paid => "paid",
        CheckoutOutcome::Authorized => "authorized",
        CheckoutOutcome::Declined => "declined",
        CheckoutOutcome::Failed => "failed",
        CheckoutOutcome::Pending => "pending",
        CheckoutOutcome::QueuedOffline => "queued_offline",
        CheckoutOutcome::Canceled => "canceled",
        CheckoutOutcome::Refunded => "refunded",
    }
}

impl Sim {
    fn new(cfg: SimConfig) -> Sim {
        world::install_quiet_crash_hook();
        let core = TimeCore::new(EPOCH_MS);
        let psp = MockPsp::builder()
            .memory()
            .secret_key(SECRET)
            .faults(cfg.profile.psp_faults())
            .seed(cfg.seed)
            .clock(Arc::new(PspClock(core.clone())))
            .lock_timeout(Duration::from_secs(30))
            .retention(Duration::from_secs(24 * 3600))
            .crash_point(None)
            // One request at a time on this thread: run the PSP's writes right here
            // instead of hopping to its writer thread (same order, same results).
            .inline_writes_for_single_threaded_simulation(true)
            .build()
            .expect("mock PSP");
        let wire = Wire::new(core.clone(), psp.clone(), SECRET, cfg.seed);
        *wire.bug.lock().unwrap() = cfg.bug;
        *wire.stored_500.lock().unwrap() = (
            cfg.profile.stored_500_rate(),
            cfg.stored_500.unwrap_or(if cfg.avoid_known_bugs { Stored500::CreatesOnly } else { Stored500::Everywhere }),
        );
        let mut sim = Sim {
            rates: cfg.profile.rates(),
            rng: ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x5349_4d55),
            cfg,
            core,
            wire,
            psp,
            engine: None,
            generation: 0,
            events_lookback: engine_config().events_lookback,
            sales: Vec::new(),
            paid_keys: Vec::new(),
            authorized_keys: Vec::new(),
            rep: Counters::default(),
        };
        let mut ledger = sim.open_ledger(None);
        ledger
            .seed_catalog(&[
                NewProduct { sku: "JP-TEA".into(), name: "Green tea".into(), price: Money::new(180, Currency::Jpy) },
                NewProduct { sku: "JP-BENTO".into(), name: "Bento".into(), price: Money::new(980, Currency::Jpy) },
                NewProduct { sku: "JP-BOOK".into(), name: "Book".into(), price: Money::new(2_400, Currency::Jpy) },
                NewProduct { sku: "US-COFFEE".into(), name: "Coffee".into(), price: Money::new(450, Currency::Usd) },
                NewProduct { sku: "US-LUNCH".into(), name: "Lunch".into(), price: Money::new(1_575, Currency::Usd) },
            ])
            .expect("catalog");
        sim.engine = Some(sim.build_engine(ledger));
        sim
    }

    fn open_ledger(&self, from: Option<Ledger>) -> Ledger {
        let keys = Box::new(SeededKeys::new(self.cfg.seed ^ (self.generation.wrapping_mul(0x9E37_79B9))));
        match (&self.cfg.ledger, from) {
            (LedgerMode::Memory, Some(l)) => l,
            (LedgerMode::Memory, None) => Ledger::open_in_memory(keys).expect("in-memory ledger"),
            (LedgerMode::Dir(d), _) => Ledger::open_with_keys(d.join("register.db"), keys).expect("ledger file"),
        }
    }

    fn build_engine(&self, ledger: Ledger) -> Engine {
        let mut cfg = engine_config();
        cfg.events_lookback = self.events_lookback;
        Engine::new(
            ledger,
            Arc::new(SimTransport(self.wire.clone())),
            Arc::new(RegisterClock(self.core.clone())),
            Arc::new(SeededRandom::new(self.cfg.seed ^ 0x7265_6721 ^ self.generation)),
            cfg,
        )
        .with_crash_hook(self.wire.crash_hook())
    }

    fn engine(&self) -> Engine {
        self.engine.clone().expect("engine")
    }

    fn fault(&mut self, k: &str) {
        *self.rep.faults.entry(k.to_string()).or_default() += 1;
    }

    /// The register process died: drop the engine and start a new one over what the
    /// ledger committed.
    fn restart(&mut self) {
        *self.wire.armed_crash.lock().unwrap() = None;
        self.generation += 1;
        self.rep.restarts += 1;
        let old = self.engine.take().expect("engine");
        let ledger = match self.cfg.ledger {
            LedgerMode::Memory => {
                let blank = Ledger::open_in_memory(Box::new(SeededKeys::new(0))).expect("blank ledger");
                let l = old.with_ledger(|l| std::mem::replace(l, blank));
                drop(old);
                assert!(l.connection().is_autocommit(), "a crashed register left a transaction open");
                // A restarted process opens a new connection: a full disk's refusal
                // (`disk_full`) does not outlive it.
                l.connection().pragma_update(None, "query_only", false).expect("query_only off");
                Some(l)
            }
            LedgerMode::Dir(_) => {
                drop(old);
                None
            }
        };
        let l = self.open_ledger(ledger);
        self.engine = Some(self.build_engine(l));
    }

    /// Arms a register crash (probability `p`) at one of the points the next
    /// operation can reach.
    fn maybe_arm_at(&mut self, p: f64, points: &[CrashPoint]) {
        if p > 0.0 && self.rng.random_bool(p.min(1.0)) {
            let point = points[self.rng.random_range(0..points.len())];
            *self.wire.armed_crash.lock().unwrap() = Some(point);
        }
    }

    fn maybe_arm(&mut self, p: f64) {
        use CrashPoint::*;
        self.maybe_arm_at(p, &[AfterKeyCommit, AfterSend, AfterResponseBeforeCommit, AfterCommit]);
    }

    fn disarm(&self) {
        *self.wire.armed_crash.lock().unwrap() = None;
    }

    /// Runs one register operation; a simulated crash restarts the register and runs
    /// its start-up recovery (which may crash again, and is then restarted again).
    async fn op<T, F: std::future::Future<Output = T>>(&mut self, fut: F) -> Option<T> {
        let r = CatchCrash(Box::pin(fut)).await;
        self.disarm();
        match r {
            Ok(v) => Some(v),
            Err(_) => {
                self.restart();
                self.startup().await;
                None
            }
        }
    }

    /// What a register does when it starts: recovery, then an event poll. Crashes
    /// during start-up are possible too (at half the usual rate).
    async fn startup(&mut self) {
        for round in 0..8 {
            if round < 3 {
                self.maybe_arm_at(self.rates.register_crash / 2.0, &CrashPoint::ALL);
            }
            let e = self.engine();
            let r = CatchCrash(Box::pin(async move {
                let _ = e.recover().await;
                e.consume_events().await
            }))
            .await;
            self.disarm();
            match r {
                Ok(ev) => {
                    self.count_events(ev);
                    return;
                }
                Err(_) => self.restart(),
            }
        }
    }

    fn count_events(&mut self, ev: Result<paydesk_register::EventsReport, EngineError>) {
        self.rep.events.polls += 1;
        match ev {
            Ok(r) => {
                self.rep.events.fetched += r.fetched as u64;
                self.rep.events.applied += r.applied as u64;
                self.rep.events.duplicates += r.duplicates as u64;
            }
            Err(e) => *self.rep.errors.entry(format!("events:{}", e.code())).or_default() += 1,
        }
    }

    fn record(&mut self, sale: usize, r: &Result<CheckoutReport, EngineError>) {
        match r {
            Ok(rep) => {
                *self.rep.outcomes.entry(outcome_name(rep.outcome).into()).or_default() += 1;
                self.sales[sale].told.push((rep.checkout_key.clone(), rep.outcome));
                match rep.outcome {
                    CheckoutOutcome::Paid => self.paid_keys.push(rep.checkout_key.clone()),
                    CheckoutOutcome::Authorized => self.authorized_keys.push(rep.checkout_key.clone()),
                    _ => {}
                }
            }
            Err(e) => *self.rep.errors.entry(e.code().into()).or_default() += 1,
        }
    }

    fn world_events(&mut self) {
        let r = self.rates;
        if r.offline > 0.0 && self.rng.random_bool(r.offline) && !self.psp.is_offline() {
            let secs = self.rng.random_range(10..1200);
            self.psp.set_offline(true, Some(Duration::from_secs(secs)));
            self.fault("offline_period");
        }
        if r.clock_jump > 0.0 && self.rng.random_bool(r.clock_jump) && !(self.cfg.avoid_known_bugs && self.refund_open()) {
            // Right up to the dedup guard (retention 24 h - margin 1 h), either side.
            let jump = 23 * H + self.rng.random_range(-20 * 60_000..20 * 60_000);
            self.core.advance(jump);
            self.fault("clock_jump_near_window");
        }
        if r.skew > 0.0 && self.rng.random_bool(r.skew) {
            // Register clock off by up to ±30 min (inside the 1 h safety margin).
            self.core.set_skew(self.rng.random_range(-30 * 60_000..30 * 60_000));
            self.fault("clock_skew");
        }
        let wrong = self.wire.wrong_key_sales.load(std::sync::atomic::Ordering::SeqCst);
        if wrong > 0 {
            self.wire.wrong_key_sales.store(wrong - 1, std::sync::atomic::Ordering::SeqCst);
        } else if r.wrong_key > 0.0 && self.rng.random_bool(r.wrong_key) {
            let sales = self.rng.random_range(1..6);
            self.wire.wrong_key_sales.store(sales, std::sync::atomic::Ordering::SeqCst);
            self.fault("wrong_secret_key_period");
        }
        if r.psp_crash > 0.0 && self.rng.random_bool(r.psp_crash) {
            self.wire.psp_crash_next_post.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// The sale's own faults end: the disk has room again, nothing stays armed.
    fn end_sale_faults(&mut self) {
        self.wire.fill_disk_after_key.lock().unwrap().take();
        self.wire.cable_pull_after_next_create.store(false, std::sync::atomic::Ordering::SeqCst);
        self.engine().with_ledger(|l| l.connection().pragma_update(None, "query_only", false)).expect("query_only off");
    }

    fn refund_open(&self) -> bool {
        self.engine().with_ledger(|l| l.refunds_needing_recovery().map(|v| !v.is_empty()).unwrap_or(true))
    }

    fn options(&mut self, sale: usize, manual: bool) -> CheckoutOptions {
        let x: f64 = self.rng.random();
        let pm = if x < 0.06 {
            "pm_card_chargeDeclined"
        } else if x < 0.08 {
            "pm_card_chargeDeclinedInsufficientFunds"
        } else {
            "pm_card_visa"
        };
        let mut o = CheckoutOptions::card(pm);
        o.capture_method = if manual { CaptureMethod::Manual } else { CaptureMethod::Automatic };
        o.extra_params.push(("description".into(), format!("sale-{sale}")));
        o
    }

    async fn one_sale(&mut self, i: usize) {
        let gap = self.rng.random_range(1_000..90_000);
        self.core.advance(gap);
        self.world_events();
        let currency = if self.rng.random_bool(0.7) { Currency::Jpy } else { Currency::Usd };
        let manual = self.rng.random_bool(0.15);
        let use_cart = self.rng.random_bool(0.35);
        let opts = self.options(i, manual);
        let e = self.engine();
        let now = self.core.now() + self.core.skew();
        if self.rates.disk_full > 0.0 && self.rng.random_bool(self.rates.disk_full) {
            *self.wire.fill_disk_after_key.lock().unwrap() = Some(e.clone());
            self.fault("disk_full_after_key_commit");
        }
        if self.rates.cable_pull > 0.0 && self.rng.random_bool(self.rates.cable_pull) {
            self.wire.cable_pull_after_next_create.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        self.maybe_arm(self.rates.register_crash);
        let result: Option<Result<CheckoutReport, EngineError>> = if use_cart {
            let lines: &[(&str, i64)] = if currency == Currency::Jpy {
                &[("JP-TEA", 2), ("JP-BENTO", 1), ("JP-BOOK", 1)]
            } else {
                &[("US-COFFEE", 2), ("US-LUNCH", 1)]
            };
            let n = self.rng.random_range(1..=lines.len());
            let cart = e.with_ledger(|l| -> Result<_, paydesk_ledger::Error> {
                let c = l.create_cart(currency, now)?;
                for (sku, q) in &lines[..n] {
                    l.add_to_cart(c, sku, *q, now)?;
                }
                l.cart(c)
            });
            let cart = cart.expect("cart");
            self.sales.push(Sale { amount: cart.total, told: vec![] });
            let double = self.rng.random_bool(self.rates.double_submit);
            if double {
                self.rep.double_submits += 1;
                self.fault("double_submit");
                let (e1, e2, o1, o2) = (e.clone(), e.clone(), opts.clone(), opts.clone());
                let r = self
                    .op(join2(async move { e1.charge_cart(cart.id, o1).await }, async move { e2.charge_cart(cart.id, o2).await }))
                    .await;
                match r {
                    Some((a, b)) => {
                        if let (Ok(x), Ok(y)) = (&a, &b) {
                            if x.checkout_key != y.checkout_key {
                                self.fault("double_submit_made_two_keys");
                            }
                        }
                        self.record_checkout(i, &b);
                        Some(a)
                    }
                    None => None,
                }
            } else {
                self.op(async move { e.charge_cart(cart.id, opts).await }).await
            }
        } else {
            let amount = match currency {
                Currency::Jpy => self.rng.random_range(10..1_500) * 10,
                _ => self.rng.random_range(100..20_000),
            };
            let m = Money::new(amount, currency);
            self.sales.push(Sale { amount: m, told: vec![] });
            self.op(async move { e.checkout_amount(m, opts).await }).await
        };
        self.end_sale_faults();
        let Some(result) = result else { return };
        self.record_checkout(i, &result);
        let Ok(rep) = result else { return };
        match rep.outcome {
            CheckoutOutcome::Declined if self.rng.random_bool(0.8) => {
                // "Try another card": an explicit new intent, a new key.
                self.rep.new_card += 1;
                let mut o = CheckoutOptions::card("pm_card_visa");
                o.capture_method = if manual { CaptureMethod::Manual } else { CaptureMethod::Automatic };
                o.extra_params.push(("description".into(), format!("sale-{i}")));
                let e = self.engine();
                let key = rep.checkout_key.clone();
                self.maybe_arm(self.rates.register_crash);
                if let Some(r) = self.op(async move { e.new_payment_after(&key, o, None).await }).await {
                    self.record_checkout(i, &r);
                }
            }
            CheckoutOutcome::Pending if self.rates.cashier_retry > 0.0 && self.rng.random_bool(self.rates.cashier_retry) => {
                // The cashier presses Charge again (same key), racing the reconciler.
                let e = self.engine();
                let (e1, e2) = (e.clone(), e);
                let key = rep.checkout_key.clone();
                self.fault("cashier_retry_racing_recovery");
                self.maybe_arm(self.rates.register_crash);
                if let Some((r, _)) = self.op(join2(async move { e1.retry_checkout(&key).await }, async move { e2.recover().await })).await {
                    self.record_checkout(i, &r);
                }
            }
            CheckoutOutcome::Authorized => {
                let e = self.engine();
                let key = rep.checkout_key.clone();
                self.maybe_arm(self.rates.register_crash);
                if self.rng.random_bool(0.85) {
                    self.rep.captures += 1;
                    if let Some(r) = self.op(async move { e.capture(&key).await }).await {
                        self.record(i, &r);
                    }
                } else {
                    self.rep.cancels += 1;
                    if let Some(r) = self.op(async move { e.cancel(&key).await }).await {
                        self.record(i, &r);
                    }
                }
            }
            _ => {}
        }
    }

    async fn maybe_refund(&mut self) {
        if self.paid_keys.is_empty() || !self.rng.random_bool(0.1) {
            return;
        }
        let key = self.paid_keys[self.rng.random_range(0..self.paid_keys.len())].clone();
        let e = self.engine();
        let p = match e.with_ledger(|l| l.payment_by_key(&key)) {
            Ok(Some(p)) => p,
            _ => return,
        };
        let left = p.amount.amount_minor - p.refunded_minor;
        if left <= 0 || !p.state.is_refundable() {
            return;
        }
        let amount = if self.rng.random_bool(0.5) { None } else { Some((left / 2).max(1)) };
        self.rep.refunds += 1;
        self.maybe_arm_at(self.rates.register_crash * 2.0, &[CrashPoint::MidRefund, CrashPoint::AfterSend]);
        if let Some(Err(err)) = self.op(async move { e.refund(&key, amount, Some("requested_by_customer")).await }).await {
            *self.rep.errors.entry(format!("refund:{}", err.code())).or_default() += 1;
        }
    }

    async fn maintenance(&mut self) {
        {
            use CrashPoint::*;
            let all = [MidEventApply, MidEventApply, AfterSend, AfterResponseBeforeCommit, AfterCommit, MidRefund];
            self.maybe_arm_at(self.rates.register_crash * 3.0, &all);
        }
        let e = self.engine();
        let r = self.op(async move {
            let _ = e.recover().await;
            e.consume_events().await
        })
        .await;
        if let Some(ev) = r {
            self.count_events(ev);
        }
    }

    /// The storm ends: faults off, PSP back, every slow execution finished, locks
    /// expired; the register restarts and recovers until nothing is in flight, then
    /// restarts once more and polls events from its stored cursor, as any restarted
    /// register does. No whole-run re-read: an event the polls during the run missed
    /// stays missed, and the audit's `every_psp_event_applied` reports it.
    async fn finish(&mut self) {
        self.psp.set_faults(FaultConfig::none());
        self.wire.stored_500.lock().unwrap().0 = 0.0;
        self.psp.clear_script();
        self.psp.set_offline(false, None);
        self.wire.psp_crash_next_post.store(false, std::sync::atomic::Ordering::SeqCst);
        // The owner has fixed the secret key, the disk has room, the cable is in.
        self.wire.wrong_key_sales.store(0, std::sync::atomic::Ordering::SeqCst);
        self.end_sale_faults();
        self.disarm();
        self.core.advance(60_000);
        // Up to 45 virtual minutes: a register clock skewed up to 30 min behind must still
        // reach the moment a search becomes conclusive (search_settle_ms after an attempt
        // stamped by the unskewed clock).
        for _ in 0..45 {
            let e = self.engine();
            let _ = e.recover().await;
            let ev = e.consume_events().await;
            self.count_events(ev);
            let busy = e
                .with_ledger(|l| -> Result<bool, paydesk_ledger::Error> {
                    Ok(!l.payments_needing_recovery()?.is_empty()
                        || !l.offline_queue()?.is_empty()
                        || !l.refunds_needing_recovery()?.is_empty())
                })
                .unwrap_or(true);
            if !busy {
                break;
            }
            self.core.advance(60_000);
        }
        // Only used if no event was ever applied (no stored cursor): then cover the run.
        self.events_lookback = Duration::from_millis((self.core.now() - EPOCH_MS + 48 * H) as u64);
        self.restart();
        self.rep.restarts -= 1; // not a crash
        let e = self.engine();
        let _ = e.recover().await;
        let ev = e.consume_events().await;
        self.count_events(ev);
    }
}

/// Runs the simulation; the report is a pure function of `cfg`.
pub fn run(cfg: SimConfig) -> Report {
    run_timed(cfg).0
}

/// Runs the simulation and measures its speed.
pub fn run_timed(cfg: SimConfig) -> (Report, Perf) {
    let t = std::time::Instant::now();
    let n = cfg.checkouts;
    let report = block_on(run_async(cfg));
    let wall = t.elapsed().as_secs_f64();
    (report, Perf { wall_secs: wall, checkouts_per_sec: n as f64 / wall.max(1e-9) })
}

async fn run_async(cfg: SimConfig) -> Report {
    let mut sim = Sim::new(cfg.clone());
    for i in 0..cfg.checkouts as usize {
        sim.one_sale(i).await;
        sim.maybe_refund().await;
        if i % MAINTENANCE_EVERY == MAINTENANCE_EVERY - 1 {
            sim.maintenance().await;
        }
    }
    sim.finish().await;
    let audit = audit::audit(&sim);
    let wire = sim.wire.stats.lock().unwrap().clone();
    let mut faults: BTreeMap<String, u64> = sim.rep.faults.clone();
    for (k, v) in &wire.faults {
        *faults.entry((*k).to_string()).or_default() += v;
    }
    let psp_stats = sim.psp.stats();
    if let Some(f) = psp_stats.get("faults").and_then(|f| f.as_object()) {
        for (k, v) in f {
            if let Some(n) = v.as_u64() {
                faults.insert(format!("psp:{k}"), n);
            }
        }
    }
    let crashes = sim.wire.crashes.lock().unwrap().iter().map(|(k, v)| ((*k).to_string(), *v)).collect();
    let _leftover = sim.core.kill_parked();
    Report {
        seed: cfg.seed,
        checkouts: cfg.checkouts,
        profile: cfg.profile,
        avoid_known_bugs: cfg.avoid_known_bugs,
        virtual_hours: ((sim.core.now() - EPOCH_MS) as f64 / H as f64 * 100.0).round() / 100.0,
        faults,
        requests: wire.requests,
        retries: wire.retries,
        replays: wire.replays,
        conflicts: wire.conflicts,
        crashes,
        register_restarts: sim.rep.restarts,
        psp_crashes: sim.wire.psp_crashes.load(std::sync::atomic::Ordering::SeqCst),
        late_psp_completions: sim.core.late_completions.load(std::sync::atomic::Ordering::SeqCst),
        outcomes: sim.rep.outcomes.clone(),
        engine_errors: sim.rep.errors.clone(),
        double_submits: sim.rep.double_submits,
        new_card_after_decline: sim.rep.new_card,
        captures: sim.rep.captures,
        cancels: sim.rep.cancels,
        refunds_requested: sim.rep.refunds,
        events: sim.rep.events.clone(),
        psp_stats,
        final_states: audit.final_states,
        invariants_checked: audit.checked,
        violations_total: audit.violations_total,
        violations: audit.violations,
        state_digest: audit.digest,
    }
}
