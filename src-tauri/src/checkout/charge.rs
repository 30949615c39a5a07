//! Charging the sale's card: the Charge button (and F12), and "Try another card" after a
//! decline.

use paydesk_access::Action;
use paydesk_ledger::CheckoutOptions;
use paydesk_register::CheckoutOutcome;
use tauri::State;

use super::{open_checkout_key, outcome_of};
use crate::error::{AppError, AppResult};
use crate::input::{keyed_test_card, validate_reason};
use crate::ops::{Locks, Operation};
use crate::staff::Approval;
use crate::state::AppState;
use crate::views::OutcomeView;

/// The Charge button (and F12). Pressing it again while a payment is open reuses
/// that payment's key: after a decline or a success it shows the same result; while
/// the outcome is unknown it asks the processor again with the same key.
#[tauri::command]
pub async fn charge(state: State<'_, AppState>, payment_method: String, approval: Option<Approval>) -> AppResult<OutcomeView> {
    let pm = keyed_test_card(&state, &payment_method)?;
    let _pass = Operation::sell().run(&state, Locks::Charge).await?;
    let current = state.screen.checkout();
    if let Some(key) = current {
        let r = state.engine().status_of(&key)?;
        if r.outcome == CheckoutOutcome::Pending {
            let r = state.engine().retry_checkout(&key).await?;
            return outcome_of(&state, &r);
        }
        return outcome_of(&state, &r);
    }
    let cart = state.cart_id();
    // The first tender: the discounts on the bases the customer pays on (record 0068).
    crate::sale::discount::check_first_tender(&state, cart, approval.as_ref())?;
    let res = state.engine().charge_cart(cart, CheckoutOptions::card(pm)).await;
    // Even on an error the cart's checkout (if one is open) is the one on screen.
    let key = match &res {
        Ok(r) => Some(r.checkout_key.clone()),
        Err(_) => open_checkout_key(&state, cart),
    };
    state.screen.set_checkout(key.clone());
    match res {
        Ok(r) => outcome_of(&state, &r),
        Err(e) => {
            // An error while the cart's payment is still open (e.g. the PSP became
            // unreachable after an attempt that may have reached it, and offline was
            // refused): the outcome is unknown. The cashier must see that panel ("do
            // not charge again"), not a bare error that invites charging again.
            if let Some(k) = key {
                if let Ok(r) = state.engine().status_of(&k) {
                    if r.outcome == CheckoutOutcome::Pending {
                        return outcome_of(&state, &r);
                    }
                }
            }
            Err(e.into())
        }
    }
}

/// "Try another card" after a decline: an explicit new payment, so a new key.
/// While the previous outcome is unknown the engine refuses unless a reason is given.
#[tauri::command]
pub async fn try_another_card(
    state: State<'_, AppState>,
    payment_method: String,
    override_reason: Option<String>,
    approval: Option<Approval>,
) -> AppResult<OutcomeView> {
    let pm = keyed_test_card(&state, &payment_method)?;
    let reason = validate_reason(override_reason)?;
    // A reason is sent only to go past an unknown outcome: that is a manager's call.
    let action = if reason.is_some() { Action::OverrideUnknownOutcome } else { Action::Sell };
    let op = Operation::new(action, approval.as_ref()).approval_audited("try_another_card");
    let _pass = op.run(&state, Locks::Charge).await?;
    let mut prev = state.screen.checkout().ok_or(AppError::NoCheckout)?;
    // The engine makes at most one new payment after a given one. If the payment on
    // screen already has a later one that ended (a call that failed after creating it
    // left the screen on the earlier one), continue from that later one: each step moves
    // to a strictly newer payment, so this ends.
    let r = loop {
        match state.engine().new_payment_after(&prev, CheckoutOptions::card(pm.clone()), reason.as_deref()).await {
            Err(paydesk_register::EngineError::LaterPaymentExists { later, .. }) => prev = later,
            other => break other?,
        }
    };
    state.screen.set_checkout(Some(r.checkout_key.clone()));
    outcome_of(&state, &r)
}
