//! What follows the tenders of a split sale: a cancel of a half-paid sale (or of a paid
//! one, refused, then a full refund instead), refunds of paid split sales allocated to
//! their tenders, collecting a balance reopened by an offline card declined at
//! forwarding, and the final pass's last presses before the audit.

use super::{CANCEL_REASON, LEFT_REASON};
use crate::invariant::MidCheck;
use crate::driver::Sim;
use paydesk_ledger::{CartId, SaleState, TenderState};
use paydesk_register::{CrashPoint, EngineError};
use rand::Rng;

impl Sim {
    fn cart_of(&self, i: usize) -> CartId {
        self.sales[i].split.as_ref().expect("a split sale").cart
    }

    pub(super) async fn after_split_sale(&mut self, i: usize, walk_away: bool) {
        let cart = self.cart_of(i);
        let Some(v) = self.view(cart) else { return };
        match v.state {
            SaleState::Paid => {
                self.paid_splits.push(i);
                if walk_away {
                    // Cancel pressed on a paid sale: refused (refund it instead), then
                    // the whole sale refunded.
                    self.tally("cancel_tried_on_paid_sale");
                    self.plant_cancel_paid(cart);
                    let e = self.engine();
                    match self.op(async move { e.cancel_sale(cart, CANCEL_REASON).await }).await {
                        Some(Err(EngineError::SaleComplete { .. })) => {
                            self.tally("cancel_refused_sale_complete");
                            self.mid_check(MidCheck::PaidSaleIsNotCanceled.name(), true, "");
                        }
                        Some(Err(e)) => *self.rep.errors.entry(format!("cancel_paid:{}", e.code())).or_default() += 1,
                        Some(Ok(r)) => {
                            let what = format!("sale {cart}: cancel of a paid sale gave {}", r.state.as_str());
                            self.mid_check(MidCheck::PaidSaleIsNotCanceled.name(), false, &what);
                        }
                        None => {}
                    }
                    self.refund_split(i, None).await;
                }
            }
            SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance => {
                if walk_away {
                    self.cancel_split(i, CANCEL_REASON).await;
                }
            }
            SaleState::Canceling | SaleState::Canceled => {}
        }
    }

    /// Cancel pressed (crashes may hit the refunds it drives).
    pub(crate) async fn cancel_split(&mut self, i: usize, reason: &'static str) {
        let cart = self.cart_of(i);
        let settled = self.view(cart).map(|v| v.settled).unwrap_or(0);
        self.tally(if settled > 0 { "cancels_with_money_taken" } else { "cancels_nothing_taken" });
        self.maybe_arm_at(self.rates.register_crash * 2.0, &CrashPoint::ALL);
        let e = self.engine();
        match self.op(async move { e.cancel_sale(cart, reason).await }).await {
            Some(Ok(r)) => {
                self.tally(&format!("cancel:{}", r.state.as_str()));
                if r.change_collected > 0 {
                    self.tally("cancel_took_store_change_back");
                }
                let s = self.split_mut(i);
                s.cash_returned_told += r.cash_returned;
                s.change_collected_told += r.change_collected;
            }
            Some(Err(e)) => *self.rep.errors.entry(format!("cancel:{}", e.code())).or_default() += 1,
            None => {
                self.tally("crash_in_cancel");
                self.split_mut(i).cancel_unanswered = true;
                self.check_after_restart(cart);
            }
        }
    }

    /// Refund of a paid split sale: all of it, or a part (cards first, then cash).
    pub(crate) async fn refund_split(&mut self, i: usize, amount: Option<i64>) {
        let cart = self.cart_of(i);
        self.tally("sale_refunds");
        self.split_mut(i).refund_asked = true;
        self.maybe_arm_at(self.rates.register_crash * 2.0, &[CrashPoint::MidRefund, CrashPoint::AfterSend, CrashPoint::AfterCommit]);
        let e = self.engine();
        match self.op(async move { e.refund_sale(cart, amount, Some("requested_by_customer")).await }).await {
            Some(Ok(r)) => {
                if r.cash_out > 0 {
                    self.tally("sale_refunds_with_cash");
                }
                self.split_mut(i).cash_out_told += r.cash_out;
            }
            Some(Err(e)) => *self.rep.errors.entry(format!("sale_refund:{}", e.code())).or_default() += 1,
            None => {
                self.tally("crash_in_sale_refund");
                self.check_after_restart(cart);
                self.split_mut(i).refund_unanswered = true;
            }
        }
    }

    /// Now and then a customer of an earlier paid split sale comes back for a refund.
    pub(crate) async fn maybe_refund_split(&mut self) {
        if self.paid_splits.is_empty() || !self.rng.random_bool(0.08) {
            return;
        }
        let i = self.paid_splits[self.rng.random_range(0..self.paid_splits.len())];
        let total = self.sales[i].amount.amount_minor;
        let amount = if self.rng.random_bool(0.5) { None } else { Some((total / 3).max(1)) };
        self.refund_split(i, amount).await;
    }

    /// After a background pass: a sale reopened by a declined offline tender is
    /// collected in cash half the time; of the rest, one a gift card gave change on is
    /// canceled (the customer gives the goods back, gets the card's value back and hands
    /// the change back, record 0148); the others stay listed in End of day.
    pub(crate) async fn collect_balances(&mut self) {
        let mut keep = Vec::new();
        for i in std::mem::take(&mut self.offline_splits) {
            let cart = self.cart_of(i);
            let Some(v) = self.view(cart) else { continue };
            match v.state {
                SaleState::UnpaidBalance => {
                    self.tally("unpaid_balances_seen");
                    if self.rng.random_bool(0.5) {
                        self.tally("unpaid_balances_collected");
                        self.cash_tender(i, &v, true, None).await;
                    } else if self.split_mut(i).stores.iter().any(|s| s.change > 0) {
                        // Decided by the sale, not by a draw: seeds that never meet this
                        // case keep their random stream.
                        self.tally("unpaid_balance_with_store_change_canceled");
                        self.cancel_split(i, super::CANCEL_REASON).await;
                    }
                }
                // Still waiting to be forwarded (or answered): it may come back declined.
                SaleState::Paid | SaleState::PartiallyPaid if v.tenders.iter().any(|t| t.state == TenderState::Offline) => keep.push(i),
                SaleState::Open | SaleState::Paid | SaleState::PartiallyPaid | SaleState::Canceling | SaleState::Canceled => {}
            }
        }
        keep.dedup();
        self.offline_splits = keep;
    }

    /// The final pass's last presses: a cancel not confirmed yet is pressed again (a
    /// refused refund needs a person's new intent, record 0031), and a sale left part
    /// paid is canceled (the customer left). Unpaid balances stay for End of day.
    pub(crate) async fn finish_splits(&mut self) {
        for i in 0..self.sales.len() {
            if self.sales[i].split.is_none() {
                continue;
            }
            let cart = self.cart_of(i);
            let Some(v) = self.view(cart) else { continue };
            match v.state {
                SaleState::Canceling => {
                    self.tally("cancel_pressed_again_at_close");
                    self.cancel_split(i, CANCEL_REASON).await;
                }
                // An exchange's new sale cannot be canceled while it holds the credit
                // (the old goods are back on the shelf): the customer pays the rest.
                SaleState::Open | SaleState::PartiallyPaid if v.exchange_credit.is_some() && v.unknown_tender.is_none() => {
                    self.tally("exchange_paid_at_close");
                    self.cash_tender(i, &v, true, None).await;
                }
                SaleState::Open | SaleState::PartiallyPaid => {
                    self.tally("canceled_at_close");
                    self.cancel_split(i, LEFT_REASON).await;
                }
                SaleState::Paid | SaleState::UnpaidBalance | SaleState::Canceled => {}
            }
        }
    }
}
