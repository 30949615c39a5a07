//! The audit log (table `audit_log`, record 0064): every action someone took — an
//! override with the reason they gave, a sign-in, a staff change — one row each, chained
//! by SHA-256 (`paydesk_access::audit`) so a row changed, deleted or moved by hand is
//! found by [`Audit::verify`].
//!
//! Rows are appended inside the transaction of the action they record
//! ([`append_audit`]), so an action and its audit row are committed together or not
//! at all. The row's id is its `seq` in the chain.

use std::ops::Deref;
use crate::ledger::Audit;
use paydesk_access::audit::{self as chain, Anchor, AuditRecord, ChainedRecord, Hash, Verdict};
use rusqlite::{params, Connection, OptionalExtension};

use super::{collect, Cached, Ledger};
use crate::error::{Error, Result};
use crate::types::*;

const AUDIT_COLS: &str = "id, at_ms, actor_id, approver_id, action, subject, reason, before_doc, after_doc, prev_hash, hash";

/// One action to record. `reason`, when given, is the person's own words (non-empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditInput {
    pub actor_id: Option<i64>,
    pub approver_id: Option<i64>,
    pub action: String,
    pub subject: String,
    pub reason: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
}

impl AuditInput {
    pub fn new(action: &str, subject: &str) -> AuditInput {
        AuditInput { action: action.to_string(), subject: subject.to_string(), ..AuditInput::default() }
    }
}

fn to_hash(bytes: Option<Vec<u8>>, id: i64) -> Result<Option<Hash>> {
    match bytes {
        None => Ok(None),
        Some(b) => Hash::try_from(b.as_slice()).map(Some).map_err(|_| Error::UnknownValue {
            what: "audit hash length",
            value: format!("row {id}: {} bytes", b.len()),
        }),
    }
}

/// A stored row as the chain sees it. `reason` is stored as '' when none was given
/// (the column predates the chain and is NOT NULL).
fn chained_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<(ChainedRecord, bool)>> {
    let id: i64 = r.get(0)?;
    let reason: String = r.get(6)?;
    let record = AuditRecord {
        seq: id as u64,
        at_ms: r.get(1)?,
        actor_id: r.get(2)?,
        approver_id: r.get(3)?,
        action: r.get(4)?,
        subject: r.get(5)?,
        reason: (!reason.is_empty()).then_some(reason),
        before: r.get(7)?,
        after: r.get(8)?,
    };
    let prev = to_hash(r.get(9)?, id);
    let hash = to_hash(r.get(10)?, id);
    Ok((|| {
        let (prev, hash) = (prev?, hash?);
        let sealed = prev.is_some() && hash.is_some();
        Ok((ChainedRecord { record, prev_hash: prev.unwrap_or(chain::GENESIS), hash: hash.unwrap_or(chain::GENESIS) }, sealed))
    })())
}

/// The chain's last row (genesis when empty), inside a caller's transaction.
pub(crate) fn audit_head_tx(conn: &Connection) -> Result<Anchor> {
    let last: Option<(i64, Option<Vec<u8>>)> = conn
        .row_cached("SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    match last {
        None => Ok(Anchor::GENESIS),
        Some((id, h)) => match to_hash(h, id)? {
            Some(hash) => Ok(Anchor { seq: id as u64, hash }),
            None => Err(Error::UnknownValue { what: "audit row without a hash", value: format!("row {id}") }),
        },
    }
}

/// Appends `input` after the chain's head, inside the caller's write transaction.
pub(crate) fn append_audit(conn: &Connection, input: &AuditInput, now_ms: i64) -> Result<i64> {
    if input.reason.as_deref() == Some("") {
        return Err(Error::InvalidInput("an audit reason, when given, is not empty".into()));
    }
    let last = audit_head_tx(conn)?;
    let record = AuditRecord {
        seq: last.seq + 1,
        at_ms: now_ms,
        // Nobody named: whoever is signed in at the register did it (record 0067).
        actor_id: match input.actor_id {
            Some(id) => Some(id),
            None => crate::ledger::session::operator(conn)?,
        },
        approver_id: input.approver_id,
        action: input.action.clone(),
        subject: input.subject.clone(),
        reason: input.reason.clone(),
        before: input.before.clone(),
        after: input.after.clone(),
    };
    let row = chain::append(last, record).map_err(|e| Error::InvalidInput(e.to_string()))?;
    let r = &row.record;
    conn.prepare_cached(
        "INSERT INTO audit_log (id, at_ms, actor_id, approver_id, action, subject, reason, before_doc, after_doc, prev_hash, hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        r.seq as i64,
        r.at_ms,
        r.actor_id,
        r.approver_id,
        r.action,
        r.subject,
        r.reason.as_deref().unwrap_or(""),
        r.before,
        r.after,
        &row.prev_hash[..],
        &row.hash[..],
    ])?;
    Ok(r.seq as i64)
}

/// Chains the rows written before the audit log was a chain (schema v5's upgrade), in id
/// order, inside the migration's transaction.
pub(crate) fn seal_audit(conn: &Connection) -> Result<()> {
    let rows = collect(conn, &format!("SELECT {AUDIT_COLS} FROM audit_log ORDER BY id"), [], chained_of)?;
    let mut last = Anchor::GENESIS;
    for (row, sealed) in rows {
        if sealed {
            last = row.anchor();
            continue;
        }
        // Renumbered from 1 so the chain has no gap where rows had been removed by hand.
        let mut record = row.record;
        let old_id = record.seq as i64;
        record.seq = last.seq + 1;
        let sealed = chain::append(last, record).map_err(|e| Error::InvalidInput(e.to_string()))?;
        conn.execute(
            "UPDATE audit_log SET id = ?1, prev_hash = ?2, hash = ?3 WHERE id = ?4",
            params![sealed.record.seq as i64, &sealed.prev_hash[..], &sealed.hash[..], old_id],
        )?;
        last = sealed.anchor();
    }
    Ok(())
}

impl Audit<&mut Ledger> {
    /// Appends to the audit log an action of the register itself (e.g. the cashier's
    /// override of record 0005 with the reason they gave, before staff sign in). Durable
    /// on return.
    pub fn record_register_action(&mut self, action: &str, reason: &str, detail: Option<&str>, now_ms: i64) -> Result<i64> {
        let input = AuditInput {
            reason: Some(reason.to_string()),
            subject: detail.unwrap_or("").to_string(),
            ..AuditInput::new(action, "")
        };
        self.record_action(&input, now_ms)
    }

    /// Appends one action with who did it. Durable on return.
    pub fn record_action(&mut self, input: &AuditInput, now_ms: i64) -> Result<i64> {
        let tx = self.write_tx()?;
        let seq = append_audit(&tx, input, now_ms)?;
        tx.commit()?;
        Ok(seq)
    }
}

impl<L: Deref<Target = Ledger>> Audit<L> {
    pub fn log(&self) -> Result<Vec<AuditEntry>> {
        collect(&self.conn, &format!("SELECT {AUDIT_COLS} FROM audit_log ORDER BY id"), [], |r| {
            Ok(chained_of(r)?.map(|(c, _)| {
                let c = c.record;
                AuditEntry {
                    id: c.seq as i64,
                    at_ms: c.at_ms,
                    action: c.action,
                    reason: c.reason.clone().unwrap_or_default(),
                    detail: (!c.subject.is_empty()).then(|| c.subject.clone()),
                    actor_id: c.actor_id,
                    approver_id: c.approver_id,
                    before: c.before,
                    after: c.after,
                }
            }))
        })
    }

    /// The chain as stored, in `seq` order.
    pub fn chain(&self) -> Result<Vec<ChainedRecord>> {
        collect(&self.conn, &format!("SELECT {AUDIT_COLS} FROM audit_log ORDER BY id"), [], |r| {
            Ok(chained_of(r)?.map(|(c, _)| c))
        })
    }

    /// The last row's seq and hash: what a Z report and the back office keep apart.
    pub fn head(&self) -> Result<Anchor> {
        audit_head_tx(&self.conn)
    }

    /// Checks the whole chain (record 0064), against `head` when one was kept apart,
    /// against the head each Z report recorded at its close (record 0066), and against
    /// the head the back office last confirmed (record 0053).
    pub fn verify(&self, head: Option<Anchor>) -> Result<Verdict> {
        self.verify_with(head, &[])
    }

    /// [`Audit::verify`] with `checkpoints` kept apart as well (the heads printed
    /// on Z reports): each must still be in the chain, later rows allowed.
    pub fn verify_with(&self, head: Option<Anchor>, checkpoints: &[Anchor]) -> Result<Verdict> {
        let rows = self.chain()?;
        let mut v = chain::verify(&rows, Anchor::GENESIS, head);
        let mut all: Vec<Anchor> = checkpoints.to_vec();
        all.extend(crate::ledger::shift::z_report_heads(&self.conn)?);
        chain::check_checkpoints(&mut v, &rows, &all);
        // The head the back office confirmed (record 0053): without it, deleting the
        // rows after the last Z report, or rewriting one and re-sealing the rest, leaves
        // a chain that verifies.
        if let Some(c) = crate::ledger::audit_anchor::confirmed_tx(&self.conn)? {
            chain::check_confirmed(&mut v, &rows, c.anchor);
        }
        Ok(v)
    }
}
