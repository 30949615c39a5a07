//! Refunding a card payment from the Payments screen, all that is left or an amount.

use paydesk_access::Action;
use paydesk_domain::{Money, RefundState};
use serde::Serialize;
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::input::validate_key;
use crate::money;
use crate::ops::{Locks, Operation};
use crate::staff::Approval;
use crate::state::AppState;

#[derive(Debug, Serialize)]
pub struct RefundResult {
    pub refund_key: String,
    pub state: RefundState,
    pub amount: i64,
    pub message: String,
}

/// Refund all that is left (`amount` null) or an amount typed like "2.50". Each
/// refund gets its own key, committed before the network.
#[tauri::command]
pub async fn refund(
    state: State<'_, AppState>,
    payment_id: String,
    amount: Option<String>,
    approval: Option<Approval>,
) -> AppResult<RefundResult> {
    let key = validate_key(&payment_id)?;
    let minor = match amount.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => {
            let m = Money::parse(text, state.currency).map_err(|_| {
                AppError::InvalidInput(tr!(active(), "input-refund-amount", text = text.chars().take(24).collect::<String>(), example = money::plain(250 * 10i64.pow(state.currency.exponent().saturating_sub(2)), state.currency)))
            })?;
            if m.amount_minor <= 0 {
                return Err(AppError::InvalidInput(tr!(active(), "input-refund-positive")));
            }
            Some(m.amount_minor)
        }
    };
    // The approver is checked here (PIN, lockout) and again by the ledger's role table
    // in the refund's own transaction, whose audit row names both people.
    let pass = Operation::new(Action::Refund, approval.as_ref()).run(&state, Locks::Engine).await?;
    let granted = &pass.granted;
    let r = state
        .engine()
        .refund_approved(&key, minor, Some("requested_by_customer"), granted.approver_id())
        .await
        .map_err(AppError::from)?;
    let shown = money::format(r.amount, r.currency);
    let message = match r.state {
        RefundState::Succeeded => tr!(active(), "refund-done", amount = shown),
        RefundState::Failed => tr!(active(), "refund-failed", amount = shown, reason = r.message.clone().unwrap_or_default()),
        RefundState::Pending | RefundState::InFlight => tr!(active(), "refund-sent", amount = shown),
    };
    Ok(RefundResult { refund_key: r.refund_key, state: r.state, amount: r.amount, message })
}
