//! Store-and-forward (record 0009): accepting a payment offline within the limits,
//! refusing it truthfully past them, and forwarding the queue in order with each
//! payment's own key.

use super::DriveMode;
use super::note::NoteMark;
use super::{attempt_input, CheckoutOutcome, CheckoutReport, Engine, EngineError, Result};
use crate::notify::{Notification, Subject};
use crate::offline::{MoneyCap, OfflineRefusal};
use crate::retry::AttemptRecord;
use paydesk_ledger::{Payment, TimelineInput, TimelineKind};
use paydesk_domain::PaymentState;

impl Engine {
    pub(super) async fn go_offline(&self, p: &Payment, recs: &[AttemptRecord], never_sent: bool) -> Result<CheckoutReport> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let now = self.now();
        // The queue and the back office's caps (record 0139) from one look at the ledger.
        let (queue, published) = self.with_ledger(|l| Ok::<_, EngineError>((l.payments().offline_queue()?, l.catalog().published_offline_caps()?)))?;
        let stored: Vec<_> = queue.iter().map(|q| (q.amount.currency, q.amount.amount_minor, q.created_at_ms)).collect();
        let ceiling = published.map(|c| (c.currency, MoneyCap { per_payment: c.per_payment_minor, total: c.total_minor }));
        let check = self.inner.cfg.offline.check_within(ceiling, p.amount.currency, p.amount.amount_minor, &stored, now);
        match check {
            Ok(()) => {
                self.with_ledger(|l| -> Result<()> {
                    for r in recs {
                        l.payments_mut().record_attempt(p.id, &attempt_input(r), r.started_ms.min(now))?;
                    }
                    Ok(())
                })?;
                self.move_to(p.id, PaymentState::QueuedOffline, "PSP unreachable: accepted offline")?;
                self.notify(Notification::QueuedOffline {
                    subject,
                    amount: p.amount.amount_minor,
                    currency: p.amount.currency,
                });
                self.report_key(&p.idempotency_key)
            }
            Err(refusal) => self.refuse_offline(p, recs, never_sent, refusal),
        }
    }

    fn refuse_offline(&self, p: &Payment, recs: &[AttemptRecord], never_sent: bool, refusal: OfflineRefusal) -> Result<CheckoutReport> {
        let now = self.now();
        let reason = refusal.to_string();
        if never_sent {
            // Nothing reached the PSP: abandon the checkout; nothing charged.
            self.with_ledger(|l| -> Result<()> {
                for r in recs {
                    l.payments_mut().append_timeline(p.id, &attempt_input(r), now)?;
                }
                l.payments_mut().set_last_error(p.id, Some(&format!("{}: {reason}", NoteMark::OfflineRefused.as_str())), now)?;
                Ok(())
            })?;
            self.move_to(p.id, PaymentState::Canceled, "PSP unreachable and offline limit reached; nothing sent")?;
            Err(EngineError::OfflineRefused {
                key: p.idempotency_key.clone(),
                reason,
                detail: "Nothing was charged; take another form of payment.".into(),
            })
        } else {
            // Some attempt may have reached the PSP: never resend; search decides. The
            // customer may have been charged, so the cashier is told "pending" with the
            // key, never "not accepted" (record 0013).
            self.record_attempts(p, recs, true)?;
            // The refusal is kept typed (a marked note: `drive` never resends this key),
            // first, then in words (the last error, for the screen).
            self.with_ledger(|l| -> Result<()> {
                let note = TimelineInput {
                    kind: Some(TimelineKind::Note),
                    detail: format!("not accepted offline: {reason}"),
                    outcome: Some(NoteMark::OfflineRefused.as_str().into()),
                    ..Default::default()
                };
                l.payments_mut().append_timeline(p.id, &note, now)?;
                l.payments_mut().set_last_error(p.id, Some(&format!("{}: {reason}", NoteMark::OfflineRefused.as_str())), now)?;
                Ok(())
            })?;
            let mut r = self.report_key(&p.idempotency_key)?;
            debug_assert_eq!(r.outcome, CheckoutOutcome::Pending);
            r.message = Some(format!(
                "not accepted offline ({reason}), but an attempt may have reached the processor: the register checks \
                 with the same key and never resends it; do not take another payment until it is resolved"
            ));
            r.error_code = Some("offline_refused".into());
            Ok(r)
        }
    }

    /// Forward the store-and-forward queue, oldest first; stop at the first
    /// payment the PSP still cannot be reached for (keeps the order).
    /// Returns (forwarded, declined, still queued).
    pub async fn forward_offline(&self) -> Result<(u32, u32, u32)> {
        let queue = self.with_ledger(|l| l.payments().offline_queue())?;
        let total = queue.len() as u32;
        let (mut fwd, mut declined) = (0, 0);
        for p in queue {
            let r = self.drive(&p.idempotency_key, DriveMode::Forward).await?;
            if r.outcome == CheckoutOutcome::QueuedOffline {
                break;
            }
            fwd += 1;
            if r.outcome == CheckoutOutcome::Declined {
                declined += 1;
            }
        }
        Ok((fwd, declined, total - fwd))
    }
}
