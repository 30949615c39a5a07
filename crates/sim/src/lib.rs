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
mod invariant;
mod config;
mod crash;
mod driver;
mod faults;
mod finish;
mod plant;
mod profile;
mod reader;
mod restored;
mod records;
mod returns;
mod report;
mod sale;
mod split;
mod successor;
mod told;
pub mod world;

pub use audit::{Invariant, MidCheck, RestoredCheck};
pub use config::{engine_config, LedgerMode, SimConfig};
pub use plant::MidRunPlant;
pub use profile::Profile;
pub use report::{EventCounts, Perf, Report};
pub use world::{PlantedBug, Stored500};

use driver::Sim;
use std::collections::BTreeMap;
use world::block_on;

/// The fault counted when two concurrent Charge presses on one cart got two checkout
/// keys: a bug (one cart, one key), so the chaos tests assert it stays 0.
pub const DOUBLE_SUBMIT_MADE_TWO_KEYS: &str = "double_submit_made_two_keys";

/// 2026-01-01T00:00:00Z: virtual time starts here.
pub const EPOCH_MS: i64 = 1_767_225_600_000;
pub(crate) const SECRET: &str = "sk_test_sim";
pub(crate) const H: i64 = 3_600_000;
/// Sales between two background passes (recovery + event poll): ~20 min of
/// virtual time at the simulated pace.
const MAINTENANCE_EVERY: usize = 32;

/// Runs the simulation; the report is a pure function of `cfg`.
pub fn run(cfg: SimConfig) -> Report {
    run_timed(cfg).0
}

/// Runs the simulation and measures its speed.
pub fn run_timed(cfg: SimConfig) -> (Report, Perf) {
    let t = std::time::Instant::now();
    let n = cfg.checkouts;
    let report = block_on(run_async(cfg, None));
    let wall = t.elapsed().as_secs_f64();
    (report, Perf { wall_secs: wall, checkouts_per_sec: n as f64 / wall.max(1e-9) })
}

/// Something done to a store between the final pass and the audit.
type Tamper = Box<dyn FnOnce(&mut paydesk_ledger::Ledger, &mock_psp::MockPsp)>;

/// Runs the simulation, lets `tamper` change the register's ledger or the PSP's store
/// (plain SQL) after the final pass, then audits. The audit's own tests use it to break
/// one invariant on purpose and see the audit name it.
pub fn run_tampered(cfg: SimConfig, tamper: impl FnOnce(&mut paydesk_ledger::Ledger, &mock_psp::MockPsp) + 'static) -> Report {
    block_on(run_async(cfg, Some(Box::new(tamper))))
}

async fn run_async(cfg: SimConfig, tamper: Option<Tamper>) -> Report {
    let mut sim = Sim::new(cfg.clone());
    if cfg.reader_share > 0.0 {
        sim.register_reader().await;
    }
    for i in 0..cfg.checkouts as usize {
        // A sale's index is its place among the sales: an exchange's new sale takes one
        // too, so after the first exchange it runs ahead of the checkout count.
        sim.one_sale(sim.sales.len()).await;
        sim.maybe_refund().await;
        sim.maybe_refund_split().await;
        sim.maybe_return_split().await;
        sim.maybe_return_single().await;
        sim.maybe_exchange_split().await;
        if i % MAINTENANCE_EVERY == MAINTENANCE_EVERY - 1 {
            sim.maintenance().await;
        }
    }
    sim.finish().await;
    if let Some(t) = tamper {
        let psp = sim.psp.clone();
        sim.engine().ledger_for_tests(|l| t(l, &psp));
    }
    let mut audit = audit::audit(&sim);
    // The register is replaced after its audit: the successor's restored returns and
    // exchanges, then their own audit over both registers and the PSP (`restored.rs`).
    if cfg.restored_ops > 0 {
        sim.restored_phase().await;
        audit::audit_restored(&sim, &mut audit);
    }
    let wire = sim.wire.stats.lock().clone();
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
    // Only with readers: a run without them keeps the report it always had.
    if cfg.reader_share > 0.0 {
        if let Some(f) = psp_stats.get("reader_faults").and_then(|f| f.as_object()) {
            for (k, v) in f {
                if let Some(n) = v.as_u64() {
                    faults.insert(format!("psp:{k}"), n);
                }
            }
        }
    }
    let crashes = sim.wire.crashes.lock().iter().map(|(k, v)| ((*k).to_string(), *v)).collect();
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
        split_share: cfg.split_share,
        tenders: sim.rep.tenders.clone(),
        reader_share: cfg.reader_share,
        readers: sim.rep.readers.clone(),
        reader_sales: sim.rep.reader_sales,
        events: sim.rep.events.clone(),
        psp_stats,
        final_states: audit.final_states,
        invariants_checked: audit.checked,
        violations_total: audit.violations_total,
        violations_by_invariant: audit.failed,
        violations: audit.violations,
        state_digest: audit.digest,
    }
}
