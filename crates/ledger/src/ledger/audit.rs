//! The audit log (table `audit_log`): what a person decided and why, e.g. the
//! cashier's override of design §3.3 with the reason they gave.

use rusqlite::params;

use super::{collect, Ledger};
use crate::error::Result;
use crate::types::*;

impl Ledger {
    /// Appends to the audit log (e.g. the cashier's override of design §3.3 with the
    /// reason they gave). Durable on return.
    pub fn audit(&mut self, action: &str, reason: &str, detail: Option<&str>, now_ms: i64) -> Result<i64> {
        let tx = self.write_tx()?;
        tx.exec_cached(
            "INSERT INTO audit_log (at_ms, action, reason, detail) VALUES (?1, ?2, ?3, ?4)",
            params![now_ms, action, reason, detail],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    pub fn audit_log(&self) -> Result<Vec<AuditEntry>> {
        collect(&self.conn, "SELECT id, at_ms, action, reason, detail FROM audit_log ORDER BY id", [], |r| {
            Ok(Ok(AuditEntry { id: r.get(0)?, at_ms: r.get(1)?, action: r.get(2)?, reason: r.get(3)?, detail: r.get(4)? }))
        })
    }
}
