//! A return of a sale restored from a replaced register (issue #29, record 0144): the
//! ledger rebuilds the predecessor's sale from its facts, values the return from the sale's
//! figures, gives the money back cards first (a new refund with its own key on the
//! predecessor's payment, at most what it has left) then cash out of this register's open
//! shift, all in one transaction; then each card refund is driven like any refund.

use crate::engine::{DriveMode, Engine, RefundReport, Result};
use paydesk_ledger::{store_time, PrintRecord, RestoredReturnRecord, RestoredSale, ReturnPrint};
use paydesk_receipt::return_doc::{render_return_text, ReturnDocLine, ReturnDocument};
use paydesk_receipt::{Paper, ReceiptRate, StoreInfo};
use paydesk_tax::{RegistrationNumber, Returned, TaxClass};
use serde::Serialize;

/// What a return of a restored sale did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RestoredReturnReport {
    #[serde(rename = "return")]
    pub record: RestoredReturnRecord,
    pub card_refunds: Vec<RefundReport>,
    /// Pay this out of the drawer (already recorded).
    pub cash_out: i64,
    /// Card refunds whose drive ended in an error (each still has its key; recovery
    /// resolves it).
    pub errors: Vec<String>,
    /// The return document's 80 mm text: it names the predecessor's receipt number and
    /// the sale's date.
    pub document: Vec<String>,
}

impl Engine {
    /// The restored sale `sale` of predecessor `source`, with what is left of it.
    pub fn restored_sale(&self, source: &str, sale: i64) -> Result<RestoredSale> {
        Ok(self.with_reader(|l| l.returns().restored_sale(source, sale))?)
    }

    /// The predecessor and sale id of a restored sale by its receipt number (from `source`
    /// when given).
    pub fn restored_by_receipt(&self, receipt_no: &str, source: Option<&str>) -> Result<(String, i64)> {
        Ok(self.with_reader(|l| l.returns().restored_by_receipt(receipt_no, source))?)
    }

    /// Takes back `items` of a restored sale (record 0144) and drives its card refunds.
    pub async fn return_restored(&self, source: &str, sale: i64, items: &[Returned], reason: Option<&str>) -> Result<RestoredReturnReport> {
        let now = self.now();
        let plan = self.with_ledger(|l| l.returns_mut().take_back_restored(source, sale, items, reason, now))?;
        let mut card_refunds = Vec::new();
        let mut errors = Vec::new();
        for r in plan.card_refunds {
            match self.drive_refund(r.id, r.idempotency_key.clone(), DriveMode::Interactive).await {
                Ok(rep) => card_refunds.push(rep),
                Err(e) => errors.push(format!("refund {}: {e}", r.idempotency_key)),
            }
        }
        let document = render_return_text(&self.restored_return_document(plan.record.id)?, Paper::Mm80);
        Ok(RestoredReturnReport { record: plan.record, card_refunds, cash_out: plan.cash_out_minor, errors, document })
    }

    /// The document of a return of a restored sale: this store's header, the
    /// predecessor's receipt number and sale time, "from register NAME", what came back and
    /// where it went; marked as a reprint exactly when the next print is one.
    pub fn restored_return_document(&self, id: i64) -> Result<ReturnDocument> {
        Ok(self.with_reader(|l| {
            let record = l.returns().restored_return(id)?;
            let reprint = l.returns().next_restored_print_is_reprint(id)?;
            // The name the back office gave the predecessor (its id when it gave none).
            let from_register = l
                .sync_log()
                .restore_sources()?
                .into_iter()
                .find(|s| s.register_id == record.source)
                .map(|s| s.register_name)
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| record.source.clone());
            let store = l.catalog().store_settings()?;
            let registration_number = store
                .registration_number
                .as_deref()
                .map(RegistrationNumber::parse)
                .transpose()
                .map_err(|e| paydesk_ledger::Error::InvalidInput(format!("registration number: {e}")))?;
            let card = record.tenders.iter().filter(|t| t.refund_id.is_some()).map(|t| t.amount_minor).sum();
            // An exchange's return gave back only what its new sale did not take: the document
            // names the credit and that sale, as a normal exchange's does (record 0123), so its
            // figures add up to what the customer got.
            let exchange = l.returns().restored_exchange_of_return(id)?.map(|(_, cart, credit)| (format!("{:06}", cart.0), credit));
            Ok::<_, paydesk_ledger::Error>(ReturnDocument {
                language: store.locale,
                currency: record.currency,
                store: StoreInfo { name: store.name.clone(), address: store.address.clone(), phone: store.phone.clone(), registration_number },
                number: record.number.clone(),
                returned_at: store_time(record.created_at_ms, &store),
                sale_receipt_no: record.receipt_no.clone(),
                sale_at: store_time(record.sale_at_ms, &store),
                lines: record
                    .lines
                    .iter()
                    .map(|r| ReturnDocLine { name: r.name.clone(), quantity: r.quantity, amount: r.net_minor, reduced: r.class == TaxClass::Reduced })
                    .collect(),
                rates: record.rates.iter().map(|r| ReceiptRate { class: r.class, ppm: r.ppm, parts: Vec::new(), base: r.base, tax: r.tax, gross: r.gross }).collect(),
                total: record.total_minor,
                card,
                cash: record.cash_out_minor,
                store_tenders: 0,
                exchange,
                reprint,
                from_register: Some(from_register),
            })
        })?)
    }

    /// Records one print of restored return `id`'s document with the text printed (the
    /// ledger decides original or reprint in the same write, and audits it, record 0146).
    pub fn record_restored_return_print(&self, id: i64, print: PrintRecord<'_>) -> Result<ReturnPrint> {
        let now = self.now();
        Ok(self.with_ledger(|l| l.returns_mut().record_restored_print(id, &print, now))?)
    }
}
