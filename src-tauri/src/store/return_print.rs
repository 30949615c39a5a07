//! Printing a return's document (issue #29, record 0117): ESC/POS to the receipt printer
//! (`printer.json`), as a sale's receipt is printed (record 0061), and each print recorded
//! with the receipt's rule (record 0058): unmarked until a copy may have come out, then
//! 【再発行】/REPRINT on paper. The document never opens the drawer: the cash left it when
//! the return was recorded. A printer that is off changes nothing about the return.
//! A return of a sale restored from a replaced register (record 0144) prints the same way
//! (`print_restored_return`), its document naming that register, each print audited with the
//! SHA-256 of its text (record 0146).

use paydesk_ledger::{PrintOutcome, ReturnPrint};
use paydesk_receipt::return_doc::{render_return_escpos, render_return_text, ReturnDocument};
use paydesk_receipt::{Paper, Printer};
use paydesk_register::usecases::PrintRecord;
use paydesk_register::Engine;
use serde::Serialize;
use tauri::State;

use super::print::{validate_printer, PrinterConfig, PRINTING};
use super::receipt::receipt_error;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, id, t, tr};
use crate::state::AppState;

#[derive(Debug, Serialize)]
pub struct ReturnPrintResult {
    pub return_id: i64,
    pub print_no: i64,
    pub reprint: bool,
    pub message: String,
    /// The document as the next print will be (marked once a copy may have come out).
    pub document: Vec<String>,
    pub next_print_reprint: bool,
}

/// A return's id as the screen got it from us.
fn validate_return(id: i64) -> AppResult<i64> {
    if id <= 0 {
        return Err(AppError::InvalidInput(tr!(active(), "return-input-id")));
    }
    Ok(id)
}

/// Which return's document is printed. Exhaustive matches: a third kind of return must say
/// where its document comes from, how its prints are recorded and whether its text is kept.
#[derive(Debug, Clone, Copy)]
enum Which {
    /// A return made at this register (record 0117).
    Here,
    /// A return of a sale restored from a replaced register (record 0144).
    Restored,
}

impl Which {
    /// The document as the next print will be, and whether that print is a reprint.
    fn document(self, engine: &Engine, return_id: i64) -> AppResult<(ReturnDocument, bool)> {
        match self {
            Which::Here => {
                let source = engine.receipts().return_document(return_id).map_err(receipt_error)?;
                Ok((source.document, source.next_print_reprint))
            }
            Which::Restored => {
                let document = engine.restored_return_document(return_id)?;
                let reprint = document.reprint;
                Ok((document, reprint))
            }
        }
    }

    fn record(self, engine: &Engine, return_id: i64, print: PrintRecord<'_>) -> AppResult<ReturnPrint> {
        match self {
            Which::Here => Ok(engine.receipts().record_return_print(return_id, print)?),
            Which::Restored => Ok(engine.record_restored_return_print(return_id, print)?),
        }
    }

    /// A restored return's prints are audited with the SHA-256 of their text (record 0146:
    /// it stands in for a receipt the predecessor can no longer print); a return made here
    /// is not a sale's receipt, so its text is not kept.
    fn keeps_text(self) -> bool {
        match self {
            Which::Here => false,
            Which::Restored => true,
        }
    }
}

/// Prints return `return_id`'s document: the original until a copy may have come out,
/// then a reprint (marked on paper).
#[tauri::command]
pub async fn print_return(state: State<'_, AppState>, return_id: i64) -> AppResult<ReturnPrintResult> {
    print_document(&state, Which::Here, return_id).await
}

/// Prints the document of restored return `return_id` (record 0144): as `print_return`, with
/// the predecessor's receipt number, date and "from register NAME"; the original until a copy
/// may have come out, then a reprint; each print recorded with its text (audited, record 0146).
#[tauri::command]
pub async fn print_restored_return(state: State<'_, AppState>, return_id: i64) -> AppResult<ReturnPrintResult> {
    print_document(&state, Which::Restored, return_id).await
}

async fn print_document(state: &AppState, which: Which, return_id: i64) -> AppResult<ReturnPrintResult> {
    let return_id = validate_return(return_id)?;
    let target = PrinterConfig::load(&state.stored.data_dir)?.printer;
    let target = validate_printer(&target)?.ok_or(AppError::PrinterNotSet)?;
    // One print at a time (receipts included): two presses must not both be the original.
    let _one = PRINTING.lock().await;
    let engine = state.engine();
    let (document, _) = which.document(&engine, return_id)?;
    let text = which.keeps_text().then(|| render_return_text(&document, Paper::Mm80).join("\n"));
    let bytes = render_return_escpos(&document, Paper::Mm80);
    let printer = Printer::new(target.clone());
    let sent = tauri::async_runtime::spawn_blocking(move || printer.send(&bytes))
        .await
        .map_err(|e| AppError::Internal(tr!(active(), "internal-print-job", error = e.to_string())))?;
    let (outcome, error) = match &sent {
        Ok(()) => (PrintOutcome::Printed, None),
        Err(e) => (PrintOutcome::Failed { may_have_printed: e.may_have_printed() }, Some(e.to_string())),
    };
    let shown = target.to_string();
    let print = PrintRecord { format: "escpos", target: &shown, outcome, error: error.as_deref(), text: text.as_deref() };
    let rec = which.record(&engine, return_id, print)?;
    let (next, next_print_reprint) = which.document(&engine, return_id)?;
    match sent {
        Ok(()) => Ok(ReturnPrintResult {
            return_id,
            print_no: rec.print_no,
            reprint: rec.reprint,
            message: if rec.reprint { t(id!("return-print-sent-reprint")) } else { t(id!("return-print-sent")) },
            document: render_return_text(&next, Paper::Mm80),
            next_print_reprint,
        }),
        // Says what the next press gives: the original again, or a reprint.
        Err(e) if next_print_reprint => {
            Err(AppError::PrinterUnreachable(tr!(active(), "return-print-unreachable-reprint", target = shown, why = e.to_string())))
        }
        Err(e) => Err(AppError::PrinterUnreachable(tr!(active(), "return-print-unreachable", target = shown, why = e.to_string()))),
    }
}
