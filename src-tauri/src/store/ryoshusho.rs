//! The ryōshūsho (領収書) at the counter (issue #29, record 0112): `issue_ryoshusho` checks
//! what the cashier typed, needs the Sell permission, has the engine record it (one per
//! sale: a second issue is a reprint of the first, another addressee is refused) and
//! prints it to the configured printer if there is one. The document is recorded before
//! it is printed and whatever the printer does: the answer says whether it printed, and
//! issuing again reprints it. The screen gets the 80 mm text rows (drawn as text nodes).
//! With `kept: true` (record 0145) it issues a NEW ryōshūsho for what the customer kept
//! after a return, in place of the one handed back; the same permission, the same checks.

use paydesk_access::Action;
use paydesk_receipt::ryoshusho::{render_ryoshusho_escpos, render_ryoshusho_text, Ryoshusho};
use paydesk_receipt::{Paper, Printer, MAX_TEXT_CHARS};
use paydesk_register::usecases::{RyoshushoAsk, RyoshushoError};
use serde::Serialize;
use tauri::State;

use super::print::{validate_printer, PrinterConfig, PRINTING};
use super::receipt::{receipt_build_error, receipt_error};
use crate::error::{AppError, AppResult};
use crate::i18n::{active, id, t, tr};
use crate::input::validate_cart;
use crate::ops::Operation;
use crate::state::AppState;

/// What the screen shows after an issue.
#[derive(Debug, Serialize)]
pub struct RyoshushoView {
    pub cart_id: i64,
    pub number: String,
    pub reprint: bool,
    pub print_count: i64,
    /// The duty of the stamp box on it, if it has one.
    pub stamp_duty: Option<i64>,
    /// As printed on 80 mm paper (48 columns).
    pub text: Vec<String>,
    /// Whether a printer took it (false: none is set, or it failed; `message` says which).
    pub printed: bool,
    pub message: String,
}

/// The two texts the cashier types.
#[derive(Debug, Clone, Copy)]
enum Field {
    /// May be empty: a line for the pen.
    Addressee,
    /// Not empty.
    Description,
}

/// An addressee or a description: at most what a receipt line holds, no control
/// character (it would reach the printer as a command). Trimmed.
fn checked_text(text: &str, field: Field) -> AppResult<String> {
    let text = text.trim();
    let empty_ok = match field {
        Field::Addressee => true,
        Field::Description => false,
    };
    let bad = (!empty_ok && text.is_empty()) || text.chars().count() > MAX_TEXT_CHARS || text.chars().any(char::is_control);
    if !bad {
        return Ok(text.to_string());
    }
    Err(AppError::InvalidInput(match field {
        Field::Addressee => tr!(active(), "ryoshusho-screen-addressee-bad", max = MAX_TEXT_CHARS),
        Field::Description => tr!(active(), "ryoshusho-screen-description-bad", max = MAX_TEXT_CHARS),
    }))
}

/// Why the engine issued nothing, in the cashier's words.
fn refused(e: RyoshushoError) -> AppError {
    use paydesk_ledger::Error as L;
    match e {
        RyoshushoError::Document(d) => receipt_build_error(d),
        RyoshushoError::Ledger(L::RyoshushoDiffers { number, .. }) => AppError::InvalidInput(tr!(active(), "ryoshusho-screen-differs", number = number)),
        RyoshushoError::Ledger(L::RyoshushoUnpaid { .. }) => AppError::ReceiptUnavailable(t(id!("ryoshusho-screen-unpaid"))),
        RyoshushoError::Ledger(L::RyoshushoReissueRefused { why, .. }) => AppError::InvalidInput(reissue_refused(&why)),
        RyoshushoError::Ledger(other) => receipt_error(other),
    }
}

/// Why no new ryōshūsho for what was kept (record 0145), in the cashier's words.
fn reissue_refused(why: &paydesk_ledger::ReissueRefusal) -> String {
    use paydesk_ledger::ReissueRefusal as R;
    match why {
        R::NoneIssued => t(id!("ryoshusho-screen-kept-none-issued")),
        R::StillValid { number } => tr!(active(), "ryoshusho-screen-kept-still-valid", number = number.clone()),
        R::NoReturn | R::NothingKept => t(id!("ryoshusho-screen-kept-nothing")),
        R::KeptNotStated { .. } => t(id!("ryoshusho-screen-kept-not-stated")),
    }
}

/// Sends the document to the configured printer; `Ok(None)` when none is set. A printer
/// that fails is said in words, never an error: the document is recorded already.
async fn print(state: &AppState, doc: &Ryoshusho) -> AppResult<(bool, String)> {
    let target = PrinterConfig::load(&state.stored.data_dir)?.printer;
    let Some(target) = validate_printer(&target)? else {
        return Ok((false, t(id!("ryoshusho-screen-no-printer"))));
    };
    let bytes = render_ryoshusho_escpos(doc, Paper::Mm80);
    let printer = Printer::new(target.clone());
    let sent = tauri::async_runtime::spawn_blocking(move || printer.send(&bytes))
        .await
        .map_err(|e| AppError::Internal(tr!(active(), "internal-print-job", error = e.to_string())))?;
    Ok(match sent {
        Ok(()) => (true, t(id!("ryoshusho-screen-printed"))),
        Err(e) => (false, tr!(active(), "ryoshusho-screen-print-failed", target = target.to_string(), why = e.to_string())),
    })
}

/// Issues (or reprints) the ryōshūsho of paid sale `cart` to `addressee` for
/// `description`, and prints it when a printer is set. `kept`: a new one for what the
/// customer kept after a return, in place of the one handed back (record 0145).
#[tauri::command]
pub async fn issue_ryoshusho(
    state: State<'_, AppState>,
    cart: i64,
    addressee: String,
    description: String,
    approval: Option<crate::staff::Approval>,
    kept: Option<bool>,
) -> AppResult<RyoshushoView> {
    let cart = validate_cart(cart)?;
    let addressee = checked_text(&addressee, Field::Addressee)?;
    let description = checked_text(&description, Field::Description)?;
    let granted = Operation::new(Action::Sell, approval.as_ref()).approval_audited(format!("ryoshusho sale {}", cart.0)).permit(&state)?;
    // One print at a time, as receipts: two presses give one original and one reprint,
    // in that order on paper.
    let _one = PRINTING.lock().await;
    let ask = RyoshushoAsk { addressee: &addressee, description: &description, issued_by: granted.actor_id() };
    let engine = state.engine();
    let receipts = engine.receipts();
    let issued = if kept.unwrap_or(false) { receipts.reissue_ryoshusho(cart, ask) } else { receipts.issue_ryoshusho(cart, ask) };
    let issued = issued.map_err(refused)?;
    let (printed, printing) = print(&state, &issued.document).await?;
    let number = issued.record.number.clone();
    let done = if issued.reprint {
        tr!(active(), "ryoshusho-screen-reissued", number = number)
    } else {
        tr!(active(), "ryoshusho-screen-issued", number = number)
    };
    Ok(RyoshushoView {
        cart_id: cart.0,
        number: issued.record.number,
        reprint: issued.reprint,
        print_count: issued.record.print_count,
        stamp_duty: issued.document.stamp.map(|s| s.duty_minor),
        text: render_ryoshusho_text(&issued.document, Paper::Mm80),
        printed,
        message: format!("{done} {printing}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_words_are_checked_before_anything_runs() {
        assert_eq!(checked_text("  株式会社ペイデスク ", Field::Addressee).unwrap(), "株式会社ペイデスク");
        assert_eq!(checked_text("", Field::Addressee).unwrap(), "");
        let long = "長".repeat(MAX_TEXT_CHARS + 1);
        for (text, field) in [("", Field::Description), ("  ", Field::Description), ("a\u{1b}b", Field::Addressee), ("a\nb", Field::Description), (long.as_str(), Field::Addressee)] {
            let e = checked_text(text, field).unwrap_err();
            assert!(matches!(e, AppError::InvalidInput(_)), "{text:?}: {e:?}");
        }
        assert!(checked_text(&"長".repeat(MAX_TEXT_CHARS), Field::Description).is_ok());
    }
}
