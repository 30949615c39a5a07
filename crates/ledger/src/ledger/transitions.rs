//! Moving a payment along the one transition table (record 0014): a single step
//! (`transition`), an attempt on the timeline (`record_attempt`), and everything one
//! attempt phase of a checkout ended with in one durable commit (`settle_checkout`).
//! Every step is `UPDATE … WHERE id=? AND state=?`, checked against `state.rs` and the
//! payment's refunds, with the cart following its checkout.

use crate::ledger::Payments;
use rusqlite::{params, Connection, OptionalExtension};

use super::payments::{record_psp_result_tx, set_last_error_tx};
use super::sale::refresh_cart_tx;
use super::rows::payment_by_id_tx;
use super::timeline::append_timeline_tx;
use super::{Cached, Ledger};
use crate::write_tx::WriteTx;
use crate::error::{Error, Result};
use paydesk_domain::state::PaymentState;
use crate::types::*;

impl Payments<&mut Ledger> {
    /// Moves a payment `from -> to` with `UPDATE … WHERE id=? AND state=?` in one
    /// transaction, appending a timeline row (record 0014).
    ///
    /// * illegal per the table → [`Error::IllegalTransition`], nothing written;
    /// * already in `to` → `AlreadyDone(to)`, nothing written (a repeat is a no-op);
    /// * in a third state → [`Error::StaleState`], nothing written.
    ///
    /// Side effects in the same transaction: the cart is unlocked when the checkout
    /// fails or is canceled (a new intent may follow), marked paid when captured or
    /// accepted offline; `offline` is set on entering `queued_offline`.
    pub fn transition(
        &mut self,
        payment_id: PaymentId,
        from: PaymentState,
        to: PaymentState,
        detail: &str,
        now_ms: i64,
    ) -> Result<TransitionOutcome<PaymentState>> {
        let tx = self.write_tx()?;
        let out = transition_tx(&tx, payment_id, from, to, detail, now_ms)?;
        if matches!(out, TransitionOutcome::Applied { .. }) {
            tx.commit()?;
        }
        Ok(out)
    }

    /// Records one attempt (an HTTP request with the checkout key): a timeline row with
    /// outcome, latency, replay flag and attempt number; stamps `first_attempt_at_ms` the
    /// first time (the dedup-window guard of record 0008 measures from it).
    pub fn record_attempt(&mut self, payment_id: PaymentId, attempt: &TimelineInput, now_ms: i64) -> Result<()> {
        let tx = self.write_tx()?;
        record_attempt_tx(&tx, payment_id, attempt, now_ms)?;
        tx.commit()?;
        Ok(())
    }

    /// Settles what one attempt phase of a checkout ended with, in ONE transaction
    /// (one durable commit): the attempts' timeline rows (stamping
    /// `first_attempt_at_ms`), the PSP's answer recorded idempotently (the same
    /// `Exists…` checks as [`Payments::record_psp_result`]), the last error, and the state
    /// path to `target` — `created`/`queued_offline` go through `authorizing` first —
    /// each step checked against the one transition table and applied with
    /// `UPDATE … WHERE id=? AND state=?` ([`Payments::transition`]'s rules and side
    /// effects). Without a target, `sent` still moves a `created`/`queued_offline` row
    /// to `authorizing`. A state already past the target is kept (an event may have
    /// moved it first).
    ///
    /// If the PSP result disagrees with the row (`ExistsWith…`, `…BelongsToAnotherKey`)
    /// nothing at all is written and [`SettleOutcome::PspConflict`] is returned.
    pub fn settle_checkout(&mut self, payment_id: PaymentId, s: &CheckoutSettlement, now_ms: i64) -> Result<SettleOutcome> {
        let tx = self.write_tx()?;
        for (entry, at_ms) in &s.attempts {
            record_attempt_tx(&tx, payment_id, entry, *at_ms)?;
        }
        if let Some(res) = &s.psp {
            let out = record_psp_result_tx(&tx, res, now_ms)?;
            if !matches!(out, RecordOutcome::Recorded(_) | RecordOutcome::Exists(_)) {
                return Ok(SettleOutcome::PspConflict(out)); // dropping tx rolls back
            }
        }
        if let Some(e) = &s.last_error {
            set_last_error_tx(&tx, payment_id, Some(e.as_str()), now_ms)?;
        }
        let cur = payment_by_id_tx(&tx, payment_id)?.state;
        use PaymentState::*;
        let target = match s.target {
            Some(t) => Some(t),
            None if s.sent && matches!(cur, Created | QueuedOffline) => Some(Authorizing),
            None => None,
        };
        if let Some(to) = target {
            // No path: already past it, keep what is there.
            let path = cur.path_to(to).unwrap_or_default();
            let mut from = cur;
            let mut sale = None;
            for step in path {
                // A settle moves only forward, one edge of the table at a time.
                assert!(from.can_transition_to(step), "settle of payment {payment_id}: {from} -> {step}");
                let detail = if step == Authorizing { SENT_DETAIL } else { s.via.as_str() };
                let (out, cart) = step_tx(&tx, payment_id, from, step, detail, now_ms)?;
                from = out.state();
                sale = sale.or(cart);
            }
            // The sale follows once, from where the payment ended: a refresh after each
            // edge read the whole sale again for a state nobody outside this
            // transaction could see (record 0108).
            if let Some(cart) = sale {
                refresh_cart_tx(&tx, cart, now_ms)?;
            }
        }
        let p = payment_by_id_tx(&tx, payment_id)?;
        // A settle never moves a payment out of a terminal state.
        assert!(!cur.is_terminal() || p.state == cur, "settle of payment {payment_id} moved {cur} to {}", p.state);
        tx.commit()?;
        Ok(SettleOutcome::Settled(p))
    }
}

/// Detail of the `-> authorizing` step: a request may be out.
pub(super) const SENT_DETAIL: &str = "sent to the PSP";

pub(super) fn record_attempt_tx(tx: &WriteTx<'_>, payment_id: PaymentId, attempt: &TimelineInput, now_ms: i64) -> Result<()> {
    let n = tx.exec_cached(
        "UPDATE payments SET first_attempt_at_ms = COALESCE(first_attempt_at_ms, ?2), updated_at_ms = ?2
         WHERE id = ?1",
        params![payment_id.0, now_ms],
    )?;
    if n == 0 {
        return Err(Error::UnknownPayment(payment_id.to_string()));
    }
    let mut entry = attempt.clone();
    entry.kind = Some(entry.kind.unwrap_or(TimelineKind::Attempt));
    append_timeline_tx(tx, payment_id, &entry, now_ms)?;
    Ok(())
}

pub(super) fn transition_tx(
    tx: &WriteTx<'_>,
    payment_id: PaymentId,
    from: PaymentState,
    to: PaymentState,
    detail: &str,
    now_ms: i64,
) -> Result<TransitionOutcome<PaymentState>> {
    let (out, cart) = step_tx(tx, payment_id, from, to, detail, now_ms)?;
    // The sale (cart) follows its tenders' payments (record 0029): paid when they add
    // up to its total, editable again when nothing is settled or reserved.
    if let Some(cart) = cart {
        refresh_cart_tx(tx, cart, now_ms)?;
    }
    Ok(out)
}

/// One move of [`transition_tx`] without the sale's refresh, which the caller owes:
/// returns the payment's cart when the payment moved and belongs to a sale. A settle
/// moves along several edges and refreshes the sale once, after the last (record 0108).
fn step_tx(
    tx: &WriteTx<'_>,
    payment_id: PaymentId,
    from: PaymentState,
    to: PaymentState,
    detail: &str,
    now_ms: i64,
) -> Result<(TransitionOutcome<PaymentState>, Option<CartId>)> {
    if from != to && !from.can_transition_to(to) {
        return Err(Error::IllegalTransition(paydesk_domain::state::IllegalTransition { from, to }));
    }
    if from != to {
        check_refund_bookkeeping(tx, payment_id, from, to)?;
    }
    // RETURNING: the payment's cart comes with the move, not from a read after it.
    let moved: Option<Option<i64>> = if from == to {
        None
    } else {
        tx.write_row_cached(
            "UPDATE payments SET state = ?3, updated_at_ms = ?4,
                 offline = CASE WHEN ?3 = 'queued_offline' THEN 1 ELSE offline END
             WHERE id = ?1 AND state = ?2
             RETURNING cart_id",
            params![payment_id.0, from.as_str(), to.as_str(), now_ms],
            |r| r.get(0),
        )
        .optional()?
    };
    let Some(cart) = moved else {
        let current = payment_by_id_tx(tx, payment_id)?.state;
        if current == to {
            return Ok((TransitionOutcome::AlreadyDone(current), None));
        }
        return Err(Error::StaleState { payment_id: payment_id.0, expected: from, found: current });
    };
    append_timeline_tx(
        tx,
        payment_id,
        &TimelineInput {
            kind: Some(TimelineKind::Transition),
            detail: if detail.is_empty() { format!("{from} -> {to}") } else { format!("{from} -> {to}: {detail}") },
            outcome: Some(to.as_str().to_string()),
            ..Default::default()
        },
        now_ms,
    )?;
    Ok((TransitionOutcome::Applied { from, to }, cart.map(CartId)))
}

/// The payment's refund states must agree with its refunds (see
/// [`Error::RefundBookkeeping`]), so a report never shows "refunded" for money that was
/// not. Exhaustive over the target state on purpose.
pub(super) fn check_refund_bookkeeping(tx: &Connection, payment_id: PaymentId, from: PaymentState, to: PaymentState) -> Result<()> {
    use PaymentState::*;
    let leaving_refunding = from == Refunding;
    // Only a move into `refunding`, or out of it, depends on the refunds: every other
    // move (a checkout's created -> authorizing -> captured) reads nothing here. A
    // missing payment is then reported by the move itself (its UPDATE finds no row).
    let depends_on_refunds = match to {
        Refunding => true,
        Refunded | PartiallyRefunded | Captured => leaving_refunding,
        Created | QueuedOffline | Authorizing | Authorized | Capturing | Failed | Canceled | OnReader => false,
    };
    if !depends_on_refunds {
        return Ok(());
    }
    let row: Option<(i64, i64)> = tx
        .row_cached("SELECT refunded_minor, amount_minor FROM payments WHERE id = ?1", [payment_id.0], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let Some((refunded_minor, amount_minor)) = row else {
        return Err(Error::UnknownPayment(payment_id.to_string()));
    };
    let open_refunds: i64 = tx.row_cached(
        "SELECT count(*) FROM refunds WHERE payment_id = ?1 AND state IN ('pending','in_flight')",
        [payment_id.0],
        |r| r.get(0),
    )?;
    let ok = match to {
        Refunding => open_refunds > 0,
        Refunded => !leaving_refunding || (open_refunds == 0 && refunded_minor == amount_minor),
        PartiallyRefunded => {
            !leaving_refunding || (open_refunds == 0 && refunded_minor > 0 && refunded_minor < amount_minor)
        }
        Captured => !leaving_refunding || (open_refunds == 0 && refunded_minor == 0),
        Created | QueuedOffline | Authorizing | Authorized | Capturing | Failed | Canceled | OnReader => true,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::RefundBookkeeping { payment_id: payment_id.0, to, refunded_minor, amount_minor, open_refunds })
    }
}
