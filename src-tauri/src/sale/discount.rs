//! The cashier's discount limit over the sale as it stands (record 0068). A discount is
//! checked when it is given (`store/cart.rs`), again whenever its base changes — a
//! quantity changed, a line removed (`set_quantity`, here) — and again when the first
//! tender is taken (`pay_cash`, `pay_card`, `charge`), on the bases the customer pays on.
//! An amount discount given on ten items and left on one is 100 % off: without this it
//! went through on a cashier's say. Above the limit a manager's approval is asked for
//! there and then (`approval_required` for `discount_above_limit`, which the screen opens
//! its approval dialog for); an approved one writes an audit row naming both people, and
//! the approval holds for that sale while its discounts and their bases stay as approved.

use paydesk_access::Action;
use paydesk_ledger::{Cart, CartId};

use crate::error::{AppError, AppResult};
use crate::staff::gate::discount_above_limit;
use crate::ops::{Authorized, Operation};
use crate::staff::{Approval, Granted};
use crate::state::AppState;

use crate::state::screen::{Above, Approved};

/// The discounts of `cart` above the cashier's limit, on their bases now: a line's is
/// its price × quantity, the sale's is the lines after their own discounts.
pub fn above_limit(cart: &Cart) -> Vec<Above> {
    let mut out = Vec::new();
    let mut sale_base: i64 = 0;
    for (i, l) in cart.lines.iter().enumerate() {
        let line_discount = cart.tax.as_ref().and_then(|t| t.lines.get(i)).map_or(0, |f| f.discount);
        sale_base = sale_base.saturating_add(l.line_total.amount_minor.saturating_sub(line_discount));
        if let Some(d) = l.discount {
            if discount_above_limit(d, l.line_total.amount_minor) {
                out.push(Above { subject: l.sku.clone(), discount: d, base: l.line_total.amount_minor });
            }
        }
    }
    if let Some(d) = cart.sale_discount {
        if discount_above_limit(d, sale_base) {
            out.push(Above { subject: "sale".into(), discount: d, base: sale_base });
        }
    }
    out
}

fn subject(cart: CartId, above: &[Above]) -> String {
    let what: Vec<&str> = above.iter().map(|a| a.subject.as_str()).collect();
    format!("sale {}: {}", cart.0, what.join(", "))
}

/// Who may go above the limit: the person signed in (a manager, or a store without
/// staff), or the approver `approval` names (PIN checked now). `None`: only within it.
fn may_exceed(state: &AppState, approval: Option<&Approval>) -> AppResult<Option<Authorized>> {
    match Operation::new(Action::DiscountAboveLimit, approval).authorize(state) {
        Ok(g) => Ok(Some(g)),
        Err(AppError::ApprovalRequired { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn approval_required() -> AppError {
    AppError::ApprovalRequired { action: Action::DiscountAboveLimit, min_role: Action::DiscountAboveLimit.min_role() }
}

/// Records an approval that was needed for `above` (audit row) and keeps it for the sale.
fn approved(state: &AppState, granted: Authorized, cart: CartId, above: Vec<Above>) -> AppResult<()> {
    granted.audit_approval(subject(cart, &above)).permit(state)?;
    state.screen.set_approved(Approved { cart: Some(cart), above });
    Ok(())
}

/// Sets a line's quantity (0 removes it) unless that leaves a discount above the
/// cashier's limit without a manager: then nothing changes and `approval_required` asks
/// for one.
pub fn set_quantity(state: &AppState, cart: CartId, sku: &str, quantity: i64, approval: Option<&Approval>) -> AppResult<Cart> {
    let may = may_exceed(state, approval)?;
    let mut above = Vec::new();
    let changed = state.engine().carts().set_quantity_if(cart, sku, quantity, |c| {
        above = above_limit(c);
        above.is_empty() || may.is_some()
    })?;
    let Some(c) = changed else { return Err(approval_required()) };
    if let (Some(g), false) = (may, above.is_empty()) {
        approved(state, g, cart, above)?;
    }
    Ok(c)
}

/// At the first tender of the sale on screen: its discounts on their bases now, above
/// the limit only as a manager approved them (earlier, for exactly these, or now).
pub fn check_first_tender(state: &AppState, cart: CartId, approval: Option<&Approval>) -> AppResult<()> {
    let c = state.engine().carts().cart_now(cart)?;
    if c.tax_locked {
        // A tender was taken already: the bases are fixed since.
        return Ok(());
    }
    let above = above_limit(&c);
    if above.is_empty() || state.screen.approved() == (Approved { cart: Some(cart), above: above.clone() }) {
        return Ok(());
    }
    match may_exceed(state, approval)? {
        Some(g) => approved(state, g, cart, above),
        None => Err(approval_required()),
    }
}

/// A discount given through `set_line_discount` / `set_sale_discount` with an approval:
/// kept for the sale as the cart now stands.
pub fn remember(state: &AppState, granted: &Granted, cart: &Cart) {
    if granted.approver_id().is_some() {
        state.screen.set_approved(Approved { cart: Some(cart.id), above: above_limit(cart) });
    }
}
