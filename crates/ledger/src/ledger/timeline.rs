//! A payment's timeline (table `payment_timeline`): every creation, attempt, PSP answer,
//! transition, refund step and event, in order, for the cashier and the support view.

use std::ops::Deref;
use crate::ledger::Payments;
use rusqlite::params;

use super::rows::payment_by_id_tx;
use super::{collect, Ledger};
use crate::write_tx::WriteTx;
use crate::error::Result;
use crate::types::*;

impl Payments<&mut Ledger> {
    /// Appends a free timeline row.
    pub fn append_timeline(&mut self, payment_id: PaymentId, entry: &TimelineInput, now_ms: i64) -> Result<i64> {
        let tx = self.write_tx()?;
        payment_by_id_tx(&tx, payment_id)?;
        let id = append_timeline_tx(&tx, payment_id, entry, now_ms)?;
        tx.commit()?;
        Ok(id)
    }
}

impl<L: Deref<Target = Ledger>> Payments<L> {
    pub fn timeline(&self, payment_id: PaymentId) -> Result<Vec<TimelineEntry>> {
        timeline_of(&self.conn, payment_id)
    }
}

/// A payment's timeline on `conn` (inside a write transaction too).
pub(crate) fn timeline_of(conn: &rusqlite::Connection, payment_id: PaymentId) -> Result<Vec<TimelineEntry>> {
    collect(
        conn,
        "SELECT id, payment_id, refund_id, at_ms, kind, detail, outcome, latency_ms, replayed, attempt_no
         FROM payment_timeline WHERE payment_id = ?1 ORDER BY id",
        params![payment_id.0],
        |r| {
            // Read back typed: a kind the ledger never writes is refused like any other
            // unknown stored value, not carried on as text.
            let kind = match r.get::<_, String>(4)?.parse::<TimelineKind>() {
                Ok(k) => k,
                Err(e) => return Ok(Err(e)),
            };
            Ok(Ok(TimelineEntry {
                id: r.get(0)?,
                payment_id: PaymentId(r.get(1)?),
                refund_id: r.get::<_, Option<i64>>(2)?.map(RefundId),
                at_ms: r.get(3)?,
                kind,
                detail: r.get(5)?,
                outcome: r.get(6)?,
                latency_ms: r.get(7)?,
                replayed: r.get::<_, i64>(8)? != 0,
                attempt_no: r.get(9)?,
            }))
        },
    )
}

pub(super) fn append_timeline_tx(conn: &WriteTx<'_>, payment_id: PaymentId, e: &TimelineInput, at_ms: i64) -> Result<i64> {
    conn.exec_cached(
        "INSERT INTO payment_timeline (payment_id, refund_id, at_ms, kind, detail, outcome, latency_ms, replayed, attempt_no)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            payment_id.0,
            e.refund_id.map(|r| r.0),
            at_ms,
            e.kind.unwrap_or(TimelineKind::Note).as_str(),
            e.detail,
            e.outcome,
            e.latency_ms,
            e.replayed as i64,
            e.attempt_no
        ],
    )?;
    Ok(conn.last_insert_rowid())
}
