//! "Check status": one read of the reader and the intent, applied (nothing is sent to
//! the reader). The page also asks it every few seconds while the card is awaited.
//! It takes no tender turn, so "Cancel on reader" is never refused because of a check;
//! the engine serializes the two per payment.

use paydesk_access::Action;
use tauri::State;

use super::{view, ReaderView};
use crate::commands::validate_key;
use crate::error::AppResult;
use crate::state::AppState;

#[tauri::command]
pub async fn reader_check(state: State<'_, AppState>, checkout_key: String) -> AppResult<ReaderView> {
    let key = validate_key(&checkout_key)?;
    crate::staff::authorize(&state, Action::Sell, None)?;
    let _no_settings_swap = state.gate.read().await;
    let r = state.engine().check_reader_status(&key).await?;
    view(&state, &r)
}
