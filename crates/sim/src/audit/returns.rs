//! The audit of returns of split sales (issue #29, record 0114), after the run: read
//! back from the ledger, no line came back more than it sold, no return gave back more
//! through a tender than that tender paid, all returns together stay within the sale, and
//! every return the register answered as done is in the ledger with the lines the
//! cashier was told. The drawer and the card refunds of returns are judged with the
//! rest (`tenders.rs`: cash out per tender and what the cashier was told to hand back;
//! the main audit: each refund key refunded once at the PSP, ledger = PSP).

use super::Audit;
use crate::records::SplitSale;
use crate::Sim;
use paydesk_ledger::{ReturnRecord, Sale};
use paydesk_tax::Returned;
use std::collections::HashMap;

/// `credit_from`: what the sale's exchange credit took out of each old tender (a return
/// of the new sale gives back through those too, up to that).
pub(super) fn returns_of_split(a: &mut Audit, i: usize, sp: &SplitSale, s: &Sale, returns: &[ReturnRecord], credit_from: &HashMap<i64, i64>) {
    returns_of_sale(a, &format!("split-{i}"), &sp.returns_told, sp.refund_unanswered, s, returns, credit_from);
}

/// The single-card sales rung up as carts: their returns judged as a split sale's are
/// (they have no exchange credit).
pub(super) fn returns_of_single_sales(sim: &Sim, a: &mut Audit) {
    let engine = sim.engine();
    for (i, sale) in sim.sales.iter().enumerate() {
        let Some(cs) = &sale.cart_sale else { continue };
        let read = engine.ledger_for_tests(|l| Ok::<_, paydesk_ledger::Error>((l.sales().by_cart(cs.cart)?, l.returns().by_sale(cs.cart)?)));
        match read {
            Ok((s, returns)) => {
                if !returns.is_empty() || !cs.returns_told.is_empty() {
                    returns_of_sale(a, &format!("sale-{i}"), &cs.returns_told, cs.return_unanswered, &s, &returns, &HashMap::new());
                }
            }
            // A cart whose checkout never made a sale (declined before any tender) has
            // nothing to return; any other read failure is judged.
            Err(e) => a.check("single_sale_returns_readable", cs.returns_told.is_empty(), || format!("sale-{i} (cart {}): unreadable: {e}", cs.cart)),
        }
    }
}

/// `label` names the sale in a violation; `told` are the returns the register answered,
/// `unanswered` whether a return call crashed before answering.
fn returns_of_sale(a: &mut Audit, label: &str, told: &[Vec<Returned>], unanswered: bool, s: &Sale, returns: &[ReturnRecord], credit_from: &HashMap<i64, i64>) {
    // Per line: what all returns took, against what the sale sold.
    let mut back = vec![0i64; s.cart.lines.len()];
    let mut known = true;
    for r in returns {
        for l in &r.lines {
            match back.get_mut(l.line) {
                Some(b) => *b += i64::from(l.quantity),
                None => known = false,
            }
        }
    }
    let over = s.cart.lines.iter().zip(&back).position(|(l, b)| *b > l.quantity);
    a.check("returned_never_exceeds_sold", known && over.is_none(), || {
        format!("{label} (cart {}): returned {back:?} of lines sold {:?}", s.cart.id, s.cart.lines.iter().map(|l| l.quantity).collect::<Vec<_>>())
    });
    // Per tender: what returns gave back through it, against what it paid.
    let mut through: HashMap<i64, i64> = HashMap::new();
    for r in returns {
        for t in &r.tenders {
            *through.entry(t.tender_id.0).or_default() += t.amount_minor;
        }
    }
    for (tender, amount) in &through {
        let paid = s.tenders.iter().find(|t| t.id.0 == *tender).map(|t| t.amount.amount_minor).or_else(|| credit_from.get(tender).copied());
        a.check("returned_per_tender_within_paid", paid.is_some_and(|p| *amount <= p), || {
            format!("{label} (cart {}): returns gave back {amount} through tender {tender}, which paid {paid:?}", s.cart.id)
        });
    }
    let total: i64 = returns.iter().map(|r| r.total_minor).sum();
    a.check("returns_within_the_sale", total <= s.totals.total_minor, || {
        format!("{label} (cart {}): returns gave back {total} of a sale of {}", s.cart.id, s.totals.total_minor)
    });
    // Each return the register answered is in the ledger as told (a crashed one may be
    // there too: it committed before the crash).
    let recorded: Vec<Vec<(usize, u32)>> = returns.iter().map(|r| r.lines.iter().map(|l| (l.line, l.quantity)).collect()).collect();
    let mut unmatched = recorded.clone();
    for told in told {
        let mut want: Vec<(usize, u32)> = told.iter().map(|r| (r.line, r.quantity)).collect();
        want.sort_unstable();
        let found = unmatched.iter().position(|got| {
            let mut got = got.clone();
            got.sort_unstable();
            got == want
        });
        a.check("told_return_is_in_the_ledger", found.is_some(), || format!("{label} (cart {}): told {want:?} taken back, the ledger has {recorded:?}", s.cart.id));
        if let Some(k) = found {
            unmatched.remove(k);
        }
    }
    let ok = unanswered || unmatched.is_empty();
    a.check("no_return_without_an_answer", ok, || format!("{label} (cart {}): returns {unmatched:?} in the ledger were never answered and no call crashed", s.cart.id));
}
