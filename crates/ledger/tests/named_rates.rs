//! Named rates in parts per million (record 0131, schema v29): a New York City sale taxed at
//! 8.875 % with its three taxes, and the upgrade from the version before, which converts the
//! rate table and the returns' rates exactly and keeps a tax locked in basis points readable.

use crate::common::{self, before_named_rates};
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_receipt::{build_receipt, render_text, Paper};
use paydesk_tax::{RateTable, TaxClass};

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

fn paid(l: &mut Ledger, currency: Currency, skus: &[(&str, i64)], at: i64) -> CartId {
    let cart = l.carts_mut().create(currency, at).unwrap();
    for (sku, n) in skus {
        l.carts_mut().add(cart, sku, *n, at).unwrap();
    }
    let total = l.sales().by_cart(cart).unwrap().cart.total.amount_minor;
    l.sales_mut().pay_cash(cart, total, None, at + 1).unwrap();
    cart
}

fn one(l: &Ledger, sql: &str) -> String {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_new_york_city_sale_is_taxed_at_8_875_percent_and_its_receipt_names_the_taxes() {
    let mut l = common::mem();
    l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, AT).unwrap();
    // Two coffees $2.50 (taxable), a bagel $2.75 (grocery food to go: 0 %), a mug $14.95.
    let cart = paid(&mut l, Currency::Usd, &[("COF-001", 2), ("BAG-001", 1), ("MUG-001", 1)], AT);
    let sale = l.sales().by_cart(cart).unwrap();
    let tax = sale.cart.tax.as_ref().unwrap();
    // Taxable 500 + 1495 = 1995 × 8.875 % = 177.06 → 177; the bagel 275 untaxed.
    let rates: Vec<_> = tax.rates.iter().map(|r| (r.class, r.ppm, r.base, r.tax)).collect();
    assert_eq!(rates, [(TaxClass::Standard, 88_750, 1995, 177), (TaxClass::Reduced, 0, 275, 0)]);
    assert_eq!((tax.tax_total, tax.total, sale.cart.total.amount_minor), (177, 2447, 2447));
    // 177 split 4 : 4.5 : 0.375 → 79.77, 89.75, 7.48: 79, 89, 7 and the two cents left to the
    // largest remainders (the state's .77, the city's .75).
    let parts: Vec<_> = tax.rates[0].parts.iter().map(|p| (p.name.as_str(), p.tax)).collect();
    assert_eq!(parts, [("NY State", 80), ("New York City", 90), ("MCTD", 7)]);

    let (data, settings) = l.receipts().data(cart).unwrap();
    let text = render_text(&build_receipt(&data, &settings, false).unwrap(), Paper::Mm80).join("\n");
    for want in ["Taxable 8.875% excl. tax", "NY State 4%", "New York City 4.5%", "MCTD 0.375%", "$0.80", "$0.90", "$0.07", "$1.77", "$24.47"] {
        assert!(text.contains(want), "{want:?} not on the receipt:\n{text}");
    }
    // No ※: a class taxed at 0 % is not a reduced rate; the bagel is listed as not taxed.
    assert!(!text.contains('※'), "{text}");
    // The back office hears the rate in ppm, and the tax setup with its names.
    let fact = one(&l, "SELECT fact FROM outbox WHERE json_extract(fact, '$.kind') = 'sale_completed' ORDER BY seq DESC LIMIT 1");
    assert!(fact.contains(r#"{"class":"standard","ppm":88750,"base":1995,"tax":177,"gross":2172}"#), "{fact}");
    let setup = one(&l, "SELECT fact FROM local_tax_facts");
    assert!(setup.contains(r#"{"class":"standard","name":"New York City","ppm":45000,"effective_from":"2009-08-01"}"#), "{setup}");
}

#[test]
fn the_upgrade_converts_rates_exactly_and_an_old_locked_tax_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v28.db");
    let (cart, open, receipt_before) = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, AT).unwrap();
        let cart = paid(&mut l, Currency::Jpy, &[("MUG-001", 1), ("TEA-001", 2)], AT);
        l.returns_mut().take_back(cart, &[paydesk_tax::Returned { line: 0, quantity: 1 }], None, false, AT + 5).unwrap();
        // A cart locked by its first tender, not yet paid: its tax is re-read at the next one.
        let open = l.carts_mut().create(Currency::Jpy, AT + 6).unwrap();
        l.carts_mut().add(open, "COF-001", 3, AT + 6).unwrap();
        l.sales_mut().pay_cash(open, 100, None, AT + 7).unwrap();
        let (data, settings) = l.receipts().data(cart).unwrap();
        (cart, open, render_text(&build_receipt(&data, &settings, false).unwrap(), Paper::Mm80))
    };
    {
        // The file as the build before left it, with one more rate row from an older day.
        let c = rusqlite::Connection::open(&path).unwrap();
        common::undo_named_rates(&c);
        c.execute_batch(&format!(
            "INSERT INTO tax_rates (class, basis_points, effective_from) VALUES ('standard', 800, '2014-04-01');
             PRAGMA user_version = {};",
            before_named_rates()
        ))
        .unwrap();
        let locked: String = c.query_row("SELECT tax_locked FROM carts WHERE id = ?1", [cart.0], |r| r.get(0)).unwrap();
        assert!(locked.contains(r#""basis_points":1000"#) && !locked.contains("ppm"), "{locked}");
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    // Every row converted × 100, in its order, unnamed.
    let mut want = RateTable::japan();
    want.entries.push(paydesk_tax::RateEntry {
        class: TaxClass::Standard,
        name: String::new(),
        ppm: 80_000,
        effective_from: Some(paydesk_tax::YearMonthDay { year: 2014, month: 4, day: 1 }),
    });
    assert_eq!(l.catalog().tax_settings().unwrap().rates, want);
    assert_eq!(one(&l, "SELECT group_concat(class || ':' || ppm, ',') FROM return_rates"), "standard:100000");
    // The sale locked in basis points reads as it did: the same receipt, line for line.
    let sale = l.sales().by_cart(cart).unwrap();
    let rates: Vec<_> = sale.cart.tax.as_ref().unwrap().rates.iter().map(|r| (r.ppm, r.tax)).collect();
    assert_eq!(rates, [(100_000, 150), (80_000, 23)]);
    let (data, settings) = l.receipts().data(cart).unwrap();
    assert_eq!(render_text(&build_receipt(&data, &settings, false).unwrap(), Paper::Mm80), receipt_before);
    // Its fact (built by the new view from the old JSON) says ppm.
    let fact = one(&l, &format!("SELECT fact FROM sale_completed_facts WHERE cart_id = {}", cart.0));
    assert!(fact.contains(r#""rates":[{"class":"standard","ppm":100000,"#), "{fact}");
    // The rest of it comes back at the rate it was sold at; the locked open cart is paid.
    let plan = l.returns_mut().take_back(cart, &[paydesk_tax::Returned { line: 1, quantity: 2 }], None, false, AT + 20).unwrap();
    assert_eq!(plan.record.rates.iter().map(|r| (r.class, r.ppm)).collect::<Vec<_>>(), [(TaxClass::Reduced, 80_000)]);
    let left = l.sales().by_cart(open).unwrap().cart.total.amount_minor - 100;
    l.sales_mut().pay_cash(open, left, None, AT + 21).unwrap();
    assert!(l.audit().verify(None).unwrap().is_intact());
}
