//! The Audit view: the chain checked (record 0064) — intact, or each broken row named with
//! what is wrong — and the latest rows (when, who, approver, action, subject).

use paydesk_access::Break;
use serde::Serialize;
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::state::AppState;
use crate::views::AuditConfirmation;

/// Rows one page shows at most.
pub const MAX_PAGE: u32 = 200;

#[derive(Debug, Serialize)]
pub struct BreakView {
    /// The row the break is found at (the first of deleted rows).
    pub seq: u64,
    /// "changed", "deleted", "moved", "unlinked", "cut", "head", "checkpoint", or against the
    /// head the back office confirmed: "confirmed-cut" (rows it had were deleted from the
    /// end) or "confirmed" (another row there: rewritten and re-sealed).
    pub kind: &'static str,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct VerifyView {
    pub intact: bool,
    pub rows: u64,
    /// The last row as `SEQ:HEX` (what to keep apart, or compare with a Z report's).
    pub head: String,
    pub breaks: Vec<BreakView>,
    pub breaks_not_listed: u64,
    pub message: String,
    /// What "intact" means, in plain words: what was checked, and what it cannot prove.
    pub meaning: String,
    /// The head the back office last confirmed (record 0053), when it did.
    pub confirmed: Option<ConfirmedView>,
    pub confirmation: AuditConfirmation,
}

#[derive(Debug, Serialize)]
pub struct ConfirmedView {
    pub seq: u64,
    /// `SEQ:HEX`, as `head`.
    pub head: String,
    /// When this register learned it (its ack arrived).
    pub at_ms: i64,
}

fn seq_hex(a: &paydesk_access::Anchor) -> String {
    let hex: String = a.hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}:{hex}", a.seq)
}

fn break_view(b: &Break) -> BreakView {
    let l = active();
    let s = |n: u64| n.to_string();
    let (seq, kind, message) = match *b {
        Break::Changed { seq } => (seq, "changed", tr!(l, "audit-break-changed", row = s(seq))),
        Break::Reordered { seq, written_at } => (seq, "moved", tr!(l, "audit-break-moved", row = s(seq), written = s(written_at))),
        Break::Deleted { from_seq, to_seq } => (from_seq, "deleted", tr!(l, "audit-break-deleted", from = s(from_seq), to = s(to_seq))),
        Break::Unlinked { seq } => (seq, "unlinked", tr!(l, "audit-break-unlinked", row = s(seq))),
        Break::Truncated { last_seq, head_seq } => {
            (last_seq + 1, "cut", tr!(l, "audit-break-cut", from = s(last_seq + 1), to = s(head_seq)))
        }
        Break::HeadMismatch { last_seq, head_seq } => {
            (last_seq, "head", tr!(l, "audit-break-head", row = s(last_seq), head = s(head_seq)))
        }
        Break::CheckpointMismatch { seq } => (seq, "checkpoint", tr!(l, "audit-break-checkpoint", row = s(seq))),
        Break::BehindConfirmed { last_seq, confirmed_seq } => {
            (last_seq + 1, "confirmed-cut", tr!(l, "audit-break-confirmed-cut", from = s(last_seq + 1), to = s(confirmed_seq)))
        }
        Break::ConfirmedMismatch { seq } => (seq, "confirmed", tr!(l, "audit-break-confirmed", row = s(seq))),
    };
    BreakView { seq, kind, message }
}

/// Checks the whole chain, every head a Z report recorded (record 0066) and the head the
/// back office last confirmed (record 0053).
#[tauri::command]
pub fn audit_verify(state: State<'_, AppState>, bo: State<'_, crate::backoffice::BackOfficeState>) -> AppResult<VerifyView> {
    let (verdict, head, confirmed) = state.engine().audit().verify_with_head()?;
    let head = seq_hex(&head);
    let confirmed = confirmed.map(|c| ConfirmedView { seq: c.anchor.seq, head: seq_hex(&c.anchor), at_ms: c.confirmed_at_ms });
    // A head confirmed once stays a fact of this file even if the pairing was removed.
    let confirmation = match (&confirmed, bo.view().paired) {
        (Some(_), _) => AuditConfirmation::Confirmed,
        (None, true) => AuditConfirmation::Never,
        (None, false) => AuditConfirmation::NoBackOffice,
    };
    let breaks: Vec<BreakView> = verdict.breaks.iter().map(break_view).collect();
    let l = active();
    let message = if verdict.is_intact() {
        tr!(l, "audit-intact", rows = verdict.rows_checked.to_string(), head = head.clone())
    } else {
        tr!(l, "audit-broken", count = (breaks.len() as u64 + verdict.breaks_not_listed).to_string())
    };
    Ok(VerifyView {
        intact: verdict.is_intact(),
        rows: verdict.rows_checked,
        head,
        breaks,
        breaks_not_listed: verdict.breaks_not_listed,
        message,
        meaning: tr!(l, "audit-intact-means"),
        confirmed,
        confirmation,
    })
}

#[derive(Debug, Serialize)]
pub struct AuditRow {
    pub seq: i64,
    pub at_ms: i64,
    pub actor: Option<String>,
    pub approver: Option<String>,
    pub action: String,
    pub subject: Option<String>,
    pub reason: String,
}

/// The newest `limit` rows (1 to [`MAX_PAGE`]) before row `before` (or the newest),
/// newest first.
#[tauri::command]
pub fn audit_page(state: State<'_, AppState>, limit: u32, before: Option<i64>) -> AppResult<Vec<AuditRow>> {
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(AppError::InvalidInput(crate::i18n::tr!(crate::i18n::active(), "input-audit-page", max = MAX_PAGE.to_string())));
    }
    let (rows, names) = state.engine().audit().log_with_names()?;
    let name = |id: Option<i64>| id.map(|i| names.name(i));
    Ok(rows
        .into_iter()
        .rev()
        .filter(|r| before.is_none_or(|b| r.id < b))
        .take(limit as usize)
        .map(|r| AuditRow {
            seq: r.id,
            at_ms: r.at_ms,
            actor: name(r.actor_id),
            approver: name(r.approver_id),
            action: r.action,
            subject: r.detail,
            reason: r.reason,
        })
        .collect())
}
