//! Copies of the ledger while the register runs (record 0116): every
//! `backup_every_minutes` (settings.json), the newest `backup_keep` kept, each checked
//! after it is written. A copy only reads the ledger through its own connection, so a
//! checkout is never stopped for it. The About panel lists the copies and the last
//! failure, if the last attempt failed.

use std::sync::Mutex;
use std::time::Duration;

use paydesk_ledger::copies::{self as running, CopyCheck};
use tauri::{AppHandle, Manager, Runtime};

use crate::base::lock;
use crate::state::{AppState, LEDGER_FILE};

/// What the last scheduled copy did, for the About panel.
#[derive(Default)]
pub struct CopyStatus {
    last_failure: Mutex<Option<String>>,
}

impl CopyStatus {
    /// Why the last copy failed; `None` once a copy succeeds again.
    pub fn last_failure(&self) -> Option<String> {
        lock(&self.last_failure).clone()
    }
}

/// While the settings ask for none, how often to look again whether they still do.
const OFF_RECHECK: Duration = Duration::from_secs(60);

/// The schedule: wait the interval, copy, repeat. The first copy is one interval after
/// start, so starting the register never waits for a copy.
pub async fn run<R: Runtime>(app: AppHandle<R>) {
    loop {
        let every_min = app.state::<AppState>().stored.settings().backup_every_minutes;
        if every_min == 0 {
            tokio::time::sleep(OFF_RECHECK).await;
            continue;
        }
        tokio::time::sleep(Duration::from_secs(u64::from(every_min) * 60)).await;
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
        *lock(&app.state::<CopyStatus>().last_failure) = failure;
    }
}

/// One copy now, with the saved number of copies to keep.
pub fn take_now(state: &AppState) -> Result<CopyCheck, paydesk_ledger::Error> {
    let keep = state.stored.settings().backup_keep as usize;
    running::take_now(&state.stored.data_dir.join(LEDGER_FILE), keep)
}
