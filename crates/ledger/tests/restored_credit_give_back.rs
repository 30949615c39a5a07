//! A restored exchange's credit given back (record 0156, schema v43). Register A (record 0144's
//! predecessor: COF ×2, CRO ×3, MUG ×1, ¥2,810, paid ¥1,000 by card and ¥1,810 in cash) is
//! replaced by B. At B a mug and a croissant of A's sale come back into B's sale of two mugs:
//! the credit (¥1,870) comes out of A's card (¥1,000) and A's cash (¥870); B's own card pays
//! the ¥1,430 left. When the mugs come back, B's own card is refunded first, then the credit's
//! part goes back where it came from: a refund on A's payment under a new key, cash out of B's
//! drawer with a `cash_refunded` fact naming A; never more than A's tenders have left, each
//! refund once, a crash's retry never a second.

use crate::common;
use crate::restored_returns::{back, history, outbox, predecessor, replacement, SRC, AT, COF, CRO, MUG};
use paydesk_domain::*;
use paydesk_ledger::*;

const MUG_YEN: i64 = 1650;
const CRO_YEN: i64 = 220;
const CREDIT: i64 = MUG_YEN + CRO_YEN;
const B_CARD: i64 = 2 * MUG_YEN - CREDIT;

fn settle(l: &mut Ledger, refunds: &[Refund], now: i64) {
    for r in refunds {
        l.refunds_mut().record_result(r.id, &format!("re_{}", r.id.0), RefundState::Succeeded, now).unwrap();
    }
}

/// Every card refund a return committed (its own tenders' and its restored credit's).
fn refunds_of(p: &ReturnPlan) -> Vec<Refund> {
    p.card_refunds.iter().map(|(_, r)| r.clone()).chain(p.restored_card_refunds.iter().cloned()).collect()
}

fn drawer(l: &Ledger) -> i64 {
    l.sales().expected_drawer().unwrap().iter().filter(|(c, _)| *c == Currency::Jpy).map(|(_, a)| a).sum()
}

/// What went back to a card payment (every refund not failed).
fn refunded_to(l: &Ledger, p: PaymentId) -> i64 {
    common::count(l, &format!("SELECT COALESCE(SUM(amount_minor), 0) FROM refunds WHERE payment_id = {} AND state != 'failed'", p.0))
}

/// B's sale of two mugs, a mug and a croissant of A's sale exchanged into it, the rest paid
/// by B's own card (captured). Answers (A's sale, A's payment, B's sale, B's payment).
fn exchanged_and_paid_by_card(b: &mut Ledger, a_cart: CartId) -> (CartId, PaymentId) {
    let s2 = b.carts_mut().create(Currency::Jpy, AT + 150).unwrap();
    b.carts_mut().add(s2, "MUG-001", 2, AT + 150).unwrap();
    let x = b.returns_mut().exchange_restored(SRC, a_cart.0, &[back(MUG, 1), back(CRO, 1)], s2, Some("wrong colour"), AT + 200).unwrap();
    assert_eq!((x.credit_minor, x.ret.card_refunds.len(), x.ret.cash_out_minor), (CREDIT, 0, 0), "all of it credit");
    assert_eq!(x.new_sale.totals.due_minor, B_CARD);
    let t = b.sales_mut().open_card_tender(s2, None, &CheckoutOptions::card("pm_card_visa"), None, AT + 210).unwrap();
    b.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", AT + 210).unwrap();
    b.connection().execute("UPDATE payments SET psp_payment_id = 'pi_b_1' WHERE id = ?1", [t.payment.id.0]).unwrap();
    b.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Captured, "reply", AT + 210).unwrap();
    assert_eq!(b.sales().by_cart(s2).unwrap().state, SaleState::Paid, "credit plus B's card");
    let s1 = b.returns().restored_sale(SRC, a_cart.0).unwrap();
    let held: Vec<(TenderKind, i64)> = s1.tenders.iter().map(|t| (t.kind, t.credited_minor)).collect();
    assert_eq!(held, [(TenderKind::Card, 1000), (TenderKind::Cash, CREDIT - 1000)], "cards first, then cash");
    (s2, t.payment.id)
}

/// The whole path: B's card first, then A's card under a new key, then B's drawer; a third
/// return and a refund beyond what is left refused with nothing written; the rest of A's
/// sale then comes back as a restored return, and everything adds up to what A took.
#[test]
fn a_sale_paid_by_a_restored_credit_gives_it_back_through_the_predecessors_card_then_this_drawer() {
    let (a, a_cart, a_pay) = predecessor(&[]);
    let a_total = a.sales().by_cart(a_cart).unwrap().cart.total.amount_minor;
    assert_eq!(a_total, 2 * 250 + 3 * CRO_YEN + MUG_YEN, "the set-up");
    let mut b = replacement(&history(&a));
    let drawer0 = drawer(&b);
    let (s2, b_pay) = exchanged_and_paid_by_card(&mut b, a_cart);
    let outbox0 = outbox(&b).len();

    // 1. One mug back: B's own card gives back all it paid (1,430), then the credit's 220
    //    goes back to A's card, under a key of its own, on A's payment.
    let r1 = b.returns_mut().take_back(s2, &[back(0, 1)], Some("changed mind"), false, AT + 300).unwrap();
    assert_eq!((r1.record.total_minor, r1.cash_out_minor), (MUG_YEN, 0));
    assert_eq!(r1.card_refunds.iter().map(|(_, r)| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(b_pay, B_CARD)]);
    let a_pid = b.payments().by_key(&a_pay.idempotency_key).unwrap().unwrap().id;
    assert_eq!(r1.restored_card_refunds.iter().map(|r| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(a_pid, MUG_YEN - B_CARD)]);
    let a_refund = &r1.restored_card_refunds[0];
    assert_ne!(a_refund.idempotency_key, a_pay.idempotency_key, "a new key, not A's checkout key");
    assert_eq!(a_refund.request_params.get("payment_intent"), Some("pi_pred_1"), "on A's payment at the PSP");
    assert_eq!(
        r1.record.restored_tenders.iter().map(|t| (t.register.as_str(), t.sale_id, t.amount_minor, t.refund_id)).collect::<Vec<_>>(),
        [(SRC, a_cart.0, MUG_YEN - B_CARD, Some(a_refund.id))]
    );
    settle(&mut b, &refunds_of(&r1), AT + 301);
    let s1 = b.returns().restored_sale(SRC, a_cart.0).unwrap();
    let card = s1.tenders.iter().find(|t| t.kind == TenderKind::Card).unwrap();
    assert_eq!((card.given_back_minor, card.credited_minor, card.left_minor), (220, 780, 0), "given back, no longer held, nothing free");

    // 2. The other mug: the rest of A's card (780), then A's cash out of B's drawer (870).
    let r2 = b.returns_mut().take_back(s2, &[back(0, 1)], None, false, AT + 310).unwrap();
    assert!(r2.card_refunds.is_empty(), "B's card has nothing left");
    assert_eq!(r2.restored_card_refunds.iter().map(|r| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(a_pid, 780)]);
    assert_eq!(r2.cash_out_minor, CREDIT - 1000);
    assert_eq!(r2.record.cash_out_minor, CREDIT - 1000);
    let keys: Vec<String> = refunds_of(&r1).iter().chain(&refunds_of(&r2)).map(|r| r.idempotency_key.clone()).collect();
    let mut distinct = keys.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "one key per refund: {keys:?}");
    settle(&mut b, &refunds_of(&r2), AT + 311);
    assert_eq!(refunded_to(&b, a_pid), 1000, "A's card: its whole 1,000 back, never more");
    assert_eq!(refunded_to(&b, b_pay), B_CARD, "B's card: what it paid");
    assert_eq!(drawer(&b), drawer0 - (CREDIT - 1000));

    // 3. Nothing of B's sale is left: a third return and a refund by amount are refused,
    //    nothing written.
    let commits = b.commit_count();
    let e = b.returns_mut().take_back(s2, &[back(0, 1)], None, false, AT + 320).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { .. }), "{e:?}");
    let e = b.sales_mut().plan_refund(s2, Some(1), None, AT + 321).unwrap_err();
    assert!(matches!(e, Error::SaleRefundExceeds { refundable_minor: 0, .. }), "{e:?}");
    assert_eq!(b.commit_count(), commits);

    // 4. A's sale: the credit gave everything back; what is left is its unreturned goods,
    //    all of it cash now; a restored return takes it, and the totals are A's sale.
    let s1 = b.returns().restored_sale(SRC, a_cart.0).unwrap();
    assert!(s1.tenders.iter().all(|t| t.credited_minor == 0), "the credit holds nothing: {:?}", s1.tenders);
    let left: i64 = s1.tenders.iter().map(|t| t.left_minor).sum();
    assert_eq!(left, 2 * 250 + 2 * CRO_YEN);
    let rest = b.returns_mut().take_back_restored(SRC, a_cart.0, &[back(COF, 2), back(CRO, 2)], None, AT + 330).unwrap();
    assert!(rest.card_refunds.is_empty());
    assert_eq!(rest.cash_out_minor, left);
    let s1 = b.returns().restored_sale(SRC, a_cart.0).unwrap();
    assert!(s1.tenders.iter().all(|t| t.left_minor == 0 && t.given_back_minor == t.amount_minor), "{:?}", s1.tenders);
    assert_eq!(refunded_to(&b, a_pid) + (drawer0 - drawer(&b)), a_total, "A's sale back in full, once");

    // To the back office: the refunds on A's payment with A's checkout key (v7), the cash as
    // A's sale's `cash_refunded` naming A, B's returns as B's own.
    let facts = &outbox(&b)[outbox0..];
    let refunds: Vec<_> = facts.iter().filter(|f| f["kind"] == "refund_created").map(|f| (f["checkout_key"].clone(), f["amount"].clone())).collect();
    let ak = a_pay.idempotency_key.as_str();
    assert!(refunds.contains(&(ak.into(), 220.into())) && refunds.contains(&(ak.into(), 780.into())), "{refunds:?}");
    let cash: Vec<_> = facts.iter().filter(|f| f["kind"] == "cash_refunded").map(|f| (f["sale"].clone(), f["amount"].clone(), f["sale_register"].clone())).collect();
    assert_eq!(cash[0], (a_cart.0.into(), (CREDIT - 1000).into(), SRC.into()), "{cash:?}");
    let b_returns: Vec<_> = facts.iter().filter(|f| f["kind"] == "return_recorded" && f["sale_register"].is_null()).map(|f| (f["sale"].clone(), f["total"].clone(), f["cash_out"].clone())).collect();
    assert_eq!(b_returns, [(s2.0.into(), MUG_YEN.into(), 0.into()), (s2.0.into(), MUG_YEN.into(), (CREDIT - 1000).into())]);
    assert!(b.audit().verify(None).unwrap().is_intact());
}

/// A crash right after the return's commit, before any refund was sent: each refund is on
/// file once with its key for recovery; the same return again is refused (its goods are back),
/// a refund by amount waits for the open refund on A's payment, and A's card never passes its
/// 1,000. A give-back whose refund then fails is held by the credit again and goes back once.
#[test]
fn a_crash_after_the_give_back_leaves_one_refund_per_key_and_a_retry_never_a_second() {
    let (a, a_cart, a_pay) = predecessor(&[]);
    let rows = history(&a);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.db");
    let (s2, keys) = {
        let mut b = Ledger::open(&path).unwrap();
        b.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        b.sync_log_mut().begin_restore(&crate::restored_returns::source(rows.len() as u64), AT + 100).unwrap();
        b.sync_log_mut().append_restored(SRC, &rows, AT + 100).unwrap();
        let (s2, _) = exchanged_and_paid_by_card(&mut b, a_cart);
        let r = b.returns_mut().take_back(s2, &[back(0, 2)], None, false, AT + 300).unwrap();
        assert_eq!(r.restored_card_refunds.iter().map(|r| r.amount.amount_minor).sum::<i64>(), 1000);
        let keys: Vec<String> = refunds_of(&r).iter().map(|r| r.idempotency_key.clone()).collect();
        (s2, keys)
        // Dropped here: the process died before any refund was requested.
    };
    let mut b = Ledger::open(&path).unwrap();
    let a_pid = b.payments().by_key(&a_pay.idempotency_key).unwrap().unwrap().id;
    let on_a = b.refunds().for_payment(a_pid).unwrap();
    assert_eq!(on_a.len(), 1, "one refund on A's payment");
    let recovery: Vec<String> = b.refunds().needing_recovery().unwrap().into_iter().map(|r| r.idempotency_key).collect();
    assert!(keys.iter().all(|k| recovery.contains(k)), "recovery resolves each under its key: {keys:?} {recovery:?}");
    let commits = b.commit_count();
    let e = b.returns_mut().take_back(s2, &[back(0, 1)], None, false, AT + 400).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { .. }), "{e:?}");
    let e = b.sales_mut().plan_refund(s2, None, None, AT + 401).unwrap_err();
    assert!(matches!(e, Error::RefundInProgress { .. } | Error::SaleRefundExceeds { .. }), "{e:?}");
    assert_eq!(b.commit_count(), commits, "refusals write nothing");
    assert_eq!(b.refunds().for_payment(a_pid).unwrap().len(), 1);

    // Recovery finds A's refund failed at the PSP: the credit holds it again, and a refund by
    // amount gives it back once, under a new key, never past A's 1,000.
    let r = on_a[0].clone();
    b.refunds_mut().record_result(r.id, "re_failed", RefundState::Failed, AT + 500).unwrap();
    let s1 = b.returns().restored_sale(SRC, a_cart.0).unwrap();
    let card = s1.tenders.iter().find(|t| t.kind == TenderKind::Card).unwrap();
    assert_eq!((card.given_back_minor, card.credited_minor), (0, 1000), "the failed refund gave nothing back");
    for rf in b.refunds().needing_recovery().unwrap() {
        b.refunds_mut().record_result(rf.id, "re_ok", RefundState::Succeeded, AT + 501).unwrap();
    }
    let again = b.sales_mut().plan_refund(s2, None, None, AT + 510).unwrap();
    assert!(again.card_refunds.is_empty() && again.cash_out_minor == 0);
    assert_eq!(again.restored_card_refunds.iter().map(|r| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(a_pid, 1000)]);
    assert!(!keys.contains(&again.restored_card_refunds[0].idempotency_key), "a new key");
    settle(&mut b, &again.restored_card_refunds, AT + 511);
    assert_eq!(refunded_to(&b, a_pid), 1000);
    let e = b.sales_mut().plan_refund(s2, Some(1), None, AT + 520).unwrap_err();
    assert!(matches!(e, Error::SaleRefundExceeds { .. }), "{e:?}");
}

/// SQLite's last word (v43): a give-back past what the credit part holds, or on a payment
/// that is not a restored one, is refused.
#[test]
fn sqlite_refuses_a_give_back_past_the_credit_or_off_a_restored_payment() {
    let (a, a_cart, _) = predecessor(&[]);
    let mut b = replacement(&history(&a));
    let (s2, b_pay) = exchanged_and_paid_by_card(&mut b, a_cart);
    let r = b.returns_mut().take_back(s2, &[back(0, 1)], None, false, AT + 300).unwrap();
    let own = r.card_refunds[0].1.id;
    settle(&mut b, &refunds_of(&r), AT + 301);
    let card_part: i64 = common::count(&b, "SELECT id FROM restored_exchange_credits WHERE tender_seq = (SELECT MIN(tender_seq) FROM restored_exchange_credits)");
    let a_refund = r.restored_card_refunds[0].id;
    let over = b.connection().execute(
        "INSERT INTO restored_exchange_credit_returns (credit_id, amount_minor, movement_id) VALUES (?1, 781, NULL)",
        rusqlite::params![card_part],
    );
    assert!(over.is_err(), "neither a refund nor a movement");
    let m = b.connection().execute(
        "INSERT INTO cash_movements (at_ms, kind, amount_minor, currency) VALUES (1, 'refund_out', -781, 'jpy')",
        [],
    );
    m.unwrap();
    {
        let mid = b.connection().last_insert_rowid();
        let past = b.connection().execute(
            "INSERT INTO restored_exchange_credit_returns (credit_id, amount_minor, movement_id) VALUES (?1, 781, ?2)",
            rusqlite::params![card_part, mid],
        );
        assert!(past.unwrap_err().to_string().contains("more than it holds"));
    }
    let off = b.connection().execute(
        "INSERT INTO restored_exchange_credit_returns (credit_id, amount_minor, refund_id) VALUES (?1, 1, ?2)",
        rusqlite::params![card_part, own.0],
    );
    assert!(off.unwrap_err().to_string().contains("restored here"), "B's own payment's refund is not A's");
    let moved = b.connection().execute("UPDATE restored_exchange_credit_returns SET amount_minor = 1 WHERE refund_id = ?1", [a_refund.0]);
    assert!(moved.is_err(), "written once");
    let _ = b_pay;
}

/// Schema v43 on a v42 file holding a restored exchange: the upgrade adds the table; the new
/// sale's credit then goes back as on a new file.
#[test]
fn the_upgrade_from_v42_gives_a_restored_credit_back() {
    let v43 = paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("CREATE TABLE IF NOT EXISTS restored_exchange_credit_returns"))
        .expect("the restored credit returns migration");
    let (a, a_cart, a_pay) = predecessor(&[]);
    let rows = history(&a);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v42.db");
    let s2 = {
        let mut b = Ledger::open(&path).unwrap();
        b.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        b.sync_log_mut().begin_restore(&crate::restored_returns::source(rows.len() as u64), AT + 100).unwrap();
        b.sync_log_mut().append_restored(SRC, &rows, AT + 100).unwrap();
        exchanged_and_paid_by_card(&mut b, a_cart).0
    };
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        common::undo_restored_credit_returns(&c);
        c.execute_batch(&format!("PRAGMA user_version = {v43};")).unwrap();
        assert_eq!(common::count_in(&c, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'restored_credit_returns%' OR name LIKE 'restored_exchange_credit_returns%'"), 0);
    }
    let mut b = Ledger::open(&path).unwrap();
    assert_eq!(b.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    let r = b.returns_mut().take_back(s2, &[back(0, 2)], None, false, AT + 300).unwrap();
    let a_pid = b.payments().by_key(&a_pay.idempotency_key).unwrap().unwrap().id;
    assert_eq!(r.restored_card_refunds.iter().map(|r| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(a_pid, 1000)]);
    assert_eq!(r.cash_out_minor, CREDIT - 1000);
    assert_eq!(common::count(&b, "SELECT count(*) FROM restored_exchange_credit_returns"), 2);
}
