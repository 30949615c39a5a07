//! A return's document (返品伝票 / 適格返還請求書, issue #29, record 0117): built from the
//! ledger's return record and the sale's receipt data, shown after the return and printed
//! on the receipt printer; each print recorded with the receipt's rule (the original until
//! a copy may have come out, record 0058).

use paydesk_ledger::{store_time, Result, ReturnPrint, ReturnRecord};
use paydesk_receipt::return_doc::{ReturnDocLine, ReturnDocument};
use paydesk_receipt::ReceiptRate;
use paydesk_tax::TaxClass;

use super::{PrintRecord, ReceiptCases};

/// A return's document as the ledger has it now, read in one snapshot.
#[derive(Debug, Clone)]
pub struct ReturnDocSource {
    pub record: ReturnRecord,
    /// Marked as a reprint exactly when the next print is one.
    pub document: ReturnDocument,
    /// The next print is a copy (an earlier one may have reached paper).
    pub next_print_reprint: bool,
}

/// One line of a paid sale as the Returns form lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReturnableLine {
    /// Index into the sale's lines (what a return names).
    pub line: usize,
    pub name: String,
    pub sold: u32,
    /// Taken back by earlier returns.
    pub returned: u32,
}

/// What the Returns form of a sale needs, read in one snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReturnForm {
    pub lines: Vec<ReturnableLine>,
    /// The number of the sale's ryōshūsho when one was issued and is still with the
    /// customer (it must come back with the goods, record 0114).
    pub ryoshusho_outstanding: Option<String>,
}

fn form_in(l: &paydesk_ledger::Ledger, cart: paydesk_ledger::CartId) -> Result<ReturnForm> {
    let (sale, _) = l.receipts().data(cart)?;
    let returned = l.returns().returned(cart)?;
    let lines = sale
        .lines
        .iter()
        .enumerate()
        .map(|(i, s)| ReturnableLine { line: i, name: s.name.clone(), sold: s.quantity, returned: returned.get(i).copied().unwrap_or(0) })
        .collect();
    let ryoshusho_outstanding = match l.receipts().ryoshusho(cart)? {
        Some(r) if l.receipts().ryoshusho_taken_back(cart)?.is_none() => Some(r.number),
        Some(_) | None => None,
    };
    Ok(ReturnForm { lines, ryoshusho_outstanding })
}

fn doc_in(l: &paydesk_ledger::Ledger, return_id: i64) -> Result<ReturnDocSource> {
    let record = l.returns().by_id(return_id)?;
    let (sale, _) = l.receipts().data(record.cart_id)?;
    let store = l.catalog().store_settings()?;
    let next_print_reprint = l.returns().next_print_is_reprint(return_id)?;
    let lines = record
        .lines
        .iter()
        .map(|r| ReturnDocLine {
            // The name the sale's receipt printed (the store's language), else the SKU's.
            name: sale.lines.get(r.line).map_or_else(|| r.name.clone(), |s| s.name.clone()),
            quantity: r.quantity,
            amount: r.net_minor,
            reduced: r.class == TaxClass::Reduced,
        })
        .collect();
    let rates = record
        .rates
        .iter()
        .map(|r| ReceiptRate { class: r.class, ppm: r.ppm, parts: Vec::new(), base: r.base, tax: r.tax, gross: r.gross })
        .collect();
    // A card refund on a predecessor's payment giving back a restored credit (record 0156)
    // is card money back too.
    let card = record.tenders.iter().filter(|t| t.refund_id.is_some()).map(|t| t.amount_minor).sum::<i64>()
        + record.restored_tenders.iter().filter(|t| t.refund_id.is_some()).map(|t| t.amount_minor).sum::<i64>();
    let store_tenders = record.tenders.iter().filter(|t| t.store_refund_id.is_some()).map(|t| t.amount_minor).sum();
    let exchange = l.returns().exchange_of_return(return_id)?.map(|c| (format!("{:06}", c.new_cart_id.0), c.amount_minor));
    let document = ReturnDocument {
        language: sale.language,
        currency: record.currency,
        store: sale.store.clone(),
        number: record.number.clone(),
        returned_at: store_time(record.created_at_ms, &store),
        sale_receipt_no: sale.receipt_no.clone(),
        sale_at: sale.issued_at,
        lines,
        rates,
        total: record.total_minor,
        card,
        cash: record.cash_out_minor,
        store_tenders,
        exchange,
        reprint: next_print_reprint,
        from_register: None,
    };
    Ok(ReturnDocSource { record, document, next_print_reprint })
}

impl ReceiptCases<'_> {
    /// A paid sale's lines with what is left to take back, and its ryōshūsho if the
    /// customer still holds it.
    pub fn return_form(&self, cart: paydesk_ledger::CartId) -> Result<ReturnForm> {
        self.engine.with_reader(|l| form_in(l, cart))
    }

    /// Return `return_id`'s document, marked as a reprint when the next print is one.
    pub fn return_document(&self, return_id: i64) -> Result<ReturnDocSource> {
        self.engine.with_reader(|l| doc_in(l, return_id))
    }

    /// Records one print of a return's document after it was attempted; the ledger
    /// decides in the same write whether it was the original.
    pub fn record_return_print(&self, return_id: i64, print: PrintRecord<'_>) -> Result<ReturnPrint> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.returns_mut().record_print(return_id, print.format, print.target, print.outcome, print.error, now))
    }
}

