//! Asking the PSP instead of resending (record 0008): search by the checkout key's
//! metadata, trusted to prove "never charged" only once search has caught up
//! (`search_conclusive_at_ms`), and the safe GETs other operations use.

use super::{CheckoutReport, Engine, EngineError, Result, MAX_SEARCH_SETTLE_MS};
use super::note::NoteMark;
use crate::attempt::may_have_reached_psp;
use crate::notify::{BackgroundReason, Notification, Notifier, ResolvedVia, Subject};
use crate::psp::{AttemptOutcome, List, PaymentIntent};
use crate::retry::{run_phase, Phase, PhaseResult};
use paydesk_ledger::{Payment, TimelineInput, TimelineKind};
use paydesk_domain::PaymentState;

impl Engine {
    /// When a search that finds nothing proves "never charged": `search_settle_ms` after
    /// the end of the most recent attempt that may have reached the PSP and executed
    /// there. Refused connections reached nothing, and a replayed answer executed
    /// nothing (the execution it replays was an earlier attempt). Without such an attempt
    /// on record (e.g. a crash lost it), the payment's first attempt, else its creation.
    pub(super) fn search_conclusive_at_ms(&self, p: &Payment) -> Result<i64> {
        let tl = self.with_ledger(|l| l.payments().timeline(p.id))?;
        let since = p.first_attempt_at_ms.unwrap_or(p.created_at_ms);
        let last_maybe_executed = tl
            .iter()
            .filter(|t| may_have_reached_psp(t) && t.refund_id.is_none() && !t.replayed)
            .map(|t| t.at_ms.saturating_add(t.latency_ms.unwrap_or(0).max(0)))
            .max()
            .unwrap_or(since)
            .max(since);
        let settle = self.inner.cfg.search_settle_ms.min(MAX_SEARCH_SETTLE_MS) as i64;
        Ok(last_maybe_executed.saturating_add(settle))
    }

    /// Past the window, after a replayed 500, or for a refused-offline payment:
    /// look for the key in the PSP's metadata. Found = adopt it; not found =
    /// never charged, but only once search can be trusted to show it
    /// ([`EngineConfig::search_settle_ms`]): until then the payment stays as it is
    /// (pending) and the background passes search again.
    pub(super) async fn resolve_by_search(&self, p: &Payment, why: &str) -> Result<CheckoutReport> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let key = p.idempotency_key.clone();
        let (c, k) = (self.inner.psp.clone(), key.clone());
        let res = self.background_get::<List<PaymentIntent>>(move || c.search_by_metadata_request("checkout_key", &k), &subject).await;
        let now = self.now();
        match res {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => {
                self.set_online(true);
                let found = value.data.into_iter().find(|pi| pi.metadata.get("checkout_key") == Some(&key));
                if found.is_none() && self.search_lags(p, why, &subject, now)? {
                    return self.report_key(&key);
                }
                let _ = self.with_ledger(|l| {
                    l.payments_mut().append_timeline(
                        p.id,
                        &TimelineInput {
                            kind: Some(TimelineKind::Note),
                            detail: format!("{why}; search: {}", found.as_ref().map(|f| f.id.as_str()).unwrap_or("not found")),
                            outcome: Some(NoteMark::Search.as_str().into()),
                            ..Default::default()
                        },
                        now,
                    )
                });
                match found {
                    Some(pi) => {
                        let p = self.settle_with_intent(p, &pi, &[], ResolvedVia::Search)?;
                        self.report(&p)
                    }
                    None => self.settle_never_charged(p, subject),
                }
            }
            PhaseResult::Final(AttemptOutcome::Fatal(f)) => Err(EngineError::PspConfig(f.message())),
            // No answer to trust yet: stays as it is; the background searches again.
            PhaseResult::Final(
                AttemptOutcome::Declined { .. } | AttemptOutcome::Retry { .. } | AttemptOutcome::Unknown { .. },
            )
            | PhaseResult::Exhausted { .. } => self.report(p),
        }
    }

    /// Search is eventually consistent: a PaymentIntent created moments ago may not be
    /// in its results yet. True (noted on the timeline, the cashier told when it will be
    /// checked again) while "not found" proves nothing yet.
    fn search_lags(&self, p: &Payment, why: &str, subject: &Subject, now: i64) -> Result<bool> {
        let conclusive_at = self.search_conclusive_at_ms(p)?;
        if now >= conclusive_at {
            return Ok(false);
        }
        let wait_s = (conclusive_at - now + 999) / 1000;
        self.with_ledger(|l| {
            l.payments_mut().append_timeline(
                p.id,
                &TimelineInput {
                    kind: Some(TimelineKind::Note),
                    detail: format!(
                        "{why}; search: not found yet, which is not conclusive (search results lag behind the processor); conclusive in {wait_s} s (clock {conclusive_at} ms); still pending, checked again in the background"
                    ),
                    outcome: Some(NoteMark::SearchNotConclusive.as_str().into()),
                    ..Default::default()
                },
                now,
            )
        })?;
        self.notify(Notification::MovedToBackground {
            subject: subject.clone(),
            reason: BackgroundReason::SearchNotConclusive { wait_s },
        });
        Ok(true)
    }

    /// Not at the PSP, conclusively: never charged. A created payment is canceled, one
    /// in flight failed; one accepted offline failed loudly (the customer left with the
    /// goods, nothing was charged: the store is owed this money).
    fn settle_never_charged(&self, p: &Payment, subject: Subject) -> Result<CheckoutReport> {
        if p.state == PaymentState::QueuedOffline {
            // The key can no longer be sent: fail it loudly, never silently.
            let msg = format!(
                "offline payment of {} ({}) could not be forwarded before its key expired and the processor has no record of it: it was NOT charged. Collect payment another way",
                p.amount, p.idempotency_key
            );
            let p = self.settle_state_with(p, PaymentState::Failed, &[], Some(&msg), ResolvedVia::Search, None)?;
            self.notify(Notification::Forwarded { subject: subject.clone(), state: p.state, declined: true });
            self.notify(Notification::Alarm { subject: Some(subject), code: crate::notify::AlarmCode::OfflinePaymentNotCollected, message: msg });
            return self.report(&p);
        }
        let to = if p.state == PaymentState::Created { PaymentState::Canceled } else { PaymentState::Failed };
        let p = self.settle_state_with(p, to, &[], Some("not found at the PSP: never charged"), ResolvedVia::Search, None)?;
        self.report(&p)
    }

    /// A GET (safe to repeat) under the background policy, with no progress
    /// notifications (lookups are not attempts of a payment).
    pub(super) async fn background_get<T>(&self, make: impl Fn() -> crate::transport::HttpRequest + Send + Sync + 'static, subject: &Subject) -> PhaseResult<T>
    where
        T: serde::de::DeserializeOwned + Send + 'static,
    {
        let i = &self.inner;
        let phase = Phase { notifier: &Notifier::new(1), ..i.phase(&i.cfg.background, subject, 1) };
        run_phase::<T>(phase, make).await.0
    }

    /// `GET /v1/payment_intents/:id` with the background policy; `None` when the PSP
    /// cannot be asked right now.
    pub(super) async fn get_intent(&self, pi_id: &str, subject: &Subject) -> Option<PaymentIntent> {
        let c = self.inner.psp.clone();
        let id = pi_id.to_string();
        match self.background_get::<PaymentIntent>(move || c.get_intent_request(&id), subject).await {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => Some(value),
            PhaseResult::Final(
                AttemptOutcome::Declined { .. }
                | AttemptOutcome::Retry { .. }
                | AttemptOutcome::Unknown { .. }
                | AttemptOutcome::Fatal(_),
            )
            | PhaseResult::Exhausted { .. } => None,
        }
    }
}
