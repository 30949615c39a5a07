//! Refunds: each with its own key, reserved against the capture in the same
//! transaction that creates it, moved along the refund table, and settling the payment
//! (`refunded_minor`, leaving `refunding`) when it ends.

use std::ops::Deref;
use crate::ledger::Refunds;
use rusqlite::{params, OptionalExtension};

use super::rows::{payment_by_id_tx, refund_by_id_tx, refund_from_row};
use super::timeline::append_timeline_tx;
use super::transitions::transition_tx;
use super::{collect, Cached, Ledger, REFUND_COLS};
use crate::write_tx::WriteTx;
use crate::error::{Error, Result};
use paydesk_domain::money::Money;
use paydesk_domain::state::{PaymentState, RefundState};
use crate::types::*;
use crate::refund_room::RefundRoom;

impl Refunds<&mut Ledger> {
    /// Creates a refund with its own new key, in state `pending`, and moves the payment
    /// to `refunding`. The amount is checked against captured minus every non-failed
    /// refund IN THE SAME TRANSACTION, so concurrent refunds cannot exceed the capture.
    /// Refused with [`Error::RefundInProgress`] while another refund of the payment is
    /// not settled (same transaction): a partial refund pressed twice would otherwise
    /// be two refunds under two keys.
    pub fn create(
        &mut self,
        payment_id: PaymentId,
        amount_minor: i64,
        reason: Option<&str>,
        now_ms: i64,
    ) -> Result<Refund> {
        if amount_minor <= 0 {
            return Err(Error::InvalidAmount(format!("refund of {amount_minor} must be greater than zero")));
        }
        self.create_approved(payment_id, amount_minor, reason, None, now_ms)
    }

    /// [`Refunds::create`] approved by `approver_id` (whose PIN the caller checked)
    /// when the person signed in may not refund alone (record 0068). The role table is
    /// checked again inside the refund's transaction, and the refund's audit row names
    /// both people, so the approval and the refund are committed together or not at all.
    pub fn create_approved(
        &mut self,
        payment_id: PaymentId,
        amount_minor: i64,
        reason: Option<&str>,
        approver_id: Option<i64>,
        now_ms: i64,
    ) -> Result<Refund> {
        if amount_minor <= 0 {
            return Err(Error::InvalidAmount(format!("refund of {amount_minor} must be greater than zero")));
        }
        let key = self.new_key();
        let tx = self.write_tx()?;
        let approver = match approver_id {
            Some(a) => {
                let me = super::session::operator(&tx)?.ok_or(Error::NotSignedIn)?;
                super::shift::authorize_tx(&tx, super::shift::Actor { staff_id: me, approver_id: Some(a) }, paydesk_access::Action::Refund)?
            }
            None => None,
        };
        // A refund by hand never gives back what an exchange credit holds on the payment's
        // tender: that money pays another sale now, and goes back only through it (record 0158).
        let held = super::restored_returns::credit_held_on_payment_tx(&tx, payment_id)?;
        if held > 0 {
            let p = payment_by_id_tx(&tx, payment_id)?;
            let refundable = (refundable_tx(&tx, &p)? - held).max(0);
            if amount_minor > refundable {
                return Err(Error::RefundExceedsCaptured { payment_id: payment_id.0, requested_minor: amount_minor, refundable_minor: refundable });
            }
        }
        let r = create_refund_tx(&tx, &key, payment_id, amount_minor, reason, approver, now_ms)?;
        tx.commit()?;
        Ok(r)
    }

    /// Moves a refund `from -> to` (same contract as [`Payments::transition`]); reaching
    /// `succeeded` or `failed` settles the payment in the same transaction.
    pub fn transition(
        &mut self,
        refund_id: RefundId,
        from: RefundState,
        to: RefundState,
        now_ms: i64,
    ) -> Result<TransitionOutcome<RefundState>> {
        let tx = self.write_tx()?;
        let out = refund_transition_tx(&tx, refund_id, from, to, now_ms)?;
        if matches!(out, TransitionOutcome::Applied { .. }) {
            tx.commit()?;
        }
        Ok(out)
    }

    /// Stamps the first attempt of a refund and appends an attempt row to the payment's
    /// timeline.
    pub fn record_attempt(&mut self, refund_id: RefundId, attempt: &TimelineInput, now_ms: i64) -> Result<()> {
        let tx = self.write_tx()?;
        let r = refund_by_id_tx(&tx, refund_id)?;
        tx.exec_cached(
            "UPDATE refunds SET first_attempt_at_ms = COALESCE(first_attempt_at_ms, ?2), updated_at_ms = ?2 WHERE id = ?1",
            params![refund_id.0, now_ms],
        )?;
        let mut entry = attempt.clone();
        entry.kind = Some(entry.kind.unwrap_or(TimelineKind::Attempt));
        entry.refund_id = Some(refund_id);
        append_timeline_tx(&tx, r.payment_id, &entry, now_ms)?;
        tx.commit()?;
        Ok(())
    }

    /// Records the PSP's answer for a refund idempotently: attaches `psp_refund_id` and
    /// moves the refund to `outcome` (`in_flight` when the PSP reports it pending,
    /// `succeeded`, `failed`). A different stored PSP id changes nothing and says so.
    pub fn record_result(
        &mut self,
        refund_id: RefundId,
        psp_refund_id: &str,
        outcome: RefundState,
        now_ms: i64,
    ) -> Result<RefundRecordOutcome> {
        let tx = self.write_tx()?;
        let r = refund_by_id_tx(&tx, refund_id)?;
        let mut changed = false;
        match &r.psp_refund_id {
            Some(stored) if stored != psp_refund_id => {
                return Ok(RefundRecordOutcome::ExistsWithDifferentPspRefundId {
                    id: refund_id,
                    stored: stored.clone(),
                    requested: psp_refund_id.to_string(),
                })
            }
            Some(_) => {}
            None => {
                tx.exec_cached(
                    "UPDATE refunds SET psp_refund_id = ?2, updated_at_ms = ?3 WHERE id = ?1",
                    params![refund_id.0, psp_refund_id, now_ms],
                )?;
                changed = true;
            }
        }
        if r.state != outcome {
            // A pending refund the PSP answered was necessarily sent: pass through in_flight.
            let mut from = r.state;
            if from == RefundState::Pending && outcome != RefundState::InFlight && outcome != RefundState::Failed {
                refund_transition_tx(&tx, refund_id, from, RefundState::InFlight, now_ms)?;
                from = RefundState::InFlight;
            }
            if let TransitionOutcome::Applied { .. } = refund_transition_tx(&tx, refund_id, from, outcome, now_ms)? {
                changed = true;
            }
        }
        if changed {
            tx.commit()?;
            Ok(RefundRecordOutcome::Recorded(refund_id))
        } else {
            Ok(RefundRecordOutcome::Exists(refund_id))
        }
    }
}

impl<L: Deref<Target = Ledger>> Refunds<L> {
    pub fn by_id(&self, id: RefundId) -> Result<Refund> {
        refund_by_id_tx(&self.conn, id)
    }

    pub fn by_key(&self, key: &str) -> Result<Option<Refund>> {
        let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE idempotency_key = ?1");
        self.conn.row_cached(&sql, [key], refund_from_row).optional()?.transpose()
    }

    pub fn for_payment(&self, payment_id: PaymentId) -> Result<Vec<Refund>> {
        let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE payment_id = ?1 ORDER BY id");
        collect(&self.conn, &sql, params![payment_id.0], refund_from_row)
    }

    /// What a refund by hand of the payment may give back now, and why not more (record
    /// 0160): the bound [`Refunds::create_approved`] applies, read on this connection so the
    /// Payments screen's "up to" and "Refund all" are that bound, not a larger figure the
    /// ledger then refuses. Zero when nothing is captured or a refund is still open.
    pub fn room(&self, payment_id: PaymentId) -> Result<RefundRoom> {
        let p = payment_by_id_tx(&self.conn, payment_id)?;
        let held_minor = super::restored_returns::credit_held_on_payment_tx(&self.conn, payment_id)?;
        let open: i64 = self.conn.row_cached(
            "SELECT count(*) FROM refunds WHERE payment_id = ?1 AND state IN ('pending', 'in_flight')",
            [payment_id.0],
            |r| r.get(0),
        )?;
        let left = if p.state.is_refundable() && open == 0 { reserved_left(&self.conn, &p)? } else { 0 };
        // Invariant: what is held is money the payment took and nobody gave back, so the
        // room never goes below zero by arithmetic alone; clamped only for a payment whose
        // refunds settled elsewhere (a predecessor's, record 0144).
        Ok(RefundRoom { refundable_minor: (left - held_minor).max(0), held_minor })
    }

    /// Refunds crash recovery must resolve: `pending` and `in_flight`, oldest first.
    pub fn needing_recovery(&self) -> Result<Vec<Refund>> {
        let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE state IN ('pending','in_flight') ORDER BY id");
        collect(&self.conn, &sql, [], refund_from_row)
    }
}

/// [`Refunds::create`] inside the caller's transaction (not committed here): the
/// reservation check and the move to `refunding` happen under the same write lock as
/// the insert.
pub(super) fn create_refund_tx(
    tx: &WriteTx<'_>,
    key: &str,
    payment_id: PaymentId,
    amount_minor: i64,
    reason: Option<&str>,
    approver_id: Option<i64>,
    now_ms: i64,
) -> Result<Refund> {
    if amount_minor <= 0 {
        return Err(Error::InvalidAmount(format!("refund of {amount_minor} must be greater than zero")));
    }
    let p = payment_by_id_tx(tx, payment_id)?;
    if !p.state.is_refundable() {
        return Err(Error::NotRefundable { payment_id: payment_id.0, state: p.state });
    }
    let refundable = refundable_tx(tx, &p)?;
    if amount_minor > refundable {
        return Err(Error::RefundExceedsCaptured {
            payment_id: payment_id.0,
            requested_minor: amount_minor,
            refundable_minor: refundable,
        });
    }
    // Money invariant: a refund is positive and fits in what is left of the capture.
    assert!(0 < amount_minor && amount_minor <= refundable, "refund {amount_minor} of refundable {refundable}");
    let params = refund_request(&p, key, amount_minor);
    let staff_id = crate::ledger::shift::admit_money_tx(tx)?;
    tx.exec_cached(
        "INSERT INTO refunds (idempotency_key, payment_id, amount_minor, currency, state, reason,
             request_params, created_at_ms, updated_at_ms, staff_id)
         VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?7, ?8)",
        params![key, payment_id.0, amount_minor, p.amount.currency.code(), reason, serde_json::to_string(&params)?, now_ms, staff_id],
    )?;
    let refund_id = RefundId(tx.last_insert_rowid());
    if staff_id.is_some() {
        // Who gave money back, in the chain (record 0067).
        let after = serde_json::json!({ "payment": p.idempotency_key, "amount_minor": amount_minor, "currency": p.amount.currency.code() });
        crate::ledger::audit::append_audit(
            tx,
            &crate::ledger::audit::AuditInput {
                actor_id: staff_id,
                approver_id,
                after: Some(after.to_string()),
                ..crate::ledger::audit::AuditInput::new("refund_created", &format!("refund:{}", refund_id.0))
            },
            now_ms,
        )?;
    }
    append_timeline_tx(
        tx,
        payment_id,
        &TimelineInput {
            kind: Some(TimelineKind::Refund),
            detail: format!("refund of {} created", Money::new(amount_minor, p.amount.currency)),
            refund_id: Some(refund_id),
            ..Default::default()
        },
        now_ms,
    )?;
    if p.state != PaymentState::Refunding {
        transition_tx(tx, payment_id, p.state, PaymentState::Refunding, "refund created", now_ms)?;
    }
    refund_by_id_tx(tx, refund_id)
}

/// What is left to refund of a payment: its amount less every refund not failed.
/// Refused while one of its refunds is open (the same refund pressed twice would be a
/// second refund under a new key).
fn refundable_tx(tx: &WriteTx<'_>, p: &Payment) -> Result<i64> {
    let open: Option<String> = tx
        .row_cached(
            "SELECT idempotency_key FROM refunds WHERE payment_id = ?1 AND state IN ('pending', 'in_flight')
             ORDER BY id LIMIT 1",
            [p.id.0],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(refund_key) = open {
        return Err(Error::RefundInProgress { payment_id: p.id.0, refund_key });
    }
    reserved_left(tx, p)
}

/// The payment's amount less every refund not failed, the predecessor's too: a
/// predecessor's payment given back on here (record 0144) also has what its own register's
/// refunds took, succeeded or unsure; those are no rows of this ledger.
fn reserved_left(conn: &rusqlite::Connection, p: &Payment) -> Result<i64> {
    let reserved: i64 = conn.row_cached(
        "SELECT COALESCE(SUM(amount_minor), 0)
                + COALESCE((SELECT predecessor_refunds_minor FROM restored_payments WHERE payment_id = ?1), 0)
         FROM refunds WHERE payment_id = ?1 AND state != 'failed'",
        [p.id.0],
        |r| r.get(0),
    )?;
    p.amount.amount_minor.checked_sub(reserved).ok_or(Error::Overflow)
}

/// The refund's request, stored with it so every attempt sends the same parameters; the
/// keys in its metadata let the PSP's refund list be searched for it.
fn refund_request(p: &Payment, key: &str, amount_minor: i64) -> RequestParams {
    let mut params = RequestParams::default();
    if let Some(psp) = &p.psp_payment_id {
        params.push("payment_intent", psp.clone());
    }
    params.push("amount", amount_minor.to_string());
    params.push("metadata[refund_key]", key);
    params.push("metadata[checkout_key]", p.idempotency_key.clone());
    params
}

/// Moves a refund and, on a terminal state, settles the payment: `refunded_minor` grows
/// on success (once: the `WHERE state=?` guard makes the second caller a no-op), and the
/// payment leaves `refunding` when no other refund is still open.
pub(super) fn refund_transition_tx(
    tx: &WriteTx<'_>,
    refund_id: RefundId,
    from: RefundState,
    to: RefundState,
    now_ms: i64,
) -> Result<TransitionOutcome<RefundState>> {
    if from != to && !from.can_transition_to(to) {
        return Err(Error::IllegalRefundTransition(paydesk_domain::state::IllegalRefundTransition { from, to }));
    }
    let n = if from == to {
        0
    } else {
        tx.exec_cached(
            "UPDATE refunds SET state = ?3, updated_at_ms = ?4 WHERE id = ?1 AND state = ?2",
            params![refund_id.0, from.as_str(), to.as_str(), now_ms],
        )?
    };
    let r = refund_by_id_tx(tx, refund_id)?;
    if n == 0 {
        if r.state == to {
            return Ok(TransitionOutcome::AlreadyDone(to));
        }
        return Err(Error::StaleRefundState { refund_id: refund_id.0, expected: from, found: r.state });
    }
    append_timeline_tx(
        tx,
        r.payment_id,
        &TimelineInput {
            kind: Some(TimelineKind::Refund),
            detail: format!("refund {} of {}: {from} -> {to}", refund_id, r.amount),
            outcome: Some(to.as_str().into()),
            refund_id: Some(refund_id),
            ..Default::default()
        },
        now_ms,
    )?;
    if to == RefundState::Succeeded {
        let n = tx.exec_cached(
            "UPDATE payments SET refunded_minor = refunded_minor + ?2, updated_at_ms = ?3 WHERE id = ?1",
            params![r.payment_id.0, r.amount.amount_minor, now_ms],
        )?;
        // A refund row's payment exists (a foreign key): the money lands on exactly one.
        assert_eq!(n, 1, "refund {refund_id}: its payment {} is missing", r.payment_id);
    }
    if to.is_terminal() {
        settle_payment_tx(tx, &r, to, now_ms)?;
    }
    Ok(TransitionOutcome::Applied { from, to })
}

/// A refund reached a terminal state: the payment leaves `refunding` when no other refund
/// is still open, as refunded, partly refunded, or captured again (nothing refunded).
fn settle_payment_tx(tx: &WriteTx<'_>, r: &Refund, to: RefundState, now_ms: i64) -> Result<()> {
    let p = payment_by_id_tx(tx, r.payment_id)?;
    let still_open: i64 = tx.row_cached(
        "SELECT count(*) FROM refunds WHERE payment_id = ?1 AND state IN ('pending','in_flight')",
        [r.payment_id.0],
        |row| row.get(0),
    )?;
    // Money invariant (also a CHECK on the table): never more refunded than captured.
    assert!(
        0 <= p.refunded_minor && p.refunded_minor <= p.amount.amount_minor,
        "payment {}: refunded {} of {}",
        p.id,
        p.refunded_minor,
        p.amount.amount_minor
    );
    if p.state == PaymentState::Refunding && still_open == 0 {
        let settled = if p.refunded_minor == p.amount.amount_minor {
            PaymentState::Refunded
        } else if p.refunded_minor > 0 {
            PaymentState::PartiallyRefunded
        } else {
            PaymentState::Captured
        };
        transition_tx(tx, p.id, PaymentState::Refunding, settled, &format!("refund {} {to}", r.id), now_ms)?;
    }
    Ok(())
}
