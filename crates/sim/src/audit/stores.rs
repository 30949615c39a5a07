//! The audit of the store's own tenders in split sales (record 0118), after the run:
//! each store tender's arithmetic (handed over = paid + change + kept), a type that gives
//! no change gave none and one that gives change kept nothing, what the cashier was told
//! is what the ledger holds, and what was given back through a store tender (its
//! `store_refunds` rows, read by plain SQL) stays within what it paid. The drawer's share
//! of a store tender's change is judged with the cash (`tenders.rs`).

use super::Audit;
use crate::records::SplitSale;
use paydesk_domain::TenderKind;
use paydesk_ledger::Sale;
use std::collections::HashMap;

/// `given_back`: per tender id, the sum of its `store_refunds` rows.
pub(super) fn stores_of_sale(a: &mut Audit, i: usize, sp: &SplitSale, s: &Sale, given_back: &HashMap<i64, i64>) {
    for t in s.tenders.iter().filter(|t| t.kind == TenderKind::Store) {
        let Some(info) = t.store.as_deref() else {
            a.check("store_tender_arithmetic", false, || format!("split-{i}: store tender {} has no store record", t.seq));
            continue;
        };
        let change = t.change_minor.unwrap_or(0);
        let amount = t.amount.amount_minor;
        let ok = amount > 0 && change >= 0 && info.forfeited_minor >= 0 && info.offered_minor == amount + change + info.forfeited_minor && (change == 0 || info.forfeited_minor == 0);
        a.check("store_tender_arithmetic", ok, || {
            format!("split-{i}: store tender {} offered {} = paid {amount} + change {change} + kept {}?", t.seq, info.offered_minor, info.forfeited_minor)
        });
        let back = given_back.get(&t.id.0).copied().unwrap_or(0);
        a.check("store_given_back_within_paid", (0..=amount).contains(&back), || {
            format!("split-{i}: store tender {} paid {amount}, given back {back} as itself", t.seq)
        });
    }
    for told in &sp.stores {
        let t = s.tenders.iter().find(|t| t.id.0 == told.tender_id);
        let ok = t.is_some_and(|t| {
            let info = t.store.as_deref();
            t.kind == TenderKind::Store
                && t.amount.amount_minor == told.amount
                && t.change_minor.unwrap_or(0) == told.change
                && info.is_some_and(|s| s.offered_minor == told.offered && s.forfeited_minor == told.forfeited)
        });
        a.check("told_store_tender_is_in_the_ledger", ok, || format!("split-{i}: told {told:?}, the ledger has {t:?}"));
        let ok = if told.gives_change { told.forfeited == 0 } else { told.change == 0 };
        a.check("store_change_as_the_type_says", ok, || format!("split-{i}: told {told:?}"));
    }
}
