//! The sync loop (record 0045). It owns its own ledger connection and its own task: a
//! checkout never waits on it beyond SQLite's write lock for an ack's short DELETE.
//!
//! A round: send the outbox in batches of at most 500 rows from the last acknowledged
//! seq, drop rows only up to each ack's `acked_through`, until the outbox is empty; then
//! pull the store's changes (settings, catalog, taxes, staff: `apply.rs`). Errors end the round; the loop waits a bounded
//! back-off and tries again, and nothing is dropped that was not acknowledged.

// Kept reachable as `run::now_ms` (it is public); it lives in `clock` so `apply` and
// `restore` can read the time without importing the loop that calls them.
pub use crate::clock::now_ms;

use crate::backoff::Backoff;
use crate::client::BackOffice;
use crate::error::{SyncError, SyncErrorCode};
use crate::store::{InFlight, Pairing, SyncState};
use parking_lot::Mutex;
use paydesk_ledger::Ledger;
use paydesk_sync_proto::{limits, Batch, Change, Fact, RegisterHealth, Row, StoreSettings, PROTOCOL_VERSION};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// What a batch's rows may take of the back office's body limit, leaving room for the
/// envelope and the health (record 0051: a sale of 1,000 lines is a row of up to ~600 KB,
/// so 500 rows of such sales would not fit the 1 MiB a request may carry).
pub const BATCH_ROW_BYTES: usize = limits::MAX_BODY_BYTES - 16 * 1024;

/// Keeps the longest prefix of `rows` that fits [`BATCH_ROW_BYTES`], and at least one row
/// (one row always fits: the wire's limits bound a fact well below it). The facts are
/// re-serialized by serde in the same form as the ledger wrote them, so their stored
/// length is their length on the wire; 64 bytes a row cover `{"at_ms":…,"fact":…},`.
pub fn fit_body(rows: &mut Vec<paydesk_ledger::OutboxRow>) {
    let mut used = 0usize;
    let keep = rows
        .iter()
        .position(|r| {
            used += r.fact_json.len() + 64;
            used > BATCH_ROW_BYTES
        })
        .unwrap_or(rows.len())
        .max(1);
    rows.truncate(keep);
}

/// The key of a batch: the same range of the same register is the same request, so a
/// resend after a lost answer is recognised, never applied twice.
pub fn idempotency_key(register_id: &str, first_seq: u64, last_seq: u64) -> String {
    format!("sync-{register_id}-{first_seq}-{last_seq}")
}

/// Pairs with a one-time code: the pairing to keep in `sync.json` and the token to keep
/// secret (a 0600 file or the keychain; never logged).
pub async fn pair(url: &str, code: &str, app_version: &str) -> Result<(Pairing, String), SyncError> {
    let bo = BackOffice::new(url, None)?;
    let p = bo.pair(code, app_version).await?;
    Ok((Pairing { url: bo.url().to_string(), store_id: p.store_id, register_id: p.register_id, register_name: p.register_name }, p.token))
}

/// What one round did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Round {
    pub batches: u64,
    pub rows_sent: u64,
    pub rows_dropped: u64,
    pub acked_through: u64,
    pub settings_version: u64,
    /// The settings copy changed in this round.
    pub settings_changed: bool,
    /// Why the new settings did not all reach the ledger (the copy is kept regardless).
    pub settings_not_applied: Option<String>,
    /// Catalog items written to the ledger in this round (record 0049).
    pub items_applied: u64,
    /// The tax setup changed in this round.
    pub tax_changed: bool,
    /// Staff members written to the ledger in this round (record 0050).
    pub staff_applied: u64,
    /// Published changes this register could not take, "what: why" (at most 20).
    pub not_applied: Vec<String>,
}

/// Pages of changes one round pulls at most (100 x 500 items: twice the largest
/// catalog); the rest comes with the next round.
pub const MAX_PAGES_PER_ROUND: usize = 100;

/// How often a round that changed nothing else writes its time to `sync.json`.
pub const LAST_SYNC_SAVE_MS: i64 = 60_000;

/// The loop's state for the status bar and `sync status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SyncStatus {
    pub paired: bool,
    pub store_id: Option<String>,
    pub register_name: Option<String>,
    pub last_sync_ms: Option<i64>,
    pub queued: u64,
    pub offline_waiting: u64,
    pub acked_through: u64,
    pub high_water: u64,
    pub settings_version: u64,
    /// `{code, message}` of the last failed round; cleared by a good one.
    pub last_error: Option<StatusError>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusError {
    pub code: SyncErrorCode,
    pub message: String,
}

pub struct SyncLoop {
    ledger: Ledger,
    bo: BackOffice,
    register_id: String,
    state_path: PathBuf,
    state: SyncState,
    app_version: String,
    batch_rows: usize,
    status: Arc<Mutex<SyncStatus>>,
    /// Rounds finished (good or not): a signal for whoever waits on the loop.
    rounds: tokio::sync::watch::Sender<u64>,
    /// Wall clock when `last_sync_ms` was last written to `sync.json` by this loop.
    saved_sync_ms: Option<i64>,
    /// Called at named points of a round ("sync_after_send": the back office answered,
    /// nothing dropped yet); the CLI's crash tests SIGKILL the process there.
    probe: Option<Box<dyn Fn(&'static str) + Send>>,
}

impl SyncLoop {
    /// `ledger` must be a connection of its own (not the checkout's); `token` is the
    /// register's secret.
    pub fn new(ledger: Ledger, state_path: &Path, token: String, app_version: &str) -> Result<SyncLoop, SyncError> {
        let state = SyncState::load(state_path)?;
        let pairing = state.pairing.clone().ok_or_else(|| SyncError::Input("this register is not paired with a back office: pair it first".into()))?;
        let bo = BackOffice::new(&pairing.url, Some(token))?;
        let status = Arc::new(Mutex::new(SyncStatus {
            paired: true,
            store_id: Some(pairing.store_id.clone()),
            register_name: Some(pairing.register_name.clone()),
            last_sync_ms: state.last_sync_ms,
            settings_version: state.settings_version,
            ..Default::default()
        }));
        let mut l = SyncLoop {
            ledger,
            bo,
            register_id: pairing.register_id,
            state_path: state_path.to_path_buf(),
            state,
            app_version: app_version.chars().take(limits::MAX_TEXT_LEN).collect(),
            batch_rows: limits::MAX_ROWS_PER_BATCH,
            status,
            rounds: tokio::sync::watch::Sender::new(0),
            saved_sync_ms: None,
            probe: None,
        };
        l.refresh_counts()?;
        Ok(l)
    }

    /// Rows per batch (1 to the wire's limit); smaller batches are for tests.
    pub fn with_batch_rows(mut self, rows: usize) -> SyncLoop {
        self.batch_rows = rows.clamp(1, limits::MAX_ROWS_PER_BATCH);
        self
    }

    /// A function called at the named points of a round (crash tests).
    pub fn with_probe(mut self, probe: Box<dyn Fn(&'static str) + Send>) -> SyncLoop {
        self.probe = Some(probe);
        self
    }

    /// The status, shared: the app's status bar reads it while the loop runs.
    pub fn status(&self) -> Arc<Mutex<SyncStatus>> {
        self.status.clone()
    }

    /// Counts finished rounds; the status is up to date whenever it moves.
    pub fn subscribe_rounds(&self) -> tokio::sync::watch::Receiver<u64> {
        self.rounds.subscribe()
    }

    /// The last settings copy (kept while the back office is away).
    pub fn settings(&self) -> Option<&StoreSettings> {
        self.state.settings.as_ref()
    }

    fn refresh_counts(&mut self) -> Result<(), SyncError> {
        let s = self.ledger.sync_log().outbox_stats()?;
        let offline = self.ledger.payments().offline_queue_stats()?.count.max(0) as u64;
        let mut st = self.status.lock();
        st.queued = s.queued;
        st.high_water = s.high_water;
        st.acked_through = s.acked_through;
        st.offline_waiting = offline;
        Ok(())
    }

    fn save(&self) -> Result<(), SyncError> {
        self.state.save(&self.state_path)
    }

    /// One round: the whole outbox up, then the settings down.
    pub async fn round(&mut self) -> Result<Round, SyncError> {
        let out = self.round_inner().await;
        let _ = self.refresh_counts();
        let mut st = self.status.lock();
        match &out {
            Ok(r) => {
                st.last_error = None;
                st.last_sync_ms = self.state.last_sync_ms;
                st.settings_version = r.settings_version;
            }
            Err(e) => st.last_error = Some(StatusError { code: e.kind(), message: e.to_string() }),
        }
        drop(st);
        self.rounds.send_modify(|n| *n += 1);
        out
    }

    async fn round_inner(&mut self) -> Result<Round, SyncError> {
        let mut round = Round::default();
        loop {
            let sent = self.send_one(&mut round).await?;
            if !sent {
                break;
            }
        }
        self.pull(&mut round).await?;
        let now = now_ms();
        self.state.last_sync_ms = Some(now);
        // The time of the last good round is for the status bar and `sync status`; the
        // running loop's status has it at once. On disk it only needs to be roughly
        // right after a restart, so it is written at most every LAST_SYNC_SAVE_MS (an
        // fsync every 5 s for a clock would be the loop's biggest cost on an idle
        // register, and one more fsync beside every sale on a busy one). A batch marked
        // in flight that was acknowledged may stay on disk until then: it is dead (see
        // `send_one`).
        if self.saved_sync_ms.is_none_or(|t| now.saturating_sub(t) >= LAST_SYNC_SAVE_MS) {
            self.save()?;
            self.saved_sync_ms = Some(now);
        }
        round.acked_through = self.ledger.sync_log().outbox_stats()?.acked_through;
        round.settings_version = self.state.settings_version;
        Ok(round)
    }

    /// Sends the next batch; false when the outbox is empty.
    async fn send_one(&mut self, round: &mut Round) -> Result<bool, SyncError> {
        let stats = self.ledger.sync_log().outbox_stats()?;
        // A batch sent before and not acknowledged is sent again exactly as it was.
        let resend = self.state.in_flight.clone().filter(|f| f.first_seq == stats.acked_through + 1);
        let max = match &resend {
            Some(f) => (f.last_seq - f.first_seq + 1) as usize,
            None => self.batch_rows,
        };
        let mut rows = self.ledger.sync_log().outbox_batch(stats.acked_through, max)?;
        if resend.is_none() {
            fit_body(&mut rows);
        }
        let (Some(first), Some(last)) = (rows.first().map(|r| r.seq), rows.last().map(|r| r.seq)) else {
            return Ok(false);
        };
        let health = match resend {
            Some(f) if f.last_seq == last => f.health,
            _ => RegisterHealth {
                app_version: self.app_version.clone(),
                queued: stats.queued.saturating_sub(rows.len() as u64),
                offline_waiting: self.ledger.payments().offline_queue_stats()?.count.max(0) as u64,
                // Read after the batch's rows: a Z report among them has its head here.
                audit: Some(crate::audit::report(&self.ledger)?),
            },
        };
        let mut wire = Vec::with_capacity(rows.len());
        for r in &rows {
            let fact: Fact = serde_json::from_str(&r.fact_json).map_err(|e| SyncError::BadRow { seq: r.seq, message: e.to_string() })?;
            wire.push(Row { at_ms: r.at_ms, fact });
        }
        let batch = Batch { v: PROTOCOL_VERSION, register_id: self.register_id.clone(), first_seq: first, rows: wire, health: health.clone() };
        batch.validate().map_err(|e| SyncError::BadRow { seq: first, message: e.to_string() })?;
        self.state.in_flight = Some(InFlight { first_seq: first, last_seq: last, health });
        self.save()?;

        let ack = self.bo.send(&batch, &idempotency_key(&self.register_id, first, last)).await?;
        if let Some(p) = &self.probe {
            p("sync_after_send");
        }
        if ack.held || ack.acked_through < stats.acked_through {
            return Err(SyncError::BackOfficeBehind { acked_through: ack.acked_through, dropped_through: stats.acked_through });
        }
        // The audit head the back office confirmed is kept in the same commit that drops
        // the acknowledged rows (record 0053).
        let confirmed = ack.audit.as_ref().map(crate::audit::anchor_of).transpose()?;
        round.rows_dropped += self.ledger.sync_log_mut().outbox_ack_confirming(ack.acked_through, confirmed, now_ms())?;
        // Not saved here: a batch in flight counts only while its first seq is the one
        // after the ledger's ack (the filter above), so the copy on disk is already dead;
        // the next save drops it. One fsync less per batch (record 0045: the loop stays light).
        self.state.in_flight = None;
        round.batches += 1;
        round.rows_sent += rows.len() as u64;
        if ack.acked_through < last {
            // The back office stored less than it was sent without saying why: do not
            // spin on it; the next round starts again from its ack.
            return Err(SyncError::BadAnswer(format!("ack through {} for a batch up to {last}", ack.acked_through)));
        }
        Ok(true)
    }

    /// Pulls and applies the store's changes page by page (record 0049). The version
    /// held is saved after each page, so a crash mid catch-up resumes at the page it was
    /// on (and a page applied twice changes nothing).
    async fn pull(&mut self, round: &mut Round) -> Result<(), SyncError> {
        for _ in 0..MAX_PAGES_PER_ROUND {
            let c = self.bo.changes(self.state.settings_version).await?;
            let mut applied = crate::apply::Applied::default();
            let mut page: Vec<(u64, paydesk_sync_proto::Item)> = Vec::new();
            let mut members: Vec<(u64, paydesk_sync_proto::StaffMember)> = Vec::new();
            for ch in c.changes {
                match ch {
                    Change::Settings { version, settings } => {
                        if self.state.settings.as_ref() != Some(&settings) || self.state.settings_version != version {
                            round.settings_changed = true;
                            if let Err(e) = crate::apply::settings(&mut self.ledger, &settings) {
                                round.settings_not_applied = Some(e.to_string());
                            }
                            self.state.settings = Some(settings);
                        }
                    }
                    Change::Item { version, item } => page.push((version, item)),
                    Change::Tax { version, tax } => crate::apply::tax(&mut self.ledger, version, &tax, &mut applied)?,
                    Change::Staff { version, member } => members.push((version, member)),
                }
            }
            crate::apply::items(&mut self.ledger, &page, &mut applied)?;
            crate::apply::staff(&mut self.ledger, &members, &mut applied)?;
            round.items_applied += applied.items_applied;
            round.staff_applied += applied.staff_applied;
            round.tax_changed |= applied.tax_changed;
            for why in applied.not_applied {
                if round.not_applied.len() < crate::apply::MAX_REASONS {
                    round.not_applied.push(why);
                }
            }
            // Saved only when the version moved: an empty page (the common round)
            // writes nothing.
            if self.state.settings_version != c.version || round.settings_changed {
                self.state.settings_version = c.version;
                self.save()?;
            }
            if !c.more {
                return Ok(());
            }
        }
        // Bounded: the rest comes with the next round.
        Ok(())
    }

    /// Runs rounds until `stop` turns true: `interval` after a good round, the bounded
    /// back-off after a failed one. `poke` starts a round at once (a sale was made).
    pub async fn run(mut self, interval: Duration, mut backoff: Backoff, mut stop: tokio::sync::watch::Receiver<bool>, poke: Arc<tokio::sync::Notify>) {
        loop {
            if *stop.borrow() {
                return;
            }
            let wait = match self.round().await {
                Ok(_) => {
                    backoff.reset();
                    interval
                }
                Err(e) => {
                    tracing::warn!(code = e.code(), "sync round failed: {e}");
                    backoff.next_delay()
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = poke.notified() => {}
                r = stop.changed() => if r.is_err() { return },
            }
        }
    }
}

