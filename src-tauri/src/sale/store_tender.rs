//! Store tenders at the counter (record 0122, on record 0118): the store's own tender
//! types offered as buttons, and one taken — a voucher, a slip from a standalone
//! terminal — through the same engine use case as `paydesk-cli sale tender
//! --store-tender`. Like cash, no network: the tender, any change and the sale's
//! completion are one ledger transaction, so it answers at once.
//!
//! Checked here before anything is written, with typed refusals: the type exists and is
//! offered (`unknown_tender_type`, `tender_type_inactive`), the amount is 1 up to the
//! register's tender limit, the slip number at most 40 characters. The ledger checks the
//! same again (a type switched off between the check and the write).

use paydesk_access::Action;
use paydesk_domain::tender_type::{checked_reference, MAX_TENDER_REFERENCE};
use paydesk_domain::{TenderType, TenderTypeId};
use serde::Serialize;
use tauri::State;

use super::screen;
use crate::error::{AppError, AppResult, TenderTypeRefusal};
use crate::i18n::{active, tr};
use crate::input::{parse_amount, validate_reason, Amount};
use crate::money;
use crate::ops::{Locks, Operation};
use crate::state::AppState;
use crate::views::SaleScreen;

/// One tender type as the counter and the settings show it.
#[derive(Debug, Clone, Serialize)]
pub struct TenderTypeRow {
    pub id: i64,
    pub name: String,
    /// voucher | external_terminal | e_money | qr | store_account
    pub kind: &'static str,
    pub gives_change: bool,
    pub counts_for_stamp: bool,
    pub active: bool,
}

impl TenderTypeRow {
    pub fn of(t: &TenderType) -> TenderTypeRow {
        TenderTypeRow {
            id: t.id.0,
            name: t.name.clone(),
            kind: t.kind.as_str(),
            gives_change: t.gives_change,
            counts_for_stamp: t.counts_for_stamp,
            active: t.active,
        }
    }
}

/// The active tender types, in the order added: one button each on the tender screen.
#[tauri::command]
pub fn list_tender_types(state: State<'_, AppState>) -> AppResult<Vec<TenderTypeRow>> {
    Ok(state.engine().tender_types().offered()?.iter().map(TenderTypeRow::of).collect())
}

#[derive(Debug, Serialize)]
pub struct StoreTenderResult {
    /// The tender type's name.
    pub name: String,
    /// The face value handed over (a ¥1,000 voucher).
    pub offered: i64,
    pub offered_display: String,
    /// What it paid of the sale.
    pub amount: i64,
    pub amount_display: String,
    /// Give this back from the drawer (a type that gives change).
    pub change: i64,
    pub change_display: String,
    /// Kept by the store, never from the drawer: "no change given ¥200".
    pub forfeited: i64,
    pub forfeited_display: String,
    pub message: String,
    pub sale: SaleScreen,
}

/// The slip or approval number: empty is none; otherwise 1-40 characters, no control
/// characters.
fn reference_of(text: &str) -> AppResult<Option<String>> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    checked_reference(text)
        .map(|r| Some(r.to_string()))
        .ok_or_else(|| AppError::InvalidInput(tr!(active(), "input-tender-reference", max = MAX_TENDER_REFERENCE)))
}

/// The type named, if it exists and is offered.
fn offered_type(state: &AppState, id: i64) -> AppResult<TenderType> {
    let t = state
        .engine()
        .tender_types()
        .list()?
        .into_iter()
        .find(|t| t.id == TenderTypeId(id))
        .ok_or(AppError::TenderType(TenderTypeRefusal::Unknown(id)))?;
    if !t.active {
        return Err(AppError::TenderType(TenderTypeRefusal::Inactive { name: t.name }));
    }
    Ok(t)
}

/// Takes `amount` (as typed, the face value handed over) of tender type `tender_type`
/// with its slip number `reference` (may be empty). The same guards as cash:
/// `sale_changed` on an out-of-date view, `tender_unknown_outstanding` while a card's
/// outcome is unknown unless a reason is given.
#[tauri::command]
pub async fn pay_store_tender(
    state: State<'_, AppState>,
    tender_type: i64,
    amount: String,
    reference: String,
    seen_tenders: u32,
    override_reason: Option<String>,
    approval: Option<crate::staff::Approval>,
) -> AppResult<StoreTenderResult> {
    let offered = parse_amount(&amount, state.currency, Amount::StoreTender)?;
    let reference = reference_of(&reference)?;
    let reason = validate_reason(override_reason)?;
    let ty = offered_type(&state, tender_type)?;
    let action = if reason.is_some() { Action::OverrideUnknownOutcome } else { Action::Sell };
    let op = Operation::new(action, approval.as_ref()).approval_audited("tender");
    let pass = op.run(&state, Locks::Turn { seen: Some(seen_tenders) }).await?;
    let cart = pass.cart().expect("a tender turn names its sale");
    super::discount::check_first_tender(&state, cart, approval.as_ref())?;
    let r = state.engine().pay_store(cart, ty.id, offered, reference.as_deref(), reason.as_deref())?;
    let cur = r.sale.currency;
    let sale = screen(&state, &r.sale);
    let f = |m: i64| money::format(m, cur);
    let l = active();
    let message = match (sale.complete, r.change > 0, r.forfeited > 0) {
        (true, true, _) => tr!(l, "tender-cash-change", amount = f(r.change)),
        (true, false, true) => tr!(l, "tender-store-no-change", name = ty.name.clone(), amount = f(r.forfeited)),
        (true, false, false) => tr!(l, "tender-store-paid", name = ty.name.clone()),
        (false, _, _) => tr!(l, "tender-store-took", name = ty.name.clone(), amount = f(r.amount), due = sale.due_display.clone()),
    };
    Ok(StoreTenderResult {
        name: ty.name,
        offered: r.offered,
        offered_display: f(r.offered),
        amount: r.amount,
        amount_display: f(r.amount),
        change: r.change,
        change_display: f(r.change),
        forfeited: r.forfeited,
        forfeited_display: f(r.forfeited),
        message,
        sale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_number_is_optional_and_at_most_forty_characters() {
        assert_eq!(reference_of("  ").unwrap(), None);
        assert_eq!(reference_of(" V-123 ").unwrap().as_deref(), Some("V-123"));
        assert!(reference_of(&"x".repeat(40)).unwrap().is_some());
        assert_eq!(reference_of(&"x".repeat(41)).unwrap_err().code(), "invalid_input");
        assert_eq!(reference_of("a\u{7}b").unwrap_err().code(), "invalid_input");
    }
}
