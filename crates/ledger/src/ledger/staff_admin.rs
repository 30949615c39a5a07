//! An owner's changes to the register's own staff (record 0127): a new role, a PIN reset
//! and retirement. Each one checks, inside its one write transaction, that the person
//! acting is an active member the role table lets do staff admin, that the member is the
//! register's own and still active, and that the store keeps an active owner; then it
//! writes the change and its audit row together. A refusal writes nothing.
//!
//! What goes up to the back office is the v13 outbox trigger's: it fires on an UPDATE of
//! `role` or `active` of a member the register owns, so a role change and a retirement
//! are sent as a `staff_saved` fact. A PIN reset is not sent: no fact ever carries a PIN
//! or its hash.

use paydesk_access::pin::{hash_pin, Pin};
use paydesk_access::{authorize, Action, Authorization, Role};
use rusqlite::{params, OptionalExtension};

use super::audit::{append_audit, AuditInput};
use super::staff::{active_staff_tx, staff_of, Staff, STAFF_COLS};
use super::{Cached, Ledger, Roster};
use crate::error::{Error, Result};
pub use crate::staff_refusal::StaffRefusal;
use crate::write_tx::WriteTx;

/// The acting person: active, and allowed staff admin alone (no approval stands in for
/// an owner here: record 0062 gives staff admin to owners only).
fn acting_tx(tx: &WriteTx<'_>, by: i64) -> Result<Staff> {
    let who = active_staff_tx(tx, by)?.ok_or(Error::InactiveStaff { staff_id: by, who: "actor" })?;
    match authorize(who.person(), Action::StaffAdmin, None) {
        Authorization::Allowed => Ok(who),
        refused @ (Authorization::Approved { .. }
        | Authorization::NeedsApproval { .. }
        | Authorization::ApproverTooLow { .. }
        | Authorization::SelfApproval) => Err(Error::NotAllowed { action: Action::StaffAdmin.as_str(), authorization: refused }),
    }
}

/// The member `name`, if the register may change them: known, its own, not retired.
fn changeable_tx(tx: &WriteTx<'_>, name: &str) -> Result<Staff> {
    let name = name.trim();
    let found = tx.row_cached(&format!("SELECT {STAFF_COLS} FROM staff WHERE name = ?1"), [name], staff_of).optional()?;
    let member = found.transpose()?.ok_or_else(|| StaffRefusal::Unknown { name: name.to_string() })?;
    if member.published {
        return Err(StaffRefusal::Published { name: member.name }.into());
    }
    if !member.active {
        return Err(StaffRefusal::Retired { name: member.name }.into());
    }
    Ok(member)
}

/// Refuses a change that takes `member` out of the store's active owners when they are
/// the last one (published owners count: they can sign in here too).
fn keep_an_owner_tx(tx: &WriteTx<'_>, member: &Staff) -> Result<()> {
    if member.role != Role::Owner {
        return Ok(());
    }
    let others: i64 =
        tx.row_cached("SELECT count(*) FROM staff WHERE role = 'owner' AND active = 1 AND id <> ?1", [member.id], |r| r.get(0))?;
    if others == 0 {
        return Err(StaffRefusal::LastOwner { name: member.name.clone() }.into());
    }
    Ok(())
}

fn audit_tx(tx: &WriteTx<'_>, action: &str, by: i64, member: &Staff, before: serde_json::Value, after: serde_json::Value, now_ms: i64) -> Result<()> {
    let input = AuditInput {
        actor_id: Some(by),
        before: Some(before.to_string()),
        after: Some(after.to_string()),
        ..AuditInput::new(action, &format!("staff:{}", member.id))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(())
}

impl Roster<&mut Ledger> {
    /// Gives `name` a new role; `by` is the owner doing it.
    pub fn set_role(&mut self, name: &str, role: Role, by: i64, now_ms: i64) -> Result<Staff> {
        let tx = self.write_tx()?;
        acting_tx(&tx, by)?;
        let mut member = changeable_tx(&tx, name)?;
        if member.role == role {
            return Err(StaffRefusal::SameRole { name: member.name, role }.into());
        }
        if role != Role::Owner {
            keep_an_owner_tx(&tx, &member)?;
        }
        tx.exec_cached("UPDATE staff SET role = ?1 WHERE id = ?2", params![role.as_str(), member.id])?;
        let before = serde_json::json!({ "role": member.role.as_str() });
        audit_tx(&tx, "staff_role", by, &member, before, serde_json::json!({ "role": role.as_str() }), now_ms)?;
        tx.commit()?;
        member.role = role;
        Ok(member)
    }

    /// Sets a new PIN for `name` (they forgot theirs, or it was seen): their wrong-PIN
    /// counters and lock, at sign-in and as an approver, start again. The PIN is hashed
    /// before the write lock is taken.
    pub fn reset_pin(&mut self, name: &str, pin: &Pin, by: i64, now_ms: i64) -> Result<Staff> {
        let pin_hash = hash_pin(pin);
        let tx = self.write_tx()?;
        acting_tx(&tx, by)?;
        let mut member = changeable_tx(&tx, name)?;
        tx.exec_cached(
            "UPDATE staff SET pin_hash = ?1, pin_failures = 0, locked_until_ms = NULL, pin_locks = 0 WHERE id = ?2",
            params![pin_hash, member.id],
        )?;
        tx.exec_cached("DELETE FROM approval_pin_attempts WHERE staff_id = ?1", [member.id])?;
        // Never the hash: only that the lock, if any, was lifted.
        let before = serde_json::json!({ "locked_until_ms": member.locked_until_ms });
        audit_tx(&tx, "staff_pin_reset", by, &member, before, serde_json::json!({ "locked_until_ms": null }), now_ms)?;
        tx.commit()?;
        member.locked_until_ms = None;
        Ok(member)
    }

    /// Retires `name`: they no longer sign in or approve, and are signed out if they are
    /// at this register now. Their row stays (old sales and the audit log name them).
    pub fn retire(&mut self, name: &str, by: i64, now_ms: i64) -> Result<Staff> {
        let tx = self.write_tx()?;
        acting_tx(&tx, by)?;
        let mut member = changeable_tx(&tx, name)?;
        keep_an_owner_tx(&tx, &member)?;
        tx.exec_cached("UPDATE staff SET active = 0 WHERE id = ?1", [member.id])?;
        tx.exec_cached("DELETE FROM register_session WHERE id = 1 AND staff_id = ?1", [member.id])?;
        let before = serde_json::json!({ "active": true });
        audit_tx(&tx, "staff_retire", by, &member, before, serde_json::json!({ "active": false }), now_ms)?;
        tx.commit()?;
        member.active = false;
        Ok(member)
    }
}
