//! The register's settings: start-up flags/env win over `settings.json` in the data
//! dir, which wins over defaults. Every field is validated before it is stored.

use std::path::{Path, PathBuf};
use std::time::Duration;

use paydesk_ledger::{Currency, Money};
use paydesk_register::{DedupWindow, EngineConfig, OfflineLimits};
use serde::{Deserialize, Serialize};

use crate::config::{Options, FAULT_PROFILES};
use crate::error::{AppError, AppResult};

/// Secret key of the embedded test PSP's merchant account.
pub const EMBEDDED_KEY: &str = "sk_test_paydesk_embedded";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Empty: the embedded mock PSP.
    pub psp_url: String,
    pub psp_key: String,
    pub fault_profile: String,
    pub retention_hours: u32,
    pub safety_margin_minutes: u32,
    pub offline_enabled: bool,
    pub offline_max_amount: i64,
    pub offline_max_total: i64,
    pub offline_max_count: u32,
    pub offline_max_age_hours: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            psp_url: String::new(),
            psp_key: String::new(),
            fault_profile: "flaky".into(),
            retention_hours: 24,
            safety_margin_minutes: 60,
            offline_enabled: true,
            offline_max_amount: 10_000,
            offline_max_total: 50_000,
            offline_max_count: 20,
            // At most the key retention minus the safety margin (24 h - 1 h): a stored
            // payment is forwarded with its key, which the PSP must still remember.
            offline_max_age_hours: 23,
        }
    }
}

/// What the settings form sends: plain strings as typed, validated here.
#[derive(Debug, Clone, Deserialize)]
pub struct SettingsForm {
    pub psp_url: String,
    pub psp_key: String,
    pub fault_profile: String,
    pub retention_hours: String,
    pub safety_margin_minutes: String,
    pub offline_max_amount: String,
    pub offline_max_total: String,
    pub offline_max_count: String,
    pub offline_max_age_hours: String,
}

fn bad(msg: impl Into<String>) -> AppError {
    AppError::InvalidInput(msg.into())
}

fn int_in(text: &str, what: &str, lo: u32, hi: u32) -> AppResult<u32> {
    let v: u32 = text.trim().parse().map_err(|_| bad(format!("{what} must be a whole number.")))?;
    if v < lo || v > hi {
        return Err(bad(format!("{what} must be from {lo} to {hi}.")));
    }
    Ok(v)
}

fn money_in(text: &str, what: &str, currency: Currency) -> AppResult<i64> {
    let m = Money::parse(text.trim(), currency).map_err(|_| bad(format!("{what} must be an amount like 100.00.")))?;
    if m.amount_minor < 0 || m.amount_minor > 100_000_000 {
        return Err(bad(format!("{what} is out of range.")));
    }
    Ok(m.amount_minor)
}

/// The PSP URL as typed: empty for the embedded PSP, otherwise the register's own rule
/// ([`paydesk_register::transport::validate_psp_url`]: `https://` anywhere, plain
/// `http://` only to this machine, no credentials), so the app and the CLI accept the
/// same URLs.
pub fn validate_url(url: &str) -> AppResult<String> {
    let u = url.trim();
    if u.is_empty() {
        return Ok(String::new());
    }
    paydesk_register::transport::validate_psp_url(u).map_err(|e| bad(format!("The PSP URL is not valid: {e}.")))
}

/// A PSP secret key: printable ASCII without spaces (what processors issue; a pasted
/// smart quote or space is a typing mistake), at most 200 characters.
fn validate_key(key: &str) -> AppResult<()> {
    if key.len() > 200 || !key.chars().all(|c| c.is_ascii_graphic()) {
        return Err(bad("The secret key must be letters, digits and symbols without spaces, at most 200 characters."));
    }
    Ok(())
}

/// The last four characters of a key, for showing which one is set (never the key).
pub fn key_hint(key: &str) -> String {
    let n = key.chars().count();
    if n == 0 {
        return String::new();
    }
    // A short key would be shown whole: show nothing of it.
    let tail: String = if n > 8 { key.chars().skip(n - 4).collect() } else { String::new() };
    format!("…{tail}")
}

impl Settings {
    pub fn validate(form: &SettingsForm, current: &Settings, currency: Currency) -> AppResult<Settings> {
        let psp_url = validate_url(&form.psp_url)?;
        let key = form.psp_key.trim();
        validate_key(key)?;
        if !psp_url.is_empty() && key.is_empty() {
            return Err(bad("A processor at a URL needs its secret key."));
        }
        if !FAULT_PROFILES.contains(&form.fault_profile.as_str()) {
            return Err(bad(format!("Fault profile must be one of: {}.", FAULT_PROFILES.join(", "))));
        }
        Ok(Settings {
            psp_url,
            psp_key: key.to_string(),
            fault_profile: form.fault_profile.clone(),
            retention_hours: int_in(&form.retention_hours, "Key retention", 1, 720)?,
            safety_margin_minutes: int_in(&form.safety_margin_minutes, "Safety margin", 0, 1440)?,
            offline_enabled: current.offline_enabled,
            offline_max_amount: money_in(&form.offline_max_amount, "Largest offline payment", currency)?,
            offline_max_total: money_in(&form.offline_max_total, "Total stored offline", currency)?,
            offline_max_count: int_in(&form.offline_max_count, "Number of offline payments", 0, 10_000)?,
            offline_max_age_hours: int_in(&form.offline_max_age_hours, "Oldest offline payment", 1, 168)?,
        })
        .and_then(|s| {
            let safe_minutes = (u64::from(s.retention_hours) * 60).saturating_sub(u64::from(s.safety_margin_minutes));
            if u64::from(s.safety_margin_minutes) >= u64::from(s.retention_hours) * 60 {
                Err(bad("The safety margin must be shorter than the key retention."))
            } else if u64::from(s.offline_max_age_hours) * 60 > safe_minutes {
                Err(bad(format!(
                    "The oldest stored payment can be at most {} hours old: it is forwarded with its key, and the processor remembers keys for the retention ({} h) minus the safety margin ({} min).",
                    safe_minutes / 60,
                    s.retention_hours,
                    s.safety_margin_minutes
                )))
            } else {
                Ok(s)
            }
        })
    }

    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join("settings.json")
    }

    /// settings.json (if any), then flags/env on top. A settings file that cannot be
    /// read is an error, never a silent fallback to the defaults: those mean the
    /// embedded test PSP, and a store would then "take" payments that charge nobody.
    pub fn load(data_dir: &Path, opts: &Options) -> Result<Settings, String> {
        let path = Self::path(data_dir);
        let mut s: Settings = match std::fs::read(&path) {
            Ok(b) => serde_json::from_slice(&b).map_err(|e| {
                format!("{} is not valid ({e}). Fix it, or move it away to start from the defaults.", path.display())
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Settings::default(),
            Err(e) => return Err(format!("{} cannot be read: {e}", path.display())),
        };
        if let Some(u) = &opts.psp_url {
            s.psp_url = u.clone();
        }
        if let Some(k) = &opts.psp_key {
            s.psp_key = k.clone();
        }
        if opts.fault_profile_set {
            s.fault_profile = opts.fault_profile.clone();
        }
        // The file may have been edited by hand, and flags are typed: same rules as the form.
        let url = validate_url(&s.psp_url).map_err(|e| format!("PSP URL {:?}: {e}", s.psp_url))?;
        s.psp_url = url;
        validate_key(&s.psp_key).map_err(|e| format!("PSP key: {e}"))?;
        if !s.psp_url.is_empty() && s.psp_key.is_empty() {
            return Err(format!("the PSP at {} has no secret key (settings.json, --psp-key or PAYDESK_PSP_KEY)", s.psp_url));
        }
        Ok(s)
    }

    pub fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        write_private(&Self::path(data_dir), &serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?)
    }

    pub fn embedded(&self) -> bool {
        self.psp_url.is_empty()
    }

    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            attempt_timeout: Duration::from_secs(5),
            window: DedupWindow {
                retention: Duration::from_secs(u64::from(self.retention_hours) * 3600),
                margin: Duration::from_secs(u64::from(self.safety_margin_minutes) * 60),
            },
            offline: OfflineLimits {
                enabled: self.offline_enabled,
                max_per_payment: self.offline_max_amount,
                max_total: self.offline_max_total,
                max_count: self.offline_max_count,
                max_age: Duration::from_secs(u64::from(self.offline_max_age_hours) * 3600),
            },
            ..EngineConfig::default()
        }
    }
}

/// Writes `bytes` to `path` atomically and durably, readable by this user only (the
/// file holds the PSP's secret key): a temporary file with mode 0600, fsynced, renamed
/// over the old one, then the directory fsynced so the rename survives a power cut.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = dir.join(name);
    let _ = std::fs::remove_file(&tmp); // a leftover of a crash may have other permissions
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    std::fs::File::open(dir)?.sync_all()
}

/// Which PSP the register's payments and refunds were sent to: the PSP in use, as
/// opposed to the one saved in settings, which may be waiting until every payment at
/// the old one is settled. Kept in its own file so that a restart in between goes on
/// with the PSP that holds the unsettled keys (sending them to the new PSP could charge
/// a customer twice), and switches only when it is safe, as a running register does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PspInUse {
    /// Empty: the embedded mock PSP.
    pub psp_url: String,
    pub psp_key: String,
}

impl PspInUse {
    pub fn of(s: &Settings) -> PspInUse {
        if s.embedded() {
            PspInUse { psp_url: String::new(), psp_key: String::new() }
        } else {
            PspInUse { psp_url: s.psp_url.clone(), psp_key: s.psp_key.clone() }
        }
    }

    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join("psp-in-use.json")
    }

    /// `None` before the first start (or from a version without the file).
    pub fn load(data_dir: &Path) -> Result<Option<PspInUse>, String> {
        let path = Self::path(data_dir);
        match std::fs::read(&path) {
            Ok(b) => serde_json::from_slice(&b).map(Some).map_err(|e| format!("{} is not valid ({e})", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{} cannot be read: {e}", path.display())),
        }
    }

    pub fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        write_private(&Self::path(data_dir), &serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?)
    }

    /// `wanted` with this PSP in place of its own.
    pub fn applied_to(&self, wanted: &Settings) -> Settings {
        Settings { psp_url: self.psp_url.clone(), psp_key: self.psp_key.clone(), ..wanted.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_keys_and_hints() {
        assert_eq!(validate_url("https://api.example.com/").unwrap(), "https://api.example.com");
        for local in ["http://127.0.0.1:12111", "http://localhost:9/x", "http://[::1]:8080"] {
            assert!(validate_url(local).is_ok(), "{local}");
        }
        let e = validate_url("http://psp.example.com").unwrap_err().to_string();
        assert!(e.contains("https://"), "{e}");
        let e = validate_url("http://127.evil.example").unwrap_err().to_string();
        assert!(e.contains("https://"), "a name that starts like a loopback address is not one: {e}");
        for bad_url in ["ftp://x", "http://", "https://user:pw@x.com", "https://exa%mple.com", "https://x.com:99999"] {
            assert!(validate_url(bad_url).is_err(), "{bad_url}");
        }
        assert!(validate_key("sk_live_abc\u{201d}").is_err(), "a pasted smart quote");
        assert!(validate_key("sk test").is_err());
        assert!(validate_key("sk_test_a").is_ok());
        assert_eq!(key_hint("sk_live_abcdefgh\u{e9}"), "…fgh\u{e9}");
        assert_eq!(key_hint("short"), "…");
        assert_eq!(key_hint(""), "");
    }

    #[test]
    fn a_settings_file_is_private_and_a_bad_one_is_an_error() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let opts = Options::default();
        assert_eq!(Settings::load(dir.path(), &opts).unwrap(), Settings::default(), "no file: the defaults");
        let s = Settings { psp_url: "https://psp.example.com".into(), psp_key: "sk_live_123456789".into(), ..Settings::default() };
        s.save(dir.path()).unwrap();
        let mode = std::fs::metadata(Settings::path(dir.path())).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the file holds the secret key");
        assert_eq!(Settings::load(dir.path(), &opts).unwrap(), s);
        std::fs::write(Settings::path(dir.path()), b"{ not json").unwrap();
        let e = Settings::load(dir.path(), &opts).unwrap_err();
        assert!(e.contains("settings.json is not valid"), "{e}");
        std::fs::write(Settings::path(dir.path()), br#"{"psp_url": "https://psp.example.com", "psp_key": ""}"#).unwrap();
        assert!(Settings::load(dir.path(), &opts).unwrap_err().contains("no secret key"));
    }
}
