//! The tender audit fails when its invariant is broken: each test runs a clean split
//! simulation, corrupts one side's store by plain SQL after the final pass, and expects
//! the audit to name the broken invariant (and the same run untouched to be clean).

use paydesk_sim::{run, run_tampered, PlantedBug, Profile, Report, SimConfig};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The exchanges' checks (`audit/exchanges.rs`, record 0124).
const EXCHANGE_CHECKS: [&str; 5] = [
    "exchange_credit_within_new_sale_and_return",
    "exchange_new_sale_settled_is_tenders_plus_credit",
    "exchange_tender_gives_back_within_paid",
    "told_exchange_is_in_the_ledger",
    "no_exchange_without_an_answer",
];

fn cfg() -> SimConfig {
    // Every sale a split sale; chaos for cancels of half-paid sales, declines, offline
    // tenders and crashes. An even seed: EUR cash rounded to 0.05.
    // Seed 6 since store tenders joined split sales (record 0118 addendum): seed 2 no
    // longer returns an exchange's new sale whole.
    SimConfig::new(6, 300, Profile::Chaos).with_split_share(1.0)
}

/// Runs `cfg()`, executes `sql` on the register's ledger before the audit, and returns
/// the report; the statement must have changed at least one row.
fn tampered(sql: &'static str) -> Report {
    let changed = Arc::new(AtomicUsize::new(0));
    let c = changed.clone();
    let r = run_tampered(cfg(), move |l, _psp| {
        let n = l.connection().execute(sql, ()).expect("tamper statement");
        c.store(n, Ordering::SeqCst);
    });
    assert!(changed.load(Ordering::SeqCst) > 0, "the tamper statement changed nothing: {sql}");
    r
}

fn assert_names(r: &Report, invariant: &str) {
    assert!(!r.ok(), "the corruption went unnoticed");
    assert!(r.violations_by_invariant.get(invariant).copied().unwrap_or(0) > 0, "{invariant} not named: {:#?}", r.violations_by_invariant);
}

#[test]
fn the_untouched_run_is_clean() {
    let r = run(cfg());
    assert!(r.ok(), "{:#?}", r.violations);
    assert!(r.tenders["cancels_with_money_taken"] > 0 && r.tenders["cash_with_change"] > 0, "{:?}", r.tenders);
    // returns happened, through cards and cash, and crashes hit some
    assert!(r.tenders["returns_with_cash"] > 0 && r.tenders["returns_with_card_refunds"] > 0, "{:?}", r.tenders);
    // exchanges too, some new sales returned, and every exchange check judged
    assert!(r.tenders["exchanges"] > 0 && r.tenders["exchanges_new_sale_returned_whole"] > 0, "{:?}", r.tenders);
    for inv in EXCHANGE_CHECKS {
        assert!(r.invariants_checked.get(inv).copied().unwrap_or(0) > 0, "{inv} never judged");
    }
}

#[test]
fn settled_above_the_total_is_named() {
    // A paid sale's prices lowered after the fact: its tenders now exceed its total.
    let r = tampered(
        "UPDATE cart_lines SET unit_price_minor = unit_price_minor / 2
         WHERE cart_id = (SELECT id FROM carts WHERE state = 'paid' ORDER BY id LIMIT 1)",
    );
    assert_names(&r, "tenders_settled_le_total");
}

#[test]
fn a_due_that_is_not_total_minus_settled_is_named() {
    // The ledger forgets a captured card tender: its due no longer matches the PSP.
    let r = tampered(
        "UPDATE payments SET state = 'failed' WHERE id = (
             SELECT t.payment_id FROM tenders t JOIN payments p ON p.id = t.payment_id
             WHERE p.state = 'captured' ORDER BY t.id LIMIT 1)",
    );
    assert_names(&r, "due_is_total_minus_settled");
}

#[test]
fn a_card_tender_charged_twice_is_named() {
    // A planted register bug (a retry with a fresh idempotency key) charges card
    // tenders twice at the PSP.
    let mut c = cfg();
    c.bug = Some(PlantedBug::FreshKeyOnRetry);
    let r = run(c);
    assert_names(&r, "card_tender_charged_at_most_once");
}

#[test]
fn a_cancel_refund_of_the_wrong_amount_is_named() {
    // A canceled sale's refunded card tender now claims one unit more than was refunded.
    let r = tampered(
        "UPDATE tenders SET amount_minor = amount_minor + 1 WHERE id = (
             SELECT t.id FROM tenders t JOIN payments p ON p.id = t.payment_id
             JOIN sale_cancels c ON c.cart_id = t.cart_id
             WHERE p.state = 'refunded' ORDER BY t.id LIMIT 1)",
    );
    assert_names(&r, "cancel_refunds_exactly_the_settled_cards");
}

#[test]
fn a_refund_outside_a_cancel_or_request_is_named() {
    // The cancel row of a sale whose cards were refunded disappears: those refunds now
    // have no request behind them.
    let r = tampered(
        "DELETE FROM sale_cancels WHERE cart_id = (
             SELECT t.cart_id FROM tenders t JOIN payments p ON p.id = t.payment_id
             JOIN sale_cancels c ON c.cart_id = t.cart_id
             WHERE p.state = 'refunded' ORDER BY t.id LIMIT 1)",
    );
    assert_names(&r, "no_card_refund_without_request");
}

#[test]
fn a_drawer_that_is_not_cash_in_less_change_and_refunds_is_named() {
    // A change movement lost: the drawer expects more cash than the tenders took.
    let r = tampered("DELETE FROM cash_movements WHERE id = (SELECT min(id) FROM cash_movements WHERE kind = 'change_out')");
    assert_names(&r, "drawer_equals_cash_tenders");
    assert_names(&r, "cash_movements_match_their_tender");
}

#[test]
fn a_ledger_refund_that_differs_from_the_psp_is_named() {
    let r = tampered(
        "UPDATE refunds SET amount_minor = amount_minor + 1 WHERE id = (SELECT min(id) FROM refunds WHERE state = 'succeeded')",
    );
    assert_names(&r, "refund_ledger_equals_psp");
}

#[test]
fn a_sale_told_paid_that_is_not_complete_is_named() {
    // A cash tender of a paid sale stops counting.
    let r = tampered(
        "UPDATE tenders SET standing = 'superseded', superseded_reason = 'tampered' WHERE id = (
             SELECT t.id FROM tenders t JOIN carts c ON c.id = t.cart_id
             WHERE c.state = 'paid' AND t.kind = 'cash' ORDER BY t.id LIMIT 1)",
    );
    assert_names(&r, "told_paid_sale_is_complete");
}

#[test]
fn a_tender_told_declined_that_counts_as_charged_is_named() {
    let r = tampered(
        "UPDATE payments SET state = 'captured' WHERE id = (
             SELECT t.payment_id FROM tenders t JOIN payments p ON p.id = t.payment_id
             WHERE p.state = 'failed' AND p.offline = 0 ORDER BY t.id LIMIT 1)",
    );
    assert_names(&r, "told_declined_tender_never_charged");
}

#[test]
fn change_other_than_told_is_named() {
    // The tender row says more was handed over and more given back than the cashier saw.
    let r = tampered(
        "UPDATE tenders SET cash_tendered_minor = cash_tendered_minor + 5, change_minor = change_minor + 5
         WHERE id = (SELECT min(id) FROM tenders WHERE kind = 'cash' AND change_minor > 0)",
    );
    assert_names(&r, "told_change_matches_tender");
}

#[test]
fn a_pending_tender_without_its_row_is_named() {
    // A card tender the cashier was shown as accepted offline loses its tender row.
    let r = tampered(
        "DELETE FROM tenders WHERE id = (
             SELECT t.id FROM tenders t JOIN payments p ON p.id = t.payment_id WHERE p.offline = 1 ORDER BY t.id LIMIT 1)",
    );
    assert_names(&r, "told_pending_has_its_key");
}

/// Like `tampered`, with `sql` run on the PSP's store.
fn tampered_psp(sql: &'static str) -> Report {
    let changed = Arc::new(AtomicUsize::new(0));
    let c = changed.clone();
    let r = run_tampered(cfg(), move |_l, psp| {
        let n = paydesk_sim::world::block_on(psp.store().read(move |db| Ok(db.execute(sql, ())?))).expect("PSP tamper");
        c.store(n, Ordering::SeqCst);
    });
    assert!(changed.load(Ordering::SeqCst) > 0, "the tamper statement changed nothing: {sql}");
    r
}

#[test]
fn a_cancel_left_canceling_is_named() {
    let r = tampered(
        "UPDATE sale_cancels SET state = 'canceling', completed_at_ms = NULL
         WHERE cart_id = (SELECT min(cart_id) FROM sale_cancels WHERE state = 'canceled')",
    );
    assert_names(&r, "cancel_completes");
}

#[test]
fn a_held_card_left_authorized_after_a_cancel_is_named() {
    // The split intents never charged (declined) now hold an authorization; some belong
    // to canceled sales (no split intent ends authorized or voided in this run: the
    // tenders capture at once).
    let r = tampered_psp(
        "UPDATE payment_intents SET obj = json_set(obj, '$.status', 'requires_capture')
         WHERE json_extract(obj, '$.status') = 'requires_payment_method' AND json_extract(obj, '$.description') LIKE 'split-%'",
    );
    assert_names(&r, "cancel_voids_what_was_held");
}

#[test]
fn a_paid_sale_whose_cards_are_not_captured_is_named() {
    // The PSP's captured split intents back to authorized: the paid sales' money is not all there.
    let r = tampered_psp(
        "UPDATE payment_intents SET obj = json_set(obj, '$.status', 'requires_capture')
         WHERE json_extract(obj, '$.status') = 'succeeded' AND json_extract(obj, '$.description') LIKE 'split-%'",
    );
    assert_names(&r, "sale_state_matches_money");
}

#[test]
fn a_card_tender_told_paid_captured_for_less_is_named() {
    let r = tampered_psp(
        "UPDATE payment_intents SET obj = json_set(obj, '$.amount_received', json_extract(obj, '$.amount_received') - 1)
         WHERE json_extract(obj, '$.status') = 'succeeded' AND json_extract(obj, '$.description') LIKE 'split-%'",
    );
    assert_names(&r, "told_paid_tender_is_captured");
}

#[test]
fn a_card_tender_charged_another_amount_is_named() {
    let r = tampered_psp(
        "UPDATE payment_intents SET obj = json_set(obj, '$.amount', json_extract(obj, '$.amount') + 1)
         WHERE seq = (SELECT min(seq) FROM payment_intents WHERE json_extract(obj, '$.description') LIKE 'split-%')",
    );
    assert_names(&r, "card_tender_amount_is_its_charge");
}

#[test]
fn a_cash_refund_other_than_told_is_named() {
    // A cash refund paid out one unit more than the cashier was told.
    let r = tampered("UPDATE cash_movements SET amount_minor = amount_minor - 1 WHERE id = (SELECT min(id) FROM cash_movements WHERE kind = 'refund_out')");
    assert_names(&r, "cash_refund_told_matches_drawer");
}

#[test]
fn cash_handed_back_on_a_sale_not_canceled_is_named() {
    // A canceled sale that handed cash back loses its cancel row.
    let r = tampered(
        "DELETE FROM sale_cancels WHERE cart_id = (
             SELECT t.cart_id FROM cash_movements m JOIN tenders t ON t.id = m.tender_id
             WHERE m.kind = 'cancel_return' ORDER BY m.id LIMIT 1)",
    );
    assert_names(&r, "told_cash_returned_only_on_cancel");
}

#[test]
fn a_line_returned_more_than_it_sold_is_named() {
    // A return's quantity raised after the fact (SQLite's trigger guards inserts only).
    let r = tampered("UPDATE return_lines SET quantity = quantity + 50 WHERE rowid = (SELECT min(rowid) FROM return_lines)");
    assert_names(&r, "returned_never_exceeds_sold");
}

#[test]
fn a_return_the_cashier_was_told_of_and_the_ledger_lost_is_named() {
    let r = tampered("DELETE FROM return_lines WHERE rowid = (SELECT max(rowid) FROM return_lines)");
    assert_names(&r, "told_return_is_in_the_ledger");
}

#[test]
fn an_exchange_credit_raised_past_its_tender_is_named() {
    // A credit taken out of an old tender raised after the fact (SQLite's trigger guards
    // inserts only): the tender's give-backs and what its credits hold pass what it paid,
    // and the credit no longer adds up to its exchange.
    let r = tampered("UPDATE exchange_credits SET amount_minor = amount_minor + 100000 WHERE id = (SELECT min(id) FROM exchange_credits)");
    assert_names(&r, "exchange_tender_gives_back_within_paid");
    assert_names(&r, "exchange_credit_within_new_sale_and_return");
}

#[test]
fn an_exchange_credit_other_than_told_is_named() {
    let r = tampered("UPDATE exchanges SET credit_minor = credit_minor - 1 WHERE id = (SELECT min(id) FROM exchanges WHERE credit_minor > 1)");
    assert_names(&r, "told_exchange_is_in_the_ledger");
}

#[test]
fn a_store_tender_other_than_told_is_named() {
    // A voucher's face value raised after the fact, the extra booked as kept: the
    // arithmetic still holds, but not what the cashier was told.
    let r = tampered(
        "UPDATE tenders SET offered_minor = offered_minor + 100, forfeited_minor = forfeited_minor + 100
         WHERE id = (SELECT min(id) FROM tenders WHERE kind = 'store' AND change_minor = 0)",
    );
    assert_names(&r, "told_store_tender_is_in_the_ledger");
}

#[test]
fn a_store_tender_given_back_beyond_what_it_paid_is_named() {
    let r = tampered("UPDATE store_refunds SET amount_minor = amount_minor + 1000000 WHERE id = (SELECT min(id) FROM store_refunds)");
    assert_names(&r, "store_given_back_within_paid");
}

#[test]
fn a_store_tenders_change_missing_from_the_drawer_is_named() {
    let r = tampered(
        "DELETE FROM cash_movements WHERE id = (SELECT min(m.id) FROM cash_movements m JOIN tenders t ON t.id = m.tender_id
         WHERE t.kind = 'store' AND m.kind = 'change_out')",
    );
    assert_names(&r, "cash_movements_match_their_tender");
}

#[test]
fn a_canceled_sale_that_kept_cash_is_named() {
    // The cash a cancel handed back, removed: the drawer keeps money of a canceled sale.
    let r = tampered("DELETE FROM cash_movements WHERE id = (SELECT min(id) FROM cash_movements WHERE kind = 'cancel_return')");
    assert_names(&r, "canceled_sale_leaves_the_drawer_as_it_was");
}
