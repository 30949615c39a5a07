//! Weighed lines (issue #30, record 0134, schema v30): an item sold by weight is rung with
//! its grams — typed from a scale's display or read from a weight label — as a line of its
//! own (two weighings are two lines), at the catalog's price per unit when rung. The line's
//! amount is `paydesk_tax::weighed_amount`, computed once here and stored as the line's
//! unit price with quantity 1, so tax, discounts, returns and reports take the amount and
//! never multiply a weight by a price again. The weight and price per unit are stored
//! with it, so a stored sale re-reads exactly.

use paydesk_domain::money::{Currency, Money};
use paydesk_tax::{weighed_amount, SaleUnit};
use rusqlite::{params, Connection, OptionalExtension};

use super::carts::{editable_cart, load_cart, product_for_cart};
use super::{Cached, Ledger};
use crate::error::{Error, Result};
use crate::ledger::Carts;
use crate::types::*;

/// How the product is sold (`product_units`; no row: by the piece).
pub(super) fn unit_tx(conn: &Connection, product: ProductId) -> Result<SaleUnit> {
    let per: Option<i64> =
        conn.row_cached("SELECT per_grams FROM product_units WHERE product_id = ?1", [product.0], |r| r.get(0)).optional()?;
    match per {
        None => Ok(SaleUnit::Piece),
        Some(g) => SaleUnit::from_per_grams(g).ok_or(Error::UnknownValue { what: "grams per unit", value: g.to_string() }),
    }
}

/// A stored line's weight from its `grams`, `per_grams` and `rate_minor` (all or none, a
/// CHECK of v30).
pub(super) fn line_weight(stored: (Option<i64>, Option<i64>, Option<i64>), currency: Currency) -> Result<Option<LineWeight>> {
    match stored {
        (None, None, None) => Ok(None),
        (Some(grams), Some(per), Some(rate)) => {
            let unit =
                SaleUnit::from_per_grams(per).ok_or(Error::UnknownValue { what: "grams per unit", value: per.to_string() })?;
            Ok(Some(LineWeight { grams, unit, rate: Money::new(rate, currency) }))
        }
        other => Err(Error::UnknownValue { what: "line weight", value: format!("{other:?}") }),
    }
}

impl Carts<&mut Ledger> {
    /// Rings `grams` of the weighed item `sku` as a new line at its catalog price per unit;
    /// returns the cart and the new line's number. Refused, nothing written: an item sold by
    /// the piece ([`Error::NotWeighed`]); a weight outside 1 g ..= 100 kg or an amount past
    /// the line limit ([`Error::WeightRefused`]); a full cart; a cart that is not open.
    pub fn add_weighed(&mut self, cart_id: CartId, sku: &str, grams: i64, now_ms: i64) -> Result<(Cart, i64)> {
        let tx = self.write_tx()?;
        let cart = editable_cart(&tx, cart_id)?;
        let product = product_for_cart(&tx, sku, cart.currency)?;
        let unit = unit_tx(&tx, product.id)?;
        if !unit.is_weighed() {
            return Err(Error::NotWeighed { sku: sku.to_string() });
        }
        let rate = product.price.amount_minor;
        let amount =
            weighed_amount(rate, grams, unit).map_err(|why| Error::WeightRefused { sku: sku.to_string(), why })?;
        if cart.lines.len() >= paydesk_tax::MAX_LINES {
            return Err(Error::TooManyLines { max: paydesk_tax::MAX_LINES });
        }
        let line_no = cart.lines.iter().map(|l| l.line_no).max().unwrap_or(0) + 1;
        tx.exec_cached(
            "INSERT INTO cart_lines (cart_id, line_no, product_id, quantity, unit_price_minor, tax_class, price_source,
                                     grams, per_grams, rate_minor)
             VALUES (?1, ?2, ?3, 1, ?4, (SELECT tax_class FROM products WHERE id = ?3), 'catalog', ?5, ?6, ?7)",
            params![cart_id.0, line_no, product.id.0, amount, grams, unit.per_grams(), rate],
        )?;
        tx.exec_cached("UPDATE carts SET updated_at_ms = ?2 WHERE id = ?1", params![cart_id.0, now_ms])?;
        // The whole cart total must stay representable.
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok((cart, line_no))
    }
}
