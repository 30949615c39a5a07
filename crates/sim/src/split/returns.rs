//! Returns of paid split sales under simulation (issue #29, record 0114): a customer
//! brings back some of what they bought — random lines, random quantities — and the
//! register gives its worth back, cards first, then cash from the drawer, with crashes
//! armed inside the return. Now and then the cashier's screen is stale and asks for one
//! more than is left of a line: the register must refuse it with nothing written.
//!
//! What the cashier was told (the cash to hand back, the lines taken back) is kept for
//! the audit (`audit/returns.rs`).

use crate::driver::Sim;
use crate::invariant::MidCheck;
use paydesk_ledger::{CartId, SaleState};
use paydesk_register::{CrashPoint, EngineError};
use paydesk_tax::Returned;
use rand::Rng;

/// Why the simulated customer brings things back (3-200 characters).
pub(crate) const RETURN_REASON: &str = "customer brought it back";
/// Most lines one simulated return names.
pub(crate) const MAX_LINES_PER_RETURN: usize = 3;

impl Sim {
    /// Now and then a customer of an earlier paid split sale brings some of it back.
    pub(crate) async fn maybe_return_split(&mut self) {
        if self.paid_splits.is_empty() || !self.rng.random_bool(0.08) {
            return;
        }
        let i = self.paid_splits[self.rng.random_range(0..self.paid_splits.len())];
        let cart = self.sales[i].split.as_ref().expect("a split sale").cart;
        let Some(left) = self.left_to_return(cart) else { return };
        if self.rng.random_bool(0.25) {
            self.return_beyond_what_is_left(cart, &left).await;
            return;
        }
        let Some(items) = self.pick_lines(&left, MAX_LINES_PER_RETURN) else {
            self.tally("returns_nothing_left");
            return;
        };
        self.return_split(i, cart, items).await;
    }

    /// Up to `most` random lines with something left, each with a random quantity up to
    /// what is left (None when nothing is left).
    pub(crate) fn pick_lines(&mut self, left: &[u32], most: usize) -> Option<Vec<Returned>> {
        let open: Vec<usize> = (0..left.len()).filter(|&l| left[l] > 0).collect();
        if open.is_empty() {
            return None;
        }
        let n = self.rng.random_range(1..=open.len().min(most));
        let mut items: Vec<Returned> = Vec::with_capacity(n);
        for _ in 0..n {
            let line = open[self.rng.random_range(0..open.len())];
            if items.iter().any(|r| r.line == line) {
                continue;
            }
            items.push(Returned { line, quantity: self.rng.random_range(1..=left[line]) });
        }
        Some(items)
    }

    /// What is left of each line of a paid sale (None when it is not paid or unreadable).
    pub(crate) fn left_to_return(&mut self, cart: CartId) -> Option<Vec<u32>> {
        let read = self.engine().ledger_for_tests(|l| Ok::<_, paydesk_ledger::Error>((l.sales().by_cart(cart)?, l.returns().returned(cart)?)));
        let (sale, back) = match read {
            Ok(x) => x,
            Err(e) => {
                *self.rep.errors.entry(format!("return_read:{}", EngineError::from(e).code())).or_default() += 1;
                return None;
            }
        };
        if sale.state != SaleState::Paid {
            return None;
        }
        Some(sale.cart.lines.iter().zip(back).map(|(l, b)| u32::try_from(l.quantity).unwrap_or(0).saturating_sub(b)).collect())
    }

    pub(super) async fn return_split(&mut self, i: usize, cart: CartId, items: Vec<Returned>) {
        self.tally("returns");
        self.split_mut(i).refund_asked = true;
        self.maybe_arm_at(self.rates.register_crash * 2.0, &[CrashPoint::MidRefund, CrashPoint::AfterSend, CrashPoint::AfterCommit]);
        let e = self.engine();
        let asked = items.clone();
        match self.op(async move { e.return_lines(cart, &items, Some(RETURN_REASON), false).await }).await {
            Some(Ok(r)) => {
                if r.cash_out > 0 {
                    self.tally("returns_with_cash");
                }
                if !r.card_refunds.is_empty() {
                    self.tally("returns_with_card_refunds");
                }
                let sp = self.split_mut(i);
                sp.cash_out_told += r.cash_out;
                sp.returns_told.push(asked);
            }
            Some(Err(e)) => *self.rep.errors.entry(format!("return:{}", e.code())).or_default() += 1,
            None => {
                self.tally("crash_in_return");
                self.check_after_restart(cart);
                self.split_mut(i).refund_unanswered = true;
            }
        }
    }

    /// A stale screen: one more of a line than is left. Refused, and nothing written.
    pub(crate) async fn return_beyond_what_is_left(&mut self, cart: CartId, left: &[u32]) {
        if left.is_empty() {
            return;
        }
        self.tally("returns_beyond_what_is_left");
        let line = self.rng.random_range(0..left.len());
        let before = self.engine().ledger_for_tests(|l| l.returns().by_sale(cart).map(|v| v.len()));
        if self.cfg.plant.is_some() {
            let returned = self.engine().ledger_for_tests(|l| l.returns().returned(cart)).map_or(0, |v| v.get(line).copied().unwrap_or(0));
            self.plant_stale_return(cart, returned);
        }
        let e = self.engine();
        let items = [Returned { line, quantity: left[line] + 1 }];
        let got = self.op(async move { e.return_lines(cart, &items, Some(RETURN_REASON), false).await }).await;
        let after = self.engine().ledger_for_tests(|l| l.returns().by_sale(cart).map(|v| v.len()));
        let refused = match &got {
            Some(Err(EngineError::Ledger(e))) => matches!(**e, paydesk_ledger::Error::ReturnExceedsSold { .. }),
            Some(Err(_) | Ok(_)) | None => false,
        };
        let ok = refused && before.is_ok() && before.as_ref().ok() == after.as_ref().ok();
        let what = format!("sale {cart}: {} of line {line} asked with {} left gave {:?}; returns {before:?} -> {after:?}", left[line] + 1, left[line], got.map(|g| g.map(|r| r.record.number)));
        self.mid_check(MidCheck::ReturnBeyondSoldIsRefused.name(), ok, &what);
    }
}
