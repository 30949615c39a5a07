//! Weighed goods (issue #30, record 0134): an item sold by weight has a price per kilogram
//! or per 100 g, and a weighed line's amount is that price × its grams ÷ the grams the price
//! is for, rounded half up to the minor unit — here, and nowhere else. Tax, discounts,
//! returns and reports take the line's amount as it comes out of [`weighed_amount`]; none of
//! them multiplies a weight by a price again.

use serde::{Deserialize, Serialize};

use crate::compute::MAX_UNIT_PRICE;
use crate::rates::{round_div, Rounding};

/// The lightest weighed line: one gram.
pub const MIN_GRAMS: i64 = 1;
/// The heaviest weighed line: 100 kg (a scale's range; a label holds five weight digits).
pub const MAX_GRAMS: i64 = 100_000;

/// How an item is sold: by the piece (quantity × price), or by weight at a price per
/// kilogram or per 100 g (Japanese stores label "100g当たり"). The per-unit is held as the
/// grams the price is for (1000 or 100), the divisor of the one amount rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SaleUnit {
    #[default]
    Piece,
    Kilogram,
    HundredGrams,
}

impl SaleUnit {
    pub const ALL: [SaleUnit; 3] = [SaleUnit::Piece, SaleUnit::Kilogram, SaleUnit::HundredGrams];

    /// The stored and typed word.
    pub fn as_str(self) -> &'static str {
        match self {
            SaleUnit::Piece => "piece",
            SaleUnit::Kilogram => "kilogram",
            SaleUnit::HundredGrams => "hundred_grams",
        }
    }

    pub fn parse(s: &str) -> Option<SaleUnit> {
        SaleUnit::ALL.into_iter().find(|u| u.as_str() == s)
    }

    /// The grams the price is for: `None` for a piece.
    pub fn per_grams(self) -> Option<i64> {
        match self {
            SaleUnit::Piece => None,
            SaleUnit::Kilogram => Some(1000),
            SaleUnit::HundredGrams => Some(100),
        }
    }

    /// The unit whose price is for `per_grams` grams (as stored: 1000 or 100).
    pub fn from_per_grams(per_grams: i64) -> Option<SaleUnit> {
        SaleUnit::ALL.into_iter().find(|u| u.per_grams() == Some(per_grams))
    }

    /// Whether the item is weighed.
    pub fn is_weighed(self) -> bool {
        self.per_grams().is_some()
    }

    /// The unit as printed after a price: "kg" / "100g".
    pub fn label(self) -> &'static str {
        match self {
            SaleUnit::Piece => "",
            SaleUnit::Kilogram => "kg",
            SaleUnit::HundredGrams => "100g",
        }
    }
}

/// Why a weighed line has no amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum WeightError {
    #[error("{grams} g is not between {MIN_GRAMS} g and {MAX_GRAMS} g")]
    GramsOutOfRange { grams: i64 },
    #[error("a price of {rate} per unit is not between 0 and {max}")]
    RateOutOfRange { rate: i64, max: i64 },
    #[error("a piece is not weighed")]
    NotWeighed,
    #[error("{grams} g at {rate} comes to {amount}, above the line limit {max}")]
    AmountTooLarge { grams: i64, rate: i64, amount: i128, max: i64 },
}

/// The amount of `grams` of an item priced `rate` (minor units) per `unit`: `rate × grams ÷
/// per_grams`, rounded half up to the minor unit (0.5 of a yen or cent and above goes up;
/// all figures are non-negative, so half up and half away from zero agree). In `i128`, so
/// no limit-sized input can overflow; at most the per-unit price limit, like any line.
pub fn weighed_amount(rate: i64, grams: i64, unit: SaleUnit) -> Result<i64, WeightError> {
    let per = unit.per_grams().ok_or(WeightError::NotWeighed)?;
    if !(MIN_GRAMS..=MAX_GRAMS).contains(&grams) {
        return Err(WeightError::GramsOutOfRange { grams });
    }
    if !(0..=MAX_UNIT_PRICE).contains(&rate) {
        return Err(WeightError::RateOutOfRange { rate, max: MAX_UNIT_PRICE });
    }
    let amount = round_div(i128::from(rate) * i128::from(grams), i128::from(per), Rounding::HalfUp);
    i64::try_from(amount)
        .ok()
        .filter(|a| *a <= MAX_UNIT_PRICE)
        .ok_or(WeightError::AmountTooLarge { grams, rate, amount, max: MAX_UNIT_PRICE })
}

/// Grams as a scale shows them in kilograms, "0.452": three decimals, no float.
pub fn kilograms_text(grams: i64) -> String {
    format!("{}.{:03}", grams / 1000, grams % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_amount_is_the_price_for_the_weight_rounded_half_up() {
        // Bananas $0.69/kg, 452 g: 31.188 cents → 31.
        assert_eq!(weighed_amount(69, 452, SaleUnit::Kilogram), Ok(31));
        // Nuts ¥398/100g, 152 g: 604.96 → 605.
        assert_eq!(weighed_amount(398, 152, SaleUnit::HundredGrams), Ok(605));
        // Exactly half a minor unit goes up: 1 per kg × 500 g = 0.5 → 1; 499 g → 0.
        assert_eq!(weighed_amount(1, 500, SaleUnit::Kilogram), Ok(1));
        assert_eq!(weighed_amount(1, 499, SaleUnit::Kilogram), Ok(0));
        assert_eq!(weighed_amount(69, 0, SaleUnit::Kilogram), Err(WeightError::GramsOutOfRange { grams: 0 }));
        assert_eq!(weighed_amount(69, 100_001, SaleUnit::Kilogram), Err(WeightError::GramsOutOfRange { grams: 100_001 }));
        assert_eq!(weighed_amount(69, 452, SaleUnit::Piece), Err(WeightError::NotWeighed));
        assert!(matches!(weighed_amount(MAX_UNIT_PRICE, 100_000, SaleUnit::HundredGrams), Err(WeightError::AmountTooLarge { .. })));
        assert_eq!(kilograms_text(452), "0.452");
        assert_eq!(kilograms_text(12_050), "12.050");
        for u in SaleUnit::ALL {
            assert_eq!(SaleUnit::parse(u.as_str()), Some(u));
            if let Some(p) = u.per_grams() {
                assert_eq!(SaleUnit::from_per_grams(p), Some(u));
            }
        }
    }
}
