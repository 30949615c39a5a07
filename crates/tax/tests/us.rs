//! US sales tax (record 0131): rates in parts per million, several named taxes stacked in one
//! class, tax on the combined rate rounded once, split over the taxes exactly. Worked examples
//! checked by hand in the comments, then properties.

use paydesk_tax::*;
use proptest::prelude::*;

const DAY: YearMonthDay = YearMonthDay { year: 2026, month: 12, day: 4 };

fn line(unit_price: i64, quantity: u32, class: TaxClass) -> Line {
    Line { unit_price, quantity, class, discount: None }
}

fn nyc(lines: Vec<Line>) -> SaleTax {
    let c = Cart { lines, dining: Dining::TakeOut, sale_discount: None, date: DAY, exempt: false };
    compute(&c, &TaxSettings::new_york_city()).unwrap()
}

/// (name, ppm, tax) of each tax stacked in a rate.
fn parts(r: &RateResult) -> Vec<(&str, u32, i64)> {
    r.parts.iter().map(|p| (p.name.as_str(), p.ppm, p.tax)).collect()
}

#[test]
fn ten_dollars_in_new_york_city_is_89_cents_of_tax() {
    let t = nyc(vec![line(1000, 1, TaxClass::Standard)]);
    // 1000 × 88 750 / 1 000 000 = 88.75 → 89 (half up). Split by rate: 40.11, 45.13, 3.76 →
    // 40, 45, 3 and the cent left to the largest remainder, MCTD's.
    assert_eq!((t.tax_total, t.total), (89, 1089));
    assert_eq!(t.rates[0].ppm, 88_750);
    assert_eq!(parts(&t.rates[0]), vec![("NY State", 40_000, 40), ("New York City", 45_000, 45), ("MCTD", 3_750, 4)]);
    assert_eq!(percent_text(t.rates[0].ppm), "8.875");
}

#[test]
fn one_dollar_and_the_half_cent() {
    // $1.00: 8.875 → 9; split 4.06, 4.56, 0.38 → 4, 4, 0, and the cent left to the city (.56).
    let t = nyc(vec![line(100, 1, TaxClass::Standard)]);
    assert_eq!(parts(&t.rates[0]), vec![("NY State", 40_000, 4), ("New York City", 45_000, 5), ("MCTD", 3_750, 0)]);
    // $4.00: exactly 35.5 cents. Half up gives 36, truncation 35.
    let c = Cart { lines: vec![line(400, 1, TaxClass::Standard)], dining: Dining::TakeOut, sale_discount: None, date: DAY, exempt: false };
    assert_eq!(compute(&c, &TaxSettings::new_york_city()).unwrap().tax_total, 36);
    let down = TaxSettings { rounding: Rounding::Down, ..TaxSettings::new_york_city() };
    assert_eq!(compute(&c, &down).unwrap().tax_total, 35);
}

#[test]
fn a_cart_of_several_lines_is_taxed_once_on_the_taxable_total() {
    // Two mugs $12.99, a T-shirt $19.99 (taxable), coffee beans $14.50 (grocery food: 0 %).
    let t = nyc(vec![line(1299, 2, TaxClass::Standard), line(1999, 1, TaxClass::Standard), line(1450, 1, TaxClass::Reduced)]);
    // Taxable 2598 + 1999 = 4597; × 8.875 % = 407.98 → 408. Food 1450 at 0 %.
    let summary: Vec<_> = t.rates.iter().map(|r| (r.class, r.ppm, r.base, r.tax, r.gross)).collect();
    assert_eq!(summary, vec![(TaxClass::Standard, 88_750, 4597, 408, 5005), (TaxClass::Reduced, 0, 1450, 0, 1450)]);
    assert_eq!((t.subtotal, t.tax_total, t.total), (6047, 408, 6455));
    // 408 split: 183.89, 206.87, 17.24 → 183, 206, 17 (406); the two cents left go to the two
    // largest remainders, the state's and the city's.
    assert_eq!(parts(&t.rates[0]), vec![("NY State", 40_000, 184), ("New York City", 45_000, 207), ("MCTD", 3_750, 17)]);
    assert_eq!(t.rates[1].parts, vec![TaxPart { name: "Grocery food".into(), ppm: 0, tax: 0 }]);
}

#[test]
fn a_sale_discount_lowers_the_taxable_amount_before_tax() {
    let c = Cart {
        lines: vec![line(1299, 2, TaxClass::Standard), line(1999, 1, TaxClass::Standard), line(1450, 1, TaxClass::Reduced)],
        dining: Dining::TakeOut,
        sale_discount: Some(Discount::Percent { basis_points: 1_000 }),
        date: DAY,
        exempt: false,
    };
    let t = compute(&c, &TaxSettings::new_york_city()).unwrap();
    // 10 % of 6047 = 604.7 → 604 (never more than 10 %). Spread 4597:1450 → 459.17 / 144.83:
    // 459 and 145 (the larger remainder). Taxable 4597 − 459 = 4138 × 8.875 % = 367.25 → 367.
    assert_eq!(t.sale_discount, 604);
    assert_eq!((t.rates[0].base, t.rates[0].tax, t.rates[1].base), (4138, 367, 1305));
    assert_eq!((t.tax_total, t.total), (367, 4138 + 367 + 1305));
    assert_eq!(t.rates[0].parts.iter().map(|p| p.tax).sum::<i64>(), 367);
}

#[test]
fn rates_print_with_the_decimals_they_need() {
    let cases = [(100_000, "10"), (80_000, "8"), (88_750, "8.875"), (45_000, "4.5"), (3_750, "0.375"), (0, "0"), (1, "0.0001"), (1_000_000, "100")];
    for (ppm, text) in cases {
        assert_eq!(percent_text(ppm), text, "{ppm} ppm");
    }
}

#[test]
fn stacked_rates_are_checked() {
    let mut t = RateTable::new_york_city();
    assert_eq!(t.validate(), Ok(()));
    // The same tax twice on one day would count it twice.
    let again = t.entries[0].clone();
    t.entries.push(again);
    assert!(matches!(t.validate(), Err(TaxError::BadRateTable { .. })));
    // Rows of one day adding up to over 100 %.
    let mut t = RateTable::new_york_city();
    t.entries[0].ppm = 960_000;
    assert!(matches!(t.validate(), Err(TaxError::BadRateTable { .. })));
    // A name that does not fit a receipt line.
    let mut t = RateTable::new_york_city();
    t.entries[0].name = "x".repeat(MAX_RATE_NAME_CHARS + 1);
    assert!(matches!(t.validate(), Err(TaxError::BadRateTable { .. })));
    // A later day's rows replace the earlier day's, they do not stack on them.
    let mut t = RateTable::new_york_city();
    let later = Some(YearMonthDay { year: 2027, month: 3, day: 1 });
    t.entries.push(RateEntry { class: TaxClass::Standard, name: "NY State".into(), ppm: 50_000, effective_from: later });
    assert_eq!(t.rate(TaxClass::Standard, DAY).unwrap().ppm, 88_750);
    assert_eq!(t.rate(TaxClass::Standard, YearMonthDay { year: 2027, month: 3, day: 1 }).unwrap().parts, vec![("NY State".to_string(), 50_000)]);
}

#[test]
fn an_older_builds_tax_document_still_reads() {
    // A locked tax of a build that wrote basis points and no parts.
    let old = r#"{"class":"standard","basis_points":1000,"lines_net":1100,"sale_discount":0,"base":1000,"tax":100,"gross":1100}"#;
    let r: RateResult = serde_json::from_str(old).unwrap();
    assert_eq!((r.ppm, r.parts.clone()), (100_000, vec![TaxPart { name: String::new(), ppm: 100_000, tax: 100 }]));
    let l: LineResult = serde_json::from_str(r#"{"gross":1100,"discount":0,"net":1100,"class":"standard","basis_points":800}"#).unwrap();
    assert_eq!(l.ppm, 80_000);
    // And what this build writes reads back as itself.
    let back: RateResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
    // Both units at once is a contradiction, not a choice.
    assert!(serde_json::from_str::<RateEntry>(r#"{"class":"standard","ppm":1,"basis_points":1}"#).is_err());
}

/// A table of 1–4 named taxes stacked on the standard class, adding up to at most 100 %.
fn stacked() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(0u32..=250_000, 1..=4)
}

/// With several taxes stacked the parts add up to the rate's tax exactly, each part is
/// between 0 and the tax, and the tax is what one row at the summed rate gives, under every
/// rounding rule and price mode.
#[test]
fn stacked_parts_add_up_to_the_tax_of_the_summed_rate() {
    let reached = std::sync::atomic::AtomicU32::new(0);
    let modes = (
        prop_oneof![Just(PriceMode::Inclusive), Just(PriceMode::Exclusive)],
        prop_oneof![Just(Rounding::Down), Just(Rounding::HalfUp), Just(Rounding::Up)],
    );
    proptest!(ProptestConfig { cases: 3_000, .. ProptestConfig::default() }, |(c in crate::props::cart(), ppms in stacked(), (price_mode, rounding) in modes)| {
        let mut entries: Vec<RateEntry> = ppms
            .iter()
            .enumerate()
            .map(|(i, ppm)| RateEntry { class: TaxClass::Standard, name: format!("tax {i}"), ppm: *ppm, effective_from: None })
            .collect();
        let sum: u32 = ppms.iter().sum();
        entries.push(RateEntry { class: TaxClass::Reduced, name: String::new(), ppm: 80_000, effective_from: None });
        entries.push(RateEntry { class: TaxClass::Exempt, name: String::new(), ppm: 0, effective_from: None });
        let one = vec![RateEntry { class: TaxClass::Standard, name: String::new(), ppm: sum, effective_from: None }];
        let single = TaxSettings { rates: RateTable { entries: [one, entries[ppms.len()..].to_vec()].concat() }, rounding, price_mode };
        let multi = TaxSettings { rates: RateTable { entries }, rounding, price_mode };
        let (Ok(m), Ok(s)) = (compute(&c, &multi), compute(&c, &single)) else {
            // Either both refuse the cart or neither does: the rates play no part in refusing.
            prop_assert_eq!(compute(&c, &multi).is_err(), compute(&c, &single).is_err());
            return Ok(());
        };
        prop_assert_eq!(m.tax_total, s.tax_total);
        prop_assert_eq!(m.total, s.total);
        for (r, one) in m.rates.iter().zip(&s.rates) {
            prop_assert_eq!((r.ppm, r.base, r.tax, r.gross), (one.ppm, one.base, one.tax, one.gross));
            prop_assert_eq!(r.parts.iter().map(|p| p.tax).sum::<i64>(), r.tax);
            prop_assert!(r.parts.iter().all(|p| p.tax >= 0 && p.tax <= r.tax));
            if r.class == TaxClass::Standard {
                prop_assert_eq!(r.parts.len(), ppms.len());
                // Each part is within one cent of its exact share of the tax.
                for p in &r.parts {
                    if sum > 0 {
                        let exact = i128::from(r.tax) * i128::from(p.ppm);
                        let got = i128::from(p.tax) * i128::from(sum);
                        prop_assert!((got - exact).abs() < i128::from(sum), "{:?} of {}", p, r.tax);
                    }
                }
                reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    });
    let n = reached.into_inner();
    println!("stacked_parts_add_up_to_the_tax_of_the_summed_rate: {n} standard rates reached the assertions");
    assert!(n >= 500, "only {n} standard rates reached the assertions");
}

/// A tax-exempt sale (record 0135): a resale certificate or a diplomat's card exempts the
/// whole sale, whatever each item's class.
#[test]
fn an_exempt_new_york_city_cart_bears_no_tax_and_its_total_is_its_subtotal() {
    // Two coffees $2.50 (taxable), a sandwich $8.95 (prepared food: taxable), a bagel $2.75.
    let lines = vec![line(250, 2, TaxClass::Standard), line(895, 1, TaxClass::Standard), line(275, 1, TaxClass::Reduced)];
    let taxed = nyc(lines.clone());
    assert_eq!((taxed.tax_total, taxed.exempt), (124, false), "1395 × 8.875 % = 123.8 → 124 without the exemption");
    let c = Cart { lines, dining: Dining::TakeOut, sale_discount: Some(Discount::Amount { amount: 70 }), date: DAY, exempt: true };
    let t = compute(&c, &TaxSettings::new_york_city()).unwrap();
    assert!(t.exempt);
    assert_eq!((t.subtotal, t.sale_discount, t.tax_total, t.total), (1670, 70, 0, 1600));
    // One group: the exempt class at 0 %, holding every line, whatever its own class.
    let rates: Vec<_> = t.rates.iter().map(|r| (r.class, r.ppm, r.base, r.tax, r.gross)).collect();
    assert_eq!(rates, [(TaxClass::Exempt, 0, 1600, 0, 1600)]);
    assert!(t.lines.iter().all(|l| l.class == TaxClass::Exempt && l.ppm == 0 && !l.is_reduced()));
    assert_eq!(t.rates[0].parts.iter().map(|p| p.tax).sum::<i64>(), 0);
    // Eating in changes nothing for an exempt sale.
    let eat_in = compute(&Cart { dining: Dining::EatIn, ..c.clone() }, &TaxSettings::new_york_city()).unwrap();
    assert_eq!(eat_in.total, 1600);
    // The flag survives the locked document's JSON, and JSON without it is not exempt.
    let back: SaleTax = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    assert_eq!(back, t);
    let mut old = serde_json::to_value(&taxed).unwrap();
    old.as_object_mut().unwrap().remove("exempt");
    assert!(!serde_json::from_value::<SaleTax>(old).unwrap().exempt);
}

#[test]
fn a_return_from_an_exempt_sale_refunds_no_tax() {
    let c = Cart {
        lines: vec![line(250, 2, TaxClass::Standard), line(895, 1, TaxClass::Standard)],
        dining: Dining::TakeOut,
        sale_discount: None,
        date: DAY,
        exempt: true,
    };
    let r = return_tax(&c, &TaxSettings::new_york_city(), &[0, 0], &[Returned { line: 1, quantity: 1 }]).unwrap();
    assert_eq!((r.tax_total, r.total), (0, 895));
    let taxed = return_tax(&Cart { exempt: false, ..c }, &TaxSettings::new_york_city(), &[0, 0], &[Returned { line: 1, quantity: 1 }]).unwrap();
    // Taxed, the return is the sale's worth before less after: 124 − 44 (500 × 8.875 % = 44.4).
    assert_eq!((taxed.tax_total, taxed.total), (80, 975));
}
