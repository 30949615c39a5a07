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

/// One corruption: an SQL edit of one store, and the invariants it breaks besides its
/// target as a matter of course (a ledger row changed is also a ledger that differs from
/// the PSP, …): the audit must name exactly the target and these, no fewer and no more.
struct Plant {
    store: Store,
    sql: &'static str,
    also: &'static [Invariant],
}

/// The plant for each invariant. Exhaustive: a new invariant does not compile until it
/// has one.
fn plant(inv: Invariant) -> Plant {
    use Invariant::*;
    match inv {
        PspOneIntentPerCheckoutKey => PSP_ONE_INTENT_PER_CHECKOUT_KEY,
        PspAtMostOneChargePerCheckoutKey => PSP_AT_MOST_ONE_CHARGE_PER_CHECKOUT_KEY,
        PspAtMostOneChargePerSale => PSP_AT_MOST_ONE_CHARGE_PER_SALE,
        PaidMeansOneCapturedIntentSameAmount => PAID_MEANS_ONE_CAPTURED_INTENT_SAME_AMOUNT,
        PaidIsCapturedInLedger => PAID_IS_CAPTURED_IN_LEDGER,
        ToldNotChargedIsNeverCharged => TOLD_NOT_CHARGED_IS_NEVER_CHARGED,
        ToldNotChargedEndsFailedInLedger => TOLD_NOT_CHARGED_ENDS_FAILED_IN_LEDGER,
        EverySaleInLedger => EVERY_SALE_IN_LEDGER,
        EveryPspIntentInLedger => EVERY_PSP_INTENT_IN_LEDGER,
        LedgerResolvedAfterRecovery => LEDGER_RESOLVED_AFTER_RECOVERY,
        LedgerEqualsPsp => LEDGER_EQUALS_PSP,
        PspAtMostOneRefundPerRefundKey => PSP_AT_MOST_ONE_REFUND_PER_REFUND_KEY,
        EveryPspRefundInLedger => EVERY_PSP_REFUND_IN_LEDGER,
        RefundLedgerEqualsPsp => REFUND_LEDGER_EQUALS_PSP,
        EveryPspEventApplied => EVERY_PSP_EVENT_APPLIED,
        OneJournalRowPerEvent => ONE_JOURNAL_ROW_PER_EVENT,
        NoJournalRowWithoutEvent => NO_JOURNAL_ROW_WITHOUT_EVENT,
        JournalMoneyEqualsPsp => JOURNAL_MONEY_EQUALS_PSP,
    }
}

/// A second intent under a paid sale's checkout key, never charged.
const PSP_ONE_INTENT_PER_CHECKOUT_KEY: Plant = Plant {
    store: Store::Psp,
    sql: "INSERT INTO payment_intents (id, account, created, obj)
          SELECT 'pi_planted', account, created, json_set(obj, '$.id', 'pi_planted', '$.status', 'requires_payment_method',
                                                     '$.amount_received', 0, '$.latest_charge', NULL)
          FROM payment_intents WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
    also: &[Invariant::EveryPspIntentInLedger, Invariant::PaidMeansOneCapturedIntentSameAmount],
};

/// An extra charge at the PSP under a paid sale's key: a second intent, authorized.
const PSP_AT_MOST_ONE_CHARGE_PER_CHECKOUT_KEY: Plant = Plant {
    store: Store::Psp,
    sql: "INSERT INTO charges (id, account, obj)
          SELECT 'ch_planted', account, json_set(obj, '$.id', 'ch_planted', '$.payment_intent', 'pi_planted')
          FROM charges WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY id LIMIT 1;
          INSERT INTO payment_intents (id, account, created, obj)
          SELECT 'pi_planted', account, created, json_set(obj, '$.id', 'pi_planted', '$.status', 'requires_capture',
                                                     '$.amount_received', 0, '$.latest_charge', 'ch_planted')
          FROM payment_intents WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
    also: &[Invariant::PspOneIntentPerCheckoutKey, Invariant::PspAtMostOneChargePerSale, Invariant::EveryPspIntentInLedger, Invariant::PaidMeansOneCapturedIntentSameAmount],
};

/// One customer charged under two keys: a charged intent now names another
/// charged sale as its own.
const PSP_AT_MOST_ONE_CHARGE_PER_SALE: Plant = Plant {
    store: Store::Psp,
    sql: "UPDATE payment_intents SET obj = json_set(obj, '$.description', (
              SELECT json_extract(obj, '$.description') FROM payment_intents
              WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1))
          WHERE seq = (SELECT seq FROM payment_intents WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1 OFFSET 1);",
    also: &[],
};

/// The PSP received one unit less than every captured intent's amount.
const PAID_MEANS_ONE_CAPTURED_INTENT_SAME_AMOUNT: Plant = Plant {
    store: Store::Psp,
    sql: "UPDATE payment_intents SET obj = json_set(obj, '$.amount_received', json_extract(obj, '$.amount_received') - 1)
          WHERE json_extract(obj, '$.status') = 'succeeded';",
    also: &[Invariant::LedgerEqualsPsp, Invariant::JournalMoneyEqualsPsp],
};

/// The ledger forgets its captures: back to authorized.
const PAID_IS_CAPTURED_IN_LEDGER: Plant = Plant {
    store: Store::Ledger,
    sql: "UPDATE payments SET state = 'authorized' WHERE state = 'captured';",
    also: &[Invariant::LedgerEqualsPsp],
};

/// The PSP's failed charges (declines) turned into successes.
const TOLD_NOT_CHARGED_IS_NEVER_CHARGED: Plant = Plant {
    store: Store::Psp,
    sql: "UPDATE charges SET obj = json_set(obj, '$.status', 'succeeded') WHERE json_extract(obj, '$.status') = 'failed';",
    also: &[Invariant::LedgerEqualsPsp, Invariant::PspAtMostOneChargePerSale],
};

/// The ledger's failed payments put back to authorized.
const TOLD_NOT_CHARGED_ENDS_FAILED_IN_LEDGER: Plant = Plant {
    store: Store::Ledger,
    sql: "UPDATE payments SET state = 'authorized' WHERE state = 'failed';",
    also: &[Invariant::LedgerEqualsPsp],
};

/// sale-0's checkouts now describe another sale: sale-0 has none in the ledger.
const EVERY_SALE_IN_LEDGER: Plant = Plant {
    store: Store::Ledger,
    sql: "UPDATE payments SET request_params = replace(request_params, '\"sale-0\"', '\"sale-planted\"')
          WHERE request_params LIKE '%\"sale-0\"%';",
    also: &[],
};

/// A charge at the PSP the ledger never made: a new key, authorized.
const EVERY_PSP_INTENT_IN_LEDGER: Plant = Plant {
    store: Store::Psp,
    sql: "INSERT INTO charges (id, account, obj)
          SELECT 'ch_planted', account, json_set(obj, '$.id', 'ch_planted', '$.payment_intent', 'pi_planted')
          FROM charges WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY id LIMIT 1;
          INSERT INTO payment_intents (id, account, created, obj)
          SELECT 'pi_planted', account, created, json_set(obj, '$.id', 'pi_planted', '$.status', 'requires_capture',
              '$.amount_received', 0, '$.latest_charge', 'ch_planted', '$.metadata.checkout_key', 'ck-planted',
              '$.description', 'planted')
          FROM payment_intents WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
    also: &[],
};

/// A captured payment left capturing, as if recovery never ran.
const LEDGER_RESOLVED_AFTER_RECOVERY: Plant = Plant {
    store: Store::Ledger,
    sql: "UPDATE payments SET state = 'capturing' WHERE id = (SELECT min(id) FROM payments WHERE state = 'captured');",
    also: &[Invariant::LedgerEqualsPsp, Invariant::PaidIsCapturedInLedger],
};

/// A captured payment's amount in the ledger one unit above the PSP's.
const LEDGER_EQUALS_PSP: Plant = Plant {
    store: Store::Ledger,
    sql: "UPDATE payments SET amount_minor = amount_minor + 1 WHERE id = (SELECT min(id) FROM payments WHERE state = 'captured');",
    also: &[],
};

/// A second refund at the PSP under a refund key (failed: no money moves).
const PSP_AT_MOST_ONE_REFUND_PER_REFUND_KEY: Plant = Plant {
    store: Store::Psp,
    sql: "INSERT INTO refunds (id, account, obj)
          SELECT 're_planted', account, json_set(obj, '$.id', 're_planted', '$.status', 'failed')
          FROM refunds WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
    also: &[Invariant::RefundLedgerEqualsPsp],
};

/// A refund at the PSP under a key the ledger never made (failed: no money moves).
const EVERY_PSP_REFUND_IN_LEDGER: Plant = Plant {
    store: Store::Psp,
    sql: "INSERT INTO refunds (id, account, obj)
          SELECT 're_planted', account, json_set(obj, '$.id', 're_planted', '$.status', 'failed', '$.metadata.refund_key', 'rf-planted')
          FROM refunds WHERE json_extract(obj, '$.status') = 'succeeded' ORDER BY seq LIMIT 1;",
    also: &[],
};

/// A succeeded refund in the ledger one unit above the PSP's.
const REFUND_LEDGER_EQUALS_PSP: Plant = Plant {
    store: Store::Ledger,
    sql: "UPDATE refunds SET amount_minor = amount_minor + 1 WHERE id = (SELECT min(id) FROM refunds WHERE state = 'succeeded');",
    also: &[],
};

/// An event at the PSP the register never applied.
const EVERY_PSP_EVENT_APPLIED: Plant = Plant {
    store: Store::Psp,
    sql: "INSERT INTO events (id, account, created, type, obj)
          SELECT 'evt_planted', account, created, type, json_set(obj, '$.id', 'evt_planted') FROM events ORDER BY seq LIMIT 1;",
    also: &[],
};

/// An applied event (no money) loses its journal row; the journal's UNIQUE event_id
/// allows no second one, so the count of rows falls too.
const ONE_JOURNAL_ROW_PER_EVENT: Plant = Plant {
    store: Store::Ledger,
    sql: "DELETE FROM journal WHERE id = (SELECT min(id) FROM journal WHERE amount_minor = 0);",
    also: &[Invariant::NoJournalRowWithoutEvent],
};

/// A journal row (no money) for an event never applied: only with the foreign key
/// off, as a damaged file or a bad migration would leave it.
const NO_JOURNAL_ROW_WITHOUT_EVENT: Plant = Plant {
    store: Store::Ledger,
    sql: "PRAGMA foreign_keys = OFF;
          INSERT INTO journal (event_id, payment_id, at_ms, account, amount_minor, currency, memo)
          VALUES ('evt_planted', NULL, 0, 'none', 0, NULL, 'planted');
          PRAGMA foreign_keys = ON;",
    also: &[],
};

/// The journal's first sale one unit above what the PSP captured.
const JOURNAL_MONEY_EQUALS_PSP: Plant = Plant {
    store: Store::Ledger,
    sql: "UPDATE journal SET amount_minor = amount_minor + 1 WHERE id = (SELECT min(id) FROM journal WHERE account = 'sales');",
    also: &[],
};

/// Runs `cfg()` with `inv`'s plant after the final pass; the plant must change a row.
fn planted(inv: Invariant) -> Report {
    let Plant { store, sql, .. } = plant(inv);
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
    let also = plant(inv).also;
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
