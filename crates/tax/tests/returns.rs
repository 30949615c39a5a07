//! Returns (issue #29, record 0113): worked examples a cashier would check by hand, what is
//! refused, and properties over random sales returned in random pieces: no rate ever gives
//! back a negative amount, the pieces never add up to more than the sale, and all of them
//! add up to exactly the sale, per rate.

use paydesk_tax::*;
use proptest::prelude::*;

use crate::props::class;

const DAY: YearMonthDay = YearMonthDay { year: 2026, month: 12, day: 4 };

fn line(unit_price: i64, quantity: u32, class: TaxClass, discount: Option<Discount>) -> Line {
    Line { unit_price, quantity, class, discount }
}

fn cart(lines: Vec<Line>, sale_discount: Option<Discount>) -> Cart {
    Cart { lines, dining: Dining::TakeOut, sale_discount, date: DAY, exempt: false }
}

fn parts(r: &ReturnTax) -> Vec<(TaxClass, i64, i64)> {
    r.rates.iter().map(|x| (x.class, x.gross, x.tax)).collect()
}

#[test]
fn a_take_out_food_line_comes_back_at_8_percent() {
    // A bento (reduced, take-out) ¥540 and a magazine ¥550; the bento comes back.
    let c = cart(vec![line(540, 1, TaxClass::Reduced, None), line(550, 1, TaxClass::Standard, None)], None);
    let r = return_tax(&c, &TaxSettings::japan_default(), &[0, 0], &[Returned { line: 0, quantity: 1 }]).unwrap();
    assert_eq!(parts(&r), vec![(TaxClass::Reduced, 540, 40)], "¥540 with ¥40 of 8 % tax, and nothing at 10 %");
    assert_eq!((r.total, r.tax_total), (540, 40));
    assert_eq!(r.lines, vec![ReturnedLine { line: 0, quantity: 1, class: TaxClass::Reduced, net: 540 }]);
}

#[test]
fn a_discount_given_to_the_sale_comes_back_with_the_items_in_proportion() {
    // ¥3,300 of standard items (3 × ¥1,100) with ¥300 off the sale: ¥3,000 paid.
    let c = cart(vec![line(1_100, 3, TaxClass::Standard, None)], Some(Discount::Amount { amount: 300 }));
    let s = TaxSettings::japan_default();
    assert_eq!(compute(&c, &s).unwrap().total, 3_000);
    let one = return_tax(&c, &s, &[0], &[Returned { line: 0, quantity: 1 }]).unwrap();
    assert_eq!(one.total, 1_000, "one of three gives back a third of what was paid");
    let two = return_tax(&c, &s, &[1], &[Returned { line: 0, quantity: 2 }]).unwrap();
    assert_eq!(one.total + two.total, 3_000, "all of it gives back exactly what was paid");
    assert_eq!(one.tax_total + two.tax_total, compute(&c, &s).unwrap().tax_total);
}

#[test]
fn a_line_discount_shrinks_with_the_quantity_kept() {
    // 4 × ¥500 with ¥100 off the line and 10 % off another line of 2 × ¥300.
    let c = cart(
        vec![line(500, 4, TaxClass::Standard, Some(Discount::Amount { amount: 100 })), line(300, 2, TaxClass::Standard, Some(Discount::Percent { basis_points: 1_000 }))],
        None,
    );
    let s = TaxSettings::japan_default();
    let r = return_tax(&c, &s, &[0, 0], &[Returned { line: 0, quantity: 1 }, Returned { line: 1, quantity: 1 }]).unwrap();
    // Line 0 keeps 3 of 4: its ¥100 off becomes ¥75, so ¥500 − ¥25 comes back; line 1 keeps
    // ¥300 − ¥30, so ¥270 comes back.
    assert_eq!(r.lines.iter().map(|l| l.net).collect::<Vec<_>>(), vec![475, 270]);
    assert_eq!(r.total, 745);
}

#[test]
fn what_was_not_sold_or_is_already_back_is_refused() {
    let c = cart(vec![line(100, 2, TaxClass::Standard, None)], None);
    let s = TaxSettings::japan_default();
    let ret = |before: &[u32], now: &[Returned]| return_tax(&c, &s, before, now).unwrap_err();
    let one = |line, quantity| Returned { line, quantity };
    assert_eq!(ret(&[1], &[one(0, 2)]), TaxError::ReturnBeyondSold { line: 0, sold: 2, returned: 1, asked: 2 });
    assert_eq!(ret(&[2], &[one(0, 1)]), TaxError::ReturnBeyondSold { line: 0, sold: 2, returned: 2, asked: 1 });
    assert_eq!(ret(&[0], &[one(0, 0)]), TaxError::ReturnBeyondSold { line: 0, sold: 2, returned: 0, asked: 0 });
    assert_eq!(ret(&[0], &[one(1, 1)]), TaxError::ReturnUnknownLine { line: 1, lines: 1 });
    assert_eq!(ret(&[0], &[one(0, 1), one(0, 1)]), TaxError::ReturnLineTwice { line: 0 });
    assert_eq!(ret(&[], &[one(0, 1)]), TaxError::ReturnLinesMismatch { lines: 1, given: 0 });
    assert_eq!(ret(&[3], &[one(0, 1)]), TaxError::ReturnBeyondSold { line: 0, sold: 2, returned: 3, asked: 0 });
}

/// Valid discounts only: a sale that cannot be priced is not returned.
fn discount(scale: i64) -> impl Strategy<Value = Option<Discount>> {
    prop_oneof![
        2 => Just(None),
        1 => (0u32..=10_000).prop_map(|bp| Some(Discount::Percent { basis_points: bp })),
        1 => (0..=scale).prop_map(|a| Some(Discount::Amount { amount: a })),
    ]
}

/// A sale and an order of returning all of it: for each step, (line, quantity) pieces.
fn sale_and_returns() -> impl Strategy<Value = (Cart, TaxSettings, Vec<Vec<Returned>>)> {
    let lines = prop::collection::vec((1i64..=20_000, 1u32..=6, class(), discount(5_000)), 1..7);
    let settings = (
        prop_oneof![Just(PriceMode::Inclusive), Just(PriceMode::Exclusive)],
        prop_oneof![Just(Rounding::Down), Just(Rounding::HalfUp), Just(Rounding::Up)],
    )
        .prop_map(|(price_mode, rounding)| TaxSettings { rates: RateTable::japan(), rounding, price_mode });
    (lines, prop_oneof![Just(Dining::EatIn), Just(Dining::TakeOut)], discount(30_000), settings, any::<u64>()).prop_map(
        |(raw, dining, sale_discount, settings, seed)| {
            // A line discount never larger than its line; a sale discount never larger than
            // the sale (compute refuses those; they are checked in props.rs).
            let lines: Vec<Line> = raw
                .into_iter()
                .map(|(p, q, c, d)| {
                    let gross = p * i64::from(q);
                    let d = d.map(|d| match d {
                        Discount::Amount { amount } => Discount::Amount { amount: amount.min(gross) },
                        percent => percent,
                    });
                    line(p, q, c, d)
                })
                .collect();
            let mut c = Cart { lines, dining, sale_discount: None, date: DAY, exempt: false };
            let subtotal = compute(&c, &settings).map(|t| t.subtotal).unwrap_or(0);
            c.sale_discount = sale_discount.map(|d| match d {
                Discount::Amount { amount } => Discount::Amount { amount: amount.min(subtotal) },
                percent => percent,
            });
            // Every unit of every line, returned in 1 to 4 steps chosen by the seed.
            let mut steps: Vec<Vec<Returned>> = vec![Vec::new(); 1 + (seed % 4) as usize];
            let n = steps.len();
            for (i, l) in c.lines.iter().enumerate() {
                let mut left = l.quantity;
                let mut k = (seed >> (i * 3)) as usize;
                while left > 0 {
                    let take = 1 + (k as u32 % left);
                    let step = &mut steps[k % n];
                    match step.iter_mut().find(|r| r.line == i) {
                        Some(r) => r.quantity += take,
                        None => step.push(Returned { line: i, quantity: take }),
                    }
                    left -= take;
                    k = k.wrapping_mul(31).wrapping_add(7);
                }
            }
            steps.retain(|s| !s.is_empty());
            (c, settings, steps)
        },
    )
}

#[test]
fn returns_never_give_back_more_than_the_sale_and_all_of_them_give_back_exactly_the_sale() {
    let reached = std::sync::atomic::AtomicU32::new(0);
    proptest!(ProptestConfig { cases: 3_000, .. ProptestConfig::default() }, |((c, s, steps) in sale_and_returns())| {
        let sale = compute(&c, &s).expect("a valid sale");
        let mut before = vec![0u32; c.lines.len()];
        let mut back: Vec<(TaxClass, i64, i64, i64)> = sale.rates.iter().map(|r| (r.class, 0, 0, 0)).collect();
        for step in &steps {
            let r = return_tax(&c, &s, &before, step).expect("within what was sold");
            for part in &r.rates {
                prop_assert!(part.base >= 0 && part.tax >= 0 && part.gross >= 0, "{part:?}");
                prop_assert_eq!(part.base + part.tax, part.gross);
                let b = back.iter_mut().find(|b| b.0 == part.class).expect("a rate of the sale");
                b.1 += part.base;
                b.2 += part.tax;
                b.3 += part.gross;
            }
            prop_assert_eq!(r.total, r.rates.iter().map(|x| x.gross).sum::<i64>());
            for (b, rate) in back.iter().zip(&sale.rates) {
                prop_assert!(b.3 <= rate.gross && b.2 <= rate.tax, "more back than paid at {:?}: {b:?} of {rate:?}", rate.class);
            }
            for x in step {
                before[x.line] += x.quantity;
            }
        }
        let sold: Vec<(TaxClass, i64, i64, i64)> = sale.rates.iter().map(|r| (r.class, r.base, r.tax, r.gross)).collect();
        prop_assert_eq!(back, sold, "everything back gives back exactly the sale, per rate");
        // And nothing more can come back.
        let more = return_tax(&c, &s, &before, &[Returned { line: 0, quantity: 1 }]);
        prop_assert!(
            matches!(more, Err(TaxError::ReturnBeyondSold { .. })),
            "a unit returned twice was not refused: {more:?}"
        );
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let n = reached.into_inner();
    println!("returns add up: {n} cases reached the assertions");
    assert!(n >= 3_000, "only {n} cases reached the assertions, at least 3000 expected");
}
