//! The register's own settings files in the data folder (not the store's settings, which
//! the ledger keeps: `store/settings.rs`): `settings.json` and `psp-in-use.json`.
//! Start-up flags/env win over `settings.json`, which wins over defaults. Every field is
//! validated before it is stored.

use std::path::{Path, PathBuf};
use std::time::Duration;

use paydesk_domain::{Currency, Locale, Money};
use paydesk_register::{DedupWindow, EngineConfig, OfflineLimits};
use serde::{Deserialize, Serialize};

use crate::config::{FaultProfile, Options};
use crate::error::{AppError, AppResult};
use crate::i18n::{active, id, t, tr};
use crate::secrets::SecretStore;


/// Idle lock limits (settings.json `idle_lock_s`, record 0068).
pub const IDLE_LOCK_DEFAULT_S: u32 = 300;
pub const IDLE_LOCK_MIN_S: u32 = 30;
pub const IDLE_LOCK_MAX_S: u32 = 3600;

/// Copies of the ledger while running (settings.json `backup_every_minutes`, `backup_keep`;
/// record 0116): every hour by default, the newest seven kept; 0 minutes turns them off.
pub const BACKUP_EVERY_DEFAULT_MIN: u32 = 60;
pub const BACKUP_EVERY_MAX_MIN: u32 = 24 * 60;
pub const BACKUP_KEEP_DEFAULT: u32 = 7;

/// The register's number in the store, printed on its receipts (settings.json
/// `register_number`, record 0127): 1 unless the file says otherwise.
pub const REGISTER_NUMBER_MAX: u32 = 99;
/// Carts a cashier may park at once (settings.json `max_held_carts`, record 0128), at
/// most `paydesk_ledger::MAX_HELD_LIMIT`.
pub const MAX_HELD_CARTS_DEFAULT: u32 = 5;

/// Secret key of the embedded test PSP's merchant account.
pub const EMBEDDED_KEY: &str = "sk_test_paydesk_embedded";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Empty: the embedded mock PSP.
    pub psp_url: String,
    pub psp_key: String,
    pub fault_profile: FaultProfile,
    pub retention_hours: u32,
    pub safety_margin_minutes: u32,
    pub offline_enabled: bool,
    /// The store's own offline money caps, in minor units of `offline_limits_currency`;
    /// `None`: that currency's default (record 0129, `settings_offline.rs`).
    pub offline_max_amount: Option<i64>,
    pub offline_max_total: Option<i64>,
    /// The currency the two caps above were typed in; `None` in a file written before
    /// caps had one (read by `adopt_offline_currency`).
    pub offline_limits_currency: Option<Currency>,
    pub offline_max_count: u32,
    pub offline_max_age_hours: u32,
    /// The screen's language, or `None` to follow the store and the system (record
    /// 0070); "en", "ja" or "" in the file. Set by its own command, applied at once; the
    /// engine ignores it.
    #[serde(with = "language_code")]
    pub language: Option<Locale>,
    /// Seconds without input before the register locks (record 0068); only from the
    /// file, 30 to 3600.
    pub idle_lock_s: u32,
    /// Minutes between copies of the ledger while the register runs (record 0116); 0 for
    /// none; only from the file, at most a day.
    pub backup_every_minutes: u32,
    /// How many of those copies are kept, 1 to `paydesk_ledger::copies::MAX_KEEP`.
    pub backup_keep: u32,
    /// Whether a paired register sends each good copy, sealed, to its back office
    /// (record 0150); on by default, so a paired register's copies leave the machine.
    pub backup_send: bool,
    /// This register's number in the store, 1 to [`REGISTER_NUMBER_MAX`]; only from the
    /// file (each register of a store has its own file).
    pub register_number: u32,
    /// Carts parked at once (record 0128), 1 to 20; only from the file.
    pub max_held_carts: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            psp_url: String::new(),
            psp_key: String::new(),
            fault_profile: FaultProfile::default(),
            retention_hours: 24,
            safety_margin_minutes: 60,
            offline_enabled: true,
            offline_max_amount: None,
            offline_max_total: None,
            offline_limits_currency: None,
            offline_max_count: 20,
            // At most the key retention minus the safety margin (24 h - 1 h): a stored
            // payment is forwarded with its key, which the PSP must still remember.
            offline_max_age_hours: 23,
            language: None,
            idle_lock_s: IDLE_LOCK_DEFAULT_S,
            backup_every_minutes: BACKUP_EVERY_DEFAULT_MIN,
            backup_keep: BACKUP_KEEP_DEFAULT,
            backup_send: true,
            register_number: 1,
            max_held_carts: MAX_HELD_CARTS_DEFAULT,
        }
    }
}

/// `settings.json`'s `language`: "en" or "ja" (a tag such as "ja-JP" is read too), or ""
/// to follow the store and the system. Anything else refuses the file, by name.
mod language_code {
    use paydesk_domain::Locale;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(chosen: &Option<Locale>, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(chosen.map(Locale::code).unwrap_or(""))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<Option<Locale>, D::Error> {
        let text = String::deserialize(input)?;
        if text.is_empty() {
            return Ok(None);
        }
        Locale::from_tag(&text).map(Some).ok_or_else(|| {
            let shown: String = text.chars().take(16).collect();
            D::Error::custom(format!("language {shown:?}: expected \"en\", \"ja\" or \"\" (automatic)"))
        })
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

/// `what` is the field's message id (its name in an error message).
fn int_in(text: &str, what: &'static str, lo: u32, hi: u32) -> AppResult<u32> {
    let l = active();
    let v: u32 = text.trim().parse().map_err(|_| bad(tr!(l, "input-settings-whole", what = t(what))))?;
    if v < lo || v > hi {
        return Err(bad(tr!(l, "input-settings-range", what = t(what), lo = lo, hi = hi)));
    }
    Ok(v)
}

fn money_in(text: &str, what: &'static str, currency: Currency) -> AppResult<i64> {
    let l = active();
    let example = crate::money::plain(10_000 * 10i64.pow(currency.exponent().saturating_sub(2)), currency);
    let m = Money::parse(text.trim(), currency).map_err(|_| bad(tr!(l, "input-settings-amount", what = t(what), example = example)))?;
    if m.amount_minor < 0 || m.amount_minor > 100_000_000 {
        return Err(bad(tr!(l, "input-settings-amount-range", what = t(what))))
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
    paydesk_register::transport::validate_psp_url(u).map_err(|e| bad(tr!(active(), "input-settings-url", detail = e.to_string())))
}

/// A PSP secret key: printable ASCII without spaces (what processors issue; a pasted
/// smart quote or space is a typing mistake), at most 200 characters.
fn validate_key(key: &str) -> AppResult<()> {
    if key.len() > 200 || !key.chars().all(|c| c.is_ascii_graphic()) {
        return Err(bad(tr!(active(), "input-settings-key", max = 200)));
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
            return Err(bad(tr!(active(), "input-settings-key-needed")));
        }
        let fault_profile = FaultProfile::parse(&form.fault_profile)
            .ok_or_else(|| bad(tr!(active(), "input-settings-profile", profiles = FaultProfile::words())))?;
        Ok(Settings {
            psp_url,
            psp_key: key.to_string(),
            fault_profile,
            retention_hours: int_in(&form.retention_hours, id!("input-settings-retention"), 1, 720)?,
            safety_margin_minutes: int_in(&form.safety_margin_minutes, id!("input-settings-margin"), 0, 1440)?,
            offline_enabled: current.offline_enabled,
            offline_max_amount: Some(money_in(&form.offline_max_amount, id!("input-settings-offline-max-amount"), currency)?),
            offline_max_total: Some(money_in(&form.offline_max_total, id!("input-settings-offline-max-total"), currency)?),
            offline_limits_currency: Some(currency),
            offline_max_count: int_in(&form.offline_max_count, id!("input-settings-offline-max-count"), 0, 10_000)?,
            offline_max_age_hours: int_in(&form.offline_max_age_hours, id!("input-settings-offline-max-age"), 1, 168)?,
            language: current.language,
            idle_lock_s: current.idle_lock_s,
            backup_every_minutes: current.backup_every_minutes,
            backup_keep: current.backup_keep,
            backup_send: current.backup_send,
            register_number: current.register_number,
            max_held_carts: current.max_held_carts,
        })
        .and_then(|s| {
            let safe_minutes = (u64::from(s.retention_hours) * 60).saturating_sub(u64::from(s.safety_margin_minutes));
            if u64::from(s.safety_margin_minutes) >= u64::from(s.retention_hours) * 60 {
                Err(bad(tr!(active(), "input-settings-margin-too-long")))
            } else if s.offline_max_amount > s.offline_max_total {
                // A total below one payment would refuse every offline payment the
                // per-payment cap allows: not what an owner typing two caps means.
                Err(bad(tr!(active(), "input-settings-offline-total-too-small")))
            } else if u64::from(s.offline_max_age_hours) * 60 > safe_minutes {
                Err(bad(tr!(
                    active(),
                    "input-settings-offline-age-too-long",
                    hours = safe_minutes / 60,
                    retention = s.retention_hours,
                    margin = s.safety_margin_minutes
                )))
            } else {
                Ok(s.caps_typed_in(currency))
            }
        })
    }

    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join("settings.json")
    }

    /// settings.json (if any), then flags/env on top. A settings file that cannot be
    /// read is an error, never a silent fallback to the defaults: those mean the
    /// embedded test PSP, and a store would then "take" payments that charge nobody.
    /// A key still in the file while a keychain answers is moved there (record 0065).
    pub fn load(data_dir: &Path, opts: &Options, secrets: &SecretStore) -> Result<Settings, String> {
        let path = Self::path(data_dir);
        let mut s: Settings = match read_with_secret::<Settings>(&path, SETTINGS_SECRET, secrets)? {
            Some((s, move_to_keychain)) => {
                if move_to_keychain {
                    // The file keeps the key until the keychain holds it: a crash in
                    // between only repeats the move at the next start.
                    if let Err(e) = s.save(data_dir, secrets) {
                        eprintln!("paydesk: the PSP key stays in settings.json: {e}");
                    }
                }
                s
            }
            None => Settings::default(),
        };
        if let Some(u) = &opts.psp_url {
            s.psp_url = u.clone();
        }
        if let Some(k) = &opts.psp_key {
            s.psp_key = k.clone();
        }
        if opts.fault_profile_set {
            s.fault_profile = opts.fault_profile;
        }
        // The file may have been edited by hand, and flags are typed: same rules as the form.
        let url = validate_url(&s.psp_url).map_err(|e| format!("PSP URL {:?}: {e}", s.psp_url))?;
        s.psp_url = url;
        validate_key(&s.psp_key).map_err(|e| format!("PSP key: {e}"))?;
        let idle = IDLE_LOCK_MIN_S..=IDLE_LOCK_MAX_S;
        if !idle.contains(&s.idle_lock_s) {
            return Err(format!("idle_lock_s {}: expected {} to {} seconds", s.idle_lock_s, idle.start(), idle.end()));
        }
        if s.backup_every_minutes > BACKUP_EVERY_MAX_MIN {
            return Err(format!("backup_every_minutes {}: expected 0 (no copies) to {BACKUP_EVERY_MAX_MIN}", s.backup_every_minutes));
        }
        let keep = 1..=paydesk_ledger::copies::MAX_KEEP as u32;
        if !keep.contains(&s.backup_keep) {
            return Err(format!("backup_keep {}: expected {} to {} copies", s.backup_keep, keep.start(), keep.end()));
        }
        if !(1..=REGISTER_NUMBER_MAX).contains(&s.register_number) {
            return Err(format!("register_number {}: expected 1 to {REGISTER_NUMBER_MAX}", s.register_number));
        }
        let held = 1..=paydesk_ledger::MAX_HELD_LIMIT;
        if !held.contains(&s.max_held_carts) {
            return Err(format!("max_held_carts {}: expected {} to {} carts", s.max_held_carts, held.start(), held.end()));
        }
        if !s.psp_url.is_empty() && s.psp_key.is_empty() {
            return Err(format!("the PSP at {} has no secret key (settings.json, --psp-key or PAYDESK_PSP_KEY)", s.psp_url));
        }
        Ok(s)
    }

    /// Writes settings.json; the key goes to the keychain when there is one.
    pub fn save(&self, data_dir: &Path, secrets: &SecretStore) -> std::io::Result<()> {
        write_with_secret(&Self::path(data_dir), self, &self.psp_key, SETTINGS_SECRET, secrets)
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
                caps: self.offline_caps(),
                max_count: self.offline_max_count,
                max_age: Duration::from_secs(u64::from(self.offline_max_age_hours) * 3600),
            },
            ..EngineConfig::default()
        }
    }
}

/// The keychain entries of the two files that name a PSP key.
const SETTINGS_SECRET: &str = "psp-key";
const IN_USE_SECRET: &str = "psp-key-in-use";
/// The field of a settings file that says where its `psp_key` is: "keychain" (the field
/// is empty), "file", or absent (a file written before the keychain: "file").
const KEY_IN: &str = "psp_key_in";

/// Reads a file that may name a PSP key, with the key filled in from wherever it is, and
/// whether it should now move to the keychain. `None`: no file.
fn read_with_secret<T: serde::de::DeserializeOwned>(
    path: &Path,
    name: &str,
    secrets: &SecretStore,
) -> Result<Option<(T, bool)>, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{} cannot be read: {e}", path.display())),
    };
    let invalid = |e: String| format!("{} is not valid ({e}). Fix it, or move it away to start from the defaults.", path.display());
    let mut v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| invalid(e.to_string()))?;
    let obj = v.as_object_mut().ok_or_else(|| invalid("not a JSON object".into()))?;
    let place = obj.remove(KEY_IN);
    let in_file = obj.get("psp_key").and_then(|k| k.as_str()).unwrap_or("").to_string();
    let move_to_keychain = match place.as_ref().and_then(|p| p.as_str()) {
        Some("keychain") => {
            let key = match secrets {
                SecretStore::Keychain { .. } => secrets.get(name)?,
                SecretStore::File { why } => {
                    return Err(format!("{} says the PSP key is in the keychain, which cannot be used: {why}", path.display()))
                }
            };
            let key = key.ok_or_else(|| {
                format!("{} says the PSP key is in the keychain, but the keychain has no entry for it: enter the key again (--psp-key or PAYDESK_PSP_KEY, then Settings)", path.display())
            })?;
            obj.insert("psp_key".into(), serde_json::Value::String(key));
            false
        }
        Some("file") | None => !in_file.is_empty() && secrets.in_keychain(),
        Some(other) => return Err(invalid(format!("{KEY_IN} is {other:?}, not \"keychain\" or \"file\""))),
    };
    let t = serde_json::from_value(v).map_err(|e| invalid(e.to_string()))?;
    Ok(Some((t, move_to_keychain)))
}

/// Writes `value` (which names `key`) to `path`: the key into the keychain and an empty
/// field in the file when there is a keychain, else the key in the 0600 file. A keychain
/// that refuses is an error, not a quiet fallback to the file.
fn write_with_secret<T: Serialize>(path: &Path, value: &T, key: &str, name: &str, secrets: &SecretStore) -> std::io::Result<()> {
    let mut v = serde_json::to_value(value).map_err(std::io::Error::other)?;
    let obj = v.as_object_mut().ok_or_else(|| std::io::Error::other("settings are not a JSON object"))?;
    let place = if !key.is_empty() && secrets.in_keychain() {
        secrets.set(name, key).map_err(std::io::Error::other)?;
        obj.insert("psp_key".into(), serde_json::Value::String(String::new()));
        "keychain"
    } else {
        "file"
    };
    obj.insert(KEY_IN.into(), serde_json::Value::String(place.into()));
    write_private(path, &serde_json::to_vec_pretty(&v).map_err(std::io::Error::other)?)
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
    pub fn load(data_dir: &Path, secrets: &SecretStore) -> Result<Option<PspInUse>, String> {
        let Some((u, move_to_keychain)) = read_with_secret::<PspInUse>(&Self::path(data_dir), IN_USE_SECRET, secrets)? else {
            return Ok(None);
        };
        if move_to_keychain {
            if let Err(e) = u.save(data_dir, secrets) {
                eprintln!("paydesk: the PSP key in use stays in psp-in-use.json: {e}");
            }
        }
        Ok(Some(u))
    }

    pub fn save(&self, data_dir: &Path, secrets: &SecretStore) -> std::io::Result<()> {
        write_with_secret(&Self::path(data_dir), self, &self.psp_key, IN_USE_SECRET, secrets)
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
    fn the_language_and_fault_profile_are_read_once_into_enums() {
        let read = |json: &str| serde_json::from_str::<Settings>(json);
        let s = read(r#"{"language": "ja", "fault_profile": "none"}"#).unwrap();
        assert_eq!((s.language, s.fault_profile), (Some(Locale::Ja), FaultProfile::NoFaults));
        assert_eq!(read(r#"{"language": ""}"#).unwrap().language, None, "\"\" follows the store and the system");
        assert_eq!(read(r#"{"language": "en-US"}"#).unwrap().language, Some(Locale::En));
        assert_eq!(read("{}").unwrap(), Settings::default());
        let e = read(r#"{"language": "klingon"}"#).unwrap_err().to_string();
        assert!(e.contains("language \"klingon\": expected"), "{e}");
        assert!(read(r#"{"fault_profile": "stormy"}"#).is_err());
        // Written back in the words the file had.
        let out = serde_json::to_value(Settings { language: Some(Locale::Ja), fault_profile: FaultProfile::NoFaults, ..Settings::default() }).unwrap();
        assert_eq!((out["language"].as_str(), out["fault_profile"].as_str()), (Some("ja"), Some("none")));
        assert_eq!(serde_json::to_value(Settings::default()).unwrap()["language"], "");
        for p in FaultProfile::ALL {
            assert_eq!(FaultProfile::parse(p.as_str()), Some(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
    }

    #[test]
    fn the_copies_settings_are_read_within_their_limits() {
        let dir = tempfile::tempdir().unwrap();
        let opts = Options::default();
        let file = SecretStore::File { why: "no keychain in this test".into() };
        let load = |json: &str| {
            std::fs::write(Settings::path(dir.path()), json).unwrap();
            Settings::load(dir.path(), &opts, &file)
        };
        let d = load("{}").unwrap();
        assert_eq!((d.backup_every_minutes, d.backup_keep), (BACKUP_EVERY_DEFAULT_MIN, BACKUP_KEEP_DEFAULT));
        assert_eq!(d.register_number, 1, "a register is number 1 unless its file says otherwise");
        assert_eq!(load(r#"{"register_number": 99}"#).unwrap().register_number, 99);
        for n in [0, 100] {
            let e = load(&format!(r#"{{"register_number": {n}}}"#)).unwrap_err();
            assert!(e.contains(&format!("register_number {n}: expected 1 to 99")), "{e}");
        }
        let s = load(r#"{"backup_every_minutes": 0, "backup_keep": 100}"#).unwrap();
        assert_eq!((s.backup_every_minutes, s.backup_keep), (0, 100), "0 turns the copies off");
        let e = load(r#"{"backup_every_minutes": 1441}"#).unwrap_err();
        assert!(e.contains("backup_every_minutes 1441"), "{e}");
        for keep in [0, 101] {
            let e = load(&format!(r#"{{"backup_keep": {keep}}}"#)).unwrap_err();
            assert!(e.contains(&format!("backup_keep {keep}: expected 1 to 100")), "{e}");
        }
        assert_eq!(d.max_held_carts, MAX_HELD_CARTS_DEFAULT);
        assert_eq!(load(r#"{"max_held_carts": 20}"#).unwrap().max_held_carts, 20);
        for held in [0, 21] {
            let e = load(&format!(r#"{{"max_held_carts": {held}}}"#)).unwrap_err();
            assert!(e.contains(&format!("max_held_carts {held}: expected 1 to 20")), "{e}");
        }
    }

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
        let file = SecretStore::File { why: "no keychain in this test".into() };
        assert_eq!(Settings::load(dir.path(), &opts, &file).unwrap(), Settings::default(), "no file: the defaults");
        let s = Settings { psp_url: "https://psp.example.com".into(), psp_key: "sk_live_123456789".into(), ..Settings::default() };
        s.save(dir.path(), &file).unwrap();
        let mode = std::fs::metadata(Settings::path(dir.path())).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the file holds the secret key");
        let text = std::fs::read_to_string(Settings::path(dir.path())).unwrap();
        assert!(text.contains("\"psp_key_in\": \"file\"") && text.contains("sk_live_123456789"), "{text}");
        assert_eq!(Settings::load(dir.path(), &opts, &file).unwrap(), s);
        std::fs::write(Settings::path(dir.path()), b"{ not json").unwrap();
        let e = Settings::load(dir.path(), &opts, &file).unwrap_err();
        assert!(e.contains("settings.json is not valid"), "{e}");
        std::fs::write(Settings::path(dir.path()), br#"{"psp_url": "https://psp.example.com", "psp_key": ""}"#).unwrap();
        assert!(Settings::load(dir.path(), &opts, &file).unwrap_err().contains("no secret key"));
        // A file that says the key is in a keychain this machine cannot reach: say so.
        std::fs::write(Settings::path(dir.path()), br#"{"psp_url": "https://psp.example.com", "psp_key": "", "psp_key_in": "keychain"}"#)
            .unwrap();
        let e = Settings::load(dir.path(), &opts, &file).unwrap_err();
        assert!(e.contains("in the keychain, which cannot be used: no keychain in this test"), "{e}");
        std::fs::write(Settings::path(dir.path()), br#"{"psp_key_in": "vault"}"#).unwrap();
        assert!(Settings::load(dir.path(), &opts, &file).unwrap_err().contains("psp_key_in"));
    }
}
