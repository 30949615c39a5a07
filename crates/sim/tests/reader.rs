//! Reader payments under the deterministic simulation (issue #27): half the single-tender
//! sales paid on a simulated card reader under the chaos profile, over several seeds, with
//! zero audit violations while every reader fault, every customer behaviour, every
//! reader-step crash and every answer the cashier can get actually happened; one seed
//! gives one report; and the audit names a reader invariant broken on purpose.

use paydesk_sim::{run, run_tampered, Profile, Report, SimConfig};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn chaos(seed: u64, n: u64) -> SimConfig {
    SimConfig::new(seed, n, Profile::Chaos).with_reader_share(0.5)
}

fn show(r: &Report) -> String {
    format!("seed {} violations {}: {:#?}", r.seed, r.violations_total, r.violations)
}

const READER_INVARIANTS: [&str; 8] = [
    "reader_at_most_one_success_per_intent",
    "reader_at_most_one_success_per_checkout_key",
    "reader_one_intent_per_checkout_key",
    "reader_told_paid_is_succeeded_at_psp",
    "reader_told_canceled_intent_never_charged",
    "reader_payment_ends_resolved",
    "reader_sale_in_ledger",
    "reader_told_not_charged_is_true_when_told",
];

#[test]
fn chaos_with_reader_sales_has_no_violations_and_covers_every_reader_fault_and_answer() {
    let mut faults: BTreeMap<String, u64> = BTreeMap::new();
    let mut readers: BTreeMap<String, u64> = BTreeMap::new();
    let mut crashes: BTreeMap<String, u64> = BTreeMap::new();
    let mut checked: BTreeMap<String, u64> = BTreeMap::new();
    for seed in [31, 32, 33] {
        let r = run(chaos(seed, 300));
        assert!(r.ok(), "{}", show(&r));
        // The single-card sales are still audited as before beside the reader sales.
        assert!(r.invariants_checked["every_sale_in_ledger"] > 50, "{:?}", r.invariants_checked);
        for (k, v) in &r.faults {
            *faults.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &r.readers {
            *readers.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &r.crashes {
            *crashes.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &r.invariants_checked {
            *checked.entry(k.clone()).or_default() += v;
        }
    }
    let count = |m: &BTreeMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    for f in mock_psp::ReaderFault::ALL {
        assert!(count(&faults, &format!("psp:{}", f.name())) > 0, "reader fault {} never injected: {faults:?}", f.name());
    }
    for c in ["approves", "declines", "insufficient_funds", "cancels_on_reader", "no_tap_cashier_cancels", "tap_races_cancel", "present_again_after_decline", "cashier_abandons"] {
        assert!(count(&readers, &format!("customer:{c}")) > 0, "customer {c} never drawn: {readers:?}");
    }
    for told in [
        "paid",
        "waiting_for_card",
        "reader_busy",
        "not_charged:declined",
        "not_charged:customer_canceled",
        "not_charged:action_canceled",
        "not_charged:intent_canceled",
        "pending:lost_answer",
        "unavailable:reader_offline",
        "unavailable:psp_unreachable",
    ] {
        assert!(count(&readers, &format!("told:{told}")) > 0, "the cashier was never told {told}: {readers:?}");
    }
    // A tap that won the race against the cashier's cancel is reported paid by the read after it.
    assert!(count(&readers, "told_after:cancel_on_reader:paid") + count(&readers, "told_after:abandon:paid") > 0, "{readers:?}");
    // Declined, then "Present again" on the same intent: the reader waits for the next card.
    assert!(count(&readers, "told_after:present_again:waiting_for_card") > 0, "{readers:?}");
    for step in ["reader_after_process", "reader_after_present", "reader_after_cancel"] {
        assert!(count(&crashes, step) > 0, "no register crash {step}: {crashes:?}");
    }
    for inv in READER_INVARIANTS {
        assert!(count(&checked, inv) > 0, "{inv} never checked: {checked:?}");
    }
    // Every reader sale ended paid or canceled before the next customer or at close.
    assert!(count(&checked, "reader_payment_ends_resolved") >= 300, "{checked:?}");
}

#[test]
fn same_seed_gives_the_same_reader_run() {
    let a = run(chaos(37, 200));
    let b = run(chaos(37, 200));
    assert!(a.ok(), "{}", show(&a));
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let none = run(SimConfig::new(37, 200, Profile::Chaos));
    assert_ne!(a.state_digest, none.state_digest, "reader sales must change the run");
    assert!(none.readers.is_empty() && none.invariants_checked.keys().all(|k| !k.starts_with("reader_")), "{none:?}");
}

/// Runs a clean reader simulation, changes one store after the final pass, and returns
/// the report; the statement must have changed at least one row.
fn tampered(ledger_sql: Option<&'static str>, psp_sql: Option<&'static str>) -> Report {
    let changed = Arc::new(AtomicUsize::new(0));
    let c = changed.clone();
    let r = run_tampered(chaos(34, 150), move |l, psp| {
        let mut n = 0;
        if let Some(sql) = ledger_sql {
            n += l.connection().execute(sql, ()).expect("ledger tamper");
        }
        if let Some(sql) = psp_sql {
            n += paydesk_sim::world::block_on(psp.store().read(move |c| Ok(c.execute(sql, ())?))).expect("PSP tamper");
        }
        c.store(n, Ordering::SeqCst);
    });
    assert!(changed.load(Ordering::SeqCst) > 0, "the tamper statement changed nothing");
    r
}

fn assert_names(r: &Report, invariant: &str) {
    assert!(!r.ok(), "the corruption went unnoticed");
    assert!(r.violations_by_invariant.get(invariant).copied().unwrap_or(0) > 0, "{invariant} not named: {:#?}", r.violations_by_invariant);
}

#[test]
fn the_untouched_tamper_seed_is_clean() {
    let r = run(chaos(34, 150));
    assert!(r.ok(), "{}", show(&r));
}

#[test]
fn a_reader_payment_left_on_the_reader_is_named() {
    let r = tampered(
        Some(
            "UPDATE payments SET state = 'on_reader' WHERE id = (
                 SELECT p.id FROM payments p JOIN reader_payments rp ON rp.payment_id = p.id
                 WHERE p.state = 'captured' ORDER BY p.id LIMIT 1)",
        ),
        None,
    );
    assert_names(&r, "reader_payment_ends_resolved");
}

#[test]
fn a_canceled_reader_intent_charged_later_is_named() {
    // The PSP's record of an abandoned reader payment now says it succeeded with a charge.
    let r = tampered(
        None,
        Some(
            "UPDATE charges SET obj = json_set(obj, '$.status', 'succeeded', '$.payment_intent', (
                 SELECT id FROM payment_intents WHERE json_extract(obj, '$.status') = 'canceled'
                   AND json_extract(obj, '$.payment_method_types[0]') = 'card_present' ORDER BY seq LIMIT 1))
             WHERE id = (SELECT id FROM charges WHERE json_extract(obj, '$.status') = 'failed' ORDER BY rowid LIMIT 1)",
        ),
    );
    assert_names(&r, "reader_told_canceled_intent_never_charged");
}

/// Like `tampered`, for plants of several statements on one store.
fn tampered_batch(on_psp: bool, sql: &'static str) -> Report {
    let changed = Arc::new(AtomicUsize::new(0));
    let c = changed.clone();
    let r = run_tampered(chaos(34, 150), move |l, psp| {
        let n = if on_psp {
            paydesk_sim::world::block_on(psp.store().read(move |db| {
                let before = db.total_changes();
                db.execute_batch(sql)?;
                Ok(db.total_changes() - before)
            }))
            .expect("PSP plant")
        } else {
            let db = l.connection();
            let before = db.total_changes();
            db.execute_batch(sql).expect("ledger plant");
            db.total_changes() - before
        };
        c.store(n as usize, Ordering::SeqCst);
    });
    assert!(changed.load(Ordering::SeqCst) > 0, "the plant changed nothing: {sql}");
    println!("{:?}", r.violations_by_invariant);
    r
}

#[test]
fn a_second_success_on_one_reader_intent_is_named() {
    // A second succeeded charge on a paid reader intent (its status cannot show it).
    let r = tampered_batch(
        true,
        "INSERT INTO charges (id, account, obj)
         SELECT 'ch_planted', account, json_set(obj, '$.id', 'ch_planted') FROM charges
         WHERE json_extract(obj, '$.status') = 'succeeded' AND json_extract(obj, '$.payment_intent') = (
             SELECT id FROM payment_intents WHERE json_extract(obj, '$.payment_method_types[0]') = 'card_present'
             AND json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1);",
    );
    assert_names(&r, "reader_at_most_one_success_per_intent");
}

#[test]
fn a_reader_key_charged_under_two_intents_is_named() {
    // A second intent under a paid reader payment's key, with its own succeeded charge.
    let r = tampered_batch(
        true,
        "INSERT INTO charges (id, account, obj)
         SELECT 'ch_planted', account, json_set(obj, '$.id', 'ch_planted', '$.payment_intent', 'pi_planted') FROM charges
         WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY id LIMIT 1;
         INSERT INTO payment_intents (id, account, created, obj)
         SELECT 'pi_planted', account, created, json_set(obj, '$.id', 'pi_planted', '$.latest_charge', 'ch_planted')
         FROM payment_intents WHERE json_extract(obj, '$.payment_method_types[0]') = 'card_present'
           AND json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
    );
    assert_names(&r, "reader_at_most_one_success_per_checkout_key");
}

#[test]
fn a_second_intent_for_a_reader_key_is_named() {
    // A second intent, canceled and never charged, under a reader payment's key.
    let r = tampered_batch(
        true,
        "INSERT INTO payment_intents (id, account, created, obj)
         SELECT 'pi_planted', account, created, json_set(obj, '$.id', 'pi_planted', '$.status', 'canceled',
                                                    '$.amount_received', 0, '$.latest_charge', NULL)
         FROM payment_intents WHERE json_extract(obj, '$.payment_method_types[0]') = 'card_present' ORDER BY seq LIMIT 1;",
    );
    assert_names(&r, "reader_one_intent_per_checkout_key");
}

#[test]
fn a_reader_sale_told_paid_for_another_amount_is_named() {
    // The PSP received one unit less on every paid reader intent.
    let r = tampered_batch(
        true,
        "UPDATE payment_intents SET obj = json_set(obj, '$.amount_received', json_extract(obj, '$.amount_received') - 1)
         WHERE json_extract(obj, '$.payment_method_types[0]') = 'card_present' AND json_extract(obj, '$.status') = 'succeeded';",
    );
    assert_names(&r, "reader_told_paid_is_succeeded_at_psp");
}

#[test]
fn a_reader_sale_without_its_payment_is_named() {
    // The first reader payment's key rewritten: its sale's key has no payment.
    let r = tampered_batch(
        false,
        "UPDATE payments SET idempotency_key = idempotency_key || '-planted' WHERE id = (SELECT min(payment_id) FROM reader_payments);",
    );
    assert_names(&r, "reader_sale_in_ledger");
}

#[test]
fn a_cart_unpaid_with_its_reader_payment_captured_is_named() {
    // The tender of a captured reader payment superseded: the cart is no longer paid.
    let r = tampered_batch(
        false,
        "UPDATE tenders SET standing = 'superseded', superseded_reason = 'planted' WHERE payment_id = (
             SELECT p.id FROM payments p JOIN reader_payments rp ON rp.payment_id = p.id JOIN tenders t ON t.payment_id = p.id
             WHERE p.state = 'captured' ORDER BY p.id LIMIT 1);",
    );
    assert_names(&r, "reader_tender_sale_paid_iff_captured");
}
