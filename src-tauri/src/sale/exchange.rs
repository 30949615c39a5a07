//! An exchange from a sale's receipt (issue #29, record 0123): the cashier rings the new
//! goods up on the register, opens the old sale's Return items and presses "Exchange
//! for the sale on the register". The goods come back as a return (same form, same
//! checks, same Refund permission and approval) and their worth pays the register's sale;
//! what is left is that sale's due (taken on the tender panel as usual) or one refund of
//! the difference. `exchange_target` says whether the register's sale can take a credit.

use paydesk_access::Action;
use paydesk_ledger::SaleState;
use paydesk_receipt::return_doc::render_return_text;
use paydesk_receipt::Paper;
use serde::Serialize;
use tauri::State;

use super::cancel::CancelLine;
use super::returns::{checked_lines, ReturnLineInput};
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::input::{required_reason, validate_cart};
use crate::money;
use crate::ops::{Locks, Operation};
use crate::staff::Approval;
use crate::state::AppState;

/// The register's sale an exchange would pay.
#[derive(Debug, Serialize)]
pub struct ExchangeTarget {
    pub cart: i64,
    pub total_display: String,
    pub open: i64,
    pub open_display: String,
}

#[derive(Debug, Serialize)]
pub struct ExchangeResult {
    pub exchange_id: i64,
    pub return_id: i64,
    pub number: String,
    pub total: i64,
    /// What of the goods' worth pays the register's sale.
    pub credit: i64,
    pub credit_display: String,
    /// What the register's sale still owes (taken on the tender panel).
    pub due: i64,
    pub due_display: String,
    /// The difference given back: card refunds (one line each) and cash from the drawer.
    pub lines: Vec<CancelLine>,
    pub cash_out: i64,
    pub cash_out_display: String,
    pub errors: Vec<String>,
    pub message: String,
    pub document: Vec<String>,
    pub next_print_reprint: bool,
}

/// The sale on the register when it can take an exchange's credit: it has goods, nothing
/// of an unknown outcome, no credit yet, and something left to pay.
#[tauri::command]
pub fn exchange_target(state: State<'_, AppState>) -> AppResult<Option<ExchangeTarget>> {
    let v = super::sale_now(&state, state.cart_id())?;
    let takes = match v.state {
        SaleState::Open | SaleState::PartiallyPaid => {
            !v.lines.is_empty() && v.exchange_credit.is_none() && v.unknown_tender.is_none() && v.open > 0
        }
        SaleState::Paid | SaleState::UnpaidBalance | SaleState::Canceling | SaleState::Canceled => false,
    };
    Ok(takes.then(|| ExchangeTarget {
        cart: v.cart_id,
        total_display: money::format(v.total, v.currency),
        open: v.open,
        open_display: money::format(v.open, v.currency),
    }))
}

/// Takes back `lines` of paid sale `cart` and puts their worth on the register's sale
/// `into` (the one the form showed: if the register moved on to another sale since, the
/// exchange is refused rather than paying a sale the cashier did not see).
#[tauri::command]
#[allow(clippy::too_many_arguments)] // the form's fields, as `return_lines` takes them, plus `into`
pub async fn exchange_lines(
    state: State<'_, AppState>,
    cart: i64,
    into: i64,
    lines: Vec<ReturnLineInput>,
    reason: String,
    approval: Option<Approval>,
    ryoshusho_taken_back: Option<bool>,
) -> AppResult<ExchangeResult> {
    let cart = validate_cart(cart)?;
    let into = validate_cart(into)?;
    let l = active();
    if into != state.cart_id() {
        return Err(AppError::InvalidInput(tr!(l, "exchange-target-changed")));
    }
    let form = state.engine().receipts().return_form(cart)?;
    let items = checked_lines(&lines, form.lines.len())?;
    let reason = required_reason(&reason)?;
    let op = Operation::new(Action::Refund, approval.as_ref()).approval_audited(format!("cart:{cart}"));
    let _pass = op.run(&state, Locks::Turn { seen: None }).await?;
    let engine = state.engine();
    let r = engine.exchange_lines(cart, &items, into, Some(&reason), ryoshusho_taken_back.unwrap_or(false)).await?;
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
    let (document, next_print_reprint) = match engine.receipts().return_document(r.record.id) {
        Ok(d) => (render_return_text(&d.document, Paper::Mm80), d.next_print_reprint),
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
