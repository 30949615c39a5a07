//! An X or a Z report on the store's receipt printer (the one in `printer.json`), one
//! print at a time with the receipts. A report never opens the drawer; a printer that is
//! off gives `printer_unreachable` and changes nothing (the Z stays as it was written).

use paydesk_access::Action;
use paydesk_receipt::shift::{build_drawer_report, render_report_escpos};
use paydesk_receipt::{Paper, Printer};
use serde::Serialize;
use tauri::State;

use super::report::{register_name, x_data, z_data};
use crate::staff::Approval;
use crate::backoffice::BackOfficeState;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, t, tr};
use crate::state::AppState;
use crate::store::print::{validate_printer, PrinterConfig, PRINTING};

#[derive(Debug, Serialize)]
pub struct ReportPrinted {
    pub target: String,
    pub message: String,
}

/// Prints the open shift's X report (`kind` "x") or Z report `number` (`kind` "z").
#[tauri::command]
pub async fn print_shift_report(
    state: State<'_, AppState>,
    bo: State<'_, BackOfficeState>,
    kind: String,
    number: Option<i64>,
    approval: Option<Approval>,
) -> AppResult<ReportPrinted> {
    let target = PrinterConfig::load(&state.stored.data_dir)?.printer;
    let target = validate_printer(&target)?.ok_or(AppError::PrinterNotSet)?;
    let register = register_name(&bo);
    let engine = state.engine();
    let data = match (kind.as_str(), number) {
        ("x", None) => {
            let who = super::actor(&state, Action::XReport, approval.as_ref())?;
            x_data(&engine, who, &register)?
        }
        ("z", Some(n)) => z_data(&engine, n, &register)?,
        _ => return Err(AppError::InvalidInput(t(crate::i18n::id!("input-report-kind")))),
    };
    let report = build_drawer_report(&data).map_err(|e| AppError::ReceiptUnavailable(e.to_string()))?;
    let bytes = render_report_escpos(&report, Paper::Mm80);
    let _one = PRINTING.lock().await;
    let printer = Printer::new(target.clone());
    tauri::async_runtime::spawn_blocking(move || printer.send(&bytes))
        .await
        .map_err(|e| AppError::Internal(tr!(active(), "internal-report-print-job", error = e.to_string())))?
        .map_err(|e| AppError::PrinterUnreachable(tr!(active(), "shift-print-unreachable", target = target.to_string(), why = e.to_string())))?;
    Ok(ReportPrinted { target: target.to_string(), message: t(crate::i18n::id!("shift-print-sent")) })
}
