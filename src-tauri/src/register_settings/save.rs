//! Saving the register's settings and putting them in use when that is safe.

use paydesk_access::Action;
use serde::Serialize;
use tauri::State;

use crate::error::AppResult;
use crate::i18n::{active, id, t, tr};
use crate::ops::Operation;
use crate::settings_file::{key_hint, Settings, SettingsForm};
use crate::staff::Approval;
use crate::state::{AppState, Applied};
use crate::views::AppliedWhen;

#[derive(Debug, Serialize)]
pub struct SaveResult {
    pub message: String,
    pub applied: AppliedWhen,
}

/// How long saving waits for a checkout or background pass in flight before it
/// leaves the change to the background pass.
const SAVE_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Validates and stores the settings, then puts them in use at once when that is
/// safe: the engine is rebuilt (new PSP connection, retention, offline limits) only
/// while no checkout, refund or background pass is in flight, and a change of PSP
/// waits until every payment sent to the old one is settled there. Otherwise the
/// background pass applies them later; the reply and the status bar say which.
#[tauri::command]
pub async fn save_settings(state: State<'_, AppState>, settings: SettingsForm, approval: Option<Approval>) -> AppResult<SaveResult> {
    let op = Operation::new(Action::Settings, approval.as_ref()).authorize(&state)?;
    let current = state.stored.settings();
    let mut form = settings;
    // The masked key we showed ("…1234", get_settings), sent back as it was: unchanged.
    // Compared with that hint exactly, not by its look, so a typed key is never swallowed.
    if !current.psp_key.is_empty() && form.psp_key == key_hint(&current.psp_key) {
        form.psp_key = current.psp_key.clone();
    }
    let new = Settings::validate(&form, &current, state.currency)?;
    op.audit_approval("settings.json").permit(&state)?;
    // Saved and held together (`Stored::update`); the approval's audit row is written
    // before, outside the settings' lock.
    state.stored.update(|_| Ok((new.clone(), ())))?;
    let profile_changed = new.fault_profile != current.fault_profile;
    if let (Some(psp), true) = (state.embedded(), state.live().embedded) {
        psp.apply_profile(new.fault_profile);
    }
    let before = state.live();
    let applied = state.apply_settings(SAVE_WAIT).await;
    let profile_note = if profile_changed && before.embedded { t(id!("settings-profile-changed")) } else { String::new() };
    let (message, kind) = match applied {
        Applied::Unchanged => (format!("{}{profile_note}", t(id!("settings-saved"))), AppliedWhen::Unchanged),
        Applied::Now => {
            let live = state.live();
            let psp = if live.psp_url != before.psp_url {
                let to = if live.embedded { t(id!("settings-embedded-psp")) } else { live.psp_url.clone() };
                tr!(active(), "settings-new-psp", psp = to)
            } else {
                String::new()
            };
            (format!("{}{psp}{profile_note}", t(id!("settings-saved-now"))), AppliedWhen::Now)
        }
        Applied::Waiting(reason) => (format!("{}{profile_note}", tr!(active(), "settings-saved-waiting", reason = reason)), AppliedWhen::Waiting),
    };
    Ok(SaveResult { message, applied: kind })
}
