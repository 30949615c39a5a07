//! "No sale" (record 0127): the cash drawer opened without a sale, behind
//! `Action::OpenDrawerNoSale` (a manager's, or a cashier with a manager's approval). The
//! drawer opens the way a cash sale's receipt opens it, by the ESC/POS kick sent to the
//! receipt printer it hangs from. Every press is audited with who and what happened —
//! kicked, no printer set, or the printer did not take it — so the owner can count
//! the drawer's openings even when the register could not open it itself.

use paydesk_access::Action;
use paydesk_ledger::AuditInput;
use paydesk_receipt::escpos::DRAWER_KICK;
use paydesk_receipt::Printer;
use serde::Serialize;
use tauri::State;

use crate::staff::Approval;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, id, t, tr};
use crate::ops::Operation;
use crate::state::AppState;
use crate::store::print::{validate_printer, PrinterConfig, PRINTING};

/// What a "No sale" press did, as the screen says it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoSale {
    /// The kick reached the printer (the drawer should be open).
    pub kicked: bool,
    pub message: String,
}

#[tauri::command]
pub async fn open_drawer_no_sale(state: State<'_, AppState>, approval: Option<Approval>) -> AppResult<NoSale> {
    let granted = Operation::new(Action::OpenDrawerNoSale, approval.as_ref()).permit(&state)?;
    let target = validate_printer(&PrinterConfig::load(&state.stored.data_dir)?.printer)?;
    let outcome = match &target {
        None => Err(None),
        Some(target) => {
            // One job at a time on the printer: a kick never lands inside a receipt.
            let _one = PRINTING.lock().await;
            let printer = Printer::new(target.clone());
            let sent = tauri::async_runtime::spawn_blocking(move || printer.send(&DRAWER_KICK))
                .await
                .map_err(|e| AppError::Internal(tr!(active(), "internal-print-job", error = e.to_string())))?;
            sent.map_err(|e| Some(e.to_string()))
        }
    };
    let shown = target.as_ref().map(|t| t.to_string());
    let what = match &outcome {
        Ok(()) => "kicked",
        Err(None) => "no_printer",
        Err(Some(_)) => "printer_failed",
    };
    let after = serde_json::json!({ "outcome": what, "printer": shown, "error": outcome.as_ref().err().cloned().flatten() });
    let input = AuditInput {
        actor_id: granted.actor_id(),
        approver_id: granted.approver_id(),
        after: Some(after.to_string()),
        ..AuditInput::new("drawer_no_sale", "drawer")
    };
    state.engine().audit().record(&input)?;
    match outcome {
        Ok(()) => Ok(NoSale { kicked: true, message: t(id!("no-sale-opened")) }),
        Err(None) => Ok(NoSale { kicked: false, message: t(id!("no-sale-no-printer")) }),
        Err(Some(why)) => Err(AppError::PrinterUnreachable(tr!(
            active(),
            "no-sale-printer-failed",
            target = shown.unwrap_or_default(),
            why = why
        ))),
    }
}
