//! Sending the newest good copy to the back office, sealed (record 0150): through
//! `paydesk_sync::backup::send_copy`, the path the CLI's `backup send` takes (checked
//! again, sealed to `<copy>.sealed`, sent in chunks, the sealed file kept until the back
//! office holds it whole, so a send cut off by a quit, a crash or the network resumes
//! from its first missing chunk). On a thread of its own at the sync thread's lower CPU
//! priority, with its own runtime: sealing a large copy never takes a checkout's CPU or a
//! command's thread.

use std::path::{Path, PathBuf};

use paydesk_sync::backup::{send_copy, BackupError, Sent};
use paydesk_sync::{BackOffice, SyncError};
use serde::{Deserialize, Serialize};

use super::key::{self, KeyError};
use crate::secrets::SecretStore;
use crate::settings_file::write_private;
use crate::views::CopySendState;

/// Where the last copy the back office holds whole is written down.
pub const SENT_FILE: &str = "backup-sent.json";

/// The last copy the back office holds whole (`backup-sent.json`), for the About panel,
/// and so a copy already there is not sent again after a restart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastSent {
    /// The copy's file name in backups/.
    pub copy: String,
    pub backup_id: String,
    /// The sealed size the back office holds.
    pub bytes: u64,
    pub sha256: String,
    pub taken_ms: i64,
    pub sent_ms: i64,
    /// Which key sealed it (its id, not the key): what the owner's safe must hold.
    pub key_id: String,
}

impl LastSent {
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join(SENT_FILE)
    }

    /// `None` when none was sent, or the file cannot be read (then the next copy is sent
    /// again, which the back office answers as already held: no harm).
    pub fn load(data_dir: &Path) -> Option<LastSent> {
        let bytes = std::fs::read(Self::path(data_dir)).ok()?;
        if bytes.len() > 4096 {
            return None;
        }
        serde_json::from_slice(&bytes).ok()
    }

    fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        write_private(&Self::path(data_dir), &serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?)
    }
}

/// What one send did, for the About panel.
#[derive(Debug, Clone, Serialize)]
pub struct SendOutcome {
    pub state: CopySendState,
    /// The failure's stable code (`BackupError::code`, the back office's refusal code).
    pub code: Option<String>,
    pub detail: Option<String>,
    pub at_ms: i64,
}

impl SendOutcome {
    fn failed(state: CopySendState, code: &str, detail: String) -> SendOutcome {
        SendOutcome { state, code: Some(code.to_string()), detail: Some(detail), at_ms: crate::base::now_ms() }
    }
}

/// What the About panel says of a failed send: by the error's type, never its text.
fn state_of(e: &BackupError) -> CopySendState {
    match e {
        BackupError::Sync(s) => match s {
            SyncError::Unreachable(_) => CopySendState::Unreachable,
            SyncError::Refused(_) => CopySendState::Refused,
            SyncError::BadAnswer(_)
            | SyncError::AnswerTooLarge { .. }
            | SyncError::Ledger(_)
            | SyncError::BadRow { .. }
            | SyncError::BackOfficeBehind { .. }
            | SyncError::State { .. }
            | SyncError::Input(_)
            | SyncError::NotPaired
            | SyncError::RestoreFromItself => CopySendState::Failed,
        },
        BackupError::TooLarge { .. } => CopySendState::Refused,
        BackupError::KeyFile { .. }
        | BackupError::KeyNotPrivate { .. }
        | BackupError::NotABackup { .. }
        | BackupError::UnknownFormat { .. }
        | BackupError::WrongKey { .. }
        | BackupError::Tampered { .. }
        | BackupError::HashMismatch { .. }
        | BackupError::NoCopy(_)
        | BackupError::Copy(_)
        | BackupError::ChangedWhileSealing { .. }
        | BackupError::Io { .. } => CopySendState::Failed,
    }
}

/// The refusal's own code when the back office refused; the error's code otherwise.
fn code_of(e: &BackupError) -> String {
    match e {
        BackupError::Sync(SyncError::Refused(r)) => r.code.clone(),
        other => other.code().to_string(),
    }
}

/// What a send needs, taken from the app's state before it leaves for its thread.
pub struct Job {
    pub data_dir: PathBuf,
    pub secrets: SecretStore,
    pub url: String,
    pub token: String,
    pub copy: PathBuf,
}

/// Seals and sends `job.copy` on a low-priority thread of its own and waits (without
/// holding a thread of the caller's runtime) for the outcome; the sent copy is written
/// down in `backup-sent.json`.
pub async fn send(job: Job) -> SendOutcome {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = paydesk_sync::background::spawn_low_priority("paydesk-backup-send", move || {
        let _ = tx.send(send_here(&job));
    });
    if let Err(e) = spawned {
        return SendOutcome::failed(CopySendState::Failed, "io", format!("the send thread did not start: {e}"));
    }
    rx.await.unwrap_or_else(|_| SendOutcome::failed(CopySendState::Failed, "internal", "the send thread stopped".into()))
}

enum Problem {
    Key(KeyError),
    Send(BackupError),
}

fn send_here(job: &Job) -> SendOutcome {
    let sent = sealed_and_sent(job);
    match sent {
        Ok((sent, key_id)) => {
            let name = sent.copy.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let last = LastSent {
                copy: name,
                backup_id: sent.backup.backup_id.clone(),
                bytes: sent.backup.bytes,
                sha256: sent.backup.sha256.clone(),
                taken_ms: sent.backup.taken_ms,
                sent_ms: crate::base::now_ms(),
                key_id,
            };
            if let Err(e) = last.save(&job.data_dir) {
                // The back office holds it; only the panel's note is missing (and the next
                // start sends it again, answered as already held).
                eprintln!("paydesk: {SENT_FILE} not written: {e}");
            }
            SendOutcome { state: CopySendState::Sent, code: None, detail: None, at_ms: last.sent_ms }
        }
        Err(Problem::Key(e)) => SendOutcome::failed(CopySendState::Failed, e.code(), e.to_string()),
        Err(Problem::Send(e)) => SendOutcome::failed(state_of(&e), &code_of(&e), e.to_string()),
    }
}

fn sealed_and_sent(job: &Job) -> Result<(Sent, String), Problem> {
    let key = key::get_or_create(&job.data_dir, &job.secrets).map_err(Problem::Key)?;
    let bo = BackOffice::new(&job.url, Some(job.token.clone())).map_err(|e| Problem::Send(e.into()))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Problem::Send(BackupError::Io { path: "runtime".into(), message: e.to_string() }))?;
    let sent = rt.block_on(send_copy(&bo, &key, &job.copy)).map_err(Problem::Send)?;
    Ok((sent, key.id_hex()))
}
