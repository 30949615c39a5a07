//! Completed sales in the outbox (record 0051): one `sale_completed` per sale, written
//! by the transaction that completed it, after the tender or payment move it follows;
//! the lines and the tax per rate as the sale was locked; back-filled at the upgrade.

use crate::common;
use common::outbox::OutboxShadow;
use common::*;
use paydesk_tax::Discount;
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax as tax;
use serde_json::{json, Value};

const T: i64 = 1_790_000_000_000;

fn facts(l: &Ledger, after: u64) -> Vec<(u64, Value)> {
    l.sync_log().outbox_batch(after, MAX_OUTBOX_BATCH).unwrap().into_iter().map(|r| (r.seq, serde_json::from_str(&r.fact_json).unwrap())).collect()
}

fn kinds(f: &[(u64, Value)]) -> Vec<String> {
    f.iter().map(|(_, v)| v["kind"].as_str().unwrap().to_string()).collect()
}

fn ja_store() -> Ledger {
    let mut l = mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    l
}

/// A mug (standard, 10 %) and two teas with 10 % off their line (reduced, 8 %), prices
/// including tax, taken out. Rung in SKU order: the v11 file below is upgraded again
/// through v26, which numbers a file's old lines by SKU (record 0126).
fn tea_and_mug(l: &mut Ledger, at: i64) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, at).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, at).unwrap();
    l.carts_mut().add(cart, "TEA-001", 2, at).unwrap();
    l.carts_mut().set_line_discount(cart, "TEA-001", Some(Discount::Percent { basis_points: 1000 }), at).unwrap();
    cart
}

fn tea_and_mug_fact(cart: CartId) -> Value {
    // MUG 1650 (tax 1650 × 10/110 = 150); TEA 2 × 160 = 320, 32 off = 288 (tax
    // 288 × 8/108 = 21.3, rounded down); lines as rung; names in the store's language
    json!({
        "kind": "sale_completed", "sale": cart.0, "receipt_no": format!("{:06}", cart.0), "currency": "jpy",
        "dining": "take_out", "price_mode": "inclusive",
        "subtotal": 1938, "sale_discount": 0, "tax_total": 171, "total": 1938,
        "rates": [
            {"class": "standard", "ppm": 100000, "base": 1500, "tax": 150, "gross": 1650},
            {"class": "reduced", "ppm": 80000, "base": 267, "tax": 21, "gross": 288}
        ],
        "lines": [
            {"sku": "MUG-001", "name": "PayDeskマグカップ", "quantity": 1, "unit_price": 1650, "tax_class": "standard", "discount": 0, "total": 1650},
            {"sku": "TEA-001", "name": "緑茶", "quantity": 2, "unit_price": 160, "tax_class": "reduced", "discount": 32, "total": 288}
        ]
    })
}

#[test]
fn a_cash_sale_writes_its_lines_and_tax_right_after_the_tender_that_completed_it() {
    let mut l = ja_store();
    let cart = tea_and_mug(&mut l, T + 1);
    let before = l.sync_log().outbox_stats().unwrap().high_water;
    // a part payment completes nothing
    l.sales_mut().pay_cash(cart, 1000, None, T + 2).unwrap();
    assert_eq!(kinds(&facts(&l, before)), ["tender_added"]);
    l.sales_mut().pay_cash(cart, 1000, None, T + 3).unwrap();
    let got = facts(&l, before);
    assert_eq!(kinds(&got), ["tender_added", "tender_added", "sale_completed"]);
    assert_eq!(got[2].1, tea_and_mug_fact(cart));
    let row = &l.sync_log().outbox_batch(before + 2, 1).unwrap()[0];
    assert_eq!(row.at_ms, T + 3, "the time the sale completed");
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "cash");
    shadow.assert_matches(&l, "cash");
}

#[test]
fn a_card_sale_completes_after_its_payment_moved_and_a_refused_tender_writes_nothing() {
    let mut l = ja_store();
    let cart = tea_and_mug(&mut l, T + 1);
    l.carts_mut().set_sale_discount(cart, Some(Discount::Amount { amount: 100 }), T + 1).unwrap();
    let before = l.sync_log().outbox_stats().unwrap().high_water;
    let p = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, T + 2).unwrap().payment;
    // a second tender while the card is pending is refused inside its transaction
    assert!(matches!(l.sales_mut().pay_cash(cart, 5000, None, T + 3), Err(Error::TenderUnknownOutstanding { .. })));
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", T + 4).unwrap();
    assert!(!kinds(&facts(&l, before)).contains(&"sale_completed".to_string()));
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "reply", T + 5).unwrap();
    let got = facts(&l, before);
    assert_eq!(kinds(&got), ["payment_created", "tender_added", "payment_state", "payment_state", "sale_completed"]);
    let f = &got[4].1;
    // the sale discount is split over the rates (record 0056) and the total is what was charged
    assert_eq!((f["subtotal"].as_i64(), f["sale_discount"].as_i64(), f["total"].as_i64()), (Some(1938), Some(100), Some(1838)));
    assert_eq!(f["total"].as_i64(), Some(p.amount.amount_minor));
    let rates = f["rates"].as_array().unwrap();
    assert_eq!(rates.iter().map(|r| r["gross"].as_i64().unwrap()).sum::<i64>(), 1838);
    // a refund is a return, not an uncompleted sale: nothing more about the sale
    l.refunds_mut().create(p.id, 500, Some("broken mug"), T + 6).unwrap();
    assert!(!kinds(&facts(&l, before + 5)).contains(&"sale_completed".to_string()));
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "card");
    shadow.assert_matches(&l, "card");
}

#[test]
fn an_untaxed_sale_has_no_price_mode_and_totals_its_lines() {
    let mut l = mem();
    seed(&mut l);
    let cart = l.carts_mut().create(Currency::Usd, 10).unwrap();
    l.carts_mut().add(cart, "COF", 3, 10).unwrap();
    l.carts_mut().add(cart, "BAG", 1, 10).unwrap();
    let before = l.sync_log().outbox_stats().unwrap().high_water;
    l.sales_mut().pay_cash(cart, 2000, None, 11).unwrap();
    let got = facts(&l, before);
    assert_eq!(
        got.last().unwrap().1,
        json!({
            "kind": "sale_completed", "sale": cart.0, "receipt_no": format!("{:06}", cart.0), "currency": "usd",
            "dining": "take_out", "price_mode": null, "subtotal": 1275, "sale_discount": 0, "tax_total": 0, "total": 1275,
            "rates": [],
            // in the order rung (record 0126), not by SKU
            "lines": [
                {"sku": "COF", "name": "Coffee", "quantity": 3, "unit_price": 350, "tax_class": "exempt", "discount": 0, "total": 1050},
                {"sku": "BAG", "name": "Bagel", "quantity": 1, "unit_price": 225, "tax_class": "exempt", "discount": 0, "total": 225}
            ]
        })
    );
}

/// A card accepted offline completes the sale; declined when forwarded, the sale is
/// unpaid again and is paid a second time: its fact was written once. Another such sale
/// is canceled instead: `sale_canceled` follows.
#[test]
fn a_sale_is_sent_once_and_a_canceled_one_says_so() {
    let mut l = ja_store();
    let offline_then_declined = |l: &mut Ledger, at: i64| {
        let cart = tea_and_mug(l, at);
        let p = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, at + 1).unwrap().payment;
        l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::QueuedOffline, "accepted offline", at + 2).unwrap();
        assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid);
        l.payments_mut().transition(p.id, PaymentState::QueuedOffline, PaymentState::Authorizing, "forwarded", at + 3).unwrap();
        l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", at + 4).unwrap();
        assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::UnpaidBalance);
        cart
    };
    let before = l.sync_log().outbox_stats().unwrap().high_water;
    let paid_again = offline_then_declined(&mut l, T + 10);
    l.sales_mut().pay_cash(paid_again, 2000, None, T + 20).unwrap();
    assert_eq!(l.sales().by_cart(paid_again).unwrap().state, SaleState::Paid);
    let sales: Vec<Value> = facts(&l, before).into_iter().map(|(_, f)| f).filter(|f| f["kind"] == "sale_completed").collect();
    assert_eq!(sales, [tea_and_mug_fact(paid_again)]);

    let canceled = offline_then_declined(&mut l, T + 30);
    let mark = l.sync_log().outbox_stats().unwrap().high_water;
    l.sales_mut().begin_cancel(canceled, "customer left", T + 40, &|_| false).unwrap();
    if l.sales().by_cart(canceled).unwrap().state != SaleState::Canceled {
        l.sales_mut().finish_cancel(canceled, T + 41).unwrap();
    }
    assert_eq!(l.sales().by_cart(canceled).unwrap().state, SaleState::Canceled);
    let after: Vec<Value> = facts(&l, mark).into_iter().map(|(_, f)| f).collect();
    assert_eq!(after, [json!({"kind": "sale_canceled", "sale": canceled.0})]);

    // a sale canceled before it was ever paid sold nothing and sends no sale fact
    let cart = tea_and_mug(&mut l, T + 50);
    l.sales_mut().pay_cash(cart, 500, None, T + 51).unwrap();
    let mark = l.sync_log().outbox_stats().unwrap().high_water;
    l.sales_mut().begin_cancel(cart, "changed their mind", T + 52, &|_| false).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Canceled);
    assert!(!kinds(&facts(&l, mark)).iter().any(|k| k.starts_with("sale_")));

    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "once");
    shadow.assert_matches(&l, "once");
}

#[test]
fn a_sale_keeps_the_lines_and_quantities_the_wire_takes() {
    let mut l = ja_store();
    let cart = l.carts_mut().create(Currency::Jpy, T).unwrap();
    let e = l.carts_mut().add(cart, "TEA-001", 10_000, T).unwrap_err();
    assert!(matches!(e, Error::QuantityTooLarge { quantity: 10_000, max: 9_999 }), "{e}");
    l.carts_mut().add(cart, "TEA-001", 9_999, T).unwrap();
    assert!(l.carts_mut().add(cart, "TEA-001", 1, T).is_err(), "adding to a full line");
    // 1,000 lines fit (the tea and 999 more); the 1,001st is refused
    let items: Vec<CatalogItem> = (0..1_000)
        .map(|i| CatalogItem {
            sku: format!("BULK-{i:04}"),
            barcode: None,
            name_en: format!("Bulk {i}"),
            name_ja: None,
            price_minor: 1,
            currency: Currency::Jpy,
            tax_class: tax::TaxClass::Exempt,
            active: true,
            price_kind: paydesk_ledger::PriceKind::Fixed,
            unit: paydesk_tax::SaleUnit::Piece,
        })
        .collect();
    l.catalog_mut().upsert(&items, None, T).unwrap();
    // test set-up: 998 lines in one statement (one by one is slow, not different)
    l.connection()
        .execute(
            "INSERT INTO cart_lines (cart_id, line_no, product_id, quantity, unit_price_minor, tax_class)
             SELECT ?1, 1 + row_number() OVER (ORDER BY sku), id, 1, price_minor, tax_class FROM products WHERE sku < 'BULK-0998' AND sku LIKE 'BULK-%'",
            [cart.0],
        )
        .unwrap();
    l.carts_mut().add(cart, "BULK-0998", 1, T).unwrap();
    let e = l.carts_mut().add(cart, "BULK-0999", 1, T).unwrap_err();
    assert!(matches!(e, Error::TooManyLines { max: 1_000 }), "{e}");
    // a line already in the sale still changes
    l.carts_mut().set_quantity(cart, "BULK-0000", 5, T).unwrap();
}

/// A register at schema v11 with paid, part-paid and canceled sales: made by this code,
/// then the v12 triggers, view and table, and the sale facts, taken away.
fn write_v11_file_with_sales(path: &std::path::Path) -> Vec<CartId> {
    let mut l = Ledger::open(path).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let first = tea_and_mug(&mut l, T + 1);
    l.sales_mut().pay_cash(first, 2000, None, T + 2).unwrap();
    let part = tea_and_mug(&mut l, T + 3);
    l.sales_mut().pay_cash(part, 1000, None, T + 4).unwrap();
    let canceled = tea_and_mug(&mut l, T + 5);
    l.sales_mut().pay_cash(canceled, 1000, None, T + 6).unwrap();
    l.sales_mut().begin_cancel(canceled, "customer left", T + 7, &|_| false).unwrap();
    let second = l.carts_mut().create(Currency::Jpy, T + 8).unwrap();
    l.carts_mut().add(second, "GFT-025", 1, T + 8).unwrap();
    let p = l.sales_mut().open_card_tender(second, None, &CheckoutOptions::card("pm_card_visa"), None, T + 9).unwrap().payment;
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", T + 10).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "reply", T + 11).unwrap();
    drop(l);
    let c = rusqlite::Connection::open(path).unwrap();
    crate::common::undo_named_rates(&c);
    c.execute_batch(
"DROP TRIGGER outbox_item_added; DROP TRIGGER outbox_item_changed; DROP TRIGGER outbox_item_name_ja_added;
         DROP TRIGGER outbox_item_name_ja_changed; DROP TRIGGER outbox_item_name_ja_removed; DROP TRIGGER outbox_staff_added;
         DROP TRIGGER outbox_staff_changed; DROP TRIGGER outbox_tax_changed;
         DROP VIEW local_item_facts; DROP VIEW local_staff_facts; DROP VIEW local_tax_facts;
         DROP TRIGGER outbox_return_recorded; DROP TRIGGER outbox_cash_refunded; DROP VIEW return_recorded_facts; DROP TRIGGER outbox_store_refunded;
         DROP TRIGGER outbox_sale_completed; DROP TRIGGER outbox_sale_canceled; DROP TRIGGER outbox_sale_canceled_at_once;
         DROP VIEW sale_completed_facts; DROP TABLE sales_sent; DROP TRIGGER outbox_no_update;
         DROP TABLE approval_pin_attempts; ALTER TABLE staff DROP COLUMN pin_locks; ALTER TABLE store_settings DROP COLUMN time_zone;
         CREATE TEMP TABLE kept AS SELECT row_number() OVER (ORDER BY seq) AS n, at_ms, fact FROM outbox
             WHERE json_extract(fact, '$.kind') NOT IN ('sale_completed', 'sale_canceled', 'item_saved', 'staff_saved', 'tax_setup_changed');
         DELETE FROM outbox;
         UPDATE outbox_seq SET high_water = 0, acked_through = 0;
         INSERT INTO outbox (seq, at_ms, fact) SELECT n, at_ms, fact FROM temp.kept ORDER BY n;
         CREATE TRIGGER outbox_no_update BEFORE UPDATE ON outbox BEGIN SELECT RAISE(ABORT, 'outbox rows are never changed'); END;
         PRAGMA user_version = 11;",
    )
    .unwrap();
    vec![first, second]
}

#[test]
fn a_v11_ledger_is_back_filled_with_its_paid_sales_after_the_facts_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v11.db");
    let paid = write_v11_file_with_sales(&path);
    let older = count_rows(&path);
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    // the sales, then (v13, record 0052) the register's own items and tax setup
    let mut added = facts(&l, older);
    assert!(added[2..].iter().all(|(_, f)| f["kind"] == "item_saved" || f["kind"] == "tax_setup_changed"), "{added:?}");
    added.truncate(2);
    assert_eq!(added.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [older + 1, older + 2]);
    assert_eq!(added.iter().map(|(_, f)| f["sale"].as_i64().unwrap()).collect::<Vec<_>>(), paid.iter().map(|c| c.0).collect::<Vec<_>>());
    // Back-filled by v12 from a tax the older build locked (basis points); this build's says ppm.
    assert_eq!(crate::common::rates_in_ppm(added[0].1.clone()), tea_and_mug_fact(paid[0]));
    assert_eq!(added[1].1["lines"][0]["name"], "ギフトカード 3,000円");
    assert_eq!(l.sync_log().outbox_batch(older, 1).unwrap()[0].at_ms, T + 2, "the time the sale was paid");
    let mut shadow = OutboxShadow::default();
    shadow.catch_up(&l, "upgraded to v12");
    shadow.assert_matches(&l, "upgraded to v12");
    // the trigger carries on after the back-fill, and an old sale is not sent again
    let cart = tea_and_mug(&mut l, T + 100);
    l.sales_mut().pay_cash(cart, 2000, None, T + 101).unwrap();
    shadow.catch_up(&l, "after the upgrade");
    shadow.assert_matches(&l, "after the upgrade");
}

fn count_rows(path: &std::path::Path) -> u64 {
    rusqlite::Connection::open(path).unwrap().query_row("SELECT count(*) FROM outbox", [], |r| r.get::<_, i64>(0)).unwrap() as u64
}
