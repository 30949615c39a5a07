//! Every invariant of the main audit (`paydesk_sim::Invariant`) broken on purpose: a clean
//! chaos run of single-card sales, one plain SQL edit of the ledger or of the PSP's store
//! after the final pass, and the audit must name that invariant. `plant` matches the enum
//! exhaustively, so a new invariant does not compile until it has its plant.

use paydesk_sim::{run, run_tampered, Invariant, Profile, Report, SimConfig};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

fn cfg() -> SimConfig {
    SimConfig::new(5, 200, Profile::Chaos)
}

/// Which store a plant edits.
#[derive(Clone, Copy)]
enum Store {
    Ledger,
    Psp,
}

/// The corruption that breaks `inv`, and the other invariants it breaks as a matter of
/// course (a ledger row changed is also a ledger that differs from the PSP, …): the audit
/// must name exactly these, no fewer and no more.
fn plant(inv: Invariant) -> (Store, &'static str, &'static [Invariant]) {
    use Invariant::*;
    match inv {
        // A second intent under a paid sale's checkout key, never charged.
        PspOneIntentPerCheckoutKey => (
            Store::Psp,
            "INSERT INTO payment_intents (id, account, created, obj)
             SELECT 'pi_planted', account, created, json_set(obj, '$.id', 'pi_planted', '$.status', 'requires_payment_method',
                                                        '$.amount_received', 0, '$.latest_charge', NULL)
             FROM payment_intents WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
            &[EveryPspIntentInLedger, PaidMeansOneCapturedIntentSameAmount],
        ),
        // An extra charge at the PSP under a paid sale's key: a second intent, authorized.
        PspAtMostOneChargePerCheckoutKey => (
            Store::Psp,
            "INSERT INTO charges (id, account, obj)
             SELECT 'ch_planted', account, json_set(obj, '$.id', 'ch_planted', '$.payment_intent', 'pi_planted')
             FROM charges WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY id LIMIT 1;
             INSERT INTO payment_intents (id, account, created, obj)
             SELECT 'pi_planted', account, created, json_set(obj, '$.id', 'pi_planted', '$.status', 'requires_capture',
                                                        '$.amount_received', 0, '$.latest_charge', 'ch_planted')
             FROM payment_intents WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
            &[PspOneIntentPerCheckoutKey, PspAtMostOneChargePerSale, EveryPspIntentInLedger, PaidMeansOneCapturedIntentSameAmount],
        ),
        // One customer charged under two keys: a charged intent now names another
        // charged sale as its own.
        PspAtMostOneChargePerSale => (
            Store::Psp,
            "UPDATE payment_intents SET obj = json_set(obj, '$.description', (
                 SELECT json_extract(obj, '$.description') FROM payment_intents
                 WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1))
             WHERE seq = (SELECT seq FROM payment_intents WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1 OFFSET 1);",
            &[],
        ),
        // The PSP received one unit less than every captured intent's amount.
        PaidMeansOneCapturedIntentSameAmount => (
            Store::Psp,
            "UPDATE payment_intents SET obj = json_set(obj, '$.amount_received', json_extract(obj, '$.amount_received') - 1)
             WHERE json_extract(obj, '$.status') = 'succeeded';",
            &[LedgerEqualsPsp, JournalMoneyEqualsPsp],
        ),
        // The ledger forgets its captures: back to authorized.
        PaidIsCapturedInLedger => (Store::Ledger, "UPDATE payments SET state = 'authorized' WHERE state = 'captured';", &[LedgerEqualsPsp]),
        // The PSP's failed charges (declines) turned into successes.
        ToldNotChargedIsNeverCharged => (
            Store::Psp,
            "UPDATE charges SET obj = json_set(obj, '$.status', 'succeeded') WHERE json_extract(obj, '$.status') = 'failed';",
            &[LedgerEqualsPsp, PspAtMostOneChargePerSale],
        ),
        // The ledger's failed payments put back to authorized.
        ToldNotChargedEndsFailedInLedger => (Store::Ledger, "UPDATE payments SET state = 'authorized' WHERE state = 'failed';", &[LedgerEqualsPsp]),
        // sale-0's checkouts now describe another sale: sale-0 has none in the ledger.
        EverySaleInLedger => (
            Store::Ledger,
            "UPDATE payments SET request_params = replace(request_params, '\"sale-0\"', '\"sale-planted\"')
             WHERE request_params LIKE '%\"sale-0\"%';",
            &[],
        ),
        // A charge at the PSP the ledger never made: a new key, authorized.
        EveryPspIntentInLedger => (
            Store::Psp,
            "INSERT INTO charges (id, account, obj)
             SELECT 'ch_planted', account, json_set(obj, '$.id', 'ch_planted', '$.payment_intent', 'pi_planted')
             FROM charges WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY id LIMIT 1;
             INSERT INTO payment_intents (id, account, created, obj)
             SELECT 'pi_planted', account, created, json_set(obj, '$.id', 'pi_planted', '$.status', 'requires_capture',
                 '$.amount_received', 0, '$.latest_charge', 'ch_planted', '$.metadata.checkout_key', 'ck-planted',
                 '$.description', 'planted')
             FROM payment_intents WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
            &[],
        ),
        // A captured payment left capturing, as if recovery never ran.
        LedgerResolvedAfterRecovery => (
            Store::Ledger,
            "UPDATE payments SET state = 'capturing' WHERE id = (SELECT min(id) FROM payments WHERE state = 'captured');",
            &[LedgerEqualsPsp, PaidIsCapturedInLedger],
        ),
        // A captured payment's amount in the ledger one unit above the PSP's.
        LedgerEqualsPsp => (
            Store::Ledger,
            "UPDATE payments SET amount_minor = amount_minor + 1 WHERE id = (SELECT min(id) FROM payments WHERE state = 'captured');",
            &[],
        ),
        // A second refund at the PSP under a refund key (failed: no money moves).
        PspAtMostOneRefundPerRefundKey => (
            Store::Psp,
            "INSERT INTO refunds (id, account, obj)
             SELECT 're_planted', account, json_set(obj, '$.id', 're_planted', '$.status', 'failed')
             FROM refunds WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
            &[RefundLedgerEqualsPsp],
        ),
        // A refund at the PSP under a key the ledger never made (failed: no money moves).
        EveryPspRefundInLedger => (
            Store::Psp,
            "INSERT INTO refunds (id, account, obj)
             SELECT 're_planted', account, json_set(obj, '$.id', 're_planted', '$.status', 'failed', '$.metadata.refund_key', 'rf-planted')
             FROM refunds WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
            &[],
        ),
        // A succeeded refund in the ledger one unit above the PSP's.
        RefundLedgerEqualsPsp => (
            Store::Ledger,
            "UPDATE refunds SET amount_minor = amount_minor + 1 WHERE id = (SELECT min(id) FROM refunds WHERE state = 'succeeded');",
            &[],
        ),
        // An event at the PSP the register never applied.
        EveryPspEventApplied => (
            Store::Psp,
            "INSERT INTO events (id, account, created, type, obj)
             SELECT 'evt_planted', account, created, type, json_set(obj, '$.id', 'evt_planted') FROM events ORDER BY seq LIMIT 1;",
            &[],
        ),
        // An applied event (no money) loses its journal row; the journal's UNIQUE event_id
        // allows no second one, so the count of rows falls too.
        OneJournalRowPerEvent => (
            Store::Ledger,
            "DELETE FROM journal WHERE id = (SELECT min(id) FROM journal WHERE amount_minor = 0);",
            &[NoJournalRowWithoutEvent],
        ),
        // A journal row (no money) for an event never applied: only with the foreign key
        // off, as a damaged file or a bad migration would leave it.
        NoJournalRowWithoutEvent => (
            Store::Ledger,
            "PRAGMA foreign_keys = OFF;
             INSERT INTO journal (event_id, payment_id, at_ms, account, amount_minor, currency, memo)
             VALUES ('evt_planted', NULL, 0, 'none', 0, NULL, 'planted');
             PRAGMA foreign_keys = ON;",
            &[],
        ),
        // The journal's first sale one unit above what the PSP captured.
        JournalMoneyEqualsPsp => (
            Store::Ledger,
            "UPDATE journal SET amount_minor = amount_minor + 1 WHERE id = (SELECT min(id) FROM journal WHERE account = 'sales');",
            &[],
        ),
    }
}

/// Runs `cfg()` with `inv`'s plant after the final pass; the plant must change a row.
fn planted(inv: Invariant) -> Report {
    let (store, sql, _) = plant(inv);
    let changed = Arc::new(AtomicU64::new(0));
    let c = changed.clone();
    let r = run_tampered(cfg(), move |l, psp| {
        let n = match store {
            Store::Ledger => {
                let db = l.connection();
                let before = db.total_changes();
                db.execute_batch(sql).expect("ledger plant");
                db.total_changes() - before
            }
            Store::Psp => paydesk_sim::world::block_on(psp.store().read(move |db| {
                let before = db.total_changes();
                db.execute_batch(sql)?;
                Ok(db.total_changes() - before)
            }))
            .expect("PSP plant"),
        };
        c.store(n, Ordering::SeqCst);
    });
    assert!(changed.load(Ordering::SeqCst) > 0, "the plant for {} changed nothing", inv.name());
    r
}

/// The audit names `inv`, and besides it exactly the invariants its plant also breaks.
fn assert_named(inv: Invariant) {
    let r = planted(inv);
    let (_, _, also) = plant(inv);
    println!("{}: {:?}", inv.name(), r.violations_by_invariant);
    assert!(r.violations_by_invariant.get(inv.name()).copied().unwrap_or(0) > 0, "{} not named: {:#?}", inv.name(), r.violations);
    let mut want: Vec<&str> = also.iter().chain([&inv]).map(|i| i.name()).collect();
    want.sort_unstable();
    let named: Vec<&str> = r.violations_by_invariant.keys().map(String::as_str).collect();
    assert_eq!(named, want, "{:#?}", r.violations);
}

#[test]
fn the_unplanted_run_is_clean_and_checks_every_invariant() {
    let r = run(cfg());
    assert!(r.ok(), "{:#?}", r.violations);
    for inv in Invariant::ALL {
        assert!(r.invariants_checked.get(inv.name()).copied().unwrap_or(0) > 0, "{} never checked: {:?}", inv.name(), r.invariants_checked);
    }
}

#[test]
fn an_extra_intent_for_one_key_is_named() {
    assert_named(Invariant::PspOneIntentPerCheckoutKey);
}

#[test]
fn an_extra_charge_for_one_key_is_named() {
    assert_named(Invariant::PspAtMostOneChargePerCheckoutKey);
}

#[test]
fn one_customer_charged_under_two_keys_is_named() {
    assert_named(Invariant::PspAtMostOneChargePerSale);
}

#[test]
fn a_psp_amount_other_than_the_one_shown_paid_is_named() {
    assert_named(Invariant::PaidMeansOneCapturedIntentSameAmount);
}

#[test]
fn a_sale_shown_paid_not_captured_in_the_ledger_is_named() {
    assert_named(Invariant::PaidIsCapturedInLedger);
}

#[test]
fn a_decline_charged_at_the_psp_is_named() {
    assert_named(Invariant::ToldNotChargedIsNeverCharged);
}

#[test]
fn a_decline_not_failed_in_the_ledger_is_named() {
    assert_named(Invariant::ToldNotChargedEndsFailedInLedger);
}

#[test]
fn a_sale_without_its_checkout_in_the_ledger_is_named() {
    assert_named(Invariant::EverySaleInLedger);
}

#[test]
fn a_psp_charge_with_no_ledger_record_is_named() {
    assert_named(Invariant::EveryPspIntentInLedger);
}

#[test]
fn a_payment_left_in_flight_is_named() {
    assert_named(Invariant::LedgerResolvedAfterRecovery);
}

#[test]
fn a_ledger_amount_other_than_the_psp_is_named() {
    assert_named(Invariant::LedgerEqualsPsp);
}

#[test]
fn two_psp_refunds_for_one_refund_key_are_named() {
    assert_named(Invariant::PspAtMostOneRefundPerRefundKey);
}

#[test]
fn a_psp_refund_unknown_to_the_ledger_is_named() {
    assert_named(Invariant::EveryPspRefundInLedger);
}

#[test]
fn a_ledger_refund_other_than_the_psp_is_named() {
    assert_named(Invariant::RefundLedgerEqualsPsp);
}

#[test]
fn a_psp_event_never_applied_is_named() {
    assert_named(Invariant::EveryPspEventApplied);
}

#[test]
fn an_applied_event_without_its_journal_row_is_named() {
    assert_named(Invariant::OneJournalRowPerEvent);
}

#[test]
fn a_journal_row_without_its_event_is_named() {
    assert_named(Invariant::NoJournalRowWithoutEvent);
}

#[test]
fn journal_money_other_than_the_psp_is_named() {
    assert_named(Invariant::JournalMoneyEqualsPsp);
}
