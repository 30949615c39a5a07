//! A card tender: part or all of what the sale still needs, its own checkout key,
//! driven like any checkout (record 0028). A decline keeps the earlier tenders.

use paydesk_ledger::CheckoutOptions;
use paydesk_register::CheckoutOutcome;
use serde::Serialize;
use paydesk_access::Action;
use tauri::State;

use super::screen;
use crate::input::{parse_amount, Amount};
use crate::ops::{Locks, Operation};
use crate::input::{keyed_test_card, validate_reason};
use crate::error::AppResult;
use crate::i18n::{active, tr};
use crate::money;
use crate::state::AppState;
use crate::views::SaleScreen;

#[derive(Debug, Serialize)]
pub struct CardResult {
    /// `paid` | `authorized` | `declined` | `failed` | `pending` | `queued_offline` |
    /// `canceled` | `refunded`
    pub outcome: CheckoutOutcome,
    pub checkout_key: String,
    pub amount: i64,
    pub amount_display: String,
    pub message: String,
    pub sale: SaleScreen,
}

/// Charges `amount` (as typed; everything open when empty) to a test card. Refused
/// with `sale_changed` when the sale no longer has `seen_tenders` tenders. Pressed
/// again while this card's outcome is unknown (same amount, same `seen_tenders`) it
/// drives the same key; another tender meanwhile needs `override_reason`.
#[tauri::command]
pub async fn pay_card(
    state: State<'_, AppState>,
    amount: Option<String>,
    payment_method: String,
    seen_tenders: u32,
    override_reason: Option<String>,
    approval: Option<crate::staff::Approval>,
) -> AppResult<CardResult> {
    let amount = match amount.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(t) => Some(parse_amount(t, state.currency, Amount::Card)?),
    };
    let pm = keyed_test_card(&state, &payment_method)?;
    let reason = validate_reason(override_reason)?;
    // A reason is sent only to tender past a card whose outcome is unknown: a manager's call.
    let action = if reason.is_some() { Action::OverrideUnknownOutcome } else { Action::Sell };
    let op = Operation::new(action, approval.as_ref()).approval_audited("tender");
    let pass = op.run(&state, Locks::Turn { seen: Some(seen_tenders) }).await?;
    let cart = pass.cart().expect("a tender turn names its sale");
    super::discount::check_first_tender(&state, cart, approval.as_ref())?;
    let r = state.engine().charge_card_tender(cart, amount, CheckoutOptions::card(pm), reason.as_deref()).await?;
    let c = &r.checkout;
    let sale = screen(&state, &r.sale);
    let shown = money::format(c.amount, c.currency);
    let why = crate::views::reason_with_detail(c);
    let due = sale.due_display.clone();
    let l = active();
    let message = match c.outcome {
        CheckoutOutcome::Paid if sale.complete => tr!(l, "tender-card-paid", amount = shown.clone()),
        CheckoutOutcome::Paid | CheckoutOutcome::Authorized => tr!(l, "tender-card-took", amount = shown.clone(), due = due.clone()),
        CheckoutOutcome::QueuedOffline => tr!(l, "tender-card-offline", amount = shown.clone()),
        // the panel shows what is still due right under these, in large type
        CheckoutOutcome::Declined => tr!(l, "tender-card-declined", reason = why),
        CheckoutOutcome::Failed => tr!(l, "tender-card-failed", reason = why),
        CheckoutOutcome::Pending => tr!(l, "tender-card-pending", amount = shown.clone()),
        CheckoutOutcome::Canceled => tr!(l, "tender-card-canceled", due = due.clone()),
        CheckoutOutcome::Refunded => tr!(l, "tender-card-refunded", due = due.clone()),
    };
    Ok(CardResult {
        outcome: c.outcome,
        checkout_key: c.checkout_key.clone(),
        amount: c.amount,
        amount_display: shown,
        message,
        sale,
    })
}
