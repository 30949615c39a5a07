//! Held sales (issue #30, record 0128; table `held_carts`): the cashier parks a cart with
//! nothing tendered, serves the next customer, then recalls it or discards it.
//!
//! A cart is *frozen* while parked and for good once discarded: its lines, head and
//! tenders are refused here with typed errors and by the schema's triggers. Parking is
//! refused for an empty cart, for one with anything tendered (a payment, cash, a store
//! tender, an exchange credit, a lock) and at the limit of parked carts the caller passes
//! (the register's setting). Every hold, recall and discard is one transaction with its
//! audit row.

use std::ops::Deref;

use rusqlite::{params, Connection, OptionalExtension};

use super::audit::{append_audit, AuditInput};
use super::carts::load_cart;
use super::{collect, Cached, Ledger};
use crate::error::{Error, Result};
use crate::ledger::Carts;
use crate::types::*;
use paydesk_domain::money::Money;

/// The most carts a register may park at once, whatever its setting says.
pub const MAX_HELD_LIMIT: u32 = 20;

pub use crate::error::HoldRefusal;

/// A parked cart as the list of held sales shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HeldCart {
    pub cart_id: CartId,
    pub held_at_ms: i64,
    pub held_by: Option<i64>,
    /// Pieces in the cart (the sum of the lines' quantities).
    pub items: i64,
    pub lines: usize,
    /// What the customer will pay (the cart's total as it is now).
    pub total: Money,
}

/// Refuses a change or a tender on a parked or discarded cart (record 0128).
pub(crate) fn refuse_held(cart: &Cart) -> Result<()> {
    if cart.held {
        return Err(Error::CartHeld { cart_id: cart.id.0 });
    }
    Ok(())
}

/// The id of the row that parks `cart_id` now, if it is parked.
fn parked_row(conn: &Connection, cart_id: CartId) -> Result<Option<i64>> {
    Ok(conn
        .row_cached("SELECT id FROM held_carts WHERE cart_id = ?1 AND ended_how IS NULL", [cart_id.0], |r| r.get(0))
        .optional()?)
}

/// Whether anything was ever tendered on the cart (any tender, payment, cash movement,
/// exchange credit or cancel), whatever became of it.
pub(super) fn anything_tendered(conn: &Connection, cart_id: CartId) -> Result<bool> {
    let n: i64 = conn.row_cached(
        "SELECT (SELECT count(*) FROM tenders WHERE cart_id = ?1)
              + (SELECT count(*) FROM payments WHERE cart_id = ?1)
              + (SELECT count(*) FROM cash_movements WHERE cart_id = ?1)
              + (SELECT count(*) FROM exchanges WHERE new_cart_id = ?1)
              + (SELECT count(*) FROM sale_cancels WHERE cart_id = ?1)",
        [cart_id.0],
        |r| r.get(0),
    )?;
    Ok(n > 0)
}

fn held_of(conn: &Connection, cart_id: CartId, held_at_ms: i64, held_by: Option<i64>) -> Result<HeldCart> {
    let cart = load_cart(conn, cart_id)?;
    Ok(HeldCart {
        cart_id,
        held_at_ms,
        held_by,
        items: cart.lines.iter().map(|l| l.quantity).sum(),
        lines: cart.lines.len(),
        total: cart.total,
    })
}

fn audit(actor: Option<i64>, action: &str, cart_id: CartId, after: serde_json::Value) -> AuditInput {
    AuditInput { actor_id: actor, after: Some(after.to_string()), ..AuditInput::new(action, &format!("cart:{}", cart_id.0)) }
}

fn refused(cart_id: CartId, why: HoldRefusal) -> Error {
    Error::HoldRefused { cart_id: cart_id.0, why }
}

impl<L: Deref<Target = Ledger>> Carts<L> {
    /// The parked carts, oldest first.
    pub fn held(&self) -> Result<Vec<HeldCart>> {
        let rows: Vec<(i64, i64, Option<i64>)> = collect(
            &self.conn,
            "SELECT cart_id, held_at_ms, held_by FROM held_carts WHERE ended_how IS NULL ORDER BY held_at_ms, id",
            [],
            |r| Ok(Ok((r.get(0)?, r.get(1)?, r.get(2)?))),
        )?;
        rows.into_iter().map(|(c, at, by)| held_of(&self.conn, CartId(c), at, by)).collect()
    }

    /// Whether the cart is parked now or was discarded (no line, tender or change).
    pub fn is_frozen(&self, cart_id: CartId) -> Result<bool> {
        Ok(load_cart(&self.conn, cart_id)?.held)
    }
}

impl Carts<&mut Ledger> {
    /// Parks an open cart with lines and nothing tendered, if fewer than `max_held`
    /// (1 to [`MAX_HELD_LIMIT`]) are parked; `by` is who parked it.
    pub fn hold(&mut self, cart_id: CartId, max_held: u32, by: Option<i64>, now_ms: i64) -> Result<HeldCart> {
        if !(1..=MAX_HELD_LIMIT).contains(&max_held) {
            return Err(Error::InvalidInput(format!("the limit of held carts {max_held} is not 1 to {MAX_HELD_LIMIT}")));
        }
        let tx = self.write_tx()?;
        let cart = load_cart(&tx, cart_id)?;
        refuse_held(&cart)?;
        match cart.state {
            CartState::Open => {}
            CartState::Locked | CartState::Paid => return Err(refused(cart_id, HoldRefusal::Tendered)),
        }
        if anything_tendered(&tx, cart_id)? {
            return Err(refused(cart_id, HoldRefusal::Tendered));
        }
        if cart.lines.is_empty() {
            return Err(refused(cart_id, HoldRefusal::Empty));
        }
        let parked: i64 = tx.row_cached("SELECT count(*) FROM held_carts WHERE ended_how IS NULL", [], |r| r.get(0))?;
        if parked >= i64::from(max_held) {
            return Err(refused(cart_id, HoldRefusal::AtLimit { max: max_held }));
        }
        tx.exec_cached(
            "INSERT INTO held_carts (cart_id, held_at_ms, held_by) VALUES (?1, ?2, ?3)",
            params![cart_id.0, now_ms, by],
        )?;
        let held = held_of(&tx, cart_id, now_ms, by)?;
        let after = serde_json::json!({ "items": held.items, "total_minor": held.total.amount_minor });
        append_audit(&tx, &audit(by, "cart_hold", cart_id, after), now_ms)?;
        tx.commit()?;
        Ok(held)
    }

    /// Takes a parked cart back: editable and payable again.
    pub fn recall(&mut self, cart_id: CartId, by: Option<i64>, now_ms: i64) -> Result<Cart> {
        self.end_hold(cart_id, HoldEnd::Recalled, by, now_ms)?;
        load_cart(&self.conn, cart_id)
    }

    /// Discards a parked cart: its lines are void for good (kept, never sold or edited).
    pub fn discard_held(&mut self, cart_id: CartId, by: Option<i64>, now_ms: i64) -> Result<()> {
        self.end_hold(cart_id, HoldEnd::Discarded, by, now_ms)
    }

    fn end_hold(&mut self, cart_id: CartId, how: HoldEnd, by: Option<i64>, now_ms: i64) -> Result<()> {
        let tx = self.write_tx()?;
        load_cart(&tx, cart_id)?;
        let row = parked_row(&tx, cart_id)?.ok_or(refused(cart_id, HoldRefusal::NotHeld))?;
        tx.exec_cached(
            "UPDATE held_carts SET ended_at_ms = ?2, ended_how = ?3 WHERE id = ?1",
            params![row, now_ms, how.as_str()],
        )?;
        let action = how.audit_action();
        append_audit(&tx, &audit(by, action, cart_id, serde_json::json!({ "held": row })), now_ms)?;
        tx.commit()?;
        Ok(())
    }
}

/// How a hold ended: its word in `held_carts.ended_how` and its audit action, from one
/// match (no decision from the stored word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HoldEnd {
    Recalled,
    Discarded,
}

impl HoldEnd {
    fn as_str(self) -> &'static str {
        match self {
            HoldEnd::Recalled => "recalled",
            HoldEnd::Discarded => "discarded",
        }
    }

    fn audit_action(self) -> &'static str {
        match self {
            HoldEnd::Recalled => "cart_recall",
            HoldEnd::Discarded => "cart_discard",
        }
    }
}
