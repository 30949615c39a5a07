//! The cart on screen with its tax (record 0061): each line's price and discount, the
//! ※ mark of reduced-rate lines, per-rate taxable totals and tax, subtotal, sale
//! discount and total, all as the ledger computed them (paydesk-tax); and the
//! commands that change a sale's dining and discounts while it is still open.

use std::collections::HashMap;

use paydesk_access::Action;
use paydesk_tax::{Discount, Dining};
use paydesk_domain::Locale;
use paydesk_ledger::Cart;
use serde::Deserialize;
use tauri::State;

use crate::views::CartView;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::ops::Operation;
use crate::staff::Approval;
use crate::state::AppState;

/// A discount as the cashier types it: a percentage ("10", "12.5") or an amount in
/// the store currency ("50", "1.25"); `None` or empty removes it.
#[derive(Debug, Clone, Deserialize)]
pub struct DiscountForm {
    /// percent | amount
    pub kind: String,
    pub value: String,
}

/// Refuses a change of a sale whose tax is fixed, with its own code: the screen
/// disables the controls, and the command holds the rule.
fn editable(state: &AppState) -> AppResult<()> {
    if cart_view(state)?.tax_locked {
        return Err(AppError::TaxLocked);
    }
    Ok(())
}

/// A discount above the cashier's limit is a manager's (record 0068); removing one,
/// or one within the limit, is part of selling.
fn discount_allowed(
    state: &AppState,
    d: Option<Discount>,
    base: i64,
    approval: Option<&Approval>,
    subject: &str,
) -> AppResult<crate::staff::Granted> {
    let action = match d {
        Some(d) if crate::staff::gate::discount_above_limit(d, base) => Action::DiscountAboveLimit,
        Some(_) | None => Action::Sell,
    };
    Operation::new(action, approval).approval_audited(subject).permit(state)
}

#[tauri::command]
pub fn set_dining(state: State<'_, AppState>, dining: String) -> AppResult<CartView> {
    let d = match dining.as_str() {
        "eat_in" => Dining::EatIn,
        "take_out" => Dining::TakeOut,
        _ => return Err(AppError::InvalidInput(tr!(active(), "input-dining"))),
    };
    editable(&state)?;
    let id = state.cart_id();
    let cart = state.engine().carts().set_dining(id, d).map_err(super::discount_error)?;
    view_of(&state, &cart)
}

#[tauri::command]
pub fn set_line_discount(
    state: State<'_, AppState>,
    sku: String,
    discount: Option<DiscountForm>,
    approval: Option<Approval>,
) -> AppResult<CartView> {
    let sku = crate::input::validate_code(&sku)?;
    let d = discount.map(|f| super::parse_discount(&f, state.currency)).transpose()?.flatten();
    editable(&state)?;
    let base = cart_view(&state)?.lines.iter().find(|l| l.sku.eq_ignore_ascii_case(&sku)).map_or(0, |l| l.line_total);
    let granted = discount_allowed(&state, d, base, approval.as_ref(), &sku)?;
    let id = state.cart_id();
    let cart = state.engine().carts().set_discount(id, Some(&sku), d).map_err(super::discount_error)?;
    crate::sale::discount::remember(&state, &granted, &cart);
    view_of(&state, &cart)
}

#[tauri::command]
pub fn set_sale_discount(state: State<'_, AppState>, discount: Option<DiscountForm>, approval: Option<Approval>) -> AppResult<CartView> {
    let d = discount.map(|f| super::parse_discount(&f, state.currency)).transpose()?.flatten();
    editable(&state)?;
    let base = cart_view(&state)?.lines.iter().map(|l| l.line_total - l.discount).sum();
    let granted = discount_allowed(&state, d, base, approval.as_ref(), "sale")?;
    let id = state.cart_id();
    let cart = state.engine().carts().set_discount(id, None, d).map_err(super::discount_error)?;
    crate::sale::discount::remember(&state, &granted, &cart);
    view_of(&state, &cart)
}

/// A cart as the screen shows it, item names in the store's language.
///
/// Every command that changes the cart answers with this view, so here is where the
/// customer display hears of the change (record 0132; it rebuilds and sends only a
/// view that differs, so a read costs nothing on its window).
pub fn view_of(state: &AppState, cart: &Cart) -> AppResult<CartView> {
    state.screen.changed();
    let mut view = match state.locale {
        // A cart line carries the English name already.
        Locale::En => CartView::of(cart, &|_| None),
        Locale::Ja => {
            let items = state.engine().catalog().items(cart.lines.iter().map(|line| line.sku.as_str()))?;
            let names: HashMap<String, Option<String>> =
                items.into_iter().map(|(sku, item)| (sku, item.map(|i| i.name_in(state.locale).to_string()))).collect();
            CartView::of(cart, &|sku| names.get(sku).cloned().flatten())
        }
    };
    view.tax_exempt_allowed = state.engine().store().tax_exemptions_allowed()?;
    Ok(view)
}

/// The cart on screen.
pub fn cart_view(state: &AppState) -> AppResult<CartView> {
    let id = state.cart_id();
    let cart = state.engine().carts().cart(id)?;
    view_of(state, &cart)
}
