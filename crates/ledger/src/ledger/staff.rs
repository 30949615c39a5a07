//! Staff (table `staff`, record 0062): names, roles, Argon2id PIN hashes and the wrong-PIN
//! counters. Every change and every PIN check writes its audit row in the same
//! transaction, so "who did it" and "it happened" cannot disagree after a crash.
//!
//! The rules themselves (roles, lockout, hashing) are `paydesk_access`'s; this file only
//! stores what they decide.

use std::ops::Deref;
use crate::ledger::Roster;
use paydesk_access::lockout::{LockoutPolicy, PinAttempts};
use paydesk_access::pin::{hash_pin, verify_pin, Pin};
use paydesk_access::{Person, Role};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::audit::{append_audit, AuditInput};
use super::{collect, Cached, Ledger};
use crate::error::{Error, Result};
use crate::write_tx::WriteTx;

/// The most staff one store keeps (a limit on every table).
pub const MAX_STAFF: i64 = 500;

/// A staff member as the register shows them: never the PIN hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Staff {
    pub id: i64,
    pub name: String,
    pub role: Role,
    pub active: bool,
    pub locked_until_ms: Option<i64>,
    pub created_at_ms: i64,
    /// The back office publishes this member (record 0050): read-only at the register.
    #[serde(default)]
    pub published: bool,
}

impl Staff {
    pub fn person(&self) -> Person {
        Person { staff_id: self.id, role: self.role }
    }
}

/// Why a PIN is checked: the audit row says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinPurpose {
    SignIn,
    /// A manager's PIN approving someone else's action.
    Approval,
    /// The current PIN typed to change it: audited as what it was, not as a sign-in.
    PinChange,
}

impl PinPurpose {
    fn action(self, ok: bool) -> &'static str {
        match (self, ok) {
            (PinPurpose::SignIn, true) => "sign_in",
            (PinPurpose::SignIn, false) => "sign_in_failed",
            (PinPurpose::Approval, true) => "approval_pin",
            (PinPurpose::Approval, false) => "approval_pin_failed",
            (PinPurpose::PinChange, true) => "pin_change_checked",
            (PinPurpose::PinChange, false) => "pin_change_failed",
        }
    }
}

pub(super) const STAFF_COLS: &str = "id, name, role, active, locked_until_ms, created_at_ms, published_version IS NOT NULL";

pub(super) fn staff_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Staff>> {
    let role: String = r.get(2)?;
    let role = match Role::parse(&role) {
        Ok(role) => role,
        Err(e) => return Ok(Err(Error::UnknownValue { what: "staff role", value: e.0 })),
    };
    let active: i64 = r.get(3)?;
    Ok(Ok(Staff { id: r.get(0)?, name: r.get(1)?, role, active: active == 1, locked_until_ms: r.get(4)?, created_at_ms: r.get(5)?, published: r.get(6)? }))
}

/// An active staff member by id (inactive or unknown: `None`).
pub(super) fn active_staff_tx(conn: &rusqlite::Connection, id: i64) -> Result<Option<Staff>> {
    let found = conn
        .row_cached(&format!("SELECT {STAFF_COLS} FROM staff WHERE id = ?1 AND active = 1"), [id], staff_of)
        .optional()?;
    found.transpose()
}

/// Wrong approval PINs typed at member `id` on this register (none yet: zero).
fn approval_attempts_tx(tx: &WriteTx<'_>, id: i64) -> Result<PinAttempts> {
    let found = tx
        .row_cached("SELECT failures, locked_until_ms, locks FROM approval_pin_attempts WHERE staff_id = ?1", [id], |r| {
            Ok(PinAttempts { failures: r.get(0)?, locked_until_ms: r.get(1)?, locks: r.get(2)? })
        })
        .optional()?;
    Ok(found.unwrap_or_default())
}

/// A hash of no one's PIN, checked for a name that is not a member so that the answer
/// takes as long as a wrong PIN's. Made once per process (same Argon2 parameters).
fn dummy_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| hash_pin(&Pin::parse("00000000").expect("eight digits are a PIN")))
}

pub(super) fn check_name(name: &str) -> Result<&str> {
    let name = name.trim();
    let n = name.chars().count();
    if n == 0 || n > 60 || name.chars().any(char::is_control) {
        return Err(Error::InvalidInput("a staff name is 1 to 60 characters, no control characters".into()));
    }
    Ok(name)
}

/// Inserts a member whose PIN is already hashed, with its audit row, inside the caller's
/// transaction (the limit and the unique name checked there too). `published_version`:
/// the back office's (record 0050), written by the INSERT itself so the outbox trigger
/// for the register's own staff never sends a published member back up (record 0052).
pub(super) fn add_staff_tx(
    tx: &WriteTx<'_>,
    name: &str,
    role: Role,
    pin_hash: &str,
    published_version: Option<i64>,
    by: Option<i64>,
    now_ms: i64,
) -> Result<Staff> {
    let name = check_name(name)?.to_string();
    let count: i64 = tx.row_cached("SELECT count(*) FROM staff", [], |r| r.get(0))?;
    if count >= MAX_STAFF {
        return Err(Error::InvalidInput(format!("a store keeps at most {MAX_STAFF} staff")));
    }
    let taken: Option<i64> = tx.row_cached("SELECT active FROM staff WHERE name = ?1", [&name], |r| r.get(0)).optional()?;
    match taken {
        // A retired member keeps their name (the audit log and old sales name them): a new
        // member under it would silently bring them back (record 0127).
        Some(0) => return Err(super::staff_admin::StaffRefusal::RetiredName { name }.into()),
        Some(_) => return Err(Error::InvalidInput(format!("there is already a staff member named {name:?}"))),
        None => {}
    }
    tx.exec_cached(
        "INSERT INTO staff (name, role, pin_hash, created_at_ms, published_version) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![name, role.as_str(), pin_hash, now_ms, published_version],
    )?;
    let id = tx.last_insert_rowid();
    let after = serde_json::json!({ "name": name, "role": role.as_str() }).to_string();
    append_audit(
        tx,
        &AuditInput { actor_id: by, after: Some(after), ..AuditInput::new("staff_add", &format!("staff:{id}")) },
        now_ms,
    )?;
    Ok(Staff { id, name, role, active: true, locked_until_ms: None, created_at_ms: now_ms, published: published_version.is_some() })
}

impl<L: Deref<Target = Ledger>> Roster<L> {
    pub fn list(&self) -> Result<Vec<Staff>> {
        collect(&self.conn, &format!("SELECT {STAFF_COLS} FROM staff ORDER BY id"), [], staff_of)
    }

    pub fn by_name(&self, name: &str) -> Result<Option<Staff>> {
        let found = self
            .conn
            .row_cached(&format!("SELECT {STAFF_COLS} FROM staff WHERE name = ?1"), [name.trim()], staff_of)
            .optional()?;
        found.transpose()
    }
}

impl Roster<&mut Ledger> {
    /// Adds a staff member. `by` is who did it (`None` only for the store's first owner,
    /// created at first start). The PIN is hashed before the write lock is taken.
    pub fn add(&mut self, name: &str, role: Role, pin: &Pin, by: Option<i64>, now_ms: i64) -> Result<Staff> {
        let name = check_name(name)?.to_string();
        let pin_hash = hash_pin(pin);
        let tx = self.write_tx()?;
        let staff = add_staff_tx(&tx, &name, role, &pin_hash, None, by, now_ms)?;
        tx.commit()?;
        Ok(staff)
    }

    /// Checks `name`'s PIN under the lockout `policy` (record 0063). The counters and
    /// the audit row are committed whatever the answer, so a wrong PIN counts even if
    /// the register is killed right after. While locked the PIN is not checked at all.
    ///
    /// Which counter: a sign-in or a PIN change counts on the member's own row; an
    /// approval PIN (someone else typing a manager's name at this register) counts on
    /// this register's row for that member (`approval_pin_attempts`), so wrong approval
    /// PINs lock that member's approvals here and never their own sign-in.
    ///
    /// A sign-in answers an unknown (or inactive) name exactly as a wrong PIN, after as
    /// much work (a PIN hash is checked either way), and without the tries left.
    pub fn check_pin(&mut self, name: &str, pin: &Pin, purpose: PinPurpose, policy: LockoutPolicy, now_ms: i64) -> Result<Staff> {
        let tx = self.write_tx()?;
        let row: Option<(i64, String, u32, Option<i64>, u32, i64)> = tx
            .row_cached(
                "SELECT id, pin_hash, pin_failures, locked_until_ms, pin_locks, active FROM staff WHERE name = ?1",
                [name.trim()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
            )
            .optional()?;
        let wrong = |attempts_left: Option<u32>| Error::WrongPin {
            attempts_left: match purpose {
                PinPurpose::SignIn => None,
                PinPurpose::Approval | PinPurpose::PinChange => attempts_left,
            },
        };
        let (id, pin_hash, attempts) = match row {
            Some((id, pin_hash, failures, locked_until_ms, locks, 1)) => match purpose {
                PinPurpose::SignIn | PinPurpose::PinChange => (id, pin_hash, PinAttempts { failures, locked_until_ms, locks }),
                PinPurpose::Approval => (id, pin_hash, approval_attempts_tx(&tx, id)?),
            },
            // An unknown name and a wrong PIN look the same to whoever types them: the same
            // answer after the same work.
            Some(_) | None => {
                let _ = verify_pin(pin, dummy_hash());
                return Err(wrong(None));
            }
        };
        if let Err(locked) = attempts.check(now_ms) {
            return Err(Error::StaffLocked { until_ms: locked.until_ms });
        }
        let ok = verify_pin(pin, &pin_hash).map_err(|e| Error::UnknownValue { what: "PIN hash", value: e.to_string() })?;
        let next = if ok { attempts.after_success() } else { attempts.after_failure(policy, now_ms) };
        match purpose {
            PinPurpose::SignIn | PinPurpose::PinChange => tx.exec_cached(
                "UPDATE staff SET pin_failures = ?1, locked_until_ms = ?2, pin_locks = ?3 WHERE id = ?4",
                params![next.failures, next.locked_until_ms, next.locks, id],
            )?,
            PinPurpose::Approval => tx.exec_cached(
                "INSERT INTO approval_pin_attempts (staff_id, failures, locked_until_ms, locks) VALUES (?4, ?1, ?2, ?3)
                 ON CONFLICT(staff_id) DO UPDATE SET failures = ?1, locked_until_ms = ?2, locks = ?3",
                params![next.failures, next.locked_until_ms, next.locks, id],
            )?,
        };
        let mut audit = AuditInput { actor_id: Some(id), ..AuditInput::new(purpose.action(ok), &format!("staff:{id}")) };
        if let Some(until) = next.locked_until_ms {
            audit.after = Some(serde_json::json!({ "locked_until_ms": until }).to_string());
        }
        append_audit(&tx, &audit, now_ms)?;
        tx.commit()?;
        if !ok {
            return Err(match next.locked_until_ms {
                Some(until_ms) => Error::StaffLocked { until_ms },
                None => wrong(Some(policy.max_failures.saturating_sub(next.failures))),
            });
        }
        self.by_name(name)?.ok_or_else(|| Error::InvalidInput(format!("staff {id} vanished")))
    }

    /// A new PIN, after the old one is checked (a wrong old PIN counts toward the lock).
    pub fn change_pin(&mut self, name: &str, old: &Pin, new: &Pin, policy: LockoutPolicy, now_ms: i64) -> Result<()> {
        // The back office's members change their PIN there (record 0050); refused before
        // the old PIN is checked, so asking costs no try.
        if super::staff_published::staff_published_version(&self.conn, name)?.is_some() {
            return Err(Error::PublishedStaff { name: name.trim().to_string() });
        }
        let who = self.check_pin(name, old, PinPurpose::PinChange, policy, now_ms)?;
        let pin_hash = hash_pin(new);
        let tx = self.write_tx()?;
        tx.exec_cached("UPDATE staff SET pin_hash = ?1 WHERE id = ?2", params![pin_hash, who.id])?;
        append_audit(&tx, &AuditInput { actor_id: Some(who.id), ..AuditInput::new("pin_change", &format!("staff:{}", who.id)) }, now_ms)?;
        tx.commit()?;
        Ok(())
    }
}
