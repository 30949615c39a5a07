//! Worked examples, each checked by hand in the comment beside it.

use paydesk_tax::*;

const DAY: YearMonthDay = YearMonthDay { year: 2026, month: 12, day: 1 };

fn line(unit_price: i64, quantity: u32, class: TaxClass) -> Line {
    Line { unit_price, quantity, class, discount: None }
}

fn settings(price_mode: PriceMode, rounding: Rounding) -> TaxSettings {
    TaxSettings { rates: RateTable::japan(), rounding, price_mode }
}

fn cart(lines: Vec<Line>, dining: Dining) -> Cart {
    Cart { lines, dining, sale_discount: None, date: DAY, exempt: false }
}

/// (class, rate in ppm, base, tax, gross) per rate.
fn summary(t: &SaleTax) -> Vec<(TaxClass, u32, i64, i64, i64)> {
    t.rates.iter().map(|r| (r.class, r.ppm, r.base, r.tax, r.gross)).collect()
}

#[test]
fn take_out_tax_is_per_rate_not_per_line() {
    // Tax-inclusive shelf prices, truncation, take-out: two rice balls ¥140 and a tea ¥160
    // (reduced), a magazine ¥550 (standard).
    let c = cart(
        vec![line(140, 2, TaxClass::Reduced), line(160, 1, TaxClass::Reduced), line(550, 1, TaxClass::Standard)],
        Dining::TakeOut,
    );
    let t = compute(&c, &settings(PriceMode::Inclusive, Rounding::Down)).unwrap();
    // 8 %: 440 × 8/108 = 32.59 → 32, base 408. 10 %: 550 × 10/110 = 50.
    assert_eq!(summary(&t), vec![(TaxClass::Standard, 100_000, 500, 50, 550), (TaxClass::Reduced, 80_000, 408, 32, 440)]);
    assert_eq!((t.total, t.tax_total), (990, 82));
    // Per line it would have been 280 × 8/108 = 20.7 → 20 and 160 × 8/108 = 11.9 → 11:
    // 31, not 32. The invoice rules round once per rate per invoice, as here.
    assert!(t.lines.iter().take(2).all(|l| l.is_reduced()));
}

#[test]
fn eating_in_moves_food_to_the_standard_rate() {
    let c = cart(
        vec![line(140, 2, TaxClass::Reduced), line(160, 1, TaxClass::Reduced), line(550, 1, TaxClass::Standard)],
        Dining::EatIn,
    );
    let t = compute(&c, &settings(PriceMode::Inclusive, Rounding::Down)).unwrap();
    // All 990 at 10 %: 990 × 10/110 = 90.
    assert_eq!(summary(&t), vec![(TaxClass::Standard, 100_000, 900, 90, 990)]);
    assert!(t.lines.iter().all(|l| !l.is_reduced() && l.ppm == 100_000));
}

#[test]
fn exclusive_prices_with_each_rounding_rule() {
    // ¥98 × 3 reduced = 294 → 23.52 tax; ¥123 standard → 12.3 tax; ¥500 exempt.
    let c = cart(
        vec![line(98, 3, TaxClass::Reduced), line(123, 1, TaxClass::Standard), line(500, 1, TaxClass::Exempt)],
        Dining::TakeOut,
    );
    let expect = [(Rounding::Down, 12, 23), (Rounding::HalfUp, 12, 24), (Rounding::Up, 13, 24)];
    for (rule, std_tax, red_tax) in expect {
        let t = compute(&c, &settings(PriceMode::Exclusive, rule)).unwrap();
        assert_eq!(
            summary(&t),
            vec![
                (TaxClass::Standard, 100_000, 123, std_tax, 123 + std_tax),
                (TaxClass::Reduced, 80_000, 294, red_tax, 294 + red_tax),
                (TaxClass::Exempt, 0, 500, 0, 500),
            ],
            "{rule:?}"
        );
        assert_eq!(t.total, 917 + std_tax + red_tax);
    }
}

#[test]
fn invoice_style_round_numbers() {
    // The shape of the tax office's invoice examples: 10 % goods ¥11,000 and 8 % goods
    // ¥5,400 tax-inclusive → tax ¥1,000 and ¥400.
    let c = cart(vec![line(11_000, 1, TaxClass::Standard), line(5_400, 1, TaxClass::Reduced)], Dining::TakeOut);
    for rule in [Rounding::Down, Rounding::HalfUp, Rounding::Up] {
        let t = compute(&c, &settings(PriceMode::Inclusive, rule)).unwrap();
        assert_eq!(summary(&t), vec![(TaxClass::Standard, 100_000, 10_000, 1_000, 11_000), (TaxClass::Reduced, 80_000, 5_000, 400, 5_400)]);
    }
}

#[test]
fn discounts_come_before_tax_and_the_sale_discount_is_spread_by_rule() {
    let mut c = cart(
        vec![
            // ¥700 less 10 % → 630 (discount 70).
            Line { discount: Some(Discount::Percent { basis_points: 1000 }), ..line(700, 1, TaxClass::Standard) },
            // ¥400 less ¥100 → 300.
            Line { discount: Some(Discount::Amount { amount: 100 }), ..line(200, 2, TaxClass::Reduced) },
        ],
        Dining::TakeOut,
    );
    // A percent discount rounds down: 10 % of ¥705 is 70.5 → 70.
    c.lines[0].unit_price = 705;
    c.sale_discount = Some(Discount::Amount { amount: 100 });
    let t = compute(&c, &settings(PriceMode::Inclusive, Rounding::Down)).unwrap();
    assert_eq!((t.lines[0].discount, t.lines[0].net), (70, 635));
    assert_eq!((t.lines[1].discount, t.lines[1].net), (100, 300));
    assert_eq!((t.subtotal, t.sale_discount), (935, 100));
    // 100 × 635/935 = 67.91, 100 × 300/935 = 32.09 → 67 + 32, the leftover unit to the larger
    // remainder (standard): 68 + 32.
    let shares: Vec<i64> = t.rates.iter().map(|r| r.sale_discount).collect();
    assert_eq!(shares, vec![68, 32]);
    // Standard 567 → 567/11 = 51.5 → 51; reduced 268 × 8/108 = 19.85 → 19.
    assert_eq!(summary(&t), vec![(TaxClass::Standard, 100_000, 516, 51, 567), (TaxClass::Reduced, 80_000, 249, 19, 268)]);
    assert_eq!(t.total, 835);
}

#[test]
fn a_discount_that_would_go_negative_is_a_typed_error() {
    let s = settings(PriceMode::Inclusive, Rounding::Down);
    let mut c = cart(vec![Line { discount: Some(Discount::Amount { amount: 201 }), ..line(200, 1, TaxClass::Standard) }], Dining::TakeOut);
    assert_eq!(compute(&c, &s), Err(TaxError::LineDiscountTooLarge { line: 0, discount: 201, gross: 200 }));
    c.lines[0].discount = Some(Discount::Amount { amount: -1 });
    assert_eq!(compute(&c, &s), Err(TaxError::LineDiscountTooLarge { line: 0, discount: -1, gross: 200 }));
    c.lines[0].discount = Some(Discount::Percent { basis_points: 10_001 });
    assert_eq!(compute(&c, &s), Err(TaxError::LinePercentOutOfRange { line: 0, percent_bp: 10_001 }));
    c.lines[0].discount = None;
    c.sale_discount = Some(Discount::Amount { amount: 201 });
    assert_eq!(compute(&c, &s), Err(TaxError::SaleDiscountTooLarge { discount: 201, subtotal: 200 }));
    // 100 % off is allowed and gives a zero sale, not a negative one.
    c.sale_discount = Some(Discount::Percent { basis_points: 10_000 });
    let t = compute(&c, &s).unwrap();
    assert_eq!((t.total, t.tax_total), (0, 0));
}

#[test]
fn limits_are_typed_errors() {
    let s = settings(PriceMode::Exclusive, Rounding::Down);
    let c = cart(vec![line(1, 0, TaxClass::Standard)], Dining::TakeOut);
    assert!(matches!(compute(&c, &s), Err(TaxError::QuantityOutOfRange { line: 0, quantity: 0, .. })));
    let c = cart(vec![line(-5, 1, TaxClass::Standard)], Dining::TakeOut);
    assert!(matches!(compute(&c, &s), Err(TaxError::PriceOutOfRange { line: 0, price: -5, .. })));
    let c = cart(vec![line(1, 1, TaxClass::Standard); MAX_LINES + 1], Dining::TakeOut);
    assert!(matches!(compute(&c, &s), Err(TaxError::TooManyLines { .. })));
    // The largest cart the limits allow computes without overflow.
    let c = cart(vec![line(MAX_UNIT_PRICE, MAX_QUANTITY, TaxClass::Standard); MAX_LINES], Dining::TakeOut);
    let t = compute(&c, &s).unwrap();
    assert_eq!(t.total, MAX_UNIT_PRICE * i64::from(MAX_QUANTITY) * MAX_LINES as i64 / 10 * 11);
}

#[test]
fn rates_are_data_with_effective_dates() {
    // The table a store would keep for sales on both sides of the 2019 reform, as JSON.
    let table: RateTable = serde_json::from_str(
        r#"{"entries":[
            {"class":"standard","basis_points":800,"effective_from":{"year":2014,"month":4,"day":1}},
            {"class":"standard","basis_points":1000,"effective_from":{"year":2019,"month":10,"day":1}},
            {"class":"reduced","basis_points":800,"effective_from":{"year":2019,"month":10,"day":1}},
            {"class":"exempt","basis_points":0}
        ]}"#,
    )
    .unwrap();
    let before = YearMonthDay { year: 2019, month: 9, day: 30 };
    let after = YearMonthDay { year: 2019, month: 10, day: 1 };
    // Written in basis points (as older builds stored it), read exactly as parts per million.
    assert_eq!(table.rate(TaxClass::Standard, before).map(|r| r.ppm), Ok(80_000));
    assert_eq!(table.rate(TaxClass::Standard, after).map(|r| r.ppm), Ok(100_000));
    assert_eq!(table.rate(TaxClass::Reduced, before), Err(TaxError::NoRate { class: TaxClass::Reduced, date: "2019-09-30".into() }));
    let s = TaxSettings { rates: table, rounding: Rounding::Down, price_mode: PriceMode::Exclusive };
    let mut c = cart(vec![line(1000, 1, TaxClass::Standard)], Dining::TakeOut);
    c.date = before;
    assert_eq!(compute(&c, &s).unwrap().tax_total, 80);
    c.date = after;
    assert_eq!(compute(&c, &s).unwrap().tax_total, 100);

    let mut bad = RateTable::japan();
    bad.entries.push(RateEntry { class: TaxClass::Standard, name: String::new(), ppm: 120_000, effective_from: bad.entries[0].effective_from });
    assert!(matches!(bad.validate(), Err(TaxError::BadRateTable { .. })));
}

#[test]
fn an_empty_cart_is_zero() {
    let t = compute(&cart(vec![], Dining::TakeOut), &TaxSettings::japan_default()).unwrap();
    assert_eq!((t.rates.len(), t.total, t.tax_total), (0, 0, 0));
}
