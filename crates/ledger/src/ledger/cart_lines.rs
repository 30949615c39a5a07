//! Cart lines by their number (record 0126, schema v26): a line is `(cart, line_no)`,
//! not its product, so one sale can hold a department key twice at two typed prices,
//! or a price label's item at the label's price next to its catalog line.
//!
//! - A catalog-priced line is still found by its product (`carts.rs`: scanning an item
//!   again adds to its line).
//! - A typed (open) or printed (label) price is always a new line of quantity 1, at the
//!   end of the cart; it is changed or removed by its number.
//! - An open price above the store's limit (`open_price_settings`) is
//!   written only with the member who allowed it, and that approval is audited with the
//!   price in the same transaction. The register engine asks for the approval; this is
//!   the last word.

use std::ops::Deref;

use paydesk_access::{Action, Authorization, Role};
use rusqlite::{params, Connection, OptionalExtension};

use super::audit::{append_audit, AuditInput};
use super::carts::{editable_cart, load_cart, product_for_cart};
use super::catalog::PriceKind;
use super::{Cached, Ledger};
use crate::error::{Error, Result};
use crate::ledger::{Carts, Catalog};
use crate::types::*;
use crate::write_tx::WriteTx;

/// The highest store limit for open prices: the tax crate's limit per unit.
pub const MAX_OPEN_PRICE_LIMIT: i64 = paydesk_tax::MAX_UNIT_PRICE;

/// How the product is priced at the till (`product_price_kinds`; no row: fixed).
pub(super) fn price_kind_tx(conn: &Connection, product: ProductId) -> Result<PriceKind> {
    let kind: String = conn.row_cached(
        "SELECT COALESCE((SELECT kind FROM product_price_kinds WHERE product_id = ?1), 'fixed')",
        [product.0],
        |r| r.get(0),
    )?;
    PriceKind::parse(&kind).ok_or(Error::UnknownValue { what: "price kind", value: kind })
}

fn open_price_limit_tx(conn: &Connection) -> Result<i64> {
    Ok(conn.row_cached("SELECT limit_minor FROM open_price_settings WHERE id = 1", [], |r| r.get(0))?)
}

/// Whether staff `by` may allow an open price above the limit: active, and holding the
/// role the access table names for it (record 0062). Nothing else is trusted to have asked.
fn may_allow_tx(conn: &Connection, by: i64) -> Result<()> {
    let found: Option<(String, i64)> = conn
        .row_cached("SELECT role, active FROM staff WHERE id = ?1", [by], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((role, 1)) = found else {
        return Err(Error::InactiveStaff { staff_id: by, who: "approver" });
    };
    let role = Role::parse(&role).map_err(|_| Error::UnknownValue { what: "role", value: role.clone() })?;
    let min_role = Action::OpenPriceAboveLimit.min_role();
    if !role.at_least(min_role) {
        return Err(Error::NotAllowed {
            action: Action::OpenPriceAboveLimit.as_str(),
            authorization: Authorization::ApproverTooLow { min_role },
        });
    }
    Ok(())
}

/// The line `line_no` of the cart, or [`Error::UnknownLine`].
fn line_at(cart: &Cart, line_no: i64) -> Result<&CartLine> {
    cart.lines.iter().find(|l| l.line_no == line_no).ok_or(Error::UnknownLine { cart_id: cart.id.0, line_no })
}

impl Carts<&mut Ledger> {
    /// Rings `sku` as a new line of quantity 1 at a typed (`Open`) or printed (`Label`)
    /// price; returns the cart and the new line's number. Refused, nothing written: a
    /// price of 0 or less or past the per-unit limit ([`Error::LinePriceOutOfRange`]); a
    /// typed price for a fixed-price item ([`Error::FixedPriceItem`]); an open price above
    /// the store's limit without `approved_by` ([`Error::OpenPriceAboveLimit`]); a full
    /// cart; a cart that is not open; an approver who is not an active manager or owner
    /// ([`Error::InactiveStaff`], [`Error::NotAllowed`]). `approved_by` is kept (and audited with the price)
    /// only when the price needed it.
    pub fn add_priced(
        &mut self,
        cart_id: CartId,
        sku: &str,
        unit_price_minor: i64,
        source: PriceSource,
        approved_by: Option<i64>,
        now_ms: i64,
    ) -> Result<(Cart, i64)> {
        if !(1..=paydesk_tax::MAX_UNIT_PRICE).contains(&unit_price_minor) {
            return Err(Error::LinePriceOutOfRange { price: unit_price_minor, max: paydesk_tax::MAX_UNIT_PRICE });
        }
        let tx = self.write_tx()?;
        let cart = editable_cart(&tx, cart_id)?;
        let product = product_for_cart(&tx, sku, cart.currency)?;
        let kind = price_kind_tx(&tx, product.id)?;
        let approver = match source {
            PriceSource::Catalog => {
                return Err(Error::InvalidInput(format!("{sku}: a catalog price is rung by the item, not typed")));
            }
            PriceSource::Open if !kind.is_open() => return Err(Error::FixedPriceItem { sku: sku.to_string() }),
            PriceSource::Open => {
                let limit = open_price_limit_tx(&tx)?;
                match (unit_price_minor > limit, approved_by) {
                    (false, _) => None,
                    (true, None) => return Err(Error::OpenPriceAboveLimit { price: unit_price_minor, limit }),
                    (true, Some(by)) => {
                        may_allow_tx(&tx, by)?;
                        Some((by, limit))
                    }
                }
            }
            // A label is printed by the store's own scale or labeller: its price is the item's.
            PriceSource::Label => None,
        };
        if cart.lines.len() >= paydesk_tax::MAX_LINES {
            return Err(Error::TooManyLines { max: paydesk_tax::MAX_LINES });
        }
        let line_no = cart.lines.iter().map(|l| l.line_no).max().unwrap_or(0) + 1;
        tx.exec_cached(
            "INSERT INTO cart_lines (cart_id, line_no, product_id, quantity, unit_price_minor, tax_class, price_source, approved_by)
             VALUES (?1, ?2, ?3, 1, ?4, (SELECT tax_class FROM products WHERE id = ?3), ?5, ?6)",
            params![cart_id.0, line_no, product.id.0, unit_price_minor, source.as_str(), approver.map(|a| a.0)],
        )?;
        tx.exec_cached("UPDATE carts SET updated_at_ms = ?2 WHERE id = ?1", params![cart_id.0, now_ms])?;
        if let Some((by, limit)) = approver {
            let after = serde_json::json!({ "sku": sku, "price": unit_price_minor, "limit": limit, "currency": cart.currency.code() });
            let input = AuditInput {
                approver_id: Some(by),
                after: Some(after.to_string()),
                ..AuditInput::new("open_price_above_limit", &format!("sale {cart_id} line {line_no}"))
            };
            append_audit(&tx, &input, now_ms)?;
        }
        // The whole cart total must stay representable.
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok((cart, line_no))
    }

    /// Sets the quantity of line `line_no` (0 removes it), whatever its price's source.
    pub fn set_line_quantity(&mut self, cart_id: CartId, line_no: i64, quantity: i64, now_ms: i64) -> Result<Cart> {
        if quantity < 0 {
            return Err(Error::InvalidInput(format!("quantity {quantity} must not be negative")));
        }
        if quantity > i64::from(paydesk_tax::MAX_QUANTITY) {
            return Err(Error::QuantityTooLarge { quantity, max: paydesk_tax::MAX_QUANTITY });
        }
        let tx = self.write_tx()?;
        let cart = editable_cart(&tx, cart_id)?;
        let line = line_at(&cart, line_no)?;
        if quantity > 1 && line.weight.is_some() {
            return Err(Error::WeighedLineWhole { line_no });
        }
        if quantity == 0 {
            tx.exec_cached("DELETE FROM cart_lines WHERE cart_id = ?1 AND line_no = ?2", params![cart_id.0, line_no])?;
        } else {
            line.unit_price.checked_mul(quantity)?;
            tx.exec_cached(
                "UPDATE cart_lines SET quantity = ?3 WHERE cart_id = ?1 AND line_no = ?2",
                params![cart_id.0, line_no, quantity],
            )?;
        }
        tx.exec_cached("UPDATE carts SET updated_at_ms = ?2 WHERE id = ?1", params![cart_id.0, now_ms])?;
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok(cart)
    }

    /// Removes line `line_no`.
    pub fn remove_line(&mut self, cart_id: CartId, line_no: i64, now_ms: i64) -> Result<Cart> {
        self.set_line_quantity(cart_id, line_no, 0, now_ms)
    }
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// The store's limit for an open price, in minor units: above it a member allowed
    /// `open_price_above_limit` must approve (record 0126).
    pub fn open_price_limit(&self) -> Result<i64> {
        open_price_limit_tx(&self.conn)
    }
}

impl Catalog<&mut Ledger> {
    /// Sets the store's open-price limit (1 ..= the per-unit limit), audited.
    pub fn set_open_price_limit(&mut self, limit_minor: i64, actor_id: Option<i64>, now_ms: i64) -> Result<()> {
        let tx = self.write_tx()?;
        set_open_price_limit_tx(&tx, limit_minor, actor_id, now_ms)?;
        tx.commit()?;
        Ok(())
    }
}

/// Sets the open-price limit inside `tx` (see [`Catalog::set_open_price_limit`]); audited
/// when it changed. Also part of the counter rules' one save (`counter_rules.rs`).
pub(crate) fn set_open_price_limit_tx(tx: &WriteTx<'_>, limit_minor: i64, actor_id: Option<i64>, now_ms: i64) -> Result<()> {
    if !(1..=MAX_OPEN_PRICE_LIMIT).contains(&limit_minor) {
        return Err(Error::LinePriceOutOfRange { price: limit_minor, max: MAX_OPEN_PRICE_LIMIT });
    }
    let before = open_price_limit_tx(tx)?;
    if before == limit_minor {
        return Ok(());
    }
    tx.exec_cached(
        "INSERT INTO open_price_settings (id, limit_minor) VALUES (1, ?1)
         ON CONFLICT(id) DO UPDATE SET limit_minor = excluded.limit_minor",
        [limit_minor],
    )?;
    let input = AuditInput {
        actor_id,
        before: Some(before.to_string()),
        after: Some(limit_minor.to_string()),
        ..AuditInput::new("open_price_limit", "store")
    };
    append_audit(tx, &input, now_ms)?;
    Ok(())
}
