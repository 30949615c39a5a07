//! Typed prices at the till (issue #30, record 0126): the row of department keys over the
//! items, an open-price item or department key rung at the price the cashier types (each
//! its own line), and a line changed by its number.
//!
//! A price above the store's open-price limit is a manager's, like a discount above the
//! cashier's limit (record 0068): without the right role the command answers
//! `approval_required` and the screen asks for a manager's PIN, then sends it again with
//! the approval. The member whose role allowed it goes to the ledger, which checks that
//! role again and audits the price with it.

use paydesk_access::Action;
use paydesk_domain::Money;
use paydesk_ledger::MAX_OPEN_PRICE_LIMIT;
use serde::Serialize;
use tauri::State;

use super::cart::{cart_view, view_of};
use super::lines::cart_for_next_item;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::input::{validate_code, MAX_QUANTITY};
use crate::money;
use crate::ops::Operation;
use crate::staff::Approval;
use crate::state::AppState;
use crate::views::CartView;
use crate::wording::class_name;

/// Longest price the cashier may type, in characters.
const MAX_PRICE_CHARS: usize = 20;

/// One department key as the screen shows it.
#[derive(Debug, Clone, Serialize)]
pub struct DepartmentKey {
    pub sku: String,
    pub name: String,
    pub tax_class: &'static str,
}

/// The keys and the store's limit (the prompt says above what a manager approves).
#[derive(Debug, Clone, Serialize)]
pub struct Departments {
    pub keys: Vec<DepartmentKey>,
    pub limit: i64,
    pub limit_display: String,
}

#[tauri::command]
pub fn department_keys(state: State<'_, AppState>) -> AppResult<Departments> {
    let engine = state.engine();
    let keys = engine
        .catalog()
        .department_keys()?
        .into_iter()
        .map(|i| DepartmentKey { name: i.name_in(state.locale).to_string(), tax_class: class_name(i.tax_class), sku: i.sku })
        .collect();
    let limit = engine.carts().open_price_limit()?;
    Ok(Departments { keys, limit, limit_display: money::format(limit, state.currency) })
}

/// The price as typed ("300", "1.25"), in minor units of the store's currency.
fn typed_price(text: &str, state: &AppState) -> AppResult<i64> {
    let text = text.trim();
    let not_amount = || AppError::InvalidInput(tr!(active(), "input-open-price-not-amount", text = text.to_string(), currency = state.currency.code()));
    if text.is_empty() || text.chars().count() > MAX_PRICE_CHARS {
        return Err(not_amount());
    }
    let m = Money::parse(text, state.currency).map_err(|_| not_amount())?;
    // Zero, below zero or absurd: refused before anyone is asked to approve it.
    if !(1..=MAX_OPEN_PRICE_LIMIT).contains(&m.amount_minor) {
        return Err(AppError::InvalidInput(tr!(
            active(),
            "input-open-price-range",
            min = money::format(1, state.currency),
            max = money::format(MAX_OPEN_PRICE_LIMIT, state.currency)
        )));
    }
    Ok(m.amount_minor)
}

/// Rings `sku` (an open-price item or department key) at the typed `price` as a line of
/// its own. Above the store's limit it needs a manager (`approval`).
#[tauri::command]
pub fn add_open_price(state: State<'_, AppState>, sku: String, price: String, approval: Option<Approval>) -> AppResult<CartView> {
    let sku = validate_code(&sku)?;
    let minor = typed_price(&price, &state)?;
    let engine = state.engine();
    let limit = engine.carts().open_price_limit()?;
    let allowed_by = if minor > limit {
        let granted = Operation::new(Action::OpenPriceAboveLimit, approval.as_ref())
            .approval_audited(format!("{sku} {}", money::format(minor, state.currency)))
            .permit(&state)?;
        granted.approver_id().or(granted.actor_id())
    } else {
        None
    };
    let id = cart_for_next_item(&state)?;
    let (cart, _line_no) = engine.carts().add_open(id, &sku, minor, allowed_by)?;
    view_of(&state, &cart)
}

/// Sets the quantity of line `line_no` (0 removes it): how a typed-price or label line,
/// which shares its SKU with other lines, is changed.
#[tauri::command]
pub fn set_line_quantity(state: State<'_, AppState>, line_no: i64, quantity: u32) -> AppResult<CartView> {
    if quantity > MAX_QUANTITY {
        return Err(AppError::InvalidInput(tr!(active(), "input-quantity", max = MAX_QUANTITY)));
    }
    if cart_view(&state)?.locked {
        return Err(AppError::CartLocked);
    }
    let cart = state.engine().carts().set_line_quantity(state.cart_id(), line_no, i64::from(quantity))?;
    view_of(&state, &cart)
}
