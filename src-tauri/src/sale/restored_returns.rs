//! A return of a sale restored from a replaced register, from the app (issue #29, record
//! 0144): Payments → Receipts finds a receipt number no local paid sale has in a
//! predecessor's history (`find_restored_receipt`), the restored payments list opens a
//! sale's Return items; `restored_return_form` reads its lines with what is left of each
//! (the predecessor's returns and this register's counted), `return_restored_lines` checks
//! the lines typed exactly as `return_lines`, needs the Refund permission (a cashier gets
//! the approval dialog; this command enforces it, not the screen) and has the engine take
//! them back: cards first under new keys, the rest in cash out of this register's drawer.

use paydesk_access::Action;
use serde::Serialize;
use tauri::State;

use super::returns::{checked_lines, ReturnLineInput, ReturnResult};
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::input::required_reason;
use crate::money;
use crate::ops::{Locks, Operation};
use crate::staff::Approval;
use crate::state::AppState;

/// The most characters of a predecessor's register id (the back office's text limit).
const MAX_SOURCE_CHARS: usize = paydesk_sync::MAX_TEXT_LEN;

/// One line of a restored sale with what is left of it.
#[derive(Debug, Serialize)]
pub struct RestoredFormLine {
    pub line: usize,
    pub name: String,
    pub sold: u32,
    /// Returned so far: the predecessor's returns and this register's.
    pub returned: u32,
}

/// A restored sale's Return items form.
#[derive(Debug, Serialize)]
pub struct RestoredReturnForm {
    pub source: String,
    /// The predecessor's name, as the back office gave it ("from register NAME").
    pub register_name: String,
    pub sale: i64,
    pub receipt_no: String,
    pub completed_at_ms: i64,
    pub total_display: String,
    pub lines: Vec<RestoredFormLine>,
}

/// Where a restored receipt number was found.
#[derive(Debug, Serialize)]
pub struct RestoredSaleRef {
    pub source: String,
    pub sale: i64,
}

/// The predecessor's id as the screen sent it: trimmed, 1 to the back office's limit,
/// no control characters (which predecessor it is, the ledger decides).
pub(super) fn checked_source(source: &str) -> AppResult<&str> {
    let s = source.trim();
    if s.is_empty() || s.chars().count() > MAX_SOURCE_CHARS || s.chars().any(char::is_control) {
        return Err(AppError::InvalidInput(tr!(active(), "restored-input-source", max = MAX_SOURCE_CHARS)));
    }
    Ok(s)
}

pub(super) fn checked_sale(sale: i64) -> AppResult<i64> {
    if sale <= 0 {
        return Err(AppError::InvalidInput(tr!(active(), "input-sale-number")));
    }
    Ok(sale)
}

/// The predecessor's name (its id when the list does not have it).
fn register_name(state: &AppState, source: &str) -> AppResult<String> {
    let sources = state.engine().payments().restore_sources()?;
    Ok(sources.into_iter().find(|s| s.register_id == source).map_or_else(|| source.to_string(), |s| s.register_name))
}

/// A receipt number (1 to 20 digits) that a predecessor's completed sale has: which
/// predecessor and sale. Refused with `unknown_restored_sale` when none has it,
/// `ambiguous_restored_receipt` when two have.
#[tauri::command]
pub fn find_restored_receipt(state: State<'_, AppState>, number: String) -> AppResult<RestoredSaleRef> {
    let n = super::returns::checked_receipt_no(&number)?;
    let (source, sale) = state.engine().restored_by_receipt(n, None)?;
    Ok(RestoredSaleRef { source, sale })
}

/// Restored sale `sale` of predecessor `source`: its lines with what is left of each.
#[tauri::command]
pub fn restored_return_form(state: State<'_, AppState>, source: String, sale: i64) -> AppResult<RestoredReturnForm> {
    let source = checked_source(&source)?;
    let sale = checked_sale(sale)?;
    let s = state.engine().restored_sale(source, sale)?;
    let lines = s
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| RestoredFormLine { line: i, name: l.name.clone(), sold: l.quantity, returned: s.returned.get(i).copied().unwrap_or(0) })
        .collect();
    Ok(RestoredReturnForm {
        register_name: register_name(&state, source)?,
        source: s.source.clone(),
        sale: s.sale_id,
        receipt_no: s.receipt_no.clone(),
        completed_at_ms: s.completed_at_ms,
        total_display: money::format(s.total_minor, s.currency),
        lines,
    })
}

/// Takes back `lines` of restored sale `sale` of predecessor `source` for `reason`. A
/// manager's call, as any refund (record 0062): the Refund permission, checked here.
#[tauri::command]
pub async fn return_restored_lines(
    state: State<'_, AppState>,
    source: String,
    sale: i64,
    lines: Vec<ReturnLineInput>,
    reason: String,
    approval: Option<Approval>,
) -> AppResult<ReturnResult> {
    let source = checked_source(&source)?.to_string();
    let sale = checked_sale(sale)?;
    // The sale's line count bounds the list before anything else is read or locked.
    let restored = state.engine().restored_sale(&source, sale)?;
    let items = checked_lines(&lines, restored.lines.len())?;
    let reason = required_reason(&reason)?;
    let op = Operation::new(Action::Refund, approval.as_ref()).approval_audited(format!("restored:{source}:{sale}"));
    let _pass = op.run(&state, Locks::Engine).await?;
    let r = state.engine().return_restored(&source, sale, &items, Some(&reason)).await?;
    let number = r.record.number.clone();
    let cash = money::format(r.cash_out, r.record.currency);
    let l = active();
    let message = if r.cash_out > 0 {
        tr!(l, "return-done-cash", number = number.clone(), cash = cash.clone())
    } else if r.record.total_minor > 0 {
        tr!(l, "return-done-card", number = number.clone())
    } else {
        tr!(l, "return-done-nothing", number = number.clone())
    };
    Ok(ReturnResult {
        return_id: r.record.id,
        number,
        lines: super::refund::refund_lines(&r.card_refunds),
        cash_out: r.cash_out,
        cash_out_display: cash,
        total: r.record.total_minor,
        errors: r.errors,
        message,
        document: r.document,
        // Just recorded: nothing printed yet, so the first print is the original.
        next_print_reprint: false,
        // The predecessor's 領収書 does not travel in its facts (record 0144): nothing to reissue.
        ryoshusho_kept: None,
    })
}
