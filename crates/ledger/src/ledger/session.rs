//! Who is signed in at this register (table `register_session`, record 0067): at most
//! one person at a time. Every tender, payment, refund and drawer movement written
//! while they are signed in carries their staff id, and every audit row that names
//! nobody else names them.
//!
//! The session is in the ledger file, not in the app's memory, so "who did it" is
//! decided inside the same transaction as the money row, whichever connection (the
//! app, a recovery task, the CLI) writes it.

use std::ops::Deref;
use crate::ledger::Roster;
use paydesk_access::lockout::LockoutPolicy;
use paydesk_access::pin::Pin;
use rusqlite::{params, Connection, OptionalExtension};

use super::audit::{append_audit, AuditInput};
use super::staff::{active_staff_tx, PinPurpose, Staff};
use super::{Cached, Ledger};
use crate::error::Result;

/// The staff id signed in, if anyone.
pub(crate) fn operator(conn: &Connection) -> Result<Option<i64>> {
    Ok(conn.row_cached("SELECT staff_id FROM register_session WHERE id = 1", [], |r| r.get(0)).optional()?)
}

impl Roster<&mut Ledger> {
    /// Signs `name` in with their PIN (checked under the lockout, audited either way by
    /// [`Roster::check_pin`]); whoever was signed in before is signed out.
    pub fn sign_in(&mut self, name: &str, pin: &Pin, policy: LockoutPolicy, now_ms: i64) -> Result<Staff> {
        let who = self.check_pin(name, pin, PinPurpose::SignIn, policy, now_ms)?;
        let tx = self.write_tx()?;
        tx.exec_cached(
            "INSERT INTO register_session (id, staff_id, since_ms) VALUES (1, ?1, ?2)
             ON CONFLICT(id) DO UPDATE SET staff_id = excluded.staff_id, since_ms = excluded.since_ms",
            params![who.id, now_ms],
        )?;
        tx.commit()?;
        Ok(who)
    }

    /// Signs out whoever is signed in (the register locks); audited as theirs.
    pub fn sign_out(&mut self, now_ms: i64) -> Result<Option<i64>> {
        let tx = self.write_tx()?;
        let Some(staff_id) = operator(&tx)? else { return Ok(None) };
        append_audit(&tx, &AuditInput { actor_id: Some(staff_id), ..AuditInput::new("sign_out", &format!("staff:{staff_id}")) }, now_ms)?;
        tx.exec_cached("DELETE FROM register_session WHERE id = 1", [])?;
        tx.commit()?;
        Ok(Some(staff_id))
    }
}

impl<L: Deref<Target = Ledger>> Roster<L> {
    /// Who is signed in (an inactive member counts as nobody).
    pub fn signed_in(&self) -> Result<Option<Staff>> {
        match operator(&self.conn)? {
            Some(id) => active_staff_tx(&self.conn, id),
            None => Ok(None),
        }
    }
}
