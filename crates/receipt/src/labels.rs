//! The receipt's fixed words in English and Japanese (from the app's message catalogs,
//! `crates/i18n/locales/<lang>/receipt.ftl`), and money, date and rate formatting.

use std::sync::OnceLock;

use paydesk_i18n::{id, message, tr};
use paydesk_domain::{Currency, Locale, Money, TenderKind};

use crate::document::LocalDateTime;

/// The receipt's fixed words in one language, from the catalogs' `receipt.ftl`
/// (record 0070), looked up once.
pub(crate) struct Labels {
    locale: Locale,
    pub title: String,
    pub reprint: String,
    pub registration: String,
    pub tel: String,
    pub receipt_no: String,
    pub cashier: String,
    pub register: String,
    pub eat_in: String,
    pub line_discount: String,
    pub subtotal: String,
    pub sale_discount: String,
    pub total: String,
    pub tax_included: String,
    pub tax: String,
    pub exempt: String,
    /// The mark in front of a reduced-rate item.
    pub reduced_mark: String,
    pub reduced_legend: String,
    pub cash: String,
    pub card: String,
    pub store_tender: String,
    pub slip: String,
    pub no_change: String,
    pub change: String,
    pub card_aid: String,
    pub card_arc: String,
    pub card_auth_code: String,
}

impl Labels {
    pub fn of(language: Locale) -> &'static Labels {
        static EN: OnceLock<Labels> = OnceLock::new();
        static JA: OnceLock<Labels> = OnceLock::new();
        let cell = match language {
            Locale::En => &EN,
            Locale::Ja => &JA,
        };
        cell.get_or_init(|| Labels::load(language))
    }

    fn load(locale: Locale) -> Labels {
        let m = |id: &str| message(locale, id);
        Labels {
            locale,
            title: m(id!("receipt-title")),
            reprint: m(id!("receipt-reprint")),
            registration: m(id!("receipt-registration")),
            tel: m(id!("receipt-tel")),
            receipt_no: m(id!("receipt-receipt-no")),
            cashier: m(id!("receipt-cashier")),
            register: m(id!("receipt-register")),
            eat_in: m(id!("receipt-eat-in")),
            line_discount: m(id!("receipt-line-discount")),
            subtotal: m(id!("receipt-subtotal")),
            sale_discount: m(id!("receipt-sale-discount")),
            total: m(id!("receipt-total-label")),
            tax_included: m(id!("receipt-tax-included")),
            tax: m(id!("receipt-tax")),
            exempt: m(id!("receipt-exempt")),
            reduced_mark: m(id!("receipt-reduced-mark")),
            reduced_legend: m(id!("receipt-reduced-legend")),
            cash: m(id!("receipt-cash")),
            card: m(id!("receipt-card-tender")),
            store_tender: m(id!("receipt-store-tender")),
            slip: m(id!("receipt-slip")),
            no_change: m(id!("receipt-no-change")),
            change: m(id!("receipt-change")),
            card_aid: m(id!("receipt-card-aid")),
            card_arc: m(id!("receipt-card-arc")),
            card_auth_code: m(id!("receipt-card-auth-code")),
        }
    }

    /// A rate's tax-inclusive total: "10%対象" / "Taxable 10%".
    pub fn taxable(&self, rate: &str) -> String {
        tr!(self.locale, "receipt-taxable", rate = rate)
    }

    /// Why a sale is tax exempt (record 0135): "Tax exempt: …" / "免税: …".
    pub fn exempt_reason(&self, reason: &str) -> String {
        tr!(self.locale, "receipt-exempt-reason", reason = reason.to_string())
    }

    /// A rate's tax-exclusive total, for stores whose prices exclude tax.
    pub fn taxable_excl(&self, rate: &str) -> String {
        tr!(self.locale, "receipt-taxable-excl", rate = rate)
    }

    pub fn tender(&self, kind: TenderKind) -> &str {
        match kind {
            TenderKind::Cash => &self.cash,
            TenderKind::Card => &self.card,
            TenderKind::Store => &self.store_tender,
        }
    }
}

/// `¥1,200`, `-¥100`, `$12.00`: the currency's symbol, thousands separators, its minor digits
/// (`Money`'s display, so a receipt and the screen write an amount alike).
/// The tender line of an exchange's credit on the new sale's receipt (record 0123):
/// "Exchange 000012-R1" / "交換 000012-R1".
pub fn exchange_credit_name(language: Locale, return_number: &str) -> String {
    tr!(language, "receipt-exchange-credit", number = return_number.to_string())
}

pub fn format_money(amount: i64, currency: Currency) -> String {
    // The domain's display: symbol, grouped thousands, the currency's exponent, sign first.
    Money::new(amount, currency).to_string()
}

/// A rate in parts per million with the decimals it needs: 100 000 → "10%", 85 000 → "8.5%",
/// 88 750 → "8.875%", 0 → "0%".
pub(crate) fn format_rate(ppm: u32) -> String {
    format!("{}%", paydesk_tax::percent_text(ppm))
}

pub(crate) fn format_date(t: &LocalDateTime, language: Locale) -> String {
    match language {
        Locale::Ja => format!("{:04}年{:02}月{:02}日 {:02}:{:02}", t.year, t.month, t.day, t.hour, t.minute),
        Locale::En => format!("{:04}-{:02}-{:02} {:02}:{:02}", t.year, t.month, t.day, t.hour, t.minute),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_and_rates() {
        assert_eq!(format_money(1200, Currency::Jpy), "¥1,200");
        assert_eq!(format_money(-100, Currency::Jpy), "-¥100");
        assert_eq!(format_money(1_234_567, Currency::Jpy), "¥1,234,567");
        assert_eq!(format_money(1200, Currency::Usd), "$12.00");
        assert_eq!(format_money(5, Currency::Usd), "$0.05");
        assert_eq!(format_money(123_456_789, Currency::Usd), "$1,234,567.89");
        assert_eq!(format_rate(100_000), "10%");
        assert_eq!(format_rate(85_000), "8.5%");
        assert_eq!(format_rate(82_500), "8.25%");
        assert_eq!(format_rate(88_750), "8.875%");
        assert_eq!(format_rate(3_750), "0.375%");
        assert_eq!(format_rate(0), "0%");
    }
}
