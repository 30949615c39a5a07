//! Weighed lines' amounts (record 0134) against a reference without the crate's rounding:
//! the nearest whole minor unit to the exact rational `rate × grams / per_grams`, a tie
//! going up, found by comparing exact products.

use paydesk_tax::*;
use proptest::prelude::*;

const DAY: YearMonthDay = YearMonthDay { year: 2026, month: 12, day: 1 };

fn weighed() -> impl Strategy<Value = SaleUnit> {
    prop_oneof![Just(SaleUnit::Kilogram), Just(SaleUnit::HundredGrams)]
}

/// The nearest integer to `num / den`, ties up: `a` with |a·den − num| ≤ den/2, the higher
/// of two at a tie (searched, not divided).
fn nearest_ties_up(num: i128, den: i128) -> i128 {
    let mut a = num / den;
    while 2 * (a * den - num) <= -den {
        a += 1;
    }
    while 2 * (a * den - num) > den {
        a -= 1;
    }
    a
}

proptest! {
    #[test]
    fn the_amount_is_the_exact_price_rounded_half_up_never_negative_and_monotone(
        rate in 0i64..=2_000_000, grams in MIN_GRAMS..MAX_GRAMS, unit in weighed(),
    ) {
        let a = weighed_amount(rate, grams, unit).unwrap();
        let per = i128::from(unit.per_grams().unwrap());
        prop_assert!(a >= 0);
        prop_assert_eq!(i128::from(a), nearest_ties_up(i128::from(rate) * i128::from(grams), per));
        let heavier = weighed_amount(rate, grams + 1, unit).unwrap();
        prop_assert!(heavier >= a, "{} g: {}, {} g: {}", grams, a, grams + 1, heavier);
    }

    /// A sale of weighed lines is taxed on their amounts: the lines' gross are the amounts,
    /// and they add up to the sale's rates' line totals, in both price modes.
    #[test]
    fn weighed_lines_add_up_to_the_subtotal_through_tax(
        lines in prop::collection::vec((1i64..=50_000, MIN_GRAMS..=MAX_GRAMS, weighed(), any::<bool>()), 1..8),
        inclusive in any::<bool>(),
    ) {
        let amounts: Vec<i64> = lines.iter().map(|(r, g, u, _)| weighed_amount(*r, *g, *u).unwrap()).collect();
        let cart = Cart {
            lines: lines.iter().zip(&amounts).map(|((_, _, _, reduced), a)| Line {
                unit_price: *a,
                quantity: 1,
                class: if *reduced { TaxClass::Reduced } else { TaxClass::Standard },
                discount: None,
            }).collect(),
            dining: Dining::TakeOut,
            sale_discount: None,
            date: DAY,
            exempt: false,
        };
        let price_mode = if inclusive { PriceMode::Inclusive } else { PriceMode::Exclusive };
        let settings = TaxSettings { price_mode, ..TaxSettings::japan_default() };
        let tax = compute(&cart, &settings).unwrap();
        let sum: i64 = amounts.iter().sum();
        prop_assert_eq!(tax.lines.iter().map(|l| l.gross).collect::<Vec<_>>(), amounts.clone());
        prop_assert_eq!(tax.subtotal, sum);
        prop_assert_eq!(tax.rates.iter().map(|r| r.lines_net).sum::<i64>(), sum);
        let expected_total = if inclusive { sum } else { sum + tax.tax_total };
        prop_assert_eq!(tax.total, expected_total);
    }
}
