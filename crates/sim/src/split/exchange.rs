//! Exchanges of paid split sales under simulation (issue #29, records 0123 and 0124): a
//! customer brings back one or two lines of an earlier paid split sale and takes other
//! goods instead. The cashier rings up the new sale, the register takes the old goods
//! back and puts their worth on the new sale as a credit (one transaction; the
//! difference, if the goods back are worth more, refunded cards first), with crashes
//! armed at the refund points; what is left of the new sale is paid by the usual
//! tenders. Now and then the customer later returns the new sale too, in part or whole,
//! and its credit goes back to the old sale's tenders.
//!
//! What the cashier was told (the credit, the cash handed back, the lines taken back) is
//! kept for the audit (`audit/exchanges.rs`).

use crate::records::ExchangeTold;
use crate::driver::Sim;
use paydesk_ledger::{CartId, SaleState};
use paydesk_register::CrashPoint;
use paydesk_tax::Returned;
use rand::Rng;

/// Why the simulated customer exchanges (3-200 characters).
const EXCHANGE_REASON: &str = "customer exchanged it for other goods";
/// How often, after a checkout, a paid split sale is exchanged.
const EXCHANGE_RATE: f64 = 0.06;
/// Most lines one simulated exchange takes back.
const MAX_LINES_PER_EXCHANGE: usize = 2;
/// Of the new sales paid, the share the customer later brings back (in part or whole).
const NEW_SALE_RETURNED: f64 = 0.3;

impl Sim {
    /// Now and then a customer of an earlier paid split sale exchanges some of it.
    pub(crate) async fn maybe_exchange_split(&mut self) {
        if self.paid_splits.is_empty() || !self.rng.random_bool(EXCHANGE_RATE) {
            return;
        }
        let o = self.paid_splits[self.rng.random_range(0..self.paid_splits.len())];
        let (old, currency) = {
            let sp = self.sales[o].split.as_ref().expect("a split sale");
            (sp.cart, sp.currency)
        };
        let Some(left) = self.left_to_return(old) else { return };
        let Some(items) = self.pick_lines(&left, MAX_LINES_PER_EXCHANGE) else {
            self.tally("exchanges_nothing_left");
            return;
        };
        // The other goods, rung up before the old ones are taken back (the register
        // puts the credit on an open sale).
        let (i, new) = self.ring_up(currency);
        self.exchange_into(o, old, items, i, new).await;
        let planned = self.rng.random_range(1..=2usize);
        self.pay_until(i, new, planned, None).await;
        self.after_split_sale(i, false).await;
        let paid = self.view(new).is_some_and(|v| v.state == SaleState::Paid);
        if paid && self.rng.random_bool(NEW_SALE_RETURNED) {
            self.return_new_sale(i, new).await;
        }
    }

    async fn exchange_into(&mut self, o: usize, old: CartId, items: Vec<Returned>, i: usize, new: CartId) {
        self.tally("exchanges");
        self.split_mut(o).refund_asked = true;
        self.maybe_arm_at(self.rates.register_crash * 2.0, &[CrashPoint::MidRefund, CrashPoint::AfterSend, CrashPoint::AfterCommit]);
        let e = self.engine();
        let asked = items.clone();
        match self.op(async move { e.exchange_lines(old, &items, new, Some(EXCHANGE_REASON), false).await }).await {
            Some(Ok(r)) => {
                if r.cash_out > 0 {
                    self.tally("exchanges_with_cash_back");
                }
                if !r.card_refunds.is_empty() {
                    self.tally("exchanges_with_card_refunds");
                }
                if r.new_sale.state == SaleState::Paid {
                    self.tally("exchanges_paid_by_the_credit");
                }
                let sp = self.split_mut(o);
                sp.cash_out_told += r.cash_out;
                sp.returns_told.push(asked);
                let sp = self.split_mut(i);
                sp.exchange = Some(ExchangeTold { old: o, credit: Some(r.credit) });
                sp.told_paid |= r.new_sale.state == SaleState::Paid;
            }
            Some(Err(e)) => {
                self.tally("exchanges_refused");
                *self.rep.errors.entry(format!("exchange:{}", e.code())).or_default() += 1;
            }
            None => {
                self.tally("crash_in_exchange");
                self.check_after_restart(old);
                self.check_after_restart(new);
                self.split_mut(o).refund_unanswered = true;
                self.split_mut(i).exchange = Some(ExchangeTold { old: o, credit: None });
            }
        }
    }

    /// The customer brings the new sale back: all that is left of it, or some lines.
    async fn return_new_sale(&mut self, i: usize, new: CartId) {
        let Some(left) = self.left_to_return(new) else { return };
        let items = if self.rng.random_bool(0.5) {
            self.tally("exchanges_new_sale_returned_whole");
            Some((0..left.len()).filter(|&l| left[l] > 0).map(|line| Returned { line, quantity: left[line] }).collect())
        } else {
            self.tally("exchanges_new_sale_returned_in_part");
            self.pick_lines(&left, left.len())
        };
        match items {
            Some(items) if !items.is_empty() => self.return_split(i, new, items).await,
            Some(_) | None => self.tally("returns_nothing_left"),
        }
    }
}
