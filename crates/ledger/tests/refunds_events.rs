//! Refunds and PSP events against the ledger (record 0011, 0015): refunds never exceed
//! the capture and wait for each other, a payment's refund states match its refunds, and
//! every PSP event is journaled once without an illegal move.

use crate::common;
use common::*;
use paydesk_domain::*;
use paydesk_ledger::*;

fn captured(l: &mut Ledger, minor: i64, psp: &str) -> Payment {
    let p = new_payment(l, minor, 1);
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "", 2).unwrap();
    l.payments_mut().record_psp_result(
        &PspResult {
            idempotency_key: p.idempotency_key.clone(),
            psp_payment_id: psp.into(),
            amount: usd(minor),
            state_if_new: PaymentState::Captured,
        },
        3,
    )
    .unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "", 4).unwrap();
    l.payments().by_id(p.id).unwrap()
}

/// A partial refund pressed twice: the second `create_refund` (a new key) is refused
/// while the first is pending or in flight, in the same transaction that would insert
/// it; once the first succeeded or failed, refunds are allowed again up to the capture.
#[test]
fn a_second_refund_waits_for_the_open_one() {
    let mut l = mem();
    let p = captured(&mut l, 1000, "pi_twice");
    let r1 = l.refunds_mut().create(p.id, 300, None, 10).unwrap();
    match l.refunds_mut().create(p.id, 300, None, 11) {
        Err(Error::RefundInProgress { payment_id, refund_key }) => {
            assert_eq!(payment_id, p.id.0);
            assert_eq!(refund_key, r1.idempotency_key);
        }
        other => panic!("pending: {other:?}"),
    }
    l.refunds_mut().transition(r1.id, RefundState::Pending, RefundState::InFlight, 12).unwrap();
    assert!(matches!(l.refunds_mut().create(p.id, 300, None, 13), Err(Error::RefundInProgress { .. })), "in flight");
    assert_eq!(l.refunds().for_payment(p.id).unwrap().len(), 1, "nothing written by the refused ones");
    // The first failed: allowed again (its amount refundable again).
    l.refunds_mut().record_result(r1.id, "re_t1", RefundState::Failed, 14).unwrap();
    let r2 = l.refunds_mut().create(p.id, 300, None, 15).unwrap();
    assert!(matches!(l.refunds_mut().create(p.id, 300, None, 16), Err(Error::RefundInProgress { .. })));
    // The second succeeded: allowed again, up to the cap.
    l.refunds_mut().record_result(r2.id, "re_t2", RefundState::Succeeded, 17).unwrap();
    assert!(matches!(l.refunds_mut().create(p.id, 701, None, 18), Err(Error::RefundExceedsCaptured { refundable_minor: 700, .. })));
    let r3 = l.refunds_mut().create(p.id, 700, None, 19).unwrap();
    l.refunds_mut().record_result(r3.id, "re_t3", RefundState::Succeeded, 20).unwrap();
    let done = l.payments().by_id(p.id).unwrap();
    assert_eq!((done.state, done.refunded_minor), (PaymentState::Refunded, 1000));
}

#[test]
fn refunds_never_exceed_the_capture() {
    let mut l = mem();
    let p = captured(&mut l, 1000, "pi_r");
    assert!(matches!(
        l.refunds_mut().create(p.id, 1001, None, 10),
        Err(Error::RefundExceedsCaptured { requested_minor: 1001, refundable_minor: 1000, .. })
    ));
    assert!(matches!(l.refunds_mut().create(p.id, 0, None, 10), Err(Error::InvalidAmount(_))));
    let r1 = l.refunds_mut().create(p.id, 600, Some("damaged"), 11).unwrap();
    assert_eq!(r1.state, RefundState::Pending);
    assert_ne!(r1.idempotency_key, p.idempotency_key);
    assert_eq!(r1.request_params.get("payment_intent"), Some("pi_r"));
    assert_eq!(l.payments().by_id(p.id).unwrap().state, PaymentState::Refunding);
    // While r1 is open no second refund is made (the same refund pressed twice).
    assert!(matches!(l.refunds_mut().create(p.id, 400, None, 12), Err(Error::RefundInProgress { .. })));
    // r1 succeeds, recorded twice.
    l.refunds_mut().transition(r1.id, RefundState::Pending, RefundState::InFlight, 15).unwrap();
    assert_eq!(
        l.refunds_mut().record_result(r1.id, "re_1", RefundState::Succeeded, 16).unwrap(),
        RefundRecordOutcome::Recorded(r1.id)
    );
    assert_eq!(l.refunds_mut().record_result(r1.id, "re_1", RefundState::Succeeded, 17).unwrap(), RefundRecordOutcome::Exists(r1.id));
    assert!(matches!(
        l.refunds_mut().record_result(r1.id, "re_X", RefundState::Succeeded, 18).unwrap(),
        RefundRecordOutcome::ExistsWithDifferentPspRefundId { .. }
    ));
    let after = l.payments().by_id(p.id).unwrap();
    assert_eq!(after.refunded_minor, 600);
    assert_eq!(after.state, PaymentState::PartiallyRefunded);
    // A succeeded refund reserves its amount.
    assert!(matches!(
        l.refunds_mut().create(p.id, 401, None, 19),
        Err(Error::RefundExceedsCaptured { refundable_minor: 400, .. })
    ));
    // r2 fails: its 400 becomes refundable again.
    let r2 = l.refunds_mut().create(p.id, 400, None, 19).unwrap();
    l.refunds_mut().transition(r2.id, RefundState::Pending, RefundState::InFlight, 19).unwrap();
    l.refunds_mut().record_result(r2.id, "re_2", RefundState::Failed, 19).unwrap();
    assert_eq!(l.payments().by_id(p.id).unwrap().state, PaymentState::PartiallyRefunded);
    // The rest.
    let r3 = l.refunds_mut().create(p.id, 400, None, 19).unwrap();
    l.refunds_mut().record_result(r3.id, "re_3", RefundState::Succeeded, 20).unwrap();
    let done = l.payments().by_id(p.id).unwrap();
    assert_eq!((done.state, done.refunded_minor), (PaymentState::Refunded, 1000));
    assert!(matches!(l.refunds_mut().create(p.id, 1, None, 21), Err(Error::NotRefundable { .. })));
    // Illegal refund transition.
    assert!(matches!(
        l.refunds_mut().transition(r3.id, RefundState::Succeeded, RefundState::Pending, 22),
        Err(Error::IllegalRefundTransition(_))
    ));
    assert!(l.refunds().needing_recovery().unwrap().is_empty());
}

#[test]
fn uncaptured_payments_cannot_be_refunded() {
    let mut l = mem();
    let p = new_payment(&mut l, 100, 1);
    assert!(matches!(l.refunds_mut().create(p.id, 50, None, 2), Err(Error::NotRefundable { .. })));
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
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "", 2).unwrap();
    l.payments_mut().record_psp_result(
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
    let first = l.sync_log_mut().apply_event(&e, 4).unwrap();
    assert!(matches!(
        first,
        ApplyOutcome::Applied {
            state_change: Some((PaymentState::Authorizing, PaymentState::Captured)),
            journal_amount_minor: 700,
            ..
        }
    ));
    let timeline_len = l.payments().timeline(p.id).unwrap().len();
    for t in 0..3 {
        assert_eq!(l.sync_log_mut().apply_event(&e, 5 + t).unwrap(), ApplyOutcome::AlreadyApplied);
    }
    assert_eq!(count(&l, "SELECT count(*) FROM journal"), 1);
    assert_eq!(count(&l, "SELECT count(*) FROM processed_events"), 1);
    assert_eq!(l.payments().timeline(p.id).unwrap().len(), timeline_len);
    assert_eq!(l.sync_log().journal_total(Currency::Usd).unwrap(), 700);
    assert!(l.sync_log().is_event_processed("evt_1").unwrap());
    assert_eq!(l.payments().by_id(p.id).unwrap().state, PaymentState::Captured);
}

#[test]
fn out_of_order_and_unknown_events_are_journaled_without_illegal_moves() {
    let mut l = mem();
    let p = captured(&mut l, 900, "pi_o");
    let r = l.refunds_mut().create(p.id, 900, None, 10).unwrap();
    l.refunds_mut().record_result(r.id, "re_o", RefundState::InFlight, 11).unwrap();
    // A late "authorized" event: authorized is not reachable from refunding.
    let late = l.sync_log_mut().apply_event(&event("evt_a", "payment_intent.amount_capturable_updated", "pi_o", 900), 12).unwrap();
    assert!(matches!(late, ApplyOutcome::Applied { state_change: None, .. }));
    assert_eq!(l.payments().by_id(p.id).unwrap().state, PaymentState::Refunding);
    // The refund event settles the refund and the payment, once.
    let mut re = event("evt_r", "charge.refunded", "pi_o", 900);
    re.psp_refund_id = Some("re_o".into());
    l.sync_log_mut().apply_event(&re, 13).unwrap();
    assert_eq!(l.sync_log_mut().apply_event(&re, 14).unwrap(), ApplyOutcome::AlreadyApplied);
    // The direct PSP answer arrives after the event: no double settlement.
    assert_eq!(l.refunds_mut().record_result(r.id, "re_o", RefundState::Succeeded, 15).unwrap(), RefundRecordOutcome::Exists(r.id));
    let after = l.payments().by_id(p.id).unwrap();
    assert_eq!((after.state, after.refunded_minor), (PaymentState::Refunded, 900));
    // Unknown payment: still exactly once, still one journal row.
    l.sync_log_mut().apply_event(&event("evt_u", "payment_intent.succeeded", "pi_unknown", 50), 16).unwrap();
    assert_eq!(count(&l, "SELECT count(*) FROM journal"), 3);
    assert_eq!(l.sync_log().journal_total(Currency::Usd).unwrap(), -900 + 50);
}

#[test]
fn an_event_found_by_checkout_key_attaches_the_psp_id() {
    let mut l = mem();
    let p = new_payment(&mut l, 300, 1);
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "timeout: reply lost", 2).unwrap();
    let mut e = event("evt_k", "payment_intent.succeeded", "pi_lost", 300);
    e.checkout_key = Some(p.idempotency_key.clone());
    l.sync_log_mut().apply_event(&e, 3).unwrap();
    let after = l.payments().by_id(p.id).unwrap();
    assert_eq!(after.psp_payment_id.as_deref(), Some("pi_lost"));
    assert_eq!(after.state, PaymentState::Captured);
}

#[test]
fn refund_states_must_match_the_refunds() {
    let mut l = mem();
    let p = captured(&mut l, 1000, "pi_b");
    // No refund open: the payment cannot claim to be refunding or refunded.
    let e = l.payments_mut().transition(p.id, PaymentState::Captured, PaymentState::Refunding, "", 10).unwrap_err();
    assert!(matches!(e, Error::RefundBookkeeping { to: PaymentState::Refunding, open_refunds: 0, .. }), "{e:?}");
    let r = l.refunds_mut().create(p.id, 400, None, 11).unwrap();
    for to in [PaymentState::Refunded, PaymentState::PartiallyRefunded, PaymentState::Captured] {
        assert!(
            matches!(l.payments_mut().transition(p.id, PaymentState::Refunding, to, "", 12), Err(Error::RefundBookkeeping { .. })),
            "{to} while a refund is open"
        );
    }
    l.refunds_mut().record_result(r.id, "re_b", RefundState::Succeeded, 13).unwrap();
    let after = l.payments().by_id(p.id).unwrap();
    assert_eq!((after.state, after.refunded_minor), (PaymentState::PartiallyRefunded, 400));
}
