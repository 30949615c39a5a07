//! Charge on the reader: the sale (or what the cashier typed, one tender of a split
//! sale) handed to the chosen reader; and "Try another card", the next process attempt on
//! the SAME intent after a decline (the engine refuses it while an attempt may run).

use paydesk_access::Action;
use tauri::State;

use super::{known_reader, view, view_in, ReaderView};
use crate::input::{validate_key, validate_reason};
use crate::error::AppResult;
use crate::ops::{Locks, Operation};
use crate::input::{parse_amount, Amount};
use crate::state::AppState;

/// Charges `amount` (as typed; everything open when empty) on `reader_id`, as the sale's
/// next tender. Refused with `sale_changed` when the sale no longer has `seen_tenders`
/// tenders. Answers after a short wait: usually "waiting for the card"; the page then
/// checks the status (or the simulated customer taps) until there is a result.
#[tauri::command]
pub async fn reader_charge(
    state: State<'_, AppState>,
    reader_id: String,
    amount: Option<String>,
    seen_tenders: u32,
    override_reason: Option<String>,
    approval: Option<crate::staff::Approval>,
) -> AppResult<ReaderView> {
    let amount = match amount.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(t) => Some(parse_amount(t, state.currency, Amount::Card)?),
    };
    let reader = known_reader(&state, &reader_id)?;
    let reason = validate_reason(override_reason)?;
    let action = if reason.is_some() { Action::OverrideUnknownOutcome } else { Action::Sell };
    let op = Operation::new(action, approval.as_ref()).approval_audited("reader_tender");
    let pass = op.run(&state, Locks::Turn { seen: Some(seen_tenders) }).await?;
    let cart = pass.cart().expect("a tender turn names its sale");
    crate::sale::discount::check_first_tender(&state, cart, approval.as_ref())?;
    let r = state.engine().charge_reader_tender(cart, amount, &reader.id, reason.as_deref()).await?;
    state.screen.set_checkout(Some(r.reader.checkout_key.clone()));
    view_in(&state, &r.reader, cart)
}

/// "Try another card": the next card on the same intent, once the last one proved "not
/// charged". While the last attempt may still run, the engine reads instead of sending.
#[tauri::command]
pub async fn reader_try_again(
    state: State<'_, AppState>,
    checkout_key: String,
    approval: Option<crate::staff::Approval>,
) -> AppResult<ReaderView> {
    let key = validate_key(&checkout_key)?;
    let op = Operation::new(Action::Sell, approval.as_ref()).approval_audited("reader_try_again");
    let _pass = op.run(&state, Locks::Turn { seen: None }).await?;
    let r = state.engine().present_again(&key).await?;
    view(&state, &r)
}
