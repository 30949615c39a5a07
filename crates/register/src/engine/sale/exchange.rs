//! An exchange (issue #29, record 0123): goods of a paid sale come back and their worth
//! pays the open new sale, in one ledger transaction. What is left is one payment (the
//! new sale's `due`, paid by any tender afterwards) or one refund of the difference,
//! driven here like a return's (cards first, each under its own key).

use super::SaleView;
use crate::engine::{Engine, RefundReport, Result};
use paydesk_ledger::{CartId, RestoredReturnRecord, ReturnRecord};
use paydesk_tax::Returned;
use serde::Serialize;

/// What an exchange did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ExchangeReport {
    pub exchange_id: i64,
    /// The return of the old sale (its document is the return's).
    #[serde(rename = "return")]
    pub record: ReturnRecord,
    /// What of the return's worth pays the new sale.
    pub credit: i64,
    /// The difference given back when the goods were worth more than the new sale:
    /// card refunds, and cash to pay out of the drawer (already recorded).
    pub card_refunds: Vec<RefundReport>,
    pub cash_out: i64,
    /// Card refunds whose drive ended in an error (each keeps its key; recovery resolves it).
    pub errors: Vec<String>,
    /// The new sale: paid, or with `due` left to pay.
    pub new_sale: SaleView,
}

/// What an exchange of a restored sale did (record 0153).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RestoredExchangeReport {
    pub exchange_id: i64,
    /// The return of the predecessor's sale (numbered among all its returns).
    #[serde(rename = "return")]
    pub record: RestoredReturnRecord,
    /// What of the return's worth pays the new sale.
    pub credit: i64,
    /// The difference given back: refunds on the predecessor's card payments, and cash to
    /// pay out of this drawer (already recorded).
    pub card_refunds: Vec<RefundReport>,
    pub cash_out: i64,
    /// Card refunds whose drive ended in an error (each keeps its key; recovery resolves it).
    pub errors: Vec<String>,
    /// The new sale: paid, or with `due` left to pay.
    pub new_sale: SaleView,
}

impl Engine {
    /// Takes back `items` of the restored sale `sale` of predecessor `source` and puts their
    /// worth on this register's open sale `new` (record 0153), in one ledger transaction;
    /// then drives the difference's card refunds, each under its own key. Refusals are the
    /// ledger's, typed; nothing is written then.
    pub async fn exchange_restored_lines(&self, source: &str, sale: i64, items: &[Returned], new: CartId, reason: Option<&str>) -> Result<RestoredExchangeReport> {
        let now = self.now();
        let plan = self.with_ledger(|l| l.returns_mut().exchange_restored(source, sale, items, new, reason, now))?;
        let mut card_refunds = Vec::new();
        let mut errors = Vec::new();
        for r in plan.ret.card_refunds {
            match self.drive_refund(r.id, r.idempotency_key.clone(), crate::engine::DriveMode::Interactive).await {
                Ok(rep) => card_refunds.push(rep),
                Err(e) => errors.push(format!("refund {}: {e}", r.idempotency_key)),
            }
        }
        Ok(RestoredExchangeReport {
            exchange_id: plan.exchange_id,
            record: plan.ret.record,
            credit: plan.credit_minor,
            card_refunds,
            cash_out: plan.ret.cash_out_minor,
            errors,
            new_sale: self.sale_now(new)?,
        })
    }

    /// Takes back `items` of the paid sale `old` and puts their worth on the open sale
    /// `new` (record 0123). Refusals are the ledger's, typed; nothing is written then.
    pub async fn exchange_lines(
        &self,
        old: CartId,
        items: &[Returned],
        new: CartId,
        reason: Option<&str>,
        ryoshusho_taken_back: bool,
    ) -> Result<ExchangeReport> {
        let now = self.now();
        let plan = self
            .with_ledger(|l| l.returns_mut().exchange(old, items, new, reason, ryoshusho_taken_back, now))
            .map_err(|e| super::refund::refund_refused(old, e))?;
        let refunds = plan.ret.card_refunds.into_iter().map(|(_, r)| r).chain(plan.ret.restored_card_refunds);
        let (card_refunds, errors) = self.drive_card_refunds(refunds).await;
        Ok(ExchangeReport {
            exchange_id: plan.exchange_id,
            record: plan.ret.record,
            credit: plan.credit_minor,
            card_refunds,
            cash_out: plan.ret.cash_out_minor,
            errors,
            new_sale: self.sale_now(new)?,
        })
    }
}
