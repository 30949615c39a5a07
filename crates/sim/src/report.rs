//! The run's deterministic JSON report, and the wall-clock figures kept apart from it.

use crate::profile::Profile;
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// Share of sales paid by several tenders (0: the single-card profile).
    pub split_share: f64,
    /// Split sales: tenders, declines, overrides, refusals, cancels, refunds, offline
    /// tenders and unpaid balances, per kind.
    pub tenders: BTreeMap<String, u64>,
    /// Share of single-tender sales paid on a card reader (0: none).
    pub reader_share: f64,
    /// Reader sales: what the customer did (`customer:*`), what the cashier pressed
    /// (`press:*`), what the cashier was told (`told:*`), crashes at reader steps.
    pub readers: BTreeMap<String, u64>,
    /// Sales paid on the reader.
    pub reader_sales: u64,
    pub events: EventCounts,
    /// The PSP's own counters (`/__admin/stats`).
    pub psp_stats: serde_json::Value,
    /// Final states in the ledger after recovery.
    pub final_states: BTreeMap<String, u64>,
    pub invariants_checked: BTreeMap<String, u64>,
    pub violations_total: u64,
    /// Violations per invariant (exact; `violations` keeps only the first ones).
    pub violations_by_invariant: BTreeMap<String, u64>,
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

