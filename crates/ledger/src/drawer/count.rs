//! Counting a drawer by denomination (record 0066): which notes and coins a currency
//! has, and the checked total of a count. Pure: no I/O, no clock.

use serde::{Deserialize, Serialize};

use super::refusal::ShiftRefusal;
use paydesk_domain::money::Currency;

/// The most pieces of one denomination one count may hold (a full cash bag of coins is
/// a few thousand; a typo of an extra digit or two still gets through, a runaway
/// number does not).
pub const MAX_PIECES_PER_DENOMINATION: i64 = 100_000;

/// The most a drawer may hold in one count, in minor units (10^11: ¥100 billion or
/// $1 billion; far above any till, far below i64 trouble).
pub const MAX_DRAWER_MINOR: i64 = 100_000_000_000;

/// One line of a count: `count` pieces of `denomination_minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DenominationCount {
    pub denomination_minor: i64,
    pub count: i64,
}

/// The notes and coins of a currency, largest first, in minor units. A value that is
/// both a note and a coin (the US dollar) is one denomination: a count is by value.
pub fn denominations(currency: Currency) -> &'static [i64] {
    match currency {
        Currency::Jpy => &[10_000, 5_000, 2_000, 1_000, 500, 100, 50, 10, 5, 1],
        Currency::Usd => &[10_000, 5_000, 2_000, 1_000, 500, 200, 100, 50, 25, 10, 5, 1],
        Currency::Eur => &[50_000, 20_000, 10_000, 5_000, 2_000, 1_000, 500, 200, 100, 50, 20, 10, 5, 2, 1],
        Currency::Gbp => &[5_000, 2_000, 1_000, 500, 200, 100, 50, 20, 10, 5, 2, 1],
        Currency::Krw => &[50_000, 10_000, 5_000, 1_000, 500, 100, 50, 10],
    }
}

/// A count checked against the currency: every denomination known and named once, every
/// number of pieces within limits, the total within [`MAX_DRAWER_MINOR`]. Returns the
/// count in the currency's order (largest first, zero lines dropped) and its total.
pub fn checked_count(currency: Currency, lines: &[DenominationCount]) -> Result<(Vec<DenominationCount>, i64), ShiftRefusal> {
    let known = denominations(currency);
    let mut seen: Vec<i64> = Vec::with_capacity(lines.len());
    for l in lines {
        if !known.contains(&l.denomination_minor) {
            return Err(ShiftRefusal::UnknownDenomination { currency, denomination_minor: l.denomination_minor });
        }
        if seen.contains(&l.denomination_minor) {
            return Err(ShiftRefusal::CountedTwice { currency, denomination_minor: l.denomination_minor });
        }
        seen.push(l.denomination_minor);
        if !(0..=MAX_PIECES_PER_DENOMINATION).contains(&l.count) {
            let (denomination_minor, count) = (l.denomination_minor, l.count);
            return Err(ShiftRefusal::PiecesOutOfRange { currency, denomination_minor, count });
        }
    }
    let mut out: Vec<DenominationCount> = Vec::new();
    let mut total: i64 = 0;
    for &d in known {
        let Some(l) = lines.iter().find(|l| l.denomination_minor == d) else { continue };
        if l.count == 0 {
            continue;
        }
        // Both factors are bounded above (10^5 pieces, 5x10^4 minor units): no overflow.
        total += d * l.count;
        out.push(*l);
    }
    if total > MAX_DRAWER_MINOR {
        return Err(ShiftRefusal::CountAboveLimit { currency, total_minor: total });
    }
    Ok((out, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(d: i64, n: i64) -> DenominationCount {
        DenominationCount { denomination_minor: d, count: n }
    }

    #[test]
    fn a_yen_float_adds_up_in_the_currency_order() {
        let (lines, total) = checked_count(Currency::Jpy, &[c(100, 50), c(10_000, 1), c(1_000, 9), c(5, 0)]).unwrap();
        assert_eq!(total, 10_000 + 9_000 + 5_000);
        assert_eq!(lines, vec![c(10_000, 1), c(1_000, 9), c(100, 50)]);
    }

    fn refusal(currency: Currency, lines: &[DenominationCount]) -> ShiftRefusal {
        match checked_count(currency, lines) {
            Err(r) => r,
            Ok(other) => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn unknown_repeated_and_negative_lines_are_refused_by_type_with_what_is_wrong() {
        let (usd, jpy) = (Currency::Usd, Currency::Jpy);
        let r = refusal(usd, &[c(300, 1)]);
        assert_eq!(r, ShiftRefusal::UnknownDenomination { currency: usd, denomination_minor: 300 });
        assert!(r.to_string().contains("300 is not a USD note or coin"), "{r}");
        assert_eq!(refusal(jpy, &[c(100, 1), c(100, 2)]), ShiftRefusal::CountedTwice { currency: jpy, denomination_minor: 100 });
        assert_eq!(refusal(jpy, &[c(100, -1)]), ShiftRefusal::PiecesOutOfRange { currency: jpy, denomination_minor: 100, count: -1 });
        let too_many = MAX_PIECES_PER_DENOMINATION + 1;
        assert_eq!(refusal(jpy, &[c(100, too_many)]), ShiftRefusal::PiecesOutOfRange { currency: jpy, denomination_minor: 100, count: too_many });
        assert!(checked_count(jpy, &[c(100, MAX_PIECES_PER_DENOMINATION)]).is_ok());
    }

    #[test]
    fn the_largest_possible_count_stays_within_the_limit_or_is_refused() {
        for currency in Currency::ALL {
            let all: Vec<_> = denominations(currency).iter().map(|&d| c(d, MAX_PIECES_PER_DENOMINATION)).collect();
            match checked_count(currency, &all) {
                Ok((_, total)) => assert!(total <= MAX_DRAWER_MINOR),
                Err(e) => assert!(matches!(e, ShiftRefusal::CountAboveLimit { total_minor, .. } if total_minor > MAX_DRAWER_MINOR), "{e}"),
            }
        }
    }
}
