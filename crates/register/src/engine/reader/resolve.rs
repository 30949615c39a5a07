//! Resolving a reader payment by reading (decision 0102): the reader first, then the intent
//! with its charge; [`super::conclude`] says what that proves; one commit applies it.
//! Polled with a bounded interval and deadline (no webhooks on a desktop); the same read
//! serves "Check status", the end of every charge, cancel and recovery.

use super::{conclude, Conclusion, NotChargedWhy, PendingWhy, ReaderOutcome, ReaderReport};
use crate::engine::{DriveMode, Engine, EngineError, Result};
use crate::notify::{Notification, ResolvedVia, SettledState, Subject};
use crate::psp::{AttemptOutcome, Charge, PaymentIntent, Reader};
use crate::retry::PhaseResult;
use paydesk_ledger::{process_key, CardPresentDetails, Payment, ReaderAttempt, ReaderAttemptOutcome, ReaderPayment, ReaderSettlement};
use paydesk_domain::PaymentState;
use std::time::Duration;

/// How long a reader payment may stay `created` (key committed, nothing processed yet)
/// before recovery abandons it: far longer than the step from the key's commit to the
/// process attempt's commit of a live call.
pub(super) const CREATED_GRACE_MS: i64 = 30_000;

/// What one read gave: the conclusion and the failure the reader reported, if any.
pub(super) struct Read {
    pub conclusion: Conclusion,
    pub intent: Option<PaymentIntent>,
}

impl Engine {
    pub(super) fn reader_payment_of(&self, p: &Payment) -> Result<ReaderPayment> {
        self.with_ledger(|l| l.card_readers().payment(p.id))?
            .ok_or_else(|| EngineError::InvalidInput(format!("payment {} is not a card-present payment on a reader", p.idempotency_key)))
    }

    /// `GET` once with the background policy (a few quick retries); `None` if the PSP
    /// cannot answer now.
    async fn read_once<T: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        make: impl Fn() -> crate::transport::HttpRequest + Send + Sync + 'static,
        subject: &Subject,
    ) -> Option<T> {
        match self.background_get::<T>(make, subject).await {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => Some(value),
            PhaseResult::Final(
                AttemptOutcome::Declined { .. } | AttemptOutcome::Retry { .. } | AttemptOutcome::Unknown { .. } | AttemptOutcome::Fatal(_),
            )
            | PhaseResult::Exhausted { .. } => None,
        }
    }

    /// Reads the reader, THEN the intent (with its charge): a tap between the two reads
    /// shows in the intent, and a success always wins (see `conclude`).
    pub(super) async fn read_reader_and_intent(&self, reader_id: &str, intent_id: &str, subject: &Subject) -> Read {
        let c = self.inner.psp.clone();
        let rid = reader_id.to_string();
        let reader: Option<Reader> = self.read_once(move || c.get_reader_request(&rid), subject).await;
        let c = self.inner.psp.clone();
        let iid = intent_id.to_string();
        let intent: Option<PaymentIntent> = self.read_once(move || c.get_intent_with_charge_request(&iid), subject).await;
        let conclusion = match &intent {
            Some(pi) => conclude(pi, reader.as_ref()),
            None => Conclusion::Pending { why: PendingWhy::CannotRead, code: None, message: None },
        };
        if intent.is_some() {
            self.set_online(true);
        }
        Read { conclusion, intent }
    }

    /// The card's details from the intent's charge (expanded, or fetched by id).
    pub(super) async fn card_details(&self, pi: &PaymentIntent, subject: &Subject) -> Option<CardPresentDetails> {
        let charge: Charge = match pi.latest_charge.as_ref()? {
            serde_json::Value::Object(_) => serde_json::from_value(pi.latest_charge.clone()?).ok()?,
            serde_json::Value::String(id) => {
                let c = self.inner.psp.clone();
                let id = id.clone();
                self.read_once(move || c.get_charge_request(&id), subject).await?
            }
            _ => return None,
        };
        let cp = charge.payment_method_details?.card_present?;
        let r = cp.receipt.unwrap_or_default();
        Some(CardPresentDetails {
            brand: cp.brand,
            last4: cp.last4,
            read_method: cp.read_method,
            application_preferred_name: r.application_preferred_name,
            dedicated_file_name: r.dedicated_file_name,
            authorization_response_code: r.authorization_response_code,
            authorization_code: r.authorization_code,
            account_type: r.account_type,
            cardholder_verification_method: r.cardholder_verification_method,
        })
    }

    /// Applies a conclusion about `attempt` in one commit, only when it changes something
    /// (a poll that learns nothing writes nothing). Returns the payment as it is now.
    pub(super) async fn apply_conclusion(
        &self,
        p: &Payment,
        attempt: Option<&ReaderAttempt>,
        read: &Read,
        via: ResolvedVia,
    ) -> Result<Payment> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let sent = attempt.filter(|a| a.outcome == ReaderAttemptOutcome::Sent);
        let mark = |o: ReaderAttemptOutcome, code: &Option<String>, msg: &Option<String>| {
            sent.map(|a| (a.attempt_no, o, code.clone(), msg.clone()))
        };
        let (to, attempt_change, details) = match &read.conclusion {
            Conclusion::Paid | Conclusion::Authorized => {
                let to = if read.conclusion == Conclusion::Paid { PaymentState::Captured } else { PaymentState::Authorized };
                if let Some(pi) = &read.intent {
                    self.check_intent_matches(p, pi)?;
                }
                let details = match &read.intent {
                    Some(pi) => self.card_details(pi, &subject).await,
                    None => None,
                };
                (Some(to), mark(ReaderAttemptOutcome::Succeeded, &None, &None), details)
            }
            Conclusion::NotCharged { why: NotChargedWhy::IntentCanceled, code, message } => {
                (Some(PaymentState::Canceled), mark(ReaderAttemptOutcome::Canceled, code, message), None)
            }
            Conclusion::NotCharged { why, code, message } => {
                let o = match why {
                    NotChargedWhy::Declined => ReaderAttemptOutcome::Declined,
                    NotChargedWhy::CustomerCanceled
                    | NotChargedWhy::ActionCanceled
                    | NotChargedWhy::NotStarted
                    | NotChargedWhy::IntentCanceled => ReaderAttemptOutcome::Canceled,
                };
                (None, mark(o, code, message), None)
            }
            Conclusion::Waiting | Conclusion::Pending { .. } => (None, None, None),
        };
        let moves = to.is_some_and(|t| t != p.state);
        let has_details = match &details {
            Some(_) => self.with_ledger(|l| l.card_readers().card_present_details(p.id))?.is_some(),
            None => true,
        };
        if !moves && attempt_change.is_none() && has_details {
            return Ok(p.clone());
        }
        let note = match &read.conclusion {
            Conclusion::Paid => format!("{via}: the intent succeeded"),
            Conclusion::Authorized => format!("{via}: the intent holds the funds"),
            Conclusion::NotCharged { why, code, .. } => {
                format!("{via}: not charged ({why:?}{})", code.as_deref().map(|c| format!(", {c}")).unwrap_or_default())
            }
            Conclusion::Waiting | Conclusion::Pending { .. } => format!("{via}: no result yet"),
        };
        let s = ReaderSettlement { to, attempt: attempt_change, details, note };
        let now = self.now();
        let after = self.with_ledger(|l| l.card_readers_mut().settle(p.id, &s, now))?;
        if after.state != p.state {
            self.notify(Notification::Resolved { subject, state: SettledState::Payment(after.state), via });
        }
        Ok(after)
    }

    pub(super) fn check_intent_matches(&self, p: &Payment, pi: &PaymentIntent) -> Result<()> {
        let currency_ok = pi.currency.is_empty() || pi.currency.eq_ignore_ascii_case(p.amount.currency.code());
        if pi.amount != p.amount.amount_minor || !currency_ok {
            let msg = format!(
                "PaymentIntent {} is {} {} but checkout {} is {}",
                pi.id, pi.amount, pi.currency, p.idempotency_key, p.amount
            );
            self.notify(Notification::Alarm {
                subject: Some(Subject::Checkout(p.idempotency_key.clone())),
                code: crate::notify::AlarmCode::AmountMismatch,
                message: msg.clone(),
            });
            return Err(EngineError::Alarm { code: crate::notify::AlarmCode::AmountMismatch, detail: msg });
        }
        Ok(())
    }

    /// Reads and applies until the payment is resolved or `deadline_ms` passes, every
    /// poll interval (bounded: at most `wait / interval + 1` reads). `first_why` is what
    /// is known before the first read (a timeout, a lost answer).
    pub(super) async fn poll_reader(&self, key: &str, deadline_ms: i64, first_why: Option<PendingWhy>) -> Result<ReaderReport> {
        let poll = self.inner.cfg.reader.poll();
        let max_reads = (self.inner.cfg.reader.wait_bound().as_millis() / poll.as_millis().max(1)) as u64 + 2;
        let mut why = first_why;
        for _ in 0..max_reads {
            let p = self.payment(key)?;
            let rp = self.reader_payment_of(&p)?;
            let (report, resolved) = self.read_and_apply(&p, &rp, why, ResolvedVia::ReaderPoll).await?;
            if resolved || self.now() >= deadline_ms {
                return Ok(report);
            }
            if let ReaderOutcome::Pending { why: w } = report.outcome {
                why = Some(w);
            }
            self.inner.clock.sleep(poll).await;
        }
        let p = self.payment(key)?;
        self.stored_reader_report(&p, why)
    }

    /// One read of the reader and the intent, applied. `(report, resolved)`.
    pub(super) async fn read_and_apply(
        &self,
        p: &Payment,
        rp: &ReaderPayment,
        why_before: Option<PendingWhy>,
        via: ResolvedVia,
    ) -> Result<(ReaderReport, bool)> {
        let Some(intent_id) = p.psp_payment_id.clone() else {
            return Ok((self.stored_reader_report(p, why_before)?, false));
        };
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let read = self.read_reader_and_intent(&rp.reader_id, &intent_id, &subject).await;
        let after = self.apply_conclusion(p, rp.latest(), &read, via).await?;
        let rp = self.reader_payment_of(&after)?;
        let mut report = self.stored_reader_report(&after, why_before)?;
        let (outcome, resolved) = match &read.conclusion {
            Conclusion::Paid | Conclusion::Authorized | Conclusion::NotCharged { .. } => (report.outcome, true),
            Conclusion::Waiting => (self.waiting_or_stuck(rp.latest()), false),
            Conclusion::Pending { why, code, message } => {
                // A read that cannot see the reader says nothing new about a known cause.
                let w = match (why, why_before) {
                    (PendingWhy::CannotRead, Some(before)) => before,
                    (w, _) => *w,
                };
                report.failure_code = code.clone().or(report.failure_code);
                report.failure_message = message.clone().or(report.failure_message);
                (ReaderOutcome::Pending { why: w }, false)
            }
        };
        // The stored state decides when it is final (an event may have settled it first).
        report.outcome = match after.state {
            PaymentState::OnReader | PaymentState::Created => outcome,
            _ => report.outcome,
        };
        Ok((report, resolved || after.state != PaymentState::OnReader))
    }

    fn waiting_or_stuck(&self, latest: Option<&ReaderAttempt>) -> ReaderOutcome {
        let stuck_ms = self.inner.cfg.reader.stuck_after.as_millis() as i64;
        match latest {
            Some(a) if self.now() - a.created_at_ms > stuck_ms => ReaderOutcome::Pending { why: PendingWhy::ActionStuck },
            Some(_) | None => ReaderOutcome::WaitingForCard,
        }
    }

    /// The report from what the ledger holds (no network). An attempt still `sent` is
    /// "waiting" (or `why`, or stuck after a while): never a result.
    pub(super) fn stored_reader_report(&self, p: &Payment, why: Option<PendingWhy>) -> Result<ReaderReport> {
        let rp = self.reader_payment_of(p)?;
        let latest = rp.latest().cloned();
        let card = self.with_ledger(|l| l.card_readers().card_present_details(p.id))?;
        let outcome = match p.state {
            PaymentState::Captured | PaymentState::Refunding | PaymentState::PartiallyRefunded | PaymentState::Refunded => {
                ReaderOutcome::Paid
            }
            PaymentState::Authorized | PaymentState::Capturing => ReaderOutcome::Authorized,
            PaymentState::Canceled | PaymentState::Failed => ReaderOutcome::NotCharged { why: NotChargedWhy::IntentCanceled },
            // Never processed: nothing can have charged the card.
            PaymentState::Created => match why {
                Some(w) => ReaderOutcome::Pending { why: w },
                None => ReaderOutcome::NotCharged { why: NotChargedWhy::NotStarted },
            },
            PaymentState::QueuedOffline | PaymentState::Authorizing => ReaderOutcome::Pending { why: PendingWhy::LostAnswer },
            PaymentState::OnReader => match latest.as_ref().map(|a| a.outcome) {
                Some(ReaderAttemptOutcome::Declined) => ReaderOutcome::NotCharged { why: NotChargedWhy::Declined },
                Some(ReaderAttemptOutcome::Canceled) => {
                    let a = latest.as_ref().expect("matched Some");
                    ReaderOutcome::NotCharged {
                        why: match a.failure_code.as_deref() {
                            Some("customer_canceled") => NotChargedWhy::CustomerCanceled,
                            Some("terminal_reader_busy" | "terminal_reader_offline") => NotChargedWhy::NotStarted,
                            _ => NotChargedWhy::ActionCanceled,
                        },
                    }
                }
                // Succeeded but not yet moved (a crash between): read again.
                Some(ReaderAttemptOutcome::Succeeded) => ReaderOutcome::Pending { why: PendingWhy::Processing },
                Some(ReaderAttemptOutcome::Sent) | None => match why {
                    Some(w) => ReaderOutcome::Pending { why: w },
                    None => self.waiting_or_stuck(latest.as_ref()),
                },
            },
        };
        Ok(ReaderReport {
            checkout_key: p.idempotency_key.clone(),
            state: p.state,
            outcome,
            reader_id: rp.reader_id.clone(),
            intent_id: p.psp_payment_id.clone(),
            attempt_no: latest.as_ref().map(|a| a.attempt_no),
            process_key: latest.as_ref().map(|a| process_key(&p.idempotency_key, a.attempt_no)),
            failure_code: latest.as_ref().and_then(|a| a.failure_code.clone()),
            failure_message: latest.as_ref().and_then(|a| a.failure_message.clone()),
            card,
            amount: p.amount.amount_minor,
            currency: p.amount.currency,
        })
    }

    /// "Check status": reads the reader and the intent now and applies what they prove
    /// (no new attempt, nothing sent). A paid payment without its card details gets them.
    pub async fn check_reader_status(&self, key: &str) -> Result<ReaderReport> {
        let _flight = self.flight(key).await;
        let p = self.payment(key)?;
        let rp = self.reader_payment_of(&p)?;
        let res = self.read_and_apply(&p, &rp, None, ResolvedVia::ReaderCheckStatus).await.map(|(r, _)| r);
        self.reader_told(key, res)
    }

    /// Waits up to `max` (bounded by the configured wait) for a result, polling.
    pub async fn wait_on_reader(&self, key: &str, max: Duration) -> Result<ReaderReport> {
        let _flight = self.flight(key).await;
        let deadline = self.now() + max.min(self.inner.cfg.reader.wait_bound()).as_millis() as i64;
        let res = self.poll_reader(key, deadline, None).await;
        self.reader_told(key, res)
    }

    /// A reader payment's report from the ledger alone (no network).
    pub fn reader_status(&self, key: &str) -> Result<ReaderReport> {
        let p = self.payment(key)?;
        self.stored_reader_report(&p, None)
    }

    /// Rule 11 for reader calls: an error after the key commit reports the payment as the
    /// ledger holds it (pending for one on the reader), never as a failure.
    pub(super) fn reader_told(&self, key: &str, res: Result<ReaderReport>) -> Result<ReaderReport> {
        match res {
            Ok(r) => Ok(r),
            Err(e) if e.refused_the_request() => Err(e),
            Err(e) => match self.payment(key).and_then(|p| self.stored_reader_report(&p, Some(PendingWhy::CannotRead))) {
                Ok(r) if !r.outcome.is_resolved() => {
                    tracing::warn!(%e, key, "reader call ended in an error; reported as held");
                    Ok(r)
                }
                Ok(_) | Err(_) => Err(e),
            },
        }
    }

    /// `drive` (recovery, the background, a re-drive) of a reader payment, under the
    /// caller's flight lock: never a new process attempt (that needs a person). `created`
    /// (nothing ever processed) is abandoned: the intent is canceled and read. `on_reader`
    /// with an attempt still `sent` is read once and resolved when the reads prove it.
    pub(in crate::engine) async fn drive_reader_locked(&self, p: &Payment, _mode: DriveMode) -> Result<crate::engine::CheckoutReport> {
        let rp = self.reader_payment_of(p)?;
        match p.state {
            // The cashier's call commits the key, then takes the payment's lock: a pass that
            // finds it `created` in between must not abandon it under the cashier's hands.
            PaymentState::Created if self.now() - p.created_at_ms < CREATED_GRACE_MS => {}
            PaymentState::Created => {
                self.abandon_locked(p, &rp).await?;
            }
            PaymentState::OnReader => {
                if rp.latest().is_some_and(|a| a.outcome == ReaderAttemptOutcome::Sent || a.outcome == ReaderAttemptOutcome::Succeeded) {
                    self.read_and_apply(p, &rp, None, ResolvedVia::ReaderRecovery).await?;
                }
            }
            PaymentState::QueuedOffline
            | PaymentState::Authorizing
            | PaymentState::Authorized
            | PaymentState::Capturing
            | PaymentState::Captured
            | PaymentState::Failed
            | PaymentState::Canceled
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded => {}
        }
        let now = self.payment(&p.idempotency_key)?;
        self.report(&now)
    }

    /// A reader payment that waits for a person (its newest attempt proved "not
    /// charged"): recovery leaves it alone; it is resolved, not pending.
    pub(in crate::engine) fn reader_awaits_person(&self, p: &Payment) -> Result<bool> {
        if p.state != PaymentState::OnReader {
            return Ok(false);
        }
        Ok(self
            .with_ledger(|l| l.card_readers().payment(p.id))?
            .and_then(|rp| rp.latest().map(|a| a.outcome.proves_not_charged()))
            .unwrap_or(false))
    }
}
