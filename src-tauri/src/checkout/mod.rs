//! The card checkout of the sale on screen: Charge and "Try another card" (`charge.rs`),
//! the next customer (`new_sale.rs`), and the result on screen. This file holds what
//! they share: a checkout's outcome as the screen shows it, and the cart's open one.

pub mod charge;
pub mod new_sale;

use paydesk_ledger::CartId;
use paydesk_register::CheckoutReport;
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::state::AppState;
use crate::views::OutcomeView;

fn outcome(state: &AppState, key: &str) -> AppResult<OutcomeView> {
    let report = state.engine().status_of(key)?;
    outcome_of(state, &report)
}

fn outcome_of(state: &AppState, r: &CheckoutReport) -> AppResult<OutcomeView> {
    let payment = state
        .engine()
        .payments()
        .by_key_now(&r.checkout_key)?
        .ok_or_else(|| AppError::Internal(tr!(active(), "internal-payment-missing")))?;
    let cart_id = payment.cart_id.unwrap_or_else(|| state.cart_id());
    let cart = crate::store::cart::view_of(state, &state.engine().carts().cart_now(cart_id)?)?;
    Ok(OutcomeView::build(r, &payment, cart))
}

/// The key of the cart's open checkout, if any (e.g. after a charge that errored).
fn open_checkout_key(state: &AppState, cart: CartId) -> Option<String> {
    state.engine().payments().open_for_cart(cart).ok().flatten().map(|p| p.idempotency_key)
}

/// The result of the checkout on screen (e.g. after a background update).
#[tauri::command]
pub fn current_checkout(state: State<'_, AppState>) -> AppResult<Option<OutcomeView>> {
    let key = state.screen.checkout();
    key.map(|k| outcome(&state, &k)).transpose()
}
