//! Restore (record 0048): a newly paired register pulls a replaced register's history
//! from the back office, page by page, into its ledger's read-only `restored_history`.
//! Each page is one ledger transaction and the pull starts after the last row held, so a
//! run killed half way resumes, and a second run adds nothing. The rows never enter the
//! outbox: this register keeps its own seq and sends only its own facts.
use crate::client::BackOffice;
use crate::clock::now_ms;
use crate::error::SyncError;
use crate::store::SyncState;
use paydesk_ledger::{Ledger, RestoreSourceRow, RestoredRow};
use paydesk_sync_proto::{RestoreSource, MAX_RESTORE_PAGE};
use serde::Serialize;

/// What a restore run did, and what the predecessor's history is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RestoreReport {
    pub source: RestoreSource,
    pub pages: u64,
    /// Rows this run added (0 when everything was held already).
    pub rows_restored: u64,
    /// The last seq held now; equal to `source.acked_through` when complete.
    pub restored_through: u64,
    pub complete: bool,
}

/// Pulls the history of `from` (a replaced register's id or name) in pages of
/// `page_rows` (1 to 500). `probe` is called with "restore_after_page" after each page is
/// committed (the CLI's crash test stops the process there).
pub async fn restore(ledger: &mut Ledger, state: &SyncState, token: String, from: &str, page_rows: usize, probe: &(dyn Fn(&'static str) + Sync)) -> Result<RestoreReport, SyncError> {
    let pairing = state.pairing.clone().ok_or(SyncError::NotPaired)?;
    let bo = BackOffice::new(&pairing.url, Some(token))?;
    let source = bo.restore_source(from).await?;
    if source.register_id == pairing.register_id {
        return Err(SyncError::RestoreFromItself);
    }
    let page_rows = page_rows.clamp(1, MAX_RESTORE_PAGE);
    let row = RestoreSourceRow {
        register_id: source.register_id.clone(),
        register_name: source.register_name.clone(),
        acked_through: source.acked_through,
        described_json: serde_json::to_string(&source).map_err(|e| SyncError::BadAnswer(e.to_string()))?,
        restored_through: 0,
        started_at_ms: 0,
        finished_at_ms: None,
    };
    let mut through = ledger.sync_log_mut().begin_restore(&row, now_ms())?;
    let (mut pages, mut added) = (0u64, 0u64);
    // Bounded: each page moves `through` forward by at least one row, up to the end the
    // back office named; a page that does not is an answer this register cannot trust.
    while through < source.acked_through {
        let want = page_rows.min((source.acked_through - through).min(MAX_RESTORE_PAGE as u64) as usize);
        let page = bo.restore_page(&source.register_id, through, want).await?;
        if page.rows.is_empty() {
            return Err(SyncError::BadAnswer(format!("the back office named history up to seq {} but sent none after {through}", source.acked_through)));
        }
        let mut rows = Vec::with_capacity(page.rows.len());
        for r in &page.rows {
            let fact_json = serde_json::to_string(&r.fact).map_err(|e| SyncError::BadAnswer(e.to_string()))?;
            rows.push(RestoredRow { seq: r.seq, at_ms: r.at_ms, kind: r.fact.kind().to_string(), fact_json });
        }
        let now = ledger.sync_log_mut().append_restored(&source.register_id, &rows, now_ms())?;
        added += now - through;
        through = now;
        pages += 1;
        probe("restore_after_page");
    }
    Ok(RestoreReport { complete: through == source.acked_through, source, pages, rows_restored: added, restored_through: through })
}
