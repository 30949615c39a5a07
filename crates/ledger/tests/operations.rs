//! Ledger operations against the rules of design §3-§4.

mod common;
use common::*;
use paydesk_ledger::*;

#[test]
fn open_checkout_commits_key_and_exact_params_before_returning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let mut l = Ledger::open(&path).unwrap();
    seed(&mut l);
    let cart = l.create_cart(Currency::Usd, 1_000).unwrap();
    l.add_to_cart(cart, "COF", 2, 1_001).unwrap();
    l.add_to_cart(cart, "BAG", 1, 1_002).unwrap();
    let c = l.open_checkout(cart, &CheckoutOptions::card("pm_card_visa"), 2_000).unwrap();
    assert!(c.is_new);
    let p = &c.payment;
    assert_eq!(p.state, PaymentState::Created);
    assert_eq!(p.amount, usd(925));
    let key = uuid::Uuid::parse_str(&p.idempotency_key).unwrap();
    assert_eq!(key.get_version_num(), 4);
    assert_eq!(p.created_at_ms, 2_000);
    assert_eq!(
        p.request_params.0,
        vec![
            ("amount".to_string(), "925".to_string()),
            ("currency".into(), "usd".into()),
            ("payment_method".into(), "pm_card_visa".into()),
            ("confirm".into(), "true".into()),
            ("capture_method".into(), "automatic".into()),
            ("metadata[checkout_key]".into(), p.idempotency_key.clone()),
            ("metadata[cart_id]".into(), cart.0.to_string()),
        ]
    );
    // Visible to an independent connection: committed, not just buffered.
    let other = Ledger::open(&path).unwrap();
    assert_eq!(other.payment_by_key(&p.idempotency_key).unwrap().as_ref(), Some(p));
    assert_eq!(other.cart(cart).unwrap().state, CartState::Locked);
}

#[test]
fn charge_pressed_again_reuses_the_open_checkout() {
    let mut l = mem();
    seed(&mut l);
    let cart = l.create_cart(Currency::Usd, 0).unwrap();
    l.add_to_cart(cart, "COF", 1, 0).unwrap();
    let opts = CheckoutOptions::card("pm_card_visa");
    let first = l.open_checkout(cart, &opts, 10).unwrap();
    for t in 0..5 {
        let again = l.open_checkout(cart, &opts, 11 + t).unwrap();
        assert!(!again.is_new);
        assert_eq!(again.payment.idempotency_key, first.payment.idempotency_key);
    }
    // Still open while in flight.
    l.transition(first.payment.id, PaymentState::Created, PaymentState::Authorizing, "", 20).unwrap();
    assert!(!l.open_checkout(cart, &opts, 21).unwrap().is_new);
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 1);
    // The cart is locked: its parameters cannot change under the open checkout.
    assert!(matches!(l.add_to_cart(cart, "BAG", 1, 22), Err(Error::CartNotOpen { .. })));
    assert!(matches!(l.set_quantity(cart, "COF", 3, 22), Err(Error::CartNotOpen { .. })));
    // Decline: the cart reopens, and only then is a new key made.
    l.transition(first.payment.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", 30).unwrap();
    assert_eq!(l.cart(cart).unwrap().state, CartState::Open);
    let second = l.open_checkout(cart, &CheckoutOptions::card("pm_card_mastercard"), 40).unwrap();
    assert!(second.is_new);
    assert_ne!(second.payment.idempotency_key, first.payment.idempotency_key);
    l.transition(second.payment.id, PaymentState::Created, PaymentState::Authorizing, "", 41).unwrap();
    l.transition(second.payment.id, PaymentState::Authorizing, PaymentState::Captured, "", 42).unwrap();
    assert_eq!(l.cart(cart).unwrap().state, CartState::Paid);
    assert!(matches!(l.open_checkout(cart, &opts, 50), Err(Error::CartNotOpen { .. })));
}

#[test]
fn last_payment_for_cart_finds_the_newest_even_behind_many_other_payments() {
    let mut l = mem();
    seed(&mut l);
    let opts = CheckoutOptions::card("pm_card_visa");
    let cart = l.create_cart(Currency::Usd, 0).unwrap();
    assert_eq!(l.last_payment_for_cart(cart).unwrap(), None);
    l.add_to_cart(cart, "COF", 1, 0).unwrap();
    let first = l.open_checkout(cart, &opts, 10).unwrap().payment;
    l.transition(first.id, PaymentState::Created, PaymentState::Authorizing, "", 11).unwrap();
    l.transition(first.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", 12).unwrap();
    let second = l.open_checkout(cart, &opts, 20).unwrap().payment;
    // 300 other carts' checkouts after it: older than any "recent N" window.
    for i in 0..300 {
        let other = l.create_cart(Currency::Usd, 30 + i).unwrap();
        l.add_to_cart(other, "BAG", 1, 30 + i).unwrap();
        l.open_checkout(other, &opts, 30 + i).unwrap();
    }
    let last = l.last_payment_for_cart(cart).unwrap().expect("the cart has payments");
    assert_eq!(last.idempotency_key, second.idempotency_key);
    assert_eq!(last.state, PaymentState::Created);
    assert_eq!(l.last_payment_for_cart(CartId(999_999)).unwrap(), None);
}

#[test]
fn empty_cart_and_unknown_cart_are_refused() {
    let mut l = mem();
    let cart = l.create_cart(Currency::Usd, 0).unwrap();
    assert!(matches!(l.open_checkout(cart, &CheckoutOptions::card("pm_card_visa"), 1), Err(Error::EmptyCart(_))));
    assert!(matches!(
        l.open_checkout(CartId(999), &CheckoutOptions::card("pm_card_visa"), 1),
        Err(Error::UnknownCart(999))
    ));
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 0);
}

#[test]
fn same_key_twice_is_one_row() {
    let mut l = mem();
    let r = PspResult {
        idempotency_key: "k-1".into(),
        psp_payment_id: "pi_1".into(),
        amount: usd(1234),
        state_if_new: PaymentState::Captured,
    };
    let first = l.record_psp_result(&r, 1).unwrap();
    let id = match first {
        RecordOutcome::Recorded(id) => id,
        other => panic!("{other:?}"),
    };
    assert_eq!(l.record_psp_result(&r, 2).unwrap(), RecordOutcome::Exists(id));
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 1);
    let p = l.payment_by_key("k-1").unwrap().unwrap();
    assert_eq!(p.updated_at_ms, 1, "Exists must not write");
}

#[test]
fn different_fields_are_named_and_change_nothing() {
    let mut l = mem();
    let base = PspResult {
        idempotency_key: "k-1".into(),
        psp_payment_id: "pi_1".into(),
        amount: usd(1234),
        state_if_new: PaymentState::Captured,
    };
    let RecordOutcome::Recorded(id) = l.record_psp_result(&base, 1).unwrap() else { panic!() };
    let before = l.payment_by_id(id).unwrap();

    let amount = PspResult { amount: usd(1235), ..base.clone() };
    let out = l.record_psp_result(&amount, 2).unwrap();
    assert_eq!(out, RecordOutcome::ExistsWithDifferentAmount { id, stored_minor: 1234, requested_minor: 1235 });
    assert_eq!(out.differing_field(), Some("amount"));

    let currency = PspResult { amount: Money::new(1234, Currency::Eur), ..base.clone() };
    assert_eq!(
        l.record_psp_result(&currency, 3).unwrap(),
        RecordOutcome::ExistsWithDifferentCurrency { id, stored: Currency::Usd, requested: Currency::Eur }
    );

    let psp = PspResult { psp_payment_id: "pi_2".into(), ..base.clone() };
    assert_eq!(
        l.record_psp_result(&psp, 4).unwrap(),
        RecordOutcome::ExistsWithDifferentPspPaymentId { id, stored: "pi_1".into(), requested: "pi_2".into() }
    );

    let stolen = PspResult { idempotency_key: "k-2".into(), ..base.clone() };
    assert_eq!(
        l.record_psp_result(&stolen, 5).unwrap(),
        RecordOutcome::PspPaymentIdBelongsToAnotherKey { id, other_key: "k-1".into() }
    );

    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 1);
    assert_eq!(l.payment_by_id(id).unwrap(), before);
}

#[test]
fn psp_id_attaches_to_the_checkout_row() {
    let mut l = mem();
    let p = new_payment(&mut l, 500, 1);
    let r = PspResult {
        idempotency_key: p.idempotency_key.clone(),
        psp_payment_id: "pi_9".into(),
        amount: usd(500),
        state_if_new: PaymentState::Captured,
    };
    assert_eq!(l.record_psp_result(&r, 2).unwrap(), RecordOutcome::Recorded(p.id));
    assert_eq!(l.record_psp_result(&r, 3).unwrap(), RecordOutcome::Exists(p.id));
    let after = l.payment_by_id(p.id).unwrap();
    assert_eq!(after.psp_payment_id.as_deref(), Some("pi_9"));
    assert_eq!(after.state, PaymentState::Created, "state moves only through transition()");
    assert_eq!(l.payment_by_psp_id("pi_9").unwrap().unwrap().id, p.id);
}

#[test]
fn every_pair_through_the_database() {
    let mut l = mem();
    let mut t = 0;
    for from in PaymentState::ALL {
        for to in PaymentState::ALL {
            t += 1;
            let p = new_payment(&mut l, 100, t);
            force_state(&l, p.id, from);
            // Make the refund bookkeeping agree with the move, so only the table decides.
            if to == PaymentState::Refunding {
                l.connection()
                    .execute(
                        "INSERT INTO refunds (idempotency_key, payment_id, amount_minor, currency, state, request_params,
                             created_at_ms, updated_at_ms) VALUES (?1, ?2, 10, 'usd', 'pending', '[]', 0, 0)",
                        rusqlite::params![format!("r-{}", p.id), p.id.0],
                    )
                    .unwrap();
            }
            let refunded = match to {
                PaymentState::Refunded => 100,
                PaymentState::PartiallyRefunded => 50,
                _ => 0,
            };
            l.connection()
                .execute("UPDATE payments SET refunded_minor = ?2 WHERE id = ?1", rusqlite::params![p.id.0, refunded])
                .unwrap();
            let timeline_before = l.timeline(p.id).unwrap().len();
            let r = l.transition(p.id, from, to, "test", t);
            let now = l.payment_by_id(p.id).unwrap().state;
            let timeline_after = l.timeline(p.id).unwrap().len();
            if from == to {
                assert_eq!(r.unwrap(), TransitionOutcome::AlreadyDone(from), "{from}->{to}");
                assert_eq!(now, from);
                assert_eq!(timeline_after, timeline_before);
            } else if from.can_transition_to(to) {
                assert_eq!(r.unwrap(), TransitionOutcome::Applied { from, to }, "{from}->{to}");
                assert_eq!(now, to);
                assert_eq!(timeline_after, timeline_before + 1);
            } else {
                match r {
                    Err(Error::IllegalTransition(e)) => assert_eq!((e.from, e.to), (from, to)),
                    other => panic!("{from}->{to}: {other:?}"),
                }
                assert_eq!(now, from, "illegal transition must not write");
                assert_eq!(timeline_after, timeline_before);
            }
        }
    }
}

#[test]
fn repeated_and_stale_transitions() {
    let mut l = mem();
    let p = new_payment(&mut l, 100, 1);
    let a = l.transition(p.id, PaymentState::Created, PaymentState::Authorizing, "attempt 1", 2).unwrap();
    assert_eq!(a, TransitionOutcome::Applied { from: PaymentState::Created, to: PaymentState::Authorizing });
    // The same transition again (a second worker, a replay): no-op, current state.
    let b = l.transition(p.id, PaymentState::Created, PaymentState::Authorizing, "attempt 1", 3).unwrap();
    assert_eq!(b, TransitionOutcome::AlreadyDone(PaymentState::Authorizing));
    // Someone moved it on: the caller's view is stale.
    l.transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "", 4).unwrap();
    let c = l.transition(p.id, PaymentState::Authorizing, PaymentState::Failed, "", 5);
    assert!(matches!(
        c,
        Err(Error::StaleState { expected: PaymentState::Authorizing, found: PaymentState::Captured, .. })
    ));
    assert!(matches!(
        l.transition(PaymentId(404), PaymentState::Created, PaymentState::Authorizing, "", 6),
        Err(Error::UnknownPayment(_))
    ));
    let kinds: Vec<String> = l.timeline(p.id).unwrap().into_iter().map(|e| e.kind).collect();
    assert_eq!(kinds, ["created", "transition", "transition"]);
}

#[test]
fn attempts_are_on_the_timeline_and_first_attempt_is_stamped_once() {
    let mut l = mem();
    let p = new_payment(&mut l, 100, 1);
    assert_eq!(p.first_attempt_at_ms, None);
    for (n, (outcome, replayed)) in [("timeout", false), ("replayed 200", true)].into_iter().enumerate() {
        l.record_attempt(
            p.id,
            &TimelineInput {
                detail: "POST /v1/payment_intents".into(),
                outcome: Some(outcome.into()),
                latency_ms: Some(30_000),
                replayed,
                attempt_no: Some(n as i64 + 1),
                ..Default::default()
            },
            100 + n as i64,
        )
        .unwrap();
    }
    let after = l.payment_by_id(p.id).unwrap();
    assert_eq!(after.first_attempt_at_ms, Some(100));
    let tl = l.timeline(p.id).unwrap();
    let attempts: Vec<_> = tl.iter().filter(|e| e.kind == "attempt").collect();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[1].attempt_no, Some(2));
    assert!(attempts[1].replayed);
    assert_eq!(attempts[0].latency_ms, Some(30_000));
}

fn captured(l: &mut Ledger, minor: i64, psp: &str) -> Payment {
    let p = new_payment(l, minor, 1);
    l.transition(p.id, PaymentState::Created, PaymentState::Authorizing, "", 2).unwrap();
    l.record_psp_result(
        &PspResult {
            idempotency_key: p.idempotency_key.clone(),
            psp_payment_id: psp.into(),
            amount: usd(minor),
            state_if_new: PaymentState::Captured,
        },
        3,
    )
    .unwrap();
    l.transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "", 4).unwrap();
    l.payment_by_id(p.id).unwrap()
}

/// A partial refund pressed twice: the second `create_refund` (a new key) is refused
/// while the first is pending or in flight, in the same transaction that would insert
/// it; once the first succeeded or failed, refunds are allowed again up to the capture.
#[test]
fn a_second_refund_waits_for_the_open_one() {
    let mut l = mem();
    let p = captured(&mut l, 1000, "pi_twice");
    let r1 = l.create_refund(p.id, 300, None, 10).unwrap();
    match l.create_refund(p.id, 300, None, 11) {
        Err(Error::RefundInProgress { payment_id, refund_key }) => {
            assert_eq!(payment_id, p.id.0);
            assert_eq!(refund_key, r1.idempotency_key);
        }
        other => panic!("pending: {other:?}"),
    }
    l.transition_refund(r1.id, RefundState::Pending, RefundState::InFlight, 12).unwrap();
    assert!(matches!(l.create_refund(p.id, 300, None, 13), Err(Error::RefundInProgress { .. })), "in flight");
    assert_eq!(l.refunds_for_payment(p.id).unwrap().len(), 1, "nothing written by the refused ones");
    // The first failed: allowed again (its amount refundable again).
    l.record_refund_result(r1.id, "re_t1", RefundState::Failed, 14).unwrap();
    let r2 = l.create_refund(p.id, 300, None, 15).unwrap();
    assert!(matches!(l.create_refund(p.id, 300, None, 16), Err(Error::RefundInProgress { .. })));
    // The second succeeded: allowed again, up to the cap.
    l.record_refund_result(r2.id, "re_t2", RefundState::Succeeded, 17).unwrap();
    assert!(matches!(l.create_refund(p.id, 701, None, 18), Err(Error::RefundExceedsCaptured { refundable_minor: 700, .. })));
    let r3 = l.create_refund(p.id, 700, None, 19).unwrap();
    l.record_refund_result(r3.id, "re_t3", RefundState::Succeeded, 20).unwrap();
    let done = l.payment_by_id(p.id).unwrap();
    assert_eq!((done.state, done.refunded_minor), (PaymentState::Refunded, 1000));
}

#[test]
fn refunds_never_exceed_the_capture() {
    let mut l = mem();
    let p = captured(&mut l, 1000, "pi_r");
    assert!(matches!(
        l.create_refund(p.id, 1001, None, 10),
        Err(Error::RefundExceedsCaptured { requested_minor: 1001, refundable_minor: 1000, .. })
    ));
    assert!(matches!(l.create_refund(p.id, 0, None, 10), Err(Error::InvalidAmount(_))));
    let r1 = l.create_refund(p.id, 600, Some("damaged"), 11).unwrap();
    assert_eq!(r1.state, RefundState::Pending);
    assert_ne!(r1.idempotency_key, p.idempotency_key);
    assert_eq!(r1.request_params.get("payment_intent"), Some("pi_r"));
    assert_eq!(l.payment_by_id(p.id).unwrap().state, PaymentState::Refunding);
    // While r1 is open no second refund is made (the same refund pressed twice).
    assert!(matches!(l.create_refund(p.id, 400, None, 12), Err(Error::RefundInProgress { .. })));
    // r1 succeeds, recorded twice.
    l.transition_refund(r1.id, RefundState::Pending, RefundState::InFlight, 15).unwrap();
    assert_eq!(
        l.record_refund_result(r1.id, "re_1", RefundState::Succeeded, 16).unwrap(),
        RefundRecordOutcome::Recorded(r1.id)
    );
    assert_eq!(l.record_refund_result(r1.id, "re_1", RefundState::Succeeded, 17).unwrap(), RefundRecordOutcome::Exists(r1.id));
    assert!(matches!(
        l.record_refund_result(r1.id, "re_X", RefundState::Succeeded, 18).unwrap(),
        RefundRecordOutcome::ExistsWithDifferentPspRefundId { .. }
    ));
    let after = l.payment_by_id(p.id).unwrap();
    assert_eq!(after.refunded_minor, 600);
    assert_eq!(after.state, PaymentState::PartiallyRefunded);
    // A succeeded refund reserves its amount.
    assert!(matches!(
        l.create_refund(p.id, 401, None, 19),
        Err(Error::RefundExceedsCaptured { refundable_minor: 400, .. })
    ));
    // r2 fails: its 400 becomes refundable again.
    let r2 = l.create_refund(p.id, 400, None, 19).unwrap();
    l.transition_refund(r2.id, RefundState::Pending, RefundState::InFlight, 19).unwrap();
    l.record_refund_result(r2.id, "re_2", RefundState::Failed, 19).unwrap();
    assert_eq!(l.payment_by_id(p.id).unwrap().state, PaymentState::PartiallyRefunded);
    // The rest.
    let r3 = l.create_refund(p.id, 400, None, 19).unwrap();
    l.record_refund_result(r3.id, "re_3", RefundState::Succeeded, 20).unwrap();
    let done = l.payment_by_id(p.id).unwrap();
    assert_eq!((done.state, done.refunded_minor), (PaymentState::Refunded, 1000));
    assert!(matches!(l.create_refund(p.id, 1, None, 21), Err(Error::NotRefundable { .. })));
    // Illegal refund transition.
    assert!(matches!(
        l.transition_refund(r3.id, RefundState::Succeeded, RefundState::Pending, 22),
        Err(Error::IllegalRefundTransition(_))
    ));
    assert!(l.refunds_needing_recovery().unwrap().is_empty());
}

#[test]
fn uncaptured_payments_cannot_be_refunded() {
    let mut l = mem();
    let p = new_payment(&mut l, 100, 1);
    assert!(matches!(l.create_refund(p.id, 50, None, 2), Err(Error::NotRefundable { .. })));
}

fn event(id: &str, ty: &str, psp: &str, minor: i64) -> PspEvent {
    PspEvent {
        event_id: id.into(),
        event_type: ty.into(),
        kind: EventKind::from_stripe(ty, None),
        psp_payment_id: Some(psp.into()),
        checkout_key: None,
        psp_refund_id: None,
        refund_key: None,
        amount: Some(usd(minor)),
    }
}

#[test]
fn an_event_applied_twice_is_one_journal_row() {
    let mut l = mem();
    let p = new_payment(&mut l, 700, 1);
    l.transition(p.id, PaymentState::Created, PaymentState::Authorizing, "", 2).unwrap();
    l.record_psp_result(
        &PspResult {
            idempotency_key: p.idempotency_key.clone(),
            psp_payment_id: "pi_e".into(),
            amount: usd(700),
            state_if_new: PaymentState::Captured,
        },
        3,
    )
    .unwrap();
    let e = event("evt_1", "payment_intent.succeeded", "pi_e", 700);
    let first = l.apply_event(&e, 4).unwrap();
    assert!(matches!(
        first,
        ApplyOutcome::Applied {
            state_change: Some((PaymentState::Authorizing, PaymentState::Captured)),
            journal_amount_minor: 700,
            ..
        }
    ));
    let timeline_len = l.timeline(p.id).unwrap().len();
    for t in 0..3 {
        assert_eq!(l.apply_event(&e, 5 + t).unwrap(), ApplyOutcome::AlreadyApplied);
    }
    assert_eq!(count(&l, "SELECT count(*) FROM journal"), 1);
    assert_eq!(count(&l, "SELECT count(*) FROM processed_events"), 1);
    assert_eq!(l.timeline(p.id).unwrap().len(), timeline_len);
    assert_eq!(l.journal_total(Currency::Usd).unwrap(), 700);
    assert!(l.is_event_processed("evt_1").unwrap());
    assert_eq!(l.payment_by_id(p.id).unwrap().state, PaymentState::Captured);
}

#[test]
fn out_of_order_and_unknown_events_are_journaled_without_illegal_moves() {
    let mut l = mem();
    let p = captured(&mut l, 900, "pi_o");
    let r = l.create_refund(p.id, 900, None, 10).unwrap();
    l.record_refund_result(r.id, "re_o", RefundState::InFlight, 11).unwrap();
    // A late "authorized" event: authorized is not reachable from refunding.
    let late = l.apply_event(&event("evt_a", "payment_intent.amount_capturable_updated", "pi_o", 900), 12).unwrap();
    assert!(matches!(late, ApplyOutcome::Applied { state_change: None, .. }));
    assert_eq!(l.payment_by_id(p.id).unwrap().state, PaymentState::Refunding);
    // The refund event settles the refund and the payment, once.
    let mut re = event("evt_r", "charge.refunded", "pi_o", 900);
    re.psp_refund_id = Some("re_o".into());
    l.apply_event(&re, 13).unwrap();
    assert_eq!(l.apply_event(&re, 14).unwrap(), ApplyOutcome::AlreadyApplied);
    // The direct PSP answer arrives after the event: no double settlement.
    assert_eq!(l.record_refund_result(r.id, "re_o", RefundState::Succeeded, 15).unwrap(), RefundRecordOutcome::Exists(r.id));
    let after = l.payment_by_id(p.id).unwrap();
    assert_eq!((after.state, after.refunded_minor), (PaymentState::Refunded, 900));
    // Unknown payment: still exactly once, still one journal row.
    l.apply_event(&event("evt_u", "payment_intent.succeeded", "pi_unknown", 50), 16).unwrap();
    assert_eq!(count(&l, "SELECT count(*) FROM journal"), 3);
    assert_eq!(l.journal_total(Currency::Usd).unwrap(), -900 + 50);
}

#[test]
fn recovery_and_offline_queries() {
    let mut l = mem();
    let a = new_payment(&mut l, 100, 30);
    let b = new_payment(&mut l, 200, 10);
    let c = new_payment(&mut l, 300, 20);
    let d = new_payment(&mut l, 400, 40);
    l.transition(b.id, PaymentState::Created, PaymentState::QueuedOffline, "psp unreachable", 50).unwrap();
    l.transition(c.id, PaymentState::Created, PaymentState::QueuedOffline, "psp unreachable", 51).unwrap();
    l.transition(a.id, PaymentState::Created, PaymentState::Authorizing, "", 52).unwrap();
    l.transition(d.id, PaymentState::Created, PaymentState::Canceled, "", 53).unwrap();
    let q: Vec<_> = l.offline_queue().unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(q, vec![b.id, c.id], "forwarded in creation order");
    assert!(l.payment_by_id(b.id).unwrap().offline);
    let stats = l.offline_queue_stats().unwrap();
    assert_eq!(stats.count, 2);
    assert_eq!(stats.total_minor_by_currency, vec![(Currency::Usd, 500)]);
    assert_eq!(stats.oldest_created_at_ms, Some(10));
    let rec: Vec<_> = l.payments_needing_recovery().unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(rec, vec![a.id]);
    assert_eq!(l.payments_in_flight().unwrap().len(), 1);
    assert_eq!(l.list_payments(10, 0).unwrap().len(), 4);
}

#[test]
fn carts_totals_and_currency() {
    let mut l = mem();
    seed(&mut l);
    let cart = l.create_cart(Currency::Usd, 0).unwrap();
    l.add_to_cart(cart, "COF", 2, 1).unwrap();
    l.add_to_cart(cart, "COF", 1, 2).unwrap();
    let c = l.add_to_cart(cart, "BAG", 4, 3).unwrap();
    assert_eq!(c.total, usd(3 * 350 + 4 * 225));
    assert_eq!(c.lines.len(), 2);
    let c = l.set_quantity(cart, "BAG", 1, 4).unwrap();
    assert_eq!(c.total, usd(3 * 350 + 225));
    let c = l.remove_from_cart(cart, "COF", 5).unwrap();
    assert_eq!(c.total, usd(225));
    assert!(matches!(l.add_to_cart(cart, "YEN", 1, 6), Err(Error::CurrencyMismatch { .. })));
    assert!(matches!(l.add_to_cart(cart, "NOPE", 1, 6), Err(Error::UnknownProduct(_))));
    assert!(matches!(l.add_to_cart(cart, "BAG", 0, 6), Err(Error::InvalidInput(_))));
    // Overflow is refused, never wrapped.
    l.seed_catalog(&[NewProduct { sku: "GOLD".into(), name: "Gold".into(), price: usd(i64::MAX / 2) }]).unwrap();
    assert!(matches!(l.add_to_cart(cart, "GOLD", 3, 7), Err(Error::Overflow)));
    l.add_to_cart(cart, "GOLD", 1, 8).unwrap();
    assert!(matches!(l.add_to_cart(cart, "GOLD", 1, 9), Err(Error::Overflow)));
    assert_eq!(l.cart(cart).unwrap().total, usd(i64::MAX / 2 + 225));
    // Catalog upsert by SKU.
    l.seed_catalog(&[NewProduct { sku: "COF".into(), name: "Coffee L".into(), price: usd(400) }]).unwrap();
    assert_eq!(l.product_by_sku("COF").unwrap().unwrap().price, usd(400));
    assert_eq!(l.products().unwrap().len(), 4);
}

#[test]
fn audit_log_keeps_override_reasons() {
    let mut l = mem();
    l.audit("new_payment_override", "customer left, manager approved", Some("payment 3"), 99).unwrap();
    let log = l.audit_log().unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].reason, "customer left, manager approved");
    assert_eq!(log[0].at_ms, 99);
}

#[test]
fn seeded_keys_are_reproducible_uuid_v4() {
    let mut a = SeededKeys::new(42);
    let mut b = SeededKeys::new(42);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..1000 {
        let k = a.next_key();
        assert_eq!(k, b.next_key());
        assert_eq!(k.get_version_num(), 4);
        assert_eq!(k.get_variant(), uuid::Variant::RFC4122);
        assert!(seen.insert(k));
    }
    assert_ne!(SeededKeys::new(1).next_key(), SeededKeys::new(2).next_key());
}

#[test]
fn check_constraints_back_the_code() {
    let l = mem();
    let conn = l.connection();
    // Every state the code knows is accepted by the CHECK; anything else is not.
    for s in PaymentState::ALL {
        conn.execute(
            "INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params,
                 created_at_ms, updated_at_ms) VALUES (?1, 1, 'usd', ?2, 'automatic', '[]', 0, 0)",
            rusqlite::params![format!("k-{s}"), s.as_str()],
        )
        .unwrap();
    }
    let bad = |sql: &str| assert!(conn.execute(sql, []).is_err(), "{sql}");
    bad("INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params, created_at_ms, updated_at_ms) VALUES ('x', 1, 'usd', 'settled', 'automatic', '[]', 0, 0)");
    bad("INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params, created_at_ms, updated_at_ms) VALUES ('y', 0, 'usd', 'created', 'automatic', '[]', 0, 0)");
    bad("INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params, created_at_ms, updated_at_ms) VALUES ('k-created', 1, 'usd', 'created', 'automatic', '[]', 0, 0)");
    bad("INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params, created_at_ms, updated_at_ms) VALUES (NULL, 1, 'usd', 'created', 'automatic', '[]', 0, 0)");
    bad("UPDATE payments SET refunded_minor = 2 WHERE idempotency_key = 'k-captured'");
    bad("INSERT INTO processed_events (event_id, event_type, applied_at_ms, effect) VALUES ('e', 't', 0, ''), ('e', 't', 0, '')");
}

#[test]
fn override_makes_a_new_key_only_with_a_reason_and_audits_it() {
    let mut l = mem();
    seed(&mut l);
    let cart = l.create_cart(Currency::Usd, 0).unwrap();
    l.add_to_cart(cart, "COF", 1, 0).unwrap();
    let opts = CheckoutOptions::card("pm_card_visa");
    let first = l.open_checkout(cart, &opts, 1).unwrap().payment;
    l.transition(first.id, PaymentState::Created, PaymentState::Authorizing, "timeout", 2).unwrap();
    assert!(matches!(l.open_checkout_override(cart, &opts, "  ", 3), Err(Error::InvalidInput(_))));
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 1);
    let second = l.open_checkout_override(cart, &opts, "customer must leave; manager ok", 4).unwrap();
    assert!(second.is_new);
    assert_ne!(second.payment.idempotency_key, first.idempotency_key);
    let log = l.audit_log().unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].action, "new_checkout_override");
    assert!(log[0].detail.as_deref().unwrap().contains(&first.idempotency_key));
    // The old one is still there for crash recovery; Charge now reuses the newest.
    assert_eq!(l.payments_in_flight().unwrap()[0].id, first.id);
    assert_eq!(l.open_checkout(cart, &opts, 5).unwrap().payment.id, second.payment.id);
}

#[test]
fn an_event_found_by_checkout_key_attaches_the_psp_id() {
    let mut l = mem();
    let p = new_payment(&mut l, 300, 1);
    l.transition(p.id, PaymentState::Created, PaymentState::Authorizing, "timeout: reply lost", 2).unwrap();
    let mut e = event("evt_k", "payment_intent.succeeded", "pi_lost", 300);
    e.checkout_key = Some(p.idempotency_key.clone());
    l.apply_event(&e, 3).unwrap();
    let after = l.payment_by_id(p.id).unwrap();
    assert_eq!(after.psp_payment_id.as_deref(), Some("pi_lost"));
    assert_eq!(after.state, PaymentState::Captured);
}

#[test]
fn the_ledger_can_move_to_a_writer_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Ledger>();
}

#[test]
fn refund_states_must_match_the_refunds() {
    let mut l = mem();
    let p = captured(&mut l, 1000, "pi_b");
    // No refund open: the payment cannot claim to be refunding or refunded.
    let e = l.transition(p.id, PaymentState::Captured, PaymentState::Refunding, "", 10).unwrap_err();
    assert!(matches!(e, Error::RefundBookkeeping { to: PaymentState::Refunding, open_refunds: 0, .. }), "{e:?}");
    let r = l.create_refund(p.id, 400, None, 11).unwrap();
    for to in [PaymentState::Refunded, PaymentState::PartiallyRefunded, PaymentState::Captured] {
        assert!(
            matches!(l.transition(p.id, PaymentState::Refunding, to, "", 12), Err(Error::RefundBookkeeping { .. })),
            "{to} while a refund is open"
        );
    }
    l.record_refund_result(r.id, "re_b", RefundState::Succeeded, 13).unwrap();
    let after = l.payment_by_id(p.id).unwrap();
    assert_eq!((after.state, after.refunded_minor), (PaymentState::PartiallyRefunded, 400));
}
