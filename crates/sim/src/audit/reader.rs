//! The audit of reader payments (issue #27, decision 0102), after the final pass: the
//! PSP's own store (intents, charges) against the ledger's reader payments and what the
//! cashier was told at each press.
//!
//! * `reader_at_most_one_success_per_intent`, `reader_at_most_one_success_per_checkout_key`:
//!   counted from the PSP's charges, not from the intents' status (a second succeeded
//!   charge on one intent would not show in its status);
//! * `reader_one_intent_per_checkout_key`: at most one intent per key, and the ledger's
//!   intent id is that one;
//! * `reader_told_paid_is_succeeded_at_psp`: "Paid" is the key's one intent succeeded,
//!   for the sale's amount;
//! * `reader_told_canceled_intent_never_charged`: "not charged" said because the intent
//!   is canceled stays true for ever (the intent canceled, no succeeded charge);
//! * `reader_payment_ends_resolved`: every reader payment is paid or canceled after the
//!   final pass, agreeing with the PSP;
//! * `reader_sale_in_ledger`, `reader_tender_sale_paid_iff_captured`: each reader sale has
//!   its payment, and a sale paid on the reader is paid exactly when its payment is.

use super::tenders::PspView;
use super::{fnv, Audit, PspPi};
use crate::Sim;
use paydesk_ledger::{Payment, SaleState};
use paydesk_domain::PaymentState;
use paydesk_register::{NotChargedWhy, ReaderOutcome};
use std::collections::HashMap;

pub(super) fn audit_readers(sim: &Sim, a: &mut Audit, psp: &PspView, payments: &[Payment], h: &mut u64) {
    let engine = sim.engine();
    // Succeeded charges per intent, from the PSP's charges.
    let mut successes: HashMap<&str, usize> = HashMap::new();
    for c in psp.charges.values().filter(|c| c.status == "succeeded") {
        *successes.entry(c.payment_intent.as_str()).or_default() += 1;
    }
    let intents = |key: &str| -> Vec<&PspPi> { psp.pis_by_key.get(key).cloned().unwrap_or_default() };
    let key_successes = |key: &str| -> usize { intents(key).iter().map(|p| successes.get(p.id.as_str()).copied().unwrap_or(0)).sum() };

    for p in psp.pis_by_key.values().flatten().filter(|p| p.card_present) {
        let n = successes.get(p.id.as_str()).copied().unwrap_or(0);
        a.check("reader_at_most_one_success_per_intent", n <= 1, || format!("intent {} (key {}) has {n} succeeded charges", p.id, p.key));
    }

    let mut by_key: HashMap<&str, &Payment> = HashMap::new();
    for p in payments {
        let Some(rp) = engine.ledger_for_tests(|l| l.card_readers().payment(p.id)).expect("reader payment") else { continue };
        by_key.insert(p.idempotency_key.as_str(), p);
        let key = p.idempotency_key.as_str();
        let v = intents(key);
        let n = key_successes(key);
        a.check("reader_at_most_one_success_per_checkout_key", n <= 1, || format!("reader payment {key} charged {n} times at the PSP"));
        let one = v.len() <= 1 && p.psp_payment_id.as_deref().is_none_or(|id| v.len() == 1 && v[0].id == id);
        a.check("reader_one_intent_per_checkout_key", one, || {
            format!("reader payment {key} (ledger intent {:?}) has intents {:?} at the PSP", p.psp_payment_id, v.iter().map(|x| &x.id).collect::<Vec<_>>())
        });
        let ok = match p.state {
            PaymentState::Captured => {
                v.len() == 1 && v[0].status == "succeeded" && v[0].amount_received == p.amount.amount_minor && n == 1
            }
            PaymentState::Canceled => v.iter().all(|x| x.status == "canceled") && n == 0,
            _ => false,
        };
        a.check("reader_payment_ends_resolved", ok, || {
            format!("reader payment {key} is {} {} in the ledger after the final pass; PSP {v:?}, {n} succeeded charge(s)", p.state, p.amount.amount_minor)
        });
        fnv(h, &format!("{key}{}", p.state.as_str()));
        for at in &rp.attempts {
            fnv(h, &format!("{}{}", at.attempt_no, at.outcome.as_str()));
        }
    }

    for (i, sale) in sim.sales.iter().enumerate() {
        let Some(rs) = &sale.reader else { continue };
        if std::env::var_os("PAYDESK_SIM_DEBUG").is_some() {
            eprintln!("sale-{i} key {:?} cart {:?} told {:?}", rs.key, rs.cart, rs.told);
        }
        let Some(key) = rs.key.as_deref() else {
            // No payment was ever committed (the charge was refused before its key).
            a.check("reader_sale_in_ledger", rs.told.is_empty(), || format!("sale-{i}: told {:?} without a checkout key", rs.told));
            continue;
        };
        let lp = by_key.get(key).copied();
        a.check("reader_sale_in_ledger", lp.is_some(), || format!("sale-{i}: reader payment {key} is not in the ledger"));
        let v = intents(key);
        for (press, told) in &rs.told {
            match told {
                ReaderOutcome::Paid => {
                    let ok = v.len() == 1
                        && v[0].status == "succeeded"
                        && v[0].amount_received == rs.amount.amount_minor
                        && v[0].currency == rs.amount.currency.code()
                        && key_successes(key) == 1;
                    a.check("reader_told_paid_is_succeeded_at_psp", ok, || {
                        format!("sale-{i}: {press} told {key} paid {} {}, PSP has {v:?}", rs.amount.amount_minor, rs.amount.currency.code())
                    });
                }
                ReaderOutcome::NotCharged { why: NotChargedWhy::IntentCanceled } => {
                    let ok = v.iter().all(|x| x.status == "canceled") && key_successes(key) == 0;
                    a.check("reader_told_canceled_intent_never_charged", ok, || {
                        format!("sale-{i}: {press} told {key} not charged (intent canceled), PSP has {v:?}")
                    });
                }
                _ => {}
            }
        }
        if let (Some(cart), Some(lp)) = (rs.cart, lp) {
            let paid = engine.ledger_for_tests(|l| l.sales().by_cart(cart)).map(|s| s.state == SaleState::Paid);
            let ok = paid.as_ref().is_ok_and(|paid| *paid == (lp.state == PaymentState::Captured));
            a.check("reader_tender_sale_paid_iff_captured", ok, || format!("sale-{i}: cart {cart} paid {paid:?}, its reader payment {key} is {}", lp.state));
        }
    }
}
