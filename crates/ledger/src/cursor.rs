//! The event consumer's cursor (schema v2, table `event_cursors`): where the last
//! fully applied `/v1/events` poll ended, per PSP endpoint, so a restarted register
//! resumes there instead of re-reading the whole lookback. Application itself is
//! exactly-once through `processed_events` (record 0011); the cursor only saves work.
//!
//! Written through the ledger's one write path (`Ledger::write_tx`), like every other
//! write.

use std::ops::Deref;
use crate::ledger::SyncLog;
use crate::error::{Error, Result};
use crate::ledger::Ledger;
use rusqlite::OptionalExtension;

/// Longest accepted endpoint name (the table's CHECK says the same).
pub const MAX_CURSOR_NAME_LEN: usize = 512;

fn check_name(psp: &str) -> Result<()> {
    if psp.is_empty() || psp.len() > MAX_CURSOR_NAME_LEN {
        return Err(Error::InvalidInput(format!(
            "event cursor name must be 1 to {MAX_CURSOR_NAME_LEN} bytes (got {})",
            psp.len()
        )));
    }
    Ok(())
}

impl<L: Deref<Target = Ledger>> SyncLog<L> {
    /// The stored cursor (newest applied event's `created`, Unix seconds) for `psp`.
    pub fn event_cursor(&self, psp: &str) -> Result<Option<i64>> {
        check_name(psp)?;
        Ok(self
            .connection()
            .prepare_cached("SELECT created_s FROM event_cursors WHERE psp = ?1")?
            .query_row([psp], |r| r.get(0))
            .optional()?)
    }
}

impl SyncLog<&mut Ledger> {
    /// Moves the cursor of `psp` forward to `created_s`, never backwards (two pollers
    /// finishing out of order keep the newer one). Returns the stored value.
    pub fn advance_event_cursor(&mut self, psp: &str, created_s: i64, now_ms: i64) -> Result<i64> {
        check_name(psp)?;
        if created_s < 0 {
            return Err(Error::InvalidInput(format!("event cursor must not be negative (got {created_s})")));
        }
        let tx = self.write_tx()?;
        // Cached: every event poll moves it (no fresh parse per poll).
        let stored = tx
            .prepare_cached(
                "INSERT INTO event_cursors (psp, created_s, updated_at_ms) VALUES (?1, ?2, ?3)
             ON CONFLICT(psp) DO UPDATE SET created_s = max(created_s, excluded.created_s),
                                            updated_at_ms = excluded.updated_at_ms
             RETURNING created_s",
            )?
            .query_row(rusqlite::params![psp, created_s, now_ms], |r| r.get(0))?;
        tx.commit()?;
        Ok(stored)
    }
}
