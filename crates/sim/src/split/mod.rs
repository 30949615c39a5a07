//! Sales paid by several tenders (record 0028) under simulation: what the simulated
//! cashier does with a split sale and what it was told, for the tender audit
//! (`audit/tenders.rs`). One file per part: `pay.rs` (the tenders of one sale, and
//! what the cashier does while a card tender's outcome is unknown), `after.rs`
//! (cancels, refunds of split sales, collecting an unpaid balance, the final pass),
//! `returns.rs` (items of a paid split sale brought back), `exchange.rs` (items of a paid
//! split sale exchanged for a new sale, record 0124), `store.rs` (the store's own tenders:
//! vouchers with and without change, a QR payment, record 0118).
//!
//! A split sale is a cart in JPY, USD or EUR (EUR with a 0.05 cash rounding in even
//! seeds: the brief's CHF is not a currency PayDesk takes, record 0028), paid by one to
//! four tenders, cash, card or the store's own, each for part of the due or for all of it.

mod after;
mod exchange;
mod pay;
pub(crate) mod returns;
mod store;

use crate::invariant::MidCheck;
use paydesk_ledger::CartId;
use paydesk_domain::Currency;

/// Reasons the simulated cashier gives (3-200 characters).
pub(crate) const OVERRIDE_REASON: &str = "customer paid another way; card outcome unknown";
pub(crate) const CANCEL_REASON: &str = "customer changed their mind";
pub(crate) const LEFT_REASON: &str = "customer left before paying the rest";

/// The skus a split sale of `currency` picks from.
pub(crate) fn skus(currency: Currency) -> &'static [&'static str] {
    match currency {
        Currency::Jpy => &["JP-TEA", "JP-BENTO", "JP-BOOK"],
        Currency::Usd => &["US-COFFEE", "US-LUNCH"],
        Currency::Eur => &["EU-BREAD", "EU-CHEESE", "EU-WINE"],
        Currency::Gbp | Currency::Krw => &[],
    }
}

/// A banknote a customer hands over for `currency` (change is given from it).
pub(crate) fn note(currency: Currency) -> i64 {
    match currency {
        Currency::Jpy | Currency::Krw => 1_000,
        Currency::Usd | Currency::Eur | Currency::Gbp => 2_000,
    }
}

impl crate::driver::Sim {
    /// Checked right after a crash and restart in a split sale's flow (the register's
    /// start-up recovery has run): the sale's arithmetic holds on what was committed.
    pub(crate) fn check_after_restart(&mut self, cart: CartId) {
        let mut planted = Vec::new();
        if self.cfg.plant.is_some() {
            let settled = self.view(cart).map_or(0, |v| v.settled);
            planted = self.plant_restart(cart, settled);
        }
        let sale = self.engine().ledger_for_tests(|l| l.sales().by_cart(cart));
        let (ok_le, ok_due, what) = match &sale {
            Ok(s) => {
                // An exchange's credit settles its new sale as a tender would (record 0123).
                let credit = s.exchange_credit.as_ref().map_or(0, |c| c.amount_minor);
                let settled: i64 = s.tenders.iter().filter(|t| t.state.is_settled()).map(|t| t.amount.amount_minor).sum::<i64>() + credit;
                let t = &s.totals;
                (
                    t.settled_minor <= t.total_minor,
                    t.settled_minor == settled && t.due_minor == t.total_minor - settled,
                    format!("sale {cart} after a restart: total {} settled {} (tenders {settled}) due {}", t.total_minor, t.settled_minor, t.due_minor),
                )
            }
            Err(e) => (false, false, format!("sale {cart} unreadable after a restart: {e}")),
        };
        self.mid_check(MidCheck::RestartSettledLeTotal.name(), ok_le, &what);
        self.mid_check(MidCheck::RestartDueIsTotalMinusSettled.name(), ok_due, &what);
        self.unplant_restart(planted);
    }

    pub(crate) fn mid_check(&mut self, name: &'static str, ok: bool, what: &str) {
        *self.mid_checked.entry(name).or_default() += 1;
        if !ok {
            self.mid_violations.push((name, what.to_string()));
        }
    }
}
