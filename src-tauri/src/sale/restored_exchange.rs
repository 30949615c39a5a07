//! An exchange of a sale restored from a replaced register, from the app (issue #29,
//! record 0153 addendum): the cashier rings the new goods up on the register, opens the
//! restored sale's Return items (Payments → Receipts, by the predecessor's receipt number)
//! and presses "Exchange for the sale on the register". The lines are checked exactly as
//! `return_restored_lines` checks them, with the same Refund permission (a cashier gets the
//! approval dialog; this command enforces it, not the screen); the engine's
//! `exchange_restored_lines` takes the goods back and puts their worth on the register's
//! sale in one ledger transaction. What is left is that sale's due (taken on the tender
//! panel as usual) or one refund of the difference: cards first on the predecessor's
//! payments, each under a new key, then cash out of this drawer. The answer is a normal
//! exchange's ([`ExchangeResult`]), so the screen shows it with the same `exchangeDone`.

use paydesk_access::Action;
use paydesk_ledger::CartId;
use paydesk_receipt::return_doc::render_return_text;
use paydesk_receipt::Paper;
use tauri::State;

use super::exchange::ExchangeResult;
use super::restored_returns::{checked_sale, checked_source};
use super::returns::{checked_lines, ReturnLineInput};
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::input::{required_reason, validate_cart};
use crate::money;
use crate::ops::{Locks, Operation};
use crate::staff::Approval;
use crate::state::AppState;

/// Takes back `lines` of restored sale `sale` of predecessor `source` and puts their worth
/// on the register's sale `into` (the one the form showed: if the register moved on to
/// another sale since, refused rather than paying a sale the cashier did not see).
#[tauri::command]
pub async fn exchange_restored_lines(
    state: State<'_, AppState>,
    source: String,
    sale: i64,
    into: i64,
    lines: Vec<ReturnLineInput>,
    reason: String,
    approval: Option<Approval>,
) -> AppResult<ExchangeResult> {
    let source = checked_source(&source)?.to_string();
    let sale = checked_sale(sale)?;
    let into: CartId = validate_cart(into)?;
    let l = active();
    if into != state.cart_id() {
        return Err(AppError::InvalidInput(tr!(l, "exchange-target-changed")));
    }
    // The sale's line count bounds the list before anything else is read or locked.
    let restored = state.engine().restored_sale(&source, sale)?;
    let items = checked_lines(&lines, restored.lines.len())?;
    let reason = required_reason(&reason)?;
    let op = Operation::new(Action::Refund, approval.as_ref()).approval_audited(format!("restored:{source}:{sale}"));
    // The register's turn: the credit pays the sale on the register, as a tender would.
    let _pass = op.run(&state, Locks::Turn { seen: None }).await?;
    let engine = state.engine();
    let r = engine.exchange_restored_lines(&source, sale, &items, into, Some(&reason)).await?;
    let cur = r.new_sale.currency;
    let (number, credit, due, cash) =
        (r.record.number.clone(), money::format(r.credit, cur), money::format(r.new_sale.due, cur), money::format(r.cash_out, cur));
    let message = if r.new_sale.due > 0 {
        tr!(l, "exchange-done-due", number = number.clone(), credit = credit.clone(), due = due.clone())
    } else if r.cash_out > 0 {
        tr!(l, "exchange-done-cash", number = number.clone(), credit = credit.clone(), cash = cash.clone())
    } else if r.card_refunds.is_empty() {
        tr!(l, "exchange-done-even", number = number.clone(), credit = credit.clone())
    } else {
        tr!(l, "exchange-done-card", number = number.clone(), credit = credit.clone())
    };
    // The return document names the predecessor's receipt number and register (record 0144).
    let (document, next_print_reprint) = match engine.restored_return_document(r.record.id) {
        Ok(d) => (render_return_text(&d, Paper::Mm80), d.reprint),
        Err(e) => (vec![e.to_string()], false),
    };
    Ok(ExchangeResult {
        exchange_id: r.exchange_id,
        return_id: r.record.id,
        number,
        total: r.record.total_minor,
        credit: r.credit,
        credit_display: credit,
        due: r.new_sale.due,
        due_display: due,
        lines: super::refund::refund_lines(&r.card_refunds),
        cash_out: r.cash_out,
        cash_out_display: cash,
        errors: r.errors,
        message,
        document,
        next_print_reprint,
    })
}
