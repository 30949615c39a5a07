//! A return per item from a sale's receipt (issue #29, record 0117): the Returns form
//! reads the sale's lines with what is left of each (`return_form`); `return_lines` checks
//! the lines typed, needs the Refund permission exactly as `refund_sale` (a cashier gets
//! the approval dialog), and has the engine take them back (record 0114: valued from the
//! sale's locked tax, cards refunded first up to what each paid, the rest in cash out of
//! the drawer, all in one transaction; then each card refund driven under its own key).
//! The answer carries the return's number and its document's text for the screen.

use std::collections::HashSet;

use paydesk_access::Action;
use paydesk_receipt::return_doc::render_return_text;
use paydesk_receipt::Paper;
use paydesk_register::usecases::ReturnForm;
use paydesk_tax::Returned;
use serde::{Deserialize, Serialize};
use tauri::State;

use super::cancel::CancelLine;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::input::{required_reason, validate_cart};
use crate::money;
use crate::ops::{Locks, Operation};
use crate::staff::Approval;
use crate::state::AppState;

/// The most of one line a return takes back in one go (a sale's line holds less).
pub const MAX_RETURN_QUANTITY: i64 = 9999;

/// One line of the form as sent: the sale's line index and how many come back.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct ReturnLineInput {
    pub line: i64,
    pub quantity: i64,
}

#[derive(Debug, Serialize)]
pub struct ReturnResult {
    pub return_id: i64,
    /// The return's number (`000042-R1`), printed on its document.
    pub number: String,
    /// One line per card refund, with its state.
    pub lines: Vec<CancelLine>,
    /// What to hand back from the drawer (already recorded).
    pub cash_out: i64,
    pub cash_out_display: String,
    pub total: i64,
    /// Card refunds whose drive ended in an error (each has its key; recovery goes on).
    pub errors: Vec<String>,
    pub message: String,
    /// The return document as printed on 80 mm paper.
    pub document: Vec<String>,
    pub next_print_reprint: bool,
    /// When the sale's ryōshūsho came back at this return and the customer kept something:
    /// what a new one would state (record 0145), for "Issue new 領収書 for ¥X".
    pub ryoshusho_kept: Option<KeptOffer>,
}

/// A new ryōshūsho the screen offers after a return (record 0145): its amount and the
/// words of the one handed back, which it keeps by default.
#[derive(Debug, Serialize)]
pub struct KeptOffer {
    pub cart_id: i64,
    pub total: i64,
    pub total_display: String,
    pub addressee: String,
    pub description: String,
    /// The number of the ryōshūsho it replaces.
    pub replaces: String,
}

/// The lines typed, checked against the sale's line count: at least one, at most one
/// per line of the sale, each line once, each quantity 1 to [`MAX_RETURN_QUANTITY`].
/// What is left of each line is the ledger's to decide (in the return's transaction).
pub(crate) fn checked_lines(lines: &[ReturnLineInput], sale_lines: usize) -> AppResult<Vec<Returned>> {
    let l = active();
    if lines.is_empty() {
        return Err(AppError::InvalidInput(tr!(l, "return-input-none")));
    }
    if lines.len() > sale_lines {
        return Err(AppError::InvalidInput(tr!(l, "return-input-lines", max = sale_lines)));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(lines.len());
    for x in lines {
        let Some(line) = usize::try_from(x.line).ok().filter(|i| *i < sale_lines) else {
            return Err(AppError::InvalidInput(tr!(l, "return-input-line", line = x.line.saturating_add(1))));
        };
        if !(1..=MAX_RETURN_QUANTITY).contains(&x.quantity) {
            return Err(AppError::InvalidInput(tr!(l, "return-input-quantity", max = MAX_RETURN_QUANTITY)));
        }
        if !seen.insert(line) {
            return Err(AppError::InvalidInput(tr!(l, "return-input-duplicate", line = line + 1)));
        }
        // In range: 1..=9999.
        out.push(Returned { line, quantity: x.quantity as u32 });
    }
    Ok(out)
}

/// The engine's refusal in the cashier's words; more than is left of a line also names
/// the item, as the form lists it (the ledger knows the line by its index).
fn refused(e: paydesk_register::EngineError, form: &ReturnForm) -> AppError {
    if let paydesk_register::EngineError::Ledger(inner) = &e {
        if let paydesk_ledger::Error::ReturnExceedsSold { line, sold, returned_before, requested, .. } = inner.as_ref() {
            if let Some(named) = form.lines.get(*line) {
                return AppError::InvalidInput(tr!(
                    active(),
                    "return-exceeds-sold-named",
                    line = line + 1,
                    name = named.name.clone(),
                    sold = *sold,
                    returned = *returned_before,
                    requested = *requested
                ));
            }
        }
    }
    AppError::from(e)
}

/// Paid sale `cart`'s lines with what is left of each, and its 領収書 if the customer
/// still holds it (the form asks for it back).
#[tauri::command]
pub fn return_form(state: State<'_, AppState>, cart: i64) -> AppResult<ReturnForm> {
    let cart = validate_cart(cart)?;
    Ok(state.engine().receipts().return_form(cart)?)
}

/// Takes back `lines` of paid sale `cart` for `reason`; `ryoshusho_taken_back` when the
/// customer handed back the sale's 領収書. A manager's call, as any refund (record 0062).
#[tauri::command]
pub async fn return_lines(
    state: State<'_, AppState>,
    cart: i64,
    lines: Vec<ReturnLineInput>,
    reason: String,
    approval: Option<Approval>,
    ryoshusho_taken_back: Option<bool>,
) -> AppResult<ReturnResult> {
    let cart = validate_cart(cart)?;
    // The sale's line count bounds the list before anything else is read or locked.
    let form = state.engine().receipts().return_form(cart)?;
    let items = checked_lines(&lines, form.lines.len())?;
    let reason = required_reason(&reason)?;
    let op = Operation::new(Action::Refund, approval.as_ref()).approval_audited(format!("cart:{cart}"));
    let _pass = op.run(&state, Locks::Engine).await?;
    let engine = state.engine();
    let r = engine.return_lines(cart, &items, Some(&reason), ryoshusho_taken_back.unwrap_or(false)).await.map_err(|e| refused(e, &form))?;
    let number = r.record.number.clone();
    let cash = money::format(r.cash_out, r.sale.currency);
    let l = active();
    let message = if r.cash_out > 0 {
        tr!(l, "return-done-cash", number = number.clone(), cash = cash.clone())
    } else if r.record.total_minor > 0 {
        tr!(l, "return-done-card", number = number.clone())
    } else {
        tr!(l, "return-done-nothing", number = number.clone())
    };
    // The return is committed: a document that cannot be read now is shown as missing
    // (the screen can load it again), never as a failed return.
    let doc = engine.receipts().return_document(r.record.id);
    let (document, next_print_reprint) = match doc {
        Ok(d) => (render_return_text(&d.document, Paper::Mm80), d.next_print_reprint),
        Err(e) => (vec![e.to_string()], false),
    };
    // Only when the ryōshūsho came back at THIS return; an unsure card refund (still being
    // confirmed) leaves the amount unstated, and the offer out.
    let ryoshusho_kept = if r.record.ryoshusho_taken_back {
        let receipts = engine.receipts();
        match (receipts.ryoshusho(cart), receipts.ryoshusho_kept(cart)) {
            (Ok(Some(old)), Ok(k)) => Some(KeptOffer {
                cart_id: cart.0,
                total: k.total_minor,
                total_display: money::format(k.total_minor, r.sale.currency),
                addressee: old.addressee,
                description: old.description,
                replaces: old.number,
            }),
            _ => None,
        }
    } else {
        None
    };
    Ok(ReturnResult {
        ryoshusho_kept,
        return_id: r.record.id,
        number,
        lines: super::refund::refund_lines(&r.card_refunds),
        cash_out: r.cash_out,
        cash_out_display: cash,
        total: r.record.total_minor,
        errors: r.errors,
        message,
        document,
        next_print_reprint,
    })
}


/// Most characters a receipt number takes as typed or scanned (its barcode carries 6 to 12).
pub const MAX_RECEIPT_NO_CHARS: usize = 20;

/// A receipt number as typed or scanned at Payments → Receipts or the register: trimmed, 1 to
/// [`MAX_RECEIPT_NO_CHARS`] digits (the sale's own and a restored sale's alike).
pub fn checked_receipt_no(number: &str) -> AppResult<&str> {
    let n = number.trim();
    if n.is_empty() || n.len() > MAX_RECEIPT_NO_CHARS || !n.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AppError::InvalidInput(tr!(active(), "receipt-find-invalid", max = MAX_RECEIPT_NO_CHARS)));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(line: i64, quantity: i64) -> ReturnLineInput {
        ReturnLineInput { line, quantity }
    }

    #[test]
    fn the_lines_typed_are_bounded_by_the_sale_and_named_once() {
        assert_eq!(checked_lines(&[line(2, 1), line(0, 3)], 3).unwrap(), vec![Returned { line: 2, quantity: 1 }, Returned { line: 0, quantity: 3 }]);
        assert!(checked_lines(&[], 3).is_err(), "nothing chosen");
        assert!(checked_lines(&[line(0, 1), line(1, 1)], 1).is_err(), "more lines than the sale has");
        assert!(checked_lines(&[line(3, 1)], 3).is_err(), "no line 4");
        assert!(checked_lines(&[line(-1, 1)], 3).is_err());
        assert!(checked_lines(&[line(0, 0)], 3).is_err(), "quantity 0");
        assert!(checked_lines(&[line(0, MAX_RETURN_QUANTITY + 1)], 3).is_err());
        assert!(checked_lines(&[line(0, MAX_RETURN_QUANTITY)], 3).is_ok());
        assert!(checked_lines(&[line(1, 1), line(1, 2)], 3).is_err(), "a line twice");
    }
}
