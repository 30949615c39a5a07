//! Cart lines with their own identity (issue #30, record 0126, schema v26): a department
//! key rung twice at two typed prices is two lines of one sale; an item scanned twice is
//! still one line; a price label is its own line; an open price above the store's limit
//! needs (and audits) an approver; returns name the line, and SQLite refuses more back
//! of a line than it sold; the sale fact lists every line; the upgrade from v25 numbers
//! old lines in their SKU order and keeps an old return's meaning.

use paydesk_domain::*;
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_ledger::*;
use paydesk_tax::Returned;
use proptest::prelude::*;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

fn store(locale: DemoLocale) -> Ledger {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(11))).unwrap();
    l.catalog_mut().seed_demo_store(locale, None, 1).unwrap();
    l
}

fn shape(c: &Cart) -> Vec<(i64, &str, i64, i64, PriceSource)> {
    c.lines.iter().map(|l| (l.line_no, l.sku.as_str(), l.quantity, l.unit_price.amount_minor, l.price_source)).collect()
}

/// ¥300 and ¥500 on the food key, a coffee scanned twice, a coffee under a ¥200 label.
fn food_sale(l: &mut Ledger) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add_priced(cart, "DEPT-FOOD", 300, PriceSource::Open, None, AT).unwrap();
    l.carts_mut().add(cart, "COF-001", 1, AT).unwrap();
    l.carts_mut().add_priced(cart, "DEPT-FOOD", 500, PriceSource::Open, None, AT).unwrap();
    l.carts_mut().add(cart, "COF-001", 1, AT).unwrap();
    let (c, no) = l.carts_mut().add_priced(cart, "COF-001", 200, PriceSource::Label, None, AT).unwrap();
    assert_eq!(no, 4);
    assert_eq!(
        shape(&c),
        [
            (1, "DEPT-FOOD", 1, 300, PriceSource::Open),
            (2, "COF-001", 2, 250, PriceSource::Catalog),
            (3, "DEPT-FOOD", 1, 500, PriceSource::Open),
            (4, "COF-001", 1, 200, PriceSource::Label),
        ]
    );
    cart
}

#[test]
fn two_open_prices_of_one_department_are_two_lines_and_a_scan_adds_to_its_line() {
    let mut l = store(DemoLocale::JaJp);
    let cart = food_sale(&mut l);
    let c = l.carts().by_id(cart).unwrap();
    // Tax included: the total is the lines' sum; the food key is reduced-rate (8 %).
    assert_eq!(c.total.amount_minor, 300 + 2 * 250 + 500 + 200);
    assert!(c.lines.iter().filter(|x| x.sku == "DEPT-FOOD").all(|x| x.tax_class == paydesk_tax::TaxClass::Reduced));

    // A line by its number: the ¥300 line to 2, then the label's line away.
    let c = l.carts_mut().set_line_quantity(cart, 1, 2, AT).unwrap();
    assert_eq!(c.lines[0].quantity, 2);
    let c = l.carts_mut().remove_line(cart, 4, AT).unwrap();
    assert_eq!(c.lines.iter().map(|x| x.line_no).collect::<Vec<_>>(), [1, 2, 3]);
    // A new line goes after the last one ever numbered in the cart.
    let (_, no) = l.carts_mut().add_priced(cart, "DEPT-GOODS", 800, PriceSource::Open, None, AT).unwrap();
    assert_eq!(no, 4);
    let e = l.carts_mut().set_line_quantity(cart, 9, 1, AT).unwrap_err();
    assert!(matches!(e, Error::UnknownLine { line_no: 9, .. }), "{e:?}");
    // The SKU-keyed change touches the catalog line only.
    let c = l.carts_mut().set_quantity(cart, "COF-001", 5, AT).unwrap();
    assert_eq!(shape(&c)[1], (2, "COF-001", 5, 250, PriceSource::Catalog));
}

#[test]
fn open_prices_are_refused_typed_and_above_the_limit_need_an_audited_approver() {
    let mut l = store(DemoLocale::JaJp);
    let manager = l.catalog_mut().seed_demo_staff(DemoLocale::JaJp, 1).unwrap()[1].id;
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    let e = l.carts_mut().add(cart, "DEPT-FOOD", 1, AT).unwrap_err();
    assert!(matches!(e, Error::PriceRequired { ref sku } if sku == "DEPT-FOOD"), "{e:?}");
    let e = l.carts_mut().add_priced(cart, "COF-001", 100, PriceSource::Open, None, AT).unwrap_err();
    assert!(matches!(e, Error::FixedPriceItem { .. }), "{e:?}");
    for bad in [0, -1, paydesk_tax::MAX_UNIT_PRICE + 1, i64::MAX] {
        let e = l.carts_mut().add_priced(cart, "DEPT-FOOD", bad, PriceSource::Open, Some(manager), AT).unwrap_err();
        assert!(matches!(e, Error::LinePriceOutOfRange { price, .. } if price == bad), "{e:?}");
    }
    assert_eq!(l.catalog().open_price_limit().unwrap(), 10_000, "¥10,000 by default");
    // At the limit: no approval needed, none kept even if given.
    let (c, _) = l.carts_mut().add_priced(cart, "DEPT-FOOD", 10_000, PriceSource::Open, Some(manager), AT).unwrap();
    assert_eq!(c.lines.len(), 1);
    let e = l.carts_mut().add_priced(cart, "DEPT-FOOD", 10_001, PriceSource::Open, None, AT).unwrap_err();
    assert!(matches!(e, Error::OpenPriceAboveLimit { price: 10_001, limit: 10_000 }), "{e:?}");
    // A cashier cannot allow it, nor someone who is not staff.
    let cashier = l.roster().list().unwrap().into_iter().find(|s| s.role == paydesk_access::Role::Cashier).unwrap().id;
    let e = l.carts_mut().add_priced(cart, "DEPT-FOOD", 10_001, PriceSource::Open, Some(cashier), AT).unwrap_err();
    assert!(matches!(e, Error::NotAllowed { action: "open_price_above_limit", .. }), "{e:?}");
    let e = l.carts_mut().add_priced(cart, "DEPT-FOOD", 10_001, PriceSource::Open, Some(999), AT).unwrap_err();
    assert!(matches!(e, Error::InactiveStaff { staff_id: 999, .. }), "{e:?}");
    assert_eq!(l.carts().by_id(cart).unwrap().lines.len(), 1, "nothing written");
    let audited = |l: &Ledger| l.audit().log().unwrap().into_iter().filter(|a| a.action == "open_price_above_limit").collect::<Vec<_>>();
    assert!(audited(&l).is_empty());
    l.carts_mut().add_priced(cart, "DEPT-FOOD", 12_000, PriceSource::Open, Some(manager), AT).unwrap();
    let a = audited(&l);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].approver_id, Some(manager));
    let after: serde_json::Value = serde_json::from_str(a[0].after.as_deref().unwrap()).unwrap();
    assert_eq!((after["sku"].as_str(), after["price"].as_i64(), after["limit"].as_i64()), (Some("DEPT-FOOD"), Some(12_000), Some(10_000)));
    let kept: Vec<Option<i64>> = {
        let mut st = l.connection().prepare("SELECT approved_by FROM cart_lines WHERE cart_id = ?1 ORDER BY line_no").unwrap();
        st.query_map([cart.0], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert_eq!(kept, [None, Some(manager)]);
    // The store may raise its limit.
    l.catalog_mut().set_open_price_limit(50_000, Some(manager), AT).unwrap();
    l.carts_mut().add_priced(cart, "DEPT-FOOD", 20_000, PriceSource::Open, None, AT).unwrap();
    assert!(l.catalog_mut().set_open_price_limit(0, None, AT).is_err());
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_return_names_the_line_and_sqlite_refuses_a_line_past_what_it_sold() {
    let mut l = store(DemoLocale::JaJp);
    let cart = food_sale(&mut l);
    let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(cart, due, None, AT + 1).unwrap();
    // The ¥500 food line (place 2), not the ¥300 one.
    let r = l.returns_mut().take_back(cart, &[Returned { line: 2, quantity: 1 }], None, false, AT + 2).unwrap().record;
    assert_eq!(r.total_minor, 500);
    assert_eq!(r.lines.iter().map(|x| (x.line, x.sku.as_str())).collect::<Vec<_>>(), [(2, "DEPT-FOOD")]);
    assert_eq!(l.returns().returned(cart).unwrap(), [0, 0, 1, 0]);
    let e = l.returns_mut().take_back(cart, &[Returned { line: 2, quantity: 1 }], None, false, AT + 3).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { line: 2, sold: 1, returned_before: 1, .. }), "{e:?}");
    // The other food line is still there to take back.
    let r2 = l.returns_mut().take_back(cart, &[Returned { line: 0, quantity: 1 }], None, false, AT + 4).unwrap().record;
    assert_eq!(r2.total_minor, 300);
    assert_eq!(l.returns().returned(cart).unwrap(), [1, 0, 1, 0]);
    // Past the code, SQLite itself: the ¥500 line (number 3) again.
    let food: i64 = l.connection().query_row("SELECT id FROM products WHERE sku = 'DEPT-FOOD'", [], |x| x.get(0)).unwrap();
    let e = l
        .connection()
        .execute(
            "INSERT INTO return_lines (return_id, line, line_no, product_id, quantity, class, net_minor) VALUES (?1, 2, 3, ?2, 1, 'reduced', 0)",
            rusqlite::params![r2.id, food],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than the sale sold"), "{e}");
}

#[test]
fn the_sale_fact_lists_both_department_lines_in_the_order_rung() {
    let mut l = store(DemoLocale::JaJp);
    let cart = food_sale(&mut l);
    let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(cart, due, None, AT + 1).unwrap();
    let fact: String = l
        .connection()
        .query_row("SELECT fact FROM outbox WHERE json_extract(fact, '$.kind') = 'sale_completed'", [], |r| r.get(0))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&fact).unwrap();
    let lines: Vec<(&str, &str, i64, i64)> = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["sku"].as_str().unwrap(), x["name"].as_str().unwrap(), x["unit_price"].as_i64().unwrap(), x["total"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        lines,
        [("DEPT-FOOD", "食品 8%", 300, 300), ("COF-001", "ブレンドコーヒー", 250, 500), ("DEPT-FOOD", "食品 8%", 500, 500), ("COF-001", "ブレンドコーヒー", 200, 200)]
    );
}

/// A v25 file: two lines of one sale (added against SKU order) and a return of one.
fn write_v25_file(path: &std::path::Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
    for m in &MIGRATIONS[..25] {
        c.execute_batch(m).unwrap();
    }
    c.execute_batch(
        "PRAGMA user_version = 25;
         INSERT INTO products (id, sku, name, price_minor, currency, tax_class) VALUES
             (1, 'TEA', 'Tea', 160, 'jpy', 'reduced'), (2, 'MUG', 'Mug', 1650, 'jpy', 'standard');
         INSERT INTO carts (id, currency, state, created_at_ms, updated_at_ms) VALUES (1, 'jpy', 'paid', 1796083200000, 1796083200000);
         INSERT INTO cart_lines (cart_id, product_id, quantity, unit_price_minor, tax_class) VALUES
             (1, 1, 3, 160, 'reduced'), (1, 2, 1, 1650, 'standard');
         INSERT INTO returns (id, cart_id, seq, number, created_at_ms, currency, total_minor, tax_minor, cash_out_minor)
             VALUES (1, 1, 1, '000001-R1', 2, 'jpy', 320, 23, 320);
         INSERT INTO return_lines (return_id, line, product_id, quantity, class, net_minor) VALUES (1, 1, 1, 2, 'reduced', 320);",
    )
    .unwrap();
}

#[test]
fn the_upgrade_from_v25_numbers_old_lines_in_sku_order_and_keeps_an_old_return() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v25.db");
    write_v25_file(&path);
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let c = l.carts().by_id(CartId(1)).unwrap();
    assert_eq!(shape(&c), [(1, "MUG", 1, 1650, PriceSource::Catalog), (2, "TEA", 3, 160, PriceSource::Catalog)]);
    // The old return took 2 of place 1, the teas: now line number 2.
    let rows: Vec<(i64, i64, i64)> = {
        let mut st = l.connection().prepare("SELECT line, line_no, quantity FROM return_lines").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
    };
    assert_eq!(rows, [(1, 2, 2)]);
    assert_eq!(l.catalog().open_price_limit().unwrap(), 10_000);
    assert_eq!(l.catalog().item("TEA").unwrap().unwrap().price_kind, PriceKind::Fixed);
    // One tea is left: two more is refused by the per-line trigger.
    let e = l
        .connection()
        .execute_batch(
            "INSERT INTO returns (id, cart_id, seq, number, created_at_ms, currency, total_minor, tax_minor, cash_out_minor)
             VALUES (2, 1, 2, '000001-R2', 3, 'jpy', 0, 0, 0);
             INSERT INTO return_lines (return_id, line, line_no, product_id, quantity, class, net_minor) VALUES (2, 1, 2, 1, 2, 'reduced', 0);",
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than the sale sold"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever is rung (scans, typed prices, labels, quantity changes, removals), a
    /// cart's subtotal is the sum of its lines, its total that plus the tax added on top
    /// (the en-US demo store is in New York: shelf prices without tax, record 0131), and
    /// every line keeps its number.
    #[test]
    fn a_carts_subtotal_is_the_sum_of_its_lines_and_its_total_adds_the_tax(ops in proptest::collection::vec((0u8..5, 1i64..50_000, 0i64..4), 1..25)) {
        let mut l = store(DemoLocale::EnUs);
        let cart = l.carts_mut().create(Currency::Usd, AT).unwrap();
        for (op, price, k) in ops {
            let lines = l.carts().by_id(cart).unwrap().lines;
            let _ = match op {
                0 => l.carts_mut().add(cart, ["COF-001", "TEA-001", "MUG-001", "BAG-001"][k as usize], 1, AT).map(drop),
                1 => l.carts_mut().add_priced(cart, "DEPT-FOOD", price, PriceSource::Open, None, AT).map(drop),
                2 => l.carts_mut().add_priced(cart, "COF-001", price, PriceSource::Label, None, AT).map(drop),
                3 => match lines.get(k as usize) { Some(x) => l.carts_mut().set_line_quantity(cart, x.line_no, k + 1, AT).map(drop), None => Ok(()) },
                _ => match lines.get(k as usize) { Some(x) => l.carts_mut().remove_line(cart, x.line_no, AT).map(drop), None => Ok(()) },
            };
        }
        let c = l.carts().by_id(cart).unwrap();
        let sum: i64 = c.lines.iter().map(|x| x.quantity * x.unit_price.amount_minor).sum();
        match &c.tax {
            Some(t) => {
                prop_assert_eq!(t.subtotal, sum);
                prop_assert_eq!(t.price_mode, paydesk_tax::PriceMode::Exclusive);
                prop_assert_eq!(c.total.amount_minor, sum + t.tax_total);
                prop_assert!(t.tax_total >= 0 && t.tax_total <= sum, "{} on {}", t.tax_total, sum);
            }
            None => prop_assert_eq!(c.total.amount_minor, sum),
        }
        let nos: Vec<i64> = c.lines.iter().map(|x| x.line_no).collect();
        prop_assert!(nos.windows(2).all(|w| w[0] < w[1]), "{:?}", nos);
        let catalog: Vec<&str> = c.lines.iter().filter(|x| x.price_source == PriceSource::Catalog).map(|x| x.sku.as_str()).collect();
        let mut unique = catalog.clone();
        unique.sort_unstable();
        unique.dedup();
        prop_assert_eq!(unique.len(), catalog.len(), "one catalog line per item");
    }
}
