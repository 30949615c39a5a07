//! Card tender (record 0028): a payment for part or all of what the sale still needs,
//! with its own checkout key, committed with its tender row before the network and
//! driven exactly as a checkout (docs/design.md rules 1-11): at most two durable commits
//! before the cashier sees the answer.

use super::{tender_error, SaleView};
use crate::engine::checkout::validate_options;
use crate::engine::{CheckoutReport, CrashPoint, DriveMode, Engine, Result};
use paydesk_ledger::{CartId, CheckoutOptions};
use serde::Serialize;

/// A card tender's outcome and the sale after it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CardTenderReport {
    pub checkout: CheckoutReport,
    pub sale: SaleView,
}

impl Engine {
    /// Charges `amount_minor` (everything open when `None`) to a card as the sale's next
    /// tender. Pressed again while that tender's outcome is unknown, the same key is
    /// driven again (never a second payment); a different tender meanwhile is refused
    /// with `TenderUnknownOutstanding` unless `override_reason` is given. A decline keeps
    /// the earlier tenders: the sale stays open with its amount due.
    pub async fn charge_card_tender(
        &self,
        cart: CartId,
        amount_minor: Option<i64>,
        options: CheckoutOptions,
        override_reason: Option<&str>,
    ) -> Result<CardTenderReport> {
        validate_options(&options)?;
        let now = self.now();
        let currency = self.with_ledger(|l| l.carts().by_id(cart))?.currency;
        let ct = self
            .with_ledger(|l| l.sales_mut().open_card_tender(cart, amount_minor, &options, override_reason, now))
            .map_err(|e| tender_error(e, currency))?;
        let key = ct.payment.idempotency_key;
        let res = if ct.is_new {
            self.crash(CrashPoint::AfterKeyCommit);
            self.drive_created_here(&key).await
        } else {
            self.drive(&key, DriveMode::Interactive).await
        };
        let checkout = self.told(&key, res)?;
        Ok(CardTenderReport { checkout, sale: self.sale_now(cart)? })
    }
}
