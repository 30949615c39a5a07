//! Staff the back office publishes, applied at the register (record 0050): name, role,
//! active and the Argon2id hash of the PIN set there. Applying is idempotent (a version
//! already held changes nothing) and audited without the hash. A published member is
//! the back office's: the register refuses to change their PIN locally
//! (`Error::PublishedStaff`). The wrong-PIN counters stay the register's own; a new
//! PIN from the back office clears them, as a manager's reset would.

use std::ops::Deref;
use crate::ledger::Roster;
use paydesk_access::pin::check_hash;
use paydesk_access::Role;
use rusqlite::{params, OptionalExtension};

use super::audit::{append_audit, AuditInput};
use super::staff::{add_staff_tx, check_name};
use super::{Cached, Ledger};
use crate::error::{Error, Result};

/// One member as the back office published it at `version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedStaff {
    pub version: i64,
    pub name: String,
    pub role: Role,
    pub active: bool,
    pub pin_hash: String,
}

/// What applying a page of members did; `refused` names each one this register cannot
/// hold and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublishedStaffReport {
    pub applied: usize,
    pub unchanged: usize,
    pub refused: Vec<(String, String)>,
}

/// The back office's version of `name`'s row; None for the register's own staff.
pub(super) fn staff_published_version(conn: &rusqlite::Connection, name: &str) -> Result<Option<i64>> {
    Ok(conn
        .row_cached("SELECT published_version FROM staff WHERE name = ?1", [name.trim()], |r| r.get::<_, Option<i64>>(0))
        .optional()?
        .flatten())
}

impl Roster<&mut Ledger> {
    /// Applies published members in one transaction, by name.
    pub fn apply_published(&mut self, members: &[PublishedStaff], now_ms: i64) -> Result<PublishedStaffReport> {
        let tx = self.write_tx()?;
        let mut report = PublishedStaffReport::default();
        for m in members {
            if let Err(e) = check_name(&m.name) {
                report.refused.push((m.name.clone(), e.to_string()));
                continue;
            }
            if let Err(e) = check_hash(&m.pin_hash) {
                report.refused.push((m.name.clone(), e.to_string()));
                continue;
            }
            let row: Option<(i64, String, i64, String, Option<i64>)> = tx
                .row_cached("SELECT id, role, active, pin_hash, published_version FROM staff WHERE name = ?1", [&m.name], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .optional()?;
            let id = match row {
                Some((_, _, _, _, Some(held))) if held >= m.version => {
                    report.unchanged += 1;
                    continue;
                }
                Some((id, role, active, hash, _)) => {
                    let pin_changed = hash != m.pin_hash;
                    tx.exec_cached(
                        "UPDATE staff SET role = ?2, active = ?3, pin_hash = ?4, published_version = ?5,
                             pin_failures = CASE WHEN ?6 THEN 0 ELSE pin_failures END,
                             locked_until_ms = CASE WHEN ?6 THEN NULL ELSE locked_until_ms END,
                             pin_locks = CASE WHEN ?6 THEN 0 ELSE pin_locks END
                         WHERE id = ?1",
                        params![id, m.role.as_str(), i64::from(m.active), m.pin_hash, m.version, pin_changed],
                    )?;
                    let before = serde_json::json!({ "role": role, "active": active == 1 });
                    let after = serde_json::json!({ "role": m.role.as_str(), "active": m.active, "pin_changed": pin_changed });
                    let input = AuditInput {
                        before: Some(before.to_string()),
                        after: Some(after.to_string()),
                        reason: Some(format!("published by the back office at version {}", m.version)),
                        ..AuditInput::new("staff_published", &format!("staff:{id}"))
                    };
                    append_audit(&tx, &input, now_ms)?;
                    id
                }
                None => match add_staff_tx(&tx, &m.name, m.role, &m.pin_hash, Some(m.version), None, now_ms) {
                    Ok(s) => {
                        tx.exec_cached(
                            "UPDATE staff SET active = ?2, published_version = ?3 WHERE id = ?1",
                            params![s.id, i64::from(m.active), m.version],
                        )?;
                        s.id
                    }
                    // The register's own limit (MAX_STAFF): named, the rest applied.
                    Err(Error::InvalidInput(why)) => {
                        report.refused.push((m.name.clone(), why));
                        continue;
                    }
                    Err(e) => return Err(e),
                },
            };
            debug_assert!(id > 0);
            report.applied += 1;
        }
        tx.commit()?;
        Ok(report)
    }
}

impl<L: Deref<Target = Ledger>> Roster<L> {
    /// The names of the staff the back office publishes (shown read-only, record 0050).
    pub fn published_names(&self) -> Result<Vec<String>> {
        super::collect(&self.conn, "SELECT name FROM staff WHERE published_version IS NOT NULL ORDER BY name", [], |r| {
            Ok(Ok(r.get::<_, String>(0)?))
        })
    }
}
