//! The rate table (data, not code), rounding and price mode. The classes it is keyed by live
//! in `class` (with the error that names them), so this module and `error` do not import
//! each other.

use serde::{Deserialize, Serialize};

use crate::class::TaxClass;
use crate::error::TaxError;

/// 100 % in basis points: percentage discounts are integers out of 10 000.
pub const BASIS_POINTS_100_PERCENT: u32 = 10_000;

/// 100 % in parts per million: tax rates are integers out of 1 000 000, four decimals of a
/// percent (record 0131: New York City's 8.875 % is 88 750; basis points could not say it).
pub const PPM_100_PERCENT: u32 = 1_000_000;
const PPM_PER_PERCENT: u32 = 10_000;
const PPM_PER_BASIS_POINT: u32 = PPM_100_PERCENT / BASIS_POINTS_100_PERCENT;

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

/// One row of the rate table: this class bears the tax `name` at `ppm` from `effective_from`
/// (inclusive; `None` = since always) until a later row for the same class takes over.
///
/// Rows of one class from the same day stack (record 0131): New York City's 8.875 % is three
/// rows, NY State 4 %, New York City 4.5 % and MCTD 0.375 %, all from the same day. Japan's
/// table has one unnamed row per class.
///
/// Read from JSON written before rates had names and parts per million too: a row with
/// `basis_points` (1000 = 10 %) is converted exactly (× 100), so a tax document locked on a
/// cart by an older build still reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RateEntryWire")]
pub struct RateEntry {
    pub class: TaxClass,
    /// The tax's name as printed ("NY State"); empty for a single unnamed rate (Japan).
    pub name: String,
    /// Parts per million: 100 000 = 10 %, 88 750 = 8.875 %, 0 = exempt.
    pub ppm: u32,
    pub effective_from: Option<YearMonthDay>,
}

/// What a rate row may look like in JSON: today's `ppm`, or an older build's `basis_points`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RateEntryWire {
    class: TaxClass,
    #[serde(default)]
    name: String,
    #[serde(default)]
    ppm: Option<u32>,
    #[serde(default)]
    basis_points: Option<u32>,
    #[serde(default)]
    effective_from: Option<YearMonthDay>,
}

impl TryFrom<RateEntryWire> for RateEntry {
    type Error = String;
    fn try_from(w: RateEntryWire) -> Result<Self, String> {
        let ppm = ppm_or_legacy(w.ppm, w.basis_points)?;
        Ok(RateEntry { class: w.class, name: w.name, ppm, effective_from: w.effective_from })
    }
}

/// A rate given either in parts per million or, as older builds wrote it, in basis points.
pub(crate) fn ppm_or_legacy(ppm: Option<u32>, basis_points: Option<u32>) -> Result<u32, String> {
    match (ppm, basis_points) {
        (Some(p), None) => Ok(p),
        (None, Some(bp)) => bp.checked_mul(PPM_PER_BASIS_POINT).ok_or_else(|| format!("{bp} basis points is out of range")),
        (Some(_), Some(_)) => Err("a rate has both ppm and basis_points".into()),
        (None, None) => Err("a rate has neither ppm nor basis_points".into()),
    }
}

/// The rate a class bears on a day: the rows in force, stacked. `ppm` is their sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedRate {
    pub ppm: u32,
    /// (name, ppm) of each row in force, in table order; never empty.
    pub parts: Vec<(String, u32)>,
}

/// The rates in force, as data. A store keeps it in its settings; [`RateTable::japan`] is the
/// table since the 2019-10-01 reform, [`RateTable::new_york_city`] a store in the city.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateTable {
    pub entries: Vec<RateEntry>,
}

/// Rows beyond this are a mistake, not a table.
const MAX_RATE_ENTRIES: usize = 64;
/// A tax's name fits a receipt line.
pub const MAX_RATE_NAME_CHARS: usize = 40;

impl RateTable {
    /// Japan since 2019-10-01: standard 10 %, reduced 8 %, exempt 0 %. (Before that date the
    /// single rate was 8 %; a table for older sales adds those rows with their dates.)
    pub fn japan() -> Self {
        let from = Some(YearMonthDay { year: 2019, month: 10, day: 1 });
        let row = |class, ppm, effective_from| RateEntry { class, name: String::new(), ppm, effective_from };
        RateTable {
            entries: vec![
                row(TaxClass::Standard, 100_000, from),
                row(TaxClass::Reduced, 80_000, from),
                row(TaxClass::Exempt, 0, None),
            ],
        }
    }

    /// A store in New York City: taxable goods bear NY State 4 %, New York City 4.5 % and the
    /// Metropolitan Commuter Transportation District's 0.375 % (8.875 % together, the rate in
    /// force since 2009-08-01). Grocery food is exempt in New York, so the reduced class — the
    /// food class — is taxed at 0 % here (record 0131), as is the exempt class.
    pub fn new_york_city() -> Self {
        let from = Some(YearMonthDay { year: 2009, month: 8, day: 1 });
        let row = |class, name: &str, ppm| RateEntry { class, name: name.to_string(), ppm, effective_from: from };
        RateTable {
            entries: vec![
                row(TaxClass::Standard, "NY State", 40_000),
                row(TaxClass::Standard, "New York City", 45_000),
                row(TaxClass::Standard, "MCTD", 3_750),
                row(TaxClass::Reduced, "Grocery food", 0),
                RateEntry { class: TaxClass::Exempt, name: String::new(), ppm: 0, effective_from: None },
            ],
        }
    }

    /// Checks what [`RateTable::rate`] relies on: a bounded table, names that fit a receipt,
    /// rows of one class and day adding up to at most 100 %, and no two rows of one class and
    /// day with the same name (which would be one tax counted twice).
    pub fn validate(&self) -> Result<(), TaxError> {
        let bad = |reason: String| Err(TaxError::BadRateTable { reason });
        if self.entries.len() > MAX_RATE_ENTRIES {
            return bad(format!("{} rows; at most {MAX_RATE_ENTRIES}", self.entries.len()));
        }
        for (i, e) in self.entries.iter().enumerate() {
            if e.name.chars().count() > MAX_RATE_NAME_CHARS || e.name.chars().any(char::is_control) {
                return bad(format!("row {i}: a name must be at most {MAX_RATE_NAME_CHARS} printable characters"));
            }
            if e.class == TaxClass::Exempt && e.ppm != 0 {
                return bad(format!("row {i}: the exempt class must be 0 %"));
            }
            let same_day = || self.entries.iter().filter(|o| o.class == e.class && o.effective_from == e.effective_from);
            // Each row ≤ 100 % and at most 64 rows, so the sum fits in u64.
            let stacked: u64 = same_day().map(|o| u64::from(o.ppm)).sum();
            if stacked > u64::from(PPM_100_PERCENT) {
                return bad(format!("row {i}: the {:?} rows from its day add up to over 100 %", e.class));
            }
            if self.entries[..i].iter().any(|o| o.class == e.class && o.effective_from == e.effective_from && o.name == e.name) {
                return bad(format!("row {i}: a second {:?} row named {:?} from the same day", e.class, e.name));
            }
        }
        Ok(())
    }

    /// The rate of `class` on `date`: every row from the latest `effective_from` not after it,
    /// stacked. Call on a [validated](RateTable::validate) table (the sum is then ≤ 100 %).
    pub fn rate(&self, class: TaxClass, date: YearMonthDay) -> Result<AppliedRate, TaxError> {
        let in_force = |e: &&RateEntry| e.class == class && e.effective_from.is_none_or(|f| f <= date);
        let latest = self
            .entries
            .iter()
            .filter(in_force)
            .map(|e| e.effective_from)
            .max()
            .ok_or(TaxError::NoRate { class, date: date.to_string() })?;
        let parts: Vec<(String, u32)> = self
            .entries
            .iter()
            .filter(in_force)
            .filter(|e| e.effective_from == latest)
            .map(|e| (e.name.clone(), e.ppm))
            .collect();
        let ppm = parts.iter().map(|p| p.1).fold(0u32, u32::saturating_add);
        Ok(AppliedRate { ppm, parts })
    }
}

/// A rate as a receipt prints it, in percent with only the decimals it needs:
/// 100 000 → "10", 88 750 → "8.875", 3 750 → "0.375", 45 000 → "4.5".
pub fn percent_text(ppm: u32) -> String {
    let whole = ppm / PPM_PER_PERCENT;
    let frac = ppm % PPM_PER_PERCENT;
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:04}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
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

    /// A store in New York City: its stacked rates, shelf prices without tax, half a cent
    /// and more rounded up.
    pub fn new_york_city() -> Self {
        TaxSettings { rates: RateTable::new_york_city(), rounding: Rounding::HalfUp, price_mode: PriceMode::Exclusive }
    }
}
