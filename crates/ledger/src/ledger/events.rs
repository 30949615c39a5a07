//! The idempotent event consumer (record 0011): `processed_events` (its PRIMARY KEY makes
//! a redelivered event a no-op) and the journal of money movements the events report.
//! Where the last poll ended is kept separately (`crate::cursor`).

use std::ops::Deref;
use crate::ledger::SyncLog;
use rusqlite::{params, OptionalExtension};

use super::refunds::refund_transition_tx;
use super::rows::{payment_by_id_tx, payment_by_key_tx, payment_by_psp_tx, refund_by_psp_tx, refund_from_row};
use super::timeline::append_timeline_tx;
use super::transitions::transition_tx;
use super::{collect, Cached, Ledger, REFUND_COLS};
use crate::error::{Error, Result};
use paydesk_domain::money::Currency;
use paydesk_domain::state::{PaymentState, RefundState, Step};
use crate::types::*;
use crate::write_tx::WriteTx;

impl SyncLog<&mut Ledger> {
    /// Applies a PSP event exactly once (record 0011).
    ///
    /// One transaction: INSERT into `processed_events` (PRIMARY KEY on the event id) —
    /// on conflict the transaction is abandoned and `AlreadyApplied` returned, nothing
    /// else changes; otherwise the effects (a state change when the table allows it from
    /// the current state, refund settlement) and exactly one journal row.
    ///
    /// Out-of-order events are tolerated: an event whose state change is not legal from
    /// the current state (e.g. `succeeded` arriving after a refund started) changes no
    /// state, but is still recorded and journaled, because the money movement it reports
    /// happened.
    pub fn apply_event(&mut self, event: &PspEvent, now_ms: i64) -> Result<ApplyOutcome> {
        if event.event_id.is_empty() {
            return Err(Error::InvalidInput("empty event id".into()));
        }
        let tx = self.write_tx()?;
        if !claim_event_tx(&tx, event, now_ms)? {
            return Ok(ApplyOutcome::AlreadyApplied);
        }
        let (payment, refund) = event_subjects_tx(&tx, event)?;
        if let Some(p) = &payment {
            attach_psp_payment_id_tx(&tx, p, event, now_ms)?;
        }
        let mut effects: Vec<String> = Vec::new();
        let state_change = match &payment {
            Some(p) => move_payment_tx(&tx, p, event, now_ms, &mut effects)?,
            None => None,
        };
        if let Some(r) = &refund {
            move_refund_tx(&tx, r, event, now_ms, &mut effects)?;
        }
        if payment.is_none() {
            effects.push("unknown payment".into());
        }
        let movement = journal_movement(event, payment.as_ref(), refund.as_ref())?;
        if movement.account != "none" && movement.amount_minor == 0 {
            effects.push("amount unknown".into());
        }
        let effect = if effects.is_empty() { "none".to_string() } else { effects.join("; ") };
        let payment_id = payment.as_ref().map(|p| p.id);
        record_effect_tx(&tx, event, payment_id, &movement, &effect, now_ms)?;
        if let Some(p) = &payment {
            append_timeline_tx(
                &tx,
                p.id,
                &TimelineInput {
                    kind: Some(TimelineKind::Event),
                    detail: format!("{} {}", event.event_type, event.event_id),
                    outcome: Some(effect.clone()),
                    refund_id: refund.as_ref().map(|r| r.id),
                    ..Default::default()
                },
                now_ms,
            )?;
        }
        tx.commit()?;
        Ok(ApplyOutcome::Applied { payment_id, state_change, journal_amount_minor: movement.amount_minor, effect })
    }
}

impl<L: Deref<Target = Ledger>> SyncLog<L> {
    pub fn is_event_processed(&self, event_id: &str) -> Result<bool> {
        Ok(self
            .conn
            .row_cached("SELECT 1 FROM processed_events WHERE event_id = ?1", [event_id], |_| Ok(()))
            .optional()?
            .is_some())
    }

    pub fn journal(&self) -> Result<Vec<JournalEntry>> {
        collect(
            &self.conn,
            "SELECT id, event_id, payment_id, at_ms, account, amount_minor, currency, memo FROM journal ORDER BY id",
            [],
            |r| {
                let currency: Option<String> = r.get(6)?;
                Ok((|| {
                    Ok(JournalEntry {
                        id: r.get(0)?,
                        event_id: r.get(1)?,
                        payment_id: r.get::<_, Option<i64>>(2)?.map(PaymentId),
                        at_ms: r.get(3)?,
                        account: r.get(4)?,
                        amount_minor: r.get(5)?,
                        currency: currency.as_deref().map(str::parse).transpose()?,
                        memo: r.get(7)?,
                    })
                })())
            },
        )
    }

    /// Signed journal total for one currency (checked sum).
    pub fn journal_total(&self, currency: Currency) -> Result<i64> {
        let mut total: i64 = 0;
        for e in self.journal()? {
            if e.currency == Some(currency) {
                total = total.checked_add(e.amount_minor).ok_or(Error::Overflow)?;
            }
        }
        Ok(total)
    }
}

/// Claims the event id in `processed_events` (its PRIMARY KEY): false when it was
/// already there, i.e. the event was applied before and must change nothing now.
fn claim_event_tx(tx: &WriteTx<'_>, event: &PspEvent, now_ms: i64) -> Result<bool> {
    let inserted = tx.exec_cached(
        "INSERT INTO processed_events (event_id, event_type, applied_at_ms, effect)
         VALUES (?1, ?2, ?3, '') ON CONFLICT(event_id) DO NOTHING",
        params![event.event_id, event.event_type, now_ms],
    )?;
    Ok(inserted != 0)
}

/// The payment and refund the event is about: by the PSP's id first, else by our
/// idempotency key (the PSP's answer may have been lost, so we may not know its id yet);
/// a refund event without a known payment reaches it through the refund.
fn event_subjects_tx(tx: &WriteTx<'_>, event: &PspEvent) -> Result<(Option<Payment>, Option<Refund>)> {
    let payment = match (&event.psp_payment_id, &event.checkout_key) {
        (Some(psp), _) if payment_by_psp_tx(tx, psp)?.is_some() => payment_by_psp_tx(tx, psp)?,
        (_, Some(key)) => payment_by_key_tx(tx, key)?,
        _ => None,
    };
    let refund = match (&event.psp_refund_id, &event.refund_key) {
        (Some(psp), _) if refund_by_psp_tx(tx, psp)?.is_some() => refund_by_psp_tx(tx, psp)?,
        (_, Some(key)) => {
            let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE idempotency_key = ?1");
            tx.row_cached(&sql, [key], refund_from_row).optional()?.transpose()?
        }
        _ => None,
    };
    let payment = match (payment, &refund) {
        (Some(p), _) => Some(p),
        (None, Some(r)) => Some(payment_by_id_tx(tx, r.payment_id)?),
        (None, None) => None,
    };
    Ok((payment, refund))
}

/// Found by checkout key while the PSP's answer was lost: the event tells us the PSP id,
/// so attach it (only if no other payment holds it; UNIQUE would refuse).
fn attach_psp_payment_id_tx(tx: &WriteTx<'_>, p: &Payment, event: &PspEvent, now_ms: i64) -> Result<()> {
    if let Some(psp) = &event.psp_payment_id {
        if p.psp_payment_id.is_none() && payment_by_psp_tx(tx, psp)?.is_none() {
            tx.exec_cached(
                "UPDATE payments SET psp_payment_id = ?2, updated_at_ms = ?3 WHERE id = ?1 AND psp_payment_id IS NULL",
                params![p.id.0, psp, now_ms],
            )?;
        }
    }
    Ok(())
}

/// The payment's state change a payment event asks for, when the transition table allows
/// it from where the payment is; otherwise only a note in `effects` (out of order events
/// are recorded, not refused). Returns the change made, if any.
fn move_payment_tx(
    tx: &WriteTx<'_>,
    p: &Payment,
    event: &PspEvent,
    now_ms: i64,
    effects: &mut Vec<String>,
) -> Result<Option<(PaymentState, PaymentState)>> {
    let to = match &event.kind {
        EventKind::PaymentSucceeded => PaymentState::Captured,
        EventKind::PaymentAuthorized => PaymentState::Authorized,
        EventKind::PaymentFailed => PaymentState::Failed,
        EventKind::PaymentCanceled => PaymentState::Canceled,
        EventKind::RefundSucceeded | EventKind::RefundFailed | EventKind::Other(_) => return Ok(None),
    };
    match p.state.step(to) {
        Ok(Step::Moved(_)) => match transition_tx(tx, p.id, p.state, to, &format!("event {}", event.event_id), now_ms) {
            Ok(_) => {
                effects.push(format!("{} -> {}", p.state, to));
                return Ok(Some((p.state, to)));
            }
            // A late payment event while refunds are open (refunding -> captured): the
            // refunds own that state; record, don't move.
            Err(e @ Error::RefundBookkeeping { .. }) => effects.push(format!("no state change ({e})")),
            Err(e) => return Err(e),
        },
        Ok(Step::AlreadyThere(_)) => effects.push(format!("already {to}")),
        Err(e) => effects.push(format!("no state change ({e})")),
    }
    Ok(None)
}

/// The refund's settlement a refund event reports (a pending refund passes through
/// in-flight on success, as the table requires), and the PSP's refund id when we did
/// not know it yet.
fn move_refund_tx(tx: &WriteTx<'_>, r: &Refund, event: &PspEvent, now_ms: i64, effects: &mut Vec<String>) -> Result<()> {
    let to = match &event.kind {
        EventKind::RefundSucceeded => RefundState::Succeeded,
        EventKind::RefundFailed => RefundState::Failed,
        EventKind::PaymentSucceeded
        | EventKind::PaymentAuthorized
        | EventKind::PaymentFailed
        | EventKind::PaymentCanceled
        | EventKind::Other(_) => return Ok(()),
    };
    let mut from = r.state;
    if from == RefundState::Pending && to == RefundState::Succeeded {
        refund_transition_tx(tx, r.id, from, RefundState::InFlight, now_ms)?;
        from = RefundState::InFlight;
    }
    match from.step(to) {
        Ok(Step::Moved(_)) => {
            refund_transition_tx(tx, r.id, from, to, now_ms)?;
            effects.push(format!("refund {} {from} -> {to}", r.id));
        }
        Ok(Step::AlreadyThere(_)) => effects.push(format!("refund {} already {to}", r.id)),
        Err(e) => effects.push(format!("no refund change ({e})")),
    }
    if let (Some(psp), None) = (&event.psp_refund_id, &r.psp_refund_id) {
        tx.exec_cached("UPDATE refunds SET psp_refund_id = ?2 WHERE id = ?1 AND psp_refund_id IS NULL", params![r.id.0, psp])?;
    }
    Ok(())
}

/// The signed money movement an event reports, for its journal row.
struct Movement {
    /// `sales`, `refunds`, or `none` for an event that moves no money.
    account: &'static str,
    /// Positive into sales, negative out as refunds; 0 when unknown or none.
    amount_minor: i64,
    currency: Option<Currency>,
}

/// What the event moved: its own amount, else the payment's (a sale) or the refund's (a
/// refund, negative). Only a succeeded payment or refund moves money.
fn journal_movement(event: &PspEvent, payment: Option<&Payment>, refund: Option<&Refund>) -> Result<Movement> {
    let currency = event.amount.map(|m| m.currency).or(refund.map(|r| r.amount.currency)).or(payment.map(|p| p.amount.currency));
    let (account, amount_minor) = match &event.kind {
        EventKind::PaymentSucceeded => {
            let a = event.amount.map(|m| m.amount_minor).or(payment.map(|p| p.amount.amount_minor));
            ("sales", a.unwrap_or(0))
        }
        EventKind::RefundSucceeded => {
            let a = event.amount.map(|m| m.amount_minor).or(refund.map(|r| r.amount.amount_minor));
            ("refunds", a.unwrap_or(0).checked_neg().ok_or(Error::Overflow)?)
        }
        EventKind::PaymentAuthorized
        | EventKind::PaymentFailed
        | EventKind::PaymentCanceled
        | EventKind::RefundFailed
        | EventKind::Other(_) => ("none", 0),
    };
    Ok(Movement { account, amount_minor, currency })
}

/// The event's record: its effect on `processed_events`, and exactly one journal row.
fn record_effect_tx(
    tx: &WriteTx<'_>,
    event: &PspEvent,
    payment_id: Option<PaymentId>,
    movement: &Movement,
    effect: &str,
    now_ms: i64,
) -> Result<()> {
    let updated = tx.exec_cached(
        "UPDATE processed_events SET payment_id = ?2, effect = ?3 WHERE event_id = ?1",
        params![event.event_id, payment_id.map(|p| p.0), effect],
    )?;
    // The row was inserted by `claim_event_tx` in this same transaction.
    assert_eq!(updated, 1, "event {}: its processed_events row is missing", event.event_id);
    tx.exec_cached(
        "INSERT INTO journal (event_id, payment_id, at_ms, account, amount_minor, currency, memo)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            event.event_id,
            payment_id.map(|p| p.0),
            now_ms,
            movement.account,
            movement.amount_minor,
            movement.currency.map(|c| c.code()),
            format!("{}: {effect}", event.event_type)
        ],
    )?;
    Ok(())
}
