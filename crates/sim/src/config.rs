//! What a run is asked to do ([`SimConfig`]: seed, size, profile, where the ledger
//! lives, planted bugs) and the register's engine settings under simulation.

use crate::profile::Profile;
use crate::world::{PlantedBug, Stored500};
use paydesk_register::{DedupWindow, EngineConfig, OfflineLimits, RetryPolicy};
use std::path::PathBuf;
use std::time::Duration;

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
    /// Share of sales (0.0-1.0) paid by several tenders (cash, card parts, cancels;
    /// record 0028, simulated by `split/`). 0 keeps the single-card profile: no extra
    /// random draw, so a seed's run is the one it always was.
    pub split_share: f64,
    /// Share of the single-tender sales (0.0-1.0) paid on a simulated card reader
    /// (`reader/`): the customer approves, declines, cancels, races the cashier's cancel;
    /// the reader faults of the profile; crashes at each reader step. 0 keeps every
    /// earlier run: no extra draw, no reader registered.
    pub reader_share: f64,
    /// A violation planted during the run, for the tests of the checks made then.
    pub plant: Option<MidRunPlant>,
    /// After the run the register is replaced: this many restored returns and exchanges
    /// of its paid sales at the successor (`restored.rs`, records 0144 and 0153). 0 keeps
    /// every earlier run as it was: no replacement, no extra draw.
    pub restored_ops: u32,
    /// Let the successor take back sales the predecessor exchanged from too. On (the
    /// default since record 0157): the predecessor's exchange facts name their credit per
    /// tender, and the successor gives back only what each tender has left (before, the
    /// credit was in no fact, the audit found it given back twice, and the ledger refused
    /// such sales with `RestoredExchangedThere`, record 0153). Off: they are left out.
    pub restored_exchanged_sales: bool,
}

impl SimConfig {
    pub fn new(seed: u64, checkouts: u64, profile: Profile) -> Self {
        SimConfig { seed, checkouts, profile, ledger: LedgerMode::Memory, bug: None, avoid_known_bugs: false, stored_500: None, split_share: 0.0, reader_share: 0.0, plant: None, restored_ops: 0, restored_exchanged_sales: true }
    }

    /// The same run with `share` of its sales paid by several tenders.
    pub fn with_split_share(mut self, share: f64) -> Self {
        self.split_share = share.clamp(0.0, 1.0);
        self
    }

    /// The same run, then `ops` restored returns and exchanges at its replacement.
    pub fn with_restored_ops(mut self, ops: u32) -> Self {
        self.restored_ops = ops.min(10_000);
        self
    }

    /// The same run with `share` of its single-tender sales paid on a card reader.
    pub fn with_reader_share(mut self, share: f64) -> Self {
        self.reader_share = share.clamp(0.0, 1.0);
        self
    }
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
        // A charge hands the payment to the reader and reads for a few virtual seconds
        // (the simulated customer acts after the call returns); the cashier then waits
        // with `wait_on_reader`. Polls are engine sleeps, which move virtual time.
        reader: paydesk_register::ReaderConfig {
            poll_interval: Duration::from_millis(500),
            wait: Duration::from_secs(2),
            stuck_after: Duration::from_secs(120),
        },
    }
}

/// (Data only: the plants themselves are `crate::plant`.)
/// What to plant, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MidRunPlant {
    /// After a crash and restart in a split sale that has money settled: its cart lines
    /// are repriced to 0, so what is settled exceeds the total. The prices are put back
    /// right after the check: the ledger's next write on that sale asserts settled ≤
    /// total (a panic, its own line of defence) and would end the run.
    RestartSettledAboveTotal,
    /// After a crash and restart in a split sale that has money settled: a line of its
    /// cart costs `i64::MAX` twice over, so the sale cannot be read (its total overflows).
    /// The only way to break `due = total - settled`, which the ledger derives.
    RestartSaleUnreadable,
    /// Before "Charge" is pressed again on a card tender whose outcome is unknown: the
    /// pending payment's key is rewritten, so the press answers with another key.
    PendingTenderRekeyed,
    /// Before Cancel is pressed on a paid sale: its first tender is superseded, so the
    /// ledger no longer sees the sale paid and lets the cancel through.
    PaidSaleReopened,
    /// Before cash is tried while a card tender's outcome is unknown: that payment is
    /// marked failed, so the ledger takes the cash.
    UnknownTenderResolved,
    /// Before a stale return asks for one more of a line than is left (a line with an
    /// earlier return): the sale's earlier return lines are deleted, so the ledger sees
    /// more left and takes it.
    ReturnLinesForgotten,
    /// When the successor restores the predecessor's history (`restored.rs`): the lines of
    /// every `return_recorded` fact are dropped, so the successor ignores the returns made
    /// at the predecessor and takes back goods that already came back.
    PredecessorReturnsIgnored,
}
