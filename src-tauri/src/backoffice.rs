//! The "Back office" setting and the sync loop in the app (record 0045): pair with the
//! URL and one-time code the owner gives, keep the token in the OS keychain (or, with no
//! keychain, the 0600 `sync.token` beside the ledger), and run the sync loop beside the
//! register — its own ledger connection and its own task, never in a checkout's path.
//! The status bar reads the loop's status through `get_backoffice`. Restoring a replaced
//! register's history (record 0048) is in `restore`.

pub mod restore;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use paydesk_ledger::Ledger;
use paydesk_sync::store::{SyncState, TokenFile};
use paydesk_sync::{Backoff, SyncError, SyncErrorCode, SyncLoop, SyncStatus};
use serde::Serialize;
use tauri::{AppHandle, Manager, Runtime, State};

use crate::error::AppError;
use crate::i18n::{active, tr};
use crate::secrets::SecretStore;
use crate::state::LEDGER_FILE;
use crate::views::BackofficeLink;

/// The keychain entry of the register's back office token.
const TOKEN_SECRET: &str = "backoffice-token";
/// Time between rounds when the last one went well.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(5);
/// The wire's limit on a pairing code.
const MAX_CODE_LEN: usize = paydesk_sync::MAX_PAIRING_CODE_LEN;

/// The loop while it runs.
struct Running {
    status: Arc<Mutex<SyncStatus>>,
    stop: tokio::sync::watch::Sender<bool>,
}

pub struct BackOfficeState {
    data_dir: PathBuf,
    secrets: SecretStore,
    running: Mutex<Option<Running>>,
    /// One pairing at a time (a double press pairs once).
    pairing: tokio::sync::Mutex<()>,
    /// One restore at a time (record 0048).
    restoring: tokio::sync::Mutex<()>,
}

/// What Settings and the status bar show.
#[derive(Debug, Clone, Serialize)]
pub struct BackOfficeView {
    pub paired: bool,
    pub url: Option<String>,
    pub store_id: Option<String>,
    pub register_name: Option<String>,
    pub state: BackofficeLink,
    pub last_sync_ms: Option<i64>,
    pub queued: u64,
    pub offline_waiting: u64,
    pub last_error: Option<String>,
}

impl From<SyncError> for AppError {
    fn from(e: SyncError) -> AppError {
        match e {
            SyncError::Unreachable(m) => AppError::BackOfficeUnreachable(m),
            SyncError::Refused(r) => AppError::BackOfficeRefused(format!("{} ({})", r.message, r.status)),
            SyncError::Input(m) => AppError::InvalidInput(tr!(active(), "input-backoffice", detail = m)),
            other => AppError::Internal(tr!(active(), "internal-backoffice", detail = other.to_string())),
        }
    }
}

impl BackOfficeState {
    pub fn new(data_dir: PathBuf, secrets: SecretStore) -> BackOfficeState {
        BackOfficeState { data_dir, secrets, running: Mutex::new(None), pairing: tokio::sync::Mutex::new(()), restoring: tokio::sync::Mutex::new(()) }
    }

    fn state_path(&self) -> PathBuf {
        SyncState::path_in(&self.data_dir)
    }

    fn load_token(&self) -> Result<Option<String>, String> {
        if self.secrets.in_keychain() {
            self.secrets.get(TOKEN_SECRET)
        } else {
            TokenFile::in_dir(&self.data_dir).load().map_err(|e| e.to_string())
        }
    }

    fn save_token(&self, token: &str) -> Result<(), String> {
        if self.secrets.in_keychain() {
            self.secrets.set(TOKEN_SECRET, token)
        } else {
            TokenFile::in_dir(&self.data_dir).save(token).map_err(|e| e.to_string())
        }
    }

    /// The paired back office's URL and this register's token; `None` when not paired.
    /// For the encrypted copies' send (record 0150), which builds its own client on its
    /// own thread and runtime.
    pub fn paired_link(&self) -> Result<Option<(String, String)>, String> {
        let state = SyncState::load(&self.state_path()).map_err(|e| e.to_string())?;
        let Some(p) = state.pairing else { return Ok(None) };
        let token = self.load_token()?.ok_or("paired, but the back office token is missing: pair again")?;
        Ok(Some((p.url, token)))
    }

    /// Whether this register is paired (the sync state file names a back office).
    pub fn is_paired(&self) -> bool {
        SyncState::load(&self.state_path()).is_ok_and(|s| s.pairing.is_some())
    }

    /// Starts the loop when this register is paired and it is not running yet.
    pub fn start_if_paired(&self) -> Result<bool, String> {
        if self.running.lock().is_some() {
            return Ok(true);
        }
        let state = SyncState::load(&self.state_path()).map_err(|e| e.to_string())?;
        if state.pairing.is_none() {
            return Ok(false);
        }
        let token = self.load_token()?.ok_or("paired, but the back office token is missing: pair again")?;
        let ledger = Ledger::open(self.data_dir.join(LEDGER_FILE)).map_err(|e| e.to_string())?;
        let sync = SyncLoop::new(ledger, &self.state_path(), token, env!("CARGO_PKG_VERSION")).map_err(|e| e.to_string())?;
        let status = sync.status();
        let (stop, stop_rx) = tokio::sync::watch::channel(false);
        // Its own thread at a lower CPU priority, not a task among the commands' (record 0045).
        paydesk_sync::background::spawn(sync, SYNC_INTERVAL, Backoff::default(), stop_rx, Arc::new(tokio::sync::Notify::new()))
            .map_err(|e| format!("the sync thread did not start: {e}"))?;
        *self.running.lock() = Some(Running { status, stop });
        Ok(true)
    }

    pub fn view(&self) -> BackOfficeView {
        let state = SyncState::load(&self.state_path()).unwrap_or_default();
        let p = state.pairing.as_ref();
        let mut v = BackOfficeView {
            paired: p.is_some(),
            url: p.map(|p| p.url.clone()),
            store_id: p.map(|p| p.store_id.clone()),
            register_name: p.map(|p| p.register_name.clone()),
            state: BackofficeLink::NotPaired,
            last_sync_ms: state.last_sync_ms,
            queued: 0,
            offline_waiting: 0,
            last_error: None,
        };
        if let Some(r) = self.running.lock().as_ref() {
            let s = r.status.lock().clone();
            v.queued = s.queued;
            v.offline_waiting = s.offline_waiting;
            v.last_sync_ms = s.last_sync_ms;
            v.state = match s.last_error.as_ref().map(|e| e.code) {
                // The back office cannot be reached: a network matter, the pill says so.
                Some(SyncErrorCode::Unreachable) => BackofficeLink::Unreachable,
                Some(
                    SyncErrorCode::Refused
                    | SyncErrorCode::BadAnswer
                    | SyncErrorCode::AnswerTooLarge
                    | SyncErrorCode::Ledger
                    | SyncErrorCode::BadRow
                    | SyncErrorCode::BackOfficeBehind
                    | SyncErrorCode::State
                    | SyncErrorCode::Input
                    | SyncErrorCode::NotPaired
                    | SyncErrorCode::RestoreFromItself,
                ) => BackofficeLink::Error,
                None if s.queued > 0 => BackofficeLink::Sending,
                None => BackofficeLink::Synced,
            };
            v.last_error = s.last_error.map(|e| e.message);
        }
        v
    }
}

impl Drop for BackOfficeState {
    fn drop(&mut self) {
        if let Some(r) = self.running.lock().take() {
            let _ = r.stop.send(true);
        }
    }
}

/// Called once at start-up: the loop starts with the app when this register is paired.
pub fn start<R: Runtime>(app: &AppHandle<R>, data_dir: PathBuf, secrets: SecretStore) {
    let st = BackOfficeState::new(data_dir, secrets);
    if let Err(e) = st.start_if_paired() {
        // The register works without it; Settings shows the pairing and the bar no sync.
        eprintln!("paydesk: the back office sync did not start: {e}");
    }
    app.manage(st);
}

#[tauri::command]
pub fn get_backoffice(bo: State<'_, BackOfficeState>) -> BackOfficeView {
    bo.view()
}

/// Pairs this register (the rule, not only the UI: refused when already paired).
#[tauri::command]
pub async fn pair_backoffice(
    bo: State<'_, BackOfficeState>,
    app: State<'_, crate::state::AppState>,
    url: String,
    code: String,
    approval: Option<crate::staff::Approval>,
) -> Result<BackOfficeView, AppError> {
    let action = paydesk_access::Action::Settings;
    crate::ops::Operation::new(action, approval.as_ref()).approval_audited("backoffice_pairing").permit(&app)?;
    if code.trim().is_empty() || code.len() > MAX_CODE_LEN {
        return Err(AppError::InvalidInput(tr!(active(), "input-pairing-code", max = MAX_CODE_LEN)));
    }
    let _one = bo.pairing.lock().await;
    let path = bo.state_path();
    let mut state = SyncState::load(&path)?;
    if let Some(p) = &state.pairing {
        return Err(AppError::AlreadyPaired(tr!(active(), "error-already-paired", name = p.register_name.clone(), url = p.url.clone())));
    }
    let (pairing, token) = paydesk_sync::run::pair(&url, &code, env!("CARGO_PKG_VERSION")).await?;
    bo.save_token(&token).map_err(AppError::Internal)?;
    state.pairing = Some(pairing);
    state.save(&path)?;
    bo.start_if_paired().map_err(AppError::Internal)?;
    Ok(bo.view())
}
