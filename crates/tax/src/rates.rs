//! The rate table (data, not code), rounding and price mode. The classes it is keyed by live
//! in `class` (with the error that names them), so this module and `error` do not import
//! each other.

use serde::{Deserialize, Serialize};

use crate::class::TaxClass;
use crate::error::TaxError;

/// 100 % in basis points: rates and percentage discounts are integers out of 10 000.
pub const BASIS_POINTS_100_PERCENT: u32 = 10_000;

/// The store's rounding rule for the tax of one rate (applied once per rate per sale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rounding {
    /// Truncate (切り捨て): the most common rule in Japanese retail.
    #[default]
    Down,
    /// Half a unit and more rounds up (四捨五入).
    HalfUp,
    /// Any fraction rounds up (切り上げ).
    Up,
}

/// Whether shelf prices include tax (税込, usual in Japanese retail) or not (税抜).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceMode {
    #[default]
    Inclusive,
    Exclusive,
}

/// `num / den` for `num >= 0`, `den > 0`, rounded by `rule`.
pub fn round_div(num: i128, den: i128, rule: Rounding) -> i128 {
    debug_assert!(num >= 0 && den > 0);
    let q = num / den;
    let r = num % den;
    match rule {
        Rounding::Down => q,
        Rounding::Up => q + i128::from(r != 0),
        Rounding::HalfUp => q + i128::from(2 * r >= den),
    }
}

/// A calendar date, compared as (year, month, day). The crate has no clock: the caller says
/// which day the sale is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct YearMonthDay {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl std::fmt::Display for YearMonthDay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// One row of the rate table: this class is taxed at `basis_points` from `effective_from`
/// (inclusive; `None` = since always) until a later row for the same class takes over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateEntry {
    pub class: TaxClass,
    /// 1000 = 10 %, 800 = 8 %, 0 = exempt.
    pub basis_points: u32,
    #[serde(default)]
    pub effective_from: Option<YearMonthDay>,
}

/// The rates in force, as data. A store keeps it in its settings; [`RateTable::japan`] is the
/// table since the 2019-10-01 reform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateTable {
    pub entries: Vec<RateEntry>,
}

/// Rows beyond this are a mistake, not a table.
const MAX_RATE_ENTRIES: usize = 64;

impl RateTable {
    /// Japan since 2019-10-01: standard 10 %, reduced 8 %, exempt 0 %. (Before that date the
    /// single rate was 8 %; a table for older sales adds those rows with their dates.)
    pub fn japan() -> Self {
        let from = Some(YearMonthDay { year: 2019, month: 10, day: 1 });
        RateTable {
            entries: vec![
                RateEntry { class: TaxClass::Standard, basis_points: 1000, effective_from: from },
                RateEntry { class: TaxClass::Reduced, basis_points: 800, effective_from: from },
                RateEntry { class: TaxClass::Exempt, basis_points: 0, effective_from: None },
            ],
        }
    }

    /// Checks what [`RateTable::rate`] relies on: a bounded table, rates of at most 100 %, and
    /// no two rows for one class from the same day (which would make the rate ambiguous).
    pub fn validate(&self) -> Result<(), TaxError> {
        let bad = |reason: String| Err(TaxError::BadRateTable { reason });
        if self.entries.len() > MAX_RATE_ENTRIES {
            return bad(format!("{} rows; at most {MAX_RATE_ENTRIES}", self.entries.len()));
        }
        for (i, e) in self.entries.iter().enumerate() {
            if e.basis_points > BASIS_POINTS_100_PERCENT {
                return bad(format!("row {i}: {} basis points is over 100 %", e.basis_points));
            }
            if e.class == TaxClass::Exempt && e.basis_points != 0 {
                return bad(format!("row {i}: the exempt class must be 0 basis points"));
            }
            let twin = self.entries[..i]
                .iter()
                .any(|o| o.class == e.class && o.effective_from == e.effective_from);
            if twin {
                return bad(format!("row {i}: a second {:?} row from the same day", e.class));
            }
        }
        Ok(())
    }

    /// The rate of `class` on `date`: the row with the latest `effective_from` not after it.
    pub fn rate(&self, class: TaxClass, date: YearMonthDay) -> Result<u32, TaxError> {
        self.entries
            .iter()
            .filter(|e| e.class == class && e.effective_from.is_none_or(|f| f <= date))
            .max_by_key(|e| e.effective_from)
            .map(|e| e.basis_points)
            .ok_or(TaxError::NoRate { class, date: date.to_string() })
    }
}

/// What the store decides once and every sale uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxSettings {
    pub rates: RateTable,
    pub rounding: Rounding,
    pub price_mode: PriceMode,
}

impl TaxSettings {
    /// A typical Japanese store: the Japanese table, tax-inclusive prices, tax truncated.
    pub fn japan_default() -> Self {
        TaxSettings { rates: RateTable::japan(), rounding: Rounding::Down, price_mode: PriceMode::Inclusive }
    }
}
