//! What the End-of-day report and the history read: payments newest first, and when
//! the ledger's history starts. Read-only; the app runs these on a reader.

use rusqlite::{params, OptionalExtension};

use super::rows::payment_from_row;
use super::{collect, Cached, Ledger, PAYMENT_COLS};
use crate::error::Result;
use crate::types::*;

impl Ledger {
    /// Newest first.
    pub fn list_payments(&self, limit: i64, offset: i64) -> Result<Vec<Payment>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payments ORDER BY id DESC LIMIT ?1 OFFSET ?2");
        collect(&self.conn, &sql, params![limit, offset], payment_from_row)
    }

    /// When this ledger's first payment was created (register clock, ms), if any. The
    /// first payment by id: O(1) however long the history.
    pub fn first_payment_created_at_ms(&self) -> Result<Option<i64>> {
        Ok(self
            .conn
            .row_cached("SELECT created_at_ms FROM payments ORDER BY id LIMIT 1", [], |r| r.get(0))
            .optional()?)
    }
}
