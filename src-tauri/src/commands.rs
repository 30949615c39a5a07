//! The Tauri commands: each validates its input, then makes one call into the
//! catalog/cart or the register engine. No business rules live here.

use tauri::State;

use crate::catalog::{self, CartView, Item};
use crate::error::{AppError, AppResult};
use crate::state::{AppState, StatusView};

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[tauri::command]
pub fn get_catalog(state: State<'_, AppState>) -> Vec<Item> {
    state.catalog.items.clone()
}

#[tauri::command]
pub fn get_cart(state: State<'_, AppState>) -> CartView {
    lock(&state.cart).view(&state.catalog)
}

/// A scanner (or the cashier) typed a barcode or SKU and pressed Enter.
#[tauri::command]
pub fn scan(state: State<'_, AppState>, code: String) -> AppResult<CartView> {
    let code = catalog::validate_code(&code)?;
    let item = state
        .catalog
        .lookup(&code)
        .ok_or_else(|| AppError::UnknownItem(code.clone()))?;
    let mut cart = lock(&state.cart);
    cart.add(&item.sku)?;
    Ok(cart.view(&state.catalog))
}

#[tauri::command]
pub fn set_quantity(state: State<'_, AppState>, sku: String, quantity: u32) -> AppResult<CartView> {
    let sku = catalog::validate_code(&sku)?;
    let item = state
        .catalog
        .lookup(&sku)
        .ok_or_else(|| AppError::UnknownItem(sku.clone()))?;
    let mut cart = lock(&state.cart);
    cart.set_quantity(&item.sku, quantity)?;
    Ok(cart.view(&state.catalog))
}

#[tauri::command]
pub fn clear_cart(state: State<'_, AppState>) -> AppResult<CartView> {
    let mut cart = lock(&state.cart);
    cart.clear()?;
    Ok(cart.view(&state.catalog))
}

#[tauri::command]
pub fn get_status(state: State<'_, AppState>) -> StatusView {
    state.status()
}
