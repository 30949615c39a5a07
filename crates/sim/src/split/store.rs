//! The store's own tenders in a split sale (record 0118): a gift voucher that gives no
//! change (what it pays above the sale is forfeited), a gift card that gives change from
//! the drawer, and a QR payment taken for an amount with its slip number. No network: the
//! tender, any change and the sale's completion are one ledger write, so no crash is armed.
//!
//! What the cashier was told (handed over, paid, change, kept) is kept for the audit
//! (`audit/stores.rs`).

use super::note;
use crate::driver::Sim;
use crate::records::StoreTold;
use paydesk_ledger::{CartId, SaleState};
use paydesk_register::SaleView;
use rand::Rng;

impl Sim {
    /// One store tender: part of what is open, or (`covering`) all of it, a voucher's
    /// face value often above it.
    pub(super) fn store_tender(&mut self, i: usize, v: &SaleView, covering: bool) {
        let cart = CartId(v.cart_id);
        let (type_id, gives_change) = self.store_types[self.rng.random_range(0..self.store_types.len())];
        let open = v.open;
        if open <= 0 {
            return;
        }
        let offered = if covering {
            if self.rng.random_bool(0.5) {
                open
            } else {
                // A voucher's face value: whole banknotes, so usually more than is open.
                let n = note(self.split_mut(i).currency);
                (open / n + 1) * n
            }
        } else if open > 1 {
            self.rng.random_range(1..open)
        } else {
            open
        };
        self.tally("store_tenders");
        let slip = format!("SLIP-{i}-{}", self.split_mut(i).stores.len() + 1);
        match self.engine().pay_store(cart, type_id, offered, Some(&slip), None) {
            Ok(r) => {
                if r.forfeited > 0 {
                    self.tally("store_tender_no_change_kept");
                }
                if r.change > 0 {
                    self.tally("store_tender_with_change");
                }
                let s = self.split_mut(i);
                s.stores.push(StoreTold { tender_id: r.tender.id.0, offered: r.offered, amount: r.amount, change: r.change, forfeited: r.forfeited, gives_change });
                s.told_paid |= r.sale.state == SaleState::Paid;
            }
            Err(e) => *self.rep.errors.entry(format!("store:{}", e.code())).or_default() += 1,
        }
    }
}
