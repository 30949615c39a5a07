//! Display of integer minor units. Amounts never pass through floating point: the
//! UI gets strings formatted here, or (for chart axes it draws) a [`MoneyFormat`]
//! and integer minor units it formats with integer arithmetic.

use paydesk_domain::Currency;
use serde::Serialize;

/// How the UI formats amounts it computes itself (chart axes, per-hour sums): `symbol`
/// before the number (the UI also reads an upper-case `code` after it when there is no
/// symbol; every currency PayDesk takes has one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoneyFormat {
    pub code: String,
    pub symbol: Option<&'static str>,
    pub exponent: u32,
}

impl MoneyFormat {
    pub fn of(currency: Currency) -> MoneyFormat {
        MoneyFormat { code: currency.code().to_ascii_uppercase(), symbol: Some(currency.symbol()), exponent: currency.exponent() }
    }
}

fn split(minor: i64, exp: u32) -> (bool, u64, u64) {
    let abs = minor.unsigned_abs();
    let scale = 10u64.pow(exp);
    (minor < 0, abs / scale, abs % scale)
}

/// `1234, Usd` → `"$12.34"`; `-50, Usd` → `"−$0.50"`; `1200, Jpy` → `"¥1,200"`.
pub fn format(minor: i64, currency: Currency) -> String {
    let exp = currency.exponent();
    let (neg, major, frac) = split(minor, exp);
    let digits = major.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let number = if exp > 0 {
        format!("{grouped}.{frac:0width$}", width = exp as usize)
    } else {
        grouped
    };
    let body = format!("{}{number}", currency.symbol());
    if neg {
        format!("−{body}")
    } else {
        body
    }
}

/// The amount as a cashier would type it back: `1250, Usd` → `"12.50"`, no symbol,
/// no grouping; `1200, Jpy` → `"1200"`.
pub fn plain(minor: i64, currency: Currency) -> String {
    let exp = currency.exponent();
    let (neg, major, frac) = split(minor, exp);
    let sign = if neg { "-" } else { "" };
    if exp == 0 {
        format!("{sign}{major}")
    } else {
        format!("{sign}{major}.{frac:0width$}", width = exp as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::{format, plain, MoneyFormat};
    use paydesk_domain::Currency::{Eur, Jpy, Krw, Usd};

    #[test]
    fn formats_minor_units() {
        assert_eq!(format(1234, Usd), "$12.34");
        assert_eq!(format(5, Usd), "$0.05");
        assert_eq!(format(5000, Usd), "$50.00");
        assert_eq!(format(123456789, Usd), "$1,234,567.89");
        assert_eq!(format(-50, Usd), "−$0.50");
        assert_eq!(format(1200, Jpy), "¥1,200");
        assert_eq!(format(50000, Krw), "₩50,000");
        assert_eq!(format(199, Eur), "€1.99");
        assert_eq!(format(i64::MIN, Usd), "−$92,233,720,368,547,758.08");
    }

    #[test]
    fn plain_is_what_a_cashier_types() {
        assert_eq!(plain(1250, Usd), "12.50");
        assert_eq!(plain(123456, Usd), "1234.56");
        assert_eq!(plain(7, Usd), "0.07");
        assert_eq!(plain(1200, Jpy), "1200");
        assert_eq!(plain(-5, Usd), "-0.05");
    }

    #[test]
    fn format_for_the_ui() {
        let f = MoneyFormat::of(Usd);
        assert_eq!((f.code.as_str(), f.symbol, f.exponent), ("USD", Some("$"), 2));
        let f = MoneyFormat::of(Krw);
        assert_eq!((f.symbol, f.exponent), (Some("₩"), 0));
    }
}
