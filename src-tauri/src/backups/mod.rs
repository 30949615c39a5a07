//! Copies of the ledger while the register runs (record 0116): every
//! `backup_every_minutes` (settings.json), the newest `backup_keep` kept, each checked
//! after it is written. A copy only reads the ledger through its own connection, so a
//! checkout is never stopped for it. The About panel lists the copies and the last
//! failure, if the last attempt failed.
//!
//! After a copy that checked good, a paired register with `backup_send` on sends the
//! newest good copy to its back office, sealed with its backup key (record 0150, [`send`],
//! [`key`]); at start it sends the newest copy if the back office does not hold it yet
//! (a send cut off by a quit or a crash resumes from its `<copy>.sealed` file). A send
//! that fails is shown in the About panel and tried again after the next copy.

pub mod key;
pub mod send;

use std::sync::Mutex;
use std::time::Duration;

use paydesk_ledger::copies::{self as running, CopyCheck};
use serde::Serialize;
use tauri::{AppHandle, Manager, Runtime, State};

use crate::backoffice::BackOfficeState;
use crate::base::lock;
use crate::error::AppResult;
use crate::ops::Operation;
use crate::staff::Approval;
use crate::state::{AppState, LEDGER_FILE};
use crate::views::{CopySendState, KeyStorage};
use send::{Job, LastSent, SendOutcome};

/// What the last scheduled copy and the last send did, for the About panel.
#[derive(Default)]
pub struct CopyStatus {
    last_failure: Mutex<Option<String>>,
    last_send: Mutex<Option<SendOutcome>>,
    /// One send at a time (the start-up send and a scheduled one never overlap).
    sending: tokio::sync::Mutex<()>,
}

impl CopyStatus {
    /// Why the last copy failed; `None` once a copy succeeds again.
    pub fn last_failure(&self) -> Option<String> {
        lock(&self.last_failure).clone()
    }

    pub fn last_send(&self) -> Option<SendOutcome> {
        lock(&self.last_send).clone()
    }
}

/// While the settings ask for none, how often to look again whether they still do.
const OFF_RECHECK: Duration = Duration::from_secs(60);

/// The schedule: wait the interval, copy, send, repeat. The first copy is one interval
/// after start, so starting the register never waits for a copy; a copy taken before the
/// last quit and not at the back office yet is sent at once.
pub async fn run<R: Runtime>(app: AppHandle<R>) {
    send_newest(&app).await;
    loop {
        let every_min = app.state::<AppState>().stored.settings().backup_every_minutes;
        if every_min == 0 {
            tokio::time::sleep(OFF_RECHECK).await;
            continue;
        }
        tokio::time::sleep(Duration::from_secs(u64::from(every_min) * 60)).await;
        scheduled_copy(&app).await;
    }
}

/// One turn of the schedule: a copy, and when it checked good, the send.
pub async fn scheduled_copy<R: Runtime>(app: &AppHandle<R>) {
    let handle = app.clone();
    let taken = tauri::async_runtime::spawn_blocking(move || take_now(&handle.state::<AppState>())).await;
    let failure = match taken {
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(e) => Some(format!("the copy stopped: {e}")),
    };
    if let Some(why) = &failure {
        eprintln!("paydesk: copy of the ledger: {why}");
    }
    let good = failure.is_none();
    *lock(&app.state::<CopyStatus>().last_failure) = failure;
    if good {
        send_newest(app).await;
    }
}

/// Sends the newest good copy when the register is paired, `backup_send` is on and the
/// back office does not hold that copy yet; the outcome goes to the About panel.
pub async fn send_newest<R: Runtime>(app: &AppHandle<R>) {
    let status = app.state::<CopyStatus>();
    let _one = status.sending.lock().await;
    let state = app.state::<AppState>();
    if !state.stored.settings().backup_send {
        return;
    }
    let link = match app.state::<BackOfficeState>().paired_link() {
        Ok(Some(link)) => link,
        Ok(None) => return,
        Err(why) => {
            *lock(&status.last_send) = Some(SendOutcome { state: CopySendState::Failed, code: Some("not_paired".into()), detail: Some(why), at_ms: crate::base::now_ms() });
            return;
        }
    };
    let data_dir = state.stored.data_dir.clone();
    // Copies are checked when written and pruned only after a good one: the newest is the last good copy.
    let Some(copy) = running::list(&data_dir.join(LEDGER_FILE)).pop() else { return };
    let name = copy.file_name().map(|n| n.to_string_lossy().into_owned());
    if LastSent::load(&data_dir).is_some_and(|l| Some(&l.copy) == name.as_ref()) {
        return;
    }
    *lock(&status.last_send) = Some(SendOutcome { state: CopySendState::Sending, code: None, detail: None, at_ms: crate::base::now_ms() });
    let job = Job { data_dir, secrets: state.stored.secrets.clone(), url: link.0, token: link.1, copy };
    let outcome = send::send(job).await;
    if let Some(why) = &outcome.detail {
        eprintln!("paydesk: sending the copy to the back office: {why}");
    }
    *lock(&status.last_send) = Some(outcome);
}

/// One copy now, with the saved number of copies to keep.
pub fn take_now(state: &AppState) -> Result<CopyCheck, paydesk_ledger::Error> {
    let keep = state.stored.settings().backup_keep as usize;
    running::take_now(&state.stored.data_dir.join(LEDGER_FILE), keep)
}

/// How sending the copies stands, for the About panel.
#[derive(Debug, Clone, Serialize)]
pub struct SendView {
    pub state: CopySendState,
    pub code: Option<String>,
    pub detail: Option<String>,
    pub at_ms: Option<i64>,
    /// The last copy the back office holds whole (when, its size).
    pub last_sent: Option<LastSent>,
}

pub fn send_view(state: &AppState, status: &CopyStatus, paired: bool) -> SendView {
    let last_sent = LastSent::load(&state.stored.data_dir);
    let (state, code, detail, at_ms) = if !paired {
        (CopySendState::NotPaired, None, None, None)
    } else if !state.stored.settings().backup_send {
        (CopySendState::Off, None, None, None)
    } else {
        match status.last_send() {
            Some(o) => (o.state, o.code, o.detail, Some(o.at_ms)),
            None if last_sent.is_some() => (CopySendState::Sent, None, None, last_sent.as_ref().map(|l| l.sent_ms)),
            None => (CopySendState::NotYet, None, None, None),
        }
    };
    SendView { state, code, detail, at_ms, last_sent }
}

/// The copies' part of Settings: the schedule (from settings.json), whether copies go
/// to the back office, and where the backup key is kept.
#[derive(Debug, Clone, Serialize)]
pub struct CopySettingsView {
    pub every_minutes: u32,
    pub keep: u32,
    pub send: bool,
    pub paired: bool,
    pub key_storage: KeyStorage,
    /// Why the key is in a file and not a keychain (as for the PSP key).
    pub key_storage_note: Option<String>,
}

fn copy_settings_of(state: &AppState, paired: bool) -> CopySettingsView {
    let s = state.stored.settings();
    let in_keychain = state.stored.secrets.in_keychain();
    CopySettingsView {
        every_minutes: s.backup_every_minutes,
        keep: s.backup_keep,
        send: s.backup_send,
        paired,
        key_storage: if in_keychain { KeyStorage::Keychain } else { KeyStorage::File },
        key_storage_note: state.stored.secrets.note(),
    }
}

#[tauri::command]
pub fn get_copy_settings(state: State<'_, AppState>, bo: State<'_, BackOfficeState>) -> CopySettingsView {
    copy_settings_of(&state, bo.is_paired())
}

/// Turns the sending of copies to the back office on or off: a setting (the owner's),
/// checked here whatever the screen shows.
#[tauri::command]
pub fn set_backup_send(state: State<'_, AppState>, bo: State<'_, BackOfficeState>, on: bool, approval: Option<Approval>) -> AppResult<CopySettingsView> {
    Operation::new(paydesk_access::Action::Settings, approval.as_ref()).approval_audited("settings.json backup_send").permit(&state)?;
    state.stored.update(|s| Ok((crate::settings_file::Settings { backup_send: on, ..s.clone() }, ())))?;
    Ok(copy_settings_of(&state, bo.is_paired()))
}
