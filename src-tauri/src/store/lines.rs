//! The cart's lines on the sale screen: the cart on screen, an item scanned or typed, a
//! line's quantity changed, the cart emptied. Dining and discounts are `cart.rs`.

use paydesk_ledger::{CartId, SaleState};
use tauri::State;

use super::cart::{cart_view, view_of};
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::input::{validate_code, MAX_QUANTITY};
use crate::staff::Approval;
use crate::state::Ring;
use crate::state::AppState;
use crate::views::CartView;

#[tauri::command]
pub fn get_cart(state: State<'_, AppState>) -> AppResult<CartView> {
    cart_view(&state)
}

/// A scanner (or the cashier) typed a barcode or SKU and pressed Enter. `approval`: a
/// manager's, for a price label marked down past the cashier's discount limit.
#[tauri::command]
pub fn scan(state: State<'_, AppState>, code: String, approval: Option<Approval>) -> AppResult<CartView> {
    let code = validate_code(&code)?;
    let ring = state.barcodes.ring_for(&state.engine(), &code)?;
    if let Ring::Label { sku, price_minor, catalog_minor } = &ring {
        label_markdown_allowed(&state, sku, *price_minor, *catalog_minor, approval.as_ref())?;
    }
    let id = cart_for_next_item(&state)?;
    let cart = match ring {
        Ring::Catalog { sku } => state.engine().carts().add(id, &sku, 1)?,
        // A price label at another price than the catalog's: its own line (record 0126).
        Ring::Label { sku, price_minor, .. } => state.engine().carts().add_label(id, &sku, price_minor)?.0,
        // A scale's weight label: that weight at the item's price per unit (record 0134).
        Ring::Weighed { sku, grams } => state.engine().carts().add_weighed(id, &sku, grams)?.0,
    };
    view_of(&state, &cart)
}

/// A price label below its item's catalog price is a markdown, and a label typed at the scan
/// field cannot be told from one scanned: so a markdown past the cashier's discount limit is
/// a manager's, as the same discount typed would be (records 0068, 0126), and the approval is
/// audited. A label at or above the catalog price, or a register without staff, goes on.
fn label_markdown_allowed(state: &AppState, sku: &str, label_minor: i64, catalog_minor: i64, approval: Option<&Approval>) -> AppResult<()> {
    let markdown = catalog_minor.saturating_sub(label_minor);
    if markdown <= 0 {
        return Ok(());
    }
    let action = match crate::staff::gate::discount_above_limit(paydesk_tax::Discount::Amount { amount: markdown }, catalog_minor) {
        true => paydesk_access::Action::DiscountAboveLimit,
        false => paydesk_access::Action::Sell,
    };
    crate::ops::Operation::new(action, approval).approval_audited(format!("label {sku}")).permit(state)?;
    Ok(())
}

/// The cart an item scanned now goes into (record 0035).
///
/// A sale that is paid or canceled is over: scanning the next customer's first item
/// says "next customer" as plainly as the New sale button, so the next sale begins
/// (refusing it as "cart is locked" told a cashier a paid sale was still open). Never
/// while a charge runs: its outcome belongs to the sale on screen.
///
/// The first item of a sale needs a shift where shifts are required: asked for now,
/// not after the cashier has rung up the sale and typed the cash (record 0069).
pub(super) fn cart_for_next_item(state: &AppState) -> AppResult<CartId> {
    let id = state.cart_id();
    let sale = state.engine().carts().sale(id)?;
    let finished = match sale.state {
        SaleState::Paid | SaleState::Canceled => true,
        SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance | SaleState::Canceling => false,
    };
    let id = if finished {
        match state.screen.try_charge_turn() {
            Some(_no_charge_running) => state.new_cart()?,
            None => return Err(AppError::CartLocked),
        }
    } else {
        id
    };
    if (finished || sale.cart.lines.is_empty())
        && state.engine().shifts().needs_opening()? {
            return Err(AppError::NoOpenShift);
        }
    Ok(id)
}

/// A weighed item from the item list with the grams typed from the scale's display
/// (record 0134). The grams are checked here whatever the screen allowed: 1 ..= 100 000.
#[tauri::command]
pub fn add_weighed(state: State<'_, AppState>, sku: String, grams: i64) -> AppResult<CartView> {
    let sku = validate_code(&sku)?;
    if !(paydesk_tax::MIN_GRAMS..=paydesk_tax::MAX_GRAMS).contains(&grams) {
        return Err(AppError::InvalidInput(tr!(active(), "input-grams", min = paydesk_tax::MIN_GRAMS, max = paydesk_tax::MAX_GRAMS)));
    }
    let id = cart_for_next_item(&state)?;
    let (cart, _line_no) = state.engine().carts().add_weighed(id, &sku, grams)?;
    view_of(&state, &cart)
}

#[tauri::command]
/// Sets a line's quantity (0 removes it). A change that leaves a discount above the
/// cashier's limit on its new base needs a manager (`approval`), as giving it did.
pub fn set_quantity(state: State<'_, AppState>, sku: String, quantity: u32, approval: Option<Approval>) -> AppResult<CartView> {
    let sku = validate_code(&sku)?;
    if quantity > MAX_QUANTITY {
        return Err(AppError::InvalidInput(tr!(active(), "input-quantity", max = MAX_QUANTITY)));
    }
    // A line already in the cart can be changed even if its item was deactivated since.
    let in_cart = cart_view(&state)?.lines.into_iter().find(|l| l.sku.eq_ignore_ascii_case(&sku)).map(|l| l.sku);
    let (sku, id) = match in_cart {
        Some(s) => (s, state.cart_id()),
        None => (state.barcodes.sku_for(&state.engine(), &sku)?, cart_for_next_item(&state)?),
    };
    let cart = crate::sale::discount::set_quantity(&state, id, &sku, i64::from(quantity), approval.as_ref())?;
    view_of(&state, &cart)
}

/// Empties the cart on screen (only while no payment holds it).
#[tauri::command]
pub fn clear_cart(state: State<'_, AppState>) -> AppResult<CartView> {
    if cart_view(&state)?.locked {
        return Err(AppError::CartLocked);
    }
    state.new_cart()?;
    cart_view(&state)
}
