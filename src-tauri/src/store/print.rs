//! Printing a paid sale's receipt (record 0061, 0058): ESC/POS over TCP 9100 (or a
//! device file) to the printer named in `<data dir>/printer.json`. Printing runs after
//! the sale is committed and only records its outcome (`receipt_prints`): a printer that
//! is off gives the cashier `printer_unreachable` and the sale stays paid. The ledger's
//! rule (record 0058): a receipt is the original — unmarked, opening a cash sale's
//! drawer — until a copy may have come out; a retry after a printer that was off is
//! still the original, a retry after one that stopped part-way and every later print are
//! marked REPRINT / 再発行 and never open the drawer.

use std::path::Path;

use paydesk_receipt::{build_receipt, Paper, PrintJob, Printer, PrinterTarget};
use serde::{Deserialize, Serialize};
use paydesk_ledger::PrintOutcome;
use paydesk_register::usecases::PrintRecord;
use tauri::State;

use crate::i18n::{active, id, t, tr};

use super::receipt::{printable, receipt_build_error, receipt_error};
use crate::input::validate_cart;
use crate::error::{AppError, AppResult};
use crate::ops::Operation;
use crate::state::AppState;

/// One print at a time: two presses must not both be "the first print".
pub(crate) static PRINTING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const PRINTER_FILE: &str = "printer.json";
/// Longest printer address typed.
const MAX_TARGET_CHARS: usize = 255;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PrinterConfig {
    /// "host:port" (port 9100 by default) or a device path; empty: no printer.
    #[serde(default)]
    pub printer: String,
}

/// Parses a printer address as typed; `Ok(None)` for none.
pub fn validate_printer(text: &str) -> AppResult<Option<PrinterTarget>> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    if t.chars().count() > MAX_TARGET_CHARS || t.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(AppError::InvalidPrinter(tr!(active(), "input-printer-address-long", max = MAX_TARGET_CHARS)));
    }
    let target: PrinterTarget =
        t.parse().map_err(|e: paydesk_receipt::PrintError| AppError::InvalidPrinter(tr!(active(), "input-printer-address-bad", detail = e.to_string())))?;
    if let PrinterTarget::Tcp { host, .. } = &target {
        let ok = !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
        if !ok {
            return Err(AppError::InvalidPrinter(tr!(active(), "input-printer-host-bad", host = host.clone())));
        }
    }
    Ok(Some(target))
}

impl PrinterConfig {
    pub fn load(data_dir: &Path) -> AppResult<PrinterConfig> {
        match std::fs::read(data_dir.join(PRINTER_FILE)) {
            Ok(b) => serde_json::from_slice(&b)
                .map_err(|e| AppError::Internal(tr!(active(), "internal-printer-file", file = PRINTER_FILE, error = e.to_string()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(PrinterConfig::default()),
            Err(e) => Err(e.into()),
        }
    }

    fn save(&self, data_dir: &Path) -> AppResult<()> {
        let tmp = data_dir.join(format!("{PRINTER_FILE}.tmp"));
        std::fs::write(&tmp, serde_json::to_vec_pretty(self).map_err(|e| AppError::Internal(tr!(active(), "internal-printer-file", file = PRINTER_FILE, error = e.to_string())))?)?;
        std::fs::rename(tmp, data_dir.join(PRINTER_FILE))?;
        Ok(())
    }
}

#[tauri::command]
pub fn save_printer(
    state: State<'_, AppState>,
    printer: String,
    confirm_port: Option<bool>,
    approval: Option<crate::staff::Approval>,
) -> AppResult<PrinterConfig> {
    let target = validate_printer(&printer)?;
    // Another port than a printer's is more likely a typo or another machine's service
    // (record 0061): the screen asks, and sends `confirm_port` once the owner says yes.
    if let Some(port) = target.as_ref().and_then(|t| t.unusual_port()) {
        if confirm_port != Some(true) {
            return Err(AppError::PrinterPortUnconfirmed { port });
        }
    }
    let action = paydesk_access::Action::Settings;
    let granted = Operation::new(action, approval.as_ref()).approval_audited("printer").permit(&state)?;
    let cfg = PrinterConfig { printer: target.map(|t| t.to_string()).unwrap_or_default() };
    // Where receipts (and the drawer kick) go is the owner's to answer for: who changed
    // it, from what to what, in the audit chain (an unreadable old file is "unknown").
    let old = PrinterConfig::load(&state.stored.data_dir).map(|c| c.printer).unwrap_or_else(|_| "unknown".into());
    cfg.save(&state.stored.data_dir)?;
    if old != cfg.printer {
        let named = |p: &str| if p.is_empty() { "none".to_string() } else { p.to_string() };
        let doc = |p: &str| serde_json::json!({ "printer": p }).to_string();
        let input = paydesk_ledger::AuditInput {
            actor_id: granted.actor_id(),
            approver_id: granted.approver_id(),
            before: Some(doc(&old)),
            after: Some(doc(&cfg.printer)),
            // The Audit screen shows the subject: both targets are read there.
            ..paydesk_ledger::AuditInput::new("printer_changed", &format!("printer {} → {}", named(&old), named(&cfg.printer)))
        };
        state.engine().audit().record(&input)?;
    }
    Ok(cfg)
}

#[derive(Debug, Serialize)]
pub struct PrintResult {
    pub cart_id: i64,
    pub print_no: i64,
    pub reprint: bool,
    pub target: String,
    pub message: String,
}

/// Prints the receipt of paid sale `cart`: the original until a copy may have come out,
/// then a reprint (the ledger's rule, record 0058).
#[tauri::command]
pub async fn print_receipt(state: State<'_, AppState>, cart: i64) -> AppResult<PrintResult> {
    let cart = validate_cart(cart)?;
    let target = PrinterConfig::load(&state.stored.data_dir)?.printer;
    let target = validate_printer(&target)?.ok_or(AppError::PrinterNotSet)?;
    let _one = PRINTING.lock().await;
    let engine = state.engine();
    let register_no = Some(state.stored.settings().register_number);
    let receipt = engine
        .receipts()
        .source(cart)
        .map(|s| build_receipt(&paydesk_receipt::SaleData { register_no, ..printable(s.data) }, &s.tax, s.next_print_reprint));
    let receipt = receipt.map_err(receipt_error)?.map_err(receipt_build_error)?;
    let job = PrintJob::new(format!("sale-{}", cart.0), receipt, Paper::Mm80);
    let printer = Printer::new(target.clone());
    let sent = {
        let job = job.clone();
        tauri::async_runtime::spawn_blocking(move || printer.print(&job))
            .await
            .map_err(|e| AppError::Internal(tr!(active(), "internal-print-job", error = e.to_string())))?
    };
    let (outcome, error) = match &sent {
        Ok(()) => (PrintOutcome::Printed, None),
        // A printer that was off printed nothing: the next try is still the original
        // (record 0058); one that stopped part-way may have, so the next is a reprint.
        Err(e) => (PrintOutcome::Failed { may_have_printed: e.may_have_printed() }, Some(e.to_string())),
    };
    let shown = target.to_string();
    let text = job.text();
    let print = PrintRecord { format: "escpos", target: &shown, outcome, error: error.as_deref(), text: Some(&text) };
    let rec = engine.receipts().record_print(cart, print)?;
    match sent {
        Ok(()) => Ok(PrintResult {
            cart_id: cart.0,
            print_no: rec.print_no,
            reprint: rec.reprint,
            target: rec.target,
            message: if rec.reprint { t(id!("print-sent-reprint")) } else { t(id!("print-sent")) },
        }),
        // Says what the next press gives: the original again, or a reprint.
        Err(e) if rec.reprint || rec.paper => {
            Err(AppError::PrinterUnreachable(tr!(active(), "print-unreachable-reprint", target = target.to_string(), why = e.to_string())))
        }
        Err(e) => Err(AppError::PrinterUnreachable(tr!(active(), "print-unreachable", target = target.to_string(), why = e.to_string()))),
    }
}
