//! A new ryōshūsho for what the customer kept after a return (issue #29, record 0145,
//! schema v37): the amounts are the sale's total less what came back, paid by what each
//! tender still holds; the one it replaces stays handed back and is never reprinted; a
//! second return needs the NEW one back; refusals write nothing; SQLite refuses a
//! ryōshūsho for more than was kept; and the upgrade from the file before v37.

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::{Returned, TaxClass};

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

/// Lines: 0 COF-001 ×2 (¥250, 8 %), 1 CRO-001 ×3 (¥220, 8 %), 2 MUG-001 ×1 (¥1,650, 10 %):
/// ¥2,810 in a ja-JP demo store, ¥1,000 by card and ¥1,810 in cash.
const CRO: usize = 1;
const MUG: usize = 2;
const TOTAL: i64 = 2810;

fn store() -> Ledger {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

fn split_sale(l: &mut Ledger) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    for (sku, q) in [("COF-001", 2), ("CRO-001", 3), ("MUG-001", 1)] {
        l.carts_mut().add(cart, sku, q, AT).unwrap();
    }
    let t = l.sales_mut().open_card_tender(cart, Some(1000), &CheckoutOptions::card("pm_card_visa"), None, AT + 1).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", AT + 1).unwrap();
    l.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Captured, "reply", AT + 1).unwrap();
    l.sales_mut().pay_cash(cart, TOTAL - 1000, None, AT + 2).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().totals.total_minor, TOTAL);
    cart
}

fn words<'a>(total: i64, cash: i64) -> RyoshushoIssue<'a> {
    RyoshushoIssue { addressee: "株式会社ペイデスク", description: "お品代として", total_minor: total, cash_minor: cash, stamp_duty_minor: None, issued_by: None }
}

/// Takes back `items` (the ryōshūsho handed back when `handed`) and settles its card refunds.
fn take_back(l: &mut Ledger, cart: CartId, items: &[Returned], handed: bool, now: i64) -> Result<ReturnPlan> {
    let plan = l.returns_mut().take_back(cart, items, None, handed, now)?;
    for (_, r) in &plan.card_refunds {
        l.refunds_mut().record_result(r.id, &format!("re_{}", r.id.0), RefundState::Succeeded, now).unwrap();
    }
    Ok(plan)
}

fn back(line: usize, quantity: u32) -> Returned {
    Returned { line, quantity }
}

fn number(cart: CartId, generation: i64) -> String {
    format!("{:06}-{generation}", cart.0)
}

fn refused(e: &Error) -> Option<&ReissueRefusal> {
    match e {
        Error::RyoshushoReissueRefused { why, .. } => Some(why),
        _ => None,
    }
}

#[test]
fn a_new_ryoshusho_states_what_was_kept_and_replaces_the_one_handed_back() {
    let mut l = store();
    let cart = split_sale(&mut l);
    l.receipts_mut().issue_ryoshusho(cart, &words(TOTAL, 1810), AT + 3).unwrap();
    // One croissant back (¥220, 8 %): the card first, as any return.
    take_back(&mut l, cart, &[back(CRO, 1)], true, AT + 4).unwrap();

    let kept = l.receipts().ryoshusho_kept(cart).unwrap();
    assert_eq!((kept.total_minor, kept.cash_minor), (TOTAL - 220, 1810));
    let parts: Vec<(TenderKind, bool, i64)> = kept.parts.iter().map(|p| (p.kind, p.counts_for_stamp, p.amount_minor)).collect();
    assert_eq!(parts, vec![(TenderKind::Cash, true, 1810), (TenderKind::Card, false, 780)]);
    assert_eq!(kept.returned.len(), 1);
    assert_eq!((kept.returned[0].class, kept.returned[0].ppm, kept.returned[0].gross), (TaxClass::Reduced, 80_000, 220));

    let new = l.receipts_mut().reissue_ryoshusho(cart, &words(TOTAL - 220, 1810), AT + 5).unwrap();
    assert!(!new.reprint);
    let r = &new.record;
    assert_eq!((r.number.clone(), r.generation, r.replaces.clone()), (number(cart, 2), 2, Some(number(cart, 1))));
    assert_eq!((r.total_minor, r.cash_minor, r.print_count, r.addressee.as_str()), (TOTAL - 220, 1810, 1, "株式会社ペイデスク"));

    // The new one is the sale's: valid, reprinted as a reprint, counted.
    assert_eq!(l.receipts().ryoshusho(cart).unwrap().as_ref(), Some(r));
    assert_eq!(l.receipts().ryoshusho_taken_back(cart).unwrap(), None);
    let again = l.receipts_mut().issue_ryoshusho(cart, &words(TOTAL - 220, 1810), AT + 6).unwrap();
    assert!(again.reprint);
    assert_eq!(again.record, RyoshushoRecord { print_count: 2, ..r.clone() });
    // The old one is marked replaced and stays handed back.
    let history = l.receipts().ryoshusho_history(cart).unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!((history[0].record.number.clone(), history[0].taken_back_at_ms, history[0].replaced_by.clone()), (number(cart, 1), Some(AT + 4), Some(number(cart, 2))));
    assert_eq!((history[1].taken_back_at_ms, history[1].replaced_by.clone(), history[1].record.print_count), (None, None, 2));
    assert_eq!(history[0].record.print_count, 1, "the old number was never printed again");

    let audit: Vec<String> = l.audit().log().unwrap().into_iter().map(|e| e.action).filter(|a| a.starts_with("ryoshusho")).collect();
    assert_eq!(audit, ["ryoshusho_issue", "ryoshusho_taken_back", "ryoshusho_reissue", "ryoshusho_reprint"]);
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_second_return_needs_the_new_one_back_and_the_old_numbers_are_never_reprinted() {
    let mut l = store();
    let cart = split_sale(&mut l);
    l.receipts_mut().issue_ryoshusho(cart, &words(TOTAL, 1810), AT + 3).unwrap();
    take_back(&mut l, cart, &[back(CRO, 1)], true, AT + 4).unwrap();
    l.receipts_mut().reissue_ryoshusho(cart, &words(TOTAL - 220, 1810), AT + 5).unwrap();

    // The first one came back already; the second is with the customer now.
    let commits = l.commit_count();
    let e = take_back(&mut l, cart, &[back(MUG, 1)], false, AT + 6).unwrap_err();
    assert!(matches!(&e, Error::RyoshushoNotTakenBack { number: n, .. } if *n == number(cart, 2)), "{e:?}");
    assert_eq!(l.commit_count(), commits, "nothing written");

    // The mug (¥1,650): the card's ¥780 left, then ¥870 of cash.
    let ret = take_back(&mut l, cart, &[back(MUG, 1)], true, AT + 7).unwrap().record;
    assert!(ret.ryoshusho_taken_back);
    assert_eq!(l.receipts().ryoshusho_taken_back(cart).unwrap(), Some(AT + 7));
    // Neither number prints again: the newest came back, the older one was replaced.
    let e = l.receipts_mut().issue_ryoshusho(cart, &words(TOTAL - 220, 1810), AT + 8).unwrap_err();
    assert!(matches!(&e, Error::RyoshushoTakenBack { number: n, .. } if *n == number(cart, 2)), "{e:?}");

    // A third generation for what is left: ¥940, all of it cash.
    let kept = l.receipts().ryoshusho_kept(cart).unwrap();
    assert_eq!((kept.total_minor, kept.cash_minor), (TOTAL - 220 - 1650, 940));
    let third = l.receipts_mut().reissue_ryoshusho(cart, &words(940, 940), AT + 9).unwrap().record;
    assert_eq!((third.number.clone(), third.replaces.clone()), (number(cart, 3), Some(number(cart, 2))));
    let history = l.receipts().ryoshusho_history(cart).unwrap();
    let standing: Vec<(i64, Option<i64>, Option<String>)> = history.iter().map(|g| (g.record.generation, g.taken_back_at_ms, g.replaced_by.clone())).collect();
    assert_eq!(standing, vec![(1, Some(AT + 4), Some(number(cart, 2))), (2, Some(AT + 7), Some(number(cart, 3))), (3, None, None)]);
    // A refund by amount needs the third back too.
    let e = l.sales_mut().plan_refund(cart, Some(100), None, AT + 10).unwrap_err();
    assert!(matches!(&e, Error::RyoshushoNotTakenBack { number: n, .. } if *n == number(cart, 3)), "{e:?}");
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn refusals_write_nothing() {
    let mut l = store();
    let cart = split_sale(&mut l);
    let w = words(TOTAL - 220, 1810);
    // No ryōshūsho at all.
    let e = l.receipts_mut().reissue_ryoshusho(cart, &w, AT + 3).unwrap_err();
    assert_eq!(refused(&e), Some(&ReissueRefusal::NoneIssued), "{e:?}");
    l.receipts_mut().issue_ryoshusho(cart, &words(TOTAL, 1810), AT + 3).unwrap();
    // Still with the customer: it is reprinted, not replaced.
    let e = l.receipts_mut().reissue_ryoshusho(cart, &w, AT + 4).unwrap_err();
    assert_eq!(refused(&e), Some(&ReissueRefusal::StillValid { number: number(cart, 1) }), "{e:?}");

    take_back(&mut l, cart, &[back(CRO, 1)], true, AT + 5).unwrap();
    let commits = l.commit_count();
    // More than was kept, or another cash part: refused whatever the engine asks.
    for (total, cash) in [(TOTAL, 1810), (TOTAL - 219, 1810), (TOTAL - 220, 1811), (TOTAL - 220, 0)] {
        let e = l.receipts_mut().reissue_ryoshusho(cart, &words(total, cash), AT + 6).unwrap_err();
        assert!(matches!(e, Error::InvalidAmount(_)), "{total}/{cash}: {e:?}");
    }
    assert_eq!(l.commit_count(), commits, "nothing written");

    // Money given back by amount: what was kept is not stated per rate.
    let other = split_sale(&mut l);
    l.receipts_mut().issue_ryoshusho(other, &words(TOTAL, 1810), AT + 7).unwrap();
    let plan = l.sales_mut().plan_refund_with(other, Some(100), None, true, AT + 8).unwrap();
    for (_, r) in &plan.card_refunds {
        l.refunds_mut().record_result(r.id, &format!("re_{}", r.id.0), RefundState::Succeeded, AT + 8).unwrap();
    }
    let e = l.receipts_mut().reissue_ryoshusho(other, &w, AT + 9).unwrap_err();
    assert_eq!(refused(&e), Some(&ReissueRefusal::NoReturn), "{e:?}");
    take_back(&mut l, other, &[back(CRO, 1)], false, AT + 10).unwrap();
    let e = l.receipts().ryoshusho_kept(other).unwrap_err();
    assert_eq!(refused(&e), Some(&ReissueRefusal::KeptNotStated { by_returns: TOTAL - 220, by_tenders: TOTAL - 320 }), "{e:?}");

    // Everything back: nothing to state.
    let all = split_sale(&mut l);
    l.receipts_mut().issue_ryoshusho(all, &words(TOTAL, 1810), AT + 11).unwrap();
    take_back(&mut l, all, &[back(0, 2), back(CRO, 3), back(MUG, 1)], true, AT + 12).unwrap();
    let e = l.receipts_mut().reissue_ryoshusho(all, &w, AT + 13).unwrap_err();
    assert_eq!(refused(&e), Some(&ReissueRefusal::NothingKept), "{e:?}");
    assert_eq!(l.connection().query_row("SELECT count(*) FROM ryoshusho_reissues", [], |r| r.get::<_, i64>(0)).unwrap(), 0);
}

#[test]
fn sqlite_refuses_more_than_was_kept_a_skipped_generation_and_a_second_valid_one() {
    let mut l = store();
    let cart = split_sale(&mut l);
    l.receipts_mut().issue_ryoshusho(cart, &words(TOTAL, 1810), AT + 3).unwrap();
    let ret = take_back(&mut l, cart, &[back(CRO, 1)], true, AT + 4).unwrap().record;
    let c = l.connection();
    let insert = |generation: i64, total: i64| {
        c.execute(
            "INSERT INTO ryoshusho_reissues (cart_id, generation, number, addressee, description, total_minor, cash_minor,
                                             after_return_id, issued_at_ms, last_issued_at_ms)
             VALUES (?1, ?2, ?3, '', 'x', ?4, 0, ?5, 1, 1)",
            rusqlite::params![cart.0, generation, number(cart, generation), total, ret.id],
        )
    };
    let e = insert(2, TOTAL - 219).unwrap_err().to_string();
    assert!(e.contains("more than the customer kept"), "{e}");
    let e = insert(3, TOTAL - 220).unwrap_err().to_string();
    assert!(e.contains("in place of the newest one"), "{e}");
    insert(2, TOTAL - 220).unwrap();
    // The second generation is not handed back: no third beside it.
    let e = insert(3, 100).unwrap_err().to_string();
    assert!(e.contains("in place of the newest one"), "{e}");
    c.execute("UPDATE ryoshusho_reissues SET taken_back_at_ms = 5 WHERE cart_id = ?1", [cart.0]).unwrap();
    let e = c.execute("UPDATE ryoshusho_reissues SET taken_back_at_ms = NULL WHERE cart_id = ?1", [cart.0]).unwrap_err().to_string();
    assert!(e.contains("stays handed back"), "{e}");
}

#[test]
fn the_upgrade_from_the_file_before_v37_keeps_every_row_and_then_reissues() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let cart = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        let cart = split_sale(&mut l);
        l.receipts_mut().issue_ryoshusho(cart, &words(TOTAL, 1810), AT + 3).unwrap();
        take_back(&mut l, cart, &[back(CRO, 1)], true, AT + 4).unwrap();
        cart
    };
    let before = paydesk_ledger::schema::MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS ryoshusho_reissues")).unwrap();
    let counts = |c: &rusqlite::Connection| -> Vec<(String, i64)> {
        let names: Vec<String> = c
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'ryoshusho_reissues' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        names.into_iter().map(|n| (n.clone(), c.query_row(&format!("SELECT count(*) FROM \"{n}\""), [], |r| r.get(0)).unwrap())).collect()
    };
    let rows = {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("DROP TABLE ryoshusho_reissues; PRAGMA user_version = {before};")).unwrap();
        counts(&c)
    };
    assert!(rows.iter().any(|(n, k)| n == "ryoshusho_taken_back" && *k == 1), "{rows:?}");

    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(counts(l.connection()), rows, "every row of every table kept");
    assert!(l.audit().verify(None).unwrap().is_intact());
    let r = l.receipts_mut().reissue_ryoshusho(cart, &words(TOTAL - 220, 1810), AT + 5).unwrap().record;
    assert_eq!(r.number, number(cart, 2));
}
