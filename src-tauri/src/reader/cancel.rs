//! "Cancel on reader" (the action stopped, then read: a tap can race it; the payment stays
//! open for another card) and "Take cash instead" (abandon: the intent canceled at the
//! PSP and read again, so "not charged" stays true; a tap that won the race is paid).

use paydesk_access::Action;
use tauri::State;

use super::{view, ReaderView};
use crate::commands::validate_key;
use crate::error::AppResult;
use crate::sale::begin;
use crate::state::AppState;

#[tauri::command]
pub async fn reader_cancel(state: State<'_, AppState>, checkout_key: String) -> AppResult<ReaderView> {
    let key = validate_key(&checkout_key)?;
    crate::staff::authorize(&state, Action::Sell, None)?;
    let _no_settings_swap = state.gate.read().await;
    let r = state.engine().cancel_reader_action(&key).await?;
    view(&state, &r)
}

#[tauri::command]
pub async fn reader_abandon(state: State<'_, AppState>, checkout_key: String) -> AppResult<ReaderView> {
    let key = validate_key(&checkout_key)?;
    crate::staff::authorize(&state, Action::Sell, None)?;
    let _turn = begin(&state, None).await?;
    let r = state.engine().abandon_reader_payment(&key).await?;
    view(&state, &r)
}
