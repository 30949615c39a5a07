//! What the register keeps about its back office, in its data folder: `sync.json` (the
//! pairing without the token, the last settings copy, the batch in flight) and, for the
//! CLI, `sync.token` (mode 0600). The app keeps the token in the OS keychain instead.
//! Each is written to its own temporary file (`sync.json.tmp`, `sync.token.tmp`), synced,
//! and renamed over the old one, so a crash leaves the old or the new copy, never half of
//! one, and never one file's content under the other's name.
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

/// The temporary file `path` is written to before the rename: `<name>.tmp`, one per
/// file (`sync.json` and `sync.token` never share one, so a write of one cannot be
/// renamed over the other).
fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<(), SyncError> {
    let err = |e: std::io::Error| SyncError::State { path: path.display().to_string(), message: e.to_string() };
    let tmp = temp_path(path);
    // A temporary file left by a crash may have another mode or be a link: it goes, and
    // the new one is created afresh (O_EXCL follows no link) with its mode from the start.
    match std::fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(err(e)),
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut f = opts.open(&tmp).map_err(err)?;
    // The umask may have taken bits away; never added any, but say the mode exactly.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(mode)).map_err(err)?;
    }
    f.write_all(bytes).map_err(err)?;
    f.sync_all().map_err(err)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(err)?;
    // The rename itself survives a power cut once the folder is synced.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(err)?;
    }
    Ok(())
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

    #[test]
    fn state_and_token_never_share_a_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let (state, token) = (SyncState::path_in(dir.path()), TokenFile::in_dir(dir.path()));
        assert_ne!(temp_path(&state), temp_path(&token.0));
        // written at once from two threads, each file holds only its own content
        let s = SyncState { settings_version: 7, ..Default::default() };
        std::thread::scope(|sc| {
            sc.spawn(|| (0..200).for_each(|_| s.save(&state).unwrap()));
            sc.spawn(|| (0..200).for_each(|_| token.save("pdr.a.b.secret").unwrap()));
        });
        assert_eq!(SyncState::load(&state).unwrap(), s);
        assert_eq!(token.load().unwrap().as_deref(), Some("pdr.a.b.secret"));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary file left");
    }

    #[cfg(unix)]
    #[test]
    fn a_left_over_temporary_file_does_not_lend_its_mode_or_its_link_to_the_token() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let token = TokenFile::in_dir(dir.path());
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, "").unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, temp_path(&token.0)).unwrap();
        token.save("pdr.a.b.secret").unwrap();
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "", "the secret was not written through the link");
        assert_eq!(std::fs::metadata(&token.0).unwrap().permissions().mode() & 0o777, 0o600);
        assert!(!std::fs::symlink_metadata(&token.0).unwrap().file_type().is_symlink());
    }
}
