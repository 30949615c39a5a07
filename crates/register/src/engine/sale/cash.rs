//! Cash tender (record 0030): no network; the tender, the change, the drawer and the
//! sale's completion are one ledger transaction.

use super::{tender_error, SaleView};
use crate::engine::{Engine, Result};
use paydesk_ledger::{CartId, Tender};
use serde::Serialize;

/// What a cash tender did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CashReport {
    pub tender: Tender,
    pub tendered: i64,
    /// Give this back to the customer.
    pub change: i64,
    /// Cash rounding (+ rounded up), so the drawer balances.
    pub rounding: i64,
    pub sale: SaleView,
}

impl Engine {
    /// Takes `tendered_minor` in cash. Covering what is open (rounded for cash) completes
    /// the sale and the difference is the change; less is a part payment. Refused while
    /// a card tender's outcome is unknown unless `override_reason` (3-200 characters) is
    /// given, which supersedes that tender (audited).
    pub fn pay_cash(&self, cart: CartId, tendered_minor: i64, override_reason: Option<&str>) -> Result<CashReport> {
        let now = self.now();
        let currency = self.with_ledger(|l| l.carts().by_id(cart))?.currency;
        let c = self
            .with_ledger(|l| l.sales_mut().pay_cash(cart, tendered_minor, override_reason, now))
            .map_err(|e| tender_error(e, currency))?;
        Ok(CashReport {
            tendered: c.split.tendered_minor,
            change: c.split.change_minor,
            rounding: c.split.rounding_minor,
            tender: c.tender,
            sale: SaleView::of(&c.sale),
        })
    }
}
