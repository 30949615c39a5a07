//! What the register keeps about its back office, in its data folder: `sync.json` (the
//! pairing without the token, the last settings copy, the batch in flight) and, for the
//! CLI, `sync.token` (mode 0600). The app keeps the token in the OS keychain instead.
//! Both are written to a temporary file and renamed over the old one, so a crash leaves
//! the old or the new copy, never half of one.
use crate::error::SyncError;
use paydesk_sync_proto::{RegisterHealth, StoreSettings};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const STATE_FILE: &str = "sync.json";
pub const TOKEN_FILE: &str = "sync.token";
/// A state file larger than this is not ours.
const MAX_STATE_BYTES: u64 = 256 * 1024;

/// Who this register is at the back office (not secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    pub url: String,
    pub store_id: String,
    pub register_id: String,
    pub register_name: String,
}

/// A batch sent and not yet acknowledged: a resend of the same range repeats the same
/// health too, so it is byte for byte the same request under the same key (the back
/// office refuses a key reused for another body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlight {
    pub first_seq: u64,
    pub last_seq: u64,
    pub health: RegisterHealth,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncState {
    pub pairing: Option<Pairing>,
    /// The store settings version held (0: none yet) and its copy, kept while the back
    /// office is away.
    pub settings_version: u64,
    pub settings: Option<StoreSettings>,
    pub in_flight: Option<InFlight>,
    /// Wall clock of the last round that reached the back office and emptied the outbox.
    pub last_sync_ms: Option<i64>,
}

impl SyncState {
    pub fn path_in(data_dir: &Path) -> PathBuf {
        data_dir.join(STATE_FILE)
    }

    /// The state in `path`; the default when the file does not exist.
    pub fn load(path: &Path) -> Result<SyncState, SyncError> {
        let err = |m: String| SyncError::State { path: path.display().to_string(), message: m };
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(SyncState::default()),
            Err(e) => return Err(err(e.to_string())),
            Ok(m) if m.len() > MAX_STATE_BYTES => return Err(err(format!("{} bytes (at most {MAX_STATE_BYTES})", m.len()))),
            Ok(_) => {}
        }
        let text = std::fs::read(path).map_err(|e| err(e.to_string()))?;
        serde_json::from_slice(&text).map_err(|e| err(format!("not a sync state: {e}")))
    }

    pub fn save(&self, path: &Path) -> Result<(), SyncError> {
        let text = serde_json::to_vec_pretty(self).map_err(|e| SyncError::State { path: path.display().to_string(), message: e.to_string() })?;
        write_atomic(path, &text, 0o644)
    }
}

/// The CLI's token file (0600, in the data folder).
#[derive(Debug, Clone)]
pub struct TokenFile(pub PathBuf);

impl TokenFile {
    pub fn in_dir(data_dir: &Path) -> TokenFile {
        TokenFile(data_dir.join(TOKEN_FILE))
    }

    pub fn save(&self, token: &str) -> Result<(), SyncError> {
        write_atomic(&self.0, token.as_bytes(), 0o600)
    }

    pub fn load(&self) -> Result<Option<String>, SyncError> {
        let err = |m: String| SyncError::State { path: self.0.display().to_string(), message: m };
        match std::fs::read_to_string(&self.0) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(err(e.to_string())),
            Ok(t) if t.trim().is_empty() || t.len() > 1024 => Err(err("not a register token".into())),
            Ok(t) => Ok(Some(t.trim().to_string())),
        }
    }
}

fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<(), SyncError> {
    let err = |e: std::io::Error| SyncError::State { path: path.display().to_string(), message: e.to_string() };
    let tmp = path.with_extension("tmp");
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut f = opts.open(&tmp).map_err(err)?;
    // An existing temporary file keeps its old mode: set it before the secret goes in.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(mode)).map_err(err)?;
    }
    f.write_all(bytes).map_err(err)?;
    f.sync_all().map_err(err)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_and_token_round_trip_and_the_token_is_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = SyncState::path_in(dir.path());
        assert_eq!(SyncState::load(&p).unwrap(), SyncState::default());
        let s = SyncState { settings_version: 3, last_sync_ms: Some(5), ..Default::default() };
        s.save(&p).unwrap();
        assert_eq!(SyncState::load(&p).unwrap(), s);
        std::fs::write(&p, "{").unwrap();
        assert!(matches!(SyncState::load(&p), Err(SyncError::State { .. })));

        let t = TokenFile::in_dir(dir.path());
        assert_eq!(t.load().unwrap(), None);
        t.save("pdr.a.b.secret").unwrap();
        assert_eq!(t.load().unwrap().as_deref(), Some("pdr.a.b.secret"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&t.0).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }
}
