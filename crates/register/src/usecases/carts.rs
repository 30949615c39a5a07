//! Carts and the sales on them (record 0035, 0056): made, filled, discounted, their eat-in
//! or take-out. Tenders, cancels and refunds are the engine's sale operations.

use paydesk_tax::{Dining, Discount};
use paydesk_ledger::{Cart, CartId, Error, HeldCart, PriceSource, Result, Sale};
use paydesk_domain::Currency;

use crate::Engine;

/// Cart use cases; see [`Engine::carts`].
pub struct CartCases<'e> {
    pub(super) engine: &'e Engine,
}

impl CartCases<'_> {
    /// A new empty cart in `currency`.
    pub fn create(&self, currency: Currency) -> Result<CartId> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().create(currency, now))
    }

    /// A new cart with `items` (SKU, quantity) and its dining, or nothing at all: every
    /// SKU is checked (known, in `currency`) before the cart is made.
    pub fn create_with(&self, currency: Currency, items: &[(String, i64)], dining: Option<Dining>) -> Result<CartId> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            for (sku, _) in items {
                let p = l.carts().product_by_sku(sku)?.ok_or_else(|| Error::UnknownProduct(sku.clone()))?;
                if p.price.currency != currency {
                    return Err(Error::CurrencyMismatch { expected: currency, found: p.price.currency });
                }
            }
            let cart = l.carts_mut().create(currency, now)?;
            if let Some(d) = dining {
                l.carts_mut().set_dining(cart, d, now)?;
            }
            for (sku, qty) in items {
                l.carts_mut().add(cart, sku, *qty, now)?;
            }
            Ok(cart)
        })
    }

    /// The cart as stored.
    pub fn cart(&self, id: CartId) -> Result<Cart> {
        self.engine.with_reader(|l| l.carts().by_id(id))
    }

    /// The cart as the writer sees it now: waits for a write in progress and sees it
    /// (for a check a following write depends on).
    pub fn cart_now(&self, id: CartId) -> Result<Cart> {
        self.engine.with_ledger(|l| l.carts().by_id(id))
    }

    /// The sale on the cart: its tenders, totals and state.
    pub fn sale(&self, id: CartId) -> Result<Sale> {
        self.engine.with_reader(|l| l.sales().by_cart(id))
    }

    /// The sale as the writer sees it now (after this register's own writes, and any
    /// write in progress): see [`CartCases::cart_now`].
    pub fn sale_now(&self, id: CartId) -> Result<Sale> {
        self.engine.with_ledger(|l| l.sales().by_cart(id))
    }

    /// Adds `quantity` of `sku` to the cart.
    pub fn add(&self, id: CartId, sku: &str, quantity: i64) -> Result<Cart> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().add(id, sku, quantity, now))
    }

    /// Sets a line's quantity (0 removes it) only if `accept` takes the cart it leaves
    /// (a rule over the new figures, such as the cashier's discount limit); refused,
    /// nothing changes and `Ok(None)` is returned.
    pub fn set_quantity_if(&self, id: CartId, sku: &str, quantity: i64, accept: impl FnOnce(&Cart) -> bool) -> Result<Option<Cart>> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().set_quantity_if(id, sku, quantity, now, accept))
    }

    /// Rings `sku`, an open-price item or department key, as a new line at the typed
    /// `price_minor` (record 0126); returns the cart and the line's number. `allowed_by`
    /// is the member whose role covers a price above the store's limit (the cashier when
    /// a manager, else the approver), checked again by the ledger; refused typed without.
    pub fn add_open(&self, id: CartId, sku: &str, price_minor: i64, allowed_by: Option<i64>) -> Result<(Cart, i64)> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().add_priced(id, sku, price_minor, PriceSource::Open, allowed_by, now))
    }

    /// Rings `sku` as a new line at a price label's `price_minor` (record 0126).
    pub fn add_label(&self, id: CartId, sku: &str, price_minor: i64) -> Result<(Cart, i64)> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().add_priced(id, sku, price_minor, PriceSource::Label, None, now))
    }

    /// Rings `grams` of the weighed item `sku` as a new line at its price per unit (record
    /// 0134): typed from a scale's display or read from a weight label.
    pub fn add_weighed(&self, id: CartId, sku: &str, grams: i64) -> Result<(Cart, i64)> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().add_weighed(id, sku, grams, now))
    }

    /// Sets the quantity of line `line_no` (0 removes it), whatever its price's source.
    pub fn set_line_quantity(&self, id: CartId, line_no: i64, quantity: i64) -> Result<Cart> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().set_line_quantity(id, line_no, quantity, now))
    }

    /// The store's open-price limit in minor units (record 0126).
    pub fn open_price_limit(&self) -> Result<i64> {
        self.engine.with_reader(|l| l.catalog().open_price_limit())
    }

    /// Eat-in or take-out (the reduced rate's rule).
    pub fn set_dining(&self, id: CartId, dining: Dining) -> Result<Cart> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().set_dining(id, dining, now))
    }

    /// A discount (or none) on the line of `sku`, or on the whole sale without one.
    pub fn set_discount(&self, id: CartId, sku: Option<&str>, discount: Option<Discount>) -> Result<Cart> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| match sku {
            Some(s) => l.carts_mut().set_line_discount(id, s, discount, now),
            None => l.carts_mut().set_sale_discount(id, discount, now),
        })
    }

    /// Makes the sale tax exempt for `reason`, or taxes it again (`None`) (record 0135).
    /// The ledger checks the role table (with `approver_id`, whose PIN the caller checked),
    /// the store's setting and that nothing is tendered, and audits it.
    pub fn set_tax_exempt(&self, id: CartId, reason: Option<&str>, approver_id: Option<i64>) -> Result<Cart> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().set_tax_exempt(id, reason, approver_id, now))
    }

    /// Parks the cart (record 0128): only one with lines and nothing tendered, and only
    /// while fewer than `max_held` carts are parked; `by` is who parked it.
    pub fn hold(&self, id: CartId, max_held: u32, by: Option<i64>) -> Result<HeldCart> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().hold(id, max_held, by, now))
    }

    /// The parked carts, oldest first.
    pub fn held(&self) -> Result<Vec<HeldCart>> {
        self.engine.with_ledger(|l| l.carts().held())
    }

    /// Takes a parked cart back, to be edited and paid.
    pub fn recall(&self, id: CartId, by: Option<i64>) -> Result<Cart> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().recall(id, by, now))
    }

    /// Discards a parked cart: its lines are void for good (audited).
    pub fn discard_held(&self, id: CartId, by: Option<i64>) -> Result<()> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.carts_mut().discard_held(id, by, now))
    }
}
