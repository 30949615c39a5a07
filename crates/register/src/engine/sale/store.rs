//! Store tender (record 0118): one of the store's own tender types — a voucher, a slip
//! from a standalone terminal — with no network; the tender, any change from the drawer
//! and the sale's completion are one ledger transaction.

use super::{tender_error, SaleView};
use crate::engine::{Engine, Result};
use paydesk_domain::TenderTypeId;
use paydesk_ledger::{CartId, Tender};
use serde::Serialize;

/// What a store tender did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StoreTenderReport {
    pub tender: Tender,
    /// The face value handed over.
    pub offered: i64,
    /// What it paid of the sale.
    pub amount: i64,
    /// Give this back from the drawer (only a type that gives change).
    pub change: i64,
    /// Kept by the store: the type gives no change (printed "no change given").
    pub forfeited: i64,
    pub sale: SaleView,
}

impl Engine {
    /// Takes `offered_minor` of the store tender type `type_id` with its slip number.
    /// Refused while a card tender's outcome is unknown unless `override_reason` is given.
    pub fn pay_store(
        &self,
        cart: CartId,
        type_id: TenderTypeId,
        offered_minor: i64,
        reference: Option<&str>,
        override_reason: Option<&str>,
    ) -> Result<StoreTenderReport> {
        let now = self.now();
        let currency = self.with_ledger(|l| l.carts().by_id(cart))?.currency;
        let s = self
            .with_ledger(|l| l.sales_mut().pay_store(cart, type_id, offered_minor, reference, override_reason, now))
            .map_err(|e| tender_error(e, currency))?;
        Ok(StoreTenderReport {
            offered: s.split.offered_minor,
            amount: s.split.amount_minor,
            change: s.split.change_minor,
            forfeited: s.split.forfeited_minor,
            tender: s.tender,
            sale: SaleView::of(&s.sale),
        })
    }
}
