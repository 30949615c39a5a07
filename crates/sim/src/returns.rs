//! Returns of single-card sales under simulation (issue #29): a customer of an earlier
//! sale rung up as a cart and paid by one card brings some of it back. The register gives
//! its worth back through the card (a refund with its own key, crash-safe like every
//! refund), at most what the card has left after any refund the cashier already made of
//! the payment; crashes are armed inside. Now and then the screen is stale and asks for
//! one more than is left: refused, nothing written (`split/returns.rs` does the same for
//! split sales and holds the shared steps).
//!
//! Only in runs with split sales (`SimConfig::split_share` > 0): a single-card run draws
//! nothing more, so its seeds keep their streams. Judged by `audit/returns.rs` and the
//! main audit (each refund key refunded once at the PSP; ledger = PSP).

use crate::driver::Sim;
use crate::split::returns::{MAX_LINES_PER_RETURN, RETURN_REASON};
use paydesk_register::CrashPoint;
use rand::Rng;

impl Sim {
    pub(crate) async fn maybe_return_single(&mut self) {
        if self.cfg.split_share <= 0.0 || !self.rng.random_bool(0.05) {
            return;
        }
        let carts: Vec<usize> = (0..self.sales.len()).filter(|i| self.sales[*i].cart_sale.is_some()).collect();
        if carts.is_empty() {
            return;
        }
        let i = carts[self.rng.random_range(0..carts.len())];
        let cart = self.sales[i].cart_sale.as_ref().expect("a cart sale").cart;
        // Not paid (declined, pending, voided): there is nothing to take back.
        let Some(left) = self.left_to_return(cart) else { return };
        if self.rng.random_bool(0.2) {
            self.return_beyond_what_is_left(cart, &left).await;
            return;
        }
        let Some(items) = self.pick_lines(&left, MAX_LINES_PER_RETURN) else {
            self.tally("single_returns_nothing_left");
            return;
        };
        self.tally("single_returns");
        self.maybe_arm_at(self.rates.register_crash * 2.0, &[CrashPoint::MidRefund, CrashPoint::AfterSend, CrashPoint::AfterCommit]);
        let e = self.engine();
        let asked = items.clone();
        match self.op(async move { e.return_lines(cart, &items, Some(RETURN_REASON), false).await }).await {
            Some(Ok(r)) => {
                if !r.card_refunds.is_empty() {
                    self.tally("single_returns_with_card_refunds");
                }
                self.cart_sale_mut(i).returns_told.push(asked);
            }
            Some(Err(e)) => *self.rep.errors.entry(format!("single_return:{}", e.code())).or_default() += 1,
            None => {
                self.tally("crash_in_single_return");
                self.cart_sale_mut(i).return_unanswered = true;
            }
        }
    }

    fn cart_sale_mut(&mut self, i: usize) -> &mut crate::records::CartSale {
        self.sales[i].cart_sale.as_mut().expect("a cart sale")
    }
}
