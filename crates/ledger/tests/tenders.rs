//! Tenders in the ledger (record 0028): cash with change and rounding in one commit, split
//! sales, the amount due, the rule-3 guard per tender, cancel and sale refunds.

use crate::common;
use common::*;
use paydesk_domain::*;
use paydesk_ledger::*;

fn cart_of(l: &mut Ledger, sku: &str, qty: i64) -> CartId {
    let currency = l.carts().product_by_sku(sku).unwrap().unwrap().price.currency;
    let cart = l.carts_mut().create(currency, 1).unwrap();
    l.carts_mut().add(cart, sku, qty, 1).unwrap();
    cart
}

fn ledger() -> Ledger {
    let mut l = mem();
    seed(&mut l);
    l.carts_mut().seed_catalog(&[NewProduct { sku: "EUR".into(), name: "Croissant".into(), price: Money::new(1003, Currency::Eur) }])
        .unwrap();
    l
}

/// The PSP's answer for a card tender, as the engine would record it.
fn settle_card(l: &mut Ledger, p: &Payment, to: PaymentState) {
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "sent", 5).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, to, "reply", 6).unwrap();
}

#[test]
fn cash_with_change_completes_the_sale_in_one_commit() {
    let mut l = ledger();
    let cart = cart_of(&mut l, "COF", 2); // 7.00
    let before = l.commit_count();
    let c = l.sales_mut().pay_cash(cart, 1000, None, 10).unwrap();
    assert_eq!(l.commit_count() - before, 1, "tender, drawer and completion in one durable commit");
    assert_eq!((c.split.change_minor, c.split.rounding_minor, c.split.completes), (300, 0, true));
    assert_eq!((c.sale.state, c.sale.totals.due_minor, c.sale.cart.state), (SaleState::Paid, 0, CartState::Paid));
    assert_eq!(l.sales().expected_drawer().unwrap(), vec![(Currency::Usd, 700)]);
    let kinds: Vec<(CashMovementKind, i64)> =
        l.sales().cash_movements(Some(cart)).unwrap().iter().map(|m| (m.kind, m.amount.amount_minor)).collect();
    assert_eq!(kinds, [(CashMovementKind::SaleIn, 1000), (CashMovementKind::ChangeOut, -300)]);
    assert!(matches!(l.sales_mut().pay_cash(cart, 100, None, 11), Err(Error::SaleComplete { .. })));
    assert!(matches!(l.carts_mut().add(cart, "COF", 1, 12), Err(Error::CartNotOpen { .. })));
}

#[test]
fn cash_rounding_is_a_store_setting_and_the_books_balance() {
    let mut l = ledger();
    l.sales_mut().set_cash_rounding(Currency::Eur, 5).unwrap();
    assert_eq!(l.sales().cash_rounding(Currency::Eur).unwrap(), 5);
    assert_eq!(l.sales().cash_rounding(Currency::Usd).unwrap(), 1, "none unless set");
    assert!(l.sales_mut().set_cash_rounding(Currency::Eur, 0).is_err());
    assert!(l.sales_mut().set_cash_rounding(Currency::Eur, 1001).is_err());
    let cart = cart_of(&mut l, "EUR", 1); // 10.03 -> 10.05 in cash
    assert_eq!(l.sales().by_cart(cart).unwrap().cash_due_minor, 1005);
    assert!(l.sales_mut().pay_cash(cart, 1004, None, 2).is_err(), "between the exact and the rounded amount");
    let c = l.sales_mut().pay_cash(cart, 2000, None, 3).unwrap();
    assert_eq!((c.split.amount_minor, c.split.change_minor, c.split.rounding_minor), (1003, 995, 2));
    assert_eq!((c.tender.cash_tendered_minor, c.tender.change_minor, c.tender.rounding_minor), (Some(2000), Some(995), Some(2)));
    assert_eq!(c.sale.state, SaleState::Paid);
    // The drawer holds the rounded amount: sale 10.03 + rounding 0.02.
    assert_eq!(l.sales().expected_drawer().unwrap(), vec![(Currency::Eur, 1005)]);
}

#[test]
fn split_card_then_cash_and_the_amount_due_is_always_total_minus_settled() {
    let mut l = ledger();
    let cart = cart_of(&mut l, "COF", 2); // 700
    let ct = l.sales_mut().open_card_tender(cart, Some(400), &CheckoutOptions::card("pm_card_visa"), None, 2).unwrap();
    assert!(ct.is_new);
    assert_eq!((ct.payment.amount.amount_minor, ct.payment.cart_id), (400, Some(cart)));
    let s = l.sales().by_cart(cart).unwrap();
    assert_eq!((s.state, s.totals.outstanding_minor, s.totals.open_minor()), (SaleState::PartiallyPaid, 400, 300));
    // Pressed again: the same tender and key, nothing new.
    let again = l.sales_mut().open_card_tender(cart, Some(400), &CheckoutOptions::card("pm_card_visa"), None, 3).unwrap();
    assert!(!again.is_new);
    assert_eq!(again.payment.idempotency_key, ct.payment.idempotency_key);
    settle_card(&mut l, &ct.payment, PaymentState::Captured);
    let s = l.sales().by_cart(cart).unwrap();
    assert_eq!((s.totals.settled_minor, s.totals.due_minor, s.cart.state), (400, 300, CartState::Locked));
    assert!(matches!(
        l.sales_mut().open_card_tender(cart, Some(301), &CheckoutOptions::card("pm_card_visa"), None, 7),
        Err(Error::TenderExceedsDue { requested_minor: 301, open_minor: 300, .. })
    ));
    let c = l.sales_mut().pay_cash(cart, 500, None, 8).unwrap();
    assert_eq!((c.split.amount_minor, c.split.change_minor), (300, 200));
    assert_eq!((c.sale.state, c.sale.totals.settled_minor, c.sale.totals.due_minor), (SaleState::Paid, 700, 0));
    let seqs: Vec<(i64, TenderKind)> = c.sale.tenders.iter().map(|t| (t.seq, t.kind)).collect();
    assert_eq!(seqs, [(1, TenderKind::Card), (2, TenderKind::Cash)]);
    let day = l.sales().tender_day(0).unwrap();
    assert!(day.by_kind.contains(&TenderKindTotal { kind: TenderKind::Card, currency: Currency::Usd, count: 1, settled_minor: 400 }));
    assert!(day.by_kind.contains(&TenderKindTotal { kind: TenderKind::Cash, currency: Currency::Usd, count: 1, settled_minor: 300 }));
}

#[test]
fn a_declined_card_keeps_the_earlier_tenders_and_the_checkout_charges_what_is_due() {
    let mut l = ledger();
    let cart = cart_of(&mut l, "COF", 2);
    l.sales_mut().pay_cash(cart, 200, None, 2).unwrap();
    let t2 = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_chargeDeclined"), None, 3).unwrap();
    assert_eq!(t2.payment.amount.amount_minor, 500, "None = everything still open");
    settle_card(&mut l, &t2.payment, PaymentState::Failed);
    let s = l.sales().by_cart(cart).unwrap();
    assert_eq!((s.state, s.totals.settled_minor, s.totals.due_minor, s.cart.state), (SaleState::PartiallyPaid, 200, 500, CartState::Locked));
    // The single-card checkout (the app's Charge) charges the amount due, as a tender.
    let co = l.payments_mut().open_checkout(cart, &CheckoutOptions::card("pm_card_visa"), 8).unwrap();
    assert_eq!(co.payment.amount.amount_minor, 500);
    settle_card(&mut l, &co.payment, PaymentState::Captured);
    let s = l.sales().by_cart(cart).unwrap();
    assert_eq!((s.state, s.tenders.len(), s.cart.state), (SaleState::Paid, 3, CartState::Paid));
}

#[test]
fn an_unknown_card_tender_blocks_every_new_tender_unless_overridden() {
    let mut l = ledger();
    let cart = cart_of(&mut l, "COF", 2);
    let t1 = l.sales_mut().open_card_tender(cart, Some(300), &CheckoutOptions::card("pm_card_visa"), None, 2).unwrap();
    l.payments_mut().transition(t1.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", 3).unwrap();
    assert!(matches!(l.sales_mut().pay_cash(cart, 700, None, 4), Err(Error::TenderUnknownOutstanding { .. })));
    assert!(matches!(
        l.sales_mut().open_card_tender(cart, Some(200), &CheckoutOptions::card("pm_card_visa"), None, 4),
        Err(Error::TenderUnknownOutstanding { .. })
    ));
    assert!(l.sales_mut().pay_cash(cart, 700, Some("x"), 4).is_err(), "a reason needs 3 characters");
    let audits = l.audit().log().unwrap().len();
    let c = l.sales_mut().pay_cash(cart, 700, Some("customer must leave"), 5).unwrap();
    assert_eq!(c.sale.state, SaleState::Paid);
    assert_eq!(c.sale.tenders[0].state, TenderState::Superseded);
    assert_eq!(l.audit().log().unwrap().len(), audits + 1);
    // The superseded one turns out charged: it never counts (settled stays <= total), and
    // End of day lists it as owed back.
    l.payments_mut().transition(t1.payment.id, PaymentState::Authorizing, PaymentState::Captured, "late", 6).unwrap();
    let s = l.sales().by_cart(cart).unwrap();
    assert_eq!((s.totals.settled_minor, s.state), (700, SaleState::Paid));
    assert_eq!(l.sales().tender_day(0).unwrap().superseded_charged, vec![t1.payment.idempotency_key.clone()]);
}

#[test]
fn cancel_refunds_each_settled_card_once_and_hands_the_cash_back() {
    let mut l = ledger();
    let cart = cart_of(&mut l, "COF", 2); // 700
    l.sales_mut().pay_cash(cart, 300, None, 2).unwrap();
    let t2 = l.sales_mut().open_card_tender(cart, Some(250), &CheckoutOptions::card("pm_card_visa"), None, 3).unwrap();
    settle_card(&mut l, &t2.payment, PaymentState::Captured);
    assert!(l.sales_mut().begin_cancel(cart, "no", 7, &|_| false).is_err(), "reason too short");
    let plan = l.sales_mut().begin_cancel(cart, "customer changed mind", 8, &|_| false).unwrap();
    assert_eq!(plan.state, SaleState::Canceling);
    assert_eq!(plan.cash_returned_minor, 300);
    let [CancelAction::Refund { refund_id, .. }] = plan.actions.as_slice() else { panic!("{plan:?}") };
    // Pressed again (or resumed after a crash): the same refund, no second one, no more cash.
    let again = l.sales_mut().begin_cancel(cart, "customer changed mind", 9, &|_| false).unwrap();
    assert_eq!(again.actions, plan.actions);
    assert_eq!(again.cash_returned_minor, 0);
    assert_eq!(l.refunds().for_payment(t2.payment.id).unwrap().len(), 1);
    assert!(matches!(l.sales_mut().pay_cash(cart, 100, None, 9), Err(Error::SaleCanceled { .. })));
    assert_eq!(l.sales_mut().finish_cancel(cart, 10).unwrap(), SaleState::Canceling, "refund not confirmed yet");
    assert_eq!(l.sales().canceling().unwrap(), vec![cart]);
    l.refunds_mut().record_result(*refund_id, "re_1", RefundState::Succeeded, 11).unwrap();
    assert_eq!(l.sales_mut().finish_cancel(cart, 12).unwrap(), SaleState::Canceled);
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Canceled);
    assert!(l.sales().canceling().unwrap().is_empty());
    assert_eq!(l.sales().expected_drawer().unwrap(), vec![(Currency::Usd, 0)], "cash in 300, back 300");
    let done = l.sales_mut().begin_cancel(cart, "customer changed mind", 13, &|_| false).unwrap();
    assert!(done.actions.is_empty() && done.state == SaleState::Canceled);
}

#[test]
fn a_cash_only_cancel_completes_at_once_and_a_pending_card_refuses_it() {
    let mut l = ledger();
    let cart = cart_of(&mut l, "COF", 2);
    l.sales_mut().pay_cash(cart, 300, None, 2).unwrap();
    let t2 = l.sales_mut().open_card_tender(cart, Some(100), &CheckoutOptions::card("pm_card_visa"), None, 3).unwrap();
    assert!(matches!(l.sales_mut().begin_cancel(cart, "changed mind", 4, &|_| false), Err(Error::TenderUnknownOutstanding { .. })));
    settle_card(&mut l, &t2.payment, PaymentState::Failed);
    let plan = l.sales_mut().begin_cancel(cart, "changed mind", 5, &|_| false).unwrap();
    assert_eq!((plan.state, plan.cash_returned_minor, plan.actions.len()), (SaleState::Canceled, 300, 0));
}

#[test]
fn a_sale_refund_goes_to_the_cards_first_then_cash() {
    let mut l = ledger();
    let cart = cart_of(&mut l, "COF", 2); // 700
    let t1 = l.sales_mut().open_card_tender(cart, Some(400), &CheckoutOptions::card("pm_card_visa"), None, 2).unwrap();
    settle_card(&mut l, &t1.payment, PaymentState::Captured);
    l.sales_mut().pay_cash(cart, 300, None, 7).unwrap();
    assert!(matches!(l.sales_mut().plan_refund(cart, Some(701), None, 8), Err(Error::SaleRefundExceeds { refundable_minor: 700, .. })));
    let plan = l.sales_mut().plan_refund(cart, Some(500), Some("returned one"), 9).unwrap();
    assert_eq!(plan.card_refunds.len(), 1);
    assert_eq!(plan.card_refunds[0].1.amount.amount_minor, 400);
    assert_eq!((plan.cash_out_minor, plan.cash_refunds.len()), (100, 1));
    assert!(matches!(l.sales_mut().plan_refund(cart, Some(100), None, 10), Err(Error::RefundInProgress { .. })));
    l.refunds_mut().record_result(plan.card_refunds[0].1.id, "re_1", RefundState::Succeeded, 11).unwrap();
    let rest = l.sales_mut().plan_refund(cart, None, None, 12).unwrap();
    assert_eq!((rest.card_refunds.len(), rest.cash_out_minor), (0, 200));
    assert_eq!(l.sales().expected_drawer().unwrap(), vec![(Currency::Usd, 0)]);
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid, "a refunded sale was still paid");
}

#[test]
fn newest_cart_is_the_one_created_last() {
    let mut l = mem();
    assert_eq!(l.carts().newest().unwrap(), None);
    let a = l.carts_mut().create(Currency::Usd, 1).unwrap();
    assert_eq!(l.carts().newest().unwrap(), Some(a));
    let b = l.carts_mut().create(Currency::Usd, 2).unwrap();
    assert_eq!(l.carts().newest().unwrap(), Some(b));
}

/// An offline card tender parked after an attempt whose answer was lost may be charged
/// at the PSP: a cancel must not drop it unasked (it is forwarded with its key first,
/// then refunded if charged). One parked after attempts that never left the register
/// is dropped. (The simulation found a canceled sale whose card was charged.)
#[test]
fn a_cancel_drops_an_offline_tender_only_if_no_attempt_may_have_reached_the_psp() {
    // As the register reads attempt outcomes: only a refused connection never left.
    let may_have_reached = |e: &TimelineEntry| e.kind == TimelineKind::Attempt && e.outcome.as_deref() != Some("connection_refused");
    for (outcome, may_be_charged) in [("connection_refused", false), ("timeout", true)] {
        let mut l = ledger();
        let cart = cart_of(&mut l, "COF", 2);
        // Part of the 7.00: a sale paid in full by an offline card is refunded, not canceled.
        let t = l.sales_mut().open_card_tender(cart, Some(400), &CheckoutOptions::card("pm_card_visa"), None, 2).unwrap();
        l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::Authorizing, "sent", 3).unwrap();
        let attempt = TimelineInput { kind: Some(TimelineKind::Attempt), outcome: Some(outcome.into()), attempt_no: Some(1), ..Default::default() };
        l.payments_mut().append_timeline(t.payment.id, &attempt, 4).unwrap();
        l.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::QueuedOffline, "PSP unreachable", 5).unwrap();
        let r = l.sales_mut().begin_cancel(cart, "customer left", 6, &may_have_reached);
        if may_be_charged {
            assert!(matches!(r, Err(Error::TenderUnknownOutstanding { .. })), "{outcome}: {r:?}");
            assert_eq!(l.payments().by_key(&t.payment.idempotency_key).unwrap().unwrap().state, PaymentState::QueuedOffline);
            assert!(l.sales().by_cart(cart).unwrap().cancel.is_none(), "nothing of the cancel was written");
        } else {
            let plan = r.unwrap();
            assert_eq!((plan.state, plan.actions.len()), (SaleState::Canceled, 0), "{outcome}");
            assert_eq!(l.payments().by_key(&t.payment.idempotency_key).unwrap().unwrap().state, PaymentState::Canceled);
        }
    }
}

/// End of day lists every unpaid balance, however many earlier reopened sales were
/// collected since (a LIMIT on the reopened sales once hid the newest unpaid ones: the
/// simulation's audit found them missing).
#[test]
fn end_of_day_lists_unpaid_balances_behind_many_collected_ones() {
    let mut l = ledger();
    let reopen = |l: &mut Ledger, collect: bool| {
        let cart = cart_of(l, "COF", 1);
        let t = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, 2).unwrap();
        l.payments_mut().transition(t.payment.id, PaymentState::Created, PaymentState::QueuedOffline, "accepted offline", 3).unwrap();
        l.payments_mut().transition(t.payment.id, PaymentState::QueuedOffline, PaymentState::Authorizing, "forwarded", 4).unwrap();
        l.payments_mut().transition(t.payment.id, PaymentState::Authorizing, PaymentState::Failed, "declined at forwarding", 5).unwrap();
        assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::UnpaidBalance);
        if collect {
            let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
            l.sales_mut().pay_cash(cart, due, None, 6).unwrap();
        }
        cart
    };
    for _ in 0..510 {
        reopen(&mut l, true);
    }
    let owed = reopen(&mut l, false);
    let day = l.sales().tender_day(0).unwrap();
    assert_eq!(day.unpaid_balances.iter().map(|u| u.cart_id).collect::<Vec<_>>(), vec![owed]);
    assert_eq!(day.unpaid_balances_not_listed, 0);
}
