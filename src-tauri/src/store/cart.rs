//! The cart on screen with its tax (design §11.16): each line's price and discount, the
//! ※ mark of reduced-rate lines, per-rate taxable totals and tax, subtotal, sale
//! discount and total, all as the ledger computed them (paydesk-tax); and the
//! commands that change a sale's dining and discounts while it is still open.

use paydesk_access::Action;
use paydesk_tax::{Discount, Dining, PriceMode, TaxClass};
use paydesk_ledger::{Cart, CartState};
use serde::{Deserialize, Serialize};
use tauri::State;

use super::{discount_label, rate_label};
use crate::catalog::class_name;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::money;
use crate::staff::Approval;
use crate::state::AppState;

#[derive(Debug, Clone, Serialize)]
pub struct CartLine {
    pub sku: String,
    pub name: String,
    pub quantity: i64,
    pub unit_price: i64,
    /// `unit_price × quantity`, before the line's discount.
    pub line_total: i64,
    pub unit_price_display: String,
    pub line_total_display: String,
    /// The line's discount in minor units (0 without one) and how it was given.
    pub discount: i64,
    pub discount_display: String,
    pub discount_label: Option<String>,
    /// After the line's discount.
    pub net_display: String,
    /// Taxed at the reduced rate in this sale (shown with ※; eaten in it is not).
    pub reduced: bool,
    pub tax_class: &'static str,
}

/// One rate's part of the sale: taxable total (in the store's price mode) and its tax.
#[derive(Debug, Clone, Serialize)]
pub struct RateLine {
    pub class: &'static str,
    pub basis_points: u32,
    /// "8%", "10%"
    pub rate_label: String,
    pub reduced: bool,
    pub gross: i64,
    pub gross_display: String,
    pub base_display: String,
    pub tax: i64,
    pub tax_display: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CartView {
    pub id: i64,
    pub lines: Vec<CartLine>,
    pub item_count: i64,
    pub currency: String,
    pub total: i64,
    pub total_display: String,
    /// True while a checkout is open or the cart is paid: it cannot change
    /// (design §3.2).
    pub locked: bool,
    /// eat_in | take_out
    pub dining: &'static str,
    /// The tax is fixed (first tender taken or a payment open): dining and discounts
    /// are refused (design §11.12).
    pub tax_locked: bool,
    /// inclusive | exclusive
    pub price_mode: &'static str,
    pub subtotal_display: String,
    pub sale_discount: i64,
    pub sale_discount_display: String,
    pub sale_discount_label: Option<String>,
    pub tax_total: i64,
    pub tax_total_display: String,
    pub rates: Vec<RateLine>,
}

impl CartView {
    /// `names` gives a line's name in the store's language (by SKU), if it has one.
    pub fn of(cart: &Cart, names: &dyn Fn(&str) -> Option<String>) -> CartView {
        let cur = cart.currency.code();
        let fmt = |m: i64| money::format(m, cur);
        let tax = cart.tax.as_ref();
        let lines: Vec<CartLine> = cart
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let figures = tax.and_then(|t| t.lines.get(i));
                let discount = figures.map_or(0, |f| f.discount);
                let net = figures.map_or(l.line_total.amount_minor, |f| f.net);
                CartLine {
                    sku: l.sku.clone(),
                    name: names(&l.sku).unwrap_or_else(|| l.name.clone()),
                    quantity: l.quantity,
                    unit_price: l.unit_price.amount_minor,
                    line_total: l.line_total.amount_minor,
                    unit_price_display: fmt(l.unit_price.amount_minor),
                    line_total_display: fmt(l.line_total.amount_minor),
                    discount,
                    discount_display: fmt(discount),
                    discount_label: l.discount.map(|d| discount_label(d, cur)),
                    net_display: fmt(net),
                    reduced: figures.is_some_and(|f| f.is_reduced()),
                    tax_class: class_name(l.tax_class),
                }
            })
            .collect();
        let rates = tax
            .map(|t| {
                t.rates
                    .iter()
                    .map(|r| RateLine {
                        class: class_name(r.class),
                        basis_points: r.basis_points,
                        rate_label: rate_label(r.basis_points),
                        reduced: r.class == TaxClass::Reduced,
                        gross: r.gross,
                        gross_display: fmt(r.gross),
                        base_display: fmt(r.base),
                        tax: r.tax,
                        tax_display: fmt(r.tax),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let subtotal = tax.map_or(cart.total.amount_minor, |t| t.subtotal);
        let sale_discount = tax.map_or(0, |t| t.sale_discount);
        let tax_total = tax.map_or(0, |t| t.tax_total);
        let open = match cart.state {
            CartState::Open => true,
            CartState::Locked | CartState::Paid => false,
        };
        CartView {
            id: cart.id.0,
            item_count: lines.iter().map(|l| l.quantity).sum(),
            lines,
            currency: cur.to_string(),
            total: cart.total.amount_minor,
            total_display: fmt(cart.total.amount_minor),
            locked: !open,
            dining: match cart.dining {
                Dining::EatIn => "eat_in",
                Dining::TakeOut => "take_out",
            },
            tax_locked: cart.tax_locked || !open,
            price_mode: match tax.map_or(PriceMode::Inclusive, |t| t.price_mode) {
                PriceMode::Inclusive => "inclusive",
                PriceMode::Exclusive => "exclusive",
            },
            subtotal_display: fmt(subtotal),
            sale_discount,
            sale_discount_display: fmt(sale_discount),
            sale_discount_label: cart.sale_discount.map(|d| discount_label(d, cur)),
            tax_total,
            tax_total_display: fmt(tax_total),
            rates,
        }
    }
}

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
    if state.cart_view()?.tax_locked {
        return Err(AppError::TaxLocked);
    }
    Ok(())
}

/// A discount above the cashier's limit is a manager's (design §12.9); removing one,
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
    let granted = crate::staff::authorize(state, action, approval)?;
    crate::staff::record_approval(state, &granted, action, subject)?;
    Ok(granted)
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
    state.view_of(&cart)
}

#[tauri::command]
pub fn set_line_discount(
    state: State<'_, AppState>,
    sku: String,
    discount: Option<DiscountForm>,
    approval: Option<Approval>,
) -> AppResult<CartView> {
    let sku = crate::catalog::validate_code(&sku)?;
    let d = discount.map(|f| super::parse_discount(&f, state.currency)).transpose()?.flatten();
    editable(&state)?;
    let base = state.cart_view()?.lines.iter().find(|l| l.sku.eq_ignore_ascii_case(&sku)).map_or(0, |l| l.line_total);
    let granted = discount_allowed(&state, d, base, approval.as_ref(), &sku)?;
    let id = state.cart_id();
    let cart = state.engine().carts().set_discount(id, Some(&sku), d).map_err(super::discount_error)?;
    crate::sale::discount::remember(&state, &granted, &cart);
    state.view_of(&cart)
}

#[tauri::command]
pub fn set_sale_discount(state: State<'_, AppState>, discount: Option<DiscountForm>, approval: Option<Approval>) -> AppResult<CartView> {
    let d = discount.map(|f| super::parse_discount(&f, state.currency)).transpose()?.flatten();
    editable(&state)?;
    let base = state.cart_view()?.lines.iter().map(|l| l.line_total - l.discount).sum();
    let granted = discount_allowed(&state, d, base, approval.as_ref(), "sale")?;
    let id = state.cart_id();
    let cart = state.engine().carts().set_discount(id, None, d).map_err(super::discount_error)?;
    crate::sale::discount::remember(&state, &granted, &cart);
    state.view_of(&cart)
}
