//! Refund of a split sale (record 0032): the ledger allocates it to the tenders — card
//! amounts back to their own card, the rest in cash — and commits every refund row
//! (each with its own key) and the cash paid out in one transaction; then each card
//! refund is driven like any refund (record 0015).

use super::SaleView;
use crate::engine::{DriveMode, Engine, EngineError, RefundReport, Result};
use paydesk_ledger::{CartId, Refund};
use serde::Serialize;

/// What a sale refund did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SaleRefundReport {
    pub card_refunds: Vec<RefundReport>,
    /// Pay this out of the drawer (already recorded).
    pub cash_out: i64,
    /// Card refunds whose drive ended in an error (each still has its key; recovery
    /// resolves it).
    pub errors: Vec<String>,
    pub sale: SaleView,
}

impl Engine {
    /// Refunds `amount_minor` of a paid sale (everything refundable when `None`).
    /// Refused while the sale's ryōshūsho is still with the customer: see
    /// [`Engine::refund_sale_with`].
    pub async fn refund_sale(&self, cart: CartId, amount_minor: Option<i64>, reason: Option<&str>) -> Result<SaleRefundReport> {
        self.refund_sale_with(cart, amount_minor, reason, false).await
    }

    /// [`Engine::refund_sale`], saying whether the customer handed the sale's ryōshūsho
    /// back (record 0114): then it is marked taken back with the refund.
    pub async fn refund_sale_with(
        &self,
        cart: CartId,
        amount_minor: Option<i64>,
        reason: Option<&str>,
        ryoshusho_taken_back: bool,
    ) -> Result<SaleRefundReport> {
        let now = self.now();
        let plan = self
            .with_ledger(|l| l.sales_mut().plan_refund_with(cart, amount_minor, reason, ryoshusho_taken_back, now))
            .map_err(|e| refund_refused(cart, e))?;
        let refunds = plan.card_refunds.into_iter().map(|(_, r)| r).chain(plan.restored_card_refunds);
        let (card_refunds, errors) = self.drive_card_refunds(refunds).await;
        Ok(SaleRefundReport { card_refunds, cash_out: plan.cash_out_minor, errors, sale: self.sale_now(cart)? })
    }

    /// Drives each card refund a sale refund or a return committed (record 0015): a drive
    /// that ends in an error leaves the refund with its key, for recovery to resolve. Those
    /// on a predecessor's payment giving back a restored exchange's credit (record 0156) are
    /// driven the same way.
    pub(super) async fn drive_card_refunds(&self, refunds: impl IntoIterator<Item = Refund>) -> (Vec<RefundReport>, Vec<String>) {
        let mut done = Vec::new();
        let mut errors = Vec::new();
        for r in refunds {
            match self.drive_refund(r.id, r.idempotency_key.clone(), DriveMode::Interactive).await {
                Ok(rep) => done.push(rep),
                Err(e) => errors.push(format!("refund {}: {e}", r.idempotency_key)),
            }
        }
        (done, errors)
    }
}

/// The ledger's refusal of a sale refund or return, with an open refund named by the sale.
pub(super) fn refund_refused(cart: CartId, e: paydesk_ledger::Error) -> EngineError {
    match e {
        paydesk_ledger::Error::RefundInProgress { refund_key, .. } => EngineError::RefundInProgress { key: format!("sale {cart}"), refund_key },
        other => other.into(),
    }
}
