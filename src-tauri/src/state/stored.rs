//! What the register keeps in its data folder besides the ledger: the folder itself, the
//! settings as saved (`settings.json`, which may be ahead of the engine in use while a
//! change waits) and where their secret key is kept (record 0065).

use std::path::PathBuf;
use std::sync::Mutex;

use crate::base::lock;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::secrets::SecretStore;
use crate::settings_file::Settings;

pub struct Stored {
    pub data_dir: PathBuf,
    /// The settings as saved; changed only through [`Stored::update`].
    settings: Mutex<Settings>,
    /// The OS keychain, or the 0600 file.
    pub secrets: SecretStore,
}

impl Stored {
    pub fn new(data_dir: PathBuf, settings: Settings, secrets: SecretStore) -> Stored {
        Stored { data_dir, settings: Mutex::new(settings), secrets }
    }

    /// The settings as saved (a copy: never held across an operation).
    pub fn settings(&self) -> Settings {
        lock(&self.settings).clone()
    }

    /// Works out new settings from the saved ones, writes them to `settings.json` and
    /// holds them, all under one lock: two saves at once cannot leave the file saying one
    /// thing and the register holding another. Nothing changes when `change` refuses or
    /// the file cannot be written.
    pub fn update<T>(&self, change: impl FnOnce(&Settings) -> AppResult<(Settings, T)>) -> AppResult<T> {
        let mut held = lock(&self.settings);
        let (new, out) = change(&held)?;
        new.save(&self.data_dir, &self.secrets)
            .map_err(|e| AppError::Internal(tr!(active(), "settings-not-saved", error = e.to_string())))?;
        *held = new;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FaultProfile;

    fn stored(dir: &std::path::Path) -> Stored {
        Stored::new(dir.to_path_buf(), Settings::default(), SecretStore::File { why: "a test".into() })
    }

    fn on_disk(dir: &std::path::Path) -> Option<Settings> {
        std::fs::read(Settings::path(dir)).ok().map(|b| serde_json::from_slice(&b).unwrap())
    }

    #[test]
    fn an_update_is_in_the_file_and_held_or_neither() {
        let dir = tempfile::tempdir().unwrap();
        let s = stored(dir.path());
        let chaos = Settings { fault_profile: FaultProfile::Chaos, ..Settings::default() };
        let said = s.update(|old| Ok((Settings { fault_profile: FaultProfile::Chaos, ..old.clone() }, "saved"))).unwrap();
        assert_eq!((said, s.settings(), on_disk(dir.path())), ("saved", chaos.clone(), Some(chaos.clone())));

        // A refused change writes nothing and holds nothing.
        let refused = s.update::<()>(|_| Err(AppError::InvalidInput("no".into())));
        assert!(matches!(refused, Err(AppError::InvalidInput(_))), "{refused:?}");
        assert_eq!((s.settings(), on_disk(dir.path())), (chaos.clone(), Some(chaos.clone())));

        // A file that cannot be written: the register keeps holding what the file says.
        std::fs::remove_dir_all(dir.path()).unwrap();
        let unsaved = s.update(|old| Ok((Settings { fault_profile: FaultProfile::Offline, ..old.clone() }, ())));
        assert!(matches!(unsaved, Err(AppError::Internal(_))), "{unsaved:?}");
        assert_eq!(s.settings(), chaos, "not held when not saved");
    }
}
