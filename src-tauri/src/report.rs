//! The End of day screen's takings report: totals, payment counts and the per-hour
//! chart since the start of the store's day (the shift's X and Z reports are
//! `shift/report.rs`).

use tauri::State;

use crate::base::now_ms;
use crate::error::AppResult;
use crate::input::report_start;
use crate::state::AppState;
use crate::views::{self, ReportView};

/// Totals since `since` (ms since the epoch), or, without it, since the start of the
/// store's day: midnight in the store's time zone, not the computer's. The per-hour chart's
/// hours are the store's too.
#[tauri::command]
pub fn get_report(state: State<'_, AppState>, since: Option<i64>) -> AppResult<ReportView> {
    let now = now_ms();
    let store = state.engine().store().settings()?;
    let since = report_start(since, now, &store)?;
    // The ledger's takings (the X and Z reports' definitions) and its payment counts.
    let cur = state.currency;
    let paydesk_register::usecases::StoreDay { takings, taken, stats } = state.engine().payments().day(cur, since)?;
    Ok(views::report(views::ReportInput {
        takings: &takings,
        taken: &taken,
        stats,
        since,
        now_ms: now,
        store: &store,
        currency: state.currency,
    }))
}
