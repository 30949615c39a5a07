//! Successor links (table `payment_successors`): a new payment explicitly started after
//! another ("Try another card", `checkout --after`), at most one per predecessor, so
//! re-running the same command resumes it instead of charging again.

use std::ops::Deref;
use crate::ledger::Payments;
use rusqlite::{params, Connection, OptionalExtension};

use super::payments::{insert_payment, open_checkout_in};
use super::rows::{payment_by_id_tx, payment_from_row};
use super::{Cached, Ledger, PAYMENT_COLS};
use crate::error::{Error, Result};
use paydesk_domain::money::Money;
use crate::types::*;

impl<L: Deref<Target = Ledger>> Payments<L> {
    /// The payment explicitly started after `previous` with [`Payments::payment_after`], if any.
    pub fn successor_of(&self, previous: PaymentId) -> Result<Option<Payment>> {
        successor_tx(&self.conn, previous)
    }
}

impl Payments<&mut Ledger> {
    /// A new payment explicitly started after `previous` ("Try another card", the CLI's
    /// `checkout --after`), at most once per predecessor: if `previous` already has a
    /// successor, that payment is returned with `is_new == false` and nothing is written
    /// (re-running the same command resumes it, never a second payment). Otherwise the
    /// new payment (as [`Payments::create`], or for a cart as
    /// [`Payments::open_checkout`] / [`Payments::open_checkout_override`] with
    /// `override_reason`) and its link to `previous` are committed in one transaction.
    /// A cart's open checkout that is not `previous`'s successor is returned as by
    /// `open_checkout` (`is_new == false`, not linked).
    pub fn payment_after(&mut self, previous: PaymentId, after: After<'_>, now_ms: i64) -> Result<Checkout> {
        if let After::Cart { override_reason: Some(r), .. } = &after {
            if r.trim().is_empty() {
                return Err(Error::InvalidInput("an override needs a reason".into()));
            }
        }
        let key = self.new_key();
        let tx = self.write_tx()?;
        payment_by_id_tx(&tx, previous)?;
        if let Some(next) = successor_tx(&tx, previous)? {
            return Ok(Checkout { payment: next, is_new: false });
        }
        let co = match after {
            After::Amount(new) => {
                let amount = Money::positive(new.amount.amount_minor, new.amount.currency)?;
                let id = insert_payment(&tx, &key, amount, &new.options, None, now_ms)?;
                Checkout { payment: payment_by_id_tx(&tx, id)?, is_new: true }
            }
            After::Cart { cart_id, options, override_reason } => {
                open_checkout_in(&tx, &key, cart_id, options, override_reason, now_ms)?
            }
        };
        if co.is_new {
            tx.exec_cached(
                "INSERT INTO payment_successors (previous_id, next_id, created_at_ms) VALUES (?1, ?2, ?3)",
                params![previous.0, co.payment.id.0, now_ms],
            )?;
            tx.commit()?;
        }
        Ok(co)
    }
}

pub(super) fn successor_tx(conn: &Connection, previous: PaymentId) -> Result<Option<Payment>> {
    let sql = format!(
        "SELECT {PAYMENT_COLS} FROM payments WHERE id = (SELECT next_id FROM payment_successors WHERE previous_id = ?1)"
    );
    conn.row_cached(&sql, [previous.0], payment_from_row).optional()?.transpose()
}
