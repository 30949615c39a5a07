//! Settling what an attempt phase ended with: one ledger commit for the attempts, the
//! PSP's id and the state path (`settle`, `settle_with_intent`, `settle_state_with`),
//! and `move_to` for the moves that are not a settle (offline, void, capture start).

use super::{Engine, EngineError, Result};
use crate::notify::{AlarmCode, Notification, ResolvedVia, SettledState, Subject};
use crate::psp::{PaymentIntent, PiStatus};
use crate::retry::AttemptRecord;
use paydesk_ledger::{CheckoutSettlement, Payment, PaymentId, PspResult, RecordOutcome, SettleOutcome};
use paydesk_domain::PaymentState;

impl Engine {
    /// One ledger commit for what an attempt phase ended with (at most two
    /// durable commits per checkout — the key before the network, then this).
    pub(super) fn settle(&self, p: &Payment, s: &CheckoutSettlement) -> Result<Payment> {
        let now = self.now();
        match self.with_ledger(|l| l.payments_mut().settle_checkout(p.id, s, now))? {
            SettleOutcome::Settled(p) => Ok(p),
            SettleOutcome::PspConflict(other) => Err(self.psp_conflict(p, other)),
        }
    }

    fn psp_conflict(&self, p: &Payment, other: RecordOutcome) -> EngineError {
        let msg = format!(
            "ledger and PSP disagree on {} ({}): {other:?}",
            p.idempotency_key,
            other.differing_field().unwrap_or("?")
        );
        self.notify(Notification::Alarm {
            subject: Some(Subject::Checkout(p.idempotency_key.clone())),
            code: AlarmCode::ExistsWithDifferent,
            message: msg.clone(),
        });
        EngineError::Alarm { code: AlarmCode::ExistsWithDifferent, detail: msg }
    }

    fn psp_result(p: &Payment, pi: &PaymentIntent) -> PspResult {
        PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: pi.id.clone(), amount: p.amount, state_if_new: p.state }
    }

    /// Move a payment to `to` along the table, tolerating concurrent movers
    /// (another process or the event consumer may have moved it already).
    pub(super) fn move_to(&self, id: PaymentId, to: PaymentState, detail: &str) -> Result<PaymentState> {
        for _ in 0..4 {
            let cur = self.with_ledger(|l| l.payments().by_id(id))?.state;
            if cur == to {
                return Ok(cur);
            }
            // The ledger's table decides the path; none means already past it (e.g. an
            // event captured it first): keep what is there.
            let Some(path) = cur.path_to(to) else {
                tracing::info!(?cur, ?to, "no move: state already advanced");
                return Ok(cur);
            };
            let mut from = cur;
            let mut stale = false;
            for step in path {
                let now = self.now();
                match self.with_ledger(|l| l.payments_mut().transition(id, from, step, detail, now)) {
                    Ok(o) => from = o.state(),
                    Err(paydesk_ledger::Error::StaleState { .. }) => {
                        stale = true;
                        break;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            if !stale {
                return Ok(from);
            }
        }
        Ok(self.with_ledger(|l| l.payments().by_id(id))?.state)
    }

    pub(super) fn settle_with_intent(&self, p: &Payment, pi: &PaymentIntent, recs: &[AttemptRecord], via: ResolvedVia) -> Result<Payment> {
        if pi.amount != 0 && (pi.amount != p.amount.amount_minor || !pi.currency.eq_ignore_ascii_case(p.amount.currency.code())) {
            let msg = format!(
                "PSP payment {} is {} {} but checkout {} is {}",
                pi.id, pi.amount, pi.currency, p.idempotency_key, p.amount
            );
            self.record_attempts(p, recs, true)?;
            self.notify(Notification::Alarm {
                subject: Some(Subject::Checkout(p.idempotency_key.clone())),
                code: AlarmCode::AmountMismatch,
                message: msg.clone(),
            });
            return Err(EngineError::Alarm { code: AlarmCode::AmountMismatch, detail: msg });
        }
        let target = match pi.pi_status() {
            PiStatus::Succeeded => Some(PaymentState::Captured),
            PiStatus::RequiresCapture => Some(PaymentState::Authorized),
            PiStatus::Failed => Some(PaymentState::Failed),
            PiStatus::Canceled => Some(PaymentState::Canceled),
            PiStatus::Other => None,
        };
        let msg = pi.last_payment_error.as_ref().and_then(|e| e.message.clone());
        match target {
            Some(t) => self.settle_state_with(p, t, recs, msg.as_deref(), via, Some(pi)),
            None => {
                // Still processing at the PSP: keep the id and the attempts, stay in flight.
                let s = CheckoutSettlement {
                    attempts: self.attempt_rows(recs),
                    psp: Some(Self::psp_result(p, pi)),
                    sent: true,
                    ..Default::default()
                };
                self.settle(p, &s)
            }
        }
    }

    /// Attempts, the PSP's id (if any), the last error and the state path to `to`, in
    /// ONE ledger commit.
    pub(super) fn settle_state_with(
        &self,
        p: &Payment,
        to: PaymentState,
        recs: &[AttemptRecord],
        last_error: Option<&str>,
        via: ResolvedVia,
        pi: Option<&PaymentIntent>,
    ) -> Result<Payment> {
        let s = CheckoutSettlement {
            attempts: self.attempt_rows(recs),
            psp: pi.map(|pi| Self::psp_result(p, pi)),
            last_error: last_error.map(str::to_string),
            target: Some(to),
            sent: true,
            via: via.as_str().to_string(),
        };
        let p = self.settle(p, &s)?;
        self.notify(Notification::Resolved {
            subject: Subject::Checkout(p.idempotency_key.clone()),
            state: SettledState::Payment(p.state),
            via,
        });
        Ok(p)
    }
}
