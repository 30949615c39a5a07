//! The About panel (record 0054): which build this is and where its data lives, so a
//! store can tell support what it runs and back up the right folder.

use serde::Serialize;
use tauri::State;

use crate::config::FaultProfile;

use crate::error::AppResult;
use crate::config::VERSION;
use crate::state::{AppState, LEDGER_FILE};
use crate::views::PspKind;

#[derive(Debug, Clone, Serialize)]
pub struct AboutView {
    pub version: String,
    pub data_dir: String,
    pub ledger_path: String,
    /// The schema version of the open ledger (what a backup restores into).
    pub ledger_schema: i64,
    /// The schema version this build writes (equal to `ledger_schema` once open).
    pub schema_supported: i64,
    /// Copies written before schema upgrades, newest last (file names).
    pub backups: Vec<String>,
    /// Copies taken while the register runs (record 0116), newest last (file names):
    /// each was checked when written, so the newest is the last good copy.
    pub copies: Vec<String>,
    /// Minutes between those copies (0: none are taken).
    pub copy_every_minutes: u32,
    /// Why the last scheduled copy failed, while it has not succeeded since.
    pub copy_failure: Option<String>,
    /// The copies sent to the back office (record 0150): how it stands, the last one it
    /// holds whole. `None` only from [`about_of`] alone.
    pub copy_send: Option<crate::backups::SendView>,
    pub psp_kind: PspKind,
    pub psp_url: String,
    /// The embedded PSP's fault profile (none for an external PSP).
    pub fault_profile: Option<FaultProfile>,
}

#[tauri::command]
pub fn about(
    state: State<'_, AppState>,
    copies: State<'_, crate::backups::CopyStatus>,
    bo: State<'_, crate::backoffice::BackOfficeState>,
) -> AppResult<AboutView> {
    let mut view = about_of(&state)?;
    view.copy_failure = copies.last_failure();
    view.copy_send = Some(crate::backups::send_view(&state, &copies, bo.is_paired()));
    Ok(view)
}

pub fn about_of(state: &AppState) -> AppResult<AboutView> {
    let live = state.live();
    let ledger_schema = state.engine().ledger_schema_version()?;
    let ledger_path = state.stored.data_dir.join(LEDGER_FILE);
    let names = |paths: Vec<std::path::PathBuf>| -> Vec<String> {
        paths.iter().filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).collect()
    };
    let backups = names(paydesk_ledger::backup::list(&ledger_path));
    let copies = names(paydesk_ledger::copies::list(&ledger_path));
    Ok(AboutView {
        version: VERSION.to_string(),
        data_dir: state.stored.data_dir.display().to_string(),
        ledger_path: ledger_path.display().to_string(),
        ledger_schema,
        schema_supported: paydesk_ledger::SCHEMA_VERSION,
        backups,
        copies,
        copy_every_minutes: state.stored.settings().backup_every_minutes,
        copy_failure: None,
        copy_send: None,
        psp_kind: if live.embedded { PspKind::Embedded } else { PspKind::External },
        psp_url: live.psp_url.clone(),
        // The profile is put on the embedded PSP when it is saved (it never waits for a
        // new engine, whose settings ignore it): the saved one is the one in use.
        fault_profile: live.embedded.then(|| state.stored.settings().fault_profile),
    })
}
