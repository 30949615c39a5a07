//! Held sales (保留, issue #30, record 0128): Hold parks the sale on screen and shows a
//! fresh cart; the list shows what is parked; Recall puts one back on screen; Discard
//! voids one. The cart on screen is the app's (`state.screen`); each checkout belongs to
//! its cart, so a payment on one never touches another.
//!
//! Recall refuses while the screen's sale has lines (`recall_screen_busy`): the cashier
//! holds it first, one press each, so nothing is parked that the cashier did not park.
//! The screen reads the cart now on it with `get_cart` after Hold and Recall.

use paydesk_ledger::HeldCart;
use serde::Serialize;
use tauri::State;

use crate::error::{AppError, AppResult, HeldRefusal};
use crate::input::validate_cart;
use crate::money;
use crate::ops::Operation;
use crate::state::AppState;

/// One parked sale as the list shows it.
#[derive(Debug, Serialize)]
pub struct HeldRow {
    pub cart: i64,
    pub held_at_ms: i64,
    pub items: i64,
    pub total: i64,
    pub total_display: String,
}

impl HeldRow {
    fn of(h: &HeldCart) -> HeldRow {
        HeldRow {
            cart: h.cart_id.0,
            held_at_ms: h.held_at_ms,
            items: h.items,
            total: h.total.amount_minor,
            total_display: money::format(h.total.amount_minor, h.total.currency),
        }
    }
}

fn rows(state: &AppState) -> AppResult<Vec<HeldRow>> {
    Ok(state.engine().carts().held()?.iter().map(HeldRow::of).collect())
}

/// Parks the sale on screen (lines, nothing tendered, under the limit of settings.json
/// `max_held_carts`) and shows a new empty cart. The sale it parked.
#[tauri::command]
pub async fn hold_sale(state: State<'_, AppState>) -> AppResult<HeldRow> {
    let granted = Operation::sell().permit(&state)?;
    // No tender, Charge or cancel runs while the cart changes hands.
    let _turn = state.screen.try_charge_turn().ok_or(AppError::TenderInFlight)?;
    let max = state.stored.settings().max_held_carts;
    let held = state.engine().carts().hold(state.cart_id(), max, granted.actor_id())?;
    state.new_cart()?;
    Ok(HeldRow::of(&held))
}

/// The parked sales, oldest first.
#[tauri::command]
pub fn held_sales(state: State<'_, AppState>) -> AppResult<Vec<HeldRow>> {
    rows(&state)
}

/// Puts a parked sale back on screen. Refused while the screen's sale has lines or any
/// tender: that customer's sale is held or finished first. The cart now on screen.
#[tauri::command]
pub async fn recall_sale(state: State<'_, AppState>, cart: i64) -> AppResult<i64> {
    let cart = validate_cart(cart)?;
    let granted = Operation::sell().permit(&state)?;
    let _turn = state.screen.try_charge_turn().ok_or(AppError::TenderInFlight)?;
    let on_screen = state.engine().carts().sale_now(state.cart_id())?;
    if !on_screen.cart.lines.is_empty() || !on_screen.tenders.is_empty() {
        return Err(AppError::Held(HeldRefusal::ScreenBusy));
    }
    state.engine().carts().recall(cart, granted.actor_id())?;
    state.screen.show_cart(cart);
    Ok(cart.0)
}

/// Discards a parked sale: its items are void for good (audited). The list as it is now.
#[tauri::command]
pub fn discard_held(state: State<'_, AppState>, cart: i64) -> AppResult<Vec<HeldRow>> {
    let cart = validate_cart(cart)?;
    let granted = Operation::sell().permit(&state)?;
    state.engine().carts().discard_held(cart, granted.actor_id())?;
    rows(&state)
}
