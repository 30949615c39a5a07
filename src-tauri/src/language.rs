//! The language commands (record 0070): the UI's messages in the active language, and
//! switching it (saved with the settings).

use paydesk_domain::Locale;
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::i18n::{active, initial, messages_view, set_active, tr, MessagesView};
use crate::settings_file::Settings;
use crate::state::AppState;

/// The store's time zone; the locale's own while the ledger cannot be read.
fn store_zone(state: &AppState) -> String {
    state.engine().store().settings().map(|s| s.time_zone).unwrap_or_default()
}

#[tauri::command]
pub fn get_messages(state: State<'_, AppState>) -> MessagesView {
    messages_view(state.stored.settings().language, store_zone(&state))
}

/// Switches the screen's language at once and saves the choice with the settings.
/// `lang`: "en", "ja", or "" to follow the store and the system again.
#[tauri::command]
pub fn set_language(state: State<'_, AppState>, lang: String) -> AppResult<MessagesView> {
    let wanted = if lang.is_empty() {
        None
    } else {
        let shown: String = lang.chars().take(16).collect();
        let known = Locale::ALL.into_iter().find(|l| l.code() == lang);
        Some(known.ok_or_else(|| AppError::InvalidInput(tr!(active(), "language-unknown", lang = shown)))?)
    };
    // Saved first: a choice the file does not hold would be lost at the next start.
    state.stored.update(|s| Ok((Settings { language: wanted, ..s.clone() }, ())))?;
    let store = state.engine().store().settings().ok().map(|s| s.locale);
    set_active(initial(wanted, store, |k| std::env::var(k).ok()));
    Ok(messages_view(wanted, store_zone(&state)))
}
