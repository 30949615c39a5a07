//! Restore in the app (record 0048): on a register that replaces a broken one, Settings →
//! Back office pulls the predecessor's history from the back office into this ledger's
//! read-only `restored_history` (`paydesk_sync::restore`, as `paydesk-cli sync restore`),
//! and lists its payments. The command enforces the Settings permission; the restore runs
//! on its own ledger connection (like the sync loop), one at a time; every refusal of the
//! back office becomes its own error code, decided from the wire's code, never its words.

use paydesk_ledger::{Ledger, RestoreSourceRow, RestoredPayment};
use paydesk_domain::PaymentState;
use paydesk_sync::store::SyncState;
use paydesk_sync::SyncError;
use serde::Serialize;
use tauri::State;

use super::BackOfficeState;
use crate::error::{AppError, RestoreRefusal};
use crate::i18n::{active, id, t, tr};
use crate::state::LEDGER_FILE;

/// The back office's limit on the name or id asked for.
const MAX_FROM_CHARS: usize = paydesk_sync::MAX_TEXT_LEN;
/// Payments shown per page of the restored history.
pub const HISTORY_PAGE: usize = 50;

/// What one restore run did, for the Back office section.
#[derive(Debug, Clone, Serialize)]
pub struct RestoreView {
    pub register_id: String,
    pub register_name: String,
    /// Rows this run added (0: everything was here already).
    pub rows_restored: u64,
    pub restored_through: u64,
    pub acked_through: u64,
    pub complete: bool,
    /// The result in the screen's words.
    pub message: String,
}

/// A predecessor restored from (or begun).
#[derive(Debug, Clone, Serialize)]
pub struct SourceView {
    pub register_id: String,
    pub register_name: String,
    pub acked_through: u64,
    pub restored_through: u64,
    pub complete: bool,
    pub started_at_ms: i64,
    pub finished_at_ms: Option<i64>,
    /// When the owner marked it replaced (from the back office's description).
    pub replaced_ms: Option<i64>,
}

/// One payment of a predecessor, ready to show (money formatted in Rust, record 0070).
#[derive(Debug, Clone, Serialize)]
pub struct PaymentView {
    pub seq: u64,
    pub checkout_key: String,
    pub amount: i64,
    pub currency: String,
    pub amount_text: String,
    pub state: Option<String>,
    pub state_label: String,
    pub at_ms: i64,
    /// The predecessor's sale this payment paid (its Return items), when known.
    pub sale: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HistoryView {
    pub sources: Vec<SourceView>,
    /// The predecessor whose payments are listed (the latest begun when none was asked).
    pub from: Option<String>,
    pub payments: Vec<PaymentView>,
    /// Pass as `before` for the next (older) page; `None` on the last page.
    pub next_before: Option<u64>,
}

/// The trimmed name or id, checked as the back office checks it.
pub fn check_from(from: &str) -> Result<&str, AppError> {
    let from = from.trim();
    if from.is_empty() || from.chars().count() > MAX_FROM_CHARS || from.chars().any(char::is_control) {
        return Err(AppError::InvalidInput(tr!(active(), "input-restore-from", max = MAX_FROM_CHARS)));
    }
    Ok(from)
}

/// A restore's failure in the app's codes: the back office's refusal by its code (and
/// status), the register's own checks by their variant.
pub fn restore_error(e: SyncError, from: &str) -> AppError {
    let from = from.to_string();
    match e {
        SyncError::NotPaired => AppError::NotPaired,
        SyncError::RestoreFromItself => AppError::Restore(RestoreRefusal::Itself),
        SyncError::Refused(r) => match (r.status, r.code.as_str()) {
            (404, "not_found") => AppError::Restore(RestoreRefusal::Unknown { from }),
            (409, "ambiguous_name") => AppError::Restore(RestoreRefusal::Ambiguous { from }),
            (409, "register_in_service") => AppError::Restore(RestoreRefusal::InService { from }),
            (422, "restore_from_itself") => AppError::Restore(RestoreRefusal::Itself),
            _ => AppError::from(SyncError::Refused(r)),
        },
        other => AppError::from(other),
    }
}

fn source_view(s: &RestoreSourceRow) -> SourceView {
    let described: serde_json::Value = serde_json::from_str(&s.described_json).unwrap_or_default();
    SourceView {
        register_id: s.register_id.clone(),
        register_name: s.register_name.clone(),
        acked_through: s.acked_through,
        restored_through: s.restored_through,
        complete: s.restored_through >= s.acked_through,
        started_at_ms: s.started_at_ms,
        finished_at_ms: s.finished_at_ms,
        replaced_ms: described["replaced_ms"].as_i64(),
    }
}

fn payment_view(p: RestoredPayment) -> PaymentView {
    let state_label = match p.state.as_deref() {
        None => t(id!("backoffice-state-none")),
        // A state this version does not know is shown as sent.
        Some(s) => s.parse::<PaymentState>().map(crate::wording::state_label).unwrap_or_else(|_| s.to_string()),
    };
    PaymentView {
        // Another register's journal, as the back office kept it: a currency this version
        // does not take is shown as sent, with its code.
        amount_text: match p.currency.parse::<paydesk_domain::Currency>() {
            Ok(c) => crate::money::format(p.amount, c),
            Err(_) => format!("{} {}", p.amount, p.currency.to_ascii_uppercase()),
        },
        currency: p.currency.to_ascii_uppercase(),
        seq: p.seq,
        checkout_key: p.checkout_key,
        amount: p.amount,
        state: p.state,
        state_label,
        at_ms: p.at_ms,
        sale: p.sale,
    }
}

impl BackOfficeState {
    /// Runs one restore from `from` (already checked) on its own ledger connection.
    async fn restore_from(&self, from: &str) -> Result<RestoreView, AppError> {
        // One at a time: a second press waits, then finds everything held and adds nothing.
        let _one = self.restoring.lock().await;
        let state = SyncState::load(&self.state_path())?;
        if state.pairing.is_none() {
            return Err(AppError::NotPaired);
        }
        let token = match self.load_token() {
            Ok(Some(t)) => t,
            Ok(None) => return Err(AppError::Internal(t(id!("internal-backoffice-no-token")))),
            Err(e) => return Err(AppError::Internal(tr!(active(), "internal-backoffice", detail = e))),
        };
        // Its own connection, as the sync loop has: a long pull never holds the
        // register's writer, and each page is one transaction of this one.
        let mut ledger = Ledger::open(self.data_dir.join(LEDGER_FILE))?;
        let r = paydesk_sync::restore(&mut ledger, &state, token, from, paydesk_sync::MAX_RESTORE_PAGE, &|_| {})
            .await
            .map_err(|e| restore_error(e, from))?;
        let l = active();
        let name = r.source.register_name.clone();
        let message = if r.rows_restored == 0 && r.complete {
            tr!(l, "backoffice-restored-nothing", name = name.clone(), total = r.source.acked_through)
        } else {
            let done = tr!(l, "backoffice-restored", count = r.rows_restored, name = name.clone());
            let how = if r.complete {
                tr!(l, "backoffice-restored-complete", total = r.source.acked_through)
            } else {
                tr!(l, "backoffice-restored-partial", held = r.restored_through, total = r.source.acked_through)
            };
            format!("{done} {how}")
        };
        Ok(RestoreView {
            register_id: r.source.register_id,
            register_name: name,
            rows_restored: r.rows_restored,
            restored_through: r.restored_through,
            acked_through: r.source.acked_through,
            complete: r.complete,
            message,
        })
    }
}

/// Restores a replaced register's history onto this one (record 0048). Owner only (the
/// Settings permission), approved like any setting; the rule is here, not in the UI.
#[tauri::command]
pub async fn restore_backoffice(
    bo: State<'_, BackOfficeState>,
    app: State<'_, crate::state::AppState>,
    from: String,
    approval: Option<crate::staff::Approval>,
) -> Result<RestoreView, AppError> {
    let action = paydesk_access::Action::Settings;
    let op = crate::ops::Operation::new(action, approval.as_ref()).authorize(&app)?;
    let from = check_from(&from)?;
    op.audit_approval("backoffice_restore").permit(&app)?;
    bo.restore_from(from).await
}

/// The restored history, read-only: every predecessor, and one's payments newest first,
/// [`HISTORY_PAGE`] at a time before the seq `before`.
#[tauri::command]
pub fn restored_history(app: State<'_, crate::state::AppState>, from: Option<String>, before: Option<u64>) -> Result<HistoryView, AppError> {
    let engine = app.engine();
    let sources = engine.payments().restore_sources()?;
    let from = match from.as_deref().map(str::trim) {
        Some(f) => {
            let Some(s) = sources.iter().find(|s| s.register_id == f) else {
                return Err(AppError::InvalidInput(tr!(active(), "input-restored-source", from = f.chars().take(MAX_FROM_CHARS).collect::<String>())));
            };
            Some(s.register_id.clone())
        }
        None => sources.iter().max_by_key(|s| (s.started_at_ms, s.register_id.clone())).map(|s| s.register_id.clone()),
    };
    let mut payments = Vec::new();
    let mut next_before = None;
    if let Some(f) = &from {
        // One more than a page says whether an older page exists.
        let mut rows = engine.payments().restored(f, before, HISTORY_PAGE + 1)?;
        if rows.len() > HISTORY_PAGE {
            rows.truncate(HISTORY_PAGE);
            next_before = rows.last().map(|p| p.seq);
        }
        payments = rows.into_iter().map(payment_view).collect();
    }
    Ok(HistoryView { sources: sources.iter().map(source_view).collect(), from, payments, next_before })
}
