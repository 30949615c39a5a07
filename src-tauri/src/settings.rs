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
            offline_max_age_hours: 24,
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

/// `http(s)://host[:port][/path]`, no spaces or credentials.
pub fn validate_url(url: &str) -> AppResult<String> {
    let u = url.trim();
    if u.is_empty() {
        return Ok(String::new());
    }
    let rest = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"))
        .ok_or_else(|| bad("The PSP URL must start with http:// or https://."))?;
    if rest.is_empty() || u.len() > 200 || u.chars().any(|c| c.is_whitespace() || c == '@' || c.is_control()) {
        return Err(bad("The PSP URL is not valid."));
    }
    Ok(u.trim_end_matches('/').to_string())
}

impl Settings {
    pub fn validate(form: &SettingsForm, current: &Settings, currency: Currency) -> AppResult<Settings> {
        let psp_url = validate_url(&form.psp_url)?;
        let key = form.psp_key.trim();
        if key.len() > 200 || key.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad("The secret key has spaces or is too long."));
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
            if u64::from(s.safety_margin_minutes) >= u64::from(s.retention_hours) * 60 {
                Err(bad("The safety margin must be shorter than the key retention."))
            } else {
                Ok(s)
            }
        })
    }

    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join("settings.json")
    }

    /// settings.json (if any), then flags/env on top.
    pub fn load(data_dir: &Path, opts: &Options) -> Settings {
        let mut s: Settings = std::fs::read(Self::path(data_dir))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        if let Some(u) = &opts.psp_url {
            s.psp_url = u.clone();
        }
        if let Some(k) = &opts.psp_key {
            s.psp_key = k.clone();
        }
        if opts.fault_profile_set {
            s.fault_profile = opts.fault_profile.clone();
        }
        s
    }

    pub fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        let tmp = data_dir.join("settings.json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(self).unwrap())?;
        std::fs::rename(tmp, Self::path(data_dir))
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
