//! Capture and cancel of an authorized PaymentIntent, each under its own key (the
//! checkout key plus `-capture` / `-cancel`, reissued only after GET proved a stored
//! failure executed nothing), and the capture's GET-first resolution.

use super::{psp_key_prefix, Attempted, CheckoutReport, Engine, EngineError, Result, MAX_KEY_REISSUES};
use crate::attempt::may_have_reached_psp;
use crate::notify::{Notification, ResolvedVia, Subject};
use crate::psp::{AttemptOutcome, PaymentIntent, PiStatus, PspClient};
use crate::retry::{run_phase, AttemptRecord, PhaseResult};
use paydesk_ledger::reissue::ReissueOp;
use paydesk_ledger::Payment;
use paydesk_domain::PaymentState;

/// A POST on an authorized PaymentIntent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PiOp {
    Capture,
    Cancel,
}

impl PiOp {
    fn name(self) -> &'static str {
        match self {
            PiOp::Capture => "capture",
            PiOp::Cancel => "cancel",
        }
    }
    fn via_reply(self) -> ResolvedVia {
        match self {
            PiOp::Capture => ResolvedVia::Capture,
            PiOp::Cancel => ResolvedVia::Cancel,
        }
    }
    fn via_replay(self) -> ResolvedVia {
        match self {
            PiOp::Capture => ResolvedVia::CaptureReplay,
            PiOp::Cancel => ResolvedVia::CancelReplay,
        }
    }
    fn via_check(self) -> ResolvedVia {
        match self {
            PiOp::Capture => ResolvedVia::CaptureCheck,
            PiOp::Cancel => ResolvedVia::CancelCheck,
        }
    }
    fn reissue(self) -> ReissueOp {
        match self {
            PiOp::Capture => ReissueOp::Capture,
            PiOp::Cancel => ReissueOp::Cancel,
        }
    }
    fn subject(self, checkout_key: &str) -> Subject {
        match self {
            PiOp::Capture => Subject::Capture(checkout_key.to_string()),
            PiOp::Cancel => Subject::Cancel(checkout_key.to_string()),
        }
    }
    fn request(self, c: &PspClient, pi_id: &str, key: &str) -> crate::transport::HttpRequest {
        match self {
            PiOp::Capture => c.capture_request(pi_id, key),
            PiOp::Cancel => c.cancel_request(pi_id, key),
        }
    }
}

impl Engine {
    /// Capture an authorized (manual-capture) payment, with its own key.
    pub async fn capture(&self, key: &str) -> Result<CheckoutReport> {
        // Under the payment's lock: a cancel holds it while it asks the PSP, and must
        // not find its authorized payment turned `capturing` meanwhile.
        let flight = self.flight(key).await;
        let p = self.payment(key)?;
        match p.state {
            PaymentState::Authorized => {
                self.move_to(p.id, PaymentState::Capturing, "capture requested")?;
                let p = self.payment(key)?;
                drop(flight); // resolve_capture takes it again
                self.resolve_capture(&p).await
            }
            PaymentState::Capturing => {
                drop(flight);
                self.resolve_capture(&p).await
            }
            PaymentState::Captured => self.report(&p),
            s => Err(EngineError::WrongState { key: key.into(), state: s, attempted: Attempted::Capture, what: "only an authorized payment can be captured".into() }),
        }
    }

    pub(super) async fn resolve_capture(&self, p: &Payment) -> Result<CheckoutReport> {
        let _flight = self.flight(&p.idempotency_key).await;
        let Some(pi_id) = p.psp_payment_id.clone() else {
            return Err(EngineError::WrongState { key: p.idempotency_key.clone(), state: p.state, attempted: Attempted::Capture, what: "no PSP payment id".into() });
        };
        // GET first: always safe, and it tells whether the capture already happened.
        if let Some(pi) = self.get_intent(&pi_id, &Subject::Capture(p.idempotency_key.clone())).await {
            if pi.pi_status() != PiStatus::RequiresCapture {
                let p = self.settle_with_intent(p, &pi, &[], ResolvedVia::CaptureCheck)?;
                return self.report(&p);
            }
        }
        let (known, recs) = self.pi_operation(p, &pi_id, PiOp::Capture).await?;
        match known {
            Some((pi, via)) => {
                let p = self.settle_with_intent(p, &pi, &recs, via)?;
                self.report(&p)
            }
            None => {
                self.record_attempts(p, &recs, false)?;
                self.report_key(&p.idempotency_key)
            }
        }
    }
    /// Capture or cancel an authorized PaymentIntent under the operation's current key
    /// (`<checkout>-capture`, or a key reissued after a stored failure). Returns the
    /// PaymentIntent when its state is known (with how it became known) and the
    /// attempts not yet recorded; `None` when the outcome is still open (the next pass
    /// retries with the same key).
    ///
    /// A 500 is stored by the PSP and replayed for that key until its retention ends:
    /// resending the key can never succeed. So the register stops resending it, asks
    /// the PSP for the truth (GET the PaymentIntent: the 500's execution is finished,
    /// so what GET shows is final for that key), and only if the operation really did
    /// not happen continues under a fresh key committed to the ledger before it is sent
    /// (record 0003). No second capture is possible: the PSP captures a PaymentIntent once,
    /// and a fresh key is only used after GET showed it still `requires_capture`. At most
    /// [`MAX_KEY_REISSUES`] fresh keys; past that the payment needs a person (alarm).
    async fn pi_operation(&self, p: &Payment, pi_id: &str, op: PiOp) -> Result<(Option<(PaymentIntent, ResolvedVia)>, Vec<AttemptRecord>)> {
        let subject = op.subject(&p.idempotency_key);
        let root = psp_key_prefix(p, op.name());
        let psp = &self.inner.psp;
        let mut recs_all: Vec<AttemptRecord> = Vec::new();
        for _ in 0..=MAX_KEY_REISSUES {
            let cur = self.with_ledger(|l| l.payments().current_operation_key(op.reissue(), &root))?;
            let (res, recs) = run_phase::<PaymentIntent>(
                self.inner.phase(&self.inner.cfg.interactive, &subject, recs_all.len() as u32 + 1),
                { let c = psp.clone(); let id = pi_id.to_string(); let k = cur.key.clone(); move || op.request(&c, &id, &k) },
            )
            .await;
            self.note_connectivity(&recs);
            recs_all.extend(recs);
            match res {
                PhaseResult::Final(AttemptOutcome::Ok { value, replayed }) => {
                    return Ok((Some((value, if replayed { op.via_replay() } else { op.via_reply() })), recs_all));
                }
                PhaseResult::Final(AttemptOutcome::Fatal(f)) => {
                    self.record_attempts(p, &recs_all, false)?;
                    return Err(EngineError::PspRejected(f.message()));
                }
                PhaseResult::Final(AttemptOutcome::Unknown { status, message, .. }) => {
                    let Some(pi) = self.get_intent(pi_id, &subject).await else {
                        return Ok((None, recs_all));
                    };
                    if pi.pi_status() != PiStatus::RequiresCapture {
                        // It happened after all (or the intent moved on): the PSP's state decides.
                        return Ok((Some((pi, op.via_check())), recs_all));
                    }
                    self.record_attempts(p, &recs_all, false)?;
                    recs_all.clear();
                    let now = self.now();
                    if cur.generation >= MAX_KEY_REISSUES {
                        let msg = format!(
                            "{} of {} failed at the PSP under {} keys (last: {status} {message}); the payment is still authorized there. Needs attention: retry later or contact the processor",
                            op.name(), p.idempotency_key, cur.generation + 1
                        );
                        self.with_ledger(|l| l.payments_mut().set_last_error(p.id, Some(&msg), now))?;
                        self.notify(Notification::Alarm { subject: Some(subject.clone()), code: crate::notify::AlarmCode::NeedsAttention, message: msg });
                        return Ok((None, recs_all));
                    }
                    let why = format!("the PSP stored {status} ({message}) for {} and the PaymentIntent is still requires_capture", cur.key);
                    self.with_ledger(|l| l.payments_mut().reissue_operation_key(p.id, op.reissue(), &root, cur.generation, &why, now))?;
                }
                PhaseResult::Final(AttemptOutcome::Declined { .. } | AttemptOutcome::Retry { .. })
                | PhaseResult::Exhausted { .. } => return Ok((None, recs_all)),
            }
        }
        Ok((None, recs_all))
    }

    /// Void an authorized payment (manual capture), or abandon a queued
    /// offline one that was never forwarded.
    pub async fn cancel(&self, key: &str) -> Result<CheckoutReport> {
        // The payment's lock first, then its state: the forwarder or a capture may be
        // driving it, and what they find decides what may be canceled.
        let _flight = self.flight(key).await;
        let p = self.payment(key)?;
        match p.state {
            PaymentState::QueuedOffline => {
                // Parked after attempts that may have reached the PSP (a reset, a
                // timeout): it may be charged, so it is forwarded with its key, not voided.
                let maybe_sent = self.with_ledger(|l| l.payments().timeline(p.id))?.iter().any(may_have_reached_psp);
                if maybe_sent {
                    return Err(EngineError::WrongState {
                        key: key.into(),
                        state: p.state,
                        attempted: Attempted::Cancel,
                        what: "an attempt of this offline payment may have reached the processor: it is forwarded with the same key, not voided".into(),
                    });
                }
                self.move_to(p.id, PaymentState::Canceled, "offline payment voided by the cashier")?;
                self.report_key(key)
            }
            PaymentState::Authorized => {
                let pi_id = p.psp_payment_id.clone().unwrap_or_default();
                match self.pi_operation(&p, &pi_id, PiOp::Cancel).await? {
                    (Some((pi, via)), recs) => {
                        let p = self.settle_with_intent(&p, &pi, &recs, via)?;
                        self.report(&p)
                    }
                    (None, recs) => {
                        self.record_attempts(&p, &recs, false)?;
                        Err(EngineError::PspRejected("cancel not confirmed yet; try again".into()))
                    }
                }
            }
            PaymentState::Canceled => self.report(&p),
            s => Err(EngineError::WrongState { key: key.into(), state: s, attempted: Attempted::Cancel, what: "only an authorized or queued offline payment can be canceled".into() }),
        }
    }
}
