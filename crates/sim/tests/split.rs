//! Split-tender sales under simulation (record 0028): cash with change and rounding, card
//! parts, declines mid-split, unknown outcomes with and without the override, cancels
//! of half-paid sales, a cancel of a paid sale refused then refunded, refunds of split
//! sales, the store's own tenders (a voucher with no change, a gift card with change, a QR
//! payment), returns of split and of single-card sales, crashes and offline forwards — with zero audit violations, and the same
//! report for the same seed.

use paydesk_sim::{run, run_tampered, Profile, Report, SimConfig};
use std::collections::BTreeMap;

fn split(seed: u64, n: u64, profile: Profile) -> SimConfig {
    SimConfig::new(seed, n, profile).with_split_share(0.6)
}

fn show(r: &Report) -> String {
    format!("seed {} violations {}: {:#?}\ntenders {:#?}", r.seed, r.violations_total, r.violations, r.tenders)
}

#[test]
fn split_sales_in_chaos_have_no_violations_and_cover_every_flow() {
    let mut seen: BTreeMap<String, u64> = BTreeMap::new();
    let mut checked: BTreeMap<String, u64> = BTreeMap::new();
    // An even seed (EUR cash rounded to 0.05) and an odd one (no rounding).
    // Seeds 3 and 8 since exchanges moved the random stream (record 0124): 5 no longer
    // crashes inside a cancel. Seed 12 since lines are listed in the order rung (record
    // 0126): which line a return picks moved the stream again, and no exchange of 2, 3
    // and 8 crashes any more. Seeds 13-16 since held sales and the per-currency offline
    // caps (records 0128, 0129) moved it once more: 12 alone no longer crashes inside an
    // exchange.
    for seed in [2, 3, 8, 12, 13, 14, 15, 16] {
        let r = run(split(seed, 500, Profile::Chaos));
        assert!(r.ok(), "{}", show(&r));
        for (k, v) in &r.tenders {
            *seen.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &r.invariants_checked {
            *checked.entry(k.clone()).or_default() += v;
        }
    }
    for flow in [
        "split_sales",
        "cash_tenders",
        "cash_with_change",
        "cash_rounded",
        "card_tenders",
        "card:paid",
        "card:declined",
        "card:pending",
        "card:queued_offline",
        "pressed_again_while_unknown",
        "waited_for_recovery",
        "refused_while_unknown",
        "override_unknown_tender",
        "cancels_with_money_taken",
        "cancel:canceled",
        "cancel_refused_sale_complete",
        "sale_refunds",
        "sale_refunds_with_cash",
        "crash_in_card_tender",
        "crash_in_cancel",
        "crash_in_sale_refund",
        "unpaid_balances_seen",
        "unpaid_balances_collected",
        "exchanges",
        "exchanges_paid_by_the_credit",
        "exchanges_with_card_refunds",
        "exchanges_with_cash_back",
        "exchanges_new_sale_returned_whole",
        "exchanges_new_sale_returned_in_part",
        "crash_in_exchange",
        "store_tenders",
        "store_tender_no_change_kept",
        "store_tender_with_change",
        "cancel_took_store_change_back",
        "single_returns",
        "single_returns_with_card_refunds",
        "returns_beyond_what_is_left",
    ] {
        assert!(seen.get(flow).copied().unwrap_or(0) > 0, "{flow} never happened: {seen:#?}");
    }
    for inv in [
        "tenders_settled_le_total",
        "due_is_total_minus_settled",
        "sale_state_matches_money",
        "card_tender_charged_at_most_once",
        "card_tender_amount_is_its_charge",
        "cancel_refunds_exactly_the_settled_cards",
        "cancel_completes",
        "no_card_refund_without_request",
        "cash_movements_match_their_tender",
        "drawer_equals_cash_tenders",
        "told_paid_sale_is_complete",
        "told_paid_tender_is_captured",
        "told_declined_tender_never_charged",
        "told_pending_has_its_key",
        "told_change_matches_tender",
        "unknown_tender_blocks_new_tender",
        "unpaid_balance_listed_in_end_of_day",
        "superseded_charge_listed_in_end_of_day",
        "restart_settled_le_total",
        "restart_due_is_total_minus_settled",
        "exchange_credit_within_new_sale_and_return",
        "exchange_new_sale_settled_is_tenders_plus_credit",
        "exchange_tender_gives_back_within_paid",
        "told_exchange_is_in_the_ledger",
        "no_exchange_without_an_answer",
        "store_tender_arithmetic",
        "store_given_back_within_paid",
        "told_store_tender_is_in_the_ledger",
        "store_change_as_the_type_says",
        "canceled_sale_leaves_the_drawer_as_it_was",
        "told_change_collected_is_in_the_drawer",
        "returned_never_exceeds_sold",
        "returned_per_tender_within_paid",
        "told_return_is_in_the_ledger",
    ] {
        assert!(checked.get(inv).copied().unwrap_or(0) > 0, "{inv} never checked: {checked:#?}");
    }
}

#[test]
fn split_sales_in_a_calm_world_all_end_paid_or_canceled() {
    let r = run(split(4, 300, Profile::Calm));
    assert!(r.ok(), "{}", show(&r));
    assert_eq!(r.register_restarts, 0);
    assert_eq!(r.tenders.get("card:pending"), None, "{r:?}");
    assert_eq!(r.tenders.get("card:queued_offline"), None, "{r:?}");
    assert!(r.tenders["split_sales"] > 150, "{:?}", r.tenders);
}

#[test]
fn same_seed_with_splits_gives_the_same_report() {
    let a = run(split(9, 300, Profile::Chaos));
    let b = run(split(9, 300, Profile::Chaos));
    assert!(a.ok(), "{}", show(&a));
    assert_eq!(a, b);
}

#[test]
fn a_zero_split_share_is_the_single_card_run() {
    let single = run(SimConfig::new(6, 200, Profile::Chaos));
    let zero = run(SimConfig::new(6, 200, Profile::Chaos).with_split_share(0.0));
    assert_eq!(single.state_digest, zero.state_digest);
    assert!(zero.tenders.is_empty(), "{:?}", zero.tenders);
}

#[test]
fn split_sales_restart_from_a_real_ledger_file() {
    let base = if std::path::Path::new("/dev/shm").is_dir() { tempfile::tempdir_in("/dev/shm") } else { tempfile::tempdir() };
    let dir = base.unwrap();
    let mut cfg = split(21, 200, Profile::Chaos);
    cfg.ledger = paydesk_sim::LedgerMode::Dir(dir.path().to_path_buf());
    let r = run(cfg);
    assert!(r.ok(), "{}", show(&r));
    assert!(r.register_restarts > 0, "{r:?}");
    assert!(r.tenders["split_sales"] > 80, "{:?}", r.tenders);
}


/// Record 0148: a sale a gift card gave change on, reopened by an offline card declined at
/// forwarding, is canceled; the cancel takes the change back into the drawer and says so.
/// Seed 14 meets that case twice (seeds 2 and 12 once each, in the chaos test above).
/// Without the change's movement (the ledger before 0148) the audit names the sale.
#[test]
fn a_canceled_sale_takes_a_gift_cards_change_back_and_leaves_the_drawer_as_it_was() {
    let r = run(split(14, 500, Profile::Chaos));
    assert!(r.ok(), "{}", show(&r));
    assert!(r.tenders.get("unpaid_balance_with_store_change_canceled").copied().unwrap_or(0) > 0, "{:#?}", r.tenders);
    assert!(r.tenders.get("cancel_took_store_change_back").copied().unwrap_or(0) > 0, "{:#?}", r.tenders);
    for inv in ["canceled_sale_leaves_the_drawer_as_it_was", "told_change_collected_is_in_the_drawer", "drawer_equals_cash_tenders"] {
        assert!(r.invariants_checked.get(inv).copied().unwrap_or(0) > 0, "{inv} never judged");
    }
    // The ledger as it was before record 0148: the change stays out of the drawer.
    let old = run_tampered(split(14, 500, Profile::Chaos), |l, _psp| {
        let n = l
            .connection()
            .execute("DELETE FROM cash_movements WHERE kind = 'sale_in' AND tender_id IN (SELECT id FROM tenders WHERE kind = 'store')", ())
            .expect("tamper");
        assert!(n > 0, "no change was taken back");
    });
    assert!(!old.ok());
    for inv in ["canceled_sale_leaves_the_drawer_as_it_was", "told_change_collected_is_in_the_drawer"] {
        assert!(old.violations_by_invariant.get(inv).copied().unwrap_or(0) > 0, "{inv} not named: {:#?}", old.violations_by_invariant);
    }
}
