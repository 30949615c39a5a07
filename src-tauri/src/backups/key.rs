//! The register's backup key (record 0150): 32 random bytes that seal its copies before
//! they leave for the back office, which never holds it. Made on first need (the first
//! send, or the owner asking to see it) and never replaced: copies sealed with a key
//! are opened only with that key, so a second key would orphan the copies already sent.
//!
//! Kept as the PSP key is (record 0065): the OS keychain, entry `backup-key@<data folder>`,
//! through the same bounded calls (`secrets.rs`); with no keychain, the 0600 file
//! `backup.key` in the data folder, in the CLI's `--key` format (so `paydesk-cli backup
//! fetch --key <data folder>/backup.key` reads it as is). Its own file rather than a
//! field of settings.json, as the back office token has `sync.token`: settings.json is
//! read, shown and edited by hand far more often, and the key in it would travel with
//! every copy of the settings.
//!
//! The owner's copy for the safe is read by [`reveal`] (the `backup_key` command): the
//! command, not the screen, asks for the owner's permission, and writes an audit row
//! naming who saw it. Shown, not exported to a file: a file lands on the register's own
//! disk or a stick beside it, where the thief of the register finds it; the safe needs
//! 64 characters on paper. The key is never logged and never passed in argv.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use paydesk_access::Action;
use paydesk_sync::backup::{BackupError, BackupKey};
use serde::Serialize;
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::ops::Operation;
use crate::secrets::SecretStore;
use crate::staff::Approval;
use crate::state::AppState;
use crate::views::KeyStorage;

/// The keychain entry's name (account `backup-key@<data folder>`).
pub const KEY_SECRET: &str = "backup-key";
/// With no keychain: this file (0600) in the data folder.
pub const KEY_FILE: &str = "backup.key";

/// One key made at a time: two first needs at once must not each make one, the second
/// overwriting the first after copies were sealed with it.
static MAKING: Mutex<()> = Mutex::new(());

/// Why the backup key could not be had.
#[derive(Debug)]
pub enum KeyError {
    /// The keychain did not answer, or refused (its message, which never holds the key).
    Keychain(String),
    /// The keychain's entry holds something that is not a backup key. Not replaced: a
    /// key the owner has in the safe may be the one meant.
    NotAKey,
    /// The key file (no keychain): unreadable, not private, not a key, or not writable.
    File(BackupError),
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::Keychain(why) => write!(f, "the backup key cannot be read from the keychain: {why}"),
            KeyError::NotAKey => write!(f, "the keychain entry {KEY_SECRET} does not hold a backup key (64 hex digits)"),
            KeyError::File(e) => write!(f, "{e}"),
        }
    }
}

impl KeyError {
    /// A stable code for the About panel.
    pub fn code(&self) -> &'static str {
        match self {
            KeyError::Keychain(_) => "backup_key_keychain",
            KeyError::NotAKey => "backup_key_not_a_key",
            KeyError::File(e) => e.code(),
        }
    }
}

pub fn key_file(data_dir: &Path) -> PathBuf {
    data_dir.join(KEY_FILE)
}

/// The register's backup key, made on first need, never replaced.
pub fn get_or_create(data_dir: &Path, secrets: &SecretStore) -> Result<BackupKey, KeyError> {
    let _one = MAKING.lock().unwrap_or_else(|p| p.into_inner());
    let file = key_file(data_dir);
    match secrets {
        SecretStore::Keychain { .. } => {
            // Only a sure "no such entry" makes a key; a keychain that does not answer is an error.
            if let Some(hex) = secrets.get(KEY_SECRET).map_err(KeyError::Keychain)? {
                return BackupKey::from_hex(&hex).ok_or(KeyError::NotAKey);
            }
            // A key kept in the file while there was no keychain moves there (as the PSP
            // key does): the copies sealed with it must still open.
            let had_file = file.exists();
            let key = if had_file { BackupKey::load(&file).map_err(KeyError::File)? } else { BackupKey::generate() };
            secrets.set(KEY_SECRET, &key.to_hex()).map_err(KeyError::Keychain)?;
            if had_file {
                // The keychain holds it now; the file would only be a second place to steal it from.
                let _ = std::fs::remove_file(&file);
            }
            Ok(key)
        }
        SecretStore::File { .. } => {
            if file.exists() {
                return BackupKey::load(&file).map_err(KeyError::File);
            }
            let key = BackupKey::generate();
            // create_new and 0600: never over a key file that appeared meanwhile.
            key.save_new(&file).map_err(KeyError::File)?;
            Ok(key)
        }
    }
}

/// The key for the owner's safe: the key itself (64 hex digits), its id (to write
/// beside it, and to compare with later without showing the key) and where it is kept.
#[derive(Serialize)]
pub struct BackupKeyView {
    pub key: String,
    pub key_id: String,
    pub storage: KeyStorage,
}

// Never printed: the view holds the key.
impl std::fmt::Debug for BackupKeyView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BackupKeyView(id {})", self.key_id)
    }
}

/// Shows the backup key to the owner (made now if there is none yet). The owner's
/// permission is checked here, whatever the screen shows; who saw it is in the audit chain.
pub fn reveal(state: &AppState, approval: Option<&Approval>) -> AppResult<BackupKeyView> {
    Operation::new(Action::Settings, approval).audited("backup_key_shown", "the backup key was shown for the owner's safe".into(), None).permit(state)?;
    let key = get_or_create(&state.stored.data_dir, &state.stored.secrets)
        .map_err(|e| AppError::Internal(tr!(active(), "internal-backup-key", detail = e.to_string())))?;
    let storage = if state.stored.secrets.in_keychain() { KeyStorage::Keychain } else { KeyStorage::File };
    Ok(BackupKeyView { key: key.to_hex(), key_id: key.id_hex(), storage })
}

#[tauri::command]
pub fn backup_key(state: State<'_, AppState>, approval: Option<Approval>) -> AppResult<BackupKeyView> {
    reveal(&state, approval.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_keychain_the_backup_key_is_made_once_in_a_private_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = SecretStore::File { why: "no keychain in this test".into() };
        let first = get_or_create(dir.path(), &file).unwrap();
        let path = key_file(dir.path());
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(BackupKey::load(&path).unwrap().id(), first.id(), "the CLI's --key reads it as is");
        assert_eq!(get_or_create(dir.path(), &file).unwrap().id(), first.id(), "never replaced");
        // A key file others can read is refused, not used and not replaced.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = get_or_create(dir.path(), &file).unwrap_err();
        assert_eq!(e.code(), "backup_key_not_private", "{e}");
        assert!(!format!("{e} {e:?}").contains(&first.to_hex()), "an error never shows the key");
    }
}
