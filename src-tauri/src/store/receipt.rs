//! A paid sale's receipt on screen (design §11.16): the ledger's receipt data, built by
//! paydesk-receipt's pure function, sent as the document and its 80 mm text lines. The
//! UI draws them with text nodes only (never HTML), so a name in the catalog cannot
//! become markup.

use paydesk_ledger::receipt::{build_receipt, render_text, Paper, Receipt};
use paydesk_ledger::CartId;
use serde::Serialize;
use tauri::State;

use crate::error::{AppError, AppResult};
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
}

pub fn validate_cart(cart: i64) -> AppResult<CartId> {
    if cart <= 0 {
        return Err(AppError::InvalidInput("That sale number is not valid.".into()));
    }
    Ok(CartId(cart))
}

/// Why the ledger has no receipt for a sale, in the cashier's words.
pub fn receipt_error(e: paydesk_ledger::Error) -> AppError {
    use paydesk_ledger::Error as L;
    match e {
        L::UnknownCart(c) => AppError::ReceiptUnavailable(format!("There is no sale {c}.")),
        L::InvalidInput(m) => AppError::ReceiptUnavailable(format!("No receipt: {m}.")),
        other => AppError::from(other),
    }
}

#[tauri::command]
pub fn get_receipt(state: State<'_, AppState>, cart: i64) -> AppResult<ReceiptView> {
    let cart = validate_cart(cart)?;
    let (built, reprint, prints) = state
        .engine()
        .with_reader(|l| {
            let (data, tax) = l.receipt_data(cart)?;
            let prints = l.receipt_prints(cart)?.len();
            // On screen the receipt is what the customer got: marked only if it is a copy.
            Ok::<_, paydesk_ledger::Error>((build_receipt(&data, &tax, false), prints > 0, prints))
        })
        .map_err(receipt_error)?;
    let receipt = built.map_err(|e| AppError::ReceiptUnavailable(e.to_string()))?;
    let text = render_text(&receipt, Paper::Mm80);
    Ok(ReceiptView { cart_id: cart.0, receipt, text, next_print_reprint: reprint, prints })
}
