//! The offline money caps in settings.json, with the currency they are in (record 0129).
//!
//! Before, the file held two bare numbers and every new file got 10,000 and 50,000: ¥10,000
//! for a yen store, but $100 for a dollar store. Now the caps are `None` (each currency's
//! default of about the same money) until the owner types some, and typed caps are kept
//! with the store's currency, so a later change of currency cannot turn yen into dollars.

use paydesk_domain::Currency;
use paydesk_register::{MoneyCap, OfflineCaps};

use crate::settings_file::Settings;

/// The pair every settings.json was written with before caps had a currency, whatever the
/// store's currency: not a choice the owner made.
const WRITTEN_BEFORE_0129: (Option<i64>, Option<i64>) = (Some(10_000), Some(50_000));

impl Settings {
    /// Reads a file written before caps had a currency, for a store selling in `store`:
    /// the old default pair becomes "the default" again; caps the owner typed (the form
    /// always took them in the store's currency) are kept, in that currency.
    pub fn adopt_offline_currency(&mut self, store: Currency) {
        if self.offline_limits_currency.is_some() {
            return;
        }
        let pair = (self.offline_max_amount, self.offline_max_total);
        if pair == WRITTEN_BEFORE_0129 || pair == (None, None) {
            self.offline_max_amount = None;
            self.offline_max_total = None;
        } else {
            self.offline_limits_currency = Some(store);
        }
    }

    /// Settings saved from the form, whose caps were typed in `currency`: caps equal to
    /// that currency's default are kept as "the default" (`None`), so saving the form
    /// unchanged changes nothing the engine uses, and a later change of currency moves
    /// them to the new currency's default.
    pub fn caps_typed_in(mut self, currency: Currency) -> Settings {
        let default = MoneyCap::default_for(currency);
        if (self.offline_max_amount, self.offline_max_total) == (Some(default.per_payment), Some(default.total)) {
            self.offline_max_amount = None;
            self.offline_max_total = None;
            self.offline_limits_currency = None;
        }
        self
    }

    /// The caps the engine enforces: the owner's in their currency, defaults elsewhere.
    pub fn offline_caps(&self) -> OfflineCaps {
        match self.offline_limits_currency {
            None => OfflineCaps::default(),
            Some(currency) => {
                let default = MoneyCap::default_for(currency);
                OfflineCaps::own(
                    currency,
                    MoneyCap {
                        per_payment: self.offline_max_amount.unwrap_or(default.per_payment),
                        total: self.offline_max_total.unwrap_or(default.total),
                    },
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Settings {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_new_register_holds_about_the_same_money_offline_in_yen_and_dollars() {
        let s = Settings::default();
        assert_eq!(s.offline_caps().for_currency(Currency::Jpy), MoneyCap { per_payment: 10_000, total: 50_000 });
        assert_eq!(s.offline_caps().for_currency(Currency::Usd), MoneyCap { per_payment: 6_500, total: 32_500 });
        assert_eq!(s.engine_config().offline.caps, OfflineCaps::default());
    }

    #[test]
    fn an_old_file_s_default_pair_is_the_default_again_and_typed_caps_keep_their_currency() {
        let mut old = read(r#"{"offline_max_amount": 10000, "offline_max_total": 50000}"#);
        old.adopt_offline_currency(Currency::Usd);
        assert_eq!((old.offline_max_amount, old.offline_limits_currency), (None, None));
        assert_eq!(old.offline_caps().for_currency(Currency::Usd).per_payment, 6_500, "not $100");

        let mut typed = read(r#"{"offline_max_amount": 2500, "offline_max_total": 9000}"#);
        typed.adopt_offline_currency(Currency::Usd);
        assert_eq!(typed.offline_limits_currency, Some(Currency::Usd));
        assert_eq!(typed.offline_caps().for_currency(Currency::Usd), MoneyCap { per_payment: 2_500, total: 9_000 });
        // The same figures never apply to a payment in another currency.
        assert_eq!(typed.offline_caps().for_currency(Currency::Jpy), MoneyCap::default_for(Currency::Jpy));

        // A file that already names its currency is taken as it is, whatever the store's.
        let mut named = read(r#"{"offline_max_amount": 10000, "offline_max_total": 50000, "offline_limits_currency": "usd"}"#);
        named.adopt_offline_currency(Currency::Jpy);
        assert_eq!(named.offline_caps().for_currency(Currency::Usd), MoneyCap { per_payment: 10_000, total: 50_000 });
        assert_eq!(named.offline_caps().for_currency(Currency::Jpy), MoneyCap::default_for(Currency::Jpy));
        let written = serde_json::to_value(&named).unwrap();
        assert_eq!(written["offline_limits_currency"], "usd");

        // The form saved with the default caps typed back: still "the default".
        let typed_default = Settings {
            offline_max_amount: Some(6_500),
            offline_max_total: Some(32_500),
            offline_limits_currency: Some(Currency::Usd),
            ..Settings::default()
        };
        assert_eq!(typed_default.clone().caps_typed_in(Currency::Usd), Settings::default());
        let own = Settings { offline_max_amount: Some(6_000), ..typed_default.clone() };
        assert_eq!(own.clone().caps_typed_in(Currency::Usd), own, "the owner's own caps are kept");
    }
}
