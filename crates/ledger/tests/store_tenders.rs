//! The store's own tenders (issue #29, record 0118, schema v23): a ¥1,000 voucher on a
//! smaller sale of a type that gives no change records what was due, forfeits the rest
//! (printed as such) and leaves the drawer alone; a type that gives change pays it out of
//! the drawer; reports list the type; a return gives a voucher's part back as a voucher
//! (after the card, before cash); SQLite refuses what the code refuses; and the upgrade
//! from a v20 file with a paid sale.

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::Returned;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

fn store() -> Ledger {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

/// A sale of one mug (the demo store's standard-rate line).
fn sale(l: &mut Ledger) -> (CartId, i64) {
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, AT).unwrap();
    let total = l.sales().by_cart(cart).unwrap().totals.due_minor;
    (cart, total)
}

fn voucher(l: &mut Ledger, gives_change: bool) -> TenderType {
    let name = if gives_change { "Gift card" } else { "商品券" };
    l.tender_types_mut().add(name, StoreTenderKind::Voucher, gives_change, true, AT).unwrap()
}

fn drawer(l: &Ledger) -> i64 {
    l.sales().expected_drawer().unwrap().iter().map(|(_, m)| m).sum()
}

fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_voucher_worth_more_than_the_sale_pays_what_is_due_and_the_rest_is_forfeited() {
    let mut l = store();
    let v = voucher(&mut l, false);
    let (cart, total) = sale(&mut l);
    let before = drawer(&l);
    let paid = l.sales_mut().pay_store(cart, v.id, total + 200, Some(" GV-0042 "), None, AT + 1).unwrap();
    assert_eq!((paid.split.amount_minor, paid.split.change_minor, paid.split.forfeited_minor), (total, 0, 200));
    assert_eq!(paid.sale.state, SaleState::Paid);
    assert_eq!(paid.tender.kind, TenderKind::Store);
    assert_eq!(paid.tender.amount.amount_minor, total, "what was due is recorded, never the face value");
    let info = paid.tender.store.as_ref().unwrap();
    assert_eq!((info.type_name.as_str(), info.reference.as_deref(), info.forfeited_minor, info.offered_minor), ("商品券", Some("GV-0042"), 200, total + 200));
    assert_eq!(drawer(&l), before, "no cash in, no change out");
    assert_eq!(count(&l, "SELECT count(*) FROM cash_movements"), 0);
    // sent up since v24 (record 0121), with what was forfeited
    assert_eq!(count(&l, "SELECT count(*) FROM outbox WHERE json_extract(fact, '$.method.store.forfeited') = 200"), 1, "sent up once");

    // The receipt names the voucher, its slip, and the ¥200 not given as change; no change line.
    let (data, tax) = l.receipts().data(cart).unwrap();
    let r = paydesk_receipt::build_receipt(&data, &tax, false).unwrap();
    assert_eq!(r.change, 0);
    assert!(!r.opens_drawer());
    let text = paydesk_receipt::render_text(&r, paydesk_receipt::Paper::Mm80).join("\n");
    assert!(text.contains("商品券") && text.contains("GV-0042"), "{text}");
    assert!(text.contains("お釣りなし") && text.contains("¥200"), "{text}");
    assert!(!text.contains("お釣り "), "{text}");
}

#[test]
fn a_type_that_gives_change_pays_it_out_of_the_drawer() {
    let mut l = store();
    let g = voucher(&mut l, true);
    let (cart, total) = sale(&mut l);
    let paid = l.sales_mut().pay_store(cart, g.id, total + 300, None, None, AT + 1).unwrap();
    assert_eq!((paid.split.amount_minor, paid.split.change_minor, paid.split.forfeited_minor), (total, 300, 0));
    assert_eq!(paid.sale.state, SaleState::Paid);
    assert_eq!(drawer(&l), -300, "the change came out of the drawer");
    let (data, tax) = l.receipts().data(cart).unwrap();
    let r = paydesk_receipt::build_receipt(&data, &tax, false).unwrap();
    assert_eq!(r.change, 300);
}

#[test]
fn part_by_voucher_then_cash_and_the_reports_list_the_type() {
    let mut l = store();
    let v = voucher(&mut l, false);
    let (cart, total) = sale(&mut l);
    let part = l.sales_mut().pay_store(cart, v.id, 500, None, None, AT + 1).unwrap();
    assert_eq!((part.sale.state, part.split.forfeited_minor), (SaleState::PartiallyPaid, 0));
    l.sales_mut().pay_cash(cart, total - 500, None, AT + 2).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid);
    assert_eq!(drawer(&l), total - 500, "only the cash part is in the drawer");
    let (t, _) = l.sales().takings(Currency::Jpy, Period::Since(AT)).unwrap();
    assert_eq!(t.sales_minor, total);
    assert_eq!(t.by_store_type.len(), 1);
    let s = &t.by_store_type[0];
    assert_eq!((s.tender_type_id, s.name.as_str(), s.count, s.amount_minor), (v.id, "商品券", 1, 500));
    assert!(t.by_kind.iter().any(|k| k.kind == TenderKind::Store && k.amount_minor == 500));
}

#[test]
fn a_return_gives_the_card_back_first_then_the_voucher_as_a_voucher_then_cash() {
    let mut l = store();
    let v = voucher(&mut l, false);
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add(cart, "MUG-001", 3, AT).unwrap();
    let total = l.sales().by_cart(cart).unwrap().totals.due_minor;
    let t = l.sales_mut().open_card_tender(cart, Some(1500), &CheckoutOptions::card("pm_card_visa"), None, AT + 1).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", AT + 1).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Captured, "reply", AT + 1).unwrap();
    l.sales_mut().pay_store(cart, v.id, 1000, Some("GV-7"), None, AT + 2).unwrap();
    l.sales_mut().pay_cash(cart, total - 2500, None, AT + 3).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid);
    let drawer_before = drawer(&l);

    // Two mugs back: the card's 1,500 first, then the whole voucher as a voucher, and
    // only the rest out of the drawer.
    let two = 2 * total / 3;
    assert!(two > 2500 && two - 2500 < total - 2500, "the figures this test needs: {two}");
    let plan = l.returns_mut().take_back(cart, &[Returned { line: 0, quantity: 2 }], None, false, AT + 10).unwrap();
    assert_eq!(plan.card_refunds.len(), 1);
    assert_eq!(plan.card_refunds[0].1.amount.amount_minor, 1500);
    assert_eq!(plan.cash_out_minor, two - 2500);
    assert_eq!(drawer(&l), drawer_before - (two - 2500), "the voucher's part moved no cash");
    let links = &plan.record.tenders;
    let store_link = links.iter().find(|x| x.store_refund_id.is_some()).expect("a store refund link");
    assert_eq!(store_link.amount_minor, 1000);
    assert_eq!(links.len(), 3, "card, voucher, cash: {links:?}");
    assert_eq!(count(&l, "SELECT COALESCE(SUM(amount_minor), 0) FROM store_refunds"), 1000);
    let (t, _) = l.sales().takings(Currency::Jpy, Period::Since(AT)).unwrap();
    assert_eq!((t.store_refund_count, t.store_refunds_minor), (1, 1000));
    // The card and the voucher are spent: the last mug comes back in cash.
    let r = &plan.card_refunds[0].1;
    l.refunds_mut().record_result(r.id, "re_1", RefundState::Succeeded, AT + 10).unwrap();
    let last = l.returns_mut().take_back(cart, &[Returned { line: 0, quantity: 1 }], None, false, AT + 11).unwrap();
    assert_eq!((last.card_refunds.len(), last.cash_out_minor), (0, total - two));
    assert_eq!(count(&l, "SELECT COALESCE(SUM(amount_minor), 0) FROM store_refunds"), 1000, "never past what it paid");
}

#[test]
fn unknown_inactive_and_bad_input_are_refused_and_sqlite_has_the_last_word() {
    let mut l = store();
    let v = voucher(&mut l, false);
    let (cart, total) = sale(&mut l);
    assert!(matches!(l.sales_mut().pay_store(cart, TenderTypeId(99), 100, None, None, AT), Err(Error::UnknownTenderType(99))));
    assert!(matches!(l.sales_mut().pay_store(cart, v.id, 0, None, None, AT), Err(Error::InvalidAmount(_))));
    assert!(matches!(l.sales_mut().pay_store(cart, v.id, 100, Some(&"9".repeat(41)), None, AT), Err(Error::InvalidInput(_))));
    assert!(matches!(
        l.tender_types_mut().add(" 商品券 ", StoreTenderKind::Qr, false, false, AT),
        Err(Error::TenderTypeNameTaken { .. })
    ));
    assert!(matches!(l.tender_types_mut().add("", StoreTenderKind::Qr, false, false, AT), Err(Error::InvalidInput(_))));
    l.tender_types_mut().set_active(v.id, false, AT).unwrap();
    assert!(matches!(l.sales_mut().pay_store(cart, v.id, 100, None, None, AT), Err(Error::TenderTypeInactive { .. })));
    assert_eq!(l.tender_types().list().unwrap().len(), 1);

    // Change from a type that gives none, straight in SQL: refused by the trigger.
    l.tender_types_mut().set_active(v.id, true, AT).unwrap();
    let bad = l.connection().execute(
        "INSERT INTO tenders (cart_id, seq, kind, amount_minor, currency, tender_type_id, offered_minor, change_minor,
                              forfeited_minor, created_at_ms)
         VALUES (?1, 1, 'store', ?2, 'jpy', ?3, ?4, 100, 0, 0)",
        rusqlite::params![cart.0, total, v.id.0, total + 100],
    );
    assert!(bad.unwrap_err().to_string().contains("change from a type that gives none"));
    // Offered, change and forfeited that do not add up: the CHECK.
    let bad = l.connection().execute(
        "INSERT INTO tenders (cart_id, seq, kind, amount_minor, currency, tender_type_id, offered_minor, change_minor,
                              forfeited_minor, created_at_ms)
         VALUES (?1, 1, 'store', ?2, 'jpy', ?3, ?4, 0, 0, 0)",
        rusqlite::params![cart.0, total, v.id.0, total + 100],
    );
    assert!(bad.unwrap_err().to_string().contains("CHECK"));
}

#[test]
fn the_upgrade_from_v20_keeps_a_paid_sale_and_takes_a_voucher_after() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let paid = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        let (cart, total) = sale(&mut l);
        l.sales_mut().pay_cash(cart, total + 1000, None, AT + 1).unwrap();
        cart
    };
    // The v20 file: this build's file with `tenders` and `return_tenders` as v20 had them
    // (rebuilt from MIGRATIONS' own v4/v8/v9/v20 text would drag the whole history in; the
    // tables are recreated here with v20's CHECKs), v23's tables gone, at version 20 (v21's and v22's are made again if missing).
    let before = {
        let c = rusqlite::Connection::open(&path).unwrap();
        crate::common::undo_named_rates(&c);
        c.execute_batch(V20_SHAPE).unwrap();
        let tenders: i64 = c.query_row("SELECT count(*) FROM tenders", [], |r| r.get(0)).unwrap();
        let outbox: i64 = c.query_row("SELECT count(*) FROM outbox", [], |r| r.get(0)).unwrap();
        let sql: String = c.query_row("SELECT sql FROM sqlite_schema WHERE name = 'tenders'", [], |r| r.get(0)).unwrap();
        assert!(!sql.contains("'store'"), "{sql}");
        (tenders, outbox)
    };
    assert_eq!(before.0, 1);

    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(count(&l, "SELECT count(*) FROM tenders"), before.0, "every tender kept");
    assert_eq!(count(&l, "SELECT count(*) FROM outbox"), before.1, "nothing re-sent");
    assert_eq!(l.sales().by_cart(paid).unwrap().state, SaleState::Paid);
    assert!(l.audit().verify(None).unwrap().is_intact());
    // The old sale is still refundable (cash), and a new one takes a voucher.
    let plan = l.sales_mut().plan_refund(paid, Some(100), None, AT + 5).unwrap();
    assert_eq!(plan.cash_out_minor, 100);
    let v = voucher(&mut l, false);
    let (cart, total) = sale(&mut l);
    let s = l.sales_mut().pay_store(cart, v.id, total, None, None, AT + 6).unwrap();
    assert_eq!(s.sale.state, SaleState::Paid);
    // A card tender still gets its outbox fact through the recreated trigger (and the
    // voucher its own, since v24).
    let cart2 = sale(&mut l).0;
    l.sales_mut().open_card_tender(cart2, None, &CheckoutOptions::card("pm_card_visa"), None, AT + 7).unwrap();
    assert_eq!(count(&l, "SELECT count(*) FROM outbox WHERE json_extract(fact, '$.kind') = 'tender_added'"), 3);
}

/// `tenders` and `return_tenders` as v4, v8, v9 and v20 left them, and no v23 table.
const V20_SHAPE: &str = r#"
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
DROP TABLE store_refunds;
CREATE TABLE tenders_v20 (
    id                  INTEGER PRIMARY KEY,
    cart_id             INTEGER NOT NULL REFERENCES carts(id),
    seq                 INTEGER NOT NULL CHECK (seq BETWEEN 1 AND 1000),
    kind                TEXT NOT NULL CHECK (kind IN ('cash','card')),
    amount_minor        INTEGER NOT NULL CHECK (amount_minor > 0),
    currency            TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    standing            TEXT NOT NULL DEFAULT 'active' CHECK (standing IN ('active','superseded')),
    payment_id          INTEGER UNIQUE REFERENCES payments(id),
    cash_tendered_minor INTEGER CHECK (cash_tendered_minor IS NULL OR cash_tendered_minor >= 0),
    change_minor        INTEGER CHECK (change_minor IS NULL OR change_minor >= 0),
    rounding_minor      INTEGER,
    superseded_reason   TEXT CHECK (superseded_reason IS NULL OR length(superseded_reason) BETWEEN 1 AND 1000),
    superseded_at_ms    INTEGER,
    created_at_ms       INTEGER NOT NULL, shift_id INTEGER REFERENCES shifts(id), staff_id INTEGER REFERENCES staff(id),
    UNIQUE (cart_id, seq),
    CHECK ((kind = 'card') = (payment_id IS NOT NULL)),
    CHECK (kind = 'card' OR (cash_tendered_minor IS NOT NULL AND change_minor IS NOT NULL
        AND rounding_minor IS NOT NULL
        AND cash_tendered_minor - change_minor = amount_minor + rounding_minor)),
    CHECK ((standing = 'superseded') = (superseded_reason IS NOT NULL))
) STRICT;
INSERT INTO tenders_v20 SELECT id, cart_id, seq, kind, amount_minor, currency, standing, payment_id, cash_tendered_minor,
    change_minor, rounding_minor, superseded_reason, superseded_at_ms, created_at_ms, shift_id, staff_id FROM tenders;
DROP TABLE tenders;
ALTER TABLE tenders_v20 RENAME TO tenders;
CREATE INDEX tenders_by_cart ON tenders(cart_id, seq);
CREATE INDEX tenders_by_shift ON tenders(shift_id) WHERE shift_id IS NOT NULL;
CREATE TRIGGER outbox_tender_added AFTER INSERT ON tenders
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.created_at_ms,
           json_object('kind', 'tender_added', 'sale', NEW.cart_id, 'tender_seq', NEW.seq, 'method', NEW.kind,
                       'amount', NEW.amount_minor, 'currency', NEW.currency,
                       'checkout_key', (SELECT idempotency_key FROM payments p WHERE p.id = NEW.payment_id),
                       'cash_tendered', NEW.cash_tendered_minor, 'change', NEW.change_minor,
                       'rounding', NEW.rounding_minor, 'shift', NEW.shift_id)
    FROM outbox_seq WHERE id = 1;
END;
CREATE TRIGGER outbox_tender_superseded AFTER UPDATE OF standing ON tenders
WHEN NEW.standing = 'superseded' AND OLD.standing IS NOT 'superseded'
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, COALESCE(NEW.superseded_at_ms, NEW.created_at_ms),
           json_object('kind', 'tender_superseded', 'sale', NEW.cart_id, 'tender_seq', NEW.seq)
    FROM outbox_seq WHERE id = 1;
END;
DROP TABLE return_tenders;
CREATE TABLE return_tenders (
    return_id    INTEGER NOT NULL REFERENCES returns(id),
    tender_id    INTEGER NOT NULL REFERENCES tenders(id),
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    refund_id    INTEGER UNIQUE REFERENCES refunds(id),
    movement_id  INTEGER UNIQUE REFERENCES cash_movements(id),
    CHECK ((refund_id IS NULL) <> (movement_id IS NULL)),
    PRIMARY KEY (return_id, tender_id)
) STRICT;
CREATE INDEX return_tenders_by_tender ON return_tenders(tender_id);
CREATE TRIGGER return_tenders_within_paid BEFORE INSERT ON return_tenders
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(amount_minor), 0) FROM return_tenders WHERE tender_id = NEW.tender_id)
     > COALESCE((SELECT amount_minor FROM tenders WHERE id = NEW.tender_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'a return gives back more than the tender paid');
END;
DROP TABLE tender_types;
PRAGMA legacy_alter_table = OFF;
PRAGMA user_version = 20;
"#;
