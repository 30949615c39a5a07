//! Paid in / paid out: cash put into or taken out of the drawer outside a sale, with the
//! person's reason. A manager's action (record 0062): a cashier's needs an approval.

use paydesk_access::Action;
use paydesk_ledger::ledger::shift::{checked_reason, MAX_PAID_IN_OUT_MINOR};
use paydesk_ledger::{PaidKind, ShiftRefusal};
use serde::Serialize;
use tauri::State;

use super::actor;
use crate::error::shift::refusal;
use crate::staff::Approval;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::money;
use crate::state::AppState;

#[derive(Debug, Serialize)]
pub struct PaidView {
    pub id: i64,
    pub kind: PaidKind,
    pub amount_minor: i64,
    pub reason: String,
    pub message: String,
}

fn paid(state: &AppState, kind: PaidKind, amount: &str, reason: &str, approval: Option<Approval>) -> AppResult<PaidView> {
    let amount = crate::input::parse_amount(amount, state.currency, crate::input::Amount::PaidInOut).map_err(|e| AppError::InvalidPaidInOut(e.to_string()))?;
    // The ledger's own rules for the amount and the reason, checked here as well so a
    // refused paid out is said before a manager is asked to approve it; the ledger checks
    // them again in its write.
    if amount > MAX_PAID_IN_OUT_MINOR {
        return Err(refusal(&ShiftRefusal::PaidAmountOutOfRange { currency: state.currency, amount_minor: amount }));
    }
    let reason = checked_reason(reason).ok_or_else(|| refusal(&ShiftRefusal::ReasonInvalid))?;
    let who = actor(state, Action::PaidInOut, approval.as_ref())?;
    let row = state.engine().shifts().paid_in_out(who, kind, amount, reason)?;
    let shown = money::format(row.amount_minor, state.currency);
    let message = match kind {
        PaidKind::PaidIn => tr!(active(), "shift-paid-in-done", amount = shown),
        PaidKind::PaidOut => tr!(active(), "shift-paid-out-done", amount = shown),
    };
    Ok(PaidView { id: row.id, kind: row.kind, amount_minor: row.amount_minor, reason: row.reason, message })
}

#[tauri::command]
pub fn paid_in(state: State<'_, AppState>, amount: String, reason: String, approval: Option<Approval>) -> AppResult<PaidView> {
    paid(&state, PaidKind::PaidIn, &amount, &reason, approval)
}

#[tauri::command]
pub fn paid_out(state: State<'_, AppState>, amount: String, reason: String, approval: Option<Approval>) -> AppResult<PaidView> {
    paid(&state, PaidKind::PaidOut, &amount, &reason, approval)
}
