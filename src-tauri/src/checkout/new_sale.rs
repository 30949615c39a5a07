//! Next customer: the New sale button.

use paydesk_access::Action;
use paydesk_register::CheckoutOutcome;
use tauri::State;

use super::open_checkout_key;
use crate::error::AppResult;
use crate::input::validate_reason;
use crate::ops::Operation;
use crate::staff::Approval;
use crate::state::AppState;
use crate::store::cart::cart_view;
use crate::views::CartView;

/// Next customer: a fresh cart. Refused while the payment on screen has an unknown
/// outcome, unless the cashier gives a reason (kept in the audit log).
#[tauri::command]
pub async fn new_sale(state: State<'_, AppState>, override_reason: Option<String>, approval: Option<Approval>) -> AppResult<CartView> {
    let reason = validate_reason(override_reason)?;
    let _one_at_a_time = state.screen.charge_turn().await;
    let current = state.screen.checkout().or_else(|| open_checkout_key(&state, state.cart_id()));
    if let Some(key) = current {
        let r = state.engine().status_of(&key)?;
        if r.outcome == CheckoutOutcome::Pending {
            let Some(reason) = reason else {
                return Err(paydesk_register::EngineError::PreviousOutcomeUnknown { key, state: r.state }.into());
            };
            let detail = format!("left checkout {key} ({}) for a new sale", r.state);
            // The charge lock is held already: the outcome above is read under it.
            let op = Operation::new(Action::OverrideUnknownOutcome, approval.as_ref());
            op.audited("new_sale_override", detail, Some(reason)).permit(&state)?;
        }
    }
    let cart = cart_view(&state)?;
    if !cart.lines.is_empty() || cart.locked {
        state.new_cart()?;
    } else {
        state.screen.set_checkout(None);
    }
    cart_view(&state)
}
