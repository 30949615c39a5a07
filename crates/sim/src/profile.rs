//! How hostile the world is: the three profiles, and for each the PSP's own fault
//! rates and the simulation's per-sale fault probabilities.

use mock_psp::FaultConfig;
use serde::Serialize;

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
    pub(crate) fn psp_faults(self) -> FaultConfig {
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
    pub(crate) fn stored_500_rate(self) -> f64 {
        match self {
            Profile::Calm => 0.0,
            Profile::Flaky => 0.003,
            Profile::Chaos => 0.01,
        }
    }
    pub(crate) fn rates(self) -> Rates {
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
                split_offline: 0.02,
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
                split_offline: 0.06,
            },
        }
    }
}

/// Per-sale probabilities of the simulation's own faults.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Rates {
    pub(crate) offline: f64,
    pub(crate) clock_jump: f64,
    pub(crate) skew: f64,
    pub(crate) psp_crash: f64,
    pub(crate) register_crash: f64,
    pub(crate) double_submit: f64,
    pub(crate) cashier_retry: f64,
    /// A period of sales sent with a secret key the PSP does not know.
    pub(crate) wrong_key: f64,
    /// The ledger refuses writes right after a checkout's key commit (disk full).
    pub(crate) disk_full: f64,
    /// A create executes, its answer is lost, then the PSP cannot be reached.
    pub(crate) cable_pull: f64,
    /// The PSP goes unreachable right before a split sale's card tender (offline
    /// acceptance, forwarding, declines at forwarding).
    pub(crate) split_offline: f64,
}

