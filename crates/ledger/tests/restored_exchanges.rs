//! Exchanges of a sale restored from a replaced register (record 0153, schema v40). The
//! predecessor is a real ledger (record 0144's test set-up: COF ×2, CRO ×3, MUG ×1 paid
//! 1,000 by card and the rest in cash); its queued facts are the replacement's restored
//! history. The goods of its sale come back at the replacement into a new sale of the
//! replacement's: as much as the new sale has open is its credit, out of the predecessor's
//! tenders (cards first), which keep it; the rest goes back cards first (a refund with its
//! own key on the predecessor's payment), then out of this drawer. Everything together never
//! gives back more than was sold or a tender more than it paid. Since schema v42 the
//! exchange's link goes up too: `exchange_recorded` naming the predecessor (`sale_register`),
//! right after the restored return's own fact.

use crate::common;
use crate::restored_returns::{back, history, outbox, predecessor, replacement, settle, source, store, AT, COF, CRO, MUG, SRC};
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::Returned;

/// A new sale at the replacement of `sku` × `q`.
fn new_sale(b: &mut Ledger, items: &[(&str, u32)], at: i64) -> CartId {
    let cart = b.carts_mut().create(Currency::Jpy, at).unwrap();
    for (sku, q) in items {
        b.carts_mut().add(cart, sku, i64::from(*q), at).unwrap();
    }
    cart
}

fn card_of(s: &RestoredSale) -> &RestoredTender {
    s.tenders.iter().find(|t| t.kind == TenderKind::Card).unwrap()
}

/// The drawer's yen.
fn jpy(d: Vec<(Currency, i64)>) -> i64 {
    d.iter().filter(|(c, _)| *c == Currency::Jpy).map(|(_, a)| a).sum()
}

fn cash_left(s: &RestoredSale) -> i64 {
    s.tenders.iter().filter(|t| t.kind == TenderKind::Cash).map(|t| t.left_minor).sum()
}

#[test]
fn an_exchange_of_a_restored_split_sale_nets_into_one_new_sale_and_everything_adds_up_to_the_sale() {
    let (a, cart, pay) = predecessor(&[]);
    let sale = a.sales().by_cart(cart).unwrap();
    let price = |line: usize| sale.cart.lines[line].unit_price.amount_minor;
    let (cof, cro, mug) = (price(COF), price(CRO), price(MUG));
    assert!(mug > cro && cro < 1000, "the set-up: a mug is worth more than a croissant ({mug} vs {cro})");
    let mut b = replacement(&history(&a));
    let s0 = b.returns().restored_sale(SRC, cart.0).unwrap();
    let cash0 = cash_left(&s0);
    let drawer0 = b.sales().expected_drawer().unwrap();

    // 1. The mug comes back for a croissant: the croissant is paid by the credit, the
    //    difference goes back on the predecessor's card (it has 1,000 left).
    let n1 = new_sale(&mut b, &[("CRO-001", 1)], AT + 150);
    let x1 = b.returns_mut().exchange_restored(SRC, cart.0, &[back(MUG, 1)], n1, Some("wrong size"), AT + 200).unwrap();
    assert_eq!((x1.credit_minor, x1.ret.record.total_minor), (cro, mug));
    assert_eq!(x1.new_sale.state, SaleState::Paid, "the credit pays the croissant");
    let c = x1.new_sale.exchange_credit.clone().unwrap();
    assert_eq!((c.restored_from.as_deref(), c.old_cart_id, c.return_number.as_str()), (Some(SRC), cart, format!("{:06}-R1", cart.0).as_str()));
    let diff = mug - cro;
    let on_card = diff.min(1000 - cro);
    assert_eq!(x1.ret.card_refunds.iter().map(|r| r.amount.amount_minor).sum::<i64>(), on_card, "cards first, less what the credit holds");
    assert_eq!(x1.ret.cash_out_minor, diff - on_card);
    assert_eq!(x1.ret.card_refunds.len(), usize::from(on_card > 0));
    settle(&mut b, &x1.ret.card_refunds, AT + 201);
    let s1 = b.returns().restored_sale(SRC, cart.0).unwrap();
    assert_eq!(card_of(&s1).credited_minor, cro, "the credit came out of the card first");
    assert_eq!(card_of(&s1).left_minor, 1000 - cro - on_card);
    assert_eq!(s1.returned, vec![0, 0, 1]);

    // 2. A coffee comes back for two mugs: all of it is credit; the rest is paid here.
    let n2 = new_sale(&mut b, &[("MUG-001", 2)], AT + 300);
    let x2 = b.returns_mut().exchange_restored(SRC, cart.0, &[back(COF, 1)], n2, None, AT + 310).unwrap();
    assert_eq!((x2.credit_minor, x2.ret.card_refunds.len(), x2.ret.cash_out_minor), (cof, 0, 0));
    assert_eq!(x2.new_sale.state, SaleState::PartiallyPaid);
    let due = x2.new_sale.totals.due_minor;
    assert_eq!(due, 2 * mug - cof);
    b.sales_mut().pay_cash(n2, due, None, AT + 311).unwrap();
    assert_eq!(b.sales().by_cart(n2).unwrap().state, SaleState::Paid, "the new sale charged once: credit plus its own cash");

    // 3. Everything left of the restored sale comes back as a plain return.
    let rest = b.returns_mut().take_back_restored(SRC, cart.0, &[back(COF, 1), back(CRO, 3)], None, AT + 400).unwrap();
    settle(&mut b, &rest.card_refunds, AT + 401);
    let s3 = b.returns().restored_sale(SRC, cart.0).unwrap();
    assert_eq!(s3.returned, vec![2, 3, 1]);
    assert!(s3.tenders.iter().all(|t| t.left_minor == 0), "nothing is left to give back: {:?}", s3.tenders);
    // What came back is the sale, and what left (refunds, drawer, credits) is the sale too.
    let returns = b.returns().restored_returns_of(SRC, cart.0).unwrap();
    assert_eq!(returns.iter().map(|r| r.total_minor).sum::<i64>(), s0.total_minor);
    let card_back: i64 = b.refunds().for_payment(b.payments().by_key(&pay.idempotency_key).unwrap().unwrap().id).unwrap().iter().map(|r| r.amount.amount_minor).sum();
    let cash_out: i64 = returns.iter().map(|r| r.cash_out_minor).sum();
    assert_eq!(card_back + cash_out + cro + cof, s0.total_minor);
    assert!(card_back + card_of(&s3).credited_minor <= 1000, "the card never gives back or credits more than it paid");
    assert_eq!(cash_out + (cash0 - cash_left(&s3) - cash_out), cash0 - cash_left(&s3));
    // The drawer: the cash given back left it, the new sale's cash came in.
    assert_eq!(jpy(b.sales().expected_drawer().unwrap()), jpy(drawer0) - cash_out + due);

    // To the back office: one return fact per return, naming the predecessor, and one
    // `exchange_recorded` per exchange naming it too (schema v42), none for the plain return.
    let facts = outbox(&b);
    let kinds = |k: &str| facts.iter().filter(|f| f["kind"] == k).count();
    assert_eq!(kinds("return_recorded"), 3);
    assert!(facts.iter().filter(|f| f["kind"] == "return_recorded").all(|f| f["sale_register"] == SRC));
    let links: Vec<_> = facts.iter().filter(|f| f["kind"] == "exchange_recorded").map(|f| (f["new_sale"].clone(), f["credit"].clone(), f["sale_register"].clone())).collect();
    assert_eq!(links, [(n1.0.into(), cro.into(), SRC.into()), (n2.0.into(), cof.into(), SRC.into())]);
    assert_eq!(facts.iter().filter(|f| f["kind"] == "sale_completed" && (f["sale"] == n1.0 || f["sale"] == n2.0)).count(), 2);
    assert_eq!(common::count(&b, "SELECT count(*) FROM audit_log WHERE action = 'restored_sale_exchange'"), 2);
    assert!(b.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_restored_exchange_beyond_what_was_sold_at_either_register_is_refused_and_writes_nothing() {
    // The predecessor took a croissant back; here a second one comes back.
    let (a, cart, _) = predecessor(&[back(CRO, 1)]);
    let mut b = replacement(&history(&a));
    let one = b.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], None, AT + 200).unwrap();
    settle(&mut b, &one.card_refunds, AT + 201);
    let n = new_sale(&mut b, &[("MUG-001", 1)], AT + 300);
    let commits = b.commit_count();
    let e = b.returns_mut().exchange_restored(SRC, cart.0, &[back(CRO, 2)], n, None, AT + 310).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { line: CRO, sold: 3, returned_before: 2, requested: 2, .. }), "{e:?}");
    // The new sale itself: paid already, or holding a credit.
    let paid = new_sale(&mut b, &[("CRO-001", 1)], AT + 320);
    let due = b.sales().by_cart(paid).unwrap().totals.due_minor;
    b.sales_mut().pay_cash(paid, due, None, AT + 321).unwrap();
    let commits_paid = b.commit_count();
    assert!(commits_paid > commits);
    let e = b.returns_mut().exchange_restored(SRC, cart.0, &[back(CRO, 1)], paid, None, AT + 330).unwrap_err();
    assert!(matches!(e, Error::SaleComplete { .. }), "{e:?}");
    b.returns_mut().exchange_restored(SRC, cart.0, &[back(CRO, 1)], n, None, AT + 340).unwrap();
    let n3 = new_sale(&mut b, &[("MUG-001", 1)], AT + 345);
    let commits = b.commit_count();
    let e = b.returns_mut().exchange_restored(SRC, cart.0, &[back(COF, 1)], n, None, AT + 350).unwrap_err();
    assert!(matches!(e, Error::ExchangeNewSaleRefused { .. }), "one credit per sale: {e:?}");
    let e = b.returns_mut().exchange_restored(SRC, cart.0, &[back(CRO, 1)], n3, None, AT + 361).unwrap_err();
    assert!(matches!(e, Error::ReturnExceedsSold { line: CRO, returned_before: 3, .. }), "the exchange's croissant counted: {e:?}");
    assert_eq!(b.commit_count(), commits, "refusals write nothing");
    // SQLite's last word: a credit above its return's worth.
    let forged = b.connection().execute(
        "INSERT INTO restored_exchanges (return_id, new_cart_id, credit_minor, created_at_ms) VALUES (?1, ?2, 999999, 1)",
        rusqlite::params![one.record.id, paid.0],
    );
    assert!(forged.is_err());
}

/// Since record 0156 the new sale's credit goes back where it came from: its own cash first,
/// then the credit's part as a refund on the predecessor's card (a new key). Before, the
/// credit's part was refused (`RestoredCreditNotGivenBack`).
#[test]
fn the_new_sales_credit_goes_back_to_the_predecessors_card_after_its_own_money() {
    let (a, cart, pay) = predecessor(&[]);
    let sale = a.sales().by_cart(cart).unwrap();
    let cro = sale.cart.lines[CRO].unit_price.amount_minor;
    let mut b = replacement(&history(&a));
    // A croissant comes back for a croissant and a mug: the croissant's worth is credit,
    // the rest paid in cash here.
    let n = new_sale(&mut b, &[("CRO-001", 1), ("MUG-001", 1)], AT + 150);
    let x = b.returns_mut().exchange_restored(SRC, cart.0, &[back(CRO, 1)], n, None, AT + 200).unwrap();
    assert_eq!(x.credit_minor, cro);
    let due = x.new_sale.totals.due_minor;
    b.sales_mut().pay_cash(n, due, None, AT + 201).unwrap();
    // What the new sale's own cash paid goes back first.
    let mine = b.returns_mut().take_back(n, &[back(1, 1)], None, false, AT + 310).unwrap();
    assert_eq!(mine.cash_out_minor, mine.record.total_minor);
    assert!(mine.record.total_minor <= due && mine.restored_card_refunds.is_empty());
    // The croissant: the rest of its own cash, then the credit's part on A's card.
    let rest = b.returns_mut().take_back(n, &[back(0, 1)], None, false, AT + 320).unwrap();
    let own_left = due - mine.record.total_minor;
    assert_eq!(rest.cash_out_minor, own_left);
    let a_pid = b.payments().by_key(&pay.idempotency_key).unwrap().unwrap().id;
    assert_eq!(rest.restored_card_refunds.iter().map(|r| (r.payment_id, r.amount.amount_minor)).collect::<Vec<_>>(), [(a_pid, cro)]);
    assert_ne!(rest.restored_card_refunds[0].idempotency_key, pay.idempotency_key);
}

/// A crash right after the exchange's commit, before its card refund was sent: the refund is
/// on file once with its key, a retried exchange is refused (nothing is left to take back into
/// a paid sale), and the card's room counts the unsure refund: never a second refund.
#[test]
fn a_crash_inside_a_restored_exchange_leaves_one_refund_with_its_key_and_no_second() {
    let (a, cart, pay) = predecessor(&[]);
    let rows = history(&a);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.db");
    let (n, key) = {
        let mut b = Ledger::open(&path).unwrap();
        b.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        b.sync_log_mut().begin_restore(&source(rows.len() as u64), AT + 100).unwrap();
        b.sync_log_mut().append_restored(SRC, &rows, AT + 100).unwrap();
        let n = new_sale(&mut b, &[("CRO-001", 1)], AT + 150);
        let x = b.returns_mut().exchange_restored(SRC, cart.0, &[back(MUG, 1)], n, None, AT + 200).unwrap();
        assert_eq!(x.ret.card_refunds.len(), 1);
        (n, x.ret.card_refunds[0].idempotency_key.clone())
        // Dropped here: the process died before the refund was requested.
    };
    let mut b = Ledger::open(&path).unwrap();
    let pid = b.payments().by_key(&pay.idempotency_key).unwrap().unwrap().id;
    let refunds = b.refunds().for_payment(pid).unwrap();
    assert_eq!(refunds.iter().map(|r| r.idempotency_key.as_str()).collect::<Vec<_>>(), [key.as_str()]);
    assert!(b.refunds().needing_recovery().unwrap().iter().any(|r| r.idempotency_key == key), "recovery resolves it under its key");
    let again = b.returns_mut().exchange_restored(SRC, cart.0, &[back(MUG, 1)], n, None, AT + 300).unwrap_err();
    assert!(matches!(again, Error::ReturnExceedsSold { .. }), "{again:?}");
    // The unsure refund holds the card's room: everything else back leaves the card alone
    // beyond what it has, and the card never gives back past its amount.
    let s = b.returns().restored_sale(SRC, cart.0).unwrap();
    let card = card_of(&s);
    assert_eq!(card.given_back_minor + card.credited_minor + card.left_minor, 1000);
    assert_eq!(b.refunds().for_payment(pid).unwrap().len(), 1);
}

/// Schema v40: a v39 file holding a restored return is upgraded in place, the return kept;
/// an exchange then works, and a credit can be of one kind only per sale.
#[test]
fn the_upgrade_from_v39_keeps_a_restored_return_and_takes_exchanges() {
    let before = common::before_restored_exchanges();
    let (a, cart, _) = predecessor(&[]);
    let rows = history(&a);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v39.db");
    let id = {
        let mut b = Ledger::open(&path).unwrap();
        b.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        b.sync_log_mut().begin_restore(&source(rows.len() as u64), AT + 100).unwrap();
        b.sync_log_mut().append_restored(SRC, &rows, AT + 100).unwrap();
        b.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], None, AT + 200).unwrap().record.id
    };
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        common::undo_restored_exchanges(&c);
        c.execute_batch(&format!("PRAGMA user_version = {before};")).unwrap();
        let left: i64 = c.query_row("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'restored_exchange%'", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0);
    }
    let mut b = Ledger::open(&path).unwrap();
    assert_eq!(b.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    assert_eq!(b.returns().restored_return(id).unwrap().number, format!("{:06}-R1", cart.0));
    assert_eq!(b.returns().restored_sale(SRC, cart.0).unwrap().returned, vec![0, 1, 0]);
    let n = new_sale(&mut b, &[("CRO-001", 1)], AT + 300);
    let x = b.returns_mut().exchange_restored(SRC, cart.0, &[back(CRO, 1)], n, None, AT + 310).unwrap();
    assert_eq!(x.ret.record.seq, 2);
    assert_eq!(b.returns().restored_exchange_of_return(x.ret.record.id).unwrap(), Some((x.exchange_id, n, x.credit_minor)));
    let _ = store;
}

/// The predecessor's queue as an older register (before record 0157) would have written it:
/// its own exchanges' facts name no tender.
fn without_credit_parts(rows: Vec<RestoredRow>) -> Vec<RestoredRow> {
    rows.into_iter()
        .map(|mut r| {
            if r.kind == "exchange_recorded" {
                let mut v: serde_json::Value = serde_json::from_str(&r.fact_json).unwrap();
                let o = v.as_object_mut().unwrap();
                assert!(o.remove("credit_parts").is_some(), "this build writes the parts: {}", r.fact_json);
                o.remove("credit_carried");
                r.fact_json = v.to_string();
            }
            r
        })
        .collect()
}

/// The predecessor A exchanged a coffee of its sale for a croissant (credit 220 out of the
/// card, the 30 of difference refunded to it) and, with `carried`, that croissant in turn
/// for a coffee (record 0155: all 220 carried on from the first credit, still on the card).
/// Answers A, the sale, its payment and the exchanges' facts.
fn exchanged_at_the_predecessor(carried: bool) -> (Ledger, CartId, Payment, Vec<serde_json::Value>) {
    let (mut a, cart, pay) = predecessor(&[]);
    let new = a.carts_mut().create(Currency::Jpy, AT + 5).unwrap();
    a.carts_mut().add(new, "CRO-001", 1, AT + 5).unwrap();
    let x = a.returns_mut().exchange(cart, &[back(COF, 1)], new, Some("wrong order"), false, AT + 6).unwrap();
    assert_eq!((x.credit_minor, x.ret.card_refunds.len()), (220, 1), "the set-up: 220 credit, 30 back on the card");
    for (_, r) in &x.ret.card_refunds {
        a.refunds_mut().record_result(r.id, &format!("re_pred_{}", r.id.0), RefundState::Succeeded, AT + 7).unwrap();
    }
    if carried {
        let third = a.carts_mut().create(Currency::Jpy, AT + 8).unwrap();
        a.carts_mut().add(third, "COF-001", 1, AT + 8).unwrap();
        let y = a.returns_mut().exchange(new, &[Returned { line: 0, quantity: 1 }], third, None, false, AT + 9).unwrap();
        assert_eq!((y.credit_minor, y.ret.card_refunds.len()), (220, 0));
    }
    let facts: Vec<serde_json::Value> = history(&a).iter().filter(|r| r.kind == "exchange_recorded").map(|r| serde_json::from_str(&r.fact_json).unwrap()).collect();
    (a, cart, pay, facts)
}

/// Record 0157: the predecessor's own exchange names its credit per tender
/// (`credit_parts`), so a successor rebuilds the sale with that credit out of each tender
/// and gives back exactly what each has left: the mug's 1,650 as a refund of 750 on A's
/// payment under B's own key (1,000 paid, 30 refunded at A, 220 held by A's credit) and 900
/// out of B's drawer; then the rest of the sale, cash only. Never more than sold, never a
/// tender past what it paid. With the credit carried on to a second exchange at A (record
/// 0155) the same: a carried part is not the sale's money and changes nothing here.
#[test]
fn a_sale_the_predecessor_exchanged_from_comes_back_through_what_each_tender_has_left() {
    for carried in [false, true] {
        let (a, cart, pay, facts) = exchanged_at_the_predecessor(carried);
        assert_eq!(facts[0]["credit_parts"], serde_json::json!([{"tender_seq": 1, "amount": 220}]), "out of the card: {facts:?}");
        assert!(facts[0].get("credit_carried").is_none());
        if carried {
            assert_eq!((&facts[1]["credit_parts"], &facts[1]["credit_carried"]), (&serde_json::json!([]), &serde_json::json!(220)), "{facts:?}");
        }
        let mut b = replacement(&history(&a));
        let s = b.returns().restored_sale(SRC, cart.0).unwrap();
        let card = card_of(&s);
        assert_eq!((card.given_back_minor, card.credited_there_minor, card.left_minor), (30, 220, 750), "carried {carried}: {card:?}");
        assert_eq!(cash_left(&s), 1810, "the cash untouched at A");
        let drawer0 = jpy(b.sales().expected_drawer().unwrap());

        let r = b.returns_mut().take_back_restored(SRC, cart.0, &[back(MUG, 1)], None, AT + 200).unwrap();
        assert_eq!(r.record.total_minor, 1650);
        assert_eq!(r.card_refunds.iter().map(|f| (f.payment_id, f.amount.amount_minor)).collect::<Vec<_>>(), vec![(pay.id, 750)], "one refund on A's payment");
        assert_ne!(r.card_refunds[0].idempotency_key, pay.idempotency_key, "under a key of its own");
        assert_eq!(r.cash_out_minor, 900);
        settle(&mut b, &r.card_refunds, AT + 201);
        assert_eq!(jpy(b.sales().expected_drawer().unwrap()), drawer0 - 900);
        let e = b.returns_mut().take_back_restored(SRC, cart.0, &[back(MUG, 1)], None, AT + 210).unwrap_err();
        assert!(matches!(e, Error::ReturnExceedsSold { .. }), "{e:?}");

        // Everything else: the coffee A did not take back and the croissants, all cash now.
        let r = b.returns_mut().take_back_restored(SRC, cart.0, &[back(COF, 1), back(CRO, 3)], None, AT + 220).unwrap();
        assert_eq!((r.record.total_minor, r.card_refunds.len(), r.cash_out_minor), (910, 0, 910));
        let s = b.returns().restored_sale(SRC, cart.0).unwrap();
        assert!(s.tenders.iter().all(|t| t.left_minor == 0), "{:?}", s.tenders);
        let card = card_of(&s);
        assert_eq!(card.given_back_minor + card.credited_there_minor, 1000, "the card: refunds and the credit, never past what it paid");
        assert_eq!(jpy(b.sales().expected_drawer().unwrap()), drawer0 - 1810, "the cash given back is the cash paid");
    }
}

/// Found by the simulation (record 0153): the predecessor's own exchange credited part of
/// its sale's tenders into another sale, and a fact without `credit_parts` (a register
/// before record 0157) names no tender. A successor that took back the rest of that sale
/// gave back money that was paying the new sale. Such a sale can be looked up and shown,
/// but taking back or exchanging any of it is refused with its own code, nothing written:
/// no return, no refund, no drawer movement, no fact.
#[test]
fn a_sale_the_predecessor_exchanged_from_is_shown_but_refused_never_given_back_twice() {
    let (mut a, cart, _) = predecessor(&[]);
    let new = a.carts_mut().create(Currency::Jpy, AT + 5).unwrap();
    a.carts_mut().add(new, "CRO-001", 1, AT + 5).unwrap();
    let x = a.returns_mut().exchange(cart, &[back(MUG, 1)], new, Some("wrong size"), false, AT + 6).unwrap();
    for (_, r) in &x.ret.card_refunds {
        a.refunds_mut().record_result(r.id, &format!("re_pred_{}", r.id.0), RefundState::Succeeded, AT + 7).unwrap();
    }
    let mut b = replacement(&without_credit_parts(history(&a)));
    let shown = b.returns().restored_sale(SRC, cart.0).unwrap();
    assert_eq!(shown.returned, vec![0, 0, 1], "the predecessor's exchange counts as goods back");
    let n = new_sale(&mut b, &[("CRO-001", 1)], AT + 150);
    let before = (outbox(&b).len(), b.sales().expected_drawer().unwrap(), common::count(&b, "SELECT count(*) FROM refunds"));

    let e = b.returns_mut().take_back_restored(SRC, cart.0, &[back(COF, 1)], None, AT + 200).unwrap_err();
    assert!(matches!(&e, Error::RestoredExchangedThere { register, sale } if register == SRC && *sale == cart.0), "{e:?}");
    let e = b.returns_mut().exchange_restored(SRC, cart.0, &[back(CRO, 1)], n, None, AT + 301).unwrap_err();
    assert!(matches!(e, Error::RestoredExchangedThere { .. }), "{e:?}");

    assert!(b.returns().restored_returns_of(SRC, cart.0).unwrap().is_empty());
    let after = (outbox(&b).len(), b.sales().expected_drawer().unwrap(), common::count(&b, "SELECT count(*) FROM refunds"));
    assert_eq!(after, before, "nothing was written");
    let new_sale = b.sales().by_cart(n).unwrap();
    assert!(new_sale.exchange_credit.is_none() && new_sale.totals.settled_minor == 0, "the new sale holds no credit");
}

/// Schema v42: a restored exchange queues exactly one `exchange_recorded`, right after the
/// restored return's own fact, naming the predecessor's register, its sale and the return's
/// number, this register's new sale and the credit. Paying the rest of the new sale (its
/// `sale_completed`) and a plain restored return add no second link.
#[test]
fn a_restored_exchange_queues_one_link_naming_the_predecessor_right_after_its_return() {
    let (a, cart, _) = predecessor(&[]);
    let sale = a.sales().by_cart(cart).unwrap();
    let mug = sale.cart.lines[MUG].unit_price.amount_minor;
    let mut b = replacement(&history(&a));
    // This register's own sale 1 first, so the new sale's id is not the old sale's.
    let own = new_sale(&mut b, &[("COF-001", 1)], AT + 110);
    let due = b.sales().by_cart(own).unwrap().totals.due_minor;
    b.sales_mut().pay_cash(own, due, None, AT + 111).unwrap();
    let n = new_sale(&mut b, &[("MUG-001", 2)], AT + 150);
    assert_ne!(n.0, cart.0);
    let x = b.returns_mut().exchange_restored(SRC, cart.0, &[back(MUG, 1)], n, None, AT + 200).unwrap();
    assert_eq!(x.credit_minor, mug, "the mug's worth, all of it credit");
    let facts = outbox(&b);
    let at: Vec<usize> = facts.iter().enumerate().filter(|(_, f)| f["kind"] == "exchange_recorded").map(|(i, _)| i).collect();
    assert_eq!(at.len(), 1, "exactly one link: {facts:?}");
    let number = format!("{:06}-R1", cart.0);
    assert_eq!((facts[at[0] - 1]["kind"].as_str(), facts[at[0] - 1]["return_no"].as_str()), (Some("return_recorded"), Some(number.as_str())));
    assert_eq!(
        facts[at[0]],
        serde_json::json!({"kind": "exchange_recorded", "exchange": x.exchange_id, "old_sale": cart.0, "return_no": number,
                           "new_sale": n.0, "credit": mug, "currency": "jpy", "sale_register": SRC,
                           "credit_parts": [{"tender_seq": 1, "amount": 1000}, {"tender_seq": 2, "amount": mug - 1000}]})
    );
    // The rest of the new sale paid here, then a plain restored return: no second link.
    let due = x.new_sale.totals.due_minor;
    b.sales_mut().pay_cash(n, due, None, AT + 210).unwrap();
    let r = b.returns_mut().take_back_restored(SRC, cart.0, &[back(CRO, 1)], None, AT + 220).unwrap();
    settle(&mut b, &r.card_refunds, AT + 221);
    let facts = outbox(&b);
    assert_eq!(facts.iter().filter(|f| f["kind"] == "exchange_recorded").count(), 1);
    assert!(facts.iter().any(|f| f["kind"] == "sale_completed" && f["sale"] == n.0));
    assert!(b.audit().verify(None).unwrap().is_intact());
}

/// Schema v42 on a v41 file holding a restored exchange (whose link was never queued): the
/// upgrade queues it once, after everything already queued, exactly as v42 writes it; the
/// next restored exchange queues its own right after its return.
#[test]
fn the_upgrade_from_v41_queues_the_restored_exchanges_link_once() {
    let v42 = paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("CREATE TABLE IF NOT EXISTS restored_exchanges_sent"))
        .expect("the restored exchange facts migration");
    let (a, cart, _) = predecessor(&[]);
    let rows = history(&a);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v41.db");
    let (link, n) = {
        let mut b = Ledger::open(&path).unwrap();
        b.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        b.sync_log_mut().begin_restore(&source(rows.len() as u64), AT + 100).unwrap();
        b.sync_log_mut().append_restored(SRC, &rows, AT + 100).unwrap();
        let n = new_sale(&mut b, &[("CRO-001", 1)], AT + 150);
        b.returns_mut().exchange_restored(SRC, cart.0, &[back(MUG, 1)], n, None, AT + 200).unwrap();
        let link = outbox(&b).into_iter().find(|f| f["kind"] == "exchange_recorded").expect("v42 queues the link");
        (link, n)
    };
    let queued = {
        // Rolled back to v41: no link table, no trigger, no link in the outbox.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "DROP TRIGGER outbox_restored_exchange_recorded; DROP TABLE restored_exchanges_sent;
             DELETE FROM outbox WHERE json_extract(fact, '$.kind') = 'exchange_recorded';
             PRAGMA user_version = {v42};"
        ))
        .unwrap();
        common::count_in(&c, "SELECT count(*) FROM outbox")
    };
    let b = Ledger::open(&path).unwrap();
    assert_eq!(b.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    let facts = outbox(&b);
    assert_eq!(facts.len() as i64, queued + 1);
    // Queued by v42's trigger, as that version wrote it: without v44's credit per tender.
    let mut link = link;
    assert!(link.as_object_mut().unwrap().remove("credit_parts").is_some());
    assert_eq!(facts.last().unwrap(), &link, "the same link, after everything already queued");
    assert_eq!(link["sale_register"], SRC);
    assert_eq!(link["new_sale"], n.0);
    // Opening again queues nothing more; a new restored exchange queues its own link.
    drop(b);
    let mut b = Ledger::open(&path).unwrap();
    assert_eq!(outbox(&b).len() as i64, queued + 1);
    let n2 = new_sale(&mut b, &[("CRO-001", 1)], AT + 300);
    let x = b.returns_mut().exchange_restored(SRC, cart.0, &[back(COF, 1)], n2, None, AT + 310).unwrap();
    let facts = outbox(&b);
    let links: Vec<usize> = facts.iter().enumerate().filter(|(_, f)| f["kind"] == "exchange_recorded").map(|(i, _)| i).collect();
    assert_eq!(links.len(), 2);
    assert_eq!(facts[links[1] - 1]["return_no"], x.ret.record.number.as_str());
    assert_eq!(facts[links[1]]["exchange"], x.exchange_id);
}

/// A register C that replaces B, which had exchanged a sale restored from A: B's link and its
/// restored return name A (`sale_register`), and say nothing of B's OWN sale of the same id.
/// C takes B's own sale back as any restored sale (not refused as exchanged at B, not
/// counting A's returned mug as a line of it).
#[test]
fn a_successors_link_of_a_sale_it_restored_is_not_taken_for_its_own_sale_of_the_same_id() {
    const B_ID: &str = "3f1c9a52-0000-4000-8000-00000000000b";
    let (a, cart, _) = predecessor(&[]);
    let mut b = replacement(&history(&a));
    let own = new_sale(&mut b, &[("COF-001", 1)], AT + 110);
    assert_eq!(own.0, cart.0, "the set-up: B's own sale has the id of A's");
    let cof = b.sales().by_cart(own).unwrap().totals.due_minor;
    b.sales_mut().pay_cash(own, cof, None, AT + 111).unwrap();
    let n = new_sale(&mut b, &[("MUG-001", 1)], AT + 150);
    b.returns_mut().exchange_restored(SRC, cart.0, &[back(MUG, 1)], n, None, AT + 200).unwrap();
    let b_rows = b.sync_log().outbox_as_restored(0, 500).unwrap();
    assert!(b_rows.iter().any(|r| r.kind == "exchange_recorded"));

    let mut c = store(9);
    let src = RestoreSourceRow { register_id: B_ID.into(), register_name: "New till".into(), ..source(b_rows.len() as u64) };
    c.sync_log_mut().begin_restore(&src, AT + 300).unwrap();
    c.sync_log_mut().append_restored(B_ID, &b_rows, AT + 300).unwrap();
    let s = c.returns().restored_sale(B_ID, own.0).unwrap();
    assert_eq!((s.lines.len(), s.returned.clone()), (1, vec![0]), "B's own sale, nothing of it back");
    let r = c.returns_mut().take_back_restored(B_ID, own.0, &[back(0, 1)], None, AT + 310).unwrap();
    assert_eq!((r.record.total_minor, r.cash_out_minor), (cof, cof));
}
