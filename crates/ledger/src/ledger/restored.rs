//! A replacement register's copy of its predecessor's history (record 0048), pulled from
//! the back office by `paydesk-sync`'s restore. Read-only: rows are only appended, in seq
//! order without a gap (a trigger refuses anything else, and any update or delete), each
//! page in one transaction, so a run killed half way resumes after the last stored row
//! and a second run adds nothing. The outbox has no trigger on these tables: the rows
//! are never sent up as this register's own.

use std::ops::Deref;
use crate::ledger::SyncLog;
use rusqlite::{params, OptionalExtension};

use super::{collect, Cached, Ledger};
use crate::error::{Error, Result};

/// Most rows one call appends or reads (the back office's page size).
pub const MAX_RESTORED_PAGE: usize = 500;

/// A predecessor as the back office described it, and how far this register holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreSourceRow {
    pub register_id: String,
    pub register_name: String,
    /// Its history at the back office: seqs 1 to this.
    pub acked_through: u64,
    /// The back office's description of it, as JSON (when it was replaced, what it still
    /// had queued at its last sync); at most 4 KiB.
    pub described_json: String,
    /// The last seq this register holds of it (this ledger's to know; ignored on input).
    pub restored_through: u64,
    pub started_at_ms: i64,
    /// Set when `restored_through` reached `acked_through`.
    pub finished_at_ms: Option<i64>,
}

/// One restored row: the predecessor's seq, its clock, the fact's kind and JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoredRow {
    pub seq: u64,
    pub at_ms: i64,
    pub kind: String,
    pub fact_json: String,
}

/// One payment of a predecessor as its restored facts tell it: the `payment_created`
/// row (its seq, time, key, amount) and the last `payment_state` row of that key, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoredPayment {
    /// The seq of its `payment_created` row: the page cursor.
    pub seq: u64,
    pub at_ms: i64,
    pub checkout_key: String,
    /// Minor units, as the predecessor recorded them.
    pub amount: i64,
    /// Lower-case ISO code as on the wire ("usd").
    pub currency: String,
    /// The last state sent up ("captured"), `None` when none was.
    pub state: Option<String>,
    pub state_at_ms: Option<i64>,
    /// The predecessor's sale the payment was a tender of (its `tender_added` fact), so
    /// the screen can offer that sale's Return items (record 0144); `None` when no tender
    /// names the payment.
    pub sale: Option<i64>,
}

fn seq_param(name: &str, v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| Error::InvalidInput(format!("{name} {v} is out of range")))
}

const SOURCE_COLS: &str = "s.register_id, s.register_name, s.acked_through, s.described, \
     (SELECT COALESCE(MAX(h.seq), 0) FROM restored_history h WHERE h.source = s.register_id), s.started_at_ms, s.finished_at_ms";

fn source_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RestoreSourceRow> {
    Ok(RestoreSourceRow {
        register_id: r.get(0)?,
        register_name: r.get(1)?,
        acked_through: r.get::<_, i64>(2)? as u64,
        described_json: r.get(3)?,
        restored_through: r.get::<_, i64>(4)? as u64,
        started_at_ms: r.get(5)?,
        finished_at_ms: r.get(6)?,
    })
}

impl SyncLog<&mut Ledger> {
    /// Records (or refreshes) a predecessor before its rows are pulled; returns the last
    /// seq already held of it, where the pull resumes. `restored_through` and
    /// `finished_at_ms` of `src` are ignored (they are this ledger's to know).
    pub fn begin_restore(&mut self, src: &RestoreSourceRow, now_ms: i64) -> Result<u64> {
        if src.register_id.is_empty() || src.register_id.len() > 255 || src.register_name.chars().count() > 200 || src.described_json.len() > 4096 {
            return Err(Error::InvalidInput("a restore source needs an id of 1 to 255 bytes, a name of at most 200 characters and a description of at most 4 KiB".into()));
        }
        let tx = self.write_tx()?;
        tx.exec_cached(
            "INSERT INTO restore_sources (register_id, register_name, acked_through, described, started_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (register_id) DO UPDATE SET register_name = excluded.register_name,
                 acked_through = excluded.acked_through, described = excluded.described",
            params![src.register_id, src.register_name, seq_param("acked_through", src.acked_through)?, src.described_json, now_ms],
        )?;
        let through: i64 = tx.row_cached("SELECT COALESCE(MAX(seq), 0) FROM restored_history WHERE source = ?1", [&src.register_id], |r| r.get(0))?;
        tx.commit()?;
        Ok(through as u64)
    }

    /// Appends one page of the predecessor's rows in one transaction (at most
    /// [`MAX_RESTORED_PAGE`]; the first must follow the last held). Marks the source
    /// finished once its whole history is held. Returns the last seq now held.
    pub fn append_restored(&mut self, source: &str, rows: &[RestoredRow], now_ms: i64) -> Result<u64> {
        if rows.len() > MAX_RESTORED_PAGE {
            return Err(Error::InvalidInput(format!("{} restored rows at once; at most {MAX_RESTORED_PAGE}", rows.len())));
        }
        let tx = self.write_tx()?;
        let acked: i64 = tx
            .row_cached("SELECT acked_through FROM restore_sources WHERE register_id = ?1", [source], |r| r.get(0))
            .optional()?
            .ok_or_else(|| Error::InvalidInput(format!("no restore from {source} was begun")))?;
        for r in rows {
            let seq = seq_param("seq", r.seq)?;
            if seq > acked {
                return Err(Error::InvalidInput(format!("seq {seq} is past the predecessor's history (it ends at {acked})")));
            }
            tx.exec_cached(
                "INSERT INTO restored_history (source, seq, at_ms, kind, fact, restored_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![source, seq, r.at_ms, r.kind, r.fact_json, now_ms],
            )?;
        }
        let through: i64 = tx.row_cached("SELECT COALESCE(MAX(seq), 0) FROM restored_history WHERE source = ?1", [source], |r| r.get(0))?;
        if through == acked {
            tx.exec_cached("UPDATE restore_sources SET finished_at_ms = ?2 WHERE register_id = ?1 AND finished_at_ms IS NULL", params![source, now_ms])?;
        }
        tx.commit()?;
        Ok(through as u64)
    }
}

impl<L: Deref<Target = Ledger>> SyncLog<L> {
    /// Every predecessor restored from (or begun), oldest first.
    pub fn restore_sources(&self) -> Result<Vec<RestoreSourceRow>> {
        collect(&self.conn, &format!("SELECT {SOURCE_COLS} FROM restore_sources s ORDER BY s.started_at_ms, s.register_id"), [], |r| Ok(Ok(source_row(r)?)))
    }

    /// Up to `max` (at most [`MAX_RESTORED_PAGE`]) restored rows of `source` after `after_seq`.
    pub fn restored_rows(&self, source: &str, after_seq: u64, max: usize) -> Result<Vec<RestoredRow>> {
        let max = max.min(MAX_RESTORED_PAGE) as i64;
        collect(
            &self.conn,
            "SELECT seq, at_ms, kind, fact FROM restored_history WHERE source = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
            params![source, seq_param("seq", after_seq)?, max],
            |r| Ok(Ok(RestoredRow { seq: r.get::<_, i64>(0)? as u64, at_ms: r.get(1)?, kind: r.get(2)?, fact_json: r.get(3)? })),
        )
    }

    /// Payments of `source`, newest first: up to `max` (at most [`MAX_RESTORED_PAGE`])
    /// whose `payment_created` seq is below `before_seq` (all when `None`), each with its
    /// last state (record 0048, what the app's Back office section lists). Reads the
    /// facts' JSON with SQL parameters only; one page costs one pass over the source's
    /// `payment_state` rows, bounded by the page's keys.
    pub fn restored_payments(&self, source: &str, before_seq: Option<u64>, max: usize) -> Result<Vec<RestoredPayment>> {
        let max = max.min(MAX_RESTORED_PAGE) as i64;
        let before = match before_seq {
            Some(b) => seq_param("before", b)?,
            None => i64::MAX,
        };
        collect(
            &self.conn,
            "WITH page AS (
                 SELECT seq, at_ms, json_extract(fact, '$.checkout_key') AS k,
                        json_extract(fact, '$.amount') AS amount, json_extract(fact, '$.currency') AS currency
                 FROM restored_history
                 WHERE source = ?1 AND kind = 'payment_created' AND seq < ?2
                 ORDER BY seq DESC LIMIT ?3),
             last AS (
                 -- SQLite: with MAX(), the bare columns come from the row holding the max.
                 SELECT json_extract(fact, '$.checkout_key') AS k, MAX(seq) AS seq,
                        json_extract(fact, '$.state') AS state, at_ms
                 FROM restored_history
                 WHERE source = ?1 AND kind = 'payment_state'
                   AND json_extract(fact, '$.checkout_key') IN (SELECT k FROM page)
                 GROUP BY 1)
             SELECT page.seq, page.at_ms, page.k, page.amount, page.currency, last.state, last.at_ms,
                    -- the index by checkout key (v36) finds the tender naming the payment
                    (SELECT json_extract(t.fact, '$.sale') FROM restored_history t
                     WHERE t.source = ?1 AND json_extract(t.fact, '$.checkout_key') = page.k
                       AND t.kind = 'tender_added'
                     ORDER BY t.seq LIMIT 1)
             FROM page LEFT JOIN last ON last.k = page.k
             ORDER BY page.seq DESC",
            params![source, before, max],
            |r| {
                Ok(Ok(RestoredPayment {
                    seq: r.get::<_, i64>(0)? as u64,
                    at_ms: r.get(1)?,
                    checkout_key: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    amount: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                    currency: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
                    state: r.get(5)?,
                    state_at_ms: r.get(6)?,
                    sale: r.get(7)?,
                }))
            },
        )
    }
}
