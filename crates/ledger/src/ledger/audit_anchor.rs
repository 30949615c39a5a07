//! The audit chain's anchors held elsewhere (record 0064, 0053): the head the back office
//! last confirmed, stored here so local verification can check the chain still holds it,
//! and what the register reports about its chain with each batch it sends.
//!
//! A local chain alone cannot catch someone who deletes its tail or rewrites a row and
//! recomputes every later hash: the chain they leave verifies. A head that left the
//! machine can: once the back office confirmed `(seq, hash)`, a chain without that row, or
//! with another hash there, is caught here (`verify_audit`) and at the back office.

use std::ops::Deref;
use crate::ledger::Audit;
use paydesk_access::audit::{Anchor, Hash};
use rusqlite::OptionalExtension;

use super::{collect, Cached, Ledger};
use crate::error::{Error, Result};
use crate::write_tx::WriteTx;

/// Z heads a report carries at most (the newest ones past the confirmed head): a
/// register offline for longer sends the rest once it has caught up.
pub const MAX_REPORTED_Z_HEADS: usize = 16;

/// The head the back office last confirmed, and when this register learned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfirmedHead {
    pub anchor: Anchor,
    pub confirmed_at_ms: i64,
}

/// What the register says about its chain with a batch (record 0053).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditSnapshot {
    /// The chain's last row now (genesis when empty).
    pub head: Anchor,
    /// The seq the back office last confirmed and the hash this chain holds there now
    /// (`None`: no row there any more). `None` when nothing was ever confirmed.
    pub at_confirmed: Option<(u64, Option<Hash>)>,
    /// `(z_number, head)` of the Z reports whose head is past the confirmed seq, oldest
    /// first, at most [`MAX_REPORTED_Z_HEADS`] (the newest).
    pub z_heads: Vec<(i64, Anchor)>,
}

fn hash_of(bytes: Vec<u8>, what: &'static str) -> Result<Hash> {
    Hash::try_from(bytes.as_slice()).map_err(|_| Error::UnknownValue { what, value: format!("{} bytes", bytes.len()) })
}

pub(crate) fn confirmed_tx(conn: &rusqlite::Connection) -> Result<Option<ConfirmedHead>> {
    let row: Option<(i64, Vec<u8>, i64)> = conn
        .row_cached("SELECT seq, hash, confirmed_at_ms FROM audit_confirmed WHERE id = 1", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    row.map(|(seq, hash, at)| {
        Ok(ConfirmedHead { anchor: Anchor { seq: seq as u64, hash: hash_of(hash, "confirmed audit hash length")? }, confirmed_at_ms: at })
    })
    .transpose()
}

/// Writes `anchor` as the confirmed head inside the caller's write transaction, unless it
/// is already the stored one; true when it wrote.
pub(crate) fn set_confirmed_tx(tx: &WriteTx<'_>, anchor: Anchor, now_ms: i64) -> Result<bool> {
    let seq = i64::try_from(anchor.seq).map_err(|_| Error::InvalidInput(format!("audit seq {} is out of range", anchor.seq)))?;
    if confirmed_tx(tx)?.is_some_and(|c| c.anchor == anchor) {
        return Ok(false);
    }
    tx.exec_cached(
        "INSERT INTO audit_confirmed (id, seq, hash, confirmed_at_ms) VALUES (1, ?1, ?2, ?3)
         ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, confirmed_at_ms = excluded.confirmed_at_ms",
        rusqlite::params![seq, anchor.hash.as_slice(), now_ms],
    )?;
    Ok(true)
}

impl<L: Deref<Target = Ledger>> Audit<L> {
    /// The head the back office last confirmed, if it ever did.
    pub fn confirmed(&self) -> Result<Option<ConfirmedHead>> {
        confirmed_tx(&self.conn)
    }
}

impl Audit<&mut Ledger> {
    /// Keeps `anchor` as the head the back office confirmed (from its ack). Writes only
    /// when it differs from the stored one (a sync round that confirms nothing new writes
    /// nothing); true when it wrote. Not an audit row: that would move the head it
    /// confirms, and every round would confirm a new one.
    pub fn set_confirmed(&mut self, anchor: Anchor, now_ms: i64) -> Result<bool> {
        let tx = self.write_tx()?;
        let wrote = set_confirmed_tx(&tx, anchor, now_ms)?;
        if wrote {
            tx.commit()?;
        }
        Ok(wrote)
    }
}

impl<L: Deref<Target = Ledger>> Audit<L> {
    /// The chain's head, the hash at the confirmed seq as the chain holds it now, and the
    /// Z heads past it: what a batch carries up (record 0053). Read from the rows as
    /// stored, so a deleted tail or a re-sealed chain shows in what is sent.
    pub fn snapshot(&self) -> Result<AuditSnapshot> {
        let head = super::audit::audit_head_tx(&self.conn)?;
        let confirmed = self.confirmed()?;
        let at_confirmed = match confirmed {
            None => None,
            Some(c) => {
                let now: Option<Vec<u8>> = self
                    .conn
                    .row_cached("SELECT hash FROM audit_log WHERE id = ?1", [c.anchor.seq as i64], |r| r.get(0))
                    .optional()?;
                Some((c.anchor.seq, now.map(|h| hash_of(h, "audit hash length")).transpose()?))
            }
        };
        let after = confirmed.map_or(0, |c| c.anchor.seq as i64);
        let mut z_heads = collect(
            &self.conn,
            "SELECT z_number, audit_seq, audit_hash FROM z_reports WHERE audit_seq > ?1 ORDER BY z_number DESC LIMIT ?2",
            rusqlite::params![after, MAX_REPORTED_Z_HEADS as i64],
            |r| {
                let (z, seq, hash): (i64, i64, Vec<u8>) = (r.get(0)?, r.get(1)?, r.get(2)?);
                Ok(hash_of(hash, "Z report audit hash length").map(|hash| (z, Anchor { seq: seq as u64, hash })))
            },
        )?;
        z_heads.reverse();
        Ok(AuditSnapshot { head, at_confirmed, z_heads })
    }
}
