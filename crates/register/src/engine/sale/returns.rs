//! A return per item of a paid sale (issue #29, record 0114): the ledger values it from
//! the sale's locked tax, allocates it to the tenders exactly as a refund by amount (card
//! amounts back to their own card first, the rest in cash) and commits the return, its
//! refund rows (each with its own key) and the cash paid out in one transaction; then
//! each card refund is driven like any refund (record 0015), as `refund_sale` does.

use super::SaleView;
use crate::engine::{Engine, RefundReport, Result};
use paydesk_ledger::{CartId, ReturnRecord};
use paydesk_tax::Returned;
use serde::Serialize;

/// What a return did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReturnReport {
    /// The recorded return: its number, lines, figures per rate and tenders.
    #[serde(rename = "return")]
    pub record: ReturnRecord,
    pub card_refunds: Vec<RefundReport>,
    /// Pay this out of the drawer (already recorded).
    pub cash_out: i64,
    /// Card refunds whose drive ended in an error (each still has its key; recovery
    /// resolves it).
    pub errors: Vec<String>,
    pub sale: SaleView,
}

impl Engine {
    /// Takes back `items` of a paid sale and gives their worth back (record 0114).
    /// `ryoshusho_taken_back`: the customer handed the sale's ryōshūsho back (required
    /// when the sale has one still valid).
    pub async fn return_lines(
        &self,
        cart: CartId,
        items: &[Returned],
        reason: Option<&str>,
        ryoshusho_taken_back: bool,
    ) -> Result<ReturnReport> {
        let now = self.now();
        let plan = self
            .with_ledger(|l| l.returns_mut().take_back(cart, items, reason, ryoshusho_taken_back, now))
            .map_err(|e| super::refund::refund_refused(cart, e))?;
        let refunds = plan.card_refunds.into_iter().map(|(_, r)| r).chain(plan.restored_card_refunds);
        let (card_refunds, errors) = self.drive_card_refunds(refunds).await;
        Ok(ReturnReport { record: plan.record, card_refunds, cash_out: plan.cash_out_minor, errors, sale: self.sale_now(cart)? })
    }

    /// The sale's returns, in order (for the return document and the screens).
    pub fn returns_of(&self, cart: CartId) -> Result<Vec<ReturnRecord>> {
        Ok(self.with_reader(|l| l.returns().by_sale(cart))?)
    }
}
