//! Money as integer minor units (record 0012).
//!
//! There is no floating point anywhere in this module: amounts are `i64` counts of the
//! currency's minor unit (cents, or yen for JPY whose exponent is 0), parsing works on
//! the decimal digits of the text, and every arithmetic operation is checked so an
//! overflow is an error, never a wrapped amount.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Results of the vocabulary: a [`ValueError`] (the ledger's `Error` converts it).
type Result<T> = std::result::Result<T, ValueError>;

/// ISO 4217 currencies PayDesk can take. The lowercase code is the wire and storage form
/// (Stripe style: `"jpy"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Currency {
    // The upper-case aliases read what the receipt document wrote before it shared this
    // type (decision 0107: its own `Currency` serialised "JPY"/"USD").
    #[serde(alias = "JPY")]
    Jpy,
    #[serde(alias = "USD")]
    Usd,
    #[serde(alias = "EUR")]
    Eur,
    #[serde(alias = "GBP")]
    Gbp,
    #[serde(alias = "KRW")]
    Krw,
}

impl Currency {
    /// Every supported currency, for CHECK constraints, settings and tests.
    pub const ALL: [Currency; 5] = [Currency::Jpy, Currency::Usd, Currency::Eur, Currency::Gbp, Currency::Krw];

    /// ISO 4217 exponent: number of minor-unit digits after the decimal point.
    pub const fn exponent(self) -> u32 {
        match self {
            Currency::Jpy | Currency::Krw => 0,
            Currency::Usd | Currency::Eur | Currency::Gbp => 2,
        }
    }

    /// Lowercase ISO code, as stored in the ledger and sent to the PSP.
    pub const fn code(self) -> &'static str {
        match self {
            Currency::Jpy => "jpy",
            Currency::Usd => "usd",
            Currency::Eur => "eur",
            Currency::Gbp => "gbp",
            Currency::Krw => "krw",
        }
    }

    /// Display symbol for the cashier's screen and receipts.
    pub const fn symbol(self) -> &'static str {
        match self {
            Currency::Jpy => "¥",
            Currency::Usd => "$",
            Currency::Eur => "€",
            Currency::Gbp => "£",
            Currency::Krw => "₩",
        }
    }

    /// `10^exponent`, the number of minor units in one major unit.
    pub const fn minor_per_major(self) -> i64 {
        10i64.pow(self.exponent())
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Currency {
    type Err = ValueError;
    /// Accepts the ISO code in any case (`"jpy"`, `"JPY"`); anything else is
    /// [`ValueError::InvalidCurrency`].
    fn from_str(s: &str) -> Result<Self> {
        Currency::ALL
            .into_iter()
            .find(|c| c.code().eq_ignore_ascii_case(s))
            .ok_or_else(|| ValueError::InvalidCurrency(s.to_string()))
    }
}

/// An amount of one currency, in minor units.
///
/// May be negative (journal rows for refunds are), but payment and refund amounts are
/// validated positive where they are created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Money {
    pub amount_minor: i64,
    pub currency: Currency,
}

impl Money {
    pub const fn new(amount_minor: i64, currency: Currency) -> Money {
        Money { amount_minor, currency }
    }

    pub const fn zero(currency: Currency) -> Money {
        Money { amount_minor: 0, currency }
    }

    /// A strictly positive amount, as a payment or refund needs.
    pub fn positive(amount_minor: i64, currency: Currency) -> Result<Money> {
        if amount_minor <= 0 {
            return Err(ValueError::InvalidAmount(format!("{amount_minor} must be greater than zero")));
        }
        Ok(Money::new(amount_minor, currency))
    }

    /// Parses a non-negative decimal in major units: `"12.34"` USD is 1234 minor units,
    /// `"1200"` JPY is 1200. At most `exponent` decimals (`"1.5"` JPY and `"1.234"` USD
    /// are refused rather than rounded: rounding money silently is how cents go missing).
    /// No sign, no grouping commas, no exponent notation; surrounding whitespace is
    /// ignored.
    pub fn parse(text: &str, currency: Currency) -> Result<Money> {
        let s = text.trim();
        let bad = |why: &str| ValueError::InvalidAmount(format!("{text:?}: {why}"));
        if s.is_empty() {
            return Err(bad("empty"));
        }
        if s.starts_with('-') {
            return Err(bad("negative amounts are not allowed"));
        }
        let (int_part, frac_part) = match s.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (s, None),
        };
        if int_part.is_empty() || !int_part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("expected digits"));
        }
        let exp = currency.exponent() as usize;
        let frac = frac_part.unwrap_or("");
        if frac_part.is_some() && frac.is_empty() {
            return Err(bad("expected digits after the decimal point"));
        }
        if !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("expected digits"));
        }
        if frac.len() > exp {
            return Err(bad(&format!("{} allows at most {exp} decimal places", currency.code())));
        }
        let mut minor: i64 = 0;
        for b in int_part.bytes() {
            minor = minor
                .checked_mul(10)
                .and_then(|m| m.checked_add(i64::from(b - b'0')))
                .ok_or_else(|| bad("too large"))?;
        }
        for i in 0..exp {
            let digit = frac.as_bytes().get(i).map_or(0, |b| i64::from(b - b'0'));
            minor = minor
                .checked_mul(10)
                .and_then(|m| m.checked_add(digit))
                .ok_or_else(|| bad("too large"))?;
        }
        Ok(Money::new(minor, currency))
    }

    /// Plain decimal in major units without symbol or grouping: 1234 USD → `"12.34"`.
    /// The inverse of [`Money::parse`] for non-negative amounts.
    pub fn to_decimal_string(&self) -> String {
        let (int, frac) = self.split_major_minor();
        let sign = if self.amount_minor < 0 { "-" } else { "" };
        match frac {
            Some(f) => format!("{sign}{int}.{f}"),
            None => format!("{sign}{int}"),
        }
    }

    /// Absolute major part and zero-padded minor digits (None for exponent 0).
    /// Works on `unsigned_abs` so `i64::MIN` formats instead of overflowing.
    fn split_major_minor(&self) -> (u64, Option<String>) {
        let abs = self.amount_minor.unsigned_abs();
        let exp = self.currency.exponent();
        if exp == 0 {
            return (abs, None);
        }
        let unit = 10u64.pow(exp);
        (abs / unit, Some(format!("{:0width$}", abs % unit, width = exp as usize)))
    }

    pub fn checked_add(self, other: Money) -> Result<Money> {
        self.same_currency(other)?;
        let v = self.amount_minor.checked_add(other.amount_minor).ok_or(ValueError::Overflow)?;
        Ok(Money::new(v, self.currency))
    }

    pub fn checked_sub(self, other: Money) -> Result<Money> {
        self.same_currency(other)?;
        let v = self.amount_minor.checked_sub(other.amount_minor).ok_or(ValueError::Overflow)?;
        Ok(Money::new(v, self.currency))
    }

    /// Unit price times quantity (cart lines).
    pub fn checked_mul(self, quantity: i64) -> Result<Money> {
        let v = self.amount_minor.checked_mul(quantity).ok_or(ValueError::Overflow)?;
        Ok(Money::new(v, self.currency))
    }

    pub fn checked_neg(self) -> Result<Money> {
        let v = self.amount_minor.checked_neg().ok_or(ValueError::Overflow)?;
        Ok(Money::new(v, self.currency))
    }

    fn same_currency(self, other: Money) -> Result<()> {
        if self.currency != other.currency {
            return Err(ValueError::CurrencyMismatch { expected: self.currency, found: other.currency });
        }
        Ok(())
    }
}

/// Human display: symbol, grouped thousands, the currency's decimals:
/// `¥1,200`, `$12.34`, `-€0.05`.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (int, frac) = self.split_major_minor();
        let digits = int.to_string();
        let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(ch);
        }
        let sign = if self.amount_minor < 0 { "-" } else { "" };
        write!(f, "{sign}{}{grouped}", self.currency.symbol())?;
        if let Some(fr) = frac {
            write!(f, ".{fr}")?;
        }
        Ok(())
    }
}

/// What is wrong with a value of the shared vocabulary (this module and `state`): text
/// that names no currency, state or amount, two currencies mixed, or arithmetic that would
/// overflow. The vocabulary must not depend on the ledger's `Error`, which wraps
/// each of these into its same-named variant (with the same words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("invalid amount: {0}")]
    InvalidAmount(String),
    #[error("invalid currency: {0:?}")]
    InvalidCurrency(String),
    #[error("currency mismatch: expected {expected}, got {found}")]
    CurrencyMismatch { expected: Currency, found: Currency },
    #[error("amount overflow")]
    Overflow,
    /// A stored or given name that is none of the enum's (an edited file, a typo).
    #[error("unknown {what} {value:?} in the ledger")]
    UnknownValue { what: &'static str, value: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_usd() {
        assert_eq!(Money::parse("12.34", Currency::Usd).unwrap().amount_minor, 1234);
        assert_eq!(Money::parse("12.3", Currency::Usd).unwrap().amount_minor, 1230);
        assert_eq!(Money::parse("12", Currency::Usd).unwrap().amount_minor, 1200);
        assert_eq!(Money::parse("0.05", Currency::Usd).unwrap().amount_minor, 5);
        assert_eq!(Money::parse(" 7.00 ", Currency::Eur).unwrap().amount_minor, 700);
        assert_eq!(Money::parse("0", Currency::Gbp).unwrap().amount_minor, 0);
    }

    #[test]
    fn parse_zero_exponent() {
        assert_eq!(Money::parse("1200", Currency::Jpy).unwrap().amount_minor, 1200);
        assert_eq!(Money::parse("50000", Currency::Krw).unwrap().amount_minor, 50000);
        assert!(matches!(Money::parse("1200.5", Currency::Jpy), Err(ValueError::InvalidAmount(_))));
        assert!(matches!(Money::parse("1200.", Currency::Jpy), Err(ValueError::InvalidAmount(_))));
    }

    #[test]
    fn parse_rejects() {
        for bad in ["", " ", "-1", "-0.01", "+1", "1.234", "1,200", "1e3", "abc", ".5", "1.", "1..2", "1.2.3", "１２", "NaN", "1 2"] {
            assert!(
                matches!(Money::parse(bad, Currency::Usd), Err(ValueError::InvalidAmount(_))),
                "{bad:?} should be refused"
            );
        }
    }

    #[test]
    fn parse_overflow() {
        let max = i64::MAX.to_string();
        assert_eq!(Money::parse(&max, Currency::Jpy).unwrap().amount_minor, i64::MAX);
        assert!(matches!(Money::parse("9223372036854775808", Currency::Jpy), Err(ValueError::InvalidAmount(_))));
        // Fits as major units but not once scaled to cents.
        assert!(matches!(Money::parse("92233720368547759", Currency::Usd), Err(ValueError::InvalidAmount(_))));
        assert_eq!(Money::parse("92233720368547758.07", Currency::Usd).unwrap().amount_minor, i64::MAX);
        assert!(Money::parse("99999999999999999999999999", Currency::Usd).is_err());
    }

    #[test]
    fn format_display() {
        assert_eq!(Money::new(1200, Currency::Jpy).to_string(), "¥1,200");
        assert_eq!(Money::new(1234, Currency::Usd).to_string(), "$12.34");
        assert_eq!(Money::new(5, Currency::Usd).to_string(), "$0.05");
        assert_eq!(Money::new(0, Currency::Eur).to_string(), "€0.00");
        assert_eq!(Money::new(123456789, Currency::Gbp).to_string(), "£1,234,567.89");
        assert_eq!(Money::new(100, Currency::Krw).to_string(), "₩100");
        assert_eq!(Money::new(1000, Currency::Krw).to_string(), "₩1,000");
        assert_eq!(Money::new(-1234, Currency::Usd).to_string(), "-$12.34");
        assert_eq!(Money::new(i64::MIN, Currency::Jpy).to_string(), "-¥9,223,372,036,854,775,808");
    }

    #[test]
    fn decimal_round_trip() {
        for c in Currency::ALL {
            for v in [0i64, 1, 9, 10, 99, 100, 101, 1234, 999_999, i64::MAX] {
                let m = Money::new(v, c);
                assert_eq!(Money::parse(&m.to_decimal_string(), c).unwrap(), m, "{c} {v}");
            }
        }
    }

    #[test]
    fn currency_codes() {
        for c in Currency::ALL {
            assert_eq!(c.code().parse::<Currency>().unwrap(), c);
            assert_eq!(c.code().to_uppercase().parse::<Currency>().unwrap(), c);
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{}\"", c.code()));
            let upper = format!("\"{}\"", c.code().to_uppercase());
            assert_eq!(serde_json::from_str::<Currency>(&upper).unwrap(), c);
        }
        assert_eq!(Currency::Jpy.exponent(), 0);
        assert_eq!(Currency::Usd.exponent(), 2);
        assert!(matches!("btc".parse::<Currency>(), Err(ValueError::InvalidCurrency(_))));
        assert!(matches!("".parse::<Currency>(), Err(ValueError::InvalidCurrency(_))));
    }

    #[test]
    fn checked_arithmetic() {
        let a = Money::new(i64::MAX, Currency::Usd);
        assert!(matches!(a.checked_add(Money::new(1, Currency::Usd)), Err(ValueError::Overflow)));
        assert!(matches!(a.checked_mul(2), Err(ValueError::Overflow)));
        assert!(matches!(Money::new(i64::MIN, Currency::Usd).checked_neg(), Err(ValueError::Overflow)));
        assert!(matches!(
            Money::new(1, Currency::Usd).checked_add(Money::new(1, Currency::Jpy)),
            Err(ValueError::CurrencyMismatch { .. })
        ));
        assert_eq!(Money::new(250, Currency::Usd).checked_mul(3).unwrap().amount_minor, 750);
        assert_eq!(Money::new(5, Currency::Usd).checked_sub(Money::new(7, Currency::Usd)).unwrap().amount_minor, -2);
        assert!(matches!(Money::positive(0, Currency::Usd), Err(ValueError::InvalidAmount(_))));
        assert!(matches!(Money::positive(-5, Currency::Usd), Err(ValueError::InvalidAmount(_))));
    }
}
