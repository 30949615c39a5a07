//! The catalog (table `products`) and carts (`carts`, `cart_lines`): a cart is edited
//! only while open; its total must stay representable; an open checkout locks it.

use std::ops::Deref;
use crate::ledger::Carts;
use rusqlite::{params, Connection, OptionalExtension};

use super::rows::product_from_row;
use super::{collect, Cached, Ledger};
use crate::write_tx::WriteTx;
use crate::error::{Error, Result};
use paydesk_domain::money::{Currency, Money};
use crate::types::*;
use paydesk_tax::Dining;

impl Carts<&mut Ledger> {
    /// Inserts or updates products by SKU. Returns how many were written.
    pub fn seed_catalog(&mut self, products: &[NewProduct]) -> Result<usize> {
        let tx = self.write_tx()?;
        for p in products {
            if p.price.amount_minor < 0 {
                return Err(Error::InvalidAmount(format!("price of {} is negative", p.sku)));
            }
            tx.exec_cached(
                "INSERT INTO products (sku, name, price_minor, currency) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(sku) DO UPDATE SET name = excluded.name, price_minor = excluded.price_minor,
                     currency = excluded.currency",
                params![p.sku, p.name, p.price.amount_minor, p.price.currency.code()],
            )?;
            let id: i64 = tx.row_cached("SELECT id FROM products WHERE sku = ?1", [&p.sku], |r| r.get(0))?;
            super::catalog::index_product(&tx, id)?;
        }
        tx.commit()?;
        Ok(products.len())
    }
}

impl<L: Deref<Target = Ledger>> Carts<L> {
    pub fn products(&self) -> Result<Vec<Product>> {
        collect(&self.conn, "SELECT id, sku, name, price_minor, currency FROM products ORDER BY sku", [], product_from_row)
    }

    pub fn product_by_sku(&self, sku: &str) -> Result<Option<Product>> {
        self.conn
            .row_cached("SELECT id, sku, name, price_minor, currency FROM products WHERE sku = ?1", [sku], product_from_row)
            .optional()?
            .transpose()
    }
}

impl Carts<&mut Ledger> {
    pub fn create(&mut self, currency: Currency, now_ms: i64) -> Result<CartId> {
        let tx = self.write_tx()?;
        tx.exec_cached(
            "INSERT INTO carts (currency, state, created_at_ms, updated_at_ms) VALUES (?1, 'open', ?2, ?2)",
            params![currency.code(), now_ms],
        )?;
        let id = CartId(tx.last_insert_rowid());
        tx.commit()?;
        Ok(id)
    }
}

impl<L: Deref<Target = Ledger>> Carts<L> {
    /// The cart created last: the one a register had on screen when it stopped (the app
    /// puts a part-paid sale back on screen after a restart, record 0035).
    pub fn newest(&self) -> Result<Option<CartId>> {
        let id: Option<i64> = self.conn.query_row("SELECT MAX(id) FROM carts", [], |r| r.get(0))?;
        Ok(id.map(CartId))
    }

    pub fn by_id(&self, cart_id: CartId) -> Result<Cart> {
        load_cart(&self.conn, cart_id)
    }
}

impl Carts<&mut Ledger> {
    /// Adds `quantity` of a product at its catalog price (adds to its catalog line, record
    /// 0126). Refused unless the cart is open: a locked cart belongs to an open checkout
    /// whose parameters are fixed; an open-price item needs its price ([`Error::PriceRequired`]).
    pub fn add(&mut self, cart_id: CartId, sku: &str, quantity: i64, now_ms: i64) -> Result<Cart> {
        if quantity <= 0 {
            return Err(Error::InvalidInput(format!("quantity {quantity} must be positive")));
        }
        let tx = self.write_tx()?;
        let cart = editable_cart(&tx, cart_id)?;
        let product = product_for_cart(&tx, sku, cart.currency)?;
        let current: i64 = tx
            .row_cached(
                "SELECT quantity FROM cart_lines WHERE cart_id = ?1 AND product_id = ?2 AND price_source = 'catalog' AND grams IS NULL",
                params![cart_id.0, product.id.0],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0);
        let new_qty = current.checked_add(quantity).ok_or(Error::Overflow)?;
        set_line(&tx, cart_id, &product, new_qty, now_ms)?;
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok(cart)
    }

    /// Sets the quantity of the product's catalog-priced line; 0 removes the line.
    pub fn set_quantity(&mut self, cart_id: CartId, sku: &str, quantity: i64, now_ms: i64) -> Result<Cart> {
        if quantity < 0 {
            return Err(Error::InvalidInput(format!("quantity {quantity} must not be negative")));
        }
        let tx = self.write_tx()?;
        let cart = editable_cart(&tx, cart_id)?;
        let product = product_for_cart(&tx, sku, cart.currency)?;
        set_line(&tx, cart_id, &product, quantity, now_ms)?;
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok(cart)
    }

    /// Sets a line's quantity (0 removes it) only if `accept` takes the cart it leaves —
    /// a rule the caller holds over the new figures, such as the cashier's discount limit
    /// on the discounts' new bases. Refused, nothing changes and `Ok(None)` is returned;
    /// the check and the change are one transaction.
    pub fn set_quantity_if(
        &mut self,
        cart_id: CartId,
        sku: &str,
        quantity: i64,
        now_ms: i64,
        accept: impl FnOnce(&Cart) -> bool,
    ) -> Result<Option<Cart>> {
        if quantity < 0 {
            return Err(Error::InvalidInput(format!("quantity {quantity} must not be negative")));
        }
        let tx = self.write_tx()?;
        let cart = editable_cart(&tx, cart_id)?;
        let product = product_for_cart(&tx, sku, cart.currency)?;
        set_line(&tx, cart_id, &product, quantity, now_ms)?;
        let cart = load_cart(&tx, cart_id)?;
        if !accept(&cart) {
            // Dropped uncommitted: rolled back.
            return Ok(None);
        }
        tx.commit()?;
        Ok(Some(cart))
    }

    pub fn remove(&mut self, cart_id: CartId, sku: &str, now_ms: i64) -> Result<Cart> {
        self.set_quantity(cart_id, sku, 0, now_ms)
    }
}

/// A cart's lines in the order they were rung (record 0126).
fn load_lines(conn: &Connection, cart_id: CartId, currency: Currency) -> Result<Vec<CartLine>> {
    collect(
        conn,
        "SELECT l.product_id, p.sku, p.name, l.quantity, l.unit_price_minor, l.tax_class, l.discount_kind, l.discount_value,
                l.line_no, l.price_source, l.grams, l.per_grams, l.rate_minor
         FROM cart_lines l JOIN products p ON p.id = l.product_id WHERE l.cart_id = ?1 ORDER BY l.line_no",
        params![cart_id.0],
        |r| {
            let product_id = ProductId(r.get(0)?);
            let sku: String = r.get(1)?;
            let name: String = r.get(2)?;
            let quantity: i64 = r.get(3)?;
            let unit_price = Money::new(r.get(4)?, currency);
            let class: String = r.get(5)?;
            let discount = (r.get(6)?, r.get(7)?);
            let line_no: i64 = r.get(8)?;
            let source: String = r.get(9)?;
            let weighed: (Option<i64>, Option<i64>, Option<i64>) = (r.get(10)?, r.get(11)?, r.get(12)?);
            Ok((|| {
                let weight = super::weighed::line_weight(weighed, currency)?;
                let price_source =
                    PriceSource::parse(&source).ok_or(Error::UnknownValue { what: "price source", value: source.clone() })?;
                let tax_class = super::catalog::parse_class(&class)
                    .ok_or(Error::UnknownValue { what: "tax class", value: class.clone() })?;
                let discount = super::cart_tax::discount_of(discount.0, discount.1)?;
                let line_total = unit_price.checked_mul(quantity)?;
                Ok(CartLine { line_no, product_id, sku, name, quantity, unit_price, line_total, tax_class, discount, price_source, weight })
            })())
        },
    )
}

pub(super) fn load_cart(conn: &Connection, cart_id: CartId) -> Result<Cart> {
    type Head = (String, String, i64, i64, String, Option<String>, Option<i64>, Option<String>, bool, Option<String>);
    let head: Option<Head> = conn
        .row_cached(
            "SELECT currency, state, created_at_ms, updated_at_ms, dining, discount_kind, discount_value, tax_locked,
                    EXISTS (SELECT 1 FROM held_carts h WHERE h.cart_id = carts.id AND (h.ended_how IS NULL OR h.ended_how = 'discarded')),
                    tax_exempt_reason
             FROM carts WHERE id = ?1",
            [cart_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?)),
        )
        .optional()?;
    let (currency, state, created_at_ms, updated_at_ms, dining, dkind, dvalue, locked, held, tax_exempt_reason) =
        head.ok_or(Error::UnknownCart(cart_id.0))?;
    let currency: Currency = currency.parse()?;
    let lines = load_lines(conn, cart_id, currency)?;
    let mut total = Money::zero(currency);
    for l in &lines {
        total = total.checked_add(l.line_total)?;
    }
    let dining = match dining.as_str() {
        "eat_in" => Dining::EatIn,
        "take_out" => Dining::TakeOut,
        other => return Err(Error::UnknownValue { what: "dining", value: other.to_string() }),
    };
    let sale_discount = super::cart_tax::discount_of(dkind, dvalue)?;
    let mut cart = Cart {
        id: cart_id,
        currency,
        state: state.parse()?,
        lines,
        total,
        created_at_ms,
        updated_at_ms,
        dining,
        sale_discount,
        tax: None,
        tax_locked: locked.is_some(),
        held,
        tax_exempt_reason,
    };
    cart.tax = super::cart_tax::cart_tax(conn, &cart, locked.as_deref())?;
    if let Some(t) = &cart.tax {
        cart.total = Money::new(t.total, currency);
    }
    Ok(cart)
}

pub(super) fn editable_cart(conn: &Connection, cart_id: CartId) -> Result<Cart> {
    let cart = load_cart(conn, cart_id)?;
    // A parked or discarded cart keeps its lines as they were (record 0128).
    super::held::refuse_held(&cart)?;
    match cart.state {
        CartState::Open => Ok(cart),
        CartState::Locked | CartState::Paid => {
            Err(Error::CartNotOpen { cart_id: cart_id.0, state: cart.state.as_str().into() })
        }
    }
}

pub(super) fn product_for_cart(conn: &Connection, sku: &str, currency: Currency) -> Result<Product> {
    let p = conn
        .row_cached("SELECT id, sku, name, price_minor, currency FROM products WHERE sku = ?1", [sku], product_from_row)
        .optional()?
        .transpose()?
        .ok_or_else(|| Error::UnknownProduct(sku.to_string()))?;
    if p.price.currency != currency {
        return Err(Error::CurrencyMismatch { expected: currency, found: p.price.currency });
    }
    let active: i64 = conn.row_cached("SELECT active FROM products WHERE id = ?1", [p.id.0], |r| r.get(0))?;
    if active != 1 {
        return Err(Error::InvalidInput(format!("{sku} is not sold any more (inactive in the catalog)")));
    }
    Ok(p)
}

/// Sets the quantity of the product's one catalog-priced line (record 0126; 0 removes it,
/// a new one goes after the cart's last line). Lines with a typed or printed price are
/// left alone: they are changed by their number (`cart_lines.rs`).
pub(super) fn set_line(conn: &WriteTx<'_>, cart_id: CartId, product: &Product, quantity: i64, now_ms: i64) -> Result<()> {
    debug_assert!(quantity >= 0, "cart {cart_id} line quantity {quantity}");
    if quantity == 0 {
        conn.exec_cached(
            "DELETE FROM cart_lines WHERE cart_id = ?1 AND product_id = ?2 AND price_source = 'catalog' AND grams IS NULL",
            params![cart_id.0, product.id.0],
        )?;
    } else {
        if super::cart_lines::price_kind_tx(conn, product.id)?.is_open() {
            return Err(Error::PriceRequired { sku: product.sku.clone() });
        }
        if super::weighed::unit_tx(conn, product.id)?.is_weighed() {
            return Err(Error::WeightRequired { sku: product.sku.clone() });
        }
        // Refuse a quantity whose line total would overflow, before storing it.
        product.price.checked_mul(quantity)?;
        // The tax crate's limits, kept for every sale (taxed or not), so a completed sale
        // always fits the wire's `sale_completed` (record 0051).
        if quantity > i64::from(paydesk_tax::MAX_QUANTITY) {
            return Err(Error::QuantityTooLarge { quantity, max: paydesk_tax::MAX_QUANTITY });
        }
        let (lines, has_line): (i64, i64) = conn.row_cached(
            "SELECT count(*), COALESCE(SUM(product_id = ?2 AND price_source = 'catalog' AND grams IS NULL), 0) FROM cart_lines WHERE cart_id = ?1",
            params![cart_id.0, product.id.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if has_line == 0 && lines >= paydesk_tax::MAX_LINES as i64 {
            return Err(Error::TooManyLines { max: paydesk_tax::MAX_LINES });
        }
        conn.exec_cached(
            "INSERT INTO cart_lines (cart_id, line_no, product_id, quantity, unit_price_minor, tax_class, price_source)
             VALUES (?1, (SELECT COALESCE(MAX(line_no), 0) + 1 FROM cart_lines WHERE cart_id = ?1), ?2, ?3, ?4,
                     (SELECT tax_class FROM products WHERE id = ?2), 'catalog')
             ON CONFLICT(cart_id, product_id) WHERE price_source = 'catalog' AND grams IS NULL DO UPDATE SET quantity = excluded.quantity",
            params![cart_id.0, product.id.0, quantity, product.price.amount_minor],
        )?;
    }
    conn.exec_cached("UPDATE carts SET updated_at_ms = ?2 WHERE id = ?1", params![cart_id.0, now_ms])?;
    // The whole cart total must stay representable.
    load_cart(conn, cart_id)?;
    Ok(())
}
