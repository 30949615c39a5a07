//! The languages PayDesk speaks: of the screen, the receipts and the store's settings.

use serde::{Deserialize, Serialize};

/// A language of the screen, the receipts and the store. Its tag (`en-US`, `ja-JP`) is the
/// store setting's stored and wire form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub enum Locale {
    #[default]
    #[serde(rename = "en-US")]
    En,
    #[serde(rename = "ja-JP")]
    Ja,
}

impl Locale {
    pub const ALL: [Locale; 2] = [Locale::En, Locale::Ja];

    /// `en-US` / `ja-JP`: the store setting's form.
    pub const fn tag(self) -> &'static str {
        match self {
            Locale::En => "en-US",
            Locale::Ja => "ja-JP",
        }
    }

    /// `en` / `ja`: the language of product names and receipts, the folder of its
    /// messages and the `lang` of the page.
    pub const fn code(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Ja => "ja",
        }
    }

    /// The language's own name, as a language menu shows it.
    pub const fn native_name(self) -> &'static str {
        match self {
            Locale::En => "English",
            Locale::Ja => "日本語",
        }
    }

    /// The time zone a store of this locale is in unless its settings name another. Japan
    /// has one zone. For English it stays the zone the en-US demo cafe had when stores
    /// first had zones (San Francisco), so a store file that names none is told the same
    /// times as before; today's demo names its own zone, New York (record 0131).
    pub const fn default_time_zone(self) -> &'static str {
        match self {
            Locale::En => "America/Los_Angeles",
            Locale::Ja => "Asia/Tokyo",
        }
    }

    /// Exactly a tag as [`Locale::tag`] writes it (`en-US`, `ja-JP`): the store setting's
    /// strict reading. `None` for anything else.
    pub fn from_setting(tag: &str) -> Option<Locale> {
        Locale::ALL.into_iter().find(|l| l.tag() == tag)
    }

    /// From a tag (`en-US`, `ja-JP`, `en`, `ja`, any case); `None` for another language.
    pub fn from_tag(tag: &str) -> Option<Locale> {
        let primary = tag.split(['-', '_']).next().unwrap_or("");
        if primary.eq_ignore_ascii_case("en") {
            Some(Locale::En)
        } else if primary.eq_ignore_ascii_case("ja") {
            Some(Locale::Ja)
        } else {
            None
        }
    }

    /// From a POSIX locale variable's value (`ja_JP.UTF-8`, `en_US`, `C`): `None` for a
    /// language PayDesk does not speak.
    pub fn from_posix(value: &str) -> Option<Locale> {
        let lang = value.split(['.', '@']).next().unwrap_or("");
        Locale::from_tag(lang)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_posix_values() {
        assert_eq!(Locale::from_tag("ja-JP"), Some(Locale::Ja));
        assert_eq!(Locale::from_tag("en-US"), Some(Locale::En));
        assert_eq!(Locale::from_tag("JA"), Some(Locale::Ja));
        assert_eq!(Locale::from_tag("fr-FR"), None);
        assert_eq!(Locale::from_tag(""), None);
        assert_eq!(Locale::from_posix("ja_JP.UTF-8"), Some(Locale::Ja));
        assert_eq!(Locale::from_posix("en_GB.utf8@euro"), Some(Locale::En));
        assert_eq!(Locale::from_posix("C"), None);
        for l in Locale::ALL {
            assert_eq!(Locale::from_tag(l.tag()), Some(l));
            assert_eq!(Locale::from_tag(l.code()), Some(l));
        }
    }

    #[test]
    fn the_setting_is_the_exact_tag() {
        for l in Locale::ALL {
            assert_eq!(Locale::from_setting(l.tag()), Some(l));
            assert_eq!(serde_json::to_string(&l).unwrap(), format!("\"{}\"", l.tag()));
            assert_eq!(serde_json::from_str::<Locale>(&format!("\"{}\"", l.tag())).unwrap(), l);
        }
        for other in ["en", "ja", "EN-US", "ja_JP", "fr-FR", ""] {
            assert_eq!(Locale::from_setting(other), None, "{other:?}");
        }
    }
}
