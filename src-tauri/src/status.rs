//! The status bar: PSP online or offline, payments waiting to be forwarded, settings
//! waiting to be put in use. The background pass pushes the same view as an event
//! (`lib.rs`); this command is the page's first read.

use tauri::State;

use crate::error::AppResult;
use crate::state::{AppState, StatusView};

#[tauri::command]
pub fn get_status(state: State<'_, AppState>) -> AppResult<StatusView> {
    state.status()
}
