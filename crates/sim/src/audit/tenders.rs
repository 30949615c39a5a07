//! The audit of split sales (record 0028), after the run: each sale's arithmetic
//! recomputed from the PSP's records and the cash tenders, each card tender against its
//! payment and its PSP intent, each cancel against the refunds the PSP made, the drawer
//! recomputed from the tenders, and what the cashier was told held to it.

use super::{fnv, Audit, PspCharge, PspPi, PspRefund};
use crate::records::SplitSale;
use crate::Sim;
use paydesk_ledger::{CashMovementKind, Sale, SaleState, TenderStanding};
use paydesk_domain::{Currency, PaymentState, TenderKind};
use paydesk_register::CheckoutOutcome;
use std::collections::{BTreeMap, HashMap};

/// The PSP's records, as the main audit read them.
pub(super) struct PspView<'a> {
    pub pis_by_key: &'a HashMap<&'a str, Vec<&'a PspPi>>,
    pub charges: &'a HashMap<String, PspCharge>,
    pub refunds: &'a [PspRefund],
}

impl PspView<'_> {
    fn intents(&self, key: &str) -> Vec<&PspPi> {
        self.pis_by_key.get(key).cloned().unwrap_or_default()
    }
    /// The card was charged (authorized or captured).
    fn charged(&self, p: &PspPi) -> bool {
        p.charge.as_ref().and_then(|c| self.charges.get(c)).is_some_and(|c| c.status == "succeeded")
    }
    /// Money taken: the intent is captured.
    fn captured(&self, key: &str) -> Option<i64> {
        let v: Vec<i64> = self.intents(key).iter().filter(|p| p.status == "succeeded").map(|p| p.amount_received).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    }
    /// Succeeded refunds at the PSP of the intents of a checkout key: (count, sum).
    fn refunded(&self, key: &str) -> (usize, i64) {
        let ids: Vec<&str> = self.intents(key).iter().map(|p| p.id.as_str()).collect();
        let v: Vec<i64> = self.refunds.iter().filter(|r| r.status == "succeeded" && ids.contains(&r.pi.as_str())).map(|r| r.amount).collect();
        (v.len(), v.iter().sum())
    }
}

pub(super) fn audit_tenders(sim: &Sim, a: &mut Audit, psp: &PspView, h: &mut u64) {
    for (name, what) in &sim.mid_violations {
        a.check(name, false, || what.clone());
    }
    // Each counted where it was judged; the failures are in `mid_violations` above.
    for (name, n) in &sim.mid_checked {
        let failed = sim.mid_violations.iter().filter(|(v, _)| v == name).count() as u64;
        for _ in failed..*n {
            a.check(name, true, String::new);
        }
    }
    let engine = sim.engine();
    let (day, drawer, movements, book) = engine
        .ledger_for_tests(|l| (l.sales().tender_day(0), l.sales().expected_drawer(), l.sales().cash_movements(None), super::exchanges::Book::read(l)));
    // What went back through each store tender, read from its table by plain SQL.
    let given_back = engine.ledger_for_tests(|l| -> rusqlite::Result<HashMap<i64, i64>> {
        let mut st = l.connection().prepare("SELECT tender_id, SUM(amount_minor) FROM store_refunds GROUP BY tender_id")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        rows.collect()
    });
    let (day, drawer, movements, book, given_back) = match (day, drawer, movements, book, given_back) {
        (Ok(d), Ok(dr), Ok(m), Ok(b), Ok(g)) => (d, dr, m, b, g),
        (d, dr, m, b, g) => {
            let why = format!("{:?} / {:?} / {:?} / {:?} / {:?}", d.err(), dr.err(), m.err(), b.err(), g.err());
            a.check("split_ledger_readable", false, || format!("End of day, drawer, movements or exchanges unreadable: {why}"));
            return;
        }
    };
    // Drawer movements per tender and kind.
    let mut moved: HashMap<(i64, &'static str), (i64, u32)> = HashMap::new();
    for m in &movements {
        if let Some(t) = m.tender_id {
            let e = moved.entry((t.0, m.kind.as_str())).or_default();
            e.0 += m.amount.amount_minor;
            e.1 += 1;
        }
    }
    let mut drawer_from_tenders: BTreeMap<Currency, i64> = BTreeMap::new();
    for (i, sale) in sim.sales.iter().enumerate() {
        let Some(sp) = &sale.split else { continue };
        let s = match engine.ledger_for_tests(|l| l.sales().by_cart(sp.cart)) {
            Ok(s) => s,
            Err(e) => {
                a.check("split_sale_readable", false, || format!("split-{i} (cart {}) cannot be read: {e}", sp.cart));
                continue;
            }
        };
        a.check("split_sale_readable", true, String::new);
        fnv(h, &format!("{}{}{}{}", s.cart.id, s.state.as_str(), s.totals.settled_minor, s.tenders.len()));
        money(a, i, sp, &s, psp);
        cards(a, i, &s, psp, &day.superseded_charged);
        cancel(a, i, sp, &s, psp);
        let own: Vec<i64> = s.tenders.iter().map(|t| t.id.0).collect();
        let out = drawer_of_sale(a, i, sp, &s, &moved, book.carried(s.cart.id, &own));
        *drawer_from_tenders.entry(sp.currency).or_default() += out;
        told(a, i, sp, &s, psp);
        super::stores::stores_of_sale(a, i, sp, &s, &given_back);
        match engine.ledger_for_tests(|l| l.returns().by_sale(sp.cart)) {
            Ok(returns) => super::returns::returns_of_split(a, i, sp, &s, &returns, &book.credit_from(s.cart.id)),
            Err(e) => a.check("split_sale_readable", false, || format!("split-{i} (cart {}): its returns cannot be read: {e}", sp.cart)),
        }
        let listed = day.unpaid_balances.iter().find(|u| u.cart_id == s.cart.id);
        let ok = match s.state {
            SaleState::UnpaidBalance => listed.is_some_and(|u| u.due_minor == s.totals.due_minor),
            SaleState::Open | SaleState::PartiallyPaid | SaleState::Paid | SaleState::Canceling | SaleState::Canceled => listed.is_none(),
        };
        a.check("unpaid_balance_listed_in_end_of_day", ok, || format!("split-{i}: sale {} due {}, End of day lists {listed:?}", s.state.as_str(), s.totals.due_minor));
    }
    drawer_from_tenders.retain(|_, v| *v != 0);
    let ledger: BTreeMap<Currency, i64> = drawer.into_iter().filter(|(_, v)| *v != 0).collect();
    a.check("drawer_equals_cash_tenders", ledger == drawer_from_tenders, || {
        format!("expected drawer {ledger:?}, recomputed from the cash tenders {drawer_from_tenders:?}")
    });
    super::exchanges::audit_exchanges(sim, a, &book);
}

/// Settled never exceeds the total; due = total - settled; the sale's state agrees.
/// Settled is recomputed: active cash tenders, and active card tenders the PSP captured.
fn money(a: &mut Audit, i: usize, sp: &SplitSale, s: &Sale, psp: &PspView) {
    // An exchange's credit settles its new sale (record 0123); the exchanges' audit
    // checks the credit itself against its tables.
    let mut settled = s.exchange_credit.as_ref().map_or(0, |c| c.amount_minor);
    for t in s.tenders.iter().filter(|t| t.standing == TenderStanding::Active) {
        match t.kind {
            // A store tender (record 0118) is settled when recorded, like cash.
            TenderKind::Cash | TenderKind::Store => settled += t.amount.amount_minor,
            TenderKind::Card => {
                if t.checkout_key.as_deref().and_then(|k| psp.captured(k)).is_some() {
                    settled += t.amount.amount_minor;
                }
            }
        }
    }
    let total = s.totals.total_minor;
    a.check("tenders_settled_le_total", settled <= total && s.totals.settled_minor <= total && total == sp.total, || {
        format!("split-{i} (cart {}): total {total} (sold {}), settled {} in the ledger, {settled} by the PSP and the cash", s.cart.id, sp.total, s.totals.settled_minor)
    });
    a.check("due_is_total_minus_settled", s.totals.settled_minor == settled && s.totals.due_minor == total - settled, || {
        format!("split-{i} (cart {}): ledger settled {} due {}, recomputed settled {settled} due {}", s.cart.id, s.totals.settled_minor, s.totals.due_minor, total - settled)
    });
    let state_ok = match s.state {
        SaleState::Paid => settled == total,
        SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance => settled < total,
        SaleState::Canceling | SaleState::Canceled => true,
    };
    a.check("sale_state_matches_money", state_ok, || format!("split-{i}: sale {} with settled {settled} of {total}", s.state.as_str()));
}

/// Each card tender: its payment's amount, its PSP intent's amount, charged at most
/// once; a superseded tender charged anyway is listed in End of day (owed back).
fn cards(a: &mut Audit, i: usize, s: &Sale, psp: &PspView, superseded_charged: &[String]) {
    for t in s.tenders.iter().filter(|t| t.kind == TenderKind::Card) {
        let Some(key) = t.checkout_key.as_deref() else {
            a.check("card_tender_has_a_payment", false, || format!("split-{i}: card tender {} has no payment", t.seq));
            continue;
        };
        let v = psp.intents(key);
        let n = v.iter().filter(|p| psp.charged(p)).count();
        a.check("card_tender_charged_at_most_once", n <= 1, || format!("split-{i}: tender {} ({key}) charged {n} times at the PSP", t.seq));
        let amount = t.amount.amount_minor;
        a.check("card_tender_amount_is_its_charge", v.iter().all(|p| p.amount == amount && p.currency == t.amount.currency.code()), || {
            format!("split-{i}: tender {} ({key}) of {amount} {}, PSP intents {v:?}", t.seq, t.amount.currency.code())
        });
        if t.standing == TenderStanding::Superseded {
            let charged = psp.captured(key).is_some();
            a.check("superseded_charge_listed_in_end_of_day", !charged || superseded_charged.iter().any(|k| k == key), || {
                format!("split-{i}: superseded tender {key} was charged and End of day does not list it")
            });
        }
    }
}

/// A cancel refunds exactly the settled card tenders (one refund each, of the tender's
/// amount), voids what was only held, and refunds nothing else; it ends canceled.
/// Without a cancel, card tenders are refunded only where the cashier asked.
fn cancel(a: &mut Audit, i: usize, sp: &SplitSale, s: &Sale, psp: &PspView) {
    let canceled = matches!(s.state, SaleState::Canceling | SaleState::Canceled);
    if canceled {
        a.check("cancel_completes", s.state == SaleState::Canceled, || format!("split-{i} (cart {}) still canceling after the final pass", s.cart.id));
    }
    for t in s.tenders.iter().filter(|t| t.kind == TenderKind::Card) {
        let Some(key) = t.checkout_key.as_deref() else { continue };
        let captured = psp.captured(key).is_some();
        let (n, sum) = psp.refunded(key);
        let amount = t.amount.amount_minor;
        if canceled && t.standing == TenderStanding::Active {
            let ok = if !captured {
                n == 0
            } else if sp.refund_asked {
                // Refunded in part before a forwarded decline reopened the sale.
                sum == amount
            } else {
                n == 1 && sum == amount
            };
            a.check("cancel_refunds_exactly_the_settled_cards", ok, || {
                format!("split-{i}: canceled; tender {} ({key}) of {amount}, captured {captured}: {n} refund(s) of {sum} at the PSP", t.seq)
            });
        } else {
            let ok = (sp.refund_asked || n == 0) && sum <= amount && (n == 0 || captured);
            a.check("no_card_refund_without_request", ok, || {
                format!("split-{i}: tender {} ({key}, {}) of {amount}: {n} refund(s) of {sum} at the PSP", t.seq, t.standing.as_str())
            });
        }
        if canceled && t.standing == TenderStanding::Active && !captured {
            let held = psp.intents(key).iter().any(|p| p.status == "requires_capture");
            a.check("cancel_voids_what_was_held", !held, || format!("split-{i}: canceled, tender {key} still authorized at the PSP"));
        }
    }
}

/// The sale's share of the drawer, recomputed from its cash tenders: in (tendered) less
/// change, less what a cancel handed back, less cash refunds; each movement checked
/// against its tender. `carried` moves an exchange credit's cash give-backs to the sale
/// whose return told them (`exchanges.rs`).
fn drawer_of_sale(a: &mut Audit, i: usize, sp: &SplitSale, s: &Sale, moved: &HashMap<(i64, &'static str), (i64, u32)>, carried: i64) -> i64 {
    let canceled = matches!(s.state, SaleState::Canceling | SaleState::Canceled);
    let mut total = 0;
    let mut refunded_cash = 0;
    for t in s.tenders.iter().filter(|t| t.kind == TenderKind::Cash) {
        let (tendered, change, rounding) = (t.cash_tendered_minor.unwrap_or(0), t.change_minor.unwrap_or(0), t.rounding_minor.unwrap_or(0));
        let kept = t.amount.amount_minor + rounding;
        let get = |k: CashMovementKind| moved.get(&(t.id.0, k.as_str())).copied().unwrap_or((0, 0));
        let (sale_in, change_out, back, out) =
            (get(CashMovementKind::SaleIn), get(CashMovementKind::ChangeOut), get(CashMovementKind::CancelReturn), get(CashMovementKind::RefundOut));
        let refund_out = -out.0;
        refunded_cash += refund_out;
        let returned = if canceled { kept - refund_out } else { 0 };
        let ok = tendered - change == kept
            && sale_in == (tendered, 1)
            && change_out.0 == -change
            && change_out.1 <= 1
            && (change == 0 || change_out.1 == 1)
            // A cash refund is not rounded (record 0032): up to what the tender paid
            // of the sale, which may exceed the cash kept by a rounding down.
            && (0..=t.amount.amount_minor).contains(&refund_out)
            && back.0 == -returned
            && back.1 <= 1;
        a.check("cash_movements_match_their_tender", ok, || {
            format!(
                "split-{i}: cash tender {} tendered {tendered} change {change} kept {kept}: sale_in {sale_in:?} change_out {change_out:?} cancel_return {back:?} refund_out {out:?} (canceled {canceled})",
                t.seq
            )
        });
        total += tendered - change - returned - refund_out;
    }
    // A store tender that gives change paid it from the drawer (a `change_out` movement);
    // a cancel takes it back (a `sale_in` of the store tender, record 0148).
    let mut store_in = 0;
    for t in s.tenders.iter().filter(|t| t.kind == TenderKind::Store) {
        let change = t.change_minor.unwrap_or(0);
        let get = |k: CashMovementKind| moved.get(&(t.id.0, k.as_str())).copied().unwrap_or((0, 0));
        let (sale_in, change_out, back, out) =
            (get(CashMovementKind::SaleIn), get(CashMovementKind::ChangeOut), get(CashMovementKind::CancelReturn), get(CashMovementKind::RefundOut));
        let taken_back = if canceled && change > 0 && t.standing == TenderStanding::Active { (change, 1) } else { (0, 0) };
        let ok = sale_in == taken_back
            && back == (0, 0)
            && out == (0, 0)
            && change_out == if change > 0 { (-change, 1) } else { (0, 0) };
        a.check("cash_movements_match_their_tender", ok, || {
            format!("split-{i}: store tender {} change {change} (canceled {canceled}): sale_in {sale_in:?} change_out {change_out:?} cancel_return {back:?} refund_out {out:?}", t.seq)
        });
        total += sale_in.0 - change;
        store_in += sale_in.0;
    }
    // The change the cancel told the cashier to take back is what came back into the
    // drawer (a crashed cancel was never answered: what it recorded was not shown).
    let ok = sp.change_collected_told == store_in || (sp.cancel_unanswered && sp.change_collected_told <= store_in);
    a.check("told_change_collected_is_in_the_drawer", ok, || {
        format!("split-{i}: told to take back {} change, the drawer took back {store_in} (sale {})", sp.change_collected_told, s.state.as_str())
    });
    // A canceled sale leaves the drawer as it found it: what came in went back out.
    if canceled {
        let net: i64 = s.tenders.iter().map(|t| moved.iter().filter(|((id, _), _)| *id == t.id.0).map(|(_, (sum, _))| sum).sum::<i64>()).sum();
        a.check("canceled_sale_leaves_the_drawer_as_it_was", net == 0, || {
            format!("split-{i} (cart {}): canceled, its tenders' drawer movements sum to {net}", s.cart.id)
        });
    }
    let told_cash = refunded_cash + carried;
    let ok = if sp.refund_unanswered { told_cash >= sp.cash_out_told } else { told_cash == sp.cash_out_told };
    a.check("cash_refund_told_matches_drawer", ok, || {
        format!("split-{i}: cashier told to pay out {} in cash, the drawer has {refunded_cash} out ({carried} moved by exchange credits)", sp.cash_out_told)
    });
    total
}

/// What the cashier was told stays true.
fn told(a: &mut Audit, i: usize, sp: &SplitSale, s: &Sale, psp: &PspView) {
    if sp.told_paid {
        let reopened = sp.offline_keys.iter().any(|k| psp.captured(k).is_none());
        let ok = s.state == SaleState::Paid || (reopened && s.state != SaleState::Open);
        a.check("told_paid_sale_is_complete", ok, || {
            format!("split-{i} (cart {}) shown paid, now {} (settled {} of {})", s.cart.id, s.state.as_str(), s.totals.settled_minor, s.totals.total_minor)
        });
    }
    for c in &sp.cards {
        let tender = s.tenders.iter().find(|t| t.checkout_key.as_deref() == Some(c.key.as_str()));
        match c.outcome {
            CheckoutOutcome::Paid => {
                let got = psp.captured(&c.key);
                a.check("told_paid_tender_is_captured", got == Some(c.amount) && tender.is_some(), || {
                    format!("split-{i}: tender {} shown paid {}, PSP captured {got:?}, tender {:?}", c.key, c.amount, tender.map(|t| t.seq))
                });
            }
            CheckoutOutcome::Declined | CheckoutOutcome::Failed => {
                let v = psp.intents(&c.key);
                let ok = v.iter().all(|p| !psp.charged(p))
                    && tender.is_some_and(|t| matches!(t.payment_state, Some(PaymentState::Failed | PaymentState::Canceled)));
                a.check("told_declined_tender_never_charged", ok, || {
                    format!("split-{i}: tender {} shown {:?}, PSP {v:?}, ledger {:?}", c.key, c.outcome, tender.map(|t| t.payment_state))
                });
            }
            CheckoutOutcome::Pending | CheckoutOutcome::QueuedOffline => {
                a.check("told_pending_has_its_key", tender.is_some(), || format!("split-{i}: tender {} shown {:?}, no such tender in cart {}", c.key, c.outcome, s.cart.id));
            }
            CheckoutOutcome::Authorized | CheckoutOutcome::Canceled | CheckoutOutcome::Refunded => {}
        }
    }
    for c in &sp.cash {
        let t = s.tenders.iter().find(|t| t.id.0 == c.tender_id);
        let ok = t.is_some_and(|t| t.cash_tendered_minor == Some(c.tendered) && t.change_minor == Some(c.change));
        a.check("told_change_matches_tender", ok, || format!("split-{i}: told tendered {} change {}, tender {:?}", c.tendered, c.change, t));
    }
    if sp.cash_returned_told > 0 {
        let back: i64 = s.tenders.iter().filter(|t| t.kind == TenderKind::Cash).count() as i64;
        a.check("told_cash_returned_only_on_cancel", back > 0 && matches!(s.state, SaleState::Canceling | SaleState::Canceled), || {
            format!("split-{i}: told to hand back {} but the sale is {}", sp.cash_returned_told, s.state.as_str())
        });
    }
}
