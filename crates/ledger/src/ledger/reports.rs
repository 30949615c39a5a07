//! What the End-of-day report and the history read: payments newest first, and when
//! the ledger's history starts. Read-only; the app runs these on a reader.

use std::ops::Deref;
use crate::ledger::Payments;
use rusqlite::{params, OptionalExtension};

use super::rows::payment_from_row;
use super::{collect, Cached, Ledger, PAYMENT_COLS};
use crate::error::Result;
use crate::types::*;

impl<L: Deref<Target = Ledger>> Payments<L> {
    /// Newest first.
    pub fn list(&self, limit: i64, offset: i64) -> Result<Vec<Payment>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payments ORDER BY id DESC LIMIT ?1 OFFSET ?2");
        collect(&self.conn, &sql, params![limit, offset], payment_from_row)
    }

    /// When this ledger's first payment was created (register clock, ms), if any. The
    /// first payment by id: O(1) however long the history.
    pub fn first_created_at_ms(&self) -> Result<Option<i64>> {
        Ok(self
            .conn
            .row_cached("SELECT created_at_ms FROM payments ORDER BY id LIMIT 1", [], |r| r.get(0))
            .optional()?)
    }

    /// End of day's payment counts for payments created at or after `since_ms` in
    /// `currency`: how many failed (declined or refused), and how many attempts the PSP
    /// answered with its stored first response (a replay) or turned away while the first
    /// ran (409) — each would have been a second charge without the idempotency key.
    pub fn day_stats(&self, currency: paydesk_domain::money::Currency, since_ms: i64) -> Result<PaymentDayStats> {
        let declined = self.conn.row_cached(
            "SELECT count(*) FROM payments WHERE state = 'failed' AND currency = ?1 AND created_at_ms >= ?2",
            params![currency.code(), since_ms],
            |r| r.get(0),
        )?;
        let duplicates_prevented = self.conn.row_cached(
            "SELECT count(*) FROM payment_timeline tl JOIN payments p ON p.id = tl.payment_id
             WHERE p.currency = ?1 AND p.created_at_ms >= ?2 AND tl.kind = 'attempt'
               AND (tl.replayed = 1 OR tl.outcome = 'in_progress_409')",
            params![currency.code(), since_ms],
            |r| r.get(0),
        )?;
        Ok(PaymentDayStats { declined, duplicates_prevented })
    }
}

/// See [`Payments::day_stats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PaymentDayStats {
    pub declined: i64,
    pub duplicates_prevented: i64,
}
