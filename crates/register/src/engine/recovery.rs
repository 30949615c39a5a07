//! Crash recovery and reconciliation (record 0010): resolve every in-flight checkout,
//! capture and refund with its own key, resume sale cancels, forward the offline queue, and the background
//! loop that repeats this with the event poll.

use super::note::NoteMark;
use super::DriveMode;
use super::{Engine, RecoverReport, Result};
use paydesk_ledger::Payment;
use paydesk_domain::{PaymentState, RefundState};
use std::time::Duration;

impl Engine {
    /// record 0010: resolve every in-flight checkout, capture and refund; then
    /// forward the offline queue in order (record 0009). No cashier action needed.
    pub async fn recover(&self) -> Result<RecoverReport> {
        let mut rep = RecoverReport::default();
        let pending = self.with_ledger(|l| l.payments().needing_recovery())?;
        for p in pending {
            if p.state == PaymentState::Refunding {
                continue; // refunds below
            }
            // Declined on a reader, waiting for "Present again" or an abandon: not charged,
            // nothing running; a person decides (decision 0102).
            if self.reader_awaits_person(&p)? {
                continue;
            }
            rep.examined += 1;
            let before = p.state;
            match self.drive(&p.idempotency_key, DriveMode::Background).await {
                Ok(r) => {
                    let now_state = self.payment(&p.idempotency_key)?.state;
                    if let (Some(code), Some(m)) = (&r.error_code, &r.message) {
                        // Still pending for a reason a person should see (an alarm, the
                        // PSP refusing the settings).
                        rep.errors.push(format!("{}: {code}: {m}", p.idempotency_key));
                    }
                    if now_state.needs_recovery() || now_state == PaymentState::QueuedOffline {
                        rep.still_pending += 1;
                    } else {
                        if before == PaymentState::Capturing {
                            rep.captures_resolved += 1;
                        }
                        rep.resolved += 1;
                        // Settled by the PSP's search (found, or proven never charged):
                        // read from the timeline's typed mark, never from the words.
                        if self.resolved_by_search(&p)? {
                            rep.resolved_by_search += 1;
                        }
                    }
                }
                Err(e) => {
                    rep.still_pending += 1;
                    rep.errors.push(format!("{}: {e}", p.idempotency_key));
                }
            }
        }
        let refunds = self.with_ledger(|l| l.refunds().needing_recovery())?;
        for (rid, rkey) in refunds.into_iter().map(|r| (r.id, r.idempotency_key)) {
            match self.drive_refund(rid, rkey.clone(), DriveMode::Background).await {
                Ok(rr) => match rr.state {
                    RefundState::Succeeded | RefundState::Failed => rep.refunds_resolved += 1,
                    RefundState::Pending | RefundState::InFlight => rep.refunds_pending += 1,
                },
                Err(e) => rep.errors.push(format!("refund {rkey}: {e}")),
            }
        }
        // A sale's cancel whose refunds were committed (or sent) before a crash: the
        // same refunds again, never new ones (record 0031).
        let (resumed, completed, errors) = self.resume_sale_cancels().await?;
        rep.sale_cancels_resumed = resumed;
        rep.sale_cancels_completed = completed;
        rep.errors.extend(errors);
        let (fwd, declined, still) = self.forward_offline().await?;
        rep.forwarded = fwd;
        rep.declined_after_forward = declined;
        rep.still_queued = still;
        Ok(rep)
    }

    fn resolved_by_search(&self, p: &Payment) -> Result<bool> {
        let tl = self.with_ledger(|l| l.payments().timeline(p.id))?;
        Ok(tl.iter().any(|t| NoteMark::of(t) == Some(NoteMark::Search)))
    }
    /// Run recovery now and then every `interval` until the returned handle is aborted.
    pub fn spawn_background(&self, interval: Duration) -> tokio::task::JoinHandle<()> {
        let e = self.clone();
        tokio::spawn(async move {
            loop {
                if let Err(err) = e.recover().await {
                    tracing::warn!(%err, "recovery pass failed");
                }
                if let Err(err) = e.consume_events().await {
                    tracing::warn!(%err, "event poll failed");
                }
                e.inner.clock.sleep(interval).await;
            }
        })
    }
}
