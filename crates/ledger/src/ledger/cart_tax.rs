//! A sale's tax (record 0060): computed with `paydesk_tax::compute` from the lines as
//! captured (price and class when added), the sale's dining and discounts, and the
//! store's rates, rounding and price mode. Its total is what the tenders must cover.
//! The first tender locks the figures on the cart (`carts.tax_locked`), so a later
//! change of prices, rates or settings cannot change a sale being paid or paid; the
//! lock is dropped only when the sale is open again (every tender void).

use crate::ledger::Carts;
use paydesk_tax::{compute, Cart as TaxCart, Dining, Discount, Line, SaleTax, TaxClass, TaxSettings, YearMonthDay};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::carts::{editable_cart, load_cart};
use super::catalog::settings::{rate_table_tx, settings_tx};
use super::store_clock::store_date;
use super::{Cached, Ledger};
use crate::error::{Error, Result};
use crate::types::*;
use crate::write_tx::WriteTx;

/// What is stored in `carts.tax_locked`: the figures and the settings they came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedTax {
    pub settings: TaxSettings,
    pub date: YearMonthDay,
    pub tax: SaleTax,
}

/// The store's tax setup and the day whose rates apply to a sale begun at `ms`: the
/// store's local date (record 0130), from one read of the settings.
pub(super) fn tax_setup_on_tx(conn: &Connection, ms: i64) -> Result<(TaxSettings, YearMonthDay)> {
    let store = settings_tx(conn)?;
    let settings = TaxSettings { rates: rate_table_tx(conn)?, rounding: store.rounding, price_mode: store.price_mode };
    Ok((settings, store_date(ms, &store)))
}

pub(super) fn discount_of(kind: Option<String>, value: Option<i64>) -> Result<Option<Discount>> {
    match (kind.as_deref(), value) {
        (None, _) => Ok(None),
        (Some("percent"), Some(v)) => Ok(Some(Discount::Percent { basis_points: u32::try_from(v).map_err(|_| Error::Overflow)? })),
        (Some("amount"), Some(v)) => Ok(Some(Discount::Amount { amount: v })),
        (Some(k), _) => Err(Error::UnknownValue { what: "discount", value: k.to_string() }),
    }
}

fn discount_cols(d: Option<Discount>) -> (Option<&'static str>, Option<i64>) {
    match d {
        None => (None, None),
        Some(Discount::Percent { basis_points }) => (Some("percent"), Some(i64::from(basis_points))),
        Some(Discount::Amount { amount }) => (Some("amount"), Some(amount)),
    }
}

/// The input of `compute` for a cart's lines (taxed; an exempt sale sets `exempt` on it).
pub fn tax_cart(lines: &[CartLine], dining: Dining, sale_discount: Option<Discount>, date: YearMonthDay) -> Result<TaxCart> {
    let lines = lines
        .iter()
        .map(|l| {
            let quantity = u32::try_from(l.quantity).map_err(|_| Error::Overflow)?;
            Ok(Line { unit_price: l.unit_price.amount_minor, quantity, class: l.tax_class, discount: l.discount })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TaxCart { lines, dining, sale_discount, date, exempt: false })
}

/// The cart's tax and total as of now: locked figures if any, else computed. `None`
/// (total = sum of lines) for exempt lines without any discount.
pub(super) fn cart_tax(conn: &Connection, cart: &Cart, locked: Option<&str>) -> Result<Option<SaleTax>> {
    if let Some(doc) = locked {
        let l: LockedTax = serde_json::from_str(doc)?;
        return Ok(Some(l.tax));
    }
    let exempt = cart.tax_exempt_reason.is_some();
    // An exempt sale is always computed, so its locked document says it was exempt.
    let untaxed = !exempt
        && cart.sale_discount.is_none()
        && cart.lines.iter().all(|l| l.tax_class == TaxClass::Exempt && l.discount.is_none());
    if untaxed {
        return Ok(None);
    }
    let (settings, day) = tax_setup_on_tx(conn, cart.created_at_ms)?;
    let input = TaxCart { exempt, ..tax_cart(&cart.lines, cart.dining, cart.sale_discount, day)? };
    compute(&input, &settings).map(Some).map_err(|e| Error::InvalidInput(format!("sale {}: {e}", cart.id)))
}

/// Locks the sale's tax at its first tender (inside the tender's transaction).
pub(super) fn lock_tax_tx(tx: &WriteTx<'_>, cart_id: CartId) -> Result<()> {
    let cart = load_cart(tx, cart_id)?;
    if cart.tax_locked {
        return Ok(());
    }
    let Some(tax) = cart.tax else { return Ok(()) };
    let (settings, date) = tax_setup_on_tx(tx, cart.created_at_ms)?;
    let doc = LockedTax { settings, date, tax };
    tx.exec_cached(
        "UPDATE carts SET tax_locked = ?2 WHERE id = ?1 AND tax_locked IS NULL",
        params![cart_id.0, serde_json::to_string(&doc)?],
    )?;
    Ok(())
}

/// Drops the lock of a sale that is open again (nothing settled or reserved).
pub(super) fn unlock_tax_tx(tx: &WriteTx<'_>, cart_id: CartId) -> Result<()> {
    tx.exec_cached("UPDATE carts SET tax_locked = NULL WHERE id = ?1 AND tax_locked IS NOT NULL", [cart_id.0])?;
    Ok(())
}

impl Carts<&mut Ledger> {
    /// Eat-in or take-out for an open sale (moves reduced-class lines between rates).
    pub fn set_dining(&mut self, cart_id: CartId, dining: Dining, now_ms: i64) -> Result<Cart> {
        let tx = self.write_tx()?;
        editable_cart(&tx, cart_id)?;
        let d = match dining {
            Dining::EatIn => "eat_in",
            Dining::TakeOut => "take_out",
        };
        tx.exec_cached("UPDATE carts SET dining = ?2, updated_at_ms = ?3 WHERE id = ?1", params![cart_id.0, d, now_ms])?;
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok(cart)
    }

    /// The whole sale's discount (`None` removes it). Refused if it would make the
    /// sale negative or is over 100 %.
    pub fn set_sale_discount(&mut self, cart_id: CartId, discount: Option<Discount>, now_ms: i64) -> Result<Cart> {
        let tx = self.write_tx()?;
        editable_cart(&tx, cart_id)?;
        let (k, v) = discount_cols(discount);
        tx.exec_cached(
            "UPDATE carts SET discount_kind = ?2, discount_value = ?3, updated_at_ms = ?4 WHERE id = ?1",
            params![cart_id.0, k, v, now_ms],
        )?;
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok(cart)
    }

    /// The discount of the product's catalog-priced line (`None` removes it). Refused if
    /// it would make the line negative or is over 100 %. A typed or printed price's line
    /// takes a discount by its number ([`Carts::set_discount_at`]).
    pub fn set_line_discount(&mut self, cart_id: CartId, sku: &str, discount: Option<Discount>, now_ms: i64) -> Result<Cart> {
        let tx = self.write_tx()?;
        editable_cart(&tx, cart_id)?;
        let pid: i64 = tx
            .row_cached(
                "SELECT l.product_id FROM cart_lines l JOIN products p ON p.id = l.product_id
                 WHERE l.cart_id = ?1 AND p.sku = ?2 AND l.price_source = 'catalog'",
                params![cart_id.0, sku],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| Error::UnknownProduct(format!("{sku} is not in sale {cart_id}")))?;
        let (k, v) = discount_cols(discount);
        tx.exec_cached(
            "UPDATE cart_lines SET discount_kind = ?3, discount_value = ?4 WHERE cart_id = ?1 AND product_id = ?2 AND price_source = 'catalog'",
            params![cart_id.0, pid, k, v],
        )?;
        tx.exec_cached("UPDATE carts SET updated_at_ms = ?2 WHERE id = ?1", params![cart_id.0, now_ms])?;
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok(cart)
    }
}
