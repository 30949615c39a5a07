//! The revenue stamp a Japanese receipt for money needs (印紙税), as data.
//!
//! Legal basis (docs/decisions/0112-ryoshusho.md): the Stamp Duty Act (印紙税法), Schedule 1,
//! document No. 17-1 (売上代金に係る金銭の受取書): a receipt for ¥50,000 or more needs a stamp
//! (below ¥50,000 it is exempt since 1 April 2014), and the duty grows with the amount. When
//! the consumption tax is stated on the receipt, the amount is the one before tax (国税庁
//! 法令解釈通達 消費税法改正等に伴う印紙税の取扱い). A receipt for a credit card payment is
//! not a receipt for money and needs none when it says so. A store the tax office allows to
//! pay the duty another way (印紙税法 第11条・第12条, 書式表示) prints its approved words instead
//! of a stamp box.

use serde::{Deserialize, Serialize};

/// When a receipt needs a stamp, and which one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StampRule {
    /// The smallest amount (minor units, before consumption tax) that needs a stamp.
    pub threshold_minor: i64,
    /// The duty by amount: `(up_to_minor, duty_minor)`, ascending; the first row whose bound
    /// the amount does not pass. `None` as the last bound: any amount above.
    pub duty: Vec<(Option<i64>, i64)>,
    /// The words the tax office approved, printed instead of a stamp box (書式表示), or
    /// `None` for the box.
    pub approved_text: Option<String>,
}

/// What a stamp box on one receipt says: the amount it stands for and the duty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StampNeeded {
    /// The cash received, before consumption tax: what the duty is judged on.
    pub base_minor: i64,
    pub duty_minor: i64,
}

impl StampRule {
    /// Japan's rule for a receipt of sales proceeds (document No. 17-1), in yen.
    pub fn japan() -> StampRule {
        const MAN: i64 = 10_000;
        StampRule {
            threshold_minor: 5 * MAN,
            duty: vec![
                (Some(100 * MAN), 200),
                (Some(200 * MAN), 400),
                (Some(300 * MAN), 600),
                (Some(500 * MAN), 1_000),
                (Some(1_000 * MAN), 2_000),
                (Some(2_000 * MAN), 4_000),
                (Some(3_000 * MAN), 6_000),
                (Some(5_000 * MAN), 10_000),
                (Some(10_000 * MAN), 20_000),
                (Some(20_000 * MAN), 40_000),
                (Some(30_000 * MAN), 60_000),
                (Some(50_000 * MAN), 100_000),
                (Some(100_000 * MAN), 150_000),
                (None, 200_000),
            ],
            approved_text: None,
        }
    }

    /// The stamp `base_minor` (money received, before tax) needs, or `None` below the
    /// threshold.
    pub fn needed(&self, base_minor: i64) -> Option<StampNeeded> {
        if base_minor < self.threshold_minor {
            return None;
        }
        let row = self.duty.iter().find(|(up_to, _)| up_to.is_none_or(|b| base_minor <= b));
        // A table without an open last row leaves the largest amounts at its last duty.
        let duty_minor = row.or(self.duty.last()).map_or(0, |(_, d)| *d);
        Some(StampNeeded { base_minor, duty_minor })
    }
}

/// The part of `cash_minor` that is not consumption tax, when the receipt states `tax_minor`
/// on `total_minor` in all: the tax is shared out in proportion and rounded DOWN, so the
/// base is rounded up and a receipt on the edge gets its stamp rather than misses it.
pub fn cash_before_tax(cash_minor: i64, tax_minor: i64, total_minor: i64) -> i64 {
    if total_minor <= 0 || cash_minor <= 0 {
        return cash_minor.max(0);
    }
    let share = i128::from(tax_minor.max(0)) * i128::from(cash_minor) / i128::from(total_minor);
    cash_minor - i64::try_from(share).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_japanese_duty_table_at_its_edges() {
        let r = StampRule::japan();
        assert_eq!(r.needed(49_999), None);
        assert_eq!(r.needed(50_000), Some(StampNeeded { base_minor: 50_000, duty_minor: 200 }));
        assert_eq!(r.needed(1_000_000).unwrap().duty_minor, 200);
        assert_eq!(r.needed(1_000_001).unwrap().duty_minor, 400);
        assert_eq!(r.needed(5_000_000).unwrap().duty_minor, 1_000);
        assert_eq!(r.needed(1_000_000_001).unwrap().duty_minor, 200_000);
        assert_eq!(r.needed(i64::MAX).unwrap().duty_minor, 200_000);
    }

    #[test]
    fn tax_is_shared_out_rounded_down() {
        // ¥55,000 with ¥5,000 tax, all cash: ¥50,000 before tax.
        assert_eq!(cash_before_tax(55_000, 5_000, 55_000), 50_000);
        // Half of it in cash: half the tax.
        assert_eq!(cash_before_tax(27_500, 5_000, 55_000), 25_000);
        // 1/3 of ¥1 tax is no tax: the base keeps the yen.
        assert_eq!(cash_before_tax(1, 1, 3), 1);
        assert_eq!(cash_before_tax(0, 100, 1_000), 0);
        assert_eq!(cash_before_tax(i64::MAX / 2, i64::MAX / 4, i64::MAX / 2), i64::MAX / 2 - i64::MAX / 4);
    }
}
