//! The screen's language (design §13.3): which one is active, the commands that hand the
//! UI its messages and switch the language, and [`t`]/[`tr!`] for Rust's own screen text.
//!
//! One language for the whole app at a time, so it is a process-wide value: error
//! messages are put in words while they are serialized, where no app state is at hand.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, Ordering};

use paydesk_domain::Locale;
use serde::Serialize;
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::state::{lock, AppState};

pub use paydesk_i18n::{id, tr};

static ACTIVE: AtomicU8 = AtomicU8::new(0);

/// The language the screen is in now.
pub fn active() -> Locale {
    match ACTIVE.load(Ordering::Relaxed) {
        1 => Locale::Ja,
        _ => Locale::En,
    }
}

pub fn set_active(l: Locale) {
    let v = match l {
        Locale::En => 0,
        Locale::Ja => 1,
    };
    ACTIVE.store(v, Ordering::Relaxed);
}

/// The message `id` in the active language.
pub fn t(id: &str) -> String {
    paydesk_i18n::message(active(), id)
}

/// The language a register starts in: the one chosen in Settings; else the store's
/// (a Japanese store speaks Japanese); else the OS's (`LC_ALL`, `LC_MESSAGES`, `LANG`)
/// when PayDesk speaks it; else English. A store still on its first-run defaults is
/// `en-US`, so on a Japanese system that one starts in Japanese too.
pub fn initial(chosen: &str, store: Option<paydesk_domain::Locale>, env: impl Fn(&str) -> Option<String>) -> Locale {
    if let Some(l) = Locale::from_tag(chosen) {
        return l;
    }
    if store == Some(paydesk_domain::Locale::Ja) {
        return Locale::Ja;
    }
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|k| env(k).filter(|v| !v.is_empty()))
        .next()
        .and_then(|v| Locale::from_posix(&v))
        .unwrap_or_default()
}

/// What the UI needs to speak the active language.
#[derive(Debug, Serialize)]
pub struct MessagesView {
    /// `en` / `ja`.
    pub lang: &'static str,
    /// `en-US` / `ja-JP`: for the UI's date and time formats.
    pub tag: &'static str,
    /// What Settings saved: "" (automatic), "en" or "ja".
    pub chosen: String,
    /// The languages to choose from, each in its own words.
    pub languages: Vec<LanguageOption>,
    /// Message id → pattern text with `{$name}` placeables.
    pub messages: &'static BTreeMap<String, String>,
    /// The store's time zone (IANA name): the screens tell the time in it, as its
    /// receipts do (design §11.14), whatever zone the computer is set to.
    pub time_zone: String,
}

#[derive(Debug, Serialize)]
pub struct LanguageOption {
    pub code: &'static str,
    pub name: &'static str,
}

/// The store's time zone; the locale's own while the ledger cannot be read.
fn store_zone(state: &AppState) -> String {
    state.engine().store().settings().map(|s| s.time_zone).unwrap_or_default()
}

fn view(chosen: String, time_zone: String) -> MessagesView {
    let l = active();
    MessagesView {
        time_zone,
        lang: l.code(),
        tag: l.tag(),
        chosen,
        languages: Locale::ALL.iter().map(|l| LanguageOption { code: l.code(), name: l.native_name() }).collect(),
        messages: paydesk_i18n::ui_patterns(l),
    }
}

#[tauri::command]
pub fn get_messages(state: State<'_, AppState>) -> MessagesView {
    view(lock(&state.settings).language.clone(), store_zone(&state))
}

/// Switches the screen's language at once and saves the choice with the settings.
/// `lang`: "en", "ja", or "" to follow the store and the system again.
#[tauri::command]
pub fn set_language(state: State<'_, AppState>, lang: String) -> AppResult<MessagesView> {
    let wanted = if lang.is_empty() {
        None
    } else {
        let shown: String = lang.chars().take(16).collect();
        let known = Locale::ALL.into_iter().find(|l| l.code() == lang);
        Some(known.ok_or_else(|| AppError::InvalidInput(tr!(active(), "language-unknown", lang = shown)))?)
    };
    let mut settings = lock(&state.settings);
    let mut new = settings.clone();
    new.language = wanted.map(|l| l.code().to_string()).unwrap_or_default();
    new.save(&state.data_dir, &state.secrets).map_err(|e| AppError::Internal(tr!(active(), "settings-not-saved", error = e.to_string())))?;
    *settings = new;
    let store = state.engine().store().settings().ok().map(|s| s.locale);
    set_active(initial(&settings.language, store, |k| std::env::var(k).ok()));
    Ok(view(settings.language.clone(), store_zone(&state)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_language_is_the_choice_then_the_store_then_the_system() {
        let env = |lang: &'static str| move |k: &str| (k == "LANG").then(|| lang.to_string());
        let ja = Some(paydesk_domain::Locale::Ja);
        let en = Some(paydesk_domain::Locale::En);
        assert_eq!(initial("en", ja, env("ja_JP.UTF-8")), Locale::En);
        assert_eq!(initial("ja", en, env("C")), Locale::Ja);
        assert_eq!(initial("", ja, env("en_US.UTF-8")), Locale::Ja);
        assert_eq!(initial("", en, env("ja_JP.UTF-8")), Locale::Ja);
        assert_eq!(initial("", en, env("C.UTF-8")), Locale::En);
        assert_eq!(initial("", None, env("fr_FR.UTF-8")), Locale::En);
        // LC_ALL wins over LANG.
        let both = |k: &str| match k {
            "LC_ALL" => Some("en_US.UTF-8".to_string()),
            "LANG" => Some("ja_JP.UTF-8".to_string()),
            _ => None,
        };
        assert_eq!(initial("", en, both), Locale::En);
    }
}
