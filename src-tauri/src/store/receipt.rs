//! A paid sale's receipt on screen (record 0061): the ledger's receipt data, built by
//! paydesk-receipt's pure function, sent as the document and its 80 mm text lines. The
//! UI draws them with text nodes only (never HTML), so a name in the catalog cannot
//! become markup.

use paydesk_receipt::{build_receipt, render_text, Paper, Receipt, SaleData, MAX_TEXT_CHARS};
use serde::Serialize;
use tauri::State;

use crate::input::validate_cart;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::state::AppState;

#[derive(Debug, Serialize)]
pub struct ReceiptView {
    pub cart_id: i64,
    /// The document (store, lines with the reduced mark, per-rate totals, tenders).
    pub receipt: Receipt,
    /// As printed on 80 mm paper (48 columns).
    pub text: Vec<String>,
    /// Whether the next print is a reprint (the sale's receipt was printed before).
    pub next_print_reprint: bool,
    /// Prints so far (any outcome).
    pub prints: usize,
    /// The sale's ryōshūsho, when one was issued: the form is filled with its words, and
    /// issuing it again is a reprint (record 0112).
    pub ryoshusho: Option<paydesk_ledger::RyoshushoRecord>,
    /// The ryōshūsho's usual description in the store's language (the document's
    /// language), to fill the form with: "お品代として" / "Goods".
    pub ryoshusho_description: String,
}

/// The sale's data as paper takes it: a catalog name may have up to 120 characters,
/// a receipt line at most `MAX_TEXT_CHARS`; the name is cut (with "…"), never the sale.
pub fn printable(mut data: SaleData) -> SaleData {
    for l in &mut data.lines {
        if l.name.chars().count() > MAX_TEXT_CHARS {
            l.name = l.name.chars().take(MAX_TEXT_CHARS - 1).chain(['…']).collect();
        }
    }
    data
}

/// Why the ledger has no receipt for a sale, in the cashier's words.
pub fn receipt_error(e: paydesk_ledger::Error) -> AppError {
    use paydesk_ledger::Error as L;
    match e {
        L::UnknownCart(c) => AppError::ReceiptUnavailable(tr!(active(), "receipt-no-sale", sale = c.to_string())),
        L::InvalidInput(m) => AppError::ReceiptUnavailable(tr!(active(), "receipt-none", detail = m)),
        other => AppError::from(other),
    }
}

/// A sale whose data cannot make a receipt (a stored text or amount the document
/// refuses): the document's own reason is kept as the detail.
pub fn receipt_build_error(e: paydesk_receipt::ReceiptError) -> AppError {
    AppError::ReceiptUnavailable(tr!(active(), "receipt-none", detail = e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_to_what_a_receipt_line_holds() {
        let line = |name: &str| paydesk_receipt::LineInput {
            name: name.into(),
            unit_price: 1,
            quantity: 1,
            class: paydesk_tax::TaxClass::Exempt,
            discount: None,
            weight: None,
        };
        let data: SaleData = serde_json::from_value(serde_json::json!({
            "store": { "name": "S" }, "language": "ja-JP", "currency": "JPY", "receipt_no": "1",
            "issued_at": { "year": 2026, "month": 1, "day": 1, "hour": 0, "minute": 0 },
            "lines": [], "dining": "take_out", "tenders": []
        }))
        .unwrap();
        let long = "長".repeat(120);
        let cut = printable(SaleData { lines: vec![line(&long), line("short")], ..data });
        assert_eq!(cut.lines[0].name.chars().count(), MAX_TEXT_CHARS);
        assert!(cut.lines[0].name.ends_with('…'));
        assert_eq!(cut.lines[1].name, "short");
    }
}

#[tauri::command]
pub fn get_receipt(state: State<'_, AppState>, cart: i64) -> AppResult<ReceiptView> {
    let cart = validate_cart(cart)?;
    // The next print's mark is the ledger's rule (record 0058): an attempt that reached
    // no printer leaves the next one the original.
    let s = state.engine().receipts().source(cart).map_err(receipt_error)?;
    let (reprint, prints) = (s.next_print_reprint, s.prints);
    // On screen the receipt is what the customer got: marked only if it is a copy.
    let built = build_receipt(&printable(s.data), &s.tax, false);
    let receipt = built.map_err(receipt_build_error)?;
    let text = render_text(&receipt, Paper::Mm80);
    let ryoshusho = state.engine().receipts().ryoshusho(cart)?;
    let ryoshusho_description = paydesk_i18n::tr!(receipt.language, "ryoshusho-default-description");
    Ok(ReceiptView { cart_id: cart.0, receipt, text, next_print_reprint: reprint, prints, ryoshusho, ryoshusho_description })
}
