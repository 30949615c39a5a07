//! Where the PSP's secret key is kept (record 0065): the OS keychain when there is one
//! (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows, through
//! the `keyring` crate), otherwise the settings file with mode 0600 — and then Settings
//! says so, because a file is only as private as the account and its backups.
//!
//! One keychain entry per secret and data folder (service "PayDesk", account
//! `<name>@<data folder>`), so two registers on one machine, or the tests' private data
//! folders, never read each other's key. Every call to the keychain is bounded in time: a
//! Secret Service that waits for a password prompt nobody sees must not hang the
//! register at start-up.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// How long one keychain call may take before the register stops waiting for it.
pub const KEYCHAIN_TIMEOUT: Duration = Duration::from_secs(5);
const SERVICE: &str = "PayDesk";

/// Where secrets go, decided once at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretStore {
    Keychain { account_suffix: String },
    /// No usable keychain: the 0600 settings file holds the key. `why` is shown in Settings.
    File { why: String },
}

fn keychain_call<T: Send + 'static>(
    what: &str,
    f: impl FnOnce() -> Result<T, keyring::Error> + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    // A thread, not the caller's: a blocked D-Bus call is abandoned, not waited for.
    std::thread::Builder::new()
        .name("keychain".into())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| format!("cannot start the keychain call: {e}"))?;
    match rx.recv_timeout(KEYCHAIN_TIMEOUT) {
        Ok(r) => r.map_err(|e| format!("the keychain refused to {what}: {e}")),
        Err(_) => Err(format!("the keychain did not answer within {} s ({what})", KEYCHAIN_TIMEOUT.as_secs())),
    }
}

impl SecretStore {
    /// Probes the keychain for this data folder. `PAYDESK_KEYCHAIN=off` chooses the
    /// file on purpose (a kiosk without a desktop session).
    pub fn open(data_dir: &Path) -> SecretStore {
        if std::env::var("PAYDESK_KEYCHAIN").is_ok_and(|v| v == "off") {
            return SecretStore::File { why: "the keychain is turned off (PAYDESK_KEYCHAIN=off)".into() };
        }
        // Without a session bus address libdbus would try to autolaunch a bus (and the
        // bus a keyring daemon that nobody unlocked): a desktop session always sets it.
        if cfg!(target_os = "linux") && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            return SecretStore::File { why: "no desktop session to reach a keychain in (DBUS_SESSION_BUS_ADDRESS is not set)".into() };
        }
        let dir = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
        let store = SecretStore::Keychain { account_suffix: format!("@{}", dir.display()) };
        // A read of an entry that need not exist: "no entry" proves the keychain answers.
        match store.get("probe") {
            Ok(_) => store,
            Err(why) => SecretStore::File { why },
        }
    }

    pub fn in_keychain(&self) -> bool {
        match self {
            SecretStore::Keychain { .. } => true,
            SecretStore::File { .. } => false,
        }
    }

    /// What Settings shows under the key field.
    pub fn note(&self) -> Option<String> {
        match self {
            SecretStore::Keychain { .. } => None,
            SecretStore::File { why } => Some(format!(
                "The secret key is kept in settings.json (readable by this user only), not in a keychain: {why}."
            )),
        }
    }

    fn entry(&self, name: &str) -> Result<keyring::Entry, String> {
        match self {
            SecretStore::Keychain { account_suffix } => keyring::Entry::new(SERVICE, &format!("{name}{account_suffix}"))
                .map_err(|e| format!("the keychain entry cannot be named: {e}")),
            SecretStore::File { why } => Err(why.clone()),
        }
    }

    /// The secret `name`, `None` when the keychain has no such entry.
    pub fn get(&self, name: &str) -> Result<Option<String>, String> {
        let entry = self.entry(name)?;
        keychain_call("read a secret", move || match entry.get_password() {
            Ok(s) => Ok(Some(s)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(e),
        })
    }

    pub fn set(&self, name: &str, secret: &str) -> Result<(), String> {
        let entry = self.entry(name)?;
        let secret = secret.to_string();
        keychain_call("store a secret", move || entry.set_password(&secret))
    }

    pub fn delete(&self, name: &str) -> Result<(), String> {
        let entry = self.entry(name)?;
        keychain_call("delete a secret", move || match entry.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(e),
        })
    }
}
