//! A sale paid in two periods (record 0138): cash before the store's midnight, the rest
//! after it. Each tender's money stays in the day it was taken, but the sale, its tax by
//! rate and its exempt line are counted once, in the day of its first counted tender, so
//! two days' figures add up to the figures of both together.

use crate::common;
use paydesk_domain::*;
use paydesk_ledger::ledger::store_day_start;
use paydesk_ledger::*;
use paydesk_tax::TaxClass;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC: 19:00 on Nov 30 in New York
const MINUTE: i64 = 60_000;

/// (sale count, sales, tax per rate as (class, ppm, tax)) of the period.
fn figures(l: &Ledger, period: Period) -> (i64, i64, Vec<(TaxClass, u32, i64)>) {
    let (k, _) = l.sales().takings(Currency::Usd, period).unwrap();
    (k.sale_count, k.sales_minor, k.tax_rates.iter().map(|r| (r.class, r.ppm, r.tax_minor)).collect())
}

#[test]
fn a_sale_paid_across_midnight_is_one_sale_of_the_day_it_began_and_days_add_up() {
    let mut l = common::mem();
    l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, AT).unwrap();
    let store = l.catalog().store_settings().unwrap();
    let nov_30 = store_day_start(AT, &store);
    let dec_1 = nov_30 + 24 * 60 * MINUTE; // no clock change between
    assert_eq!(store_day_start(dec_1 + MINUTE, &store), dec_1);

    // Two coffees ($5.00 + $0.44 tax) and a bagel ($2.75, grocery food): $8.19, rung up
    // and part-paid at 23:59, the rest paid at 00:01.
    let cart = l.carts_mut().create(Currency::Usd, dec_1 - 2 * MINUTE).unwrap();
    l.carts_mut().add(cart, "COF-001", 2, dec_1 - 2 * MINUTE).unwrap();
    l.carts_mut().add(cart, "BAG-001", 1, dec_1 - 2 * MINUTE).unwrap();
    assert_eq!(l.carts().by_id(cart).unwrap().total.amount_minor, 819);
    l.sales_mut().pay_cash(cart, 500, None, dec_1 - MINUTE).unwrap();
    // A sale of Dec 1 only: one coffee, $2.72.
    let later = l.carts_mut().create(Currency::Usd, dec_1).unwrap();
    l.carts_mut().add(later, "COF-001", 1, dec_1).unwrap();
    l.sales_mut().pay_cash(later, 272, None, dec_1 + 30 * 1000).unwrap();
    assert_eq!(l.sales_mut().pay_cash(cart, 319, None, dec_1 + MINUTE).unwrap().sale.state, SaleState::Paid);

    let both = figures(&l, Period::Since(nov_30));
    assert_eq!(both, (2, 819 + 272, vec![(TaxClass::Standard, 88_750, 44 + 22), (TaxClass::Reduced, 0, 0)]));
    // Dec 1: the $3.19 taken then, but neither the split sale nor its tax.
    let dec = figures(&l, Period::Since(dec_1));
    assert_eq!(dec, (1, 319 + 272, vec![(TaxClass::Standard, 88_750, 22)]));
    // Nov 30 is both days less Dec 1: one sale, its $5.00 and its whole tax.
    assert_eq!((both.0 - dec.0, both.1 - dec.1, both.2[0].2 - dec.2[0].2), (1, 500, 44));

    // A sale paid in two tenders within one day is that day's one sale.
    let fresh = l.carts_mut().create(Currency::Usd, dec_1 + 2 * MINUTE).unwrap();
    l.carts_mut().add(fresh, "MUG-001", 1, dec_1 + 2 * MINUTE).unwrap();
    l.sales_mut().pay_cash(fresh, 1_000, None, dec_1 + 3 * MINUTE).unwrap();
    l.sales_mut().pay_cash(fresh, 1_000, None, dec_1 + 4 * MINUTE).unwrap();
    let dec = figures(&l, Period::Since(dec_1));
    assert_eq!((dec.0, dec.1), (2, 319 + 272 + 1_628), "the mug's two tenders are one sale of Dec 1");
    assert!(l.audit().verify(None).unwrap().is_intact());
}
