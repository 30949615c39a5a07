//! Stopping a reader payment (decision 0102). A cancel is ALWAYS followed by a read: a tap
//! can race it, and only the intent says whether the card was charged.
//! * "Cancel on reader" (`cancel_reader_action`): `cancel_action`, then read. The payment
//!   stays open: the same intent can be presented again.
//! * Abandon (`abandon_reader_payment`): the action canceled and read as above; if that
//!   proves "not charged", the intent is canceled at the PSP and read again, so "not
//!   charged" stays true forever. A tap that won the race is reported paid.

use super::{PendingWhy, ReaderOutcome, ReaderReport};
use crate::engine::{Engine, Result};
use crate::notify::{ResolvedVia, Subject};
use crate::psp::{AttemptOutcome, PaymentIntent, Reader};
use crate::retry::{run_phase, PhaseResult};
use crate::psp::List;
use paydesk_ledger::{CheckoutSettlement, Payment, ReaderAttemptOutcome, ReaderPayment};
use paydesk_domain::PaymentState;
use std::ops::ControlFlow;

/// What a search by the checkout key says about a reader payment's intent.
enum Searched {
    /// Boxed: an intent is large, the other answers are small.
    Found(Box<PaymentIntent>),
    /// Conclusively nothing (search has caught up with every attempt).
    NotThere,
    /// Not known yet (the PSP cannot be asked, or search may still lag).
    NotYet(PendingWhy),
}

impl Engine {
    /// "Cancel on reader": stops the action if it has not begun authorizing (during
    /// authorization the reader answers busy), then reads the reader and the intent.
    pub async fn cancel_reader_action(&self, key: &str) -> Result<ReaderReport> {
        let _flight = self.flight(key).await;
        let res = async {
            let p = self.payment(key)?;
            let rp = self.reader_payment_of(&p)?;
            self.cancel_action_then_read(&p, &rp).await
        }
        .await;
        self.reader_told(key, res)
    }

    /// The cashier gives up this reader payment (another tender, another amount): the
    /// reader's action canceled, the intent canceled at the PSP, each followed by a read.
    /// Ends `canceled` (never charged, never will be), or paid when a tap won the race,
    /// or pending when the reader is authorizing right now (try again).
    pub async fn abandon_reader_payment(&self, key: &str) -> Result<ReaderReport> {
        let _flight = self.flight(key).await;
        let res = async {
            let p = self.payment(key)?;
            let rp = self.reader_payment_of(&p)?;
            self.abandon_locked(&p, &rp).await
        }
        .await;
        self.reader_told(key, res)
    }

    async fn cancel_action_then_read(&self, p: &Payment, rp: &ReaderPayment) -> Result<ReaderReport> {
        if p.state != PaymentState::OnReader {
            return self.stored_reader_report(p, None);
        }
        if let Some(a) = rp.latest().filter(|a| a.outcome == ReaderAttemptOutcome::Sent) {
            // Harmless to repeat (it only stops an action), so a fresh key per press: a
            // stored "busy" for an earlier press must not answer this one.
            let key = format!("{}-cancel-{}", a.idempotency_key, self.now());
            let c = self.inner.psp.clone();
            let reader = a.reader_id.clone();
            let out: AttemptOutcome<Reader> = c.attempt(c.cancel_action_request(&reader, &key)).await;
            tracing::info!(checkout = %p.idempotency_key, outcome = out.label(), "cancel_action sent; reading the reader and the intent");
        }
        let (report, _) = self.read_and_apply(p, rp, None, ResolvedVia::ReaderAfterCancel).await?;
        Ok(report)
    }

    /// Abandon under the caller's flight lock (also recovery's answer to a reader payment
    /// left `created`: nothing was ever processed, so its intent is canceled).
    pub(super) async fn abandon_locked(&self, p: &Payment, rp: &ReaderPayment) -> Result<ReaderReport> {
        if !p.state.is_open_on_reader() {
            return self.stored_reader_report(p, None);
        }
        if p.state == PaymentState::OnReader {
            let report = self.cancel_action_then_read(p, rp).await?;
            match report.outcome {
                ReaderOutcome::NotCharged { .. } => {}
                // Paid (the tap won), or still running / unknown: not abandoned.
                ReaderOutcome::Paid
                | ReaderOutcome::Authorized
                | ReaderOutcome::WaitingForCard
                | ReaderOutcome::Pending { .. }
                | ReaderOutcome::ReaderBusy
                | ReaderOutcome::ReaderUnavailable { .. } => return Ok(report),
            }
        }
        let p = self.payment(&p.idempotency_key)?;
        if p.state.is_terminal() {
            return self.stored_reader_report(&p, None);
        }
        match self.intent_to_cancel(&p).await? {
            ControlFlow::Continue(intent_id) => self.cancel_intent_then_read(&p, intent_id).await,
            ControlFlow::Break(report) => Ok(report),
        }
    }

    /// The intent's id: known, or learned by searching the checkout key (a read: it
    /// can neither create nor charge). Not from the timeline's attempts: a crash right
    /// after the create reached the PSP loses them, so "no attempt recorded" does not
    /// prove "no intent"; and not by replaying the create: a key whose create got a
    /// stored failure answers it for ever. Only a conclusive "not found" (search has
    /// caught up with every attempt that may have executed) ends it without the PSP
    /// (`Break`, with the report, as does a search that cannot tell yet).
    async fn intent_to_cancel(&self, p: &Payment) -> Result<ControlFlow<ReaderReport, String>> {
        let intent_id = match &p.psp_payment_id {
            Some(id) => id.clone(),
            None => match self.reader_intent_by_search(p).await? {
                Searched::Found(pi) => {
                    self.attach_intent(p, &pi)?;
                    pi.id
                }
                Searched::NotYet(why) => {
                    let mut r = self.stored_reader_report(p, None)?;
                    r.outcome = ReaderOutcome::Pending { why };
                    return Ok(ControlFlow::Break(r));
                }
                Searched::NotThere => {
                    // No intent for this key, and none can appear: nothing sends its
                    // create once the payment is canceled.
                    self.move_to(p.id, PaymentState::Canceled, "abandoned: no intent at the PSP for this key (search)")?;
                    return Ok(ControlFlow::Break(self.stored_reader_report(&self.payment(&p.idempotency_key)?, None)?));
                }
            },
        };
        Ok(ControlFlow::Continue(intent_id))
    }

    /// Cancels the intent at the PSP, then reads it: the intent decides (canceled, or
    /// paid by a tap that won the race).
    async fn cancel_intent_then_read(&self, p: &Payment, intent_id: String) -> Result<ReaderReport> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let psp = &self.inner.psp;
        // A fresh key per press, like `cancel_action`'s: canceling an intent is harmless to
        // repeat (a canceled one stays canceled, a paid one refuses, the read decides), and
        // a fixed key would replay a stored failure (a 500 kept by the PSP's idempotency
        // layer) on every later press, so the payment could never be abandoned.
        let cancel_key = format!("{}-cancel-{}", p.idempotency_key, self.now());
        let (res, _recs) = run_phase::<PaymentIntent>(
            self.inner.phase(&self.inner.cfg.background, &subject, 1),
            {
                let c = psp.clone();
                move || c.cancel_request(&intent_id, &cancel_key)
            },
        )
        .await;
        if !matches!(res, PhaseResult::Final(AttemptOutcome::Ok { .. })) {
            tracing::info!(checkout = %p.idempotency_key, "the intent's cancel was not confirmed; reading it");
        }
        // Always read after a cancel.
        let p = self.payment(&p.idempotency_key)?;
        let rp = self.reader_payment_of(&p)?;
        let (mut report, _) = self.read_and_apply(&p, &rp, None, ResolvedVia::ReaderAfterIntentCancel).await?;
        if report.state == PaymentState::Created {
            // Still created: the cancel did not go through and nothing was processed.
            report.outcome = ReaderOutcome::Pending { why: PendingWhy::CannotRead };
        }
        Ok(report)
    }

    /// The intent created under this payment's checkout key, by search (eventually
    /// consistent: "not found" proves nothing until `search_conclusive_at_ms`).
    async fn reader_intent_by_search(&self, p: &Payment) -> Result<Searched> {
        let subject = Subject::Checkout(p.idempotency_key.clone());
        let (c, k) = (self.inner.psp.clone(), p.idempotency_key.clone());
        let res = self.background_get::<List<PaymentIntent>>(move || c.search_by_metadata_request("checkout_key", &k), &subject).await;
        let PhaseResult::Final(AttemptOutcome::Ok { value, .. }) = res else {
            return Ok(Searched::NotYet(PendingWhy::CannotRead));
        };
        if let Some(pi) = value.data.into_iter().find(|pi| pi.metadata.get("checkout_key") == Some(&p.idempotency_key)) {
            return Ok(Searched::Found(Box::new(pi)));
        }
        if self.now() < self.search_conclusive_at_ms(p)? {
            return Ok(Searched::NotYet(PendingWhy::LostAnswer));
        }
        Ok(Searched::NotThere)
    }

    /// Keeps the intent's id with the payment.
    fn attach_intent(&self, p: &Payment, pi: &PaymentIntent) -> Result<()> {
        self.check_intent_matches(p, pi)?;
        let s = CheckoutSettlement {
            psp: Some(paydesk_ledger::PspResult {
                idempotency_key: p.idempotency_key.clone(),
                psp_payment_id: pi.id.clone(),
                amount: p.amount,
                state_if_new: p.state,
            }),
            ..Default::default()
        };
        self.settle(p, &s)?;
        Ok(())
    }
}
