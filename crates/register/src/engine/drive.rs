//! Driving a checkout key to an outcome (record 0004, 0007–0009): one bounded attempt phase
//! with the same key and parameters, then what its result means — settled, declined,
//! resolved by search, moved to the background, accepted offline, or a fatal answer
//! (`on_fatal`, which only says `failed` when nothing can have executed).

use super::note::NoteMark;
use super::{attempt_input, CheckoutOutcome, CheckoutReport, CrashPoint, DriveMode, Engine, Result};
use crate::notify::{AlarmCode, BackgroundReason, Notification, ResolvedVia, Subject};
use crate::psp::{AttemptOutcome, Decline, Fatal, PaymentIntent, RetryReason};
use crate::retry::{run_phase, AttemptRecord, PhaseResult};
use paydesk_domain::PaymentState;
use paydesk_ledger::{CheckoutSettlement, Payment, PaymentId, TimelineEntry, TimelineInput, TimelineKind};

impl Engine {
    /// The interactive first drive of a payment this very call committed (its key is
    /// fresh: no process can have sent it before). Only here may "every attempt was
    /// refused" prove that nothing reached the PSP.
    pub(super) async fn drive_created_here(&self, key: &str) -> Result<CheckoutReport> {
        self.drive_inner(key, DriveMode::Interactive, true).await
    }

    /// Drive a payment found in the ledger. One still `created` may have been sent
    /// already: a process can crash after its first byte left and before anything
    /// about the attempt was saved (nothing durable is written before the network,
    /// to keep a paid checkout at two commits). So it is never concluded "never sent".
    pub(super) async fn drive(&self, key: &str, mode: DriveMode) -> Result<CheckoutReport> {
        self.drive_inner(key, mode, false).await
    }

    async fn drive_inner(&self, key: &str, mode: DriveMode, created_here: bool) -> Result<CheckoutReport> {
        let _flight = self.flight(key).await;
        let p = self.payment(key)?;
        // A card-present payment is never sent as a keyed create: it is resolved by
        // reading its reader and its intent (decision 0102).
        if (p.state == PaymentState::Created || p.state == PaymentState::OnReader)
            && self.with_ledger(|l| l.card_readers().payment(p.id))?.is_some()
        {
            return self.drive_reader_locked(&p, mode).await;
        }
        match p.state {
            PaymentState::Created | PaymentState::Authorizing | PaymentState::QueuedOffline => {}
            PaymentState::Capturing => {
                drop(_flight);
                return self.resolve_capture(&p).await;
            }
            // Settled, or not sendable from here: report it as it is.
            PaymentState::Authorized
            | PaymentState::Captured
            | PaymentState::Failed
            | PaymentState::Canceled
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded
            | PaymentState::OnReader => return self.report(&p),
        }
        // One read of the timeline answers both questions asked of it before sending.
        let tl = self.with_ledger(|l| l.payments().timeline(p.id))?;
        if let Some(why) = self.never_resend(&p, &tl) {
            return self.resolve_by_search(&p, why).await;
        }
        let prior = attempts_in(&tl);
        let subject = Subject::Checkout(key.to_string());
        let (res, recs) = self.create_phase(&p, key, mode, &subject, prior).await;
        let d = Drove {
            p: &p,
            key,
            subject,
            recs,
            mode,
            first_drive: created_here && prior == 0 && p.state == PaymentState::Created,
            forwarding: p.state == PaymentState::QueuedOffline,
        };
        match res {
            PhaseResult::Final(AttemptOutcome::Ok { value: pi, replayed }) => self.on_intent(&d, &pi, replayed),
            PhaseResult::Final(AttemptOutcome::Declined { decline, .. }) => self.on_declined(&d, &decline),
            PhaseResult::Final(AttemptOutcome::Unknown { status, replayed, message }) => {
                self.record_attempts(&p, &d.recs, true)?;
                let why = format!(
                    "the PSP answered {status}{} ({message}); outcome unknown, resolving by search",
                    if replayed { " (replayed)" } else { "" }
                );
                let p = self.payment(key)?;
                self.resolve_by_search(&p, &why).await
            }
            PhaseResult::Final(AttemptOutcome::Fatal(f)) => self.on_fatal(&p, f, &d.recs, d.first_drive),
            PhaseResult::Final(AttemptOutcome::Retry { reason, .. }) => {
                self.record_attempts(&p, &d.recs, true)?;
                self.notify(Notification::MovedToBackground { subject: d.subject, reason: BackgroundReason::Retry(reason) });
                self.report_key(key)
            }
            PhaseResult::Exhausted { last, never_sent, unreachable } => self.on_exhausted(d, &last, never_sent, unreachable).await,
        }
    }

    /// Why this key must not be sent again, if so: it is then resolved by searching
    /// the PSP's records instead. `tl` is the payment's timeline.
    fn never_resend(&self, p: &Payment, tl: &[TimelineEntry]) -> Option<&'static str> {
        // Refused offline after an attempt that may have reached the PSP: the timeline's
        // typed mark says so (written by `refuse_offline`), not the last error's words.
        if tl.iter().any(|t| NoteMark::of(t) == Some(NoteMark::OfflineRefused)) {
            // Never resend (the customer paid another way); the PSP's records decide.
            return Some("refused offline; checking whether it reached the PSP");
        }
        let first = Some(p.first_attempt_at_ms.unwrap_or(p.created_at_ms));
        if !self.inner.cfg.window.may_send(first, self.now()) {
            return Some("dedup window passed: never resending this key");
        }
        None
    }

    /// One bounded phase of creates with the payment's key and parameters (attempts
    /// numbered on from the `prior` ones), under the mode's policy.
    async fn create_phase(
        &self,
        p: &Payment,
        key: &str,
        mode: DriveMode,
        subject: &Subject,
        prior: u32,
    ) -> (PhaseResult<PaymentIntent>, Vec<AttemptRecord>) {
        let policy = match mode {
            DriveMode::Interactive => &self.inner.cfg.interactive,
            DriveMode::Background | DriveMode::Forward => &self.inner.cfg.background,
        };
        let form = p.request_params.0.clone();
        let psp = &self.inner.psp;
        let (res, recs) = run_phase::<PaymentIntent>(
            self.inner.phase(policy, subject, prior + 1),
            { let c = psp.clone(); let k = key.to_string(); move || c.create_intent_request_from_form(form.clone(), &k) },
        )
        .await;
        self.note_connectivity(&recs);
        if recs.iter().any(|r| !r.outcome.never_sent()) {
            self.crash(CrashPoint::AfterResponseBeforeCommit);
        }
        (res, recs)
    }

    /// The PSP's intent: settle the payment with it (a forwarded offline payment says so).
    fn on_intent(&self, d: &Drove<'_>, pi: &PaymentIntent, replayed: bool) -> Result<CheckoutReport> {
        let via = if replayed { ResolvedVia::Replay } else { ResolvedVia::Reply };
        let p = self.settle_with_intent(d.p, pi, &d.recs, via)?;
        self.crash(CrashPoint::AfterCommit);
        if d.forwarding {
            let declined = p.state == PaymentState::Failed;
            self.notify(Notification::Forwarded { subject: d.subject.clone(), state: p.state, declined });
        }
        self.report(&p)
    }

    /// A decline: the payment fails. Declined at forwarding, the customer has left
    /// believing they paid: an alarm, and the sale's balance is reopened loudly.
    fn on_declined(&self, d: &Drove<'_>, decline: &Decline) -> Result<CheckoutReport> {
        let msg = format!("declined: {} ({})", decline.message, decline.code);
        // Keep the PSP's id with the failed row (its UNIQUE guards a mix-up),
        // in the same commit as the attempts and the move to failed.
        let p = self.settle_state_with(d.p, PaymentState::Failed, &d.recs, Some(&msg), ResolvedVia::Declined, decline.payment_intent.as_ref())?;
        self.crash(CrashPoint::AfterCommit);
        if d.forwarding {
            let subject = &d.subject;
            self.notify(Notification::Forwarded { subject: subject.clone(), state: PaymentState::Failed, declined: true });
            self.notify(Notification::Alarm {
                subject: Some(subject.clone()),
                code: AlarmCode::DeclinedAfterForwarding,
                message: format!(
                    "An offline payment of {} was DECLINED when forwarded: {}. Collect payment another way.",
                    p.amount, decline.message
                ),
            });
            self.alarm_reopened_sale(&p, subject);
        }
        self.report(&p)
    }

    /// Every attempt was retryable and the phase ran out: offline when the PSP is
    /// unreachable and that is allowed, else the background queue.
    async fn on_exhausted(&self, d: Drove<'_>, last: &RetryReason, never_sent: bool, unreachable: bool) -> Result<CheckoutReport> {
        let p = d.p;
        // "Every attempt refused" proves nothing was sent only for this drive's
        // own attempts on a key this call created, with no earlier attempt.
        let never_sent = never_sent && d.first_drive;
        // Recovery, the background queue and the forwarder never newly accept a
        // payment offline: one found `created` may already be charged; it stays
        // in flight (authorizing) and is retried with the same key.
        let may_go_offline = d.mode == DriveMode::Interactive && p.state == PaymentState::Created;
        if unreachable && (d.forwarding || may_go_offline) {
            if d.forwarding {
                // Still offline: stays queued, in order.
                self.record_attempts(p, &d.recs, false)?;
                return self.report_key(d.key);
            }
            return self.go_offline(p, &d.recs, never_sent).await;
        }
        self.record_attempts(p, &d.recs, true)?;
        let p = self.payment(d.key)?;
        self.notify(Notification::MovedToBackground { subject: d.subject, reason: BackgroundReason::Retry(last.clone()) });
        self.report(&p)
    }

    /// A card tender accepted offline and declined at forwarding reopens its sale's
    /// amount due (record 0028): said loudly, with the balance to collect.
    fn alarm_reopened_sale(&self, p: &Payment, subject: &Subject) {
        let Some(cart) = p.cart_id else { return };
        let Ok(sale) = self.with_ledger(|l| l.sales().by_cart(cart)) else { return };
        if sale.state == paydesk_ledger::SaleState::UnpaidBalance {
            self.notify(Notification::Alarm {
                subject: Some(subject.clone()),
                code: AlarmCode::SaleBalanceReopened,
                message: format!(
                    "Sale {cart} has an UNPAID BALANCE of {}: its card payment accepted offline was declined.",
                    paydesk_domain::Money::new(sale.totals.due_minor, sale.cart.currency)
                ),
            });
        }
    }

    pub(super) fn attempt_count(&self, id: PaymentId) -> Result<u32> {
        let tl = self.with_ledger(|l| l.payments().timeline(id))?;
        Ok(attempts_in(&tl))
    }

    /// Timeline rows for the attempts; `to_authorizing` also moves a
    /// `created` / `queued_offline` row to `authorizing` (a request may be out) — all
    /// in one ledger commit.
    pub(super) fn record_attempts(&self, p: &Payment, recs: &[AttemptRecord], to_authorizing: bool) -> Result<()> {
        if recs.is_empty() && !(to_authorizing && matches!(p.state, PaymentState::Created | PaymentState::QueuedOffline)) {
            return Ok(());
        }
        let s = CheckoutSettlement { attempts: self.attempt_rows(recs), sent: to_authorizing, ..Default::default() };
        self.settle(p, &s)?;
        Ok(())
    }

    pub(super) fn attempt_rows(&self, recs: &[AttemptRecord]) -> Vec<(TimelineInput, i64)> {
        let now = self.now();
        recs.iter().map(|r| (attempt_input(r), r.started_ms.min(now))).collect()
    }

    /// A non-retryable answer. What the cashier is told must stay true (record 0013):
    /// `failed` only when every attempt of this key is proven to have executed
    /// nothing — this call made the key and no attempt of it may have run at the PSP.
    /// Otherwise the payment stays in flight with its key ("pending"), to be resolved
    /// by recovery with the same key once the settings are right.
    fn on_fatal(&self, p: &Payment, f: Fatal, recs: &[AttemptRecord], first_drive: bool) -> Result<CheckoutReport> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let now = self.now();
        let message = f.message();
        // A validation 400 to the same key and parameters also proves that no earlier
        // attempt executed: an executed key is answered by replay, never re-validated.
        let proven = match &f {
            Fatal::BadRequest(_) => true,
            Fatal::Auth(_) | Fatal::Config(_) | Fatal::NotFound(_) | Fatal::Unexpected(..) | Fatal::NotAPsp(..) => {
                first_drive && f.proves_not_executed() && recs.iter().all(|r| r.executed_nothing)
            }
            Fatal::IdempotencyMismatch(_) => false,
        };
        let alarm = match &f {
            Fatal::Auth(_) => Some(AlarmCode::PspAuth),
            Fatal::Config(_) => Some(AlarmCode::PspConfig),
            Fatal::IdempotencyMismatch(_) => Some(AlarmCode::IdempotencyError),
            Fatal::NotAPsp(..) => Some(AlarmCode::NotAPsp),
            Fatal::BadRequest(_) | Fatal::NotFound(_) | Fatal::Unexpected(..) => None,
        };
        if let Some(code) = alarm {
            self.notify(Notification::Alarm { subject: Some(subject), code, message: message.clone() });
        }
        if proven {
            let p = self.settle_state_with(p, PaymentState::Failed, recs, Some(&message), ResolvedVia::Rejected, None)?;
            let mut r = self.report(&p)?;
            debug_assert_eq!(p.state, PaymentState::Failed);
            r.outcome = CheckoutOutcome::Failed;
            r.error_code = Some(f.code().to_string());
            return Ok(r);
        }
        self.record_attempts(p, recs, true)?;
        self.with_ledger(|l| l.payments_mut().set_last_error(p.id, Some(&message), now))?;
        let mut r = self.report_key(&p.idempotency_key)?;
        r.error_code = Some(f.code().to_string());
        Ok(r)
    }
}

/// The payment's attempts (not its refunds') on its timeline.
fn attempts_in(tl: &[TimelineEntry]) -> u32 {
    tl.iter().filter(|t| t.kind == TimelineKind::Attempt && t.refund_id.is_none()).count() as u32
}

/// One drive's phase, as its answer handlers need it.
struct Drove<'a> {
    /// The payment as it was before the phase.
    p: &'a Payment,
    key: &'a str,
    subject: Subject,
    recs: Vec<AttemptRecord>,
    mode: DriveMode,
    /// This call created the key and nothing tried it before: only then can "every
    /// attempt refused" prove that nothing reached the PSP.
    first_drive: bool,
    /// A payment accepted offline being forwarded.
    forwarding: bool,
}
