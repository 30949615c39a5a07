//! Display of integer minor units. Amounts never pass through floating point: the
//! UI gets strings formatted here, or (for chart axes it draws) a [`MoneyFormat`]
//! and integer minor units it formats with integer arithmetic.

use serde::Serialize;

/// Number of minor-unit digits of an ISO 4217 currency (the few PayDesk knows).
pub fn exponent(currency: &str) -> u32 {
    match currency.to_ascii_uppercase().as_str() {
        "JPY" | "KRW" | "VND" | "CLP" => 0,
        "BHD" | "KWD" | "OMR" | "JOD" | "TND" => 3,
        _ => 2,
    }
}

fn symbol(currency: &str) -> Option<&'static str> {
    match currency.to_ascii_uppercase().as_str() {
        "USD" => Some("$"),
        "EUR" => Some("€"),
        "GBP" => Some("£"),
        "JPY" => Some("¥"),
        "KRW" => Some("₩"),
        _ => None,
    }
}

/// How the UI formats amounts it computes itself (chart axes, per-hour sums):
/// `symbol` before the number, else the upper-case `code` after it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoneyFormat {
    pub code: String,
    pub symbol: Option<&'static str>,
    pub exponent: u32,
}

impl MoneyFormat {
    pub fn of(currency: &str) -> MoneyFormat {
        MoneyFormat { code: currency.to_ascii_uppercase(), symbol: symbol(currency), exponent: exponent(currency) }
    }
}

fn split(minor: i64, exp: u32) -> (bool, u64, u64) {
    let abs = minor.unsigned_abs();
    let scale = 10u64.pow(exp);
    (minor < 0, abs / scale, abs % scale)
}

/// `1234, "USD"` → `"$12.34"`; `-50, "USD"` → `"−$0.50"`; `1200, "JPY"` → `"¥1,200"`.
pub fn format(minor: i64, currency: &str) -> String {
    let exp = exponent(currency);
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
    let body = match symbol(currency) {
        Some(sym) => format!("{sym}{number}"),
        None => format!("{number} {}", currency.to_ascii_uppercase()),
    };
    if neg {
        format!("−{body}")
    } else {
        body
    }
}

/// The amount as a cashier would type it back: `1250, "USD"` → `"12.50"`, no symbol,
/// no grouping; `1200, "JPY"` → `"1200"`.
pub fn plain(minor: i64, currency: &str) -> String {
    let exp = exponent(currency);
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

    #[test]
    fn formats_minor_units() {
        assert_eq!(format(1234, "usd"), "$12.34");
        assert_eq!(format(5, "USD"), "$0.05");
        assert_eq!(format(5000, "usd"), "$50.00");
        assert_eq!(format(123456789, "USD"), "$1,234,567.89");
        assert_eq!(format(-50, "USD"), "−$0.50");
        assert_eq!(format(1200, "JPY"), "¥1,200");
        assert_eq!(format(1200, "jpy"), "¥1,200");
        assert_eq!(format(50000, "krw"), "₩50,000");
        assert_eq!(format(199, "eur"), "€1.99");
        assert_eq!(format(1000, "KWD"), "1.000 KWD");
        assert_eq!(format(i64::MIN, "usd"), "−$92,233,720,368,547,758.08");
    }

    #[test]
    fn plain_is_what_a_cashier_types() {
        assert_eq!(plain(1250, "usd"), "12.50");
        assert_eq!(plain(123456, "usd"), "1234.56");
        assert_eq!(plain(7, "usd"), "0.07");
        assert_eq!(plain(1200, "jpy"), "1200");
        assert_eq!(plain(-5, "usd"), "-0.05");
    }

    #[test]
    fn format_for_the_ui() {
        let f = MoneyFormat::of("usd");
        assert_eq!((f.code.as_str(), f.symbol, f.exponent), ("USD", Some("$"), 2));
        let f = MoneyFormat::of("krw");
        assert_eq!((f.symbol, f.exponent), (Some("₩"), 0));
    }
}
