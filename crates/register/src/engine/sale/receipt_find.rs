//! A receipt number typed or scanned, and every sale it may be (issue #29, record 0159).
//! A receipt number is the sale id zero-padded, per register; a replacement register's own
//! sale ids start at 1 as its predecessor's did, so the number on a customer's paper can be
//! this register's own paid sale and one or more restored predecessors' sales at once. The
//! engine never picks one: it lists them all, and the cashier picks the one on the paper.

use paydesk_domain::Currency;
use paydesk_ledger::{store_time, CartId};
use paydesk_receipt::LocalDateTime;
use serde::Serialize;

use crate::engine::{Engine, EngineError, Result};

/// The most digits of a receipt number (the app's field and the CLI's allow no more).
pub const MAX_RECEIPT_DIGITS: usize = 20;

/// The most candidates a look-up lists; [`ReceiptCandidates::found`] says how many there were.
pub const MAX_RECEIPT_CANDIDATES: usize = 20;

/// How to open a candidate's Return items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReceiptOpen {
    /// This register's own paid sale.
    Own { cart: i64 },
    /// A predecessor's sale held in the restored history (record 0144).
    Restored { source: String, sale: i64 },
}

/// One sale a receipt number may be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReceiptCandidate {
    pub open: ReceiptOpen,
    /// The predecessor's name as restored (its id when it has none); `None` for this register.
    pub register_name: Option<String>,
    pub receipt_no: String,
    /// When it was paid, in the store's time (as its receipt prints it).
    pub at: LocalDateTime,
    pub total_minor: i64,
    pub currency: Currency,
}

/// Every sale a receipt number may be: this register's own first, then the predecessors'
/// in the order they were restored; at most [`MAX_RECEIPT_CANDIDATES`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReceiptCandidates {
    pub candidates: Vec<ReceiptCandidate>,
    /// How many sales have the number (more than listed when above the limit).
    pub found: usize,
}

/// The number as typed, checked: 1 to [`MAX_RECEIPT_DIGITS`] ASCII digits after trimming.
pub fn checked_receipt_number(number: &str) -> Result<&str> {
    let n = number.trim();
    if n.is_empty() || n.len() > MAX_RECEIPT_DIGITS || !n.bytes().all(|b| b.is_ascii_digit()) {
        return Err(EngineError::InvalidInput(format!("a receipt number is 1 to {MAX_RECEIPT_DIGITS} digits, not {n:?}")));
    }
    Ok(n)
}

impl Engine {
    /// Every sale receipt number `number` may be (record 0159): this register's own paid
    /// sale with that number and each restored predecessor's completed sale printed with
    /// it. `000001` and `1` are the same number. Refused: anything but 1 to 20 digits
    /// ([`EngineError::InvalidInput`]). None found is an empty list, not an error.
    pub fn receipt_candidates(&self, number: &str) -> Result<ReceiptCandidates> {
        let n = checked_receipt_number(number)?;
        let Some(sale) = n.trim_start_matches('0').parse::<i64>().ok().filter(|s| *s > 0) else {
            return Ok(ReceiptCandidates { candidates: Vec::new(), found: 0 });
        };
        // The number as every register prints it (sync-proto's `SaleCompleted`).
        let printed = format!("{sale:06}");
        Ok(self.with_reader(|l| {
            let store = l.catalog().store_settings()?;
            let mut all = Vec::new();
            match l.receipts().data(CartId(sale)) {
                Ok((data, _)) => {
                    let cart = l.sales().by_cart(CartId(sale))?.cart;
                    all.push(ReceiptCandidate {
                        open: ReceiptOpen::Own { cart: sale },
                        register_name: None,
                        receipt_no: data.receipt_no,
                        at: data.issued_at,
                        total_minor: cart.total.amount_minor,
                        currency: cart.currency,
                    });
                }
                // No such sale, or not paid: no receipt of this register's has the number.
                Err(paydesk_ledger::Error::UnknownCart(_) | paydesk_ledger::Error::InvalidInput(_)) => {}
                Err(e) => return Err(e),
            }
            for r in l.returns().restored_receipts(&printed)? {
                let named = r.register_name.trim();
                all.push(ReceiptCandidate {
                    register_name: Some(if named.is_empty() { r.source.clone() } else { named.to_string() }),
                    open: ReceiptOpen::Restored { source: r.source, sale: r.sale },
                    receipt_no: r.receipt_no,
                    at: store_time(r.completed_at_ms, &store),
                    total_minor: r.total_minor,
                    currency: r.currency,
                });
            }
            let found = all.len();
            all.truncate(MAX_RECEIPT_CANDIDATES);
            Ok::<_, paydesk_ledger::Error>(ReceiptCandidates { candidates: all, found })
        })?)
    }
}
