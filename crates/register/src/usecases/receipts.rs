//! Receipts (record 0058): what a sale's receipt says, whether the next print is a
//! copy, each print recorded, and the paid sales a page lists.

use paydesk_receipt::SaleData;
use paydesk_tax::TaxSettings;
use paydesk_ledger::{CartId, PrintOutcome, ReceiptPrint, Result};

use crate::Engine;

/// Receipt use cases; see [`Engine::receipts`].
pub struct ReceiptCases<'e> {
    pub(super) engine: &'e Engine,
}

/// A sale's receipt as the ledger has it, read in one snapshot.
#[derive(Debug, Clone)]
pub struct ReceiptSource {
    pub cart: CartId,
    pub data: SaleData,
    pub tax: TaxSettings,
    /// The next print is a copy (the ledger's rule: an attempt that reached no printer
    /// leaves the next one the original).
    pub next_print_reprint: bool,
    /// Prints recorded so far.
    pub prints: usize,
}

fn source(l: &paydesk_ledger::Ledger, cart: CartId) -> Result<ReceiptSource> {
    let (data, tax) = l.receipts().data(cart)?;
    Ok(ReceiptSource { cart, data, tax, next_print_reprint: l.receipts().next_print_is_reprint(cart)?, prints: l.receipts().prints(cart)?.len() })
}

/// One print of a receipt as it went: where to, in which format, and how.
#[derive(Debug, Clone, Copy)]
pub struct PrintRecord<'a> {
    pub format: &'a str,
    pub target: &'a str,
    pub outcome: PrintOutcome,
    pub error: Option<&'a str>,
}

impl ReceiptCases<'_> {
    /// The receipt's data and tax setup alone.
    pub fn data(&self, cart: CartId) -> Result<(SaleData, TaxSettings)> {
        self.engine.with_reader(|l| l.receipts().data(cart))
    }

    /// The receipt with its print marks.
    pub fn source(&self, cart: CartId) -> Result<ReceiptSource> {
        self.engine.with_reader(|l| source(l, cart))
    }

    /// Records one print after it was attempted; the ledger decides in the same write
    /// whether it was the original.
    pub fn record_print(&self, cart: CartId, print: PrintRecord<'_>) -> Result<ReceiptPrint> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.receipts_mut().record_print(cart, print.format, print.target, print.outcome, print.error, now))
    }

    /// Paid sales, newest first: at most `limit` (1 to 100) older than `before`, each with
    /// its receipt (one snapshot).
    pub fn paid_sales(&self, before: Option<CartId>, limit: i64) -> Result<Vec<ReceiptSource>> {
        self.engine.with_reader(|l| l.receipts().paid_sales(before, limit)?.into_iter().map(|cart| source(l, cart)).collect())
    }
}
