//! A tax-exempt sale (issue #30, record 0135): the cashier records why the sale on screen
//! bears no tax (a resale certificate, a diplomat's card, a non-profit's exemption number).
//! It is [`Action::TaxExempt`], a manager's: a cashier's press comes back
//! `approval_required` and the screen asks a manager's PIN, then sends it again. The
//! command holds the rule, the screen only hides the button; the ledger checks the role
//! table once more in its transaction and audits who, who approved, which sale and why.

use paydesk_access::Action;
use paydesk_ledger::{ExemptRefusal, MAX_EXEMPT_REASON_CHARS};
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::ops::Operation;
use crate::staff::Approval;
use crate::state::AppState;
use crate::views::CartView;

/// Makes the sale on screen tax exempt for `reason`, or taxes it again (`None`).
#[tauri::command]
pub fn set_tax_exempt(state: State<'_, AppState>, reason: Option<String>, approval: Option<Approval>) -> AppResult<CartView> {
    set_exempt(&state, reason.as_deref(), approval.as_ref())
}

pub fn set_exempt(state: &AppState, reason: Option<&str>, approval: Option<&Approval>) -> AppResult<CartView> {
    // A call far beyond the limit is refused before any lookup; the ledger holds the rule
    // itself (3 to 200 characters once trimmed, no control characters).
    if reason.is_some_and(|r| r.len() > 4 * MAX_EXEMPT_REASON_CHARS + 64) {
        return Err(AppError::Exempt(ExemptRefusal::Reason));
    }
    // No audit row of its own: the ledger's write names the person and the approver.
    let granted = Operation::new(Action::TaxExempt, approval).permit(state)?;
    let id = state.cart_id();
    let cart = state.engine().carts().set_tax_exempt(id, reason, granted.approver_id())?;
    super::cart::view_of(state, &cart)
}
