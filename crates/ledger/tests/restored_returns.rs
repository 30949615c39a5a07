//! Returns of a sale restored from a replaced register (record 0144, schema v36). The
//! predecessor is a real ledger: its sale (split card 1,000 + cash) and its own return are
//! what it queued for the back office, and those rows are the replacement's restored
//! history, as the back office would hand them over. The replacement takes the sale back
//! in parts: bounded by what was sold less every return (the predecessor's counted), each
//! card refund its own row and key on the predecessor's payment and never more than the
//! payment has left, cash out of its own drawer, facts up naming the predecessor.

use crate::common;
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::{Returned, TaxClass};
use serde_json::Value;

pub(crate) const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC
pub(crate) const SRC: &str = "3f1c9a52-0000-4000-8000-00000000000a";
pub(crate) const COF: usize = 0;
pub(crate) const CRO: usize = 1;
pub(crate) const MUG: usize = 2;

pub(crate) fn store(seed: u64) -> Ledger {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(seed))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

pub(crate) fn back(line: usize, quantity: u32) -> Returned {
    Returned { line, quantity }
}

/// The predecessor: COF-001 ×2, CRO-001 ×3, MUG-001 ×1 paid 1,000 by card (captured, with
/// its PSP id) and the rest in cash; then `its_return` taken back there, its card refund
/// succeeded.
pub(crate) fn predecessor(its_return: &[Returned]) -> (Ledger, CartId, Payment) {
    let mut a = store(7);
    let cart = a.carts_mut().create(Currency::Jpy, AT).unwrap();
    for (sku, q) in [("COF-001", 2), ("CRO-001", 3), ("MUG-001", 1)] {
        a.carts_mut().add(cart, sku, q, AT).unwrap();
    }
    let t = a.sales_mut().open_card_tender(cart, Some(1000), &CheckoutOptions::card("pm_card_visa"), None, AT + 1).unwrap();
    a.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", AT + 1).unwrap();
    // The PSP named it (as the engine records its answer).
    a.connection().execute("UPDATE payments SET psp_payment_id = 'pi_pred_1' WHERE id = ?1", [t.payment.id.0]).unwrap();
    a.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Captured, "reply", AT + 1).unwrap();
    let due = a.sales().by_cart(cart).unwrap().totals.due_minor;
    a.sales_mut().pay_cash(cart, due, None, AT + 2).unwrap();
    if !its_return.is_empty() {
        let plan = a.returns_mut().take_back(cart, its_return, Some("stale"), false, AT + 3).unwrap();
        for (_, r) in &plan.card_refunds {
            a.refunds_mut().record_result(r.id, &format!("re_pred_{}", r.id.0), RefundState::Succeeded, AT + 4).unwrap();
        }
    }
    let p = a.payments().by_id(t.payment.id).unwrap();
    (a, cart, p)
}

/// What the predecessor queued, as restored rows.
pub(crate) fn history(a: &Ledger) -> Vec<RestoredRow> {
    a.sync_log().outbox_as_restored(0, 500).unwrap()
}

pub(crate) fn source(acked: u64) -> RestoreSourceRow {
    RestoreSourceRow {
        register_id: SRC.into(),
        register_name: "Front till".into(),
        acked_through: acked,
        described_json: "{}".into(),
        restored_through: 0,
        started_at_ms: 0,
        finished_at_ms: None,
    }
}

/// The replacement, with the predecessor's whole history restored.
pub(crate) fn replacement(rows: &[RestoredRow]) -> Ledger {
    let mut b = store(8);
    b.sync_log_mut().begin_restore(&source(rows.len() as u64), AT + 100).unwrap();
    b.sync_log_mut().append_restored(SRC, rows, AT + 100).unwrap();
    b
}

pub(crate) fn outbox(l: &Ledger) -> Vec<Value> {
    l.sync_log().outbox_batch(0, 500).unwrap().iter().map(|r| serde_json::from_str(&r.fact_json).unwrap()).collect()
}

pub(crate) fn settle(l: &mut Ledger, refunds: &[Refund], now: i64) {
    for r in refunds {
        l.refunds_mut().record_result(r.id, &format!("re_{}", r.id.0), RefundState::Succeeded, now).unwrap();
    }
}

#[test]
fn a_restored_sale_comes_back_in_two_parts_counting_the_predecessors_return_and_a_third_is_refused() {
    let (a, cart, pay) = predecessor(&[back(CRO, 1)]);
    let sale = a.sales().by_cart(cart).unwrap();
    let cro = sale.cart.lines[CRO].unit_price.amount_minor;
    let theirs = a.returns().by_sale(cart).unwrap();
    assert_eq!((theirs.len(), theirs[0].total_minor), (1, cro));
    let their_card: i64 = theirs[0].tenders.iter().filter(|t| t.refund_id.is_some()).map(|t| t.amount_minor).sum();
    let mut b = replacement(&history(&a));
    let outbox_before = b.sync_log().outbox_stats().unwrap().high_water;

    let s = b.returns().restored_sale(SRC, cart.0).unwrap();
    assert_eq!((s.receipt_no.as_str(), s.total_minor, s.returned.clone()), (format!("{:06}", cart.0).as_str(), sale.cart.total.amount_minor, vec![0, 1, 0]));
    assert_eq!(b.returns().restored_by_receipt(&s.receipt_no, None).unwrap(), (SRC.to_string(), cart.0));
    let drawer = b.sales().expected_drawer().unwrap();

    // First part: one croissant, worth exactly its price (tax included, one rate).
    let one = b.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], Some("stale"), AT + 200).unwrap();
    let r = &one.record;
    assert_eq!((r.seq, r.number.clone(), r.total_minor, r.sale_at_ms), (2, format!("{:06}-R2", cart.0), cro, s.completed_at_ms), "numbered after the predecessor's R1");
    assert_eq!(r.rates.iter().map(|x| (x.class, x.gross)).collect::<Vec<_>>(), [(TaxClass::Reduced, cro)]);
    // Cards first, at most what the predecessor's card has left after its own refund.
    let card_left = 1000 - their_card;
    let want_card = cro.min(card_left);
    assert_eq!(one.card_refunds.iter().map(|f| f.amount.amount_minor).sum::<i64>(), want_card);
    assert_eq!(one.cash_out_minor, cro - want_card);
    settle(&mut b, &one.card_refunds, AT + 201);

    // Second part: the last croissant.
    let two = b.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], None, AT + 210).unwrap();
    assert_eq!((two.record.seq, two.record.total_minor), (3, cro));
    settle(&mut b, &two.card_refunds, AT + 211);

    // Third: nothing of the line is left (the predecessor's one counted); nothing written.
    let commits = b.commit_count();
    let e = b.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], None, AT + 220).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { line: CRO, sold: 3, returned_before: 3, requested: 1, .. }), "{e:?}");
    assert_eq!(b.commit_count(), commits);

    // Every card refund of the replacement is its own row and key on the predecessor's
    // payment (its PSP id in the request), and no more went back than the card paid.
    let here: Vec<Refund> = one.card_refunds.iter().chain(&two.card_refunds).cloned().collect();
    let mut keys: Vec<&str> = here.iter().map(|f| f.idempotency_key.as_str()).collect();
    keys.dedup();
    assert_eq!(keys.len(), here.len());
    let restored = b.payments().by_key(&pay.idempotency_key).unwrap().unwrap();
    assert_eq!(restored.psp_payment_id.as_deref(), Some("pi_pred_1"));
    assert!(here.iter().all(|f| f.payment_id == restored.id && f.request_params.get("payment_intent") == Some("pi_pred_1")));
    assert!(their_card + here.iter().map(|f| f.amount.amount_minor).sum::<i64>() <= 1000);
    // Cash left THIS register's drawer.
    let cash = one.cash_out_minor + two.cash_out_minor;
    let now = b.sales().expected_drawer().unwrap();
    let before = drawer.iter().find(|(c, _)| *c == Currency::Jpy).map_or(0, |(_, m)| *m);
    assert_eq!(now.iter().find(|(c, _)| *c == Currency::Jpy).map_or(0, |(_, m)| *m), before - cash);

    // Up to the back office: the refunds (on the predecessor's key), the cash and the
    // returns naming the predecessor; never the predecessor's payment as this register's.
    let facts: Vec<Value> = outbox(&b).into_iter().skip(outbox_before as usize).collect();
    assert!(!facts.iter().any(|f| f["kind"] == "payment_created" || f["kind"] == "payment_state"), "{facts:?}");
    let refunds: Vec<&Value> = facts.iter().filter(|f| f["kind"] == "refund_created").collect();
    assert_eq!(refunds.len(), here.len());
    assert!(refunds.iter().all(|f| f["checkout_key"] == pay.idempotency_key.as_str()));
    let returns: Vec<&Value> = facts.iter().filter(|f| f["kind"] == "return_recorded").collect();
    assert_eq!(returns.len(), 2);
    assert_eq!((returns[0]["sale"].as_i64(), returns[0]["sale_register"].as_str(), returns[0]["total"].as_i64()), (Some(cart.0), Some(SRC), Some(cro)));
    let cash_facts: i64 = facts.iter().filter(|f| f["kind"] == "cash_refunded" && f["sale_register"] == SRC).map(|f| f["amount"].as_i64().unwrap()).sum();
    assert_eq!(cash_facts, cash);
    assert_eq!(b.returns().restored_returns_of(SRC, cart.0).unwrap().len(), 2);
    let audit = b.audit().log().unwrap();
    assert!(audit.iter().filter(|e| e.action == "restored_sale_return").count() == 2);
    assert!(b.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_card_gets_back_at_most_what_it_paid_and_the_rest_leaves_the_drawer() {
    let (a, cart, pay) = predecessor(&[back(MUG, 1)]);
    let theirs = a.returns().by_sale(cart).unwrap();
    let their_card: i64 = theirs[0].tenders.iter().filter(|t| t.refund_id.is_some()).map(|t| t.amount_minor).sum();
    assert_eq!(their_card, 1000, "the predecessor's mug took the whole card");
    let mut b = replacement(&history(&a));
    let s = b.returns().restored_sale(SRC, cart.0).unwrap();
    let card = s.tenders.iter().find(|t| t.kind == TenderKind::Card).unwrap();
    assert_eq!((card.predecessor_minor, card.left_minor), (1000, 0));

    // Everything left comes back: nothing on the card (it has nothing left), all in cash.
    let all = b.returns_mut().take_back_restored(SRC, cart.0, &[back(COF, 2), back(CRO, 3)], None, AT + 200).unwrap();
    assert!(all.card_refunds.is_empty());
    assert_eq!(all.cash_out_minor, all.record.total_minor);
    // All of the sale came back: exactly the sale, between the two registers.
    assert_eq!(theirs[0].total_minor + all.record.total_minor, s.total_minor);
    // And SQL's own guard: the predecessor's payment here refuses any refund past what it
    // has left (the predecessor's refund counted).
    let e = b.payments().by_key(&pay.idempotency_key).unwrap();
    assert!(e.is_none(), "no card refund here, so the payment was never written");
    let e = b.returns_mut().take_back_restored(SRC, cart.0, &[back(COF, 1)], None, AT + 210).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { .. }), "{e:?}");
}

#[test]
fn a_refund_of_the_predecessors_payment_counts_its_own_refunds() {
    // The predecessor's croissant took part of the card; here a mug takes the rest and no
    // more, and a refund by hand on the payment row is refused past what is left.
    let (a, cart, pay) = predecessor(&[back(CRO, 1)]);
    let cro = a.sales().by_cart(cart).unwrap().cart.lines[CRO].unit_price.amount_minor;
    let mut b = replacement(&history(&a));
    let r = b.returns_mut().take_back_restored(SRC, cart.0, &[back(MUG, 1)], None, AT + 200).unwrap();
    let card: i64 = r.card_refunds.iter().map(|f| f.amount.amount_minor).sum();
    assert_eq!(card, 1000 - cro.min(1000));
    settle(&mut b, &r.card_refunds, AT + 201);
    let p = b.payments().by_key(&pay.idempotency_key).unwrap().unwrap();
    assert_eq!((p.refunded_minor, p.state), (1000, PaymentState::Refunded));
    let p2 = b.payments().by_key(&pay.idempotency_key).unwrap().unwrap();
    let e = b.refunds_mut().create(p2.id, 1, None, AT + 202).unwrap_err();
    assert!(matches!(e, Error::NotRefundable { .. } | Error::RefundExceedsCaptured { .. }), "{e:?}");
}

#[test]
fn a_partly_refunded_predecessors_payment_is_never_refunded_past_its_amount() {
    // The predecessor's croissant refund succeeded; here, a refund by hand of the whole
    // amount on the payment row is refused (its own refund is no row of this ledger).
    let (a, cart, pay) = predecessor(&[back(CRO, 1)]);
    let cro = a.sales().by_cart(cart).unwrap().cart.lines[CRO].unit_price.amount_minor;
    let mut b = replacement(&history(&a));
    let r = b.returns_mut().take_back_restored(SRC, cart.0, &[back(COF, 1)], None, AT + 200).unwrap();
    settle(&mut b, &r.card_refunds, AT + 201);
    let p = b.payments().by_key(&pay.idempotency_key).unwrap().unwrap();
    let given = cro + r.card_refunds.iter().map(|f| f.amount.amount_minor).sum::<i64>();
    assert_eq!(p.refunded_minor, given);
    let e = b.refunds_mut().create(p.id, 1000 - given + 1, None, AT + 202).unwrap_err();
    assert!(matches!(e, Error::RefundExceedsCaptured { refundable_minor, .. } if refundable_minor == 1000 - given), "{e:?}");
    b.refunds_mut().create(p.id, 1000 - given, None, AT + 203).unwrap();
}

#[test]
fn refusals_write_nothing() {
    let (a, cart, _) = predecessor(&[]);
    let rows = history(&a);
    // A restore not finished: its returns and refunds may be in the part not pulled.
    let mut half = store(8);
    half.sync_log_mut().begin_restore(&source(rows.len() as u64 + 5), AT + 100).unwrap();
    half.sync_log_mut().append_restored(SRC, &rows, AT + 100).unwrap();
    let e = half.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], None, AT + 200).unwrap_err();
    assert!(matches!(e, Error::RestoreNotFinished { .. }), "{e:?}");

    let mut b = replacement(&rows);
    let commits = b.commit_count();
    let cases: Vec<(String, i64, Vec<Returned>)> = vec![
        ("nobody".into(), cart.0, vec![back(CRO, 1)]),
        (SRC.into(), cart.0 + 40, vec![back(CRO, 1)]),
        (SRC.into(), cart.0, vec![back(7, 1)]),
        (SRC.into(), cart.0, vec![back(CRO, 4)]),
        (SRC.into(), cart.0, vec![]),
        (SRC.into(), cart.0, vec![back(CRO, 1), back(CRO, 1)]),
    ];
    for (src, sale, items) in cases {
        let e = b.returns_mut().take_back_restored(&src, sale, &items, None, AT + 200).unwrap_err();
        let typed = matches!(
            e,
            Error::UnknownRestoreSource { .. }
                | Error::UnknownRestoredSale { .. }
                | Error::ReturnUnknownLine { line: 7, lines: 3, .. }
                | Error::ReturnExceedsSold { requested: 4, .. }
                | Error::InvalidInput(_)
        );
        assert!(typed, "{src} {sale} {items:?}: {e:?}");
    }
    // This register's tax settings give the sale other figures (another reduced rate here):
    // it is not valued from a guess.
    assert_eq!(b.commit_count(), commits);
    b.connection().execute("UPDATE tax_rates SET ppm = 90000 WHERE class = 'reduced'", []).unwrap();
    let commits = b.commit_count();
    let e = b.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], None, AT + 200).unwrap_err();
    assert!(matches!(e, Error::RestoredSaleNotValued { .. }), "{e:?}");
    assert_eq!(b.commit_count(), commits);
    assert_eq!(common::count(&b, "SELECT count(*) FROM restored_returns"), 0);
}

#[test]
fn the_upgrade_from_v35_keeps_payments_and_their_facts_and_adds_the_tables() {
    let before = common::before_restored_returns();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v35.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        common::seed(&mut l);
        common::new_payment(&mut l, 500, AT);
    }
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        common::undo_restored_returns(&c);
        c.execute_batch(&format!("PRAGMA user_version = {before};")).unwrap();
        let n: i64 = c.query_row("SELECT count(*) FROM sqlite_schema WHERE name = 'restored_returns'", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 0);
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    assert_eq!(common::count(&l, "SELECT count(*) FROM payments"), 1);
    // The payment triggers still send this register's own payments.
    let high = l.sync_log().outbox_stats().unwrap().high_water;
    common::new_payment(&mut l, 700, AT + 1);
    let facts: Vec<Value> = outbox(&l).into_iter().skip(high as usize).collect();
    assert!(facts.iter().any(|f| f["kind"] == "payment_created" && f["amount"] == 700), "{facts:?}");
    assert_eq!(common::count(&l, "SELECT count(*) FROM restored_returns"), 0);
}

/// Schema v39 (record 0144's print): a v38 file holding a restored return is upgraded in
/// place; the return is still read, its document's first print is the original and the next
/// a reprint, each with an audit row naming the text's SHA-256; SQLite refuses a second
/// "original" by plain SQL.
#[test]
fn the_upgrade_from_v38_keeps_a_restored_return_and_records_its_prints() {
    let before = common::before_restored_return_prints();
    let (a, cart, _) = predecessor(&[]);
    let rows = history(&a);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v38.db");
    let id = {
        let mut b = Ledger::open(&path).unwrap();
        b.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        b.sync_log_mut().begin_restore(&source(rows.len() as u64), AT + 100).unwrap();
        b.sync_log_mut().append_restored(SRC, &rows, AT + 100).unwrap();
        b.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], None, AT + 200).unwrap().record.id
    };
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        common::undo_restored_return_prints(&c);
        c.execute_batch(&format!("PRAGMA user_version = {before};")).unwrap();
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    let r = l.returns().restored_return(id).unwrap();
    assert_eq!(r.number, format!("{:06}-R1", cart.0));
    assert!(!l.returns().next_restored_print_is_reprint(id).unwrap());
    let off = PrintRecord { format: "escpos", target: "127.0.0.1:9100", outcome: PrintOutcome::Failed { may_have_printed: false }, error: Some("refused"), text: Some("doc") };
    let p0 = l.returns_mut().record_restored_print(id, &off, AT + 300).unwrap();
    assert!(!p0.reprint && !p0.paper, "{p0:?}");
    let on = PrintRecord { outcome: PrintOutcome::Printed, error: None, ..off };
    let p1 = l.returns_mut().record_restored_print(id, &on, AT + 301).unwrap();
    assert_eq!((p1.print_no, p1.reprint), (2, false), "a printer that was off printed nothing");
    let p2 = l.returns_mut().record_restored_print(id, &on, AT + 302).unwrap();
    assert_eq!((p2.print_no, p2.reprint), (3, true));
    assert!(l.returns().next_restored_print_is_reprint(id).unwrap());
    assert!(l.returns_mut().record_restored_print(id + 1, &on, AT + 303).is_err(), "an unknown return is refused");
    let sha = receipt_text_sha256("doc");
    assert_eq!(common::count(&l, &format!("SELECT count(*) FROM restored_return_prints WHERE text_sha256 = '{sha}'")), 3);
    assert_eq!(common::count(&l, &format!("SELECT count(*) FROM audit_log WHERE action = 'restored_return_print' AND json_extract(after_doc, '$.text_sha256') = '{sha}'")), 3);
    let forged = l.connection().execute(
        "INSERT INTO restored_return_prints (return_id, print_no, reprint, format, target, outcome, at_ms, paper, text_sha256, audit_seq)
         VALUES (?1, 9, 0, 'escpos', 't', 'printed', 1, 1, ?2, 1)",
        rusqlite::params![id, sha],
    );
    assert!(forged.is_err(), "an unmarked copy after paper came out is refused by SQLite");
}
