//! Keys reissued after a stored failure (schema v2, table `reissued_keys`).
//!
//! The PSP stores the result of every request whose execution began, a 500 included,
//! and replays it byte for byte for that key until its retention ends: resending a key
//! that got a 500 can never succeed. Once the register has established at the PSP that
//! the operation did NOT happen under that key (GET the PaymentIntent / list its
//! refunds), it continues under a fresh key, committed here BEFORE it is sent (design
//! record 0003), so a crash right after the send still knows which key may be out.
//!
//! * capture / cancel: the key is `<root>-<generation>` (root `<checkout>-capture`);
//!   a PaymentIntent is captured or canceled at most once by the PSP itself, the key
//!   only deduplicates the request.
//! * refund: a refund's key names the refund (`metadata[refund_key]`, events), so a
//!   reissue is a NEW refunds row with its own key, and the old row becomes `failed`
//!   (nothing was refunded under it) — in ONE transaction, so the amount stays reserved
//!   and the payment stays `refunding` throughout.
//!
//! Written through the ledger's one write path (`Ledger::write_tx`).

use std::ops::Deref;
use crate::ledger::{Payments, Refunds};
use crate::error::{Error, Result};
use crate::ledger::{refund_by_id_tx, Ledger};
use paydesk_domain::state::RefundState;
use crate::types::{PaymentId, Refund, RefundId, RequestParams};
use rusqlite::{params, OptionalExtension};

/// An operation whose key can be reissued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReissueOp {
    Capture,
    Cancel,
    Refund,
}

impl ReissueOp {
    pub const fn as_str(self) -> &'static str {
        match self {
            ReissueOp::Capture => "capture",
            ReissueOp::Cancel => "cancel",
            ReissueOp::Refund => "refund",
        }
    }
}

/// The key an operation currently uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentKey {
    pub key: String,
    /// 0 = the root key (never reissued).
    pub generation: i64,
}

impl<L: Deref<Target = Ledger>> Payments<L> {
    /// The newest key of a capture / cancel whose first key is `root_key`.
    pub fn current_operation_key(&self, op: ReissueOp, root_key: &str) -> Result<CurrentKey> {
        current_key(self.connection(), op, root_key)
    }
}

impl Payments<&mut Ledger> {
    /// Commits the next key of a capture / cancel (`<root>-<generation>`) with a
    /// timeline note saying why, and returns it. `expected_generation` is the one the
    /// caller saw: if another caller reissued meanwhile, its key is returned instead of
    /// a second one.
    pub fn reissue_operation_key(
        &mut self,
        payment_id: PaymentId,
        op: ReissueOp,
        root_key: &str,
        expected_generation: i64,
        reason: &str,
        now_ms: i64,
    ) -> Result<CurrentKey> {
        if op == ReissueOp::Refund {
            return Err(Error::InvalidInput("a refund is reissued with reissue_refund".into()));
        }
        let tx = self.write_tx()?;
        let cur = current_key(&tx, op, root_key)?;
        if cur.generation != expected_generation {
            return Ok(cur);
        }
        let generation = cur.generation + 1;
        let key = format!("{root_key}-{generation}");
        if key.len() > 255 {
            return Err(Error::InvalidInput(format!("reissued key would exceed 255 bytes: {key}")));
        }
        tx.execute(
            "INSERT INTO reissued_keys (idempotency_key, payment_id, operation, root_key, generation, reason, created_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![key, payment_id.0, op.as_str(), root_key, generation, reason, now_ms],
        )?;
        note_tx(&tx, payment_id, None, &format!("{} continues under a new key {key}: {reason}", op.as_str()), "new_key", now_ms)?;
        tx.commit()?;
        Ok(CurrentKey { key, generation })
    }
}

impl<L: Deref<Target = Ledger>> Refunds<L> {
    /// How many times the refund lineage that `refund_key` belongs to was reissued to
    /// reach it (0 for a refund the cashier created).
    pub fn generation(&self, refund_key: &str) -> Result<i64> {
        Ok(self
            .connection()
            .query_row(
                "SELECT generation FROM reissued_keys WHERE operation = 'refund' AND idempotency_key = ?1",
                [refund_key],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0))
    }
}

impl Refunds<&mut Ledger> {
    /// Replaces an unresolved refund that provably did not happen at the PSP with a new
    /// refund of the same amount under a new key, in one transaction: the old row ->
    /// `failed`, the new row `pending` (its key and exact parameters committed before
    /// any send), the lineage in `reissued_keys`. Returns the new refund. Refuses a
    /// refund that is not `pending` / `in_flight` (someone resolved it meanwhile).
    pub fn reissue(&mut self, refund_id: RefundId, reason: &str, now_ms: i64) -> Result<Refund> {
        let new_key = self.new_key();
        let tx = self.write_tx()?;
        let old = refund_by_id_tx(&tx, refund_id)?;
        if old.state.is_terminal() {
            return Err(Error::StaleRefundState { refund_id: refund_id.0, expected: RefundState::InFlight, found: old.state });
        }
        let (root, generation): (String, i64) = tx
            .query_row(
                "SELECT root_key, generation FROM reissued_keys WHERE operation = 'refund' AND idempotency_key = ?1",
                [&old.idempotency_key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .unwrap_or_else(|| (old.idempotency_key.clone(), 0));
        let n = tx.execute(
            "UPDATE refunds SET state = 'failed', updated_at_ms = ?3 WHERE id = ?1 AND state = ?2",
            params![refund_id.0, old.state.as_str(), now_ms],
        )?;
        if n != 1 {
            return Err(Error::StaleRefundState { refund_id: refund_id.0, expected: old.state, found: old.state });
        }
        let mut params_new = RequestParams::default();
        for (k, v) in &old.request_params.0 {
            let v = if k == "metadata[refund_key]" { new_key.clone() } else { v.clone() };
            params_new.push(k.clone(), v);
        }
        if params_new.get("metadata[refund_key]").is_none() {
            params_new.push("metadata[refund_key]", new_key.clone());
        }
        tx.execute(
            "INSERT INTO refunds (idempotency_key, payment_id, amount_minor, currency, state, reason,
                 request_params, created_at_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?7)",
            params![
                new_key,
                old.payment_id.0,
                old.amount.amount_minor,
                old.amount.currency.code(),
                old.reason,
                serde_json::to_string(&params_new)?,
                now_ms
            ],
        )?;
        let new_id = RefundId(tx.last_insert_rowid());
        move_credit_give_back(&tx, refund_id, new_id)?;
        tx.execute(
            "INSERT INTO reissued_keys (idempotency_key, payment_id, operation, root_key, generation, refund_id, reason, created_at_ms)
             VALUES (?1, ?2, 'refund', ?3, ?4, ?5, ?6, ?7)",
            params![new_key, old.payment_id.0, root, generation + 1, new_id.0, reason, now_ms],
        )?;
        note_tx(
            &tx,
            old.payment_id,
            Some(refund_id),
            &format!("refund {refund_id} of {}: {} -> failed (nothing refunded under {}): {reason}", old.amount, old.state, old.idempotency_key),
            "failed",
            now_ms,
        )?;
        note_tx(
            &tx,
            old.payment_id,
            Some(new_id),
            &format!("refund {new_id} of {} created under a new key {new_key}, replacing refund {refund_id}", old.amount),
            "new_key",
            now_ms,
        )?;
        tx.commit()?;
        self.by_id(new_id)
    }
}

/// A give-back through an exchange credit (record 0123) travels on under the reissued
/// refund: left on the old row, now `failed`, the credit would count as still held while
/// the money goes back all the same, and could be given back twice (found by the
/// simulation, record 0124).
fn move_credit_give_back(tx: &rusqlite::Connection, old: RefundId, new: RefundId) -> Result<()> {
    tx.execute("UPDATE exchange_credit_returns SET refund_id = ?1 WHERE refund_id = ?2", params![new.0, old.0])?;
    Ok(())
}

const CURRENT_KEY_SQL: &str = "SELECT idempotency_key, generation FROM reissued_keys
     WHERE operation = ?1 AND root_key = ?2 ORDER BY generation DESC LIMIT 1";

fn current_key(tx: &rusqlite::Connection, op: ReissueOp, root_key: &str) -> Result<CurrentKey> {
    // Through the statement cache: every capture, cancel and refund reads it (perf on
    // sim_bench: parsing it afresh each time was 1.3% of the simulation's CPU).
    let row: Option<(String, i64)> = tx
        .prepare_cached(CURRENT_KEY_SQL)?
        .query_row(params![op.as_str(), root_key], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(match row {
        Some((key, generation)) => CurrentKey { key, generation },
        None => CurrentKey { key: root_key.to_string(), generation: 0 },
    })
}

fn note_tx(tx: &rusqlite::Connection, payment_id: PaymentId, refund_id: Option<RefundId>, detail: &str, outcome: &str, now_ms: i64) -> Result<()> {
    tx.execute(
        "INSERT INTO payment_timeline (payment_id, refund_id, at_ms, kind, detail, outcome)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![payment_id.0, refund_id.map(|r| r.0), now_ms, if refund_id.is_some() { "refund" } else { "note" }, detail, outcome],
    )?;
    Ok(())
}
