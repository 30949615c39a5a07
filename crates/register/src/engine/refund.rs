//! Refunds (record 0015): each with its own key committed before the network, driven
//! to an outcome, looked up in the PSP's refund list rather than resent, and continued
//! under a fresh key only when the PSP provably refunded nothing.

use super::DriveMode;
use super::{attempt_input, Attempted, CrashPoint, Engine, EngineError, RefundReport, Result, MAX_KEY_REISSUES};
use crate::notify::{Notification, ResolvedVia, SettledState, Subject};
use crate::psp::{AttemptOutcome, Fatal, List, Refund as PspRefund};
use crate::retry::{run_phase, AttemptRecord, PhaseResult};
use paydesk_ledger::{Payment, Refund, TimelineInput, TimelineKind};
use paydesk_domain::RefundState;

impl Engine {
    /// Refund `amount` (all that is left when `None`) of a captured payment,
    /// with the refund's own key committed before the network.
    pub async fn refund(&self, checkout_key: &str, amount: Option<i64>, reason: Option<&str>) -> Result<RefundReport> {
        self.refund_approved(checkout_key, amount, reason, None).await
    }

    /// [`Engine::refund`] approved by `approver_id` (staff whose PIN the caller checked):
    /// the ledger checks the role table and names both people in the refund's audit row,
    /// in the transaction that creates it (record 0068).
    pub async fn refund_approved(&self, checkout_key: &str, amount: Option<i64>, reason: Option<&str>, approver_id: Option<i64>) -> Result<RefundReport> {
        let p = self.payment(checkout_key)?;
        if let Some(a) = amount {
            if a <= 0 {
                return Err(EngineError::InvalidInput(format!("refund amount must be greater than zero (got {a})")));
            }
        }
        let now = self.now();
        let refunds = self.with_ledger(|l| l.refunds().for_payment(p.id))?;
        if let Some(open) = refunds.iter().find(|r| !r.state.is_terminal()) {
            // The same refund pressed twice would be a second refund under a new key.
            return Err(EngineError::RefundInProgress { key: checkout_key.into(), refund_key: open.idempotency_key.clone() });
        }
        // "All that is left" is the ledger's own bound for a refund by hand: less the
        // predecessor's refunds and what exchange credits hold (records 0144, 0158, 0160),
        // so it is never a figure the ledger then refuses.
        let refundable = self.with_ledger(|l| l.refunds().room(p.id))?.refundable_minor;
        let amt = amount.unwrap_or(refundable);
        if !p.state.is_refundable() {
            return Err(EngineError::WrongState {
                key: checkout_key.into(),
                state: p.state,
                attempted: Attempted::Refund,
                what: "nothing captured to refund".into(),
            });
        }
        if amt > refundable || amt <= 0 {
            return Err(EngineError::RefundExceedsCaptured { key: checkout_key.into(), requested: amt, refundable, currency: p.amount.currency });
        }
        let r = self.with_ledger(|l| l.refunds_mut().create_approved(p.id, amt, reason, approver_id, now)).map_err(|e| match e {
            paydesk_ledger::Error::RefundExceedsCaptured { requested_minor, refundable_minor, .. } => {
                EngineError::RefundExceedsCaptured { key: checkout_key.into(), requested: requested_minor, refundable: refundable_minor, currency: p.amount.currency }
            }
            paydesk_ledger::Error::RefundInProgress { refund_key, .. } => EngineError::RefundInProgress { key: checkout_key.into(), refund_key },
            other => other.into(),
        })?;
        self.drive_refund(r.id, r.idempotency_key.clone(), DriveMode::Interactive).await
    }

    /// Drive a refund to its outcome. When the PSP stored a failure for its key and
    /// provably refunded nothing, the refund continues as a new refund under a fresh key
    /// (see [`paydesk_ledger::Refunds::reissue`]); that one is driven here too, at most
    /// [`MAX_KEY_REISSUES`] times.
    pub(super) async fn drive_refund(&self, refund_id: paydesk_ledger::RefundId, _key: String, mode: DriveMode) -> Result<RefundReport> {
        let mut current = refund_id;
        loop {
            match self.drive_refund_once(current, mode).await? {
                RefundStep::Done(rep) => return Ok(rep),
                RefundStep::Reissued(next) => current = next,
            }
        }
    }

    async fn drive_refund_once(&self, refund_id: paydesk_ledger::RefundId, mode: DriveMode) -> Result<RefundStep> {
        let r = self.with_ledger(move |l| l.refunds().by_id(refund_id))?;
        let _flight = self.flight(&r.idempotency_key).await;
        let r = self.with_ledger(move |l| l.refunds().by_id(refund_id))?;
        let p = self.with_ledger(|l| l.payments().by_id(r.payment_id))?;
        if r.state.is_terminal() {
            return Ok(RefundStep::Done(self.refund_report(&r, &p)?));
        }
        let subject = Subject::Refund(r.idempotency_key.clone());
        let first = Some(r.first_attempt_at_ms.unwrap_or(r.created_at_ms));
        if !self.inner.cfg.window.may_send(first, self.now()) {
            return self.refund_past_window(&r, &p, &subject).await;
        }
        let (res, recs) = self.refund_phase(&r, mode, &subject).await;
        let now = self.now();
        self.with_ledger(|l| -> Result<()> {
            for rec in &recs {
                l.refunds_mut().record_attempt(r.id, &attempt_input(rec), rec.started_ms.min(now))?;
            }
            Ok(())
        })?;
        let outcome = match res {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => {
                let to = refund_state_of(&value);
                self.with_ledger(|l| l.refunds_mut().record_result(r.id, &value.id, to, now))?;
                Some(to)
            }
            PhaseResult::Final(AttemptOutcome::Fatal(Fatal::BadRequest(_))) => {
                // Refused by the PSP (not stored, nothing executed): failed, amount refundable again.
                if r.state == RefundState::Pending {
                    self.with_ledger(|l| l.refunds_mut().transition(r.id, RefundState::Pending, RefundState::Failed, now))?;
                }
                Some(RefundState::Failed)
            }
            PhaseResult::Final(AttemptOutcome::Fatal(f)) => return Err(EngineError::PspRejected(f.message())),
            PhaseResult::Final(AttemptOutcome::Unknown { status, message, .. }) => {
                let answer = PspAnswer { status, message: &message, now };
                match self.on_refund_unknown(&r, &p, &subject, answer).await? {
                    Some(step) => return Ok(step),
                    None => None,
                }
            }
            PhaseResult::Final(AttemptOutcome::Declined { .. } | AttemptOutcome::Retry { .. }) | PhaseResult::Exhausted { .. } => {
                if r.state == RefundState::Pending && !recs.is_empty() {
                    let _ = self.with_ledger(|l| l.refunds_mut().transition(r.id, RefundState::Pending, RefundState::InFlight, now));
                }
                None
            }
        };
        if let Some(s) = outcome {
            self.notify(Notification::Resolved { subject, state: SettledState::Refund(s), via: ResolvedVia::Reply });
        }
        let r = self.with_ledger(|l| l.refunds().by_id(r.id))?;
        let p = self.with_ledger(|l| l.payments().by_id(r.payment_id))?;
        Ok(RefundStep::Done(self.refund_report(&r, &p)?))
    }

    /// Past the dedup window the PSP may have forgotten the key: resending it could
    /// refund twice. Never resend; look the refund up by its metadata instead.
    async fn refund_past_window(&self, r: &Refund, p: &Payment, subject: &Subject) -> Result<RefundStep> {
        let why = "dedup window passed: never resending this refund key";
        match self.find_refund_at_psp(r, p, subject).await {
            RefundLookup::Found(found) => Ok(RefundStep::Done(self.record_found_refund(r, p, &found, why)?)),
            RefundLookup::Absent => {
                // Provably never refunded (every page listed; a request that old has
                // long finished). Fail it visibly rather than resend under a new key:
                // like a checkout not found past the window (record 0008: never charged ->
                // failed), a new key needs the cashier's explicit intent (record 0005) — a
                // day later the customer may have been refunded another way, and an
                // automatic refund now could pay out twice. Ledger = PSP exactly: no
                // refund on either side; the amount is refundable again.
                let msg = format!(
                    "refund of {} on {} never reached the processor before its key expired: nothing was refunded. Issue the refund again if it is still owed",
                    r.amount, p.idempotency_key
                );
                Ok(RefundStep::Done(self.fail_refund_visibly(r, p, subject, &msg)?))
            }
            RefundLookup::Unavailable => Ok(RefundStep::Done(self.refund_report(r, p)?)),
        }
    }

    /// One bounded phase of `POST /v1/refunds` with the refund's key and parameters.
    async fn refund_phase(&self, r: &Refund, mode: DriveMode, subject: &Subject) -> (PhaseResult<PspRefund>, Vec<AttemptRecord>) {
        let policy = match mode {
            DriveMode::Interactive => &self.inner.cfg.interactive,
            DriveMode::Background | DriveMode::Forward => &self.inner.cfg.background,
        };
        let form = r.request_params.0.clone();
        let key = r.idempotency_key.clone();
        let timeout = self.inner.psp.attempt_timeout;
        let (res, recs) = run_phase::<PspRefund>(self.inner.phase(policy, subject, 1), move || crate::transport::HttpRequest {
            method: crate::transport::Method::Post,
            path: "/v1/refunds".into(),
            form: form.clone(),
            idempotency_key: Some(key.clone()),
            timeout,
        })
        .await;
        self.note_connectivity(&recs);
        self.crash(CrashPoint::MidRefund);
        (res, recs)
    }

    /// The PSP stored a 5xx for the key and replays it until the key expires: resending
    /// can never succeed. Its execution is finished, so the PSP's refund list now tells
    /// the truth for this key. `Some` ends this drive (found, failed, or reissued);
    /// `None` leaves the refund as it is for the background.
    async fn on_refund_unknown(&self, r: &Refund, p: &Payment, subject: &Subject, answer: PspAnswer<'_>) -> Result<Option<RefundStep>> {
        let PspAnswer { status, message, now } = answer;
        let key = &r.idempotency_key;
        if r.state == RefundState::Pending {
            let _ = self.with_ledger(|l| l.refunds_mut().transition(r.id, RefundState::Pending, RefundState::InFlight, now));
        }
        let r = self.with_ledger(|l| l.refunds().by_id(r.id))?;
        let why = format!("the PSP answered {status} ({message}) for {key}");
        match self.find_refund_at_psp(&r, p, subject).await {
            RefundLookup::Found(found) => Ok(Some(RefundStep::Done(self.record_found_refund(&r, p, &found, &why)?))),
            RefundLookup::Unavailable => Ok(None),
            RefundLookup::Absent => {
                // Nothing refunded under this key, and nothing ever will be: continue
                // under a fresh key, committed (with the old row failed, in one
                // transaction) before it is sent. The cashier asked for this refund
                // seconds ago, so finishing it is the intent.
                let generation = self.with_ledger(|l| l.refunds().generation(key))?;
                if generation >= MAX_KEY_REISSUES {
                    let msg = format!(
                        "refund of {} on {} failed at the processor under {} keys ({status} {message}); nothing was refunded. Needs attention: issue it again later or refund another way",
                        r.amount, p.idempotency_key, generation + 1
                    );
                    return Ok(Some(RefundStep::Done(self.fail_refund_visibly(&r, p, subject, &msg)?)));
                }
                let why = format!("{why}; no refund with this key at the PSP");
                let next = self.with_ledger(|l| l.refunds_mut().reissue(r.id, &why, now))?;
                Ok(Some(RefundStep::Reissued(next.id)))
            }
        }
    }

    /// Look a refund up at the PSP by its metadata (`refund_key`), listing every refund
    /// of its PaymentIntent (`GET /v1/refunds?payment_intent=…`, paged, bounded).
    async fn find_refund_at_psp(&self, r: &Refund, p: &Payment, subject: &Subject) -> RefundLookup {
        let Some(pi_id) = r.request_params.get("payment_intent").map(str::to_string).or_else(|| p.psp_payment_id.clone()) else {
            return RefundLookup::Unavailable;
        };
        let psp = &self.inner.psp;
        let mut after: Option<String> = None;
        for _ in 0..MAX_REFUND_LIST_PAGES {
            let a = after.clone();
            let (c, id) = (psp.clone(), pi_id.clone());
            let page = match self.background_get::<List<PspRefund>>(move || c.list_refunds_page_request(&id, a.as_deref()), subject).await {
                PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => value,
                PhaseResult::Final(
                    AttemptOutcome::Declined { .. }
                    | AttemptOutcome::Retry { .. }
                    | AttemptOutcome::Unknown { .. }
                    | AttemptOutcome::Fatal(_),
                )
                | PhaseResult::Exhausted { .. } => return RefundLookup::Unavailable,
            };
            self.set_online(true);
            if let Some(found) = page.data.iter().find(|x| x.metadata.get("refund_key") == Some(&r.idempotency_key)) {
                return RefundLookup::Found(found.clone());
            }
            match page.data.last() {
                Some(last) if page.has_more => after = Some(last.id.clone()),
                _ => return RefundLookup::Absent,
            }
        }
        // More refunds than we are willing to page through: cannot prove absence.
        RefundLookup::Unavailable
    }

    fn record_found_refund(&self, r: &Refund, p: &Payment, found: &PspRefund, why: &str) -> Result<RefundReport> {
        let now = self.now();
        let to = refund_state_of(found);
        self.with_ledger(|l| -> Result<()> {
            l.payments_mut().append_timeline(
                p.id,
                &TimelineInput {
                    kind: Some(TimelineKind::Note),
                    detail: format!("{why}; refund list: found {} ({})", found.id, found.status),
                    outcome: Some(super::note::NoteMark::Search.as_str().into()),
                    refund_id: Some(r.id),
                    ..Default::default()
                },
                now,
            )?;
            l.refunds_mut().record_result(r.id, &found.id, to, now)?;
            Ok(())
        })?;
        self.notify(Notification::Resolved { subject: Subject::Refund(r.idempotency_key.clone()), state: SettledState::Refund(to), via: ResolvedVia::Search });
        let r = self.with_ledger(|l| l.refunds().by_id(r.id))?;
        let p = self.with_ledger(|l| l.payments().by_id(r.payment_id))?;
        self.refund_report(&r, &p)
    }

    /// A refund that provably did not happen and will not be retried: `failed` (its
    /// amount refundable again), the reason in the timeline, an alarm on the screen.
    fn fail_refund_visibly(&self, r: &Refund, p: &Payment, subject: &Subject, msg: &str) -> Result<RefundReport> {
        let now = self.now();
        self.with_ledger(|l| -> Result<()> {
            l.payments_mut().append_timeline(
                p.id,
                &TimelineInput {
                    kind: Some(TimelineKind::Note),
                    detail: msg.to_string(),
                    outcome: Some(super::note::NoteMark::Search.as_str().into()),
                    refund_id: Some(r.id),
                    ..Default::default()
                },
                now,
            )?;
            l.refunds_mut().transition(r.id, r.state, RefundState::Failed, now)?;
            Ok(())
        })?;
        self.notify(Notification::Alarm { subject: Some(subject.clone()), code: crate::notify::AlarmCode::RefundNotMade, message: msg.to_string() });
        self.notify(Notification::Resolved { subject: subject.clone(), state: SettledState::Refund(RefundState::Failed), via: ResolvedVia::Search });
        let r = self.with_ledger(|l| l.refunds().by_id(r.id))?;
        let p = self.with_ledger(|l| l.payments().by_id(r.payment_id))?;
        let mut rep = self.refund_report(&r, &p)?;
        rep.message = Some(msg.to_string());
        Ok(rep)
    }

    fn refund_report(&self, r: &Refund, p: &Payment) -> Result<RefundReport> {
        let tl = self.with_ledger(|l| l.payments().timeline(p.id))?;
        let attempts = tl.iter().filter(|t| t.kind == TimelineKind::Attempt && t.refund_id == Some(r.id)).count() as u32;
        Ok(RefundReport {
            refund_key: r.idempotency_key.clone(),
            checkout_key: p.idempotency_key.clone(),
            state: r.state,
            amount: r.amount.amount_minor,
            currency: r.amount.currency,
            psp_refund_id: r.psp_refund_id.clone(),
            attempts,
            message: None,
        })
    }
}

/// Pages of `GET /v1/refunds` read to prove a refund absent (100 refunds a page).
const MAX_REFUND_LIST_PAGES: usize = 20;

/// The PSP's stored server error for a refund key, and when the drive heard it.
struct PspAnswer<'a> {
    status: u16,
    message: &'a str,
    now: i64,
}

enum RefundStep {
    Done(RefundReport),
    /// Continued as this new refund under a fresh key.
    Reissued(paydesk_ledger::RefundId),
}

enum RefundLookup {
    Found(PspRefund),
    /// Every refund of the PaymentIntent was listed; none carries this refund's key.
    Absent,
    Unavailable,
}

fn refund_state_of(r: &PspRefund) -> RefundState {
    match r.status.as_str() {
        "succeeded" => RefundState::Succeeded,
        "failed" | "canceled" => RefundState::Failed,
        _ => RefundState::InFlight,
    }
}
