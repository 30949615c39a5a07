//! The outbox (record 0044): what the sync loop sends to the back office. Rows are
//! written by triggers on `payments` and `refunds` (schema v7) in the transaction that
//! made the change; this file only reads them and drops the acknowledged ones.
//!
//! The outbox is bounded by the disk alone: a register that cannot reach the back office
//! for weeks keeps selling and keeps queueing. What one call reads is bounded instead
//! ([`MAX_OUTBOX_BATCH`]), so a long queue never makes one read large.

use std::ops::Deref;
use crate::ledger::SyncLog;
use paydesk_access::audit::Anchor;
use rusqlite::{params, OptionalExtension};

use super::{collect, Cached, Ledger};
use crate::error::{Error, Result};

/// Most rows one [`SyncLog::outbox_batch`] reads (the wire takes 500 per batch; a caller
/// asking for more gets this many).
pub const MAX_OUTBOX_BATCH: usize = 500;

/// One outbox row: its seq, when it was written (the register's clock) and the fact as
/// the JSON of `paydesk-sync-proto`'s `Fact`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxRow {
    pub seq: u64,
    pub at_ms: i64,
    pub fact_json: String,
}

/// What the outbox holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutboxStats {
    /// Rows written and not yet acknowledged.
    pub queued: u64,
    /// When the oldest of them was written; `None` when nothing is queued.
    pub oldest_at_ms: Option<i64>,
    /// The last seq ever written (the next row is this + 1).
    pub high_water: u64,
    /// The last seq the back office acknowledged.
    pub acked_through: u64,
}

impl<L: Deref<Target = Ledger>> SyncLog<L> {
    /// Up to `max` (at most [`MAX_OUTBOX_BATCH`]) consecutive rows after `after_seq`, in
    /// seq order.
    pub fn outbox_batch(&self, after_seq: u64, max: usize) -> Result<Vec<OutboxRow>> {
        let max = max.min(MAX_OUTBOX_BATCH) as i64;
        let after = i64::try_from(after_seq).map_err(|_| Error::InvalidInput(format!("outbox seq {after_seq} is out of range")))?;
        collect(&self.conn, "SELECT seq, at_ms, fact FROM outbox WHERE seq > ?1 ORDER BY seq LIMIT ?2", params![after, max], |r| {
            Ok(Ok(OutboxRow { seq: r.get::<_, i64>(0)? as u64, at_ms: r.get(1)?, fact_json: r.get(2)? }))
        })
    }
}

impl<L: Deref<Target = Ledger>> SyncLog<L> {
    /// Up to `max` (at most [`MAX_OUTBOX_BATCH`]) consecutive rows after `after_seq` as a
    /// replacement register holds them once restored (record 0048: the fact and its kind).
    /// The ledger's tests and the simulation (`crates/sim`, record 0153's addendum) build a
    /// successor's restored history from a predecessor's queue with it, one way for both.
    pub fn outbox_as_restored(&self, after_seq: u64, max: usize) -> Result<Vec<crate::RestoredRow>> {
        let max = max.min(MAX_OUTBOX_BATCH) as i64;
        let after = i64::try_from(after_seq).map_err(|_| Error::InvalidInput(format!("outbox seq {after_seq} is out of range")))?;
        collect(
            &self.conn,
            "SELECT seq, at_ms, json_extract(fact, '$.kind'), fact FROM outbox WHERE seq > ?1 ORDER BY seq LIMIT ?2",
            params![after, max],
            |r| Ok(Ok(crate::RestoredRow { seq: r.get::<_, i64>(0)? as u64, at_ms: r.get(1)?, kind: r.get(2)?, fact_json: r.get(3)? })),
        )
    }
}

impl SyncLog<&mut Ledger> {
    /// Drops the rows up to `through_seq` now that the back office stored them; never
    /// above the high-water mark (an acknowledgement past what this register wrote moves
    /// nothing past it). Returns the rows dropped. Idempotent: an older ack drops nothing.
    pub fn outbox_ack(&mut self, through_seq: u64) -> Result<u64> {
        self.outbox_ack_confirming(through_seq, None, 0)
    }

    /// [`SyncLog::outbox_ack`], and in the same transaction (one commit, one fsync: the
    /// loop stays light beside checkout) the audit head the back office's ack confirmed
    /// (record 0053), written only when it changed.
    pub fn outbox_ack_confirming(&mut self, through_seq: u64, confirmed: Option<Anchor>, now_ms: i64) -> Result<u64> {
        let through = i64::try_from(through_seq).map_err(|_| Error::InvalidInput(format!("outbox seq {through_seq} is out of range")))?;
        let tx = self.write_tx()?;
        let (high, acked): (i64, i64) =
            tx.row_cached("SELECT high_water, acked_through FROM outbox_seq WHERE id = 1", [], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let wrote = match confirmed {
            Some(anchor) => super::audit_anchor::set_confirmed_tx(&tx, anchor, now_ms)?,
            None => false,
        };
        let through = through.min(high);
        if through <= acked {
            if wrote {
                tx.commit()?;
            }
            return Ok(0);
        }
        let dropped = tx.exec_cached("DELETE FROM outbox WHERE seq <= ?1", [through])?;
        tx.exec_cached("UPDATE outbox_seq SET acked_through = ?1 WHERE id = 1", [through])?;
        tx.commit()?;
        Ok(dropped as u64)
    }
}

impl<L: Deref<Target = Ledger>> SyncLog<L> {
    /// Queued rows, the oldest one's time, the high-water mark and the last ack.
    pub fn outbox_stats(&self) -> Result<OutboxStats> {
        let (high, acked): (i64, i64) =
            self.conn.row_cached("SELECT high_water, acked_through FROM outbox_seq WHERE id = 1", [], |r| Ok((r.get(0)?, r.get(1)?)))?;
        // seq is the primary key: the oldest row is the first of the index, and every seq
        // between the ack and the high-water mark exists, so the count is a subtraction.
        let oldest = self.conn.row_cached("SELECT at_ms FROM outbox ORDER BY seq LIMIT 1", [], |r| r.get(0)).optional()?;
        Ok(OutboxStats { queued: (high - acked) as u64, oldest_at_ms: oldest, high_water: high as u64, acked_through: acked as u64 })
    }
}
