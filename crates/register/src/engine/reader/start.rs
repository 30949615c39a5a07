//! Handing a payment to the reader (decision 0102): the key and reader committed first, the
//! intent created under the checkout key, the cart shown on the reader, then each process
//! attempt committed before it is sent under `<key>-process-<n>`. "Present again" makes
//! attempt n+1 on the SAME intent, only after attempt n proved "not charged".

use super::{NotChargedWhy, PendingWhy, ReaderOutcome, ReaderReport, UnavailableWhy};
use crate::engine::sale::SaleView;
use crate::engine::{CrashPoint, Engine, EngineError, Result};
use crate::notify::{ResolvedVia, Subject};
use crate::psp::{AttemptOutcome, Fatal, PaymentIntent, Reader, StripeError};
use crate::retry::{run_phase, AttemptRecord, PhaseResult};
use paydesk_ledger::{BeginAttempt, CardTender, CartId, CheckoutSettlement, Payment, ReaderAttempt, ReaderAttemptOutcome, ReaderSettlement};
use paydesk_domain::{CaptureMethod, Money, PaymentState};
use serde::Serialize;

/// A reader tender's outcome and the sale after it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReaderTenderReport {
    pub reader: ReaderReport,
    pub sale: SaleView,
}

/// What creating (or replaying) the intent gave.
pub(super) enum IntentStep {
    Ready(PaymentIntent, Vec<AttemptRecord>),
    /// Answered already: the report to give (unreachable, refused, unknown).
    Done(ReaderReport),
}

impl Engine {
    /// Charges `amount_minor` (everything open when `None`) of the sale to a card on
    /// `reader_id`, as the sale's next tender. Pressed again while that tender is on the
    /// reader, the same payment is resolved (never a second one); another amount needs
    /// the old one abandoned first ([`Engine::abandon_reader_payment`]), or an override.
    pub async fn charge_reader_tender(
        &self,
        cart: CartId,
        amount_minor: Option<i64>,
        reader_id: &str,
        override_reason: Option<&str>,
    ) -> Result<ReaderTenderReport> {
        let now = self.now();
        let currency = self.with_ledger(|l| l.carts().by_id(cart))?.currency;
        let ct: CardTender = self
            .with_ledger(|l| l.card_readers_mut().open_tender(cart, amount_minor, reader_id, CaptureMethod::Automatic, override_reason, now))
            .map_err(|e| crate::engine::sale::tender_error(e, currency))?;
        let key = ct.payment.idempotency_key.clone();
        if ct.is_new {
            self.crash(CrashPoint::AfterKeyCommit);
        }
        let res = self.hand_to_reader(&key, false, ct.is_new).await;
        let reader = self.reader_told(&key, res)?;
        Ok(ReaderTenderReport { reader, sale: self.sale_now(cart)? })
    }

    /// A reader payment without a sale (the CLI's `reader charge --amount`).
    pub async fn charge_on_reader(&self, amount: Money, reader_id: &str) -> Result<ReaderReport> {
        let now = self.now();
        let p = self.with_ledger(|l| l.card_readers_mut().create_payment(amount, reader_id, CaptureMethod::Automatic, now))?;
        self.crash(CrashPoint::AfterKeyCommit);
        let res = self.hand_to_reader(&p.idempotency_key, false, true).await;
        self.reader_told(&p.idempotency_key, res)
    }

    /// "Present again" / "Try another card": a person asks for the next attempt on the
    /// SAME intent. Only once the newest attempt proved "not charged" (read first if it
    /// is still unknown); a paid one is reported, a running one resolved.
    pub async fn present_again(&self, key: &str) -> Result<ReaderReport> {
        let res = self.hand_to_reader(key, true, false).await;
        self.reader_told(key, res)
    }

    async fn hand_to_reader(&self, key: &str, person_asked: bool, created_here: bool) -> Result<ReaderReport> {
        let _flight = self.flight(key).await;
        let p = self.payment(key)?;
        let rp = self.reader_payment_of(&p)?;
        if !p.state.is_open_on_reader() {
            return self.stored_reader_report(&p, None);
        }
        // An attempt still unknown is read first: never a second attempt while one may run.
        if rp.latest().is_some_and(|a| a.outcome == ReaderAttemptOutcome::Sent) {
            let (report, _) = self.read_and_apply(&p, &rp, None, ResolvedVia::ReaderBeforePresentingAgain).await?;
            let still_sent = self
                .reader_payment_of(&self.payment(key)?)?
                .latest()
                .is_some_and(|a| a.outcome == ReaderAttemptOutcome::Sent);
            if still_sent || report.outcome.is_resolved() && !matches!(report.outcome, ReaderOutcome::NotCharged { .. }) {
                return Ok(report);
            }
            if matches!(report.outcome, ReaderOutcome::NotCharged { why: NotChargedWhy::IntentCanceled }) {
                return Ok(report);
            }
        }
        let p = self.payment(key)?;
        let (intent, create_recs) = match self.ensure_intent(&p, created_here).await? {
            IntentStep::Ready(pi, recs) => (pi, recs),
            IntentStep::Done(report) => return Ok(report),
        };
        // Rule 4: the intent is for this checkout's amount and currency, or an alarm.
        self.check_intent_matches(&p, &intent)?;
        let rows = self.attempt_rows(&create_recs);
        let now = self.now();
        let begun = self
            .with_ledger(|l| l.card_readers_mut().begin_attempt(p.id, &intent.id, &rows, person_asked, now))
            .map_err(|e| self.reader_ledger_error(&p, e))?;
        let attempt = match begun {
            BeginAttempt::New(a) => a,
            BeginAttempt::Running(_) | BeginAttempt::Succeeded(_) => {
                let deadline = self.now() + self.inner.cfg.reader.wait_bound().as_millis() as i64;
                return self.poll_reader(key, deadline, None).await;
            }
            BeginAttempt::NeedsPerson(_) => return self.stored_reader_report(&self.payment(key)?, None),
        };
        self.show_cart(&p, &attempt).await;
        self.process(key, &attempt).await
    }

    /// The intent of a payment: created under the checkout key with the stored request
    /// (no payment method, no confirm: it cannot charge anything by itself), or replayed
    /// under the same key when its id is not known yet.
    pub(super) async fn ensure_intent(&self, p: &Payment, created_here: bool) -> Result<IntentStep> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        if let Some(id) = &p.psp_payment_id {
            let c = self.inner.psp.clone();
            let iid = id.clone();
            if let PhaseResult::Final(AttemptOutcome::Ok { value, .. }) =
                self.background_get::<PaymentIntent>(move || c.get_intent_request(&iid), &subject).await
            {
                return Ok(IntentStep::Ready(value, Vec::new()));
            }
            return Ok(IntentStep::Done(self.unreachable_report(p, Vec::new(), false).await?));
        }
        let form = p.request_params.0.clone();
        let psp = &self.inner.psp;
        let prior = self.attempt_count(p.id)?;
        let (res, recs) = run_phase::<PaymentIntent>(
            self.inner.phase(&self.inner.cfg.interactive, &subject, prior + 1),
            {
                let c = psp.clone();
                let k = p.idempotency_key.clone();
                move || c.create_intent_request_from_form(form.clone(), &k)
            },
        )
        .await;
        self.note_connectivity(&recs);
        match res {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => Ok(IntentStep::Ready(value, recs)),
            PhaseResult::Exhausted { never_sent, .. } => {
                Ok(IntentStep::Done(self.unreachable_report(p, recs, never_sent && created_here).await?))
            }
            PhaseResult::Final(AttemptOutcome::Fatal(f)) => {
                let proven = created_here && recs.iter().all(|r| r.executed_nothing) && f.proves_not_executed();
                let target = proven.then_some(PaymentState::Canceled);
                let s = CheckoutSettlement {
                    attempts: self.attempt_rows(&recs),
                    last_error: Some(f.message()),
                    target,
                    via: "the PSP refused the intent".into(),
                    ..Default::default()
                };
                self.settle(p, &s)?;
                Err(match f {
                    Fatal::Auth(_) | Fatal::Config(_) | Fatal::NotAPsp(..) => EngineError::PspConfig(f.message()),
                    Fatal::BadRequest(_) | Fatal::IdempotencyMismatch(_) | Fatal::NotFound(_) | Fatal::Unexpected(..) => {
                        EngineError::PspRejected(f.message())
                    }
                })
            }
            PhaseResult::Final(AttemptOutcome::Unknown { .. } | AttemptOutcome::Declined { .. }) => {
                let s = CheckoutSettlement { attempts: self.attempt_rows(&recs), ..Default::default() };
                let p = self.settle(p, &s)?;
                Ok(IntentStep::Done(self.stored_reader_report(&p, Some(PendingWhy::LostAnswer))?))
            }
            PhaseResult::Final(AttemptOutcome::Retry { .. }) => unreachable!("a phase never ends on a retryable outcome"),
        }
    }

    /// The PSP cannot be reached: a reader payment is never accepted offline. Proven
    /// never sent (this call made the key, every attempt refused) → `canceled`; else it
    /// stays `created` (an intent may exist, but nothing processed it: not charged) and
    /// recovery cancels that intent.
    async fn unreachable_report(&self, p: &Payment, recs: Vec<AttemptRecord>, proven_never_sent: bool) -> Result<ReaderReport> {
        let s = CheckoutSettlement {
            attempts: self.attempt_rows(&recs),
            last_error: Some("the PSP cannot be reached: the card reader is unavailable".into()),
            target: (proven_never_sent && p.state == PaymentState::Created).then_some(PaymentState::Canceled),
            via: "PSP unreachable, nothing sent".into(),
            ..Default::default()
        };
        let p = if recs.is_empty() && s.target.is_none() { p.clone() } else { self.settle(p, &s)? };
        let mut r = self.stored_reader_report(&p, None)?;
        if !matches!(r.outcome, ReaderOutcome::Paid | ReaderOutcome::Authorized) {
            r.outcome = ReaderOutcome::ReaderUnavailable { why: UnavailableWhy::PspUnreachable };
        }
        Ok(r)
    }

    /// Shows the sale on the reader before processing: its lines when this payment is the
    /// whole sale, else one line with the amount (`display.rs` says why). Best effort: a
    /// display that fails never stops a payment.
    async fn show_cart(&self, p: &Payment, attempt: &ReaderAttempt) {
        let sale = p.cart_id.and_then(|c| self.with_ledger(|l| l.carts().by_id(c)).ok());
        let cart = super::display::display_cart(sale.as_ref(), p.amount);
        let c = self.inner.psp.clone();
        let reader = attempt.reader_id.clone();
        let key = format!("{}-display", attempt.idempotency_key);
        let req = c.set_reader_display_request(&reader, &cart, &key);
        let out: AttemptOutcome<Reader> = c.attempt(req).await;
        if !matches!(out, AttemptOutcome::Ok { .. }) {
            tracing::info!(key = %p.idempotency_key, outcome = out.label(), "the reader's display was not updated");
        }
    }

    /// Sends the committed attempt (same key on every retry of this phase) and reads what
    /// it means: a 200 only says the reader received it; the result comes from polling.
    async fn process(&self, key: &str, attempt: &ReaderAttempt) -> Result<ReaderReport> {
        let p = self.payment(key)?;
        let intent = p.psp_payment_id.clone().expect("the intent id is committed with the attempt");
        let subject = Subject::Checkout(key.to_string());
        let psp = &self.inner.psp;
        let (res, recs) = run_phase::<Reader>(
            self.inner.phase(&self.inner.cfg.interactive, &subject, 1),
            {
                let c = psp.clone();
                let reader = attempt.reader_id.clone();
                let pkey = attempt.idempotency_key.clone();
                move || c.process_payment_intent_request(&reader, &intent, &pkey)
            },
        )
        .await;
        self.note_connectivity(&recs);
        if recs.iter().any(|r| !r.executed_nothing) {
            self.crash(CrashPoint::AfterSend);
        }
        let deadline = self.now() + self.inner.cfg.reader.wait_bound().as_millis() as i64;
        match res {
            PhaseResult::Final(AttemptOutcome::Ok { .. }) => self.poll_reader(key, deadline, None).await,
            PhaseResult::Final(AttemptOutcome::Fatal(Fatal::BadRequest(err))) => self.on_process_refused(&p, attempt, &err, deadline).await,
            PhaseResult::Final(AttemptOutcome::Fatal(f)) if f.proves_not_executed() => {
                self.settle_reader_now(&p, &refused(attempt, f.code(), Some(f.message())))?;
                Err(EngineError::PspConfig(f.message()))
            }
            PhaseResult::Exhausted { never_sent: true, unreachable: true, .. } => {
                self.settle_reader_now(&p, &refused(attempt, "psp_unreachable", None))?;
                let mut r = self.stored_reader_report(&self.payment(key)?, None)?;
                r.outcome = ReaderOutcome::ReaderUnavailable { why: UnavailableWhy::PspUnreachable };
                Ok(r)
            }
            // Lost answers, 5xx, an idempotency error: it may have started. Read.
            PhaseResult::Final(AttemptOutcome::Fatal(_) | AttemptOutcome::Unknown { .. } | AttemptOutcome::Declined { .. })
            | PhaseResult::Exhausted { .. } => self.poll_reader(key, deadline, Some(PendingWhy::LostAnswer)).await,
            PhaseResult::Final(AttemptOutcome::Retry { .. }) => unreachable!("a phase never ends on a retryable outcome"),
        }
    }

    /// The PSP refused to start the process (a 400): the reader busy or offline ends the
    /// attempt (nothing started); a timeout or an intent in the wrong state may hide a
    /// started one, so the reader and the intent are read.
    async fn on_process_refused(&self, p: &Payment, attempt: &ReaderAttempt, err: &StripeError, deadline: i64) -> Result<ReaderReport> {
        let key = p.idempotency_key.as_str();
        let code = err.code.clone().unwrap_or_default();
        match code.as_str() {
            "terminal_reader_busy" => {
                self.settle_reader_now(p, &refused(attempt, &code, err.message.clone()))?;
                let mut r = self.stored_reader_report(&self.payment(key)?, None)?;
                r.outcome = ReaderOutcome::ReaderBusy;
                Ok(r)
            }
            "terminal_reader_offline" => {
                self.settle_reader_now(p, &refused(attempt, &code, err.message.clone()))?;
                let mut r = self.stored_reader_report(&self.payment(key)?, None)?;
                r.outcome = ReaderOutcome::ReaderUnavailable { why: UnavailableWhy::ReaderOffline };
                Ok(r)
            }
            // Sometimes a false negative: the reader did get the command.
            "terminal_reader_timeout" => self.poll_reader(key, deadline, Some(PendingWhy::ReaderTimeout)).await,
            // Not processable: the intent's own state is the truth (an earlier
            // attempt may have succeeded).
            "intent_invalid_state" => self.poll_reader(key, deadline, Some(PendingWhy::Processing)).await,
            // A validation 400 executed nothing.
            _ => {
                self.settle_reader_now(p, &refused(attempt, if code.is_empty() { "invalid_request" } else { &code }, err.message.clone()))?;
                self.stored_reader_report(&self.payment(key)?, None)
            }
        }
    }

    pub(super) fn settle_reader_now(&self, p: &Payment, s: &ReaderSettlement) -> Result<Payment> {
        let now = self.now();
        Ok(self.with_ledger(|l| l.card_readers_mut().settle(p.id, s, now))?)
    }

    fn reader_ledger_error(&self, p: &Payment, e: paydesk_ledger::Error) -> EngineError {
        match e {
            paydesk_ledger::Error::ReaderIntentMismatch { .. } => {
                let msg = e.to_string();
                self.notify(crate::notify::Notification::Alarm {
                    subject: Some(Subject::Checkout(p.idempotency_key.clone())),
                    code: crate::notify::AlarmCode::ExistsWithDifferent,
                    message: msg.clone(),
                });
                EngineError::Alarm { code: crate::notify::AlarmCode::ExistsWithDifferent, detail: msg }
            }
            paydesk_ledger::Error::ReaderAttemptLimit { .. } | paydesk_ledger::Error::NotAReaderPayment { .. } => {
                EngineError::InvalidInput(e.to_string())
            }
            other => other.into(),
        }
    }
}

/// An attempt the PSP refused before it started: canceled with the PSP's code, the
/// payment staying where it is.
fn refused(attempt: &ReaderAttempt, code: &str, message: Option<String>) -> ReaderSettlement {
    ReaderSettlement {
        to: None,
        attempt: Some((attempt.attempt_no, ReaderAttemptOutcome::Canceled, Some(code.to_string()), message)),
        details: None,
        note: format!("process attempt {} refused before it started: {code}", attempt.attempt_no),
    }
}
