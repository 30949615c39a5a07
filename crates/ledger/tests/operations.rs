//! Ledger operations against the rules of docs/design.md–record 0014.

use crate::common;
use common::*;
use paydesk_domain::*;
use paydesk_ledger::*;

#[test]
fn open_checkout_commits_key_and_exact_params_before_returning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let mut l = Ledger::open(&path).unwrap();
    seed(&mut l);
    let cart = l.carts_mut().create(Currency::Usd, 1_000).unwrap();
    l.carts_mut().add(cart, "COF", 2, 1_001).unwrap();
    l.carts_mut().add(cart, "BAG", 1, 1_002).unwrap();
    let c = l.payments_mut().open_checkout(cart, &CheckoutOptions::card("pm_card_visa"), 2_000).unwrap();
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
    assert_eq!(other.payments().by_key(&p.idempotency_key).unwrap().as_ref(), Some(p));
    assert_eq!(other.carts().by_id(cart).unwrap().state, CartState::Locked);
}

#[test]
fn charge_pressed_again_reuses_the_open_checkout() {
    let mut l = mem();
    seed(&mut l);
    let cart = l.carts_mut().create(Currency::Usd, 0).unwrap();
    l.carts_mut().add(cart, "COF", 1, 0).unwrap();
    let opts = CheckoutOptions::card("pm_card_visa");
    let first = l.payments_mut().open_checkout(cart, &opts, 10).unwrap();
    for t in 0..5 {
        let again = l.payments_mut().open_checkout(cart, &opts, 11 + t).unwrap();
        assert!(!again.is_new);
        assert_eq!(again.payment.idempotency_key, first.payment.idempotency_key);
    }
    // Still open while in flight.
    l.payments_mut().transition(first.payment.id, PaymentState::Created, PaymentState::Authorizing, "", 20).unwrap();
    assert!(!l.payments_mut().open_checkout(cart, &opts, 21).unwrap().is_new);
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 1);
    // The cart is locked: its parameters cannot change under the open checkout.
    assert!(matches!(l.carts_mut().add(cart, "BAG", 1, 22), Err(Error::CartNotOpen { .. })));
    assert!(matches!(l.carts_mut().set_quantity(cart, "COF", 3, 22), Err(Error::CartNotOpen { .. })));
    // Decline: the cart reopens, and only then is a new key made.
    l.payments_mut().transition(first.payment.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", 30).unwrap();
    assert_eq!(l.carts().by_id(cart).unwrap().state, CartState::Open);
    let second = l.payments_mut().open_checkout(cart, &CheckoutOptions::card("pm_card_mastercard"), 40).unwrap();
    assert!(second.is_new);
    assert_ne!(second.payment.idempotency_key, first.payment.idempotency_key);
    l.payments_mut().transition(second.payment.id, PaymentState::Created, PaymentState::Authorizing, "", 41).unwrap();
    l.payments_mut().transition(second.payment.id, PaymentState::Authorizing, PaymentState::Captured, "", 42).unwrap();
    assert_eq!(l.carts().by_id(cart).unwrap().state, CartState::Paid);
    assert!(matches!(l.payments_mut().open_checkout(cart, &opts, 50), Err(Error::CartNotOpen { .. })));
}

#[test]
fn last_payment_for_cart_finds_the_newest_even_behind_many_other_payments() {
    let mut l = mem();
    seed(&mut l);
    let opts = CheckoutOptions::card("pm_card_visa");
    let cart = l.carts_mut().create(Currency::Usd, 0).unwrap();
    assert_eq!(l.payments().last_for_cart(cart).unwrap(), None);
    l.carts_mut().add(cart, "COF", 1, 0).unwrap();
    let first = l.payments_mut().open_checkout(cart, &opts, 10).unwrap().payment;
    l.payments_mut().transition(first.id, PaymentState::Created, PaymentState::Authorizing, "", 11).unwrap();
    l.payments_mut().transition(first.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", 12).unwrap();
    let second = l.payments_mut().open_checkout(cart, &opts, 20).unwrap().payment;
    // 300 other carts' checkouts after it: older than any "recent N" window.
    for i in 0..300 {
        let other = l.carts_mut().create(Currency::Usd, 30 + i).unwrap();
        l.carts_mut().add(other, "BAG", 1, 30 + i).unwrap();
        l.payments_mut().open_checkout(other, &opts, 30 + i).unwrap();
    }
    let last = l.payments().last_for_cart(cart).unwrap().expect("the cart has payments");
    assert_eq!(last.idempotency_key, second.idempotency_key);
    assert_eq!(last.state, PaymentState::Created);
    assert_eq!(l.payments().last_for_cart(CartId(999_999)).unwrap(), None);
}

#[test]
fn empty_cart_and_unknown_cart_are_refused() {
    let mut l = mem();
    let cart = l.carts_mut().create(Currency::Usd, 0).unwrap();
    assert!(matches!(l.payments_mut().open_checkout(cart, &CheckoutOptions::card("pm_card_visa"), 1), Err(Error::EmptyCart(_))));
    assert!(matches!(
        l.payments_mut().open_checkout(CartId(999), &CheckoutOptions::card("pm_card_visa"), 1),
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
    let first = l.payments_mut().record_psp_result(&r, 1).unwrap();
    let id = match first {
        RecordOutcome::Recorded(id) => id,
        other => panic!("{other:?}"),
    };
    assert_eq!(l.payments_mut().record_psp_result(&r, 2).unwrap(), RecordOutcome::Exists(id));
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 1);
    let p = l.payments().by_key("k-1").unwrap().unwrap();
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
    let RecordOutcome::Recorded(id) = l.payments_mut().record_psp_result(&base, 1).unwrap() else { panic!() };
    let before = l.payments().by_id(id).unwrap();

    let amount = PspResult { amount: usd(1235), ..base.clone() };
    let out = l.payments_mut().record_psp_result(&amount, 2).unwrap();
    assert_eq!(out, RecordOutcome::ExistsWithDifferentAmount { id, stored_minor: 1234, requested_minor: 1235 });
    assert_eq!(out.differing_field(), Some("amount"));

    let currency = PspResult { amount: Money::new(1234, Currency::Eur), ..base.clone() };
    assert_eq!(
        l.payments_mut().record_psp_result(&currency, 3).unwrap(),
        RecordOutcome::ExistsWithDifferentCurrency { id, stored: Currency::Usd, requested: Currency::Eur }
    );

    let psp = PspResult { psp_payment_id: "pi_2".into(), ..base.clone() };
    assert_eq!(
        l.payments_mut().record_psp_result(&psp, 4).unwrap(),
        RecordOutcome::ExistsWithDifferentPspPaymentId { id, stored: "pi_1".into(), requested: "pi_2".into() }
    );

    let stolen = PspResult { idempotency_key: "k-2".into(), ..base.clone() };
    assert_eq!(
        l.payments_mut().record_psp_result(&stolen, 5).unwrap(),
        RecordOutcome::PspPaymentIdBelongsToAnotherKey { id, other_key: "k-1".into() }
    );

    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 1);
    assert_eq!(l.payments().by_id(id).unwrap(), before);
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
    assert_eq!(l.payments_mut().record_psp_result(&r, 2).unwrap(), RecordOutcome::Recorded(p.id));
    assert_eq!(l.payments_mut().record_psp_result(&r, 3).unwrap(), RecordOutcome::Exists(p.id));
    let after = l.payments().by_id(p.id).unwrap();
    assert_eq!(after.psp_payment_id.as_deref(), Some("pi_9"));
    assert_eq!(after.state, PaymentState::Created, "state moves only through transition()");
    assert_eq!(l.payments().by_psp_id("pi_9").unwrap().unwrap().id, p.id);
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
            let timeline_before = l.payments().timeline(p.id).unwrap().len();
            let r = l.payments_mut().transition(p.id, from, to, "test", t);
            let now = l.payments().by_id(p.id).unwrap().state;
            let timeline_after = l.payments().timeline(p.id).unwrap().len();
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
    let a = l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "attempt 1", 2).unwrap();
    assert_eq!(a, TransitionOutcome::Applied { from: PaymentState::Created, to: PaymentState::Authorizing });
    // The same transition again (a second worker, a replay): no-op, current state.
    let b = l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "attempt 1", 3).unwrap();
    assert_eq!(b, TransitionOutcome::AlreadyDone(PaymentState::Authorizing));
    // Someone moved it on: the caller's view is stale.
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "", 4).unwrap();
    let c = l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Failed, "", 5);
    assert!(matches!(
        c,
        Err(Error::StaleState { expected: PaymentState::Authorizing, found: PaymentState::Captured, .. })
    ));
    assert!(matches!(
        l.payments_mut().transition(PaymentId(404), PaymentState::Created, PaymentState::Authorizing, "", 6),
        Err(Error::UnknownPayment(_))
    ));
    let kinds: Vec<&str> = l.payments().timeline(p.id).unwrap().into_iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["created", "transition", "transition"]);
}

#[test]
fn attempts_are_on_the_timeline_and_first_attempt_is_stamped_once() {
    let mut l = mem();
    let p = new_payment(&mut l, 100, 1);
    assert_eq!(p.first_attempt_at_ms, None);
    for (n, (outcome, replayed)) in [("timeout", false), ("replayed 200", true)].into_iter().enumerate() {
        l.payments_mut().record_attempt(
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
    let after = l.payments().by_id(p.id).unwrap();
    assert_eq!(after.first_attempt_at_ms, Some(100));
    let tl = l.payments().timeline(p.id).unwrap();
    let attempts: Vec<_> = tl.iter().filter(|e| e.kind == TimelineKind::Attempt).collect();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[1].attempt_no, Some(2));
    assert!(attempts[1].replayed);
    assert_eq!(attempts[0].latency_ms, Some(30_000));
}

#[test]
fn recovery_and_offline_queries() {
    let mut l = mem();
    let a = new_payment(&mut l, 100, 30);
    let b = new_payment(&mut l, 200, 10);
    let c = new_payment(&mut l, 300, 20);
    let d = new_payment(&mut l, 400, 40);
    l.payments_mut().transition(b.id, PaymentState::Created, PaymentState::QueuedOffline, "psp unreachable", 50).unwrap();
    l.payments_mut().transition(c.id, PaymentState::Created, PaymentState::QueuedOffline, "psp unreachable", 51).unwrap();
    l.payments_mut().transition(a.id, PaymentState::Created, PaymentState::Authorizing, "", 52).unwrap();
    l.payments_mut().transition(d.id, PaymentState::Created, PaymentState::Canceled, "", 53).unwrap();
    let q: Vec<_> = l.payments().offline_queue().unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(q, vec![b.id, c.id], "forwarded in creation order");
    assert!(l.payments().by_id(b.id).unwrap().offline);
    let stats = l.payments().offline_queue_stats().unwrap();
    assert_eq!(stats.count, 2);
    assert_eq!(stats.total_minor_by_currency, vec![(Currency::Usd, 500)]);
    assert_eq!(stats.oldest_created_at_ms, Some(10));
    let rec: Vec<_> = l.payments().needing_recovery().unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(rec, vec![a.id]);
    assert_eq!(l.payments().in_flight().unwrap().len(), 1);
    assert_eq!(l.payments().list(10, 0).unwrap().len(), 4);
}

#[test]
fn carts_totals_and_currency() {
    let mut l = mem();
    seed(&mut l);
    let cart = l.carts_mut().create(Currency::Usd, 0).unwrap();
    l.carts_mut().add(cart, "COF", 2, 1).unwrap();
    l.carts_mut().add(cart, "COF", 1, 2).unwrap();
    let c = l.carts_mut().add(cart, "BAG", 4, 3).unwrap();
    assert_eq!(c.total, usd(3 * 350 + 4 * 225));
    assert_eq!(c.lines.len(), 2);
    let c = l.carts_mut().set_quantity(cart, "BAG", 1, 4).unwrap();
    assert_eq!(c.total, usd(3 * 350 + 225));
    let c = l.carts_mut().remove(cart, "COF", 5).unwrap();
    assert_eq!(c.total, usd(225));
    assert!(matches!(l.carts_mut().add(cart, "YEN", 1, 6), Err(Error::CurrencyMismatch { .. })));
    assert!(matches!(l.carts_mut().add(cart, "NOPE", 1, 6), Err(Error::UnknownProduct(_))));
    assert!(matches!(l.carts_mut().add(cart, "BAG", 0, 6), Err(Error::InvalidInput(_))));
    // Overflow is refused, never wrapped.
    l.carts_mut().seed_catalog(&[NewProduct { sku: "GOLD".into(), name: "Gold".into(), price: usd(i64::MAX / 2) }]).unwrap();
    assert!(matches!(l.carts_mut().add(cart, "GOLD", 3, 7), Err(Error::Overflow)));
    l.carts_mut().add(cart, "GOLD", 1, 8).unwrap();
    assert!(matches!(l.carts_mut().add(cart, "GOLD", 1, 9), Err(Error::Overflow)));
    assert_eq!(l.carts().by_id(cart).unwrap().total, usd(i64::MAX / 2 + 225));
    // Catalog upsert by SKU.
    l.carts_mut().seed_catalog(&[NewProduct { sku: "COF".into(), name: "Coffee L".into(), price: usd(400) }]).unwrap();
    assert_eq!(l.carts().product_by_sku("COF").unwrap().unwrap().price, usd(400));
    assert_eq!(l.carts().products().unwrap().len(), 4);
}

#[test]
fn audit_log_keeps_override_reasons() {
    let mut l = mem();
    l.audit_mut().record_register_action("new_payment_override", "customer left, manager approved", Some("payment 3"), 99).unwrap();
    let log = l.audit().log().unwrap();
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
    let cart = l.carts_mut().create(Currency::Usd, 0).unwrap();
    l.carts_mut().add(cart, "COF", 1, 0).unwrap();
    let opts = CheckoutOptions::card("pm_card_visa");
    let first = l.payments_mut().open_checkout(cart, &opts, 1).unwrap().payment;
    l.payments_mut().transition(first.id, PaymentState::Created, PaymentState::Authorizing, "timeout", 2).unwrap();
    assert!(matches!(l.payments_mut().open_checkout_override(cart, &opts, "  ", 3), Err(Error::InvalidInput(_))));
    assert_eq!(count(&l, "SELECT count(*) FROM payments"), 1);
    let second = l.payments_mut().open_checkout_override(cart, &opts, "customer must leave; manager ok", 4).unwrap();
    assert!(second.is_new);
    assert_ne!(second.payment.idempotency_key, first.idempotency_key);
    let log = l.audit().log().unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].action, "new_checkout_override");
    assert!(log[0].detail.as_deref().unwrap().contains(&first.idempotency_key));
    // The old one is still there for crash recovery; Charge now reuses the newest.
    assert_eq!(l.payments().in_flight().unwrap()[0].id, first.id);
    assert_eq!(l.payments_mut().open_checkout(cart, &opts, 5).unwrap().payment.id, second.payment.id);
}

#[test]
fn the_ledger_can_move_to_a_writer_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Ledger>();
}
