//! Cash: the amount handed over as typed, the change, one ledger transaction
//! (record 0030). No network, so it answers at once.

use serde::Serialize;
use paydesk_access::Action;
use tauri::State;

use super::screen;
use crate::input::{parse_amount, Amount};
use crate::ops::{Locks, Operation};
use crate::input::validate_reason;
use crate::error::AppResult;
use crate::i18n::{active, tr};
use crate::money;
use crate::state::AppState;
use crate::views::SaleScreen;

#[derive(Debug, Serialize)]
pub struct CashResult {
    pub tendered: i64,
    pub tendered_display: String,
    /// Give this back to the customer.
    pub change: i64,
    pub change_display: String,
    /// What this cash paid of the sale.
    pub amount_display: String,
    pub message: String,
    pub sale: SaleScreen,
}

/// Takes cash (`tendered` as typed, e.g. "20" or "20.00"). Refused with `sale_changed`
/// when the sale no longer has `seen_tenders` tenders (a second press), with
/// `tender_unknown_outstanding` while a card's outcome is unknown unless a reason is
/// given.
#[tauri::command]
pub async fn pay_cash(
    state: State<'_, AppState>,
    tendered: String,
    seen_tenders: u32,
    override_reason: Option<String>,
    approval: Option<crate::staff::Approval>,
) -> AppResult<CashResult> {
    let tendered = parse_amount(&tendered, state.currency, Amount::Cash)?;
    let reason = validate_reason(override_reason)?;
    // A reason is sent only to tender past a card whose outcome is unknown: a manager's call.
    let action = if reason.is_some() { Action::OverrideUnknownOutcome } else { Action::Sell };
    let op = Operation::new(action, approval.as_ref()).approval_audited("tender");
    let pass = op.run(&state, Locks::Turn { seen: Some(seen_tenders) }).await?;
    let cart = pass.cart().expect("a tender turn names its sale");
    super::discount::check_first_tender(&state, cart, approval.as_ref())?;
    let r = state.engine().pay_cash(cart, tendered, reason.as_deref())?;
    let cur = r.sale.currency;
    let sale = screen(&state, &r.sale);
    let amount = r.tender.amount.amount_minor;
    let message = match (sale.complete, r.change > 0) {
        (true, true) => tr!(active(), "tender-cash-change", amount = money::format(r.change, cur)),
        (true, false) => tr!(active(), "tender-cash-exact"),
        (false, _) => tr!(active(), "tender-cash-took", amount = money::format(amount, cur), due = sale.due_display.clone()),
    };
    Ok(CashResult {
        tendered: r.tendered,
        tendered_display: money::format(r.tendered, cur),
        change: r.change,
        change_display: money::format(r.change, cur),
        amount_display: money::format(amount, cur),
        message,
        sale,
    })
}
