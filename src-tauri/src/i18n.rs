//! The screen's language (record 0070): which one is active, what the UI needs to speak
//! it, and [`t`]/[`tr!`] for Rust's own screen text. At the bottom of the app: errors and
//! every layer above put their words through it (the commands that hand the UI its
//! messages and switch the language are `language.rs`).
//!
//! One language for the whole app at a time, so it is a process-wide value: error
//! messages are put in words while they are serialized, where no app state is at hand.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, Ordering};

use paydesk_domain::Locale;
use serde::Serialize;

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
pub fn initial(chosen: Option<Locale>, store: Option<Locale>, env: impl Fn(&str) -> Option<String>) -> Locale {
    if let Some(l) = chosen {
        return l;
    }
    if store == Some(Locale::Ja) {
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
    pub chosen: &'static str,
    /// The languages to choose from, each in its own words.
    pub languages: Vec<LanguageOption>,
    /// Message id → pattern text with `{$name}` placeables.
    pub messages: &'static BTreeMap<String, String>,
    /// The store's time zone (IANA name): the screens tell the time in it, as its
    /// receipts do (record 0058), whatever zone the computer is set to.
    pub time_zone: String,
}

#[derive(Debug, Serialize)]
pub struct LanguageOption {
    pub code: &'static str,
    pub name: &'static str,
}

/// What the UI needs to speak the active language, with the choice saved in Settings and
/// the store's time zone.
pub fn messages_view(chosen: Option<Locale>, time_zone: String) -> MessagesView {
    let l = active();
    MessagesView {
        time_zone,
        lang: l.code(),
        tag: l.tag(),
        chosen: chosen.map(Locale::code).unwrap_or(""),
        languages: Locale::ALL.iter().map(|l| LanguageOption { code: l.code(), name: l.native_name() }).collect(),
        messages: paydesk_i18n::ui_patterns(l),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_language_is_the_choice_then_the_store_then_the_system() {
        let env = |lang: &'static str| move |k: &str| (k == "LANG").then(|| lang.to_string());
        let ja = Some(Locale::Ja);
        let en = Some(Locale::En);
        assert_eq!(initial(en, ja, env("ja_JP.UTF-8")), Locale::En);
        assert_eq!(initial(ja, en, env("C")), Locale::Ja);
        assert_eq!(initial(None, ja, env("en_US.UTF-8")), Locale::Ja);
        assert_eq!(initial(None, en, env("ja_JP.UTF-8")), Locale::Ja);
        assert_eq!(initial(None, en, env("C.UTF-8")), Locale::En);
        assert_eq!(initial(None, None, env("fr_FR.UTF-8")), Locale::En);
        // LC_ALL wins over LANG.
        let both = |k: &str| match k {
            "LC_ALL" => Some("en_US.UTF-8".to_string()),
            "LANG" => Some("ja_JP.UTF-8".to_string()),
            _ => None,
        };
        assert_eq!(initial(None, en, both), Locale::En);
    }
}
