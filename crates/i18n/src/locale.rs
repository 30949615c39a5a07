//! The languages PayDesk speaks.

/// A language of the screen and the receipts. Its tag is the store setting's
/// (`en-US`, `ja-JP`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Locale {
    #[default]
    En,
    Ja,
}

impl Locale {
    pub const ALL: [Locale; 2] = [Locale::En, Locale::Ja];

    /// `en-US` / `ja-JP`.
    pub fn tag(self) -> &'static str {
        match self {
            Locale::En => "en-US",
            Locale::Ja => "ja-JP",
        }
    }

    /// `en` / `ja`: the folder of its messages and the `lang` of the page.
    pub fn code(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Ja => "ja",
        }
    }

    /// The language's own name, as a language menu shows it.
    pub fn native_name(self) -> &'static str {
        match self {
            Locale::En => "English",
            Locale::Ja => "日本語",
        }
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
}
