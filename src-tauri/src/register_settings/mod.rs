//! The register's settings screen: the PSP it charges through and its key, the embedded
//! PSP's fault profile, key retention and the offline limits, kept in `settings.json`
//! (`settings_file.rs`, below the state that holds them). Shown here, saved and put in
//! use in `save.rs`. The store's own settings (name, tax, receipt) are the ledger's:
//! `store/settings.rs`.

pub mod save;

use paydesk_domain::Currency;
use serde::Serialize;
use tauri::State;

use crate::config::FaultProfile;
use crate::money;
use crate::settings_file::key_hint;
use crate::state::AppState;
use crate::views::KeyStorage;

#[derive(Debug, Serialize)]
pub struct SettingsView {
    pub psp_url: String,
    pub psp_url_in_use: String,
    pub psp_key: String,
    pub psp_embedded: bool,
    pub fault_profile: FaultProfile,
    pub fault_profiles: [FaultProfile; 4],
    pub retention_hours: u32,
    pub safety_margin_minutes: u32,
    pub offline_max_amount_display_plain: String,
    pub offline_max_total_display_plain: String,
    /// The store currency the offline money limits are typed in (e.g. "USD").
    pub offline_currency: String,
    pub offline_max_count: u32,
    pub offline_max_age_hours: u32,
    /// The store's own caps, published by its back office (record 0139): the lower of these
    /// and the register's figures applies. `None`: none published.
    pub offline_store_caps: Option<String>,
    /// Saved settings not in use yet, and why.
    pub waiting: Option<String>,
    /// Where the secret key is kept.
    pub key_storage: KeyStorage,
    /// Why the key is in the file and not a keychain (shown under the key field).
    pub key_storage_note: Option<String>,
}

fn plain(minor: i64, currency: Currency) -> String {
    money::plain(minor, currency)
}

/// The back office's caps in words, in the store's currency. A read error shows nothing
/// rather than failing the whole screen: the engine applies the caps either way.
fn store_caps(state: &AppState) -> Option<String> {
    let caps = state.engine().catalog().published_offline_caps().ok().flatten()?;
    Some(paydesk_i18n::tr!(
        crate::i18n::active(),
        "settings-offline-store-caps",
        per_payment = money::format(caps.per_payment_minor, caps.currency),
        total = money::format(caps.total_minor, caps.currency)
    ))
}

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> SettingsView {
    let s = state.stored.settings();
    let live = state.live();
    let cur = state.currency;
    SettingsView {
        psp_url: s.psp_url.clone(),
        psp_url_in_use: live.psp_url.clone(),
        // The key is never sent back in full.
        psp_key: key_hint(&s.psp_key),
        psp_embedded: live.embedded,
        fault_profile: s.fault_profile,
        fault_profiles: FaultProfile::ALL,
        retention_hours: s.retention_hours,
        safety_margin_minutes: s.safety_margin_minutes,
        offline_max_amount_display_plain: plain(s.offline_caps().for_currency(cur).per_payment, cur),
        offline_max_total_display_plain: plain(s.offline_caps().for_currency(cur).total, cur),
        offline_currency: cur.code().to_ascii_uppercase(),
        offline_max_count: s.offline_max_count,
        offline_max_age_hours: s.offline_max_age_hours,
        offline_store_caps: store_caps(&state),
        waiting: state.connectivity.waiting(),
        key_storage: if state.stored.secrets.in_keychain() { KeyStorage::Keychain } else { KeyStorage::File },
        key_storage_note: state.stored.secrets.note(),
    }
}
