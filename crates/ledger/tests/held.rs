//! Held sales (issue #30, record 0128, schema v26 on this branch): a cart with nothing
//! tendered is parked, listed, recalled or discarded; parking refuses an empty cart, a
//! tendered one and one past the limit, writing nothing; a parked or discarded cart takes
//! no line, tender or cancel, not even by SQL; the upgrade from the version before keeps
//! old carts payable and parkable.

use paydesk_domain::*;
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_ledger::*;

/// The schema version before this branch's migration (renumbered at merge: this one
/// constant says which).
/// Found by its table, not as the last one: migrations come after it.
fn before_held() -> i64 {
    MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS held_carts")).expect("the held sales migration") as i64
}
const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC
const COF_YEN: i64 = 250;
const MUG_YEN: i64 = 1650;

fn store() -> Ledger {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

fn cart_of(l: &mut Ledger, lines: &[(&str, i64)]) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    for (sku, q) in lines {
        l.carts_mut().add(cart, sku, *q, AT).unwrap();
    }
    cart
}

fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

fn why(e: Error) -> HoldRefusal {
    match e {
        Error::HoldRefused { why, .. } => why,
        other => panic!("not a hold refusal: {other:?}"),
    }
}

#[test]
fn a_parked_cart_is_listed_recalled_and_paid_while_another_sale_is_paid_meanwhile() {
    let mut l = store();
    let first = cart_of(&mut l, &[("COF-001", 2), ("MUG-001", 1)]);
    let held = l.carts_mut().hold(first, 5, None, AT + 1).unwrap();
    assert_eq!((held.cart_id, held.items, held.lines), (first, 3, 2));
    assert_eq!(held.total.amount_minor, 2 * COF_YEN + MUG_YEN);
    assert_eq!(l.carts().held().unwrap(), vec![held.clone()]);
    assert!(l.carts().is_frozen(first).unwrap());

    // The next customer pays cash; the parked cart is not touched.
    let next = cart_of(&mut l, &[("COF-001", 1)]);
    l.sales_mut().pay_cash(next, COF_YEN, None, AT + 2).unwrap();
    assert_eq!(l.sales().by_cart(first).unwrap().state, SaleState::Open);
    assert!(l.sales().by_cart(first).unwrap().tenders.is_empty());

    let cart = l.carts_mut().recall(first, None, AT + 3).unwrap();
    assert_eq!(cart.total.amount_minor, 2 * COF_YEN + MUG_YEN);
    assert!(l.carts().held().unwrap().is_empty());
    assert!(!l.carts().is_frozen(first).unwrap());
    l.carts_mut().add(first, "COF-001", 1, AT + 4).unwrap();
    l.sales_mut().pay_cash(first, 3 * COF_YEN + MUG_YEN, None, AT + 5).unwrap();
    assert_eq!(l.sales().by_cart(first).unwrap().state, SaleState::Paid);
    assert_eq!(l.sales().by_cart(next).unwrap().state, SaleState::Paid);
    let actions: Vec<String> = l.audit().log().unwrap().into_iter().map(|e| e.action).filter(|a| a.starts_with("cart_")).collect();
    assert_eq!(actions, ["cart_hold", "cart_recall"]);
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn refusals_write_nothing() {
    let mut l = store();
    let empty = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    let cashed = cart_of(&mut l, &[("MUG-001", 1)]);
    l.sales_mut().pay_cash(cashed, 1000, None, AT + 1).unwrap();
    let carded = cart_of(&mut l, &[("MUG-001", 1)]);
    l.sales_mut().open_card_tender(carded, None, &CheckoutOptions::card("pm_card_visa"), None, AT + 1).unwrap();
    let paid = cart_of(&mut l, &[("COF-001", 1)]);
    l.sales_mut().pay_cash(paid, COF_YEN, None, AT + 1).unwrap();
    let good = cart_of(&mut l, &[("COF-001", 1)]);
    let (commits, audit) = (l.commit_count(), l.audit().log().unwrap().len());

    assert_eq!(why(l.carts_mut().hold(empty, 5, None, AT + 2).unwrap_err()), HoldRefusal::Empty);
    assert_eq!(why(l.carts_mut().hold(cashed, 5, None, AT + 2).unwrap_err()), HoldRefusal::Tendered);
    assert_eq!(why(l.carts_mut().hold(carded, 5, None, AT + 2).unwrap_err()), HoldRefusal::Tendered);
    assert_eq!(why(l.carts_mut().hold(paid, 5, None, AT + 2).unwrap_err()), HoldRefusal::Tendered);
    assert_eq!(why(l.carts_mut().recall(good, None, AT + 2).unwrap_err()), HoldRefusal::NotHeld);
    assert_eq!(why(l.carts_mut().discard_held(good, None, AT + 2).unwrap_err()), HoldRefusal::NotHeld);
    assert!(matches!(l.carts_mut().hold(good, 0, None, AT + 2), Err(Error::InvalidInput(_))));
    assert!(matches!(l.carts_mut().hold(good, MAX_HELD_LIMIT + 1, None, AT + 2), Err(Error::InvalidInput(_))));
    assert!(matches!(l.carts_mut().hold(CartId(999), 5, None, AT + 2), Err(Error::UnknownCart(999))));
    assert_eq!((l.commit_count(), l.audit().log().unwrap().len()), (commits, audit), "nothing written");
    assert_eq!(count(&l, "SELECT count(*) FROM held_carts"), 0);
}

#[test]
fn the_limit_refuses_one_more_and_a_recall_makes_room() {
    let mut l = store();
    let carts: Vec<CartId> = (0..3).map(|_| cart_of(&mut l, &[("COF-001", 1)])).collect();
    l.carts_mut().hold(carts[0], 2, None, AT + 1).unwrap();
    l.carts_mut().hold(carts[1], 2, None, AT + 2).unwrap();
    let commits = l.commit_count();
    assert_eq!(why(l.carts_mut().hold(carts[2], 2, None, AT + 3).unwrap_err()), HoldRefusal::AtLimit { max: 2 });
    assert_eq!(l.commit_count(), commits, "nothing written");
    let listed: Vec<CartId> = l.carts().held().unwrap().iter().map(|h| h.cart_id).collect();
    assert_eq!(listed, carts[..2], "oldest first");
    l.carts_mut().recall(carts[0], None, AT + 4).unwrap();
    l.carts_mut().hold(carts[2], 2, None, AT + 5).unwrap();
    // A cart parked again after a recall is listed again.
    assert!(matches!(l.carts_mut().hold(carts[1], 2, None, AT + 6), Err(Error::CartHeld { .. })));
}

#[test]
fn a_parked_cart_takes_no_line_tender_or_cancel_and_a_discarded_one_never_again() {
    let mut l = store();
    let cart = cart_of(&mut l, &[("COF-001", 1)]);
    l.carts_mut().hold(cart, 5, None, AT + 1).unwrap();
    let commits = l.commit_count();
    let held = |e: Error| matches!(e, Error::CartHeld { .. });
    assert!(held(l.carts_mut().add(cart, "MUG-001", 1, AT + 2).unwrap_err()));
    assert!(held(l.carts_mut().set_quantity(cart, "COF-001", 0, AT + 2).unwrap_err()));
    assert!(held(l.carts_mut().set_dining(cart, paydesk_tax::Dining::EatIn, AT + 2).unwrap_err()));
    assert!(held(l.sales_mut().pay_cash(cart, COF_YEN, None, AT + 2).unwrap_err()));
    let card = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, AT + 2);
    assert!(held(card.unwrap_err()));
    assert_eq!(l.commit_count(), commits, "nothing written");

    l.carts_mut().discard_held(cart, None, AT + 3).unwrap();
    assert!(l.carts().held().unwrap().is_empty());
    assert!(l.carts().is_frozen(cart).unwrap(), "its lines are void for good");
    assert_eq!(why(l.carts_mut().recall(cart, None, AT + 4).unwrap_err()), HoldRefusal::NotHeld);
    assert!(held(l.carts_mut().add(cart, "MUG-001", 1, AT + 4).unwrap_err()));
    assert!(held(l.sales_mut().pay_cash(cart, COF_YEN, None, AT + 4).unwrap_err()));
    assert_eq!(l.carts().by_id(cart).unwrap().lines.len(), 1, "kept, as it was");
    let last = l.audit().log().unwrap().pop().unwrap();
    assert_eq!((last.action, last.detail), ("cart_discard".to_string(), Some(format!("cart:{}", cart.0))));
}

#[test]
fn sqlite_refuses_a_tender_on_a_parked_cart_and_parking_a_tendered_one() {
    let mut l = store();
    let cart = cart_of(&mut l, &[("COF-001", 1)]);
    l.carts_mut().hold(cart, 5, None, AT + 1).unwrap();
    let c = l.connection();
    let e = c
        .execute(
            "INSERT INTO tenders (cart_id, seq, kind, amount_minor, currency, cash_tendered_minor, change_minor, rounding_minor, created_at_ms)
             VALUES (?1, 1, 'cash', 250, 'jpy', 250, 0, 0, 1)",
            [cart.0],
        )
        .unwrap_err();
    assert!(e.to_string().contains("takes no tender"), "{e}");
    let e = c
        .execute("INSERT INTO cash_movements (at_ms, kind, amount_minor, currency, cart_id) VALUES (1, 'sale_in', 250, 'jpy', ?1)", [cart.0])
        .unwrap_err();
    assert!(e.to_string().contains("takes no tender"), "{e}");
    // A card payment of the cart comes with its tender, which is refused in the same
    // transaction: the payment row goes with it.
    let before: i64 = c.query_row("SELECT count(*) FROM payments", [], |r| r.get(0)).unwrap();
    let e = c
        .execute_batch(&format!(
            "BEGIN; INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params, cart_id, created_at_ms, updated_at_ms)
                    VALUES ('k-held', 250, 'jpy', 'created', 'automatic', '{{}}', {0}, 1, 1);
             INSERT INTO tenders (cart_id, seq, kind, amount_minor, currency, payment_id, created_at_ms)
                    VALUES ({0}, 1, 'card', 250, 'jpy', last_insert_rowid(), 1); COMMIT;",
            cart.0
        ))
        .unwrap_err();
    assert!(e.to_string().contains("takes no tender"), "{e}");
    c.execute_batch("ROLLBACK").unwrap();
    assert_eq!(c.query_row("SELECT count(*) FROM payments", [], |r| r.get::<_, i64>(0)).unwrap(), before);
    let e = c.execute("UPDATE carts SET dining = 'eat_in' WHERE id = ?1", [cart.0]).unwrap_err();
    assert!(e.to_string().contains("is not changed"), "{e}");
    let e = c.execute("DELETE FROM cart_lines WHERE cart_id = ?1", [cart.0]).unwrap_err();
    assert!(e.to_string().contains("is not changed"), "{e}");
    let e = c.execute("DELETE FROM held_carts", []).unwrap_err();
    assert!(e.to_string().contains("history"), "{e}");

    // Parking by SQL a cart that has cash in the drawer, or no lines, is refused too.
    let cashed = cart_of(&mut l, &[("COF-001", 1)]);
    l.sales_mut().pay_cash(cashed, 100, None, AT + 2).unwrap();
    let empty = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    for id in [cashed, empty] {
        let e = l.connection().execute("INSERT INTO held_carts (cart_id, held_at_ms) VALUES (?1, 1)", [id.0]).unwrap_err();
        assert!(e.to_string().contains("nothing tendered"), "{e}");
    }
}

#[test]
fn the_upgrade_keeps_old_carts_payable_and_parkable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let (part_paid, open) = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        let part_paid = cart_of(&mut l, &[("MUG-001", 1)]);
        l.sales_mut().pay_cash(part_paid, 1000, None, AT + 1).unwrap();
        (part_paid, cart_of(&mut l, &[("COF-001", 2)]))
    };
    {
        // The file as the build before held sales left it: no table, no triggers.
        let c = rusqlite::Connection::open(&path).unwrap();
        let triggers: Vec<String> = {
            let mut s = c.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'held_carts%'").unwrap();
            s.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
        };
        assert!(!triggers.is_empty());
        for t in triggers {
            c.execute_batch(&format!("DROP TRIGGER {t}")).unwrap();
        }
        c.execute_batch(&format!("DROP TABLE held_carts; PRAGMA user_version = {};", before_held())).unwrap();
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), MIGRATIONS.len() as i64);
    assert_eq!(why(l.carts_mut().hold(part_paid, 5, None, AT + 2).unwrap_err()), HoldRefusal::Tendered);
    l.carts_mut().hold(open, 5, None, AT + 2).unwrap();
    l.sales_mut().pay_cash(part_paid, MUG_YEN - 1000, None, AT + 3).unwrap();
    assert_eq!(l.sales().by_cart(part_paid).unwrap().state, SaleState::Paid);
    assert_eq!(l.carts().held().unwrap().len(), 1);
}
